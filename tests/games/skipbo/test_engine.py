"""Skip-Bo engine: one test (at least) per SB-* rule of RULES.md, plus the GAME-* rules."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

from bot.engine.errors import (
    GameError,
    GameOver,
    IllegalMove,
    InvalidOptions,
    MalformedAction,
    NotAPlayer,
    NotYourTurn,
    WrongPhase,
)
from bot.games.registry import get_engine
from bot.games.skipbo import engine as skipbo
from bot.games.skipbo.engine import (
    DECK,
    WILD,
    CardsDrawn,
    Discard,
    DrawPileRefilled,
    EndTurn,
    NextRound,
    Options,
    PileCompleted,
    Play,
    RoundEnded,
    State,
    StockRevealed,
    TurnStarted,
    action_from_dict,
    replay,
)

from .helpers import FULL_DECK, all_cards, names, new, random_playout, rig


def unchanged(game: State, seat: int, action: object, error: type[GameError] = IllegalMove) -> GameError:
    """GAME-ILLEGAL-1: the action is refused with ``error`` and the state does not move."""
    before = game.to_dict()
    with pytest.raises(error) as caught:
        game.apply(seat, action)  # type: ignore[arg-type]
    assert game.to_dict() == before
    return caught.value


# ------------------------------------------------------------------------------------ material


def test_sb_deck_1_162_cards() -> None:
    """SB-DECK-1: twelve of each value 1..12 and 18 Skip-Bo cards, all in the game after the deal."""
    counts = Counter(DECK)
    assert len(DECK) == 162
    assert counts[WILD] == 18
    assert all(counts[v] == 12 for v in range(1, 13))
    game = new(4, seed=3)
    assert all_cards(game) == FULL_DECK
    assert game.card_count == 162


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_sb_players_1_two_to_six(players: int) -> None:
    """SB-PLAYERS-1: 2 to 6 players."""
    assert len(new(players).players) == players


@pytest.mark.parametrize("players", [0, 1, 7])
def test_sb_players_1_refuses_other_counts(players: int) -> None:
    """SB-PLAYERS-1: fewer than 2 or more than 6 players is refused."""
    with pytest.raises(InvalidOptions):
        State.new(names(players), 1)


# ------------------------------------------------------------------------------------ setting up


@pytest.mark.parametrize(("players", "size"), [(2, 30), (3, 30), (4, 30), (5, 20), (6, 20)])
def test_sb_setup_1_stock_sizes(players: int, size: int) -> None:
    """SB-SETUP-1: 30 stock cards with 2 to 4 players, 20 with 5 or 6; the top card is public."""
    game = new(players, seed=7)
    assert [len(s) for s in game.stocks] == [size] * players
    view = game.view(None)
    assert view["stock_sizes"] == [size] * players
    assert view["stock_tops"] == [s[-1] for s in game.stocks]


def test_sb_setup_1_next_stock_card_turned_up() -> None:
    """SB-SETUP-1: when the top stock card is played, the next one is turned face up."""
    game = rig(new(2, seed=5), 0, piles=[0, 0, 0, 0], stock_top=[4, 1])
    under = game.stocks[0][-2]
    events = game.apply(0, Play("stock", 0, 1, 0, 1))
    assert StockRevealed(0, under, len(game.stocks[0])) in events
    assert game.view(1)["stock_tops"][0] == under


def test_sb_setup_2_draw_pile_and_empty_piles() -> None:
    """SB-SETUP-2: the rest is the draw pile; 4 empty building slots; 4 empty discard piles each."""
    game = new(3, seed=11)
    assert len(game.draw_pile) + 5 == 162 - 3 * 30  # the first player has drawn 5
    assert game.building_values == [0, 0, 0, 0]
    assert game.building_piles == [[], [], [], []]
    assert game.discard_piles == [[[], [], [], []] for _ in range(3)]
    assert game.view(0)["draw_pile_size"] == len(game.draw_pile)


def test_sb_start_1_random_first_player_then_seat_order() -> None:
    """SB-START-1: the first player is random (seeded) and play goes on in seat order."""
    firsts = {new(4, seed=s).first for s in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert new(4, seed=9).first == new(4, seed=9).first
    game = new(4, seed=9)
    first = game.first
    assert game.turn == first
    events = game.apply(first, Discard(game.hands[first][0], 0))
    assert TurnStarted((first + 1) % 4) in events
    assert game.turn == (first + 1) % 4


# ------------------------------------------------------------------------------------ a turn


def test_sb_turn_1_draw_up_to_five() -> None:
    """SB-TURN-1: at the start of the turn the player draws until they hold 5 cards."""
    game = new(2, seed=2)
    first = game.first
    other = 1 - first
    assert len(game.hands[first]) == 5
    assert game.hands[other] == []
    game.apply(first, Discard(game.hands[first][0], 0))
    assert len(game.hands[other]) == 5
    # Holding 3 cards at the start of a turn: draws 2.
    game.draw_pile.extend(game.hands[first][3:])
    del game.hands[first][3:]
    events = game.apply(other, Discard(game.hands[other][0], 1))
    assert CardsDrawn(first, 2, "turn") in events
    assert len(game.hands[first]) == 5


def test_sb_turn_2_sources_hand_stock_discard_tops() -> None:
    """SB-TURN-2: cards come from the hand, the stock top and each discard top, one at a time."""
    game = rig(
        new(2, seed=4), 0, hand=[1, 6, 7, 8, 9], stock_top=[2], discards={0: [5, 3]}, piles=[0, 0, 0, 0]
    )
    game.apply(0, Play("hand", 0, 1, 0, 1))
    game.apply(0, Play("stock", 0, 2, 0, 2))
    game.apply(0, Play("discard", 0, 3, 0, 3))
    assert game.building_values[0] == 3
    # The 5 under the 3 is now the top: it may be played only once a 4 is there.
    unchanged(game, 0, Play("discard", 0, 5, 0, 4))
    legal = game.legal_actions(0)
    assert all(a.source in ("hand", "stock", "discard") for a in legal if isinstance(a, Play))


def test_sb_turn_2_card_under_a_discard_top_is_refused() -> None:
    """SB-TURN-2: only the top card of a discard pile may be played."""
    game = rig(new(2, seed=4), 0, hand=[6, 7, 8, 9, 10], discards={1: [1, 4]}, piles=[0, 0, 0, 0])
    error = unchanged(game, 0, Play("discard", 1, 1, 0, 1))
    assert error.key == "error.skipbo.wrong_card"


def test_sb_build_1_starts_with_one_and_goes_up_by_one() -> None:
    """SB-BUILD-1: a pile starts with 1 (or a Skip-Bo card as 1) and goes up by exactly one."""
    game = rig(new(2, seed=8), 0, hand=[2, 1, WILD, 4, 3], piles=[0, 0, 0, 0])
    assert unchanged(game, 0, Play("hand", 0, 2, 0, 2)).key == "error.skipbo.wrong_value"
    game.apply(0, Play("hand", 0, WILD, 0, 1))
    assert game.building_values[0] == 1
    assert unchanged(game, 0, Play("hand", 0, 3, 0, 3)).key == "error.skipbo.wrong_value"
    game.apply(0, Play("hand", 0, 2, 0, 2))
    game.apply(0, Play("hand", 0, 1, 1, 1))
    game.apply(0, Play("hand", 0, 3, 0, 3))
    assert game.building_values == [3, 1, 0, 0]
    assert game.building_piles[0] == [WILD, 2, 3]


def test_sb_build_1_wild_stands_for_the_next_value_only() -> None:
    """SB-BUILD-1: a Skip-Bo card stands for the value the pile needs; any other value is refused."""
    game = rig(new(2, seed=8), 0, hand=[WILD, 9, 9, 9, 9], piles=[4, 0, 0, 0])
    assert unchanged(game, 0, Play("hand", 0, WILD, 0, 7)).key == "error.skipbo.wrong_value"
    assert unchanged(game, 0, Play("hand", 0, WILD, 0, 4)).key == "error.skipbo.wrong_value"
    legal = [a for a in game.legal_actions(0) if isinstance(a, Play)]
    assert Play("hand", 0, WILD, 0, 5) in legal
    assert Play("hand", 0, WILD, 1, 1) in legal
    game.apply(0, Play("hand", 0, WILD, 0, 5))
    assert game.building_values[0] == 5


def test_sb_build_2_complete_pile_is_set_aside() -> None:
    """SB-BUILD-2: at 12 the pile is set aside and its space is free again."""
    game = rig(new(2, seed=6), 0, hand=[12, 1, 9, 9, 9], piles=[11, 3, 0, 0])
    events = game.apply(0, Play("hand", 0, 12, 0, 12))
    assert PileCompleted(0) in events
    assert game.building_values[0] == 0
    assert game.building_piles[0] == []
    assert len(game.set_aside) == 12
    # A 13th card cannot go there: the slot starts again from 1.
    assert unchanged(game, 0, Play("hand", 0, 9, 0, 13)).key == "error.skipbo.wrong_value"
    game.apply(0, Play("hand", 0, 1, 0, 1))
    assert game.building_values[0] == 1
    assert all_cards(game) == FULL_DECK


def test_sb_build_2_at_most_four_piles() -> None:
    """SB-BUILD-2: at most 4 building piles exist at once: no fifth pile, no 1 when four exist."""
    game = rig(new(2, seed=6), 0, hand=[1, WILD, 9, 9, 9], piles=[2, 3, 4, 5])
    assert unchanged(game, 0, Play("hand", 0, 1, 4, 1)).key == "error.skipbo.bad_pile"
    for slot in range(4):
        unchanged(game, 0, Play("hand", 0, 1, slot, 1))
    assert not any(isinstance(a, Play) and a.value == 1 for a in game.legal_actions(0))


def test_sb_turn_3_empty_hand_draws_five_more() -> None:
    """SB-TURN-3: playing the whole hand draws 5 more cards at once, and the turn goes on."""
    game = rig(new(2, seed=12), 0, hand=[1, 2, 3, 4, 5], piles=[0, 0, 0, 0])
    for value in range(1, 5):
        game.apply(0, Play("hand", 0, value, 0, value))
    events = game.apply(0, Play("hand", 0, 5, 0, 5))
    assert CardsDrawn(0, 5, "empty_hand") in events
    assert len(game.hands[0]) == 5
    assert game.turn == 0


def test_sb_turn_4_discard_ends_turn_any_pile_any_card() -> None:
    """SB-TURN-4: discarding a hand card on any own discard pile ends the turn; a Skip-Bo card too."""
    game = rig(new(2, seed=13), 0, hand=[WILD, 3, 7, 7, 12], discards={2: [1]}, piles=[0, 0, 0, 0])
    legal = game.legal_actions(0)
    for card in (WILD, 3, 7, 12):
        for pile in range(4):
            assert Discard(card, pile) in legal
    game.apply(0, Discard(WILD, 2))
    assert game.discard_piles[0][2] == [1, WILD]
    assert game.turn == 1


def test_sb_turn_4_stock_card_cannot_be_discarded() -> None:
    """SB-TURN-4: stock cards can never be discarded."""
    game = rig(new(2, seed=13), 0, hand=[3, 3, 3, 3, 3], stock_top=[9], piles=[0, 0, 0, 0])
    assert unchanged(game, 0, Discard(9, 0, "stock")).key == "error.skipbo.discard_from_hand_only"
    assert unchanged(game, 0, Discard(9, 0)).key == "error.skipbo.card_not_in_hand"
    assert unchanged(game, 0, Discard(3, 4)).key == "error.skipbo.bad_discard_pile"


def test_sb_turn_4_empty_hand_nothing_to_draw_ends_without_discard() -> None:
    """SB-TURN-4: with an empty hand and nothing to draw, the turn ends without a discard."""
    game = rig(new(2, seed=14), 0, hand=[1], piles=[0, 0, 0, 0])
    assert unchanged(game, 0, EndTurn()).key == "error.skipbo.must_discard"
    # Nothing left to draw anywhere.
    game.stocks[1].extend(game.draw_pile)
    game.draw_pile = []
    game.apply(0, Play("hand", 0, 1, 0, 1))
    assert game.hands[0] == []
    assert game.legal_actions(0)[-1] == EndTurn()
    assert not any(isinstance(a, Discard) for a in game.legal_actions(0))
    game.apply(0, EndTurn())
    assert game.turn == 1


def test_sb_draw_1_refill_from_set_aside_piles() -> None:
    """SB-DRAW-1: an empty draw pile is refilled with the completed piles set aside, shuffled."""
    game = rig(new(2, seed=15), 0, hand=[12, 1, 2, 3, 4], piles=[11, 0, 0, 0])
    game.apply(0, Play("hand", 0, 12, 0, 12))
    assert len(game.set_aside) == 12
    aside = Counter(game.set_aside)
    game.stocks[1].extend(game.draw_pile)
    game.draw_pile = []
    game.apply(0, Discard(1, 0))
    # The next player draws 5 from the refilled pile.
    assert len(game.hands[1]) == 5
    assert game.set_aside == []
    assert Counter(game.hands[1] + game.draw_pile) == aside
    assert all_cards(game) == FULL_DECK


def test_sb_draw_1_refill_from_under_the_building_tops() -> None:
    """SB-DRAW-1: with nothing set aside, the cards under each building pile's top are shuffled in."""
    game = rig(new(2, seed=16), 0, hand=[9, 9, 9, 9, 9], piles=[7, 4, 1, 0])
    game.stocks[1].extend(game.draw_pile)
    game.draw_pile = []
    events = game.apply(0, Discard(9, 0))
    assert DrawPileRefilled(6 + 3, "building") in events
    assert [len(p) for p in game.building_piles] == [1, 1, 1, 0]
    assert game.building_values == [7, 4, 1, 0]  # the piles keep their value
    assert len(game.hands[1]) == 5
    assert all_cards(game) == FULL_DECK


