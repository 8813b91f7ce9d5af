"""Read queries for ``/stats``: everything one player's card shows, per game kind, in one database hop.

The board rows, ranks and history come from :mod:`bot.storage.ratings` (this module only reads, and
reuses its queries); what it adds is the size of the board (for "rank 3 of 41"), and the player's best
and mean *final* total over the rated games of the scope, read from ``game_results`` through
``rating_history`` (so exactly the games that moved the rating of that scope count).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.games import registry
from bot.games.places import Place
from bot.storage.backend import Connection, Database
from bot.storage.ratings import (
    GLOBAL_SCOPE,
    HistoryEntry,
    PlayerStats,
    history_rows,
    lower_score_wins,
    player_rows,
)
from bot.storage.results import seat_places

KINDS: tuple[str, ...] = tuple(game.name for game in registry.GAMES)  # the card's games, in order
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
    # The player's place in each game of ``history`` (same order; None: not found), by
    # :func:`bot.games.places.places`, the rule ``/history`` and the final standings use too.
    places: tuple[Place | None, ...] = ()

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


def _places(conn: Connection, player: str, history: Sequence[HistoryEntry]) -> tuple[Place | None, ...]:
    """The player's place in each game of ``history``: their seat's place (their best seat's, for a
    computer level seated twice)."""
    condition = _player_filter(player)
    if condition is None or not history:
        return tuple(None for _ in history)
    where, value = condition
    ids = sorted({h.game_id for h in history})
    seats = conn.execute(
        f"SELECT s.game_id, s.seat FROM game_seats AS s WHERE s.game_id IN ({','.join('?' * len(ids))})"
        f" AND {where}",
        (*ids, value),
    ).fetchall()
    shown = seat_places(conn, ids)
    best: dict[int, Place] = {}
    for game_id, seat in seats:
        found = shown.get((int(game_id), int(seat)))
        if found is not None and (int(game_id) not in best or found.place < best[int(game_id)].place):
            best[int(game_id)] = found
    return tuple(best.get(h.game_id) for h in history)


def _totals(conn: Connection, player: str, kind: str, scope: int) -> tuple[int | None, float | None]:
    condition = _player_filter(player)
    if condition is None:
        return None, None
    where, value = condition
    best = "min" if lower_score_wins(kind) else "max"
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
    conn: Connection, player: str, scope: int, kinds: Sequence[str], history: int
) -> list[KindOverview]:
    """The card of ``player`` in ``scope``, one entry per kind (in the order of ``kinds``).

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
        best, mean = _totals(conn, player, kind, scope)
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
                _places(conn, player, latest),
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
        kinds: Sequence[str] = KINDS,
        history: int = TREND_GAMES,
    ) -> list[KindOverview]:
        """``player``'s card on a guild's boards, or the global boards (``guild_id=None``)."""
        scope = GLOBAL_SCOPE if guild_id is None else int(guild_id)
        wanted = tuple(kinds)
        return await self.db.run(lambda c: overview_rows(c, player, scope, wanted, history))


__all__ = ["KINDS", "TREND_GAMES", "KindOverview", "StatsRepository", "overview_rows"]
