"""Skip-Bo computer players: legal, blind to hidden cards, deterministic, and hard plays with a plan."""

from __future__ import annotations

import random

import pytest

from bot.games.skipbo import ai, engine
from bot.games.skipbo.engine import WILD, Discard, NextRound, Options, Play, State
from bot.games.skipbo.hard import _threat_by_value
from bot.sim.common import play_game

from .helpers import names, new, rig

LEVELS = sorted(ai.LEVELS)


def positions(seed: int, players: int, options: Options, every: int = 3) -> list[State]:
    """Copies of the positions met in a game of mixed levels (one every ``every`` actions)."""
    game = State.new(names(players), seed, options)
    policies = [ai.LEVELS[LEVELS[(seed + s) % 3]] for s in range(players)]
    rng = random.Random(seed)
    out: list[State] = []
    for step in range(5000):
        if game.is_over:
            break
        seat = game.seats_to_act()[0]
        if step % every == 0:
            out.append(State.from_dict(game.to_dict()))
        game.apply(seat, policies[seat](game.view(seat), rng))
    return out


TABLES = [
    (2, Options(stock_size=10)),
    (3, Options(stock_size=8, several_rounds=True, score_limit=100)),
    (4, Options(stock_size=10)),
    (4, Options(stock_size=8, teams=True)),
    (6, Options(stock_size=6, teams=True)),
]


@pytest.mark.parametrize(("players", "options"), TABLES)
def test_every_decision_is_legal(players: int, options: Options) -> None:
    """On many seeded positions every level picks one of the legal actions."""
    checked = 0
    for seed in range(3):
        for game in positions(seed, players, options):
            seat = game.seats_to_act()[0]
            legal = game.legal_actions(seat)
            for level in LEVELS:
                action = ai.LEVELS[level](game.view(seat), random.Random(seed))
                assert action in legal, (level, action)
                checked += 1
    assert checked > 100


def _shuffle_hidden(game: State, viewer: int, rng: random.Random) -> State:
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


def test_decisions_ignore_hidden_cards() -> None:
    """GAME-INFO-1: two states differing only in other hands and the draw order get the same move."""
    differing = 0
    for seed in range(3):
        for game in positions(seed, 4, Options(stock_size=10), every=4):
            seat = game.seats_to_act()[0]
            other = _shuffle_hidden(game, seat, random.Random(seed))
            differing += other.hands != game.hands or other.draw_pile != game.draw_pile
            for level in LEVELS:
                a = ai.LEVELS[level](game.view(seat), random.Random(7))
                b = ai.LEVELS[level](other.view(seat), random.Random(7))
                assert a == b, level
    assert differing > 10


@pytest.mark.parametrize("level", LEVELS)
def test_deterministic_for_a_seed(level: str) -> None:
    """The same seed gives the same whole game, decision by decision."""
    policies = [ai.LEVELS[level], ai.LEVELS["normal"], ai.LEVELS["easy"]]
    options = Options(stock_size=8)
    first = play_game(engine, policies, 41, options)
    second = play_game(engine, policies, 41, options)
    assert first == second
    assert first.is_over


def test_between_rounds_every_level_deals() -> None:
    game = new(2, seed=3, several_rounds=True)
    game.phase = "round_over"
    for level in LEVELS:
        assert ai.LEVELS[level](game.view(1), random.Random(0)) == NextRound()


# ------------------------------------------------------------------------------------ hard


def hard(game: State, seat: int = 0) -> engine.Action:
    return ai.decide_hard(game.view(seat), random.Random(0))


def test_hard_plays_the_stock_card_first() -> None:
    game = rig(new(2, seed=50), 0, hand=[3, 4, 9, 10, 11], stock_top=[6], piles=[5, 2, 0, 0])
    assert hard(game) == Play("stock", 0, 6, 0, 6)