def test_sb_draw_1_nothing_to_draw_yields_nothing() -> None:
    """SB-DRAW-1: if nothing at all can be drawn, drawing yields nothing."""
    game = rig(new(2, seed=16), 0, hand=[9, 9, 9, 9, 9], piles=[1, 0, 0, 0])
    game.stocks[1].extend(game.draw_pile)
    game.draw_pile = []
    events = game.apply(0, Discard(9, 0))
    assert not any(isinstance(e, CardsDrawn) for e in events)
    assert game.hands[1] == []
    assert game.turn == 1


def _stalled_table() -> State:
    game = rig(new(3, seed=17), 0, hand=[9], piles=[1, 0, 0, 0])
    for seat in (1, 2):
        game.hands[seat] = [10]
        game.draw_pile.remove(10)
    game.stocks[2].extend(game.draw_pile)
    game.draw_pile = []
    game.stocks = [[*s[:-1], 5] for s in game.stocks]  # nobody can play a stock card (piles need 2 or 1)
    return game


def test_sb_stall_1_full_round_without_play_is_a_draw() -> None:
    """SB-STALL-1: nothing to draw or refill and a full round with no building play: a draw."""
    game = _stalled_table()
    game.apply(0, Discard(9, 0))
    assert game.stall_turns == 1 and not game.is_over
    game.apply(1, Discard(10, 0))
    assert game.stall_turns == 2 and not game.is_over
    events = game.apply(2, Discard(10, 0))
    assert game.is_over and game.is_draw
    assert any(isinstance(e, RoundEnded) and e.stalled for e in events)
    results = game.results()
    assert results["winners"] == [] and results["draw"] is True
    assert results["ranks"] == [1, 1, 1]


