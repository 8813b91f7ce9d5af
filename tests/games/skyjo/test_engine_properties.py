"""Property tests of the Skyjo engine: seeded random games with hypothesis."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine.errors import GameError, MalformedAction, UnknownGameKind
from bot.games.registry import get_engine
from bot.games.skyjo import engine as skyjo
from bot.games.skyjo.engine import (
    DECK,
    Action,
    DiscardAndReveal,
    Draw,
    NextRound,
    Options,
    Replace,
    Reveal,
    State,
    TakeDiscard,
    action_from_dict,
    replay,
)

from .helpers import advance, all_cards

FULL_DECK = Counter(DECK)


@st.composite
def tables(draw: st.DrawFn) -> tuple[int, Options, int]:
    players = draw(st.integers(2, 8))
    columns = draw(st.integers(2, 5))
    rows = draw(st.integers(2, 4))
    while players * columns * rows + 2 > len(DECK):
        rows -= 1 if rows > 2 else 0
        columns -= 1 if rows == 2 else 0
    options = Options(
        score_limit=draw(st.sampled_from([30, 60, 100])),
        finisher_multiplier=draw(st.integers(1, 3)),
        initial_reveals=draw(st.integers(0, min(3, columns * rows - 1))),
        columns=columns,
        rows=rows,
        row_clearing=draw(st.booleans()),
        previous_finisher_starts=draw(st.booleans()),
    )
    return players, options, draw(st.integers(0, 2**32))


def random_playout(
    players: int, options: Options, seed: int, check: bool = True
) -> tuple[State, list[tuple[int, Action]]]:
    """A whole game of random legal moves, checking the invariants after every action."""
    game = State.new([f"p{i}" for i in range(players)], seed, options)
    rng = random.Random(seed)
    log: list[tuple[int, Action]] = []
    for _ in range(20_000):
        if game.is_over:
            return game, log
        seats = game.seats_to_act()
        seat = rng.choice(seats)
        action = rng.choice(game.legal_actions(seat))
        game.apply(seat, action)
        log.append((seat, action))
        if check:
            assert all_cards(game) == FULL_DECK, "SKY-DECK-1: cards must be conserved"
    raise AssertionError("the game did not end")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_random_games_terminate_conserve_cards_and_replay_exactly(table: tuple[int, Options, int]) -> None:
    """GAME-RNG-1: the seed, options, players and actions rebuild the identical state."""
    players, options, seed = table
    game, log = random_playout(players, options, seed)
    assert game.is_over and game.winners()
    assert max(game.totals) >= options.score_limit
    serialised = [(seat, action_from_dict(json.loads(json.dumps(a.to_dict())))) for seat, a in log]
    assert replay(game.players, seed, options, serialised) == game
    assert State.from_dict(json.loads(json.dumps(game.to_dict()))) == game


@settings(max_examples=30, deadline=None)
@given(tables(), st.integers(0, 400))
def test_state_round_trips_through_json_mid_game(table: tuple[int, Options, int], steps: int) -> None:
    players, options, seed = table
    game = State.new([f"p{i}" for i in range(players)], seed, options)
    rng = random.Random(seed)
    advance(game, rng, steps)
    data = json.loads(json.dumps(game.to_dict()))
    assert State.from_dict(data) == game
    assert State.from_dict(data).to_dict() == game.to_dict()


def _hidden_shuffled(game: State, rng: random.Random) -> State:
    """A copy of ``game`` in which every face-down card and the draw pile order are shuffled."""
    other = State.from_dict(game.to_dict())
    hidden = [(s, p) for s in range(len(other.players)) for p in other.face_down_positions(s)]
    pool = [other.grids[s][p] for s, p in hidden] + other.draw_pile
    rng.shuffle(pool)
    for s, p in hidden:
        other.grids[s][p] = pool.pop()
    other.draw_pile = pool
    return other


@settings(max_examples=40, deadline=None)
@given(tables(), st.integers(0, 300))
def test_game_info_1_views_never_contain_hidden_cards(table: tuple[int, Options, int], steps: int) -> None:
    """GAME-INFO-1: views of two states that differ only in hidden cards are identical."""
    players, options, seed = table
    game = State.new([f"p{i}" for i in range(players)], seed, options)
    rng = random.Random(seed)
    advance(game, rng, steps)
    twin = _hidden_shuffled(game, rng)
    for viewer in [None, *range(players)]:
        view = game.view(viewer)
        assert view == twin.view(viewer)
        json.dumps(view)  # JSON-safe
        for s, grid in enumerate(view["grids"]):
            for p, cell in enumerate(grid):
                if game.grids[s][p] is not None and not game.face_up[s][p]:
                    assert cell == skyjo.HIDDEN


def _all_actions(game: State) -> list[Action]:
    cells = game.cells
    out: list[Action] = [Draw(), NextRound()]
    for pos in [-1, *range(cells), cells, 99]:
        out += [Reveal(pos), TakeDiscard(pos), Replace(pos), DiscardAndReveal(pos)]
    return out


@settings(max_examples=25, deadline=None)
@given(tables())
def test_game_illegal_1_illegal_actions_change_nothing(table: tuple[int, Options, int]) -> None:
    """GAME-ILLEGAL-1: every refused action raises a GameError with a key and leaves the state as it was."""
    players, options, seed = table
    game = State.new([f"p{i}" for i in range(players)], seed, options)
    rng = random.Random(seed)
    refused = 0
    for _ in range(3000):
        if game.is_over:
            break
        seat = rng.randrange(-1, players + 1)
        action = rng.choice(_all_actions(game))
        before = game.to_dict()
        legal = game.legal_actions(seat)
        try:
            game.apply(seat, action)
        except GameError as error:
            refused += 1
            assert error.key.startswith("error.")
            assert action not in legal
            assert game.to_dict() == before
        else:
            assert action in legal, (seat, action)
    assert refused > 0


def test_game_rng_1_same_seed_same_deal_other_seed_other_deal() -> None:
    a = State.new(["a", "b", "c"], 42)
    b = State.new(["a", "b", "c"], 42)
    c = State.new(["a", "b", "c"], 43)
    assert a == b
    assert a.grids != c.grids


def test_action_from_dict_refuses_forged_input() -> None:
    for bad in [
        None,
        [],
        {"type": "reveal"},
        {"type": "reveal", "pos": "1"},
        {"type": "reveal", "pos": True},
        {"type": "reveal", "pos": 1, "extra": 2},
        {"type": "teleport", "pos": 1},
        {"type": "draw", "pos": 1},
    ]:
        with pytest.raises(MalformedAction):
            action_from_dict(bad)
    assert action_from_dict({"type": "take", "pos": 3}) == TakeDiscard(3)
    assert action_from_dict(Draw().to_dict()) == Draw()


def test_get_engine_knows_skyjo_and_refuses_unknown_kinds() -> None:
    assert get_engine("skyjo") is skyjo
    with pytest.raises(UnknownGameKind):
        get_engine("poker")


def test_importing_the_engine_does_not_import_discord() -> None:
    code = (
        "import sys; import bot.engine, bot.games.skyjo.engine, bot.engine.errors; "
        "assert 'discord' not in sys.modules, 'discord imported'; "
        "assert 'asyncio' not in sys.modules, 'asyncio imported'; print('clean')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "clean"
