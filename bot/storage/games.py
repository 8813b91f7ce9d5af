"""Games: creation, the action log (the truth), snapshots (a cache), reading, finishing, quarantine.

A game is its kind, seed, options, seats and action log; a replay of those gives the state bit for
bit. The snapshot (the engine's ``to_dict()`` as canonical JSON) only spares a replay at start.

Storage stores what the service gives it and runs no game's rules (it imports no game): the service
(:mod:`bot.service.ledger`) deals a new game and hands its state to :meth:`GameRepository.create_game`,
applies an action and hands the state after it (and, when it ended the game, the results and the
rating computation, :class:`~bot.storage.game_types.GameEnd`) to :meth:`GameRepository.commit_action`,
and turns the rows read here (:meth:`GameRepository.read_rows`) into playable games, replaying a log
when a snapshot fails a check, then hands back the repairs to write (:meth:`GameRepository.write_repairs`).
Storage keeps the SQL, the transactions, the idempotency keys and the one retry of a commit.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot.engine.base import GameState
from bot.storage.backend import Connection, Database
from bot.storage.errors import ChannelBusy, GameNotFound, NeedsReload
from bot.storage.game_commit import COMMIT_RETRY_WITHIN_S, commit_once_more
from bot.storage.game_log import (
    GameRow,
    Repair,
    _appender,
    _fetch_actions,
    _fetch_rows,
    _finish,
    _finished_record,
    _finisher,
    _is_same_action,
    _log_quarantine,
    _logged_at,
    _raw_actions,
    _why_not_written,
    _write_repairs,
)
from bot.storage.game_types import (
    _ENGINE_KEY,
    ACTIVE,
    CANCELLED,
    FINISHED,
    QUARANTINED,
    FinishedGame,
    GameEnd,
    LoadResult,
    Seat,
    StoredAction,
    StoredGame,
    Verify,
    canonical_json,
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
    "GameEnd",
    "GameRepository",
    "GameRow",
    "LoadResult",
    "Repair",
    "Seat",
    "StoredAction",
    "StoredGame",
    "Verify",
    "canonical_json",
    "check_seats",
    "is_same_action",
    "now_ms",
    "snapshot_hash",
]

is_same_action = _is_same_action  # the service's read-back after a failed commit asks it too


def check_seats(seats: Sequence[Seat]) -> None:
    """Seats numbered 0, 1, 2... in order, a user sitting only once; else ValueError."""
    if [s.seat for s in seats] != list(range(len(seats))):
        raise ValueError("seats must be numbered 0, 1, 2... in order")
    users = [s.user_id for s in seats if s.ai_level is None]
    if None in users or len(set(users)) != len(users):
        raise ValueError("every human seat needs a distinct user id")


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
        options: Mapping[str, Any],
        state: GameState,
        host_id: int | None = None,
        message_id: int | None = None,
        rated: bool = True,
        meta: Mapping[str, Any] | None = None,
        off_server: bool = False,
    ) -> StoredGame:
        """Store a game the service dealt (``state``, from ``seed`` and ``options``, the engine's
        options as a dict); :class:`ChannelBusy` if the channel has one.

        Seats must be numbered 0, 1, 2... in order; a user may sit only once (:func:`check_seats`).
        ``off_server``: the bot has no server here (a server only a user installed Skybo in, whose
        ``guild_id`` is given); a game without a guild (a group DM, a DM) is off server anyway. Such a
        game is rated on its channel's board only (:mod:`bot.storage.venues`).
        """
        check_seats(seats)
        off_server = off_server or guild_id is None
        game = state
        options_json = canonical_json(dict(options))
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
                    " message_id, version, snapshot, snapshot_hash, meta, created_at, updated_at, off_server)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?) RETURNING id",
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
                        int(off_server),
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
            state=game,
            snapshot=snapshot,
            verified=True,
            off_server=off_server,
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

    async def commit_action(
        self,
        stored: StoredGame,
        seat: int,
        action: Mapping[str, Any],
        snapshot: str,
        meta: Mapping[str, Any] | None = None,
        *,
        end: GameEnd | None = None,
        key: int | None = None,
        retry_within: float = COMMIT_RETRY_WITHIN_S,
        on_retry: Callable[[str], None] | None = None,
    ) -> FinishedGame | None:
        """Commit one action the service applied to ``stored.state`` (at ``stored.version``): the action
        (``action.to_dict()``), the state after it (``snapshot``, its canonical JSON) and, when given,
        the new metadata, in one transaction. ``end`` (the action ended the game): the same transaction
        also finishes it with the service's final snapshot, results and rating computation, and
        ``stored.status`` becomes ``finished``, ``stored.finished`` what was written.

        ``key`` is the action's idempotency key (the interaction id of the click that made it; None for
        a computer player or a timer), stored with it in the log. A commit that fails on a transient
        fault (:attr:`StorageError.transient`: the connection dropped, the server away, a busy lock)
        within ``retry_within`` seconds of its start is made once more, after a pause in which the
        backend reconnects (:func:`bot.storage.game_commit.commit_once_more`, which bounds the retry to
        a few seconds): if the first commit had in fact landed (its COMMIT reached the server, the
        answer was lost), the retry finds the action logged at that version and takes the move as
        done, never applying it twice. ``on_retry(outcome)`` hears how each retry ended: ``applied``,
        ``already_applied`` or ``failed``. A commit that fails for good raises, ``stored`` untouched:
        the service reads the game back (:meth:`read_logged`) or restores its state.
        """
        if stored.needs_reload:
            raise NeedsReload(stored.id)
        expected = stored.version
        row_lock = self.db.row_lock

        def attempt(retry: bool) -> Callable[[Connection], tuple[FinishedGame | None, bool]]:
            append = _appender(stored.id, expected, seat, action, snapshot, meta, key=key, retry=retry)
            if end is not None:
                return _finisher(stored.id, append, end, now_ms(), row_lock)
            return lambda conn: (None, append(conn).already)

        finished = await commit_once_more(self.db, stored.id, attempt, retry_within, on_retry)
        stored.version = expected + 1
        stored.snapshot = snapshot
        if end is not None:
            stored.status = FINISHED
            stored.finished = finished
        if meta is not None:
            stored.meta = dict(meta)
        stored.updated_at = now_ms()
        return finished

    async def read_logged(
        self, game_id: int, seq: int, *, finished: bool
    ) -> tuple[tuple[Any, ...] | None, FinishedGame | None]:
        """What the log holds at ``seq`` (``(seat, action, key)``, or None) and, for a ``finished``
        game, what its finish wrote: the read-back after a commit failed (did it land after all?)."""

        def read(conn: Connection) -> tuple[tuple[Any, ...] | None, FinishedGame | None]:
            return _logged_at(conn, game_id, seq), _finished_record(conn, game_id) if finished else None

        return await self.db.run(read)

    # ---------------------------------------------------------------- the end of a game

    async def finish_game(
        self, game_id: int, end: GameEnd, expected_version: int | None = None
    ) -> FinishedGame:
        """Close a game that is over with what the service computed (``end``): the final snapshot,
        results per seat, then (if rated) ratings, stats and history, all in one transaction and one
        hop. Raises :class:`StaleVersion` if ``expected_version`` is given and the game has moved on,
        :class:`GameNotActive` if it is no longer active. Prefer :meth:`commit_action` with ``end``,
        so no crash can leave an ended game active; a game loaded over but still active is finished
        with this (:meth:`bot.service.ledger.GameLedger.finish_game`).
        """
        now = now_ms()
        row_lock = self.db.row_lock
        return await self.db.write(lambda c: _finish(c, game_id, expected_version, end, now, row_lock))

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

    async def read_rows(
        self, game_id: int | None = None, *, owns: Callable[[int | None], bool] | None = None
    ) -> tuple[list[GameRow], dict[str, str]]:
        """Every active game's rows (or one game's, ``game_id``, whatever its status), unparsed, and
        the engine fingerprints recorded by the last load, by kind. ``owns(guild_id)``: only those
        games (a fleet process loads its shards' games). The service turns rows into games."""
        where, params = ("g.status = ?", (ACTIVE,)) if game_id is None else ("g.id = ?", (game_id,))

        def read(conn: Connection) -> tuple[list[GameRow], dict[str, str]]:
            rows = _fetch_rows(conn, where, params)
            known = {
                str(key)[len(_ENGINE_KEY) :]: str(value)
                for key, value in conn.execute(
                    "SELECT key, value FROM storage_state WHERE key LIKE ?", (f"{_ENGINE_KEY}%",)
                ).fetchall()
            }
            return rows, known

        rows, known = await self.db.run(read)
        if owns is not None:
            rows = [row for row in rows if owns(row.guild_id)]
        return rows, known

    async def raw_logs(self, game_ids: Sequence[int]) -> dict[int, list[tuple[int, int, str]]]:
        """The action logs of these games, unparsed (``(seq, seat, action JSON)`` in order), in one hop."""
        ids = list(game_ids)
        return await self.db.run(lambda c: {i: _raw_actions(c, i) for i in ids})

    async def write_repairs(
        self, repairs: Sequence[Repair], fingerprints: Mapping[str, str], kinds: Mapping[int, str]
    ) -> None:
        """Write what a load decided, in one transaction: rebuilt snapshots, games set aside (logged,
        with their ``kinds``), and the engines' new ``fingerprints`` by kind. Nothing to write: no hop."""
        for repair in repairs:
            if repair.quarantine is not None:
                _log_quarantine(repair, kinds.get(repair.game_id, "?"))
        if not repairs and not fingerprints:
            return
        rows = [(_ENGINE_KEY + kind, value) for kind, value in fingerprints.items()]
        now = now_ms()

        def write(conn: Connection) -> None:
            _write_repairs(conn, repairs, now)
            conn.executemany(
                "INSERT INTO storage_state (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                rows,
            )

        await self.db.write(write)

    async def status_of(self, game_id: int) -> tuple[str, str | None]:
        """A game's status and note; :class:`GameNotFound` if there is none."""
        row = await self.db.run(
            lambda c: c.execute("SELECT status, note FROM games WHERE id = ?", (game_id,)).fetchone()
        )
        if row is None:
            raise GameNotFound(game_id)
        return str(row[0]), None if row[1] is None else str(row[1])

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

    async def ended_lately(
        self,
        within_ms: int,
        *,
        meta_has: str,
        meta_lacks: str,
        owns: Callable[[int | None], bool] | None = None,
    ) -> list[int]:
        """The ids of the games that ended (finished or cancelled) in the last ``within_ms``, whose meta
        holds the key ``meta_has`` and not the key ``meta_lacks``, oldest first; ``owns(guild_id)``: only
        those games. The start asks it once (bot.service.resume: the results owed in a game's thread's
        channel), so no index serves it: ``finished_at`` is read with the games that ended."""
        since = now_ms() - within_ms

        def read(conn: Connection) -> list[tuple[Any, ...]]:
            return conn.execute(
                "SELECT id, guild_id FROM games WHERE status IN (?, ?) AND finished_at >= ?"
                " AND meta LIKE ? ESCAPE '!' AND meta NOT LIKE ? ESCAPE '!' ORDER BY id",
                (FINISHED, CANCELLED, since, _meta_key_like(meta_has), _meta_key_like(meta_lacks)),
            ).fetchall()

        rows = await self.db.run(read)
        return [int(row[0]) for row in rows if owns is None or owns(None if row[1] is None else int(row[1]))]


def _meta_key_like(key: str) -> str:
    """A LIKE pattern (escape ``!``) matching a meta's canonical JSON that holds ``key`` (at any depth:
    the service's keys are at the top, and names none of its nested values so)."""
    quoted = canonical_json(key).replace("!", "!!").replace("%", "!%").replace("_", "!_")
    return f"%{quoted}:%"
