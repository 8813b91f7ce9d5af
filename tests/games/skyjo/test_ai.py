"""Skyjo computer players: legal, blind to hidden cards, deterministic; and the simulator around them."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from bot.games.skyjo import ai, engine, sim
from bot.games.skyjo.engine import (
    PLAY,
    DiscardAndReveal,
    Draw,
    NextRound,
    Options,
    Replace,
    Reveal,
    State,
    TakeDiscard,
)
from bot.sim.common import PlainViews, parse_lineup, play_game

from .helpers import advance

LEVELS = sorted(ai.LEVELS)
OPTION_SETS = [
    Options(),
    Options(row_clearing=True),
    Options(columns=3, rows=2, initial_reveals=1),
    Options(columns=5, rows=4, initial_reveals=3, score_limit=60),
    Options(columns=2, rows=3, finisher_multiplier=1, score_limit=40),
]


def random_position(seed: int, players: int, steps: int, options: Options) -> State:
    """A game after ``steps`` random legal actions (the seat to act is then asked to decide)."""
    rng = random.Random(seed)
    game = State.new([f"p{i}" for i in range(players)], seed, options)
    return advance(game, rng, steps)


# --------------------------------------------------------------------------------------------------
# Legality


@pytest.mark.parametrize(
    "lineup", [("hard", "normal", "easy"), ("easy", "hard"), ("normal", "hard", "hard", "easy")]
)
@pytest.mark.parametrize("options", OPTION_SETS[:3], ids=["default", "rows", "3x2"])
def test_every_decision_is_legal_in_seeded_playouts(lineup: tuple[str, ...], options: Options) -> None:
    """Every decision of every level, over whole games, is one of the engine's legal actions."""
    decisions = 0
    for seed in range(3):
        game = State.new([f"p{i}" for i in range(len(lineup))], seed, options)
        rngs = [random.Random(seed * 10 + i) for i in range(len(lineup))]
        while not game.is_over:
            seat = game.seats_to_act()[0]
            action = ai.LEVELS[lineup[seat]](game.view(seat), rngs[seat])
            assert action in game.legal_actions(seat), (lineup[seat], action)
            game.apply(seat, action)
            decisions += 1
    assert decisions > 300


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    players=st.integers(2, 8),
    steps=st.integers(0, 400),
    options_index=st.integers(0, len(OPTION_SETS) - 1),
)
def test_every_level_is_legal_in_random_positions(
    seed: int, players: int, steps: int, options_index: int
) -> None:
    options = OPTION_SETS[options_index]
    if players * options.columns * options.rows + 2 > len(engine.DECK):
        players = 2
    game = random_position(seed, players, steps, options)
    if game.is_over:
        return
    for seat in game.seats_to_act():
        legal = game.legal_actions(seat)
        for level in LEVELS:
            for k in range(3):
                action = ai.LEVELS[level](game.view(seat), random.Random(k))
                assert action in legal, (level, action, legal)


def test_policies_refuse_a_finished_game() -> None:
    game = play_game(engine, [ai.normal] * 2, seed=4)
    assert game.is_over
    for level in LEVELS:
        with pytest.raises(ValueError):
            ai.LEVELS[level](game.view(0), random.Random(0))


def test_every_level_answers_next_round_between_rounds() -> None:
    game = State.new(["a", "b"], 3)
    rng = random.Random(0)
    while game.phase != engine.ROUND_OVER:
        seat = game.seats_to_act()[0]
        game.apply(seat, ai.normal(game.view(seat), rng))
    for level in LEVELS:
        for seat in (0, 1):
            assert ai.LEVELS[level](game.view(seat), rng) == NextRound()


# --------------------------------------------------------------------------------------------------
# No hidden information


def shuffle_hidden(game: State, rng: random.Random) -> State:
    """The same table with the face-down cards and the draw pile dealt anew among themselves."""
    other = State.from_dict(game.to_dict())
    slots = [(s, p) for s in range(len(other.grids)) for p in other.face_down_positions(s)]
    unseen = [other.grids[s][p] for s, p in slots] + other.draw_pile
    for _ in range(20):
        rng.shuffle(unseen)
        fresh = list(unseen)
        for s, p in slots:
            other.grids[s][p] = fresh.pop()
        other.draw_pile = fresh
        if other.to_dict() != game.to_dict():
            break
    return other


def test_levels_decide_the_same_on_states_that_differ_only_in_hidden_cards() -> None:
    """GAME-INFO-1: two states with the same view (other face-down cards, another draw pile order)
    get the same decision from every level with the same generator seed."""
    rng = random.Random(99)
    compared = 0
    for seed in range(80):
        game = random_position(seed, 2 + seed % 4, rng.randrange(0, 120), OPTION_SETS[seed % 2])
        if game.is_over:
            continue
        twin = shuffle_hidden(game, rng)
        assert twin.to_dict() != game.to_dict()  # hidden cards really differ
        for seat in game.seats_to_act():
            assert twin.view(seat) == game.view(seat)
            for level in LEVELS:
                for k in range(4):
                    mine = ai.LEVELS[level](game.view(seat), random.Random(k))
                    theirs = ai.LEVELS[level](twin.view(seat), random.Random(k))
                    assert mine == theirs, (level, seed)
                    compared += 1
    assert compared > 500