def test_hard_chains_through_hand_discards_and_wilds_to_free_the_stock() -> None:
    """hard finds hand 5 -> discard 6 -> (7 under the 6 is not needed) -> Skip-Bo as 7 -> stock 8."""
    game = rig(
        new(2, seed=51),
        0,
        hand=[5, WILD, 11, 11, 12],
        stock_top=[8],
        discards={0: [7, 6], 1: [2]},
        piles=[4, 0, 0, 0],
    )
    plan = []
    for _ in range(5):
        action = hard(game)
        plan.append(action)
        game.apply(0, action)
        if isinstance(action, Play) and action.source == "stock":
            break
    assert plan[-1] == Play("stock", 0, 8, 0, 8)
    # It reached the stock with no Skip-Bo card: 5 (hand), 6 and 7 (discard pile 1).
    assert all(isinstance(p, Play) and p.card != WILD for p in plan)
    assert game.hands[0].count(WILD) == 1


def test_hard_uses_a_wild_for_the_stock_only() -> None:
    """hard keeps its Skip-Bo card when it cannot free the stock card with it."""
    game = rig(new(2, seed=52), 0, hand=[WILD, 9, 9, 10, 10], stock_top=[12], piles=[3, 0, 0, 0])
    game.stocks[1][-1], game.draw_pile[0] = 1, game.stocks[1][-1]
    action = hard(game)
    assert not (isinstance(action, Play) and action.card == WILD)
    # With the stock card one away, the Skip-Bo card is played for it.
    game = rig(new(2, seed=52), 0, hand=[WILD, 9, 9, 10, 10], stock_top=[5], piles=[3, 0, 0, 0])
    assert hard(game) == Play("hand", 0, WILD, 0, 4)


def test_hard_does_not_feed_the_next_players_stock() -> None:
    """hard avoids leaving a building pile just below the next player's stock card."""
    game = rig(new(3, seed=53), 0, hand=[7, 9, 9, 11, 11], stock_top=[2], piles=[6, 10, 10, 10])
    # The next player needs an 8: playing the 7 would hand them the pile.
    game.stocks[1].append(game.draw_pile.pop(game.draw_pile.index(8)))
    game.stocks[2].append(game.draw_pile.pop(game.draw_pile.index(12)))
    action = hard(game)
    assert action != Play("hand", 0, 7, 0, 7)
    assert isinstance(action, Discard) or (isinstance(action, Play) and action.card != 7)
    # The normal player does play it.
    assert ai.decide_normal(game.view(0), random.Random(0)) == Play("hand", 0, 7, 0, 7)


def test_hard_keeps_discard_piles_descending() -> None:
    """hard discards onto an equal or a higher top rather than burying a lower card."""
    game = rig(
        new(2, seed=54),
        0,
        hand=[6, WILD, 12, 12, 12],
        stock_top=[1],
        discards={0: [3], 1: [9], 2: [12, 11], 3: [2]},
        piles=[4, 4, 4, 4],
    )
    game.stocks[0][-1] = 1  # not playable: every pile needs a 5
    action = hard(game)
    assert isinstance(action, Discard)
    assert action.card != WILD
    top = game.discard_piles[0][action.pile][-1]
    assert top >= action.card


def test_hard_puts_a_wild_stock_card_where_the_next_one_can_follow() -> None:
    """With a Skip-Bo card on its stock, hard puts it where its hand can climb on (8, then 9 10 11
    from the hand) rather than on the first pile it fits: the next stock card is likelier to play."""
    game = rig(new(2, seed=55), 0, hand=[9, 10, 11, 11, 12], stock_top=[WILD], piles=[2, 7, 0, 0])
    assert hard(game) == Play("stock", 0, WILD, 1, 8)


def test_hard_counts_an_opponents_discard_tops_as_their_way_to_the_stock() -> None:
    """An opponent with stock card 9 and discard tops 8 and 7 needs no other card from a pile at 6
    (they play 7, 8 from the discard piles, then the stock card); with bare discard piles a pile at 6
    leaves them two cards short, and a pile above 8 does not help them at all."""
    bridged = _threat_by_value(9, [[8], [12, 7], [], []])
    bare = _threat_by_value(9, [[], [], [], []])
    assert bridged[8] == bare[8] == 1.0
    assert bridged[6] == 1.0 > bare[6] > 0.0
    assert bridged[5] > bare[5]
    assert bridged[9] == bare[9] == bridged[11] == 0.0