def test_sb_stall_1_ends_a_match_of_several_rounds_too() -> None:
    """SB-STALL-1: with several rounds a stall ends the whole match as a draw (it must end)."""
    game = _stalled_table()
    game.options = Options(several_rounds=True)
    game.totals = [125, 0, 0]
    game.apply(0, Discard(9, 0))
    game.apply(1, Discard(10, 0))
    game.apply(2, Discard(10, 0))
    assert game.is_over and game.is_draw
    assert game.results()["totals"] == [125, 0, 0]
    assert game.results()["winners"] == []


def test_sb_stall_1_a_play_resets_the_count() -> None:
    """SB-STALL-1: a card played onto a building pile starts the count again."""
    game = _stalled_table()
    game.hands[1] = [2, 10]
    game.apply(0, Discard(9, 0))
    assert game.stall_turns == 1
    game.apply(1, Play("hand", 0, 2, 0, 2))
    game.apply(1, Discard(10, 1))
    assert game.stall_turns == 0
    assert not game.is_over


def test_sb_win_1_empty_stock_wins_at_once() -> None:
    """SB-WIN-1: the first player whose stock is empty wins at once, even holding cards."""
    game = new(2, seed=18, stock_size=5)
    seat = game.turn
    assert seat is not None
    # Move all but one stock card away, keep the count: the last one is a Skip-Bo card.
    game.draw_pile.extend(game.stocks[seat])
    game.stocks[seat] = []
    game.draw_pile.remove(WILD)
    game.stocks[seat] = [WILD]
    events = game.apply(seat, Play("stock", 0, WILD, 0, 1))
    assert game.is_over
    assert game.winners() == [seat]
    assert game.hands[seat]  # still holding cards
    assert any(isinstance(e, RoundEnded) and e.winners == (seat,) for e in events)
    results = game.results()
    assert results["ranks"][seat] == 1 and results["ranks"][1 - seat] == 2
    assert all_cards(game) == FULL_DECK
    unchanged(game, seat, EndTurn(), GameOver)


