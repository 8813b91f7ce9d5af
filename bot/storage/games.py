"""Games: creation, the action log (the truth), snapshots (a cache), loading, finishing, quarantine.

A game is its kind, seed, options, seats and action log; ``replay`` of those gives the state bit for
bit. The snapshot (the engine's ``to_dict()`` as canonical JSON) only spares a replay at start.

Checking snapshots at load. Replaying every log costs about 10 us per action (10,000 games in mid-play
take seconds), so :meth:`GameRepository.load_active` checks each snapshot *cheaply* by default: it
parses, its stored hash matches its text (a damaged cache), and the game's version equals the last
``seq`` of its log (a snapshot from another point of the log). A game failing any check is replayed
from its log and its snapshot rebuilt. A snapshot can also be well-formed and consistent yet differ
from a replay only if the engine code changed (or the service wrote a state it did not get from the
log); so storage keeps a fingerprint of each engine's source, and when it differs from the one that
wrote the snapshots, every game of that kind is verified by a full replay at that start.
``load_active(verify="full")`` and :meth:`GameRepository.verify` replay on demand.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot.games.registry import KINDS, get_engine
from bot.storage.backend import Connection, Database
from bot.storage.errors import (
    ChannelBusy,
    GameNotFound,
    GameQuarantined,
    NeedsReload,
    StorageError,
)
from bot.storage.game_commit import (
    COMMIT_RETRY_WITHIN_S,
    RELOAD_WITHIN_S,
    RetryTimedOut,
    commit_once_more,
    restore,
)
from bot.storage.game_log import (
    _appender,
    _check,
    _fetch_actions,
    _fetch_rows,
    _finish,
    _finished_record,
    _finisher,
    _is_same_action,
    _log_quarantine,
    _logged_at,
    _raw_actions,
    _Row,
    _why_not_written,
    _write_repairs,
    replay_log,
)
from bot.storage.game_types import (
    _ENGINE_KEY,
    ACTIVE,
    CANCELLED,
    FINISHED,
    QUARANTINED,
    FinishedGame,
    LoadResult,
    Seat,
    StoredAction,
    StoredGame,
    Verify,
    _gc_paused,
    canonical_json,
    engine_fingerprint,
    now_ms,
    snapshot_hash,
)

log = logging.getLogger(__name__)


# Where these names were before the types and the log's statements left this module: importable from here.
__all__ = [
    "ACTIVE",
    "CANCELLED",
    "FINISHED",
    "QUARANTINED",
    "FinishedGame",
    "GameRepository",
    "LoadResult",
    "Seat",
    "StoredAction",
    "StoredGame",
    "Verify",
    "canonical_json",
    "engine_fingerprint",
    "now_ms",
    "replay_log",
    "snapshot_hash",
]

# ------------------------------------------------------------------------------------------ repository


class GameRepository:
    """Every game read and write. Each method is one hop of the database (one unit of work)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # ---------------------------------------------------------------- creation

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
    ) -> StoredGame:
        """Deal a new game with the engine and store it; :class:`ChannelBusy` if the channel has one.

        Seats must be numbered 0, 1, 2... in order; a user may sit only once.
        """
        engine = get_engine(kind)
        if [s.seat for s in seats] != list(range(len(seats))):
            raise ValueError("seats must be numbered 0, 1, 2... in order")
        users = [s.user_id for s in seats if s.ai_level is None]
        if None in users or len(set(users)) != len(users):
            raise ValueError("every human seat needs a distinct user id")
        options_obj = engine.Options.from_dict(dict(options or {}))
        game = engine.Game.new([s.engine_name for s in seats], seed, options_obj)
        options_json = canonical_json(options_obj.to_dict())
        snapshot = canonical_json(game.to_dict())
        meta_json = canonical_json(dict(meta or {}))
        now = now_ms()

        def work(conn: Connection) -> int:
            busy = conn.execute(
                "SELECT id FROM games WHERE channel_id = ? AND status = ?", (channel_id, ACTIVE)
            ).fetchone()
            if busy is not None:
                raise ChannelBusy(channel_id, busy[0])
            try:
                row = conn.execute(
                    "INSERT INTO games (guild_id, channel_id, kind, options, seed, status, rated, host_id,"
                    " message_id, version, snapshot, snapshot_hash, meta, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?) RETURNING id",
                    (
                        guild_id,
                        channel_id,
                        kind,
                        options_json,
                        seed,
                        ACTIVE,
                        int(rated),
                        host_id,
                        message_id,
                        snapshot,
                        snapshot_hash(snapshot),
                        meta_json,
                        now,
                        now,
                    ),
                ).fetchone()
            except Exception as error:
                if self.db.is_unique_violation(error):  # the partial unique index, should a check race
                    raise ChannelBusy(channel_id) from error
                raise
            game_id = int(row[0])
            conn.executemany(
                "INSERT INTO game_seats (game_id, seat, user_id, ai_level, display_name)"
                " VALUES (?, ?, ?, ?, ?)",
                [(game_id, s.seat, s.user_id, s.ai_level, s.display_name) for s in seats],
            )
            return game_id

        game_id = await self.db.write(work)
        return StoredGame(
            id=game_id,
            guild_id=guild_id,
            channel_id=channel_id,
            kind=kind,
            seed=seed,
            options=json.loads(options_json),
            seats=tuple(seats),
            status=ACTIVE,
            rated=rated,
            host_id=host_id,
            message_id=message_id,
            version=0,
            meta=json.loads(meta_json),
            note=None,
            created_at=now,
            updated_at=now,
            finished_at=None,
            game=game,
            snapshot=snapshot,
            verified=True,
        )

    # ---------------------------------------------------------------- the action log

    async def append_action(
        self,
        game_id: int,
        expected_version: int,
        seat: int,
        action: Mapping[str, Any],
        snapshot: Mapping[str, Any],
        meta: Mapping[str, Any] | None = None,
        *,
        key: int | None = None,
    ) -> int:
        """Log one action and store the state after it, in one transaction; returns the new version.

        ``expected_version`` is the version the action was applied to; if the game has moved on (or
        is no longer active) nothing is written and :class:`StaleVersion` / :class:`GameNotActive`
        is raised. ``key``: the action's idempotency key (see :meth:`apply_action`), logged with it.
        """
        work = _appender(game_id, expected_version, seat, action, snapshot, meta, key=key)
        return (await self.db.write(work)).version

    async def append_final_action(
        self,
        game_id: int,
        expected_version: int,
        seat: int,
        action: Mapping[str, Any],
        snapshot: Mapping[str, Any],
        meta: Mapping[str, Any] | None = None,
        *,
        key: int | None = None,
    ) -> FinishedGame:
        """Log the action that ends the game and finish it (results, ratings) in ONE transaction."""
        append = _appender(game_id, expected_version, seat, action, snapshot, meta, key=key)
        finished, _ = await self.db.write(_finisher(game_id, append, now_ms(), self.db.row_lock))
        return finished

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
        """Apply ``action`` (an engine action) to ``stored.game`` and commit it; returns the events.

        ``meta_after(game)``, called once the engine applied the action, may return new metadata to
        commit in the same transaction (None: unchanged); ``stored.meta`` is updated on success.

        An illegal action raises the engine's GameError and writes nothing. The action that ends the
        game also finishes it in the same transaction (``stored.status`` becomes ``finished`` and
        ``stored.finished`` holds the results and rating changes).

        ``key`` is the action's idempotency key (the interaction id of the click that made it; None for
        a computer player or a timer), stored with it in the log. A commit that fails on a transient
        fault (:attr:`StorageError.transient`: the connection dropped, the server away, a busy lock)
        within ``retry_within`` seconds of its start is made once more, after a pause in which the
        backend reconnects (:func:`bot.storage.game_commit.commit_once_more`, which bounds the retry to
        a few seconds): if the first commit had in fact landed (its COMMIT reached the
        server, the answer was lost), the retry finds the action logged at that version and takes the
        move as done, never applying it twice. ``on_retry(outcome)`` hears how each retry ended:
        ``applied``, ``already_applied`` or ``failed``.

        If the commit fails for good, ``stored`` is reloaded from the database, so the in-memory game
        never runs ahead of the log, and the error is raised; if the reload finds the action logged
        (by its key) the move is done after all and its events are returned. If the reload fails too
        (the database still away), ``stored.game`` is restored to the state before the action (from
        ``stored.snapshot``) and ``stored.needs_reload`` is set: nothing more may be applied to it
        (:class:`NeedsReload`) until :meth:`reload` succeeds.
        """
        if stored.needs_reload:
            raise NeedsReload(stored.id)
        committed, expected = stored.snapshot, stored.version
        events: list[Any] = list(stored.game.apply(seat, action))
        action_dict = action.to_dict()
        try:
            game = stored.game
            meta = meta_after(game) if meta_after is not None else None
            snapshot = canonical_json(game.to_dict())
            over = game.is_over

            def attempt(retry: bool) -> Callable[[Connection], tuple[FinishedGame | None, bool]]:
                append = _appender(
                    stored.id, expected, seat, action_dict, snapshot, meta, key=key, retry=retry
                )
                if over:
                    return _finisher(stored.id, append, now_ms(), self.db.row_lock)
                return lambda conn: (None, append(conn).already)

            finished = await commit_once_more(self.db, stored.id, attempt, retry_within, on_retry)
        except asyncio.CancelledError:
            restore(stored, committed)  # no I/O while being cancelled: the next use reloads it
            raise
        except Exception as error:
            if await self._settle(stored, committed, expected, seat, action_dict, key, error):
                return events  # the reload found the action logged: the move is done after all
            raise
        stored.version = expected + 1
        stored.snapshot = snapshot
        if over:
            stored.status = FINISHED
            stored.finished = finished
        if meta is not None:
            stored.meta = dict(meta)
        stored.updated_at = now_ms()
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
        ``stored.needs_reload`` set."""
        if isinstance(error, RetryTimedOut):
            restore(stored, committed)
            return False
        # Only a transient fault leaves the commit's outcome unknown: after a refusal (a stale version,
        # a game no longer active) nothing was written, whatever the log holds now.
        unknown = isinstance(error, StorageError) and error.transient
        action_json = canonical_json(dict(action))
        try:
            fresh, logged, finished = await asyncio.wait_for(
                self._read_back(stored.id, expected + 1), RELOAD_WITHIN_S
            )
        except (StorageError, TimeoutError):
            restore(stored, committed)
            log.warning(
                "storage.reload_failed game_id=%d",
                stored.id,
                extra={"event": "reload_failed", "game_id": stored.id},
            )
            return False
        stored.__dict__.update(fresh.__dict__)
        stored.finished = finished
        return unknown and logged is not None and _is_same_action(logged, seat, action_json, key)

    async def _read_back(
        self, game_id: int, seq: int
    ) -> tuple[StoredGame, tuple[Any, ...] | None, FinishedGame | None]:
        """The game as stored, what its log holds at ``seq`` (``(seat, action, key)``), and what its
        finish wrote if it is finished."""
        fresh = await self.get_game(game_id)

        def read(conn: Connection) -> tuple[tuple[Any, ...] | None, FinishedGame | None]:
            finished = _finished_record(conn, game_id) if fresh.status == FINISHED else None
            return _logged_at(conn, game_id, seq), finished

        if fresh.version < seq and fresh.status != FINISHED:
            return fresh, None, None
        logged, finished = await self.db.run(read)
        return fresh, logged, finished

    async def reload(self, stored: StoredGame) -> None:
        """Read ``stored`` again from the database, in place (clearing ``needs_reload``): the game as
        its log has it, and what its finish wrote if a commit that failed had in fact ended it.
        Raises :class:`StorageError` (the database still away) or :class:`GameQuarantined`."""
        fresh, _, finished = await self._read_back(stored.id, stored.version + 1)
        stored.__dict__.update(fresh.__dict__)
        stored.finished = finished

    # ---------------------------------------------------------------- the end of a game

    async def finish_game(self, game_id: int, expected_version: int | None = None) -> FinishedGame:
        """Close a game that is over: results per seat, then (if rated) ratings, stats and history.

        The state is rebuilt from the log (the truth) for the results, all in one transaction and one
        hop. Raises :class:`GameNotOver` if the log does not end the game, :class:`StaleVersion` if
        ``expected_version`` is given and the game has moved on. Prefer :meth:`append_final_action`
        (or :meth:`apply_action`, which uses it), so no crash can leave an ended game active; a game
        loaded over but still active (``stored.game.is_over``) should be finished with this.
        """
        now = now_ms()
        row_lock = self.db.row_lock
        return await self.db.write(lambda c: _finish(c, game_id, expected_version, now, row_lock))

    async def cancel_game(self, game_id: int, note: str | None = None) -> None:
        """End an active game without results or ratings (abandoned, stopped by the host...)."""
        await self._close(game_id, CANCELLED, note)

    async def quarantine(self, game_id: int, reason: str) -> None:
        """Set an active game aside (its channel is free again); it stays in the database for study."""
        log.error("storage.quarantined game_id=%d reason=%s", game_id, reason[:200])
        await self._close(game_id, QUARANTINED, reason)

    async def _close(self, game_id: int, status: str, note: str | None) -> None:
        now = now_ms()

        def work(conn: Connection) -> None:
            cursor = conn.execute(
                "UPDATE games SET status = ?, note = ?, updated_at = ?, finished_at = ?"
                " WHERE id = ? AND status = ?",
                (status, None if note is None else note[:200], now, now, game_id, ACTIVE),
            )
            if cursor.rowcount != 1:
                raise _why_not_written(conn, game_id, None)

        await self.db.write(work)

    # ---------------------------------------------------------------- the service's metadata

    async def set_message_id(self, game_id: int, message_id: int | None) -> None:
        """Remember the public table message of a game."""
        await self._update(game_id, "message_id = ?", (message_id,))

    async def set_meta(self, game_id: int, meta: Mapping[str, Any]) -> None:
        """Replace the service's free JSON metadata of a game."""
        await self._update(game_id, "meta = ?", (canonical_json(dict(meta)),))

    async def set_metas(self, metas: Sequence[tuple[int, Mapping[str, Any]]]) -> set[int]:
        """:meth:`set_meta` for many games in ONE transaction (one durable commit instead of one each:
        the start re-arms every timer at once); returns the ids that name no game (nothing written
        for those, as :meth:`set_meta` would raise :class:`GameNotFound`; the others are written)."""
        if not metas:
            return set()
        rows = [(canonical_json(dict(meta)), game_id) for game_id, meta in metas]
        now = now_ms()

        def work(conn: Connection) -> set[int]:
            missing: set[int] = set()  # built afresh on each run: a unit of work may run twice
            for meta_json, game_id in rows:
                cursor = conn.execute(
                    "UPDATE games SET meta = ?, updated_at = ? WHERE id = ?", (meta_json, now, game_id)
                )
                if cursor.rowcount != 1:
                    missing.add(game_id)
            return missing

        return await self.db.write(work)

    async def _update(self, game_id: int, assignment: str, params: tuple[Any, ...]) -> None:
        now = now_ms()

        def work(conn: Connection) -> None:
            cursor = conn.execute(
                f"UPDATE games SET {assignment}, updated_at = ? WHERE id = ?", (*params, now, game_id)
            )
            if cursor.rowcount != 1:
                raise GameNotFound(game_id)

        await self.db.write(work)

    async def actions(self, game_id: int) -> list[StoredAction]:
        """The action log of a game, in order."""
        return await self.db.run(lambda c: _fetch_actions(c, game_id))

    # ---------------------------------------------------------------- reading

    async def load_active(
        self, *, verify: Verify = "auto", owns: Callable[[int | None], bool] | None = None
    ) -> LoadResult:
        """Every active game, ready to play (see the module doc for how snapshots are checked).

        A game whose data cannot give a game (unknown kind, unreadable options, a log that does not
        replay) is quarantined with a log line; the others are still returned. ``owns(guild_id)``: only
        those games (a fleet process loads its shards' games; the others are neither replayed nor
        repaired here, their own process does it).
        """
        return await self._load("g.status = ?", (ACTIVE,), verify=verify, record_fingerprints=True, keep=owns)

    async def get_game(self, game_id: int, *, verify: bool = False) -> StoredGame:
        """One game, whatever its status; with ``verify`` its snapshot is checked by a full replay.

        Raises :class:`GameNotFound`, or :class:`GameQuarantined` if its data cannot give a game.
        """
        result = await self._load(
            "g.id = ?", (game_id,), verify="full" if verify else "auto", record_fingerprints=False
        )
        if result.games:
            return result.games[0]
        if game_id in result.reasons:
            raise GameQuarantined(game_id, result.reasons[game_id])
        row = await self.db.run(
            lambda c: c.execute("SELECT status, note FROM games WHERE id = ?", (game_id,)).fetchone()
        )
        if row is None:
            raise GameNotFound(game_id)
        raise GameQuarantined(game_id, str(row[1] or row[0]))

    async def verify(self, game_id: int) -> StoredGame:
        """Replay a game's log, compare with its snapshot, rebuild it if they differ."""
        return await self.get_game(game_id, verify=True)

    async def action_count(self) -> int:
        """How many actions every game's log holds together (benchmarks count what was committed)."""
        row = await self.db.run(lambda c: c.execute("SELECT count(*) FROM game_actions").fetchone())
        return int(row[0])

    async def active_in_channel(self, channel_id: int) -> int | None:
        """The id of the channel's active game, if any."""
        row = await self.db.run(
            lambda c: c.execute(
                "SELECT id FROM games WHERE channel_id = ? AND status = ?", (channel_id, ACTIVE)
            ).fetchone()
        )
        return None if row is None else int(row[0])

    async def _load(
        self,
        where: str,
        params: tuple[Any, ...],
        *,
        verify: Verify,
        record_fingerprints: bool,
        keep: Callable[[int | None], bool] | None = None,
    ) -> LoadResult:
        def read(conn: Connection) -> tuple[list[_Row], dict[str, str]]:
            rows = _fetch_rows(conn, where, params)
            known = dict(
                conn.execute(
                    "SELECT key, value FROM storage_state WHERE key LIKE ?", (f"{_ENGINE_KEY}%",)
                ).fetchall()
            )
            return rows, known

        rows, known = await self.db.run(read)
        if keep is not None:
            rows = [row for row in rows if keep(row.guild_id)]
        # Kinds whose engine code changed since their snapshots were written get a full replay.
        changed = {k for k in KINDS if known.get(_ENGINE_KEY + k) not in (None, engine_fingerprint(k))}
        full = {row.id: verify == "full" or row.kind in changed for row in rows}
        with _gc_paused():
            outcomes = [_check(row, full=full[row.id], actions=None) for row in rows]
        waiting = [row.id for row, outcome in zip(rows, outcomes, strict=True) if outcome is None]
        if waiting:
            logs = await self.db.run(lambda c: {i: _raw_actions(c, i) for i in waiting})
            with _gc_paused():
                outcomes = [
                    _check(row, full=full[row.id], actions=logs[row.id]) if outcome is None else outcome
                    for row, outcome in zip(rows, outcomes, strict=True)
                ]
        results = [outcome for outcome in outcomes if outcome is not None]
        games = [g for g, _ in results if g is not None]
        active = {row.id for row in rows if row.values[6] == ACTIVE}
        reasons = {r.game_id: r.quarantine for _, r in results if r is not None and r.quarantine is not None}
        # Only active games are repaired or set aside; an ended game is history, read as it is.
        repairs = [r for _, r in results if r is not None and r.game_id in active]
        kinds = {row.id: row.kind for row in rows}
        for repair in repairs:
            if repair.quarantine is not None:
                _log_quarantine(repair, kinds.get(repair.game_id, "?"))
        fingerprints = (
            [
                (_ENGINE_KEY + k, engine_fingerprint(k))
                for k in KINDS
                if known.get(_ENGINE_KEY + k) != engine_fingerprint(k)
            ]
            if record_fingerprints
            else []
        )
        if repairs or fingerprints:
            now = now_ms()

            def write(conn: Connection) -> None:
                _write_repairs(conn, repairs, now)
                conn.executemany(
                    "INSERT INTO storage_state (key, value) VALUES (?, ?)"
                    " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    fingerprints,
                )

            await self.db.write(write)
        return LoadResult(
            games,
            rebuilt=[r.game_id for r in repairs if r.snapshot is not None],
            quarantined=[r.game_id for r in repairs if r.quarantine is not None],
            reasons=reasons,
        )