def starved_position(
    starved: bool,
    hand: list[int],
    piles: tuple[int, ...] = (2, 2, 2, 2),
    discards: dict[int, list[int]] | None = None,
) -> State:
    """Seat 0 to play with these cards and stock card 10; with ``starved`` nothing is left to draw
    (every card of the draw pile goes onto the other player's discard piles)."""
    game = rig(new(2, seed=56), 0, hand=hand, stock_top=[10], piles=piles, discards=discards)
    if starved:
        game.discard_piles[1][0].extend(game.draw_pile)
        game.draw_pile.clear()
        assert game.view(0)["draw_pile_size"] == game.view(0)["set_aside_size"] == 0
    return game


def test_hard_plays_rather_than_let_a_starved_game_stall() -> None:
    """SB-STALL-1 ends a game nobody can play on as a draw, which nobody wins. With nothing left to
    draw, hard plays its Skip-Bo card rather than end its turn without a building play; with cards
    left to draw it keeps the Skip-Bo card for its stock."""
    plenty = hard(starved_position(False, [WILD, 5, 12]))
    assert isinstance(plenty, Discard) and plenty.card != WILD
    assert hard(starved_position(True, [WILD, 5, 12])) == Play("hand", 0, WILD, 0, 3)


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_easy_and_normal_play_a_wild_rather_than_let_a_starved_game_stall(level: str) -> None:
    """SB-STALL-1 again: easy and normal keep their Skip-Bo cards for the stock, except with nothing
    left to draw and no building play yet this turn. Then, with no number card to play, they play
    one (from the hand, else a discard top) onto the highest pile a card they hold can follow (6,
    which the 8 follows, rather than 11), else onto the highest pile."""
    policy = ai.LEVELS[level]
    for seed in range(5):  # easy's discard is random: never a building play, whatever the seed
        action = policy(starved_position(False, [WILD, 5, 12]).view(0), random.Random(seed))
        assert not isinstance(action, Play), action
    assert policy(starved_position(True, [WILD, 5, 12]).view(0), random.Random(0)) == Play(
        "hand", 0, WILD, 0, 3
    )
    followed = starved_position(True, [WILD, 8], piles=(2, 6, 11, 0))
    assert policy(followed.view(0), random.Random(0)) == Play("hand", 0, WILD, 1, 7)
    highest = starved_position(True, [5], piles=(2, 6, 11, 0), discards={2: [5, WILD]})
    assert policy(highest.view(0), random.Random(0)) == Play("discard", 2, WILD, 2, 12)
    played = starved_position(True, [WILD, 12])
    played.played_this_turn = True  # a building play was made this turn: the game moves on
    assert not isinstance(policy(played.view(0), random.Random(0)), Play)


def test_easy_plays_a_number_card_rather_than_let_a_starved_game_stall() -> None:
    """easy sometimes keeps a number card it could play (``EASY_PLAYS``), but never when nothing is
    left to draw and it has not played yet this turn."""
    kept = [
        ai.decide_easy(starved_position(False, [3, 12]).view(0), random.Random(seed)) for seed in range(40)
    ]
    assert any(not isinstance(a, Play) for a in kept)
    for seed in range(40):
        action = ai.decide_easy(starved_position(True, [3, 12]).view(0), random.Random(seed))
        assert isinstance(action, Play) and action.card == 3, action


def test_the_look_ahead_models_normal_keeping_a_starved_game_alive() -> None:
    """hard's model of normal (``World.normal_turn``) plays the Skip-Bo card as normal does: with
    nothing to draw, onto the pile at 6 (then the 8 from the hand, and the 10 is discarded); with
    cards to draw (two 4s come, which fit nowhere) it keeps it and discards the 10."""
    from bot.games.skipbo.lookahead import Seat, World

    for drawable, piles, hand in ((0, [2, 8, 11, 0], []), (30, [2, 6, 11, 0], [WILD, 4, 4, 8])):
        seat = Seat([WILD, 8, 10], 5, 10, [[], [], [], []])
        world = World([2, 6, 11, 0], [seat], [4] * 30, drawable)
        assert world.normal_turn(seat) == (0, False)
        assert (world.piles, sorted(seat.hand), seat.discards[0]) == (piles, sorted(hand), [10])