def test_policies_do_not_mutate_the_view() -> None:
    for seed in range(20):
        game = random_position(seed, 4, seed * 7, Options())
        if game.is_over:
            continue
        seat = game.seats_to_act()[0]
        view = game.view(seat)
        before = repr(view)
        for level in LEVELS:
            ai.LEVELS[level](view, random.Random(seed))
        assert repr(view) == before


# --------------------------------------------------------------------------------------------------
# Determinism


@pytest.mark.parametrize("level", LEVELS)
def test_a_level_is_deterministic_for_a_seed(level: str) -> None:
    for seed in range(40):
        game = random_position(seed, 3, seed * 5, Options())
        if game.is_over:
            continue
        seat = game.seats_to_act()[0]
        first = [ai.LEVELS[level](game.view(seat), random.Random(seed)) for _ in range(3)]
        assert first[0] == first[1] == first[2]


def test_whole_games_replay_identically() -> None:
    policies = [ai.hard, ai.normal, ai.easy]
    one = play_game(engine, policies, seed=11)
    two = play_game(engine, policies, seed=11)
    assert one.to_dict() == two.to_dict()
    other = play_game(engine, policies, seed=12)
    assert other.to_dict() != one.to_dict()


# --------------------------------------------------------------------------------------------------
# What each level does


def table(mine: list[int | None], up: list[bool], *, discard: int, drawn: int | None = None) -> State:
    """A 2-player game in play, seat 0 to act with ``mine`` as grid (None = cleared)."""
    game = State.new(["a", "b"], 1)
    game.phase = PLAY
    game.turn = 0
    game.reveals_left = [0, 0]
    game.grids[0] = list(mine)
    game.face_up[0] = [u and v is not None for v, u in zip(mine, up, strict=True)]
    game.grids[1] = [5, 6, 7, 5, 6, 7, 5, 6, 7, 5, 6, 7]
    game.face_up[1] = [True] * 6 + [False] * 6
    game.discard_pile = [discard]
    game.drawn = drawn
    return game


UP2 = [True, True] + [False] * 10  # a1 and a2 face up
MINE = [9, 4, 3, 2, 8, 1, 0, 6, 5, 7, 10, 11]


def decide(level: str, game: State, seed: int = 0) -> Any:
    return ai.LEVELS[level](game.view(0), random.Random(seed))


def test_normal_takes_a_low_discard_onto_its_highest_card() -> None:
    assert decide("normal", table(MINE, UP2, discard=0)) == TakeDiscard(0)  # 0 <= 0, replaces the 9
    assert decide("normal", table(MINE, UP2, discard=5)) == TakeDiscard(0)  # 5 < 9


def test_normal_puts_a_non_positive_discard_face_down_when_nothing_is_higher() -> None:
    grid = [-2, -1, 3, 2, 8, 1, 0, 6, 5, 7, 10, 11]
    action = decide("normal", table(grid, UP2, discard=0))
    assert isinstance(action, TakeDiscard) and action.pos >= 2  # a random face-down card


def test_normal_draws_when_the_discard_is_not_lower() -> None:
    assert decide("normal", table(MINE, UP2, discard=9)) == Draw()
    assert decide("normal", table(MINE, UP2, discard=12)) == Draw()


def test_normal_keeps_a_drawn_card_lower_than_its_highest() -> None:
    assert decide("normal", table(MINE, UP2, discard=12, drawn=8)) == Replace(0)


def test_normal_discards_a_drawn_card_not_lower_and_reveals() -> None:
    for seed in range(10):
        action = decide("normal", table(MINE, UP2, discard=12, drawn=9), seed)
        assert isinstance(action, DiscardAndReveal) and action.pos >= 2


def test_normal_with_nothing_face_down_replaces_its_highest() -> None:
    assert decide("normal", table(MINE, [True] * 12, discard=12, drawn=12)) == Replace(11)


def test_hard_completes_a_column_of_three() -> None:
    """SKY-COL-1 is the biggest saving there is: two face-up 10s and a 10 on the discard pile."""
    grid = [10, 10, 3, 2, 1, 1, 0, 6, 5, 7, 10, 11]
    up = [True, True, False] + [False] * 9
    assert decide("hard", table(grid, up, discard=10)) == TakeDiscard(2)


def test_hard_does_not_end_a_round_it_would_lose() -> None:
    """SKY-END-3: with one face-down card and a worse score than the others, keep it face down."""
    grid = [9, 9, 8, 8, 10, 7, 11, 12, 6, 7, 9, 5]
    up = [True] * 11 + [False]
    for seed in range(10):
        game = table(grid, up, discard=12, drawn=11)
        game.grids[1] = [0, 1, -1, 0, 1, 2, 0, 1, 2, 1, 0, 2]
        game.face_up[1] = [True] * 10 + [False] * 2
        action = decide("hard", game, seed)
        assert isinstance(action, Replace) and action.pos != 11, action


