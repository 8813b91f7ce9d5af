"""Read queries for ``/stats``: everything one player's card shows, per game kind, in one database hop.

The board rows, ranks and history come from :mod:`bot.storage.ratings` (this module only reads, and
reuses its queries); what it adds is the size of the board (for "rank 3 of 41"), and the player's best
and mean *final* total over the rated games of the scope, read from ``game_results`` through
``rating_history`` (so exactly the games that moved the rating of that scope count).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from bot.storage.backend import Connection, Database
from bot.storage.ratings import (
    HistoryEntry,
    PlayerStats,
    history_rows,
    player_rows,
)
from bot.storage.results import GameRanks, seat_ranks
from bot.storage.venues import GLOBAL_SCOPE

TREND_GAMES = 10  # the trend (change and sparkline) covers at most this many latest games


@dataclass(frozen=True)
class KindOverview:
    """One game kind of a player's card in one scope. ``stats`` is None when they have no rated game."""

    kind: str
    scope: int
    stats: PlayerStats | None
    players: int  # rated players on this board (for "rank r of n")
    history: list[HistoryEntry]  # newest first, at most ``TREND_GAMES``
    best_total: int | None  # best final total of a rated game (lowest where lower wins)
    mean_total: float | None
    # What the player's place in each game of ``history`` is computed from (same order; None: not
    # found): the game's ranks and options, and the player's seats in it (a computer level may sit
    # twice). The place itself is the game's rule, computed above storage (``bot/ui/places.py``).
    finishes: tuple[tuple[GameRanks, tuple[int, ...]] | None, ...] = ()

    @property
    def played(self) -> bool:
        return self.stats is not None and self.stats.games > 0


def _player_filter(player: str) -> tuple[str, object] | None:
    """The ``game_seats`` condition that finds the seats of a player key."""
    if player.startswith("user:"):
        try:
            return "s.user_id = ?", int(player[5:])
        except ValueError:
            return None
    if player.startswith("ai:"):
        return "s.ai_level = ?", player[3:]
    return None


def _finishes(
    conn: Connection, player: str, history: Sequence[HistoryEntry]
) -> tuple[tuple[GameRanks, tuple[int, ...]] | None, ...]:
    """The ranks of each game of ``history`` and the player's seats in it."""
    condition = _player_filter(player)
    if condition is None or not history:
        return tuple(None for _ in history)
    where, value = condition
    ids = sorted({h.game_id for h in history})
    seats = conn.execute(
        f"SELECT s.game_id, s.seat FROM game_seats AS s WHERE s.game_id IN ({','.join('?' * len(ids))})"
        f" AND {where} ORDER BY s.game_id, s.seat",
        (*ids, value),
    ).fetchall()
    games = seat_ranks(conn, ids)
    mine: dict[int, list[int]] = {}
    for game_id, seat in seats:
        mine.setdefault(int(game_id), []).append(int(seat))
    out: list[tuple[GameRanks, tuple[int, ...]] | None] = []
    for h in history:
        game = games.get(h.game_id)
        out.append(None if game is None or h.game_id not in mine else (game, tuple(mine[h.game_id])))
    return tuple(out)


def _totals(
    conn: Connection, player: str, kind: str, scope: int, lower_wins: bool
) -> tuple[int | None, float | None]:
    condition = _player_filter(player)
    if condition is None:
        return None, None
    where, value = condition
    best = "min" if lower_wins else "max"
    row = conn.execute(
        f"SELECT {best}(gr.total), avg(gr.total) FROM rating_history AS h"
        " JOIN game_seats AS s ON s.game_id = h.game_id"
        " JOIN game_results AS gr ON gr.game_id = s.game_id AND gr.seat = s.seat"
        f" WHERE h.kind = ? AND h.scope = ? AND h.player = ? AND {where} AND gr.total IS NOT NULL",
        (kind, scope, player, value),
    ).fetchone()
    if row is None or row[0] is None:
        return None, None
    return int(row[0]), float(row[1])


def overview_rows(
    conn: Connection,
    player: str,
    scope: int,
    kinds: Sequence[str],
    history: int,
    lower_wins: Collection[str] = (),
) -> list[KindOverview]:
    """The card of ``player`` in ``scope``, one entry per kind (in the order of ``kinds``); the best
    total of a kind in ``lower_wins`` is its lowest (the games say it: ``Game.lower_score_wins``).

    A person's rank on the global board is among people, as that board shows by default (``/leaderboard
    computers``); on a server's board, which shows its computers by default, among everyone."""
    people = scope == GLOBAL_SCOPE and not player.startswith("ai:")
    rows = {r.kind: r for r in player_rows(conn, player, None, scope, people=people)}
    counts = dict(
        conn.execute("SELECT kind, players FROM rating_boards WHERE scope = ?", (scope,)).fetchall()
    )
    if people:
        computers = conn.execute(
            "SELECT kind, count(*) FROM ratings WHERE scope = ? AND substr(player, 1, 3) = 'ai:'"
            " GROUP BY kind",
            (scope,),
        ).fetchall()
        for kind, n in computers:
            counts[kind] = counts.get(kind, 0) - n
    out: list[KindOverview] = []
    for kind in kinds:
        stats = rows.get(kind)
        if stats is None:
            out.append(KindOverview(kind, scope, None, int(counts.get(kind, 0)), [], None, None))
            continue
        best, mean = _totals(conn, player, kind, scope, kind in lower_wins)
        latest = history_rows(conn, player, kind, scope, history)
        out.append(
            KindOverview(
                kind,
                scope,
                stats,
                int(counts.get(kind, 0)),
                latest,
                best,
                mean,
                _finishes(conn, player, latest),
            )
        )
    return out


class StatsRepository:
    """The ``/stats`` card (``storage.stats``)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def overview(
        self,
        player: str,
        guild_id: int | None = None,
        *,
        kinds: Sequence[str],
        lower_wins: Collection[str] = (),
        history: int = TREND_GAMES,
        scope: int | None = None,
    ) -> list[KindOverview]:
        """``player``'s card on a guild's boards, or the global boards (``guild_id=None``), or in
        ``scope`` when given (a place's board: :attr:`bot.storage.venues.Venue.board`, e.g. a group
        DM's friends board): one entry per kind of ``kinds`` (the caller's games, in order; storage
        knows no game), the best total of a kind in ``lower_wins`` being its lowest."""
        if scope is None:
            scope = GLOBAL_SCOPE if guild_id is None else int(guild_id)
        where, wanted, lower = int(scope), tuple(kinds), frozenset(lower_wins)
        return await self.db.run(lambda c: overview_rows(c, player, where, wanted, history, lower))


__all__ = ["TREND_GAMES", "KindOverview", "StatsRepository", "overview_rows"]
