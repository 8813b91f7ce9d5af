"""Finished-game results: per seat rank, total, round scores and generic stat counters."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.storage.backend import Connection, Database
from bot.storage.errors import StorageError

# Per-round lists that are scores, not counters.
_NOT_COUNTERS = frozenset({"scores", "raw_scores"})


@dataclass(frozen=True)
class SeatResult:
    """How one seat ended a game. ``stats`` holds game-specific counters (``columns_cleared``...)."""

    seat: int
    rank: int
    total: int | None
    round_scores: tuple[int, ...] = ()
    stats: Mapping[str, int] = field(default_factory=dict)

    @property
    def won(self) -> bool:
        return self.rank == 1


def _is_int(value: object) -> bool:
    return type(value) is int


def seat_results_from_engine(results: Mapping[str, Any], seats: int) -> list[SeatResult]:
    """Turn an engine's ``results()`` into per-seat results, the same way for every game kind.

    Ranks come from ``ranks``; totals from ``totals`` (if any); round scores from ``rounds[i].scores``.
    Counters are generic: any per-round list of ``seats`` integers other than the scores (Skyjo's
    ``columns_cleared``) is summed per seat, and an optional ``stats`` list of per-seat dicts of
    integers is added, so a new game's statistics need no storage change.
    """
    ranks = results.get("ranks")
    if not isinstance(ranks, list) or len(ranks) != seats or not all(_is_int(r) and r >= 1 for r in ranks):
        raise StorageError("the engine's results carry no ranks: is the game over?")
    totals = results.get("totals")
    if not (isinstance(totals, list) and len(totals) == seats and all(_is_int(t) for t in totals)):
        totals = [None] * seats
    round_scores: list[list[int]] = [[] for _ in range(seats)]
    counters: list[dict[str, int]] = [{} for _ in range(seats)]
    for played in results.get("rounds") or []:
        if not isinstance(played, dict):
            continue
        for key, value in played.items():
            if not (isinstance(value, list) and len(value) == seats and all(_is_int(v) for v in value)):
                continue
            if key == "scores":
                for seat, score in enumerate(value):
                    round_scores[seat].append(score)
            elif key not in _NOT_COUNTERS:
                for seat, count in enumerate(value):
                    counters[seat][key] = counters[seat].get(key, 0) + count
    extra = results.get("stats")
    if isinstance(extra, list) and len(extra) == seats:
        for seat, stats in enumerate(extra):
            if isinstance(stats, dict):
                for key, count in stats.items():
                    if isinstance(key, str) and _is_int(count):
                        counters[seat][key] = counters[seat].get(key, 0) + count
    return [
        SeatResult(seat, ranks[seat], totals[seat], tuple(round_scores[seat]), counters[seat])
        for seat in range(seats)
    ]


def write_results(conn: Connection, game_id: int, results: Sequence[SeatResult]) -> None:
    """Insert a finished game's results (inside the caller's transaction)."""
    conn.executemany(
        "INSERT INTO game_results (game_id, seat, rank, total, round_scores, stats)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [
            (
                game_id,
                r.seat,
                r.rank,
                r.total,
                json.dumps(list(r.round_scores)),
                json.dumps(dict(r.stats), sort_keys=True),
            )
            for r in results
        ],
    )


def _read_results(conn: Connection, game_id: int) -> list[SeatResult]:
    rows = conn.execute(
        "SELECT seat, rank, total, round_scores, stats FROM game_results WHERE game_id = ? ORDER BY seat",
        (game_id,),
    ).fetchall()
    return [
        SeatResult(seat, rank, total, tuple(json.loads(scores)), json.loads(stats))
        for seat, rank, total, scores, stats in rows
    ]


@dataclass(frozen=True)
class PlayedGame:
    """One finished game in a player's history (``/history``): where they placed and what they scored."""

    game_id: int
    kind: str
    finished_at: int  # unix milliseconds
    rank: int
    players: int
    total: int | None
    rounds: int  # rounds with a stored score
    rated: bool


def played_games(conn: Connection, user_id: int, guild_id: int, limit: int) -> list[PlayedGame]:
    """``user_id``'s latest finished games on ``guild_id``, newest first."""
    rows = conn.execute(
        "SELECT g.id, g.kind, g.finished_at, r.rank, r.total, r.round_scores, g.rated,"
        " (SELECT count(*) FROM game_seats AS o WHERE o.game_id = g.id)"
        " FROM games AS g"
        " JOIN game_seats AS s ON s.game_id = g.id"
        " JOIN game_results AS r ON r.game_id = g.id AND r.seat = s.seat"
        " WHERE g.status = 'finished' AND g.guild_id = ? AND s.user_id = ?"
        " ORDER BY g.finished_at DESC, g.id DESC LIMIT ?",
        (guild_id, user_id, limit),
    ).fetchall()
    return [
        PlayedGame(
            int(game_id),
            str(kind),
            int(finished_at or 0),
            int(rank),
            int(players),
            None if total is None else int(total),
            len(json.loads(scores)),
            bool(rated),
        )
        for game_id, kind, finished_at, rank, total, scores, rated, players in rows
    ]


class ResultRepository:
    """Reads the stored results of finished games."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def for_game(self, game_id: int) -> list[SeatResult]:
        """The results of one game, by seat (empty if it was never finished)."""
        return await self.db.run(lambda c: _read_results(c, game_id))

    async def played(self, user_id: int, guild_id: int, *, limit: int = 10) -> list[PlayedGame]:
        """A player's latest finished games on one server, newest first (``/history``)."""
        return await self.db.run(lambda c: played_games(c, user_id, guild_id, limit))
