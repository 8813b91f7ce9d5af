"""The engine's own shuffle must be draw for draw ``random.Random.shuffle`` (every deal, and so every
stored game's replay, depends on it)."""

from __future__ import annotations

import random

import pytest

from bot.games.skyjo.engine import DECK, _shuffle


@pytest.mark.parametrize("size", [0, 1, 2, 3, 5, 64, 99, 100, 101, 149, len(DECK), len(DECK) + 1, 300])
def test_shuffle_matches_random_shuffle(size: int) -> None:
    for seed in range(60):
        expected, got = list(range(size)), list(range(size))
        theirs, ours = random.Random(f"skyjo:{seed}:1:deal:0"), random.Random(f"skyjo:{seed}:1:deal:0")
        theirs.shuffle(expected)
        _shuffle(ours, got)
        assert got == expected
        assert ours.getstate() == theirs.getstate()  # the same draws, so the generator ends alike


def test_a_deal_is_the_deck_shuffled_by_random_shuffle() -> None:
    from bot.games.skyjo.engine import State

    game = State.new(["a", "b", "c"], 42)
    deck = list(DECK)
    random.Random("skyjo:42:1:deal:0").shuffle(deck)
    assert [v for grid in game.grids for v in grid] == deck[:36]
    assert game.discard_pile == [deck[-1]] and game.draw_pile == deck[36:-1]