def test_hard_ends_a_round_it_surely_wins() -> None:
    grid = [0, 1, -1, 0, 1, 2, 0, 1, 2, 1, 0, 9]
    up = [True] * 11 + [False]
    game = table(grid, up, discard=12, drawn=-1)
    game.grids[1] = [9, 9, 8, 8, 10, 7, 11, 12, 6, 7, 9, 5]
    game.face_up[1] = [True] * 10 + [False] * 2
    assert decide("hard", game) == Replace(11)


def test_hard_reveals_beside_a_face_up_card_at_the_start() -> None:
    """The second initial reveal goes into the column of the first: a pair there can grow a column."""
    for seed in range(10):
        game = State.new(["a", "b", "c"], seed)
        game.apply(0, Reveal(4))
        action = decide("hard", game, seed)
        assert isinstance(action, Reveal) and action.pos in (3, 5)


# --------------------------------------------------------------------------------------------------
# The simulator


def test_fast_views_equal_the_engine_views() -> None:
    for seed, options in enumerate(OPTION_SETS):
        game = State.new(["a", "b", "c"], seed, options)
        fast = sim.FastViews(game)
        rng = random.Random(seed)
        while not game.is_over:
            for seat in range(3):
                assert fast.view(seat) == game.view(seat)
            seat = game.seats_to_act()[0]
            action = (
                rng.choice(game.legal_actions(seat))
                if rng.random() < 0.3
                else ai.normal(game.view(seat), rng)
            )
            fast.applied(seat, game.apply(seat, action))
        assert fast.view(0) == game.view(0)


def test_fast_views_next_view_is_next_seat_and_its_view() -> None:
    for seed, options in enumerate(OPTION_SETS):
        game = State.new(["a", "b", "c", "d"], seed, options)
        fast = sim.FastViews(game)
        rng = random.Random(seed)
        while True:
            turn = fast.next_view()
            if turn is None:
                assert game.is_over and fast.next_seat() is None
                break
            seat, view = turn
            assert seat == fast.next_seat() == game.seats_to_act()[0]
            assert view == game.view(seat) == fast.view(seat)
            fast.applied(seat, game.apply(seat, ai.normal(view, rng)))


def test_fast_views_change_no_game() -> None:
    policies = [ai.hard, ai.normal, ai.easy, ai.normal]
    plain = play_game(engine, policies, seed=5, views=PlainViews)
    fast = play_game(engine, policies, seed=5, views=sim.FastViews)
    assert plain.to_dict() == fast.to_dict()


def run_main(args: list[str]) -> tuple[int, list[str]]:
    buffer = io.StringIO()
    code = sim.main(args, console=Console(file=buffer, width=200, highlight=False))
    return code, buffer.getvalue().splitlines()


def test_simulator_prints_one_line_per_seat_and_is_deterministic() -> None:
    args = ["--players", "3", "--games", "4", "--ai", "hard,normal,easy", "--seed", "7", "--quiet"]
    code, lines = run_main(args)
    assert code == 0
    seat_lines = [line for line in lines if line.startswith("seat ")]
    assert [line.split(":")[0] for line in seat_lines] == ["seat 1 hard", "seat 2 normal", "seat 3 easy"]
    assert all("% wins" in line and "points/round" in line for line in seat_lines)
    assert any(line.startswith("rounds per game: ") for line in lines)
    assert any("shared win" in line for line in lines)
    _, again = run_main(args)
    assert [x for x in again if not x.startswith("speed")] == [x for x in lines if not x.startswith("speed")]
    _, other = run_main([*args[:-2], "8", "--quiet"])
    assert [x for x in other if x.startswith("seat ")] != seat_lines


def test_simulator_wins_add_up_with_shared_wins_counted_for_each() -> None:
    stats = sim.simulate(["normal", "normal"], 6, seed=3)
    assert stats.games == 6
    assert sum(stats.wins) >= 6


def test_simulator_rejects_a_bad_lineup() -> None:
    assert run_main(["--ai", "hard,wizard", "--games", "1", "--quiet"])[0] == 2
    assert run_main(["--players", "9", "--games", "1", "--quiet"])[0] == 2
    assert run_main(["--games", "0", "--quiet"])[0] == 2
    with pytest.raises(ValueError):
        parse_lineup("hard,normal,easy", 2, LEVELS)
    assert parse_lineup("hard,normal", 4, LEVELS) == ["hard", "normal", "normal", "normal"]


def test_simulator_profile_prints_decision_times() -> None:
    _, lines = run_main(["--players", "2", "--games", "1", "--ai", "hard,normal", "--profile", "--quiet"])
    assert any(line.startswith("decision time hard: ") for line in lines)
