"""A player's place in a finished game: the one rule ``/history``, ``/stats`` and the final standings use."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Place:
    """Where one seat's side finished: ``place`` (1 = first) out of ``of`` sides; ``team`` when the
    side is a team (then ``of`` counts teams, not players)."""

    place: int
    of: int
    team: bool = False


def places(ranks: Sequence[int], sides: Sequence[int] | None = None) -> list[Place]:
    """The place of every seat, from the seats' ranks (1 = best, ties equal) and, in a team game, the
    side (team number) of each seat (``Game.sides``; None: every seat is its own side).

    THE rule (every view of a place goes through here, so they agree): **a player's place is their
    side's place**. A side is the player alone, or their team in a team game (teams of two,
    SB-VAR-TEAM-1: a team wins when both partners' stocks are empty, so partners win and lose
    together). A side's rank is the best rank among its seats; its place is 1 + the number of sides
    ranked strictly better (competition ranking: sides that tie share a place), out of the number of
    sides. So the losing team of two is "2nd of 2 teams" for both partners (never "3rd of 4"), even
    the partner who emptied their own stock.
    """
    n = len(ranks)
    side = list(range(n)) if sides is None or len(sides) != n else list(sides)
    best: dict[int, int] = {}
    for seat, rank in enumerate(ranks):
        best[side[seat]] = min(rank, best.get(side[seat], rank))
    team = sides is not None and len(best) < n
    return [
        Place(1 + sum(1 for r in best.values() if r < best[side[seat]]), len(best), team) for seat in range(n)
    ]


__all__ = ["Place", "places"]