# ------------------------------------------------------------------------------------ variants


def _win_round(game: State, seat: int) -> list[skipbo.Event]:
    """Let ``seat`` play its last stock card now (a Skip-Bo card)."""
    game.turn = seat
    game.draw_pile.extend(game.stocks[seat])
    game.stocks[seat] = []
    game.draw_pile.remove(WILD)
    game.stocks[seat] = [WILD]
    slot = game.building_values.index(min(game.building_values))
    return game.apply(seat, Play("stock", 0, WILD, slot, game.building_values[slot] + 1))


def test_sb_var_score_1_several_rounds_to_500() -> None:
    """SB-VAR-SCORE-1: the winner scores 25 + 5 per card in the opponents' stocks; 500 wins."""
    game = new(3, seed=19, several_rounds=True, stock_size=10)
    _win_round(game, 1)
    assert game.phase == "round_over" and not game.is_over
    assert game.totals == [0, 25 + 5 * 20, 0]
    assert game.rounds[-1].scores == (0, 125, 0)
    unchanged(game, 0, Discard(1, 0), WrongPhase)
    assert game.seats_to_act() == [0, 1, 2]
    assert game.legal_actions(2) == [NextRound()]
    game.apply(2, NextRound())
    assert game.round == 2 and game.phase == "play"
    assert [len(s) for s in game.stocks] == [10, 10, 10]
    unchanged(game, 0, NextRound(), WrongPhase)
    for _ in range(2):
        _win_round(game, 1)
        game.apply(0, NextRound())
    assert game.totals == [0, 375, 0]
    _win_round(game, 1)  # 4 rounds of 125: 500 reaches the limit
    assert game.is_over
    results = game.results()
    assert results["winners"] == [1]
    assert results["totals"] == [0, 500, 0]
    assert len(results["rounds"]) == 4
    assert results["ranks"] == [2, 1, 2]


