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

import contextlib
import gc
import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from bot.engine.errors import GameError
from bot.games.registry import KINDS, get_engine
from bot.storage.backend import Connection, Database
from bot.storage.errors import (
    ChannelBusy,
    GameNotActive,
    GameNotFound,
    GameNotOver,
    GameQuarantined,
    StaleVersion,
    StorageError,
)
from bot.storage.ratings import Participant, RatingChange, ai_key, forfeit_ranks, rate_game, user_key
from bot.storage.results import SeatResult, seat_results_from_engine, write_results

log = logging.getLogger(__name__)

ACTIVE = "active"
FINISHED = "finished"
CANCELLED = "cancelled"
QUARANTINED = "quarantined"
Verify = Literal["auto", "full"]
# storage_state key prefix of each engine's fingerprint ("engine:skyjo").
_ENGINE_KEY = "engine:"


def now_ms() -> int:
    return int(time.time() * 1000)


def canonical_json(data: Any) -> str:
    """One text per value (sorted keys, no spaces), so equal states have equal snapshots and hashes."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)


def snapshot_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


@cache
def engine_fingerprint(kind: str) -> str:
    """A hash of the engine's source: when it changes, stored snapshots are verified by replay."""
    try:
        module = get_engine(kind)
        source = Path(module.__file__ or "").read_bytes()
    except (GameError, ImportError, OSError):
        return "unavailable"
    return hashlib.blake2b(source, digest_size=16).hexdigest()


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Parsing thousands of games makes millions of small objects; the cyclic GC would rescan them
    over and over (a third of the load time) while none of them forms a cycle worth collecting."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _error_name(error: BaseException) -> str:
    # Only the class and the message key: an exception's text could quote a hidden card.
    if isinstance(error, GameError):
        return f"{type(error).__name__}({error.key})"
    return type(error).__name__


@dataclass(frozen=True)
class Seat:
    """A seat at the table: a Discord user, or a computer player of some level."""

    seat: int
    display_name: str
    user_id: int | None = None
    ai_level: str | None = None

    @property
    def is_ai(self) -> bool:
        return self.ai_level is not None

    @property
    def player_key(self) -> str:
        """The ratings key: ``user:<id>``, or ``ai:<level>`` shared by every computer of that level."""
        return ai_key(self.ai_level) if self.ai_level is not None else user_key(self.user_id or 0)

    @property
    def engine_name(self) -> str:
        """The name the engine knows this seat by (unique within a game, stable across replays)."""
        return f"ai{self.seat}:{self.ai_level}" if self.ai_level is not None else f"u{self.user_id}"


@dataclass(frozen=True)
class StoredAction:
    seq: int
    seat: int
    action: dict[str, Any]
    created_at: int


@dataclass
class StoredGame:
    """A stored game with its engine state (``game``; None when quarantined). ``version`` = actions logged."""

    id: int
    guild_id: int | None
    channel_id: int
    kind: str
    seed: int
    options: dict[str, Any]
    seats: tuple[Seat, ...]
    status: str
    rated: bool
    host_id: int | None
    message_id: int | None
    version: int
    meta: dict[str, Any]
    note: str | None
    created_at: int
    updated_at: int
    finished_at: int | None
    game: Any = None
    verified: bool = False  # True once the state was compared with a full replay of the log
    finished: FinishedGame | None = None  # set by apply_action when its action ended the game

    @property
    def engine(self) -> Any:
        return get_engine(self.kind)


@dataclass(frozen=True)
class LoadResult:
    """What ``load_active`` found: the playable games, and the ids it rebuilt or set aside."""

    games: list[StoredGame]
    rebuilt: list[int] = field(default_factory=list)
    quarantined: list[int] = field(default_factory=list)
    reasons: dict[int, str] = field(default_factory=dict)  # why each unplayable game was set aside


@dataclass(frozen=True)
class FinishedGame:
    game_id: int
    results: list[SeatResult]
    rating_changes: list[RatingChange]


# ------------------------------------------------------------------------------------------ rows

_GAME_COLUMNS = (
    "id, guild_id, channel_id, kind, seed, options, status, rated, host_id, message_id, version, meta,"
    " note, created_at, updated_at, finished_at, snapshot, snapshot_hash"
)


