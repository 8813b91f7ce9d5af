"""Finished-game results: per seat rank, total, round scores and generic stat counters."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.games import registry
from bot.games.places import Place, places
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


def seat_places(conn: Connection, game_ids: Sequence[int]) -> dict[tuple[int, int], Place]:
    """The place of every seat of these finished games, by ``(game_id, seat)``: the stored ranks of
    ``game_results`` grouped by the game's sides (:func:`bot.games.places.places`, the one rule of a
    place; the sides come from the game's stored options through ``Game.sides``).

    Computed when read, not stored: the stored ranks are the game's own result and stay true, and the
    sides are a rule of the game known from its options, so every game already stored (on SQLite or
    PostgreSQL) shows its team places without a migration or a new column."""
    ids = sorted({int(g) for g in game_ids})
    out: dict[tuple[int, int], Place] = {}
    for start in range(0, len(ids), 500):  # a bounded IN list
        chunk = ids[start : start + 500]
        rows = conn.execute(
            "SELECT g.id, g.kind, g.options, r.seat, r.rank FROM games AS g"
            " JOIN game_results AS r ON r.game_id = g.id"
            f" WHERE g.id IN ({','.join('?' * len(chunk))}) ORDER BY g.id, r.seat",
            chunk,
        ).fetchall()
        games: dict[int, tuple[str, str, list[int]]] = {}
        for game_id, kind, options, _seat, rank in rows:
            games.setdefault(int(game_id), (str(kind), str(options), []))[2].append(int(rank))
        for game_id, (kind, options, ranks) in games.items():
            game = registry.get_kind(kind)
            sides = None
            if game is not None:
                try:
                    sides = game.sides(json.loads(options or "{}"), len(ranks))
                except (ValueError, TypeError, AttributeError):
                    sides = None  # options a game no longer reads: every seat its own side
            for seat, shown in enumerate(places(ranks, sides)):
                out[game_id, seat] = shown
    return out


@dataclass(frozen=True)
class PlayedGame:
    """One finished game in a player's history (``/history``): where they placed and what they scored.

    ``place`` is the player's place by :func:`bot.games.places.places` (their team's in a team game),
    the same ``/stats`` and the final standings give; ``rank`` and ``players`` are the seat's stored
    rank and the number of seats."""

    game_id: int
    kind: str
    finished_at: int  # unix milliseconds
    rank: int
    players: int
    total: int | None
    rounds: int  # rounds with a stored score
    rated: bool
    place: Place | None = None

    @property
    def shown_place(self) -> Place:
        return self.place if self.place is not None else Place(self.rank, self.players)


def played_games(conn: Connection, user_id: int, guild_id: int, limit: int) -> list[PlayedGame]:
    """``user_id``'s latest finished games on ``guild_id``, newest first."""
    rows = conn.execute(
        "SELECT g.id, g.kind, g.finished_at, r.rank, r.total, r.round_scores, g.rated, s.seat,"
        " (SELECT count(*) FROM game_seats AS o WHERE o.game_id = g.id)"
        " FROM games AS g"
        " JOIN game_seats AS s ON s.game_id = g.id"
        " JOIN game_results AS r ON r.game_id = g.id AND r.seat = s.seat"
        " WHERE g.status = 'finished' AND g.guild_id = ? AND s.user_id = ?"
        " ORDER BY g.finished_at DESC, g.id DESC LIMIT ?",
        (guild_id, user_id, limit),
    ).fetchall()
    shown = seat_places(conn, [row[0] for row in rows])
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
            shown.get((int(game_id), int(seat))),
        )
        for game_id, kind, finished_at, rank, total, scores, rated, seat, players in rows
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