def test_sb_var_team_1_partners_seated_apart() -> None:
    """SB-VAR-TEAM-1: 4 or 6 players, seats alternate between teams, partners apart."""
    four = new(4, teams=True)
    assert [four.partner(s) for s in range(4)] == [2, 3, 0, 1]
    assert four.teams() == [0, 1, 0, 1]
    six = new(6, teams=True)
    assert [six.partner(s) for s in range(6)] == [3, 4, 5, 0, 1, 2]
    assert six.view(0)["partner"] == 3
    for players in (2, 3, 5):
        with pytest.raises(InvalidOptions):
            new(players, teams=True)


def test_sb_var_team_1_play_from_partner_stock_and_discards() -> None:
    """SB-VAR-TEAM-1: the player may play the partner's stock top and discard tops; not an opponent's."""
    game = rig(new(4, seed=20, teams=True), 0, hand=[9, 9, 9, 9, 9], piles=[0, 0, 0, 0])
    game.stocks[2].append(game.draw_pile.pop(game.draw_pile.index(1)))
    game.discard_piles[2][3] = [game.draw_pile.pop(game.draw_pile.index(2))]
    legal = game.legal_actions(0)
    assert Play("partner_stock", 0, 1, 0, 1) in legal
    game.apply(0, Play("partner_stock", 0, 1, 0, 1))
    game.apply(0, Play("partner_discard", 3, 2, 0, 2))
    assert game.building_values[0] == 2
    assert game.discard_piles[2][3] == []
    # Not in a game without teams.
    solo = rig(new(4, seed=20), 0, hand=[9, 9, 9, 9, 9], piles=[0, 0, 0, 0])
    assert unchanged(solo, 0, Play("partner_stock", 0, solo.stocks[2][-1], 0, 1)).key in (
        "error.skipbo.no_partner",
        "error.skipbo.wrong_value",
    )
    solo.stocks[2].append(solo.draw_pile.pop(solo.draw_pile.index(1)))
    assert unchanged(solo, 0, Play("partner_stock", 0, 1, 0, 1)).key == "error.skipbo.no_partner"


