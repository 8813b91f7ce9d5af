"""A finished game's places read back from storage: the stored ranks grouped by the game's sides.

Storage keeps the ranks (the game's own result) and knows no game; the sides are a rule of the game,
known from its stored options (``Game.sides``), and the place is :func:`bot.games.places.places`, the
one rule ``/history``, ``/stats`` and the final standings share. It reads the registry (a game's
sides), so it stands in the ui, above the games, with the leaderboards and ``/history`` that use it."""

from __future__ import annotations

from collections.abc import Sequence

from bot.games import registry
from bot.games.places import Place, places
from bot.storage.results import GameRanks


def seat_place(ranked: GameRanks, seat: int) -> Place:
    """The place of ``seat`` in the finished game ``ranked``: its side's place (its team's in a team game)."""
    game = registry.find(ranked.kind)
    sides = None
    if game is not None:
        try:
            sides = game.sides(dict(ranked.options), len(ranked.ranks))
        except (ValueError, TypeError, AttributeError):
            sides = None  # options a game no longer reads: every seat its own side
    return places(list(ranked.ranks), sides)[seat]


def best_place(ranked: GameRanks, seats: Sequence[int]) -> Place | None:
    """The best place among ``seats`` (a computer level may sit twice in one game)."""
    found = [seat_place(ranked, seat) for seat in seats if 0 <= seat < len(ranked.ranks)]
    return min(found, key=lambda where: where.place) if found else None
