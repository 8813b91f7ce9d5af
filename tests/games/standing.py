"""What every game's ``Game.standing`` must give (the places of a game stopped early): shared by the
games' property tests."""

from __future__ import annotations

from collections.abc import Sequence

from bot.games.places import places


def assert_valid_ranks(ranks: Sequence[int], players: int, sides: Sequence[int] | None = None) -> None:
    """A rank per seat, 1 = best, competition ranking (ties share a rank, the next rank skips them),
    partners of one side ranked alike; and :func:`bot.games.places.places` makes places of them."""
    assert len(ranks) == players
    assert all(type(r) is int for r in ranks)
    assert min(ranks) == 1
    for rank in ranks:
        assert rank == 1 + sum(1 for other in ranks if other < rank), ranks
    placed = places(ranks, sides)
    assert min(p.place for p in placed) == 1
    if sides is not None:
        for seat, side in enumerate(sides):
            assert all(ranks[seat] == ranks[other] for other, s in enumerate(sides) if s == side)