def test_sb_var_team_1_team_wins_when_both_stocks_empty() -> None:
    """SB-VAR-TEAM-1: a partner with an empty stock plays on; the team wins with both stocks empty."""
    game = new(4, seed=21, teams=True, stock_size=5)
    game.draw_pile.extend(game.stocks[0] + game.stocks[2])
    game.stocks[0], game.stocks[2] = [], []
    game.draw_pile.remove(WILD)
    game.draw_pile.remove(WILD)
    game.stocks[2] = [WILD, WILD]
    rig(game, 0, hand=[9, 9, 9, 9, 9], piles=[0, 0, 0, 0])
    assert not game.is_over  # seat 0's stock is empty but the team has not won
    game.apply(0, Play("partner_stock", 0, WILD, 0, 1))
    assert not game.is_over
    game.apply(0, Discard(9, 0))  # seat 0 played on with an empty stock
    game.turn = 0
    game.played_this_turn = False
    events = game.apply(0, Play("partner_stock", 0, WILD, 0, 2))
    assert game.is_over
    assert game.winners() == [0, 2]
    assert any(isinstance(e, RoundEnded) and e.winners == (0, 2) for e in events)
    results = game.results()
    assert results["ranks"][0] == results["ranks"][2] == 1
    assert results["ranks"][1] == results["ranks"][3] == 3


