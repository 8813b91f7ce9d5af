"""The moves a seat may make now, as the Activity's frames carry them (``panel.moves(view, seat)``, read
from the seat's own view): exactly the engine's legal actions, in their order, each read back by the
panel's ``action_for``, at every step of seeded whole games (GAME-INFO-1: a spectator, or a seat not
to act, gets none)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.games.registry import find


def _playout(kind: str, players: int, seed: int, options: dict[str, Any]) -> Any:
    """Every state of a seeded random game, one per action, to its end."""
    game_spec = find(kind)
    assert game_spec is not None
    engine = game_spec.engine
    game = engine.State.new([f"p{i}" for i in range(players)], seed, engine.Options.from_dict(options))
    rng = random.Random(seed)
    while True:
        yield game
        if game.is_over:
            return
        seat = rng.choice(game.seats_to_act())
        game.apply(seat, rng.choice(game.legal_actions(seat)))


@pytest.mark.parametrize(
    ("kind", "players", "options"),
    [
        ("skyjo", 3, {"score_limit": 30}),
        ("skyjo", 2, {"score_limit": 20, "row_clearing": True, "columns": 3, "rows": 2}),
        ("skipbo", 2, {"stock_size": 5}),
        ("skipbo", 4, {"stock_size": 5, "teams": True}),
        ("skipbo", 6, {"stock_size": 5, "teams": True, "several_rounds": True, "score_limit": 60}),
    ],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_moves_are_the_legal_actions(kind: str, players: int, options: dict[str, Any], seed: int) -> None:
    game_spec = find(kind)
    assert game_spec is not None
    panel = game_spec.panel
    steps = 0
    for game in _playout(kind, players, seed, options):
        steps += 1
        assert panel.moves(game.view(None), None) == []
        for seat in range(players):
            moves = panel.moves(game.view(seat), seat)
            actions = [panel.action_for(m["act"], m["arg"]) for m in moves]
            assert actions == game.legal_actions(seat)
            for move, action in zip(moves, actions, strict=True):
                # the fields beside act and arg say what the action is, in the engine's own names
                assert {k: v for k, v in move.items() if k not in ("act", "arg")} == {
                    k: v for k, v in action.to_dict().items() if k in move
                }
    assert steps > 20  # a real game, several turns long


def test_the_test_games_moves_too() -> None:
    """A new game brings its ``moves`` with its panel (tests/e2e/highcard, the test-only third game)."""
    from bot.games import registry
    from tests.e2e.highcard import HIGHCARD

    registry.register(HIGHCARD)
    try:
        steps = list(_playout(HIGHCARD.name, 3, 1, {}))
        for game in steps:
            for seat in range(3):
                moves = HIGHCARD.panel.moves(game.view(seat), seat)
                assert [HIGHCARD.panel.action_for(m["act"], m["arg"]) for m in moves] == game.legal_actions(
                    seat
                )
        assert len(steps) == 4
    finally:
        registry.unregister(HIGHCARD)
