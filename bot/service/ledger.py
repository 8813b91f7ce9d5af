"""The rules applied: the service deals, applies, replays and ends games; storage stores what it is given.

THE RULE of this layer: the engines run here, never in storage (``bot/storage`` imports no game, and
``tests/unit/test_imports.py`` says so). A move goes down once and comes back up once:
``ui -> service (this module: the engine applies the action, the results and rating computation are
made) -> storage (one transaction: the action, the state after it, and, when it ended the game, the
results, ratings, stats and history) -> service -> ui``. Storage keeps the SQL, the transactions, the
idempotency keys and the one retry of a commit (:mod:`bot.storage.game_commit`); where it must read
inside the transaction to write (a player's rating row, locked), it runs the computation this layer
hands it (:func:`bot.service.outcomes.rating_plan`) and knows nothing of what it computes.

:class:`GameLedger` wraps a :class:`~bot.storage.Storage`: ``create_game`` (deal and store),
``apply_action`` (apply and commit), ``finish_game`` (a game loaded over but never closed),
``load_active`` / ``get_game`` / ``verify`` / ``reload`` (rows read by storage, turned into games here:
a snapshot parsed, or a log replayed when a check fails or the engine's code changed).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from bot.engine.base import GameState
from bot.engine.errors import GameError
from bot.games.registry import BY_KIND, get_engine
from bot.service.outcomes import game_end
from bot.storage import (
    ChannelBusy,
    GameNotOver,
    GameQuarantined,
    NeedsReload,
    Seat,
    Storage,
    StorageError,
    StoredGame,
)
from bot.storage.game_commit import (
    COMMIT_RETRY_WITHIN_S,
    RELOAD_WITHIN_S,
    SETTLE_PAUSES_S,
    SETTLE_WITHIN_S,
    RetryTimedOut,
)
from bot.storage.game_log import GameRow, Repair
from bot.storage.game_types import (
    FINISHED,
    QUARANTINED,
    FinishedGame,
    GameHead,
    LoadResult,
    Verify,
    canonical_json,
    error_name,
    gc_paused,
    snapshot_hash,
)
from bot.storage.games import check_seats, is_same_action

log = logging.getLogger("bot.service")  # one name for the service (its messages keep their storage.* words)

RawLog = Sequence[tuple[int, int, str | dict[str, Any]]]

# A deal that met a transient fault (create_game's retry_within) is read back, then tried again, after
# a first short pause (the backend reconnects meanwhile), then as a move's read-back is.
DEAL_PAUSES_S = (0.2, *SETTLE_PAUSES_S)


@cache
def engine_fingerprint(kind: str) -> str:
    """A hash of the engine's source: when it changes, stored snapshots are verified by replay."""
    try:
        module = get_engine(kind)
        source = Path(module.__file__ or "").read_bytes()
    except (GameError, ImportError, OSError):
        return "unavailable"
    return hashlib.blake2b(source, digest_size=16).hexdigest()


def replay_log(head: GameHead, actions: RawLog) -> GameState:
    """Rebuild the engine state of ``head`` from its log: ``(seq, seat, action)`` in order."""
    engine = get_engine(head.kind)
    options = engine.Options.from_dict(head.options)
    parsed = []
    for expected_seq, (seq, seat, action) in enumerate(actions, start=1):
        if seq != expected_seq:
            raise StorageError(f"the action log has a gap at {expected_seq}")
        data = json.loads(action) if isinstance(action, str) else action
        parsed.append((seat, engine.action_from_dict(data)))
    state: GameState = engine.replay([s.engine_name for s in head.seats], head.seed, options, parsed)
    return state


def restore(stored: StoredGame, committed: str) -> None:
    """Put back the state as last committed (``committed``, its canonical JSON) and mark the game to
    be read again before anything more is applied to it."""
    stored.state = get_engine(stored.kind).State.from_dict(json.loads(committed))
    stored.snapshot = committed
    stored.needs_reload = True