def test_sb_var_fast_1_smaller_stock() -> None:
    """SB-VAR-FAST-1: a stock of 5 to 30 cards; other sizes are refused."""
    for size in (5, 12, 30):
        game = new(4, stock_size=size)
        assert [len(s) for s in game.stocks] == [size] * 4
    for size in (4, 31, -1):
        with pytest.raises(InvalidOptions):
            new(4, stock_size=size)
    with pytest.raises(InvalidOptions):
        new(6, stock_size=30)  # 6 stocks of 30 do not fit in 162 cards


# ------------------------------------------------------------------------------------ information


def test_sb_info_1_hand_private_the_rest_public() -> None:
    """SB-INFO-1: a hand is private; stock sizes and tops, discard and building piles are public."""
    game = rig(new(3, seed=22), 0, hand=[1, 2, 3, 4, WILD], discards={1: [8, 7]}, piles=[3, 0, 0, 0])
    game.hands[1] = [game.draw_pile.pop() for _ in range(5)]
    mine, theirs, spectator = game.view(0), game.view(1), game.view(None)
    assert mine["hand"] == sorted(game.hands[0])
    assert theirs["hand"] == sorted(game.hands[1])
    assert spectator["hand"] is None
    for view in (mine, theirs, spectator):
        assert view["hand_sizes"] == [5, 5, 0]
        assert view["stock_sizes"] == [len(s) for s in game.stocks]
        assert view["stock_tops"] == [s[-1] for s in game.stocks]
        assert view["discard_piles"][0][1] == [8, 7]
        assert view["building_piles"] == [3, 0, 0, 0]
        assert "draw_pile" not in view and view["draw_pile_size"] == len(game.draw_pile)
        text = json.dumps(view)
        assert json.loads(text) == view


def test_game_info_1_views_hide_other_hands_and_draw_order() -> None:
    """GAME-INFO-1: a seat's view is the same whatever the other hands and the draw pile order."""
    game = new(4, seed=23)
    for _ in range(30):
        seat = game.seats_to_act()[0]
        game.apply(seat, game.legal_actions(seat)[0])
    assert not game.is_over
    other = State.from_dict(game.to_dict())
    pool = other.draw_pile + other.hands[1] + other.hands[2]
    pool.reverse()
    other.hands[1] = pool[: len(game.hands[1])]
    other.hands[2] = pool[len(game.hands[1]) : len(game.hands[1]) + len(game.hands[2])]
    other.draw_pile = pool[len(game.hands[1]) + len(game.hands[2]) :]
    assert other != game
    assert other.view(0) == game.view(0)
    assert other.view(3) == game.view(3)
    assert other.view(None) == game.view(None)
    assert other.view(1) != game.view(1) or other.hands[1] == game.hands[1]


def test_game_info_1_events_name_no_drawn_card() -> None:
    """GAME-INFO-1: events are public, so the draw events carry a count and never a card."""
    game = new(2, seed=24)
    seat = game.turn
    assert seat is not None
    events = game.apply(seat, Discard(game.hands[seat][0], 0))
    drawn = [e.to_dict() for e in events if isinstance(e, CardsDrawn)]
    assert drawn == [{"type": "cards_drawn", "seat": 1 - seat, "count": 5, "why": "turn"}]


def test_game_rng_1_seeded_and_replayable() -> None:
    """GAME-RNG-1: the same seed deals the same game; replaying the log gives the same state."""
    assert new(4, seed=25) == new(4, seed=25)
    assert new(4, seed=25).stocks != new(4, seed=26).stocks
    options = Options(stock_size=8)
    game, log = random_playout(4, options, seed=27, check=False)
    assert game.refills > 0 or game.turns > 0
    again = replay(names(4), 27, options, log)
    assert again == game
    assert again.to_dict() == game.to_dict()


def test_game_rng_1_engine_uses_no_global_random() -> None:
    """GAME-RNG-1: the global random generator is never used."""
    import random

    random.seed(1)
    state = random.getstate()
    random_playout(3, Options(stock_size=6), seed=28, check=False)
    assert random.getstate() == state


