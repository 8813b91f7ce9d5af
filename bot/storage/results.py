"""Finished-game results: per seat rank, total, round scores and generic stat counters."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.storage.backend import Connection, Database
from bot.storage.venues import Venue


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
class GameRanks:
    """A finished game as a place is computed from (above storage, by the game's rule:
    ``bot/ui/places.py``): its kind, its stored options (a team game's sides come from them) and
    every seat's stored rank, in seat order."""

    kind: str
    options: Mapping[str, Any]
    ranks: tuple[int, ...]


def seat_ranks(conn: Connection, game_ids: Sequence[int]) -> dict[int, GameRanks]:
    """The kind, options and ranks of these finished games, by id. Places are not stored: the stored
    ranks are the game's own result and stay true, and the sides are a rule of the game known from its
    options, so the place is computed when read, by the caller, who knows the games."""
    ids = sorted({int(g) for g in game_ids})
    out: dict[int, GameRanks] = {}
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
            try:
                parsed = json.loads(options or "{}")
            except ValueError:
                parsed = {}
            out[game_id] = GameRanks(kind, parsed if isinstance(parsed, dict) else {}, tuple(ranks))
    return out


@dataclass(frozen=True)
class PlayedGame:
    """One finished game in a player's history (``/history``): where they placed and what they scored.

    ``rank`` and ``players`` are the seat's stored rank and the number of seats; ``seat`` and ``game``
    (every seat's rank, the options) give the player's place by the game's rule, their team's in a
    team game (``bot/ui/places.py``: the same ``/stats`` and the final standings give)."""

    game_id: int
    kind: str
    finished_at: int  # unix milliseconds
    rank: int
    players: int
    total: int | None
    rounds: int  # rounds with a stored score
    rated: bool
    seat: int = 0
    game: GameRanks | None = None


def played_games(conn: Connection, user_id: int, venue: Venue, limit: int) -> list[PlayedGame]:
    """``user_id``'s latest finished games in ``venue``, newest first: a server's (where the bot is),
    or an off-server channel's (a group DM, a DM, a channel of a server without the bot), never both."""
    if venue.off_server:
        where, place = "g.off_server = 1 AND g.channel_id = ?", venue.channel_id
    else:
        where, place = "g.off_server = 0 AND g.guild_id = ?", venue.guild_id
    rows = conn.execute(
        "SELECT g.id, g.kind, g.finished_at, r.rank, r.total, r.round_scores, g.rated, s.seat,"
        " (SELECT count(*) FROM game_seats AS o WHERE o.game_id = g.id)"
        " FROM games AS g"
        " JOIN game_seats AS s ON s.game_id = g.id"
        " JOIN game_results AS r ON r.game_id = g.id AND r.seat = s.seat"
        f" WHERE g.status = 'finished' AND {where} AND s.user_id = ?"
        " ORDER BY g.finished_at DESC, g.id DESC LIMIT ?",
        (place, user_id, limit),
    ).fetchall()
    ranks = seat_ranks(conn, [row[0] for row in rows])
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
            int(seat),
            ranks.get(int(game_id)),
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

    async def played(self, user_id: int, where: int | Venue, *, limit: int = 10) -> list[PlayedGame]:
        """A player's latest finished games in one place (``/history``), newest first: ``where`` is a
        :class:`~bot.storage.venues.Venue`, or a guild id for a server where the bot is."""
        venue = where if isinstance(where, Venue) else Venue.server(where)
        return await self.db.run(lambda c: played_games(c, user_id, venue, limit))