@dataclass
class _Row:
    """A game's raw columns before anything is parsed."""

    values: tuple[Any, ...]
    seats: list[tuple[Any, ...]]
    last_seq: int

    @property
    def id(self) -> int:
        return int(self.values[0])

    @property
    def guild_id(self) -> int | None:
        return None if self.values[1] is None else int(self.values[1])

    @property
    def kind(self) -> str:
        return str(self.values[3])

    @property
    def version(self) -> int:
        return int(self.values[10])

    @property
    def snapshot(self) -> str:
        return str(self.values[16])

    @property
    def snapshot_hash(self) -> str:
        return str(self.values[17])

    def to_game(self) -> StoredGame:
        """Parse the metadata (not the snapshot); raises on malformed JSON."""
        v = self.values
        options = json.loads(v[5])
        meta = json.loads(v[11])
        if not isinstance(options, dict) or not isinstance(meta, dict):
            raise StorageError("options and meta must be JSON objects")
        seats = tuple(Seat(s, name, user, level) for s, user, level, name in self.seats)
        return StoredGame(
            id=v[0],
            guild_id=v[1],
            channel_id=v[2],
            kind=v[3],
            seed=v[4],
            options=options,
            seats=seats,
            status=v[6],
            rated=bool(v[7]),
            host_id=v[8],
            message_id=v[9],
            version=v[10],
            meta=meta,
            note=v[12],
            created_at=v[13],
            updated_at=v[14],
            finished_at=v[15],
        )


def _fetch_rows(conn: Connection, where: str, params: Sequence[Any]) -> list[_Row]:
    games = conn.execute(
        f"SELECT {_GAME_COLUMNS}, (SELECT max(seq) FROM game_actions AS a WHERE a.game_id = g.id)"
        f" FROM games AS g WHERE {where} ORDER BY id",
        params,
    ).fetchall()
    if not games:
        return []
    rows = {g[0]: _Row(tuple(g[:-1]), [], int(g[-1] or 0)) for g in games}
    if len(rows) == 1:
        seat_rows = conn.execute(
            "SELECT game_id, seat, user_id, ai_level, display_name FROM game_seats"
            " WHERE game_id = ? ORDER BY seat",
            (next(iter(rows)),),
        )
    else:
        seat_rows = conn.execute(
            "SELECT s.game_id, s.seat, s.user_id, s.ai_level, s.display_name FROM game_seats AS s"
            f" JOIN games AS g ON g.id = s.game_id WHERE {where} ORDER BY s.game_id, s.seat",
            params,
        )
    for game_id, seat, user, level, name in seat_rows:
        row = rows.get(game_id)
        if row is not None:
            row.seats.append((seat, user, level, name))
    return list(rows.values())