def test_four_normal_players_never_stall() -> None:
    """Before normal played Skip-Bo cards to keep a starved game going, about one game of four
    normal players in nine ended in a stall (11.3 % of 1000 on seed 2); now none of 40 seeded games does."""
    policies = [ai.LEVELS["normal"]] * 4
    results = [play_game(engine, policies, seed, Options()) for seed in range(40)]
    assert all(game.is_over and len(game.winners()) == 1 for game in results)


@pytest.mark.parametrize("level", LEVELS)
def test_levels_finish_a_team_game(level: str) -> None:
    """Every level copes with the team sources (partner's stock and discard piles)."""
    policies = [ai.LEVELS[level]] * 4
    game = play_game(engine, policies, 5, Options(stock_size=6, teams=True))
    assert game.is_over
    assert game.results()["draw"] or len(game.winners()) == 2


def test_legal_actions_list_the_plays_first() -> None:
    """State.legal_actions lists every play before the discards (or the end of the turn): the
    random players of ``python -m bench skipbo`` find the plays by bisection on that order."""
    checked = 0
    for seed in range(2):
        for game in positions(seed, 4, Options(stock_size=8, teams=seed == 1), every=1):
            seat = game.seats_to_act()[0]
            kinds = [type(a) is Play for a in game.legal_actions(seat)]
            assert kinds == sorted(kinds, reverse=True)
            checked += any(kinds)
    assert checked > 20


# ------------------------------------------------------------------------------------ hard's look-ahead


def test_hard_look_ahead_reads_only_the_view() -> None:
    """GAME-INFO-1 for the look-ahead: it samples the hidden cards from the view's unseen pool, so two
    states differing only in other hands, the draw order and the stocks under their tops get the
    same decision (with the same generator)."""
    differing = 0
    for seed in range(4):
        for game in positions(seed, 4, Options(stock_size=12), every=2):
            seat = game.seats_to_act()[0]
            other = _shuffle_hidden(game, seat, random.Random(seed + 100))
            for s in range(4):  # the stocks below their top cards are hidden too
                below = other.stocks[s][:-1]
                random.Random(seed + s).shuffle(below)
                other.stocks[s][:-1] = below
            assert other.view(seat) == game.view(seat)
            differing += other.to_dict() != game.to_dict()
            a = ai.decide_hard(game.view(seat), random.Random(11))
            b = ai.decide_hard(other.view(seat), random.Random(11))
            assert a == b
    assert differing > 20


def test_unseen_pool_matches_the_hidden_cards_in_size() -> None:
    """The unseen pool is the full deck minus what the viewer sees: as many cards as the other
    hands, the stocks below their tops and the draw pile hold together (the building and set-aside
    piles are taken out as runs of number cards)."""
    from bot.games.skipbo.lookahead import unseen_pool

    for game in positions(2, 4, Options(stock_size=12), every=5):
        seat = game.seats_to_act()[0]
        hidden = (
            sum(len(h) for s, h in enumerate(game.hands) if s != seat)
            + sum(max(0, len(s) - 1) for s in game.stocks)
            + len(game.draw_pile)
        )
        assert len(unseen_pool(game.view(seat))) == hidden


def test_hard_beats_normal_on_a_fixed_sample() -> None:
    """hard against three normal players (short stocks to stay fast): a random seat would win a
    quarter of the games (25 of 100); hard must win at least 30 and more than any normal seat."""
    policies = [ai.LEVELS["hard"]] + [ai.LEVELS["normal"]] * 3
    wins = [0] * 4
    for seed in range(100):
        game = play_game(engine, policies, seed, Options(stock_size=10))
        for seat in game.winners():
            wins[seat] += 1
    assert wins[0] >= 30, wins
    assert wins[0] > max(wins[1:]), wins
