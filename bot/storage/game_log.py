"""The statements of the game log behind :class:`bot.storage.games.GameRepository`: rows read, the
repairs a load decided written, a game finished (the results and ratings the service computed), an
action appended. Each runs in the caller's unit of work (a ``Connection``); none opens its own, and
none runs a game's rules: the service replays and applies (bot/service/ledger.py)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from bot.storage.backend import Connection
from bot.storage.errors import (
    GameNotActive,
    GameNotFound,
    StaleVersion,
    StorageError,
)
from bot.storage.game_types import (
    ACTIVE,
    FINISHED,
    QUARANTINED,
    FinishedGame,
    GameEnd,
    GameHead,
    Seat,
    StoredAction,
    canonical_json,
    now_ms,
    snapshot_hash,
)
from bot.storage.ratings import RatingChange, rating_changes_of, write_ratings
from bot.storage.results import _read_results, write_results

log = logging.getLogger("bot.storage.games")  # the repository's logger, as before the split

# ------------------------------------------------------------------------------------------ rows

_GAME_COLUMNS = (
    "id, guild_id, channel_id, kind, seed, options, status, rated, host_id, message_id, version, meta,"
    " note, created_at, updated_at, finished_at, snapshot, snapshot_hash, off_server"
)


@dataclass
class GameRow:
    """A game's raw columns before anything is parsed (the service makes its state: a snapshot to
    parse, or a log to replay)."""

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
    def status(self) -> str:
        return str(self.values[6])

    @property
    def version(self) -> int:
        return int(self.values[10])

    @property
    def snapshot(self) -> str:
        return str(self.values[16])

    @property
    def snapshot_hash(self) -> str:
        return str(self.values[17])

    def head(self) -> GameHead:
        """Parse the metadata (not the snapshot); raises on malformed JSON."""
        v = self.values
        options = json.loads(v[5])
        meta = json.loads(v[11])
        if not isinstance(options, dict) or not isinstance(meta, dict):
            raise StorageError("options and meta must be JSON objects")
        seats = tuple(Seat(s, name, user, level) for s, user, level, name in self.seats)
        return GameHead(
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
            off_server=bool(v[18]),
        )


def _fetch_rows(conn: Connection, where: str, params: Sequence[Any]) -> list[GameRow]:
    games = conn.execute(
        f"SELECT {_GAME_COLUMNS}, (SELECT max(seq) FROM game_actions AS a WHERE a.game_id = g.id)"
        f" FROM games AS g WHERE {where} ORDER BY id",
        params,
    ).fetchall()
    if not games:
        return []
    rows = {g[0]: GameRow(tuple(g[:-1]), [], int(g[-1] or 0)) for g in games}
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
        StoredAction(seq, seat, json.loads(action), created_at, None if key is None else int(key))
        for seq, seat, action, created_at, key in conn.execute(
            "SELECT seq, seat, action, created_at, idempotency_key FROM game_actions WHERE game_id = ?"
            " ORDER BY seq",
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


@dataclass
class Repair:
    """A change a load or a verify decided on (the service, which replays), written in one
    transaction afterwards: a rebuilt snapshot, or the reason to set the game aside."""

    game_id: int
    old_version: int
    snapshot: str | None = None  # a rebuilt snapshot...
    version: int = 0
    quarantine: str | None = None  # ...or the reason to set the game aside


def _write_repairs(conn: Connection, repairs: Sequence[Repair], now: int) -> None:
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


def _log_quarantine(repair: Repair, kind: str) -> None:
    log.error(
        "storage.quarantined game_id=%d kind=%s reason=%s",
        repair.game_id,
        kind[:40],
        repair.quarantine,
        extra={"event": "quarantined", "game_id": repair.game_id, "reason": repair.quarantine},
    )


def _finish(
    conn: Connection, game_id: int, expected_version: int | None, end: GameEnd, now: int, row_lock: str
) -> FinishedGame:
    """Close an ended game in the caller's transaction with what the service computed (``end``): its
    final snapshot, results, and ratings (if rated, their rows locked with the backend's
    ``row_lock``; the new figures are ``end.rating.rate``'s)."""
    row = conn.execute("SELECT status, version FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        raise GameNotFound(game_id)
    status, version = str(row[0]), int(row[1])
    if status != ACTIVE:
        raise GameNotActive(game_id, status)
    if expected_version is not None and version != expected_version:
        raise StaleVersion(game_id, expected_version, version)
    last = conn.execute("SELECT max(seq) FROM game_actions WHERE game_id = ?", (game_id,)).fetchone()
    conn.execute(
        "UPDATE games SET status = ?, snapshot = ?, snapshot_hash = ?, version = ?, updated_at = ?,"
        " finished_at = ? WHERE id = ?",
        (FINISHED, end.snapshot, snapshot_hash(end.snapshot), int(last[0] or 0), now, now, game_id),
    )
    write_results(conn, game_id, end.results)
    changes: list[RatingChange] = []
    if end.unrate:
        conn.execute("UPDATE games SET rated = 0 WHERE id = ?", (game_id,))
    elif end.rating is not None:
        changes = write_ratings(conn, game_id=game_id, plan=end.rating, now=now, row_lock=row_lock)
    return FinishedGame(game_id, list(end.results), changes)


def _logged_at(conn: Connection, game_id: int, seq: int) -> tuple[Any, ...] | None:
    """What the log holds at ``seq``: ``(seat, action, idempotency_key)``, or None."""
    row = conn.execute(
        "SELECT seat, action, idempotency_key FROM game_actions WHERE game_id = ? AND seq = ?",
        (game_id, seq),
    ).fetchone()
    return None if row is None else tuple(row)


def _is_same_action(logged: tuple[Any, ...], seat: int, action_json: str, key: int | None) -> bool:
    """Whether the log's ``(seat, action, idempotency_key)`` at a version is the action an append of
    ``key`` (or, without a key, of ``seat`` and ``action_json``) made there."""
    logged_key = None if logged[2] is None else int(logged[2])
    if key is not None:
        return logged_key == key
    return logged_key is None and (int(logged[0]), str(logged[1])) == (seat, action_json)


class Appended(NamedTuple):
    """What one append did: the game's new version, and ``already`` when a retry found the action
    logged at that version by the commit it retries (which had landed, its answer lost): nothing was
    written this time."""

    version: int
    already: bool = False


def _appender(
    game_id: int,
    expected_version: int,
    seat: int,
    action: Mapping[str, Any],
    snapshot: Mapping[str, Any] | str,
    meta: Mapping[str, Any] | None = None,
    *,
    key: int | None = None,
    retry: bool = False,
) -> Callable[[Connection], Appended]:
    """The statements of one append, prepared before the hop (JSON, hash), run in it.

    ``snapshot`` is the state after the action (its ``to_dict()``, or already its canonical JSON).
    ``meta``, when given, replaces the service's metadata in the same statement (turn deadlines and
    missed-turn counts must change together with the action that changes the turn). ``key`` is the
    action's idempotency key (the interaction that made it; None without one), logged with it.

    ``retry``: this append runs again after a commit whose outcome is unknown (the connection dropped
    after COMMIT was sent). It first reads what the log holds at the new version: the same key there
    (or, for an action without a key, the same seat and action: from the same state they make the same
    log) means the first commit landed, and nothing is written (``already``); another action there is
    a :class:`StaleVersion`; nothing there, the append is made as usual.
    """
    action_json = canonical_json(dict(action))
    meta_sql = "" if meta is None else ", meta = ?"
    meta_params: tuple[Any, ...] = () if meta is None else (canonical_json(dict(meta)),)
    snapshot_json = snapshot if isinstance(snapshot, str) else canonical_json(dict(snapshot))
    digest = snapshot_hash(snapshot_json)
    new_version = expected_version + 1
    now = now_ms()

    def work(conn: Connection) -> Appended:
        if retry:
            logged = _logged_at(conn, game_id, new_version)
            if logged is not None:
                if _is_same_action(logged, seat, action_json, key):
                    return Appended(new_version, already=True)
                raise _why_not_written(conn, game_id, expected_version)
        cursor = conn.execute(
            f"UPDATE games SET version = ?, snapshot = ?, snapshot_hash = ?, updated_at = ?{meta_sql}"
            " WHERE id = ? AND version = ? AND status = 'active'",
            (new_version, snapshot_json, digest, now, *meta_params, game_id, expected_version),
        )
        if cursor.rowcount != 1:
            raise _why_not_written(conn, game_id, expected_version)
        conn.execute(
            "INSERT INTO game_actions (game_id, seq, seat, action, created_at, idempotency_key)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (game_id, new_version, seat, action_json, now, key),
        )
        return Appended(new_version)

    return work


def _finisher(
    game_id: int, append: Callable[[Connection], Appended], end: GameEnd, now: int, row_lock: str
) -> Callable[[Connection], tuple[FinishedGame, bool]]:
    """The final append and the finish, in one unit of work: ``(what finishing wrote, already)``; a
    retry that finds the action already logged (the first commit landed, and finished the game) reads
    back what finishing wrote instead of finishing again."""

    def work(conn: Connection) -> tuple[FinishedGame, bool]:
        appended = append(conn)
        if appended.already:
            return _finished_record(conn, game_id), True
        return _finish(conn, game_id, appended.version, end, now, row_lock), False

    return work


def _finished_record(conn: Connection, game_id: int) -> FinishedGame:
    """What finishing a game wrote (its results and rating changes), read back: a retried final action
    whose first commit had landed (and finished the game) answers with it."""
    return FinishedGame(game_id, _read_results(conn, game_id), rating_changes_of(conn, game_id))