def test_game_illegal_1_out_of_turn_not_a_player_wrong_phase() -> None:
    """GAME-ILLEGAL-1: out of turn, not a player, wrong phase: refused, nothing changes."""
    game = new(3, seed=29)
    seat = game.turn
    assert seat is not None
    other = (seat + 1) % 3
    card = game.hands[seat][0]
    assert unchanged(game, other, Discard(card, 0), NotYourTurn).key == "error.not_your_turn"
    for bad in (3, -1, "0", None):
        assert unchanged(game, bad, Discard(card, 0), NotAPlayer).key == "error.not_a_player"  # type: ignore[arg-type]
    unchanged(game, seat, NextRound(), WrongPhase)
    unchanged(game, seat, "discard", MalformedAction)
    assert game.legal_actions(other) == []
    assert game.legal_actions(7) == []


def test_game_illegal_1_bad_sources_and_cards() -> None:
    """GAME-ILLEGAL-1: a card that does not fit or is not there is refused with a clear reason."""
    game = rig(new(2, seed=30), 0, hand=[5, 5, 5, 5, 5], stock_top=[7], piles=[0, 0, 0, 0])
    cases = [
        (Play("pocket", 0, 1, 0, 1), "error.skipbo.bad_source"),
        (Play("hand", 0, 1, 0, 1), "error.skipbo.card_not_in_hand"),
        (Play("hand", 2, 1, 0, 1), "error.skipbo.bad_source"),
        (Play("stock", 0, 1, 0, 1), "error.skipbo.wrong_card"),
        (Play("discard", 0, 1, 0, 1), "error.skipbo.empty_source"),
        (Play("discard", 9, 1, 0, 1), "error.skipbo.bad_discard_pile"),
        (Play("hand", 0, 13, 0, 13), "error.skipbo.bad_card"),
        (Play("hand", 0, 5, -1, 1), "error.skipbo.bad_pile"),
        (Play("hand", 0, 5, 0, 5), "error.skipbo.wrong_value"),
        (Discard(4, 0), "error.skipbo.card_not_in_hand"),
    ]
    for action, key in cases:
        assert unchanged(game, 0, action).key == key, action


def test_actions_serialise_and_parse() -> None:
    """Every action goes to a dict and back; malformed dicts are refused."""
    for action in (
        Play("discard", 2, WILD, 3, 7),
        Discard(4, 1),
        Discard(9, 0, "stock"),
        EndTurn(),
        NextRound(),
    ):
        assert action_from_dict(json.loads(json.dumps(action.to_dict()))) == action
    assert action_from_dict({"type": "discard", "card": 3, "pile": 1}) == Discard(3, 1)
    bad: object
    for bad in (
        None,
        [],
        {"type": "fly"},
        {"type": "end_turn", "x": 1},
        {"type": "play", "source": "hand", "index": 0, "card": 1, "pile": 0},
        {"type": "play", "source": 3, "index": 0, "card": 1, "pile": 0, "value": 1},
        {"type": "play", "source": "hand", "index": 0, "card": "1", "pile": 0, "value": 1},
        {"type": "discard", "card": True, "pile": 0},
        {"type": "discard", "card": 1, "pile": 0, "extra": 1},
    ):
        with pytest.raises(MalformedAction):
            action_from_dict(bad)


def test_options_round_trip_and_validation() -> None:
    options = Options(stock_size=12, teams=True, several_rounds=True, score_limit=300)
    assert Options.from_dict(options.to_dict()) == options
    with pytest.raises(InvalidOptions):
        Options.from_dict({"stock": 3})
    with pytest.raises(InvalidOptions):
        new(2, score_limit=0)
    with pytest.raises(InvalidOptions):
        new(2, teams=1)


def test_get_engine_and_no_discord_import() -> None:
    assert get_engine("skipbo") is skipbo
    code = "import sys, bot.games.skipbo.engine; print('discord' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