def _differing_keys(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


_Outcome = tuple[StoredGame | None, Repair | None]


def check_row(row: GameRow, *, full: bool, actions: list[tuple[int, int, str]] | None) -> _Outcome | None:
    """Turn a row into a playable game, replaying its log when a check fails or ``full`` is asked.

    The cheap checks: the snapshot's stored hash matches its text (a damaged cache), and the game's
    version equals the last ``seq`` of its log (a snapshot from another point of the log). Returns
    None when the log is needed and ``actions`` was not given (the caller fetches the logs of every
    such game in one hop and calls again).
    """
    game_id = row.id
    if row.status == QUARANTINED:
        return None, None
    try:
        head = row.head()
        engine = get_engine(head.kind)
    except (GameError, StorageError, ValueError, TypeError) as error:
        return None, Repair(game_id, row.version, quarantine=error_name(error))
    problem: str | None = None
    state: GameState | None = None
    try:
        if snapshot_hash(row.snapshot) != row.snapshot_hash:
            problem = "snapshot_hash"
        elif row.version != row.last_seq:
            problem = "version_vs_log"
        else:
            state = engine.State.from_dict(json.loads(row.snapshot))
    except Exception as error:  # a cache that does not parse is rebuilt from the log, the truth
        problem = f"snapshot_unreadable:{error_name(error)}"
    if problem is None and not full and state is not None:
        return head.with_state(state, row.snapshot), None
    if actions is None:
        return None
    try:
        replayed = replay_log(head, actions)
        text = canonical_json(replayed.to_dict())
    except Exception as error:
        return None, Repair(game_id, row.version, quarantine=f"log_replay_failed:{error_name(error)}")
    stored = head.with_state(replayed, text, verified=True)
    if problem is None and text == row.snapshot:
        return stored, None
    differing: list[str] = []
    if problem is None:
        problem = "replay_mismatch"
        try:
            differing = _differing_keys(json.loads(row.snapshot), json.loads(text))
        except ValueError:
            differing = ["?"]
    # Structured and free of hidden cards: names of the differing fields, never their values.
    log.warning(
        "storage.snapshot_mismatch game_id=%d kind=%s problem=%s version=%d log_actions=%d fields=%s",
        game_id,
        stored.kind,
        problem,
        row.version,
        len(actions),
        ",".join(differing) or "-",
        extra={
            "event": "snapshot_mismatch",
            "game_id": game_id,
            "kind": stored.kind,
            "problem": problem,
            "version": row.version,
            "log_actions": len(actions),
            "fields": differing,
        },
    )
    stored.version = len(actions)
    return stored, Repair(game_id, row.version, snapshot=text, version=len(actions))


class GameLedger:
    """The games of one :class:`~bot.storage.Storage`, their rules applied here (see the module doc)."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    # ---------------------------------------------------------------- dealing

    async def create_game(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        kind: str,
        seats: Sequence[Seat],
        seed: int,
        options: Mapping[str, Any] | None = None,
        host_id: int | None = None,
        message_id: int | None = None,
        rated: bool = True,
        meta: Mapping[str, Any] | None = None,
        retry_within: float = 0.0,
        off_server: bool = False,
    ) -> StoredGame:
        """Deal a new game with the engine and store it; :class:`ChannelBusy` if the channel has one.

        Seats must be numbered 0, 1, 2... in order; a user may sit only once.

        ``retry_within`` (seconds, with a ``lobby_id`` in ``meta``: one lobby deals one game, the
        deal's idempotency key): a transient fault is tried again, as a move's commit is, while within
        that time, each try after a pause (:data:`DEAL_PAUSES_S`) and a read-back of the channel's
        active game (:meth:`dealt`): found with that lobby id, it is the game dealt by a try whose
        answer was lost, and it is returned; ChannelBusy is read back the same way.
        """
        engine = get_engine(kind)
        check_seats(seats)
        options_obj = engine.Options.from_dict(dict(options or {}))
        state = engine.State.new([s.engine_name for s in seats], seed, options_obj)
        lobby_id = (meta or {}).get("lobby_id")
        began = time.monotonic()
        pauses = iter(DEAL_PAUSES_S)
        while True:
            try:
                return await self.storage.games.create_game(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    kind=kind,
                    seats=seats,
                    seed=seed,
                    options=options_obj.to_dict(),
                    state=state,
                    host_id=host_id,
                    message_id=message_id,
                    rated=rated,
                    meta=meta,
                    off_server=off_server,
                )
            except ChannelBusy:
                dealt = await self.dealt(channel_id, lobby_id) if retry_within and lobby_id else None
                if dealt is None:
                    raise
                return dealt
            except StorageError as error:
                if not (retry_within and lobby_id and error.transient):
                    raise
                failed = error
            log.warning("storage.deal_retry channel_id=%d error=%s", channel_id, type(failed).__name__)
            while True:  # read back, until the game is found, or not (then dealt again)
                pause = next(pauses, DEAL_PAUSES_S[-1])
                if time.monotonic() + pause - began > retry_within:
                    raise failed
                await asyncio.sleep(pause)
                try:
                    dealt = await asyncio.wait_for(self.dealt(channel_id, lobby_id), RELOAD_WITHIN_S)
                except (StorageError, TimeoutError):
                    continue
                if dealt is not None:
                    log.info("storage.deal_found game_id=%d", dealt.id)
                    return dealt
                break

    async def dealt(self, channel_id: int, lobby_id: Any) -> StoredGame | None:
        """The active game of ``channel_id`` if lobby ``lobby_id`` dealt it (its meta says so), else None."""
        game_id = await self.storage.games.active_in_channel(channel_id)
        if game_id is None:
            return None
        stored = await self.get_game(game_id)
        return stored if stored.meta.get("lobby_id") == lobby_id else None

    # ---------------------------------------------------------------- applying

    async def apply_action(
        self,
        stored: StoredGame,
        seat: int,
        action: Any,
        meta_after: Callable[[Any], Mapping[str, Any] | None] | None = None,
        *,
        key: int | None = None,
        retry_within: float = COMMIT_RETRY_WITHIN_S,
        on_retry: Callable[[str], None] | None = None,
    ) -> list[Any]:
        """Apply ``action`` (an engine action) to ``stored.state`` and commit it; returns the events.

        ``meta_after(game)``, called once the engine applied the action, may return new metadata to
        commit in the same transaction (None: unchanged); ``stored.meta`` is updated on success.

        An illegal action raises the engine's GameError and writes nothing. The action that ends the
        game also finishes it in the same transaction (its results and rating changes are computed
        here, :func:`bot.service.outcomes.game_end`; ``stored.status`` becomes ``finished`` and
        ``stored.finished`` holds what was written).

        ``key``, ``retry_within``, ``on_retry``: the idempotency key and the one retry of a commit
        after a transient fault (:meth:`bot.storage.games.GameRepository.commit_action`).

        If the commit fails for good, ``stored`` is read again from the database, so the in-memory
        game never runs ahead of the log, and the error is raised; if the read finds the action
        logged (by its key) the move is done after all and its events are returned. If the read fails
        too (the database still away; a keyed click's read is tried again for a few seconds first:
        :meth:`_settle`), ``stored.state`` is restored to the state before the action
        (from ``stored.snapshot``) and ``stored.needs_reload`` is set: nothing more may be applied to
        it (:class:`NeedsReload`) until :meth:`reload` succeeds.
        """
        if stored.needs_reload:
            raise NeedsReload(stored.id)
        committed, expected = stored.snapshot, stored.version
        events: list[Any] = list(stored.state.apply(seat, action))
        action_dict = action.to_dict()
        try:
            game = stored.state
            meta = meta_after(game) if meta_after is not None else None
            snapshot = canonical_json(game.to_dict())
            end = game_end(stored, game, snapshot, meta) if game.is_over else None
            await self.storage.games.commit_action(
                stored,
                seat,
                action_dict,
                snapshot,
                meta,
                end=end,
                key=key,
                retry_within=retry_within,
                on_retry=on_retry,
            )
        except asyncio.CancelledError:
            restore(stored, committed)  # no I/O while being cancelled: the next use reloads it
            raise
        except Exception as error:
            if await self._settle(stored, committed, expected, seat, action_dict, key, error):
                return events  # the read-back found the action logged: the move is done after all
            raise
        return events

    async def _settle(
        self,
        stored: StoredGame,
        committed: str,
        expected: int,
        seat: int,
        action: Mapping[str, Any],
        key: int | None,
        error: BaseException,
    ) -> bool:
        """After a commit failed for good: read the game again (so the cache never runs ahead of the
        log). True if the commit's outcome was unknown (a transient fault) and the log holds the action
        after all (by its key, or, without one, by its seat and action at that version): ``stored`` is
        then the game with it. When the database cannot be read (or a retry's outcome is still
        unknown), the state before the action is restored from ``committed`` and
        ``stored.needs_reload`` set.

        THE RULE of the read-back: one try (bounded by ``RELOAD_WITHIN_S``), except for a human's click
        (``key`` set) whose outcome is unknown: its COMMIT may have landed (the connection dropped after
        the server committed), so "reconnecting, try again" could be a lie. Its read-back is tried again
        after each of ``SETTLE_PAUSES_S`` (0.25, 0.5, 1 s, then 1 s) while within ``SETTLE_WITHIN_S``
        (4 s) of the first failed read-back, and only then is the state restored and the click refused.
        The channel lock stays held meanwhile (the table's state is unknown: its other clicks wait).
        Computers' and timers' moves (no key) keep their one try: their own tasks retry them
        (:mod:`bot.service.computers`, :mod:`bot.service.timers`, :mod:`bot.service.reloads`)."""
        if isinstance(error, RetryTimedOut):
            restore(stored, committed)
            return False
        # Only a transient fault leaves the commit's outcome unknown: after a refusal (a stale version,
        # a game no longer active) nothing was written, whatever the log holds now.
        unknown = isinstance(error, StorageError) and error.transient
        action_json = canonical_json(dict(action))
        pauses = iter(SETTLE_PAUSES_S)
        pause = SETTLE_PAUSES_S[-1]
        settle_by: float | None = None
        within = RELOAD_WITHIN_S
        try:
            while True:
                try:
                    fresh, logged, finished = await asyncio.wait_for(
                        self._read_back(stored.id, expected + 1), within
                    )
                    break
                except (StorageError, TimeoutError) as failed:
                    now = time.monotonic()
                    settle_by = now + SETTLE_WITHIN_S if settle_by is None else settle_by
                    pause = next(pauses, pause)
                    if not (unknown and key is not None) or now + pause >= settle_by:
                        restore(stored, committed)
                        log.warning(
                            "storage.reload_failed game_id=%d",
                            stored.id,
                            extra={"event": "reload_failed", "game_id": stored.id},
                        )
                        return False
                    log.info(
                        "storage.read_back_again game_id=%d error=%s",
                        stored.id,
                        type(failed).__name__,
                        extra={"event": "read_back_again", "game_id": stored.id},
                    )
                    await asyncio.sleep(pause)
                    within = min(RELOAD_WITHIN_S, max(0.1, settle_by - time.monotonic()))
        except asyncio.CancelledError:
            restore(stored, committed)  # no I/O while being cancelled: the next use reloads it
            raise
        stored.__dict__.update(fresh.__dict__)
        stored.finished = finished
        return unknown and logged is not None and is_same_action(logged, seat, action_json, key)

    async def _read_back(
        self, game_id: int, seq: int
    ) -> tuple[StoredGame, tuple[Any, ...] | None, FinishedGame | None]:
        """The game as stored, what its log holds at ``seq`` (``(seat, action, key)``), and what its
        finish wrote if it is finished."""
        fresh = await self.get_game(game_id)
        if fresh.version < seq and fresh.status != FINISHED:
            return fresh, None, None
        logged, finished = await self.storage.games.read_logged(
            game_id, seq, finished=fresh.status == FINISHED
        )
        return fresh, logged, finished

    async def reload(self, stored: StoredGame) -> None:
        """Read ``stored`` again from the database, in place (clearing ``needs_reload``): the game as
        its log has it, and what its finish wrote if a commit that failed had in fact ended it.
        Raises :class:`StorageError` (the database still away) or :class:`GameQuarantined`."""
        fresh, _, finished = await self._read_back(stored.id, stored.version + 1)
        stored.__dict__.update(fresh.__dict__)
        stored.finished = finished

    # ---------------------------------------------------------------- the end of a game

    async def finish_game(self, stored: StoredGame) -> FinishedGame:
        """Close a game loaded over but still active (an old crash between its last action and its
        close): its results and ratings computed from its state, written in one transaction at its
        version. Raises :class:`GameNotOver` if its state does not end the game."""
        if not stored.state.is_over:
            raise GameNotOver(stored.id)
        end = game_end(stored, stored.state, canonical_json(stored.state.to_dict()))
        return await self.storage.games.finish_game(stored.id, end, stored.version)

    # ---------------------------------------------------------------- reading

    async def load_active(
        self, *, verify: Verify = "auto", owns: Callable[[int | None], bool] | None = None
    ) -> LoadResult:
        """Every active game, ready to play.

        Replaying every log costs about 10 us per action (10,000 games in mid-play take seconds), so
        each snapshot is checked *cheaply* by default (:func:`check_row`); a game failing a check is
        replayed from its log and its snapshot rebuilt. A snapshot can also be well-formed and
        consistent yet differ from a replay only if the engine code changed, so the fingerprint of
        each engine's source is kept, and when it differs from the one that wrote the snapshots, every
        game of that kind is verified by a full replay at that start (``verify="full"``: every game).

        A game whose data cannot give a game (unknown kind, unreadable options, a log that does not
        replay) is quarantined with a log line; the others are still returned. ``owns(guild_id)``: only
        those games (a fleet process loads its shards' games; the others are neither replayed nor
        repaired here, their own process does it).
        """
        rows, known = await self.storage.games.read_rows(owns=owns)
        return await self._load(rows, known, verify=verify, record_fingerprints=True)

    async def get_game(self, game_id: int, *, verify: bool = False) -> StoredGame:
        """One game, whatever its status; with ``verify`` its snapshot is checked by a full replay.

        Raises :class:`GameNotFound`, or :class:`GameQuarantined` if its data cannot give a game.
        """
        rows, known = await self.storage.games.read_rows(game_id)
        result = await self._load(rows, known, verify="full" if verify else "auto", record_fingerprints=False)
        if result.games:
            return result.games[0]
        if game_id in result.reasons:
            raise GameQuarantined(game_id, result.reasons[game_id])
        status, note = await self.storage.games.status_of(game_id)
        raise GameQuarantined(game_id, str(note or status))

    async def verify(self, game_id: int) -> StoredGame:
        """Replay a game's log, compare with its snapshot, rebuild it if they differ."""
        return await self.get_game(game_id, verify=True)

    async def _load(
        self, rows: list[GameRow], known: Mapping[str, str], *, verify: Verify, record_fingerprints: bool
    ) -> LoadResult:
        # Kinds whose engine code changed since their snapshots were written get a full replay.
        changed = {k for k in BY_KIND if known.get(k) not in (None, engine_fingerprint(k))}
        full = {row.id: verify == "full" or row.kind in changed for row in rows}
        with gc_paused():
            outcomes = [check_row(row, full=full[row.id], actions=None) for row in rows]
        waiting = [row.id for row, outcome in zip(rows, outcomes, strict=True) if outcome is None]
        if waiting:
            logs = await self.storage.games.raw_logs(waiting)
            with gc_paused():
                outcomes = [
                    check_row(row, full=full[row.id], actions=logs[row.id]) if outcome is None else outcome
                    for row, outcome in zip(rows, outcomes, strict=True)
                ]
        results = [outcome for outcome in outcomes if outcome is not None]
        games = [g for g, _ in results if g is not None]
        active = {row.id for row in rows if row.status == "active"}
        reasons = {r.game_id: r.quarantine for _, r in results if r is not None and r.quarantine is not None}
        # Only active games are repaired or set aside; an ended game is history, read as it is.
        repairs = [r for _, r in results if r is not None and r.game_id in active]
        fingerprints = (
            {k: engine_fingerprint(k) for k in BY_KIND if known.get(k) != engine_fingerprint(k)}
            if record_fingerprints
            else {}
        )
        await self.storage.games.write_repairs(repairs, fingerprints, {row.id: row.kind for row in rows})
        return LoadResult(
            games,
            rebuilt=[r.game_id for r in repairs if r.snapshot is not None],
            quarantined=[r.game_id for r in repairs if r.quarantine is not None],
            reasons=reasons,
        )