def _fetch_actions(conn: Connection, game_id: int) -> list[StoredAction]:
    return [
        StoredAction(seq, seat, json.loads(action), created_at)
        for seq, seat, action, created_at in conn.execute(
            "SELECT seq, seat, action, created_at FROM game_actions WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
    ]


def _raw_actions(conn: Connection, game_id: int) -> list[tuple[int, int, str]]:
    return conn.execute(
        "SELECT seq, seat, action FROM game_actions WHERE game_id = ? ORDER BY seq", (game_id,)
    ).fetchall()


def _why_not_written(conn: Connection, game_id: int, expected: int | None) -> StorageError:
    row = conn.execute("SELECT version, status FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        return GameNotFound(game_id)
    version, status = row
    if status != ACTIVE:
        return GameNotActive(game_id, status)
    return StaleVersion(game_id, -1 if expected is None else expected, version)


def replay_log(stored: StoredGame, actions: Sequence[tuple[int, int, str | dict[str, Any]]]) -> Any:
    """Rebuild the engine state of ``stored`` from its log: ``(seq, seat, action)`` in order."""
    engine = get_engine(stored.kind)
    options = engine.Options.from_dict(stored.options)
    parsed = []
    for expected_seq, (seq, seat, action) in enumerate(actions, start=1):
        if seq != expected_seq:
            raise StorageError(f"the action log has a gap at {expected_seq}")
        data = json.loads(action) if isinstance(action, str) else action
        parsed.append((seat, engine.action_from_dict(data)))
    return engine.replay([s.engine_name for s in stored.seats], stored.seed, options, parsed)


def _differing_keys(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


@dataclass
class _Repair:
    """A change ``load`` / ``verify`` decided on, written in one transaction afterwards."""

    game_id: int
    old_version: int
    snapshot: str | None = None  # a rebuilt snapshot...
    version: int = 0
    quarantine: str | None = None  # ...or the reason to set the game aside


_Outcome = tuple[StoredGame | None, _Repair | None]


def _check(row: _Row, *, full: bool, actions: list[tuple[int, int, str]] | None) -> _Outcome | None:
    """Turn a row into a playable game, replaying its log when a check fails or ``full`` is asked.

    Returns None when the log is needed and ``actions`` was not given (the caller fetches the logs of
    every such game in one hop and calls again).
    """
    game_id = row.id
    if row.values[6] == QUARANTINED:
        return None, None
    try:
        stored = row.to_game()
        engine = get_engine(stored.kind)
    except (GameError, StorageError, ValueError, TypeError) as error:
        return None, _Repair(game_id, row.version, quarantine=_error_name(error))
    problem: str | None = None
    state: Any = None
    try:
        if snapshot_hash(row.snapshot) != row.snapshot_hash:
            problem = "snapshot_hash"
        elif row.version != row.last_seq:
            problem = "version_vs_log"
        else:
            state = engine.Game.from_dict(json.loads(row.snapshot))
    except Exception as error:  # a cache that does not parse is rebuilt from the log, the truth
        problem = f"snapshot_unreadable:{_error_name(error)}"
    if problem is None and not full:
        stored.game = state
        return stored, None
    if actions is None:
        return None
    try:
        replayed = replay_log(stored, actions)
        text = canonical_json(replayed.to_dict())
    except Exception as error:
        return None, _Repair(game_id, row.version, quarantine=f"log_replay_failed:{_error_name(error)}")
    stored.game = replayed
    stored.verified = True
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
    return stored, _Repair(game_id, row.version, snapshot=text, version=len(actions))


def _write_repairs(conn: Connection, repairs: Sequence[_Repair], now: int) -> None:
    for r in repairs:
        if r.quarantine is not None:
            conn.execute(
                "UPDATE games SET status = ?, note = ?, updated_at = ? WHERE id = ? AND status = ?",
                (QUARANTINED, r.quarantine[:200], now, r.game_id, ACTIVE),
            )
        elif r.snapshot is not None:
            conn.execute(
                "UPDATE games SET snapshot = ?, snapshot_hash = ?, version = ?, updated_at = ?"
                " WHERE id = ? AND version = ?",
                (r.snapshot, snapshot_hash(r.snapshot), r.version, now, r.game_id, r.old_version),
            )


def _log_quarantine(repair: _Repair, kind: str) -> None:
    log.error(
        "storage.quarantined game_id=%d kind=%s reason=%s",
        repair.game_id,
        kind[:40],
        repair.quarantine,
        extra={"event": "quarantined", "game_id": repair.game_id, "reason": repair.quarantine},
    )


def _finish(
    conn: Connection, game_id: int, expected_version: int | None, now: int, row_lock: str
) -> FinishedGame:
    """Close an ended game in the caller's transaction: status, results, ratings (if rated, their rows
    locked with the backend's ``row_lock``)."""
    rows = _fetch_rows(conn, "g.id = ?", (game_id,))
    if not rows:
        raise GameNotFound(game_id)
    row = rows[0]
    stored = row.to_game()
    if stored.status != ACTIVE:
        raise GameNotActive(game_id, stored.status)
    if expected_version is not None and stored.version != expected_version:
        raise StaleVersion(game_id, expected_version, stored.version)
    state = replay_log(stored, _raw_actions(conn, game_id))
    if not state.is_over:
        raise GameNotOver(game_id)
    text = canonical_json(state.to_dict())
    results = seat_results_from_engine(state.results(), len(stored.seats))
    conn.execute(
        "UPDATE games SET status = ?, snapshot = ?, snapshot_hash = ?, version = ?, updated_at = ?,"
        " finished_at = ? WHERE id = ?",
        (FINISHED, text, snapshot_hash(text), row.last_seq, now, now, game_id),
    )
    write_results(conn, game_id, results)
    changes: list[RatingChange] = []
    if stored.rated:
        # A seat the service handed to a computer player (meta "replaced": the human left, was kicked
        # or missed too many turns) is rated as a forfeit; its result row stays the game's result.
        replaced = {int(k) for k in (stored.meta.get("replaced") or {})}
        ranks = forfeit_ranks([r.rank for r in results], replaced)
        participants = [
            Participant(s.seat, s.player_key, s.display_name, rank, r.round_scores, r.stats)
            for s, r, rank in zip(stored.seats, results, ranks, strict=True)
        ]
        changes = rate_game(
            conn,
            game_id=game_id,
            kind=stored.kind,
            guild_id=stored.guild_id,
            participants=participants,
            now=now,
            row_lock=row_lock,
        )
    return FinishedGame(game_id, results, changes)


def _appender(
    game_id: int,
    expected_version: int,
    seat: int,
    action: Mapping[str, Any],
    snapshot: Mapping[str, Any],
    meta: Mapping[str, Any] | None = None,
) -> Callable[[Connection], int]:
    """The statements of one append, prepared before the hop (JSON, hash), run in it.

    ``meta``, when given, replaces the service's metadata in the same statement (turn deadlines and
    missed-turn counts must change together with the action that changes the turn).
    """
    action_json = canonical_json(dict(action))
    meta_sql = "" if meta is None else ", meta = ?"
    meta_params: tuple[Any, ...] = () if meta is None else (canonical_json(dict(meta)),)
    snapshot_json = canonical_json(dict(snapshot))
    digest = snapshot_hash(snapshot_json)
    new_version = expected_version + 1
    now = now_ms()

    def work(conn: Connection) -> int:
        cursor = conn.execute(
            f"UPDATE games SET version = ?, snapshot = ?, snapshot_hash = ?, updated_at = ?{meta_sql}"
            " WHERE id = ? AND version = ? AND status = 'active'",
            (new_version, snapshot_json, digest, now, *meta_params, game_id, expected_version),
        )
        if cursor.rowcount != 1:
            raise _why_not_written(conn, game_id, expected_version)
        conn.execute(
            "INSERT INTO game_actions (game_id, seq, seat, action, created_at) VALUES (?, ?, ?, ?, ?)",
            (game_id, new_version, seat, action_json, now),
        )
        return new_version

    return work


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
    ) -> int:
        """Log one action and store the state after it, in one transaction; returns the new version.

        ``expected_version`` is the version the action was applied to; if the game has moved on (or
        is no longer active) nothing is written and :class:`StaleVersion` / :class:`GameNotActive`
        is raised.
        """
        work = _appender(game_id, expected_version, seat, action, snapshot, meta)
        return await self.db.write(work)

    async def append_final_action(
        self,
        game_id: int,
        expected_version: int,
        seat: int,
        action: Mapping[str, Any],
        snapshot: Mapping[str, Any],
        meta: Mapping[str, Any] | None = None,
    ) -> FinishedGame:
        """Log the action that ends the game and finish it (results, ratings) in ONE transaction."""
        append = _appender(game_id, expected_version, seat, action, snapshot, meta)
        now = now_ms()
        row_lock = self.db.row_lock

        def work(conn: Connection) -> FinishedGame:
            return _finish(conn, game_id, append(conn), now, row_lock)

        return await self.db.write(work)

    async def apply_action(
        self,
        stored: StoredGame,
        seat: int,
        action: Any,
        meta_after: Callable[[Any], Mapping[str, Any] | None] | None = None,
    ) -> list[Any]:
        """Apply ``action`` (an engine action) to ``stored.game`` and commit it; returns the events.

        ``meta_after(game)``, called once the engine applied the action, may return new metadata to
        commit in the same transaction (None: unchanged); ``stored.meta`` is updated on success.

        An illegal action raises the engine's GameError and writes nothing. The action that ends the
        game also finishes it in the same transaction (``stored.status`` becomes ``finished`` and
        ``stored.finished`` holds the results and rating changes). If the commit fails
        (:class:`StaleVersion`, :class:`DatabaseBusy`...), ``stored`` is reloaded from the database,
        so the in-memory game never runs ahead of the log, and the error is raised.
        """
        events: list[Any] = stored.game.apply(seat, action)
        try:
            meta = meta_after(stored.game) if meta_after is not None else None
            if stored.game.is_over:
                stored.finished = await self.append_final_action(
                    stored.id, stored.version, seat, action.to_dict(), stored.game.to_dict(), meta
                )
                stored.status = FINISHED
                stored.version += 1
            else:
                stored.version = await self.append_action(
                    stored.id, stored.version, seat, action.to_dict(), stored.game.to_dict(), meta
                )
            if meta is not None:
                stored.meta = dict(meta)
        except BaseException:
            try:
                fresh = await self.get_game(stored.id)
            except StorageError:
                stored.game = None
            else:
                stored.__dict__.update(fresh.__dict__)
            raise
        stored.updated_at = now_ms()
        return events

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
