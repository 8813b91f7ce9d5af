"""The statements of the game log behind :class:`bot.storage.games.GameRepository`: rows read, logs
replayed, snapshots checked and repaired at load, a game finished (results, ratings), an action appended.
Each runs in the caller's unit of work (a ``Connection``); none opens its own."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from bot.engine.base import GameState
from bot.engine.errors import GameError
from bot.games.registry import get_engine
from bot.storage.backend import Connection
from bot.storage.errors import (
    GameNotActive,
    GameNotFound,
    GameNotOver,
    StaleVersion,
    StorageError,
)
from bot.storage.game_types import (
    ACTIVE,
    FINISHED,
    QUARANTINED,
    FinishedGame,
    GameHead,
    Seat,
    StoredAction,
    StoredGame,
    _error_name,
    canonical_json,
    now_ms,
    snapshot_hash,
)
from bot.storage.ratings import Participant, RatingChange, forfeit_ranks, rate_game, rating_changes_of
from bot.storage.results import _read_results, seat_results_from_engine, write_results

log = logging.getLogger("bot.storage.games")  # the repository's logger, as before the split

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


def replay_log(stored: GameHead, actions: Sequence[tuple[int, int, str | dict[str, Any]]]) -> GameState:
    """Rebuild the engine state of ``stored`` from its log: ``(seq, seat, action)`` in order."""
    engine = get_engine(stored.kind)
    options = engine.Options.from_dict(stored.options)
    parsed = []
    for expected_seq, (seq, seat, action) in enumerate(actions, start=1):
        if seq != expected_seq:
            raise StorageError(f"the action log has a gap at {expected_seq}")
        data = json.loads(action) if isinstance(action, str) else action
        parsed.append((seat, engine.action_from_dict(data)))
    state: GameState = engine.replay([s.engine_name for s in stored.seats], stored.seed, options, parsed)
    return state


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
        head = row.head()
        engine = get_engine(head.kind)
    except (GameError, StorageError, ValueError, TypeError) as error:
        return None, _Repair(game_id, row.version, quarantine=_error_name(error))
    problem: str | None = None
    state: GameState | None = None
    try:
        if snapshot_hash(row.snapshot) != row.snapshot_hash:
            problem = "snapshot_hash"
        elif row.version != row.last_seq:
            problem = "version_vs_log"
        else:
            state = engine.Game.from_dict(json.loads(row.snapshot))
    except Exception as error:  # a cache that does not parse is rebuilt from the log, the truth
        problem = f"snapshot_unreadable:{_error_name(error)}"
    if problem is None and not full and state is not None:
        return head.with_state(state, row.snapshot), None
    if actions is None:
        return None
    try:
        replayed = replay_log(head, actions)
        text = canonical_json(replayed.to_dict())
    except Exception as error:
        return None, _Repair(game_id, row.version, quarantine=f"log_replay_failed:{_error_name(error)}")
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
    stored = row.head()
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
    if stored.rated and stored.meta.get("hints"):
        # Someone took a hint (the service's meta "hints"): the game finishes unrated.
        conn.execute("UPDATE games SET rated = 0 WHERE id = ?", (game_id,))
    elif stored.rated:
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
    game_id: int, append: Callable[[Connection], Appended], now: int, row_lock: str
) -> Callable[[Connection], tuple[FinishedGame, bool]]:
    """The final append and the finish, in one unit of work: ``(what finishing wrote, already)``; a
    retry that finds the action already logged (the first commit landed, and finished the game) reads
    back what finishing wrote instead of finishing again."""

    def work(conn: Connection) -> tuple[FinishedGame, bool]:
        appended = append(conn)
        if appended.already:
            return _finished_record(conn, game_id), True
        return _finish(conn, game_id, appended.version, now, row_lock), False

    return work


def _finished_record(conn: Connection, game_id: int) -> FinishedGame:
    """What finishing a game wrote (its results and rating changes), read back: a retried final action
    whose first commit had landed (and finished the game) answers with it."""
    return FinishedGame(game_id, _read_results(conn, game_id), rating_changes_of(conn, game_id))
