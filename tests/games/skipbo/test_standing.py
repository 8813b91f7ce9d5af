"""A Skip-Bo game stopped before its end (a tournament's table ended by hand) is placed by the cards
left in the (team's) stock, after the totals with several rounds (``State.standing`` through the
``State`` protocol): random playouts stopped at a random point (SB-WIN-1, SB-VAR-TEAM-1,
SB-VAR-SCORE-1; SB-INFO-1: hidden cards decide nothing)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.games.skipbo import SKIPBO
from bot.games.skipbo.engine import Options, State, replay, team_numbers

from ..standing import assert_valid_ranks
from .helpers import names, random_playout
from .test_engine_properties import tables


def _hidden_shuffled(game: State, rng: random.Random) -> State:
    """A copy of ``game`` whose hidden cards (hands, stocks under their tops, the draw pile) are dealt
    again among the same places, each pile keeping its size."""
    other = State.from_dict(game.to_dict())
    piles = [*other.hands, *(s[:-1] for s in other.stocks), other.draw_pile]
    pool = [card for pile in piles for card in pile]
    rng.shuffle(pool)
    for hand in other.hands:
        hand[:] = [pool.pop() for _ in hand]
    for stock in other.stocks:
        stock[:-1] = [pool.pop() for _ in stock[:-1]]
    other.draw_pile = [pool.pop() for _ in other.draw_pile]
    return other


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.floats(0.0, 1.0))
def test_sb_win_1_a_game_stopped_early_ranks_by_the_stocks_left(
    table: tuple[int, Options, int], stop_at: float
) -> None:
    players, options, seed = table
    final, log = random_playout(players, options, seed, check=False)
    assert SKIPBO.standing(final) == final.results()["ranks"]  # over: the final ranking
    stopped = replay(names(players), seed, options, log[: int(stop_at * len(log))])
    ranks = SKIPBO.standing(stopped)
    sides = SKIPBO.sides(options.to_dict(), players)
    assert sides == team_numbers(options.teams, players)
    assert_valid_ranks(ranks, players, sides)
    if not stopped.is_over:
        left = [sum(len(stopped.stocks[s]) for s in stopped.team_of(seat)) for seat in range(players)]
        keys = list(zip([-t for t in stopped.totals], left, strict=True)) if options.several_rounds else left
        for a in range(players):
            for b in range(players):
                assert (ranks[a] < ranks[b]) == (keys[a] < keys[b])  # fewer cards left ranks better
    twin = _hidden_shuffled(stopped, random.Random(seed))
    assert SKIPBO.standing(twin) == ranks  # hands, stocks' hidden cards and the draw pile decide nothing
