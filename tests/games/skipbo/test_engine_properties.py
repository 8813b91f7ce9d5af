"""Property tests of the Skip-Bo engine: seeded random games with hypothesis."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine.errors import GameError
from bot.games.skipbo.engine import (
    WILD,
    Action,
    Discard,
    EndTurn,
    NextRound,
    Options,
    Play,
    State,
    action_from_dict,
    replay,
)

from .helpers import FULL_DECK, all_cards, names, random_playout

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw: st.DrawFn) -> tuple[int, Options, int]:
    teams = draw(st.booleans())
    players = draw(st.sampled_from([4, 6])) if teams else draw(st.integers(2, 6))
    limit = 25 if players <= 4 else 22
    stock = draw(st.sampled_from([0, 5, 8, 12, limit]))
    options = Options(
        stock_size=stock,
        teams=teams,
        several_rounds=draw(st.booleans()),
        score_limit=draw(st.sampled_from([100, 200])),
    )
    return players, options, draw(st.integers(0, 2**32))


@SETTINGS
@given(tables(), st.floats(0.0, 1.0))
def test_cards_conserved_and_games_terminate(table: tuple[int, Options, int], plays_first: float) -> None:
    """SB-DECK-1 / SB-WIN-1 / SB-STALL-1: 162 cards after every action; every game ends, won or drawn."""
    players, options, seed = table
    game, _ = random_playout(players, options, seed, plays_first=plays_first, check=True)
    assert game.is_over
    assert all_cards(game) == FULL_DECK
    results = game.results()
    last = game.rounds[-1]
    if last.stalled:
        assert results["draw"] and results["winners"] == []
        assert results["ranks"] == [1] * players
    elif options.several_rounds:
        assert max(game.totals) >= options.score_limit
        assert results["winners"] and not results["draw"]
    else:
        assert results["winners"] == list(last.winners)
        assert all(not game.stocks[s] for s in last.winners)
    assert len(results["ranks"]) == players
    assert all(results["ranks"][s] == 1 for s in results["winners"])
    assert json.loads(json.dumps(results)) == results


@SETTINGS
@given(tables())
def test_replay_equals_live_state_and_round_trips(table: tuple[int, Options, int]) -> None:
    """GAME-RNG-1: replaying the log gives the live state; to_dict/from_dict is the identity."""
    players, options, seed = table
    game, log = random_playout(players, options, seed, check=False)
    logged = [(seat, action_from_dict(json.loads(json.dumps(a.to_dict())))) for seat, a in log]
    again = replay(names(players), seed, options, logged)
    assert again == game
    assert State.from_dict(json.loads(json.dumps(game.to_dict()))) == game


@SETTINGS
@given(tables(), st.integers(0, 400))
def test_mid_game_round_trip_and_replay(table: tuple[int, Options, int], cut: int) -> None:
    """GAME-RNG-1: any prefix of a game replays to the same state, which serialises exactly."""
    players, options, seed = table
    _, log = random_playout(players, options, seed, check=False)
    prefix = log[: min(cut, len(log))]
    live = replay(names(players), seed, options, prefix)
    assert State.from_dict(live.to_dict()) == live
    if not live.is_over:
        seat = live.seats_to_act()[0]
        assert live.legal_actions(seat)


def _shuffle_hidden(game: State, viewer: int, rng: random.Random) -> State:
    """The same table for ``viewer`` with other hands and the draw pile dealt differently."""
    other = State.from_dict(game.to_dict())
    seats = [s for s in range(len(game.players)) if s != viewer]
    pool = list(other.draw_pile)
    for s in seats:
        pool.extend(other.hands[s])
    rng.shuffle(pool)
    for s in seats:
        size = len(other.hands[s])
        other.hands[s], pool = pool[:size], pool[size:]
    other.draw_pile = pool
    return other


@SETTINGS
@given(tables(), st.integers(0, 300), st.integers(0, 5))
def test_views_leak_nothing(table: tuple[int, Options, int], cut: int, viewer_pick: int) -> None:
    """GAME-INFO-1 / SB-INFO-1: states differing only in hidden cards look the same to a seat."""
    players, options, seed = table
    _, log = random_playout(players, options, seed, check=False)
    game = replay(names(players), seed, options, log[: min(cut, len(log))])
    viewer = viewer_pick % players
    other = _shuffle_hidden(game, viewer, random.Random(seed))
    assert other.view(viewer) == game.view(viewer)
    assert other.view(None) == game.view(None)
    view = game.view(viewer)
    assert json.loads(json.dumps(view)) == view
    assert view["hand"] == sorted(game.hands[viewer])
    assert "draw_pile" not in view and "hands" not in view and "set_aside" not in view


def _illegal_candidates(game: State, seat: int) -> list[tuple[int, object]]:
    """Actions the rules refuse in this state (checked against legal_actions)."""
    n = len(game.players)
    hand = game.hands[seat]
    stock_top = game.stocks[seat][-1] if game.stocks[seat] else 5
    out: list[tuple[int, object]] = [
        ((seat + 1) % n, Discard(hand[0] if hand else 1, 0)),  # out of turn
        (n, EndTurn()),  # not a player
        (-1, Play("hand", 0, 1, 0, 1)),
        (seat, Discard(stock_top, 0, "stock")),  # a stock card discarded
        (seat, Play("hand", 0, 5, 4, 1)),  # a fifth building pile
        (seat, NextRound()),  # wrong phase
    ]
    for slot, value in enumerate(game.building_values):
        out.append((seat, Play("hand", 0, WILD, slot, value + 2)))  # a wild as the wrong value
        out.append((seat, Play("hand", 0, WILD, slot, value)))
        out.append((seat, Play("stock", 0, stock_top, slot, 13)))  # a 13th card
    if hand:
        out.append((seat, EndTurn()))  # must discard
    return out


@SETTINGS
@given(tables(), st.integers(0, 2**16))
def test_illegal_actions_change_nothing(table: tuple[int, Options, int], rseed: int) -> None:
    """GAME-ILLEGAL-1: refused actions raise a GameError with a key and leave the state untouched."""
    players, options, seed = table
    _, log = random_playout(players, options, seed, check=False)
    rng = random.Random(rseed)
    points = sorted(rng.sample(range(len(log) + 1), k=min(6, len(log) + 1)))
    game = State.new(names(players), seed, options)
    done = 0
    for point in points:
        for seat, action in log[done:point]:
            game.apply(seat, action)
        done = point
        if game.is_over:
            break
        seat = game.seats_to_act()[0]
        legal = set(game.legal_actions(seat)) if game.phase == "play" else set()
        before = game.to_dict()
        phase = game.phase  # (a NextRound accepted between rounds moves the game to the next round)
        for who, bad in _illegal_candidates(game, seat):
            if who == seat and bad in legal:
                continue
            try:
                game.apply(who, bad)  # type: ignore[arg-type]
            except GameError as error:
                assert error.key.startswith("error.")
            else:
                if phase != "round_over" or not isinstance(bad, NextRound):
                    raise AssertionError(f"{bad} by {who} was accepted")
                game = State.from_dict(before)  # NextRound from any seat is legal between rounds
            assert game.to_dict() == before


@SETTINGS
@given(tables())
def test_legal_actions_are_all_accepted(table: tuple[int, Options, int]) -> None:
    """Every action listed by legal_actions is accepted by apply (checked on copies)."""
    players, options, seed = table
    _, log = random_playout(players, options, seed, check=False)
    game = State.new(names(players), seed, options)
    for index, (seat, action) in enumerate(log):
        if index % 17 == 0:
            actions: list[Action] = game.legal_actions(seat)
            assert len(set(actions)) == len(actions)
            for candidate in actions:
                State.from_dict(game.to_dict()).apply(seat, candidate)
        game.apply(seat, action)
