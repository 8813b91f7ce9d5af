"""A Skyjo game stopped before its end (a tournament's table ended by hand) is placed by the totals of
its rounds completed (``State.standing`` through the ``State`` protocol): random playouts stopped at a
random point (SKY-GAME-2's order; GAME-INFO-1: hidden cards decide nothing)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.games.skyjo import SKYJO
from bot.games.skyjo.engine import Options, State, ranks_of, replay

from ..standing import assert_valid_ranks
from .test_engine_properties import _hidden_shuffled, random_playout, tables


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.floats(0.0, 1.0))
def test_sky_game_2_a_game_stopped_early_ranks_by_the_rounds_completed(
    table: tuple[int, Options, int], stop_at: float
) -> None:
    players, options, seed = table
    final, log = random_playout(players, options, seed, check=False)
    assert SKYJO.standing(final) == final.results()["ranks"]  # over: the final ranking
    stopped = replay(final.players, seed, options, log[: int(stop_at * len(log))])
    ranks = SKYJO.standing(stopped)
    assert_valid_ranks(ranks, players)
    assert ranks == ranks_of(stopped.totals)
    if not stopped.rounds:
        assert ranks == [1] * players  # stopped in the first round: nothing scored yet, a draw
    best = min(stopped.totals)
    assert [r == 1 for r in ranks] == [t == best for t in stopped.totals]
    twin = _hidden_shuffled(stopped, random.Random(seed))
    assert SKYJO.standing(twin) == ranks  # the face-down cards and the draw pile decide nothing


def test_a_round_in_progress_counts_for_nothing() -> None:
    """Round 2 in play: the first round's totals decide, however the grids of round 2 look."""
    game = State.new(["a", "b", "c"], 5, Options())
    game.totals = [30, 12, 30]
    assert SKYJO.standing(game) == [2, 1, 2]
