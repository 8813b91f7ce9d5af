"""One test (at least) per Skyjo rule of RULES.md; the rule ID is in each test's name."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.engine.errors import GameError, IllegalMove, InvalidOptions, NotYourTurn, WrongPhase
from bot.games.skyjo import engine as skyjo
from bot.games.skyjo.engine import (
    DECK,
    CardExchanged,
    DiscardAndReveal,
    Draw,
    GameEnded,
    LineCleared,
    NextRound,
    Options,
    Replace,
    Reveal,
    RoundEnded,
    RoundFinishing,
    State,
    TakeDiscard,
    TurnStarted,
    score_round,
)

from .helpers import (
    ALL_UP_BUT_LAST,
    GRID_A,
    GRID_B,
    GRID_C,
    all_cards,
    playing_game,
    set_discard,
    set_grid,
    stack_draw,
)

FULL_DECK = Counter(DECK)


def test_sky_deck_1_the_deck_has_150_cards_with_the_official_counts() -> None:
    assert len(DECK) == 150
    expected = {-2: 5, -1: 10, 0: 15, **{v: 10 for v in range(1, 13)}}
    assert dict(FULL_DECK) == expected
    game = State.new(["a", "b"], 3)
    assert all_cards(game) == FULL_DECK


@pytest.mark.parametrize("count", [2, 5, 8])
def test_sky_players_1_two_to_eight_players_are_accepted(count: int) -> None:
    game = State.new([str(i) for i in range(count)], 1)
    assert len(game.grids) == count


@pytest.mark.parametrize("count", [0, 1, 9])
def test_sky_players_1_other_counts_are_refused(count: int) -> None:
    with pytest.raises(InvalidOptions):
        State.new([str(i) for i in range(count)], 1)


def test_sky_setup_1_each_player_gets_a_4_by_3_face_down_grid() -> None:
    game = State.new(["a", "b", "c"], 11)
    assert game.options.columns == 4 and game.options.rows == 3
    for grid, up in zip(game.grids, game.face_up, strict=True):
        assert len(grid) == 12 and not any(up)
    view = game.view(None)
    assert all(cell == skyjo.HIDDEN for grid in view["grids"] for cell in grid)


def test_sky_setup_1_grid_size_is_an_option_up_to_5_by_4() -> None:
    game = State.new(["a", "b"], 11, Options(columns=5, rows=4))
    assert [len(g) for g in game.grids] == [20, 20]
    with pytest.raises(InvalidOptions):
        State.new(["a", "b"], 11, Options(columns=6, rows=3))
    with pytest.raises(InvalidOptions):
        State.new(["a", "b"], 11, Options(columns=4, rows=5))
    # 8 grids of 20 cards do not fit in 150 cards.
    with pytest.raises(InvalidOptions):
        State.new([str(i) for i in range(8)], 11, Options(columns=5, rows=4))


def test_sky_setup_2_one_card_starts_the_discard_pile_the_rest_is_the_draw_pile() -> None:
    game = State.new(["a", "b", "c", "d"], 5)
    assert len(game.discard_pile) == 1
    assert len(game.draw_pile) == 150 - 4 * 12 - 1
    view = game.view(0)
    assert view["discard_pile"] == game.discard_pile
    assert view["draw_pile_size"] == len(game.draw_pile)
    assert "draw_pile" not in view


def test_sky_setup_3_each_player_reveals_two_cards_in_parallel_before_play() -> None:
    game = State.new(["a", "b", "c"], 9)
    assert game.phase == skyjo.REVEAL and game.turn is None
    assert game.seats_to_act() == [0, 1, 2]
    # Players reveal in any order, independently.
    game.apply(2, Reveal(0))
    game.apply(0, Reveal(5))
    with pytest.raises(WrongPhase):
        game.apply(1, Draw())  # no turns before all reveals are done
    game.apply(2, Reveal(7))
    with pytest.raises(IllegalMove):
        game.apply(2, Reveal(8))  # exactly two
    game.apply(1, Reveal(1))
    game.apply(0, Reveal(6))
    assert game.phase == skyjo.REVEAL
    events = game.apply(1, Reveal(2))
    assert game.phase == skyjo.PLAY
    assert any(isinstance(e, TurnStarted) for e in events)
    assert [sum(up) for up in game.face_up] == [2, 2, 2]


def test_sky_setup_3_the_number_of_reveals_is_an_option() -> None:
    game = State.new(["a", "b"], 9, Options(initial_reveals=3))
    assert game.reveals_left == [3, 3]
    for seat in (0, 1):
        for pos in (0, 4, 8):
            game.apply(seat, Reveal(pos))
    assert game.phase == skyjo.PLAY
    no_reveal = State.new(["a", "b"], 9, Options(initial_reveals=0))
    assert no_reveal.phase == skyjo.PLAY and no_reveal.turn == 0


def _reveal(game: State, picks: dict[int, tuple[int, int]]) -> None:
    for seat, positions in picks.items():
        for pos in positions:
            game.apply(seat, Reveal(pos))


def test_sky_start_1_highest_sum_starts_then_highest_card_then_earliest_seat() -> None:
    game = State.new(["a", "b", "c"], 4)
    set_grid(game, 0, {0: 5, 1: 5})  # sum 10, highest 5
    set_grid(game, 1, {0: 12, 1: -2})  # sum 10, highest 12 -> wins the tie
    set_grid(game, 2, {0: 3, 1: 4})  # sum 7
    _reveal(game, {0: (0, 1), 1: (0, 1), 2: (0, 1)})
    assert game.turn == 1
    # Full tie: the earliest seat.
    game = State.new(["a", "b", "c"], 4)
    for seat in range(3):
        set_grid(game, seat, {0: 6, 1: 2})
    _reveal(game, {2: (0, 1), 1: (0, 1), 0: (0, 1)})
    assert game.turn == 0


def test_sky_start_1_applies_to_every_round() -> None:
    game = playing_game(players=2, options=Options(initial_reveals=2, score_limit=1000))
    game.phase = skyjo.ROUND_OVER
    game.apply(1, NextRound())
    assert game.round == 2 and game.phase == skyjo.REVEAL
    set_grid(game, 0, {0: 1, 1: 1})
    set_grid(game, 1, {0: 9, 1: 9})
    _reveal(game, {0: (0, 1), 1: (0, 1)})
    assert game.turn == 1


def test_sky_start_1_option_previous_finisher_starts() -> None:
    game = playing_game(players=3, options=Options(previous_finisher_starts=True, score_limit=1000), turn=2)
    set_grid(game, 2, GRID_A, ALL_UP_BUT_LAST)
    stack_draw(game, 1)
    game.apply(2, Draw())
    game.apply(2, Replace(11))  # seat 2 finishes
    game.apply(0, Draw())
    game.apply(0, DiscardAndReveal(game.face_down_positions(0)[0]))
    game.apply(1, Draw())
    game.apply(1, DiscardAndReveal(game.face_down_positions(1)[0]))
    assert game.phase == skyjo.ROUND_OVER and game.rounds[-1].finisher == 2
    game.apply(0, NextRound())
    set_grid(game, 0, {0: 12, 1: 12})
    _reveal(game, {0: (0, 1), 1: (0, 1), 2: (0, 1)})
    assert game.turn == 2


def test_sky_start_2_seed_001_worked_example_a_12_and_minus_2_beats_4_and_2() -> None:
    game = State.new(["A", "B"], 21)
    set_grid(game, 0, {0: 12, 1: -2})
    set_grid(game, 1, {0: 4, 1: 2})
    _reveal(game, {1: (0, 1), 0: (0, 1)})
    assert game.turn == 0


def test_sky_order_1_play_goes_round_in_seat_order() -> None:
    game = playing_game(players=4, turn=2)
    order = []
    for _ in range(6):
        seat = game.turn
        assert seat is not None
        order.append(seat)
        game.apply(seat, Draw())
        game.apply(seat, DiscardAndReveal(game.face_down_positions(seat)[0]))
    assert order == [2, 3, 0, 1, 2, 3]


def test_sky_turn_1_taking_the_discard_exchanges_it_face_up() -> None:
    game = playing_game()
    set_grid(game, 0, list(range(1, 13)))
    set_discard(game, -2)
    events = game.apply(0, TakeDiscard(4))
    assert game.grids[0][4] == -2 and game.face_up[0][4]
    assert game.discard_pile[-1] == 5  # the replaced card, now face up on the discard pile
    exchanged = next(e for e in events if isinstance(e, CardExchanged))
    assert (exchanged.value, exchanged.replaced, exchanged.replaced_was_face_up) == (-2, 5, False)
    assert exchanged.source == "discard"
    assert game.turn == 1


def test_sky_turn_1_a_face_up_card_can_be_exchanged_too() -> None:
    game = playing_game()
    set_grid(game, 0, list(range(1, 13)), [True] + [False] * 11)
    set_discard(game, 0)
    game.apply(0, TakeDiscard(0))
    assert game.grids[0][0] == 0 and game.discard_pile[-1] == 1


def test_sky_turn_2_a_drawn_card_is_exchanged_or_discarded_with_a_reveal() -> None:
    game = playing_game()
    set_grid(game, 0, list(range(1, 13)))
    stack_draw(game, 7, 3)
    game.apply(0, Draw())
    assert game.drawn == 7 and game.view(1)["drawn"] == 7
    game.apply(0, Replace(11))
    assert game.grids[0][11] == 7 and game.discard_pile[-1] == 12 and game.drawn is None
    game.apply(1, Draw())
    assert game.drawn == 3
    down = game.face_down_positions(1)[0]
    events = game.apply(1, DiscardAndReveal(down))
    assert game.discard_pile[-1] == 3 and game.face_up[1][down]
    assert [e.type for e in events][:2] == ["card_discarded", "card_revealed"]


def test_sky_turn_2_discard_and_reveal_needs_a_face_down_card() -> None:
    game = playing_game()
    set_grid(game, 0, list(range(1, 13)), [True] + [False] * 11)
    game.apply(0, Draw())
    with pytest.raises(IllegalMove) as info:
        game.apply(0, DiscardAndReveal(0))
    assert info.value.key == "error.card_already_face_up"


def test_sky_turn_3_a_taken_discard_cannot_be_put_back() -> None:
    game = playing_game()
    legal = game.legal_actions(0)
    # Taking the discard is one action that always names the place it goes: there is no way back.
    assert all(isinstance(a, (Draw, TakeDiscard)) for a in legal)
    game.apply(0, Draw())
    assert not any(isinstance(a, TakeDiscard) for a in game.legal_actions(0))
    with pytest.raises(IllegalMove):
        game.apply(0, TakeDiscard(0))


def test_sky_turn_4_after_the_turn_play_passes_to_the_next_seat() -> None:
    game = playing_game(players=3, turn=2)
    game.apply(2, TakeDiscard(0))
    assert game.turn == 0
    with pytest.raises(NotYourTurn):
        game.apply(2, Draw())


def test_sky_draw_1_an_empty_draw_pile_is_rebuilt_from_the_discards_but_the_top() -> None:
    game = playing_game(players=2)
    cards_before = all_cards(game)
    # Move all but one draw card to the discard pile.
    moved = game.draw_pile[:-1]
    game.draw_pile = game.draw_pile[-1:]
    game.discard_pile = moved + game.discard_pile
    top = game.discard_pile[-1]
    events = game.apply(0, Draw())
    assert any(e.type == "draw_pile_rebuilt" for e in events)
    assert game.discard_pile == [top]
    assert len(game.draw_pile) == len(moved)
    assert all_cards(game) == cards_before


def test_sky_col_1_three_equal_face_up_cards_in_a_column_are_removed() -> None:
    game = playing_game()
    set_grid(game, 0, [9, 9, 4, *range(1, 10)], [True, True] + [False] * 10)
    set_discard(game, 9)
    events = game.apply(0, TakeDiscard(2))
    cleared = [e for e in events if isinstance(e, LineCleared)]
    assert [(e.line, e.index, e.value, e.count) for e in cleared] == [("column", 0, 9, 3)]
    assert game.grids[0][:3] == [None, None, None]


def test_sky_col_1_applies_to_minus_two_and_after_a_reveal() -> None:
    game = playing_game()
    set_grid(game, 0, [-2, -2, -2, *range(1, 10)], [True, True, False] + [False] * 9)
    game.apply(0, Draw())
    events = game.apply(0, DiscardAndReveal(2))
    assert any(isinstance(e, LineCleared) and e.value == -2 for e in events)
    assert game.grids[0][:3] == [None, None, None]


def test_sky_col_1_a_column_with_a_face_down_card_stays() -> None:
    game = playing_game()
    set_grid(game, 0, [9, 9, 9, *range(1, 10)], [True, True, False] + [False] * 9)
    set_discard(game, 1)
    game.apply(0, TakeDiscard(3))
    assert game.grids[0][:3] == [9, 9, 9]


def test_sky_col_2_replaced_card_goes_under_the_cleared_column() -> None:
    """Seed 001: the exchanged card goes on the discard pile first, the column's cards on top."""
    game = playing_game()
    set_grid(game, 0, [7, 7, 11, *range(1, 10)], [True, True, True] + [False] * 9)
    set_discard(game, 7)
    game.apply(0, TakeDiscard(2))
    assert game.discard_pile[-4:] == [11, 7, 7, 7]
    assert game.view(1)["discard_pile"][-1] == 7


def test_sky_col_3_a_cleared_column_leaves_a_gap_that_scores_nothing() -> None:
    game = playing_game(players=2)
    set_grid(game, 0, [5, 5, 3, 1, 1, 1, 2, 2, 2, 0, 0, 0], [True, True] + [False] * 10)
    set_discard(game, 5)
    game.apply(0, TakeDiscard(2))
    assert game.view(0)["grids"][0][:3] == [skyjo.GONE] * 3
    # The gap cannot be played into.
    game.apply(1, Draw())
    game.apply(1, DiscardAndReveal(game.face_down_positions(1)[0]))
    with pytest.raises(IllegalMove) as info:
        game.apply(0, TakeDiscard(0))
    assert info.value.key == "error.position_cleared"
    assert all(not isinstance(a, TakeDiscard) or a.pos >= 3 for a in game.legal_actions(0))


def test_sky_col_4_columns_completed_by_the_final_reveal_are_cleared() -> None:
    game = playing_game(players=2, options=Options(initial_reveals=0, score_limit=1000))
    set_grid(game, 0, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [True] * 11 + [False])
    set_grid(game, 1, [8, 8, 8, 0, 0, 1, 1, 1, 2, 2, 2, 3], [True, True, False] + [True] * 9)
    stack_draw(game, 6)
    game.apply(0, Draw())
    events = game.apply(0, Replace(11))  # seat 0 finishes
    assert any(isinstance(e, RoundFinishing) for e in events)
    game.apply(1, TakeDiscard(11))  # seat 1's last turn: takes the 12 over its 3
    assert game.phase == skyjo.ROUND_OVER
    assert game.grids[1][:3] == [None, None, None]
    assert game.rounds[-1].raw_scores[1] == 0 + 0 + 1 + 1 + 1 + 2 + 2 + 2 + 12


def test_sky_row_1_row_clearing_is_off_by_default() -> None:
    game = playing_game()
    set_grid(game, 0, [4, 1, 2, 4, 3, 5, 4, 6, 7, 11, 8, 9], [True] * 9 + [False] * 3)
    set_discard(game, 4)
    game.apply(0, TakeDiscard(9))
    assert game.grids[0][9] == 4 and game.grids[0][0] == 4


def test_sky_row_1_option_clears_a_full_row_of_equal_cards() -> None:
    game = playing_game(options=Options(initial_reveals=0, row_clearing=True))
    set_grid(game, 0, [4, 1, 2, 4, 3, 5, 4, 6, 7, 11, 8, 9], [True] * 9 + [False] * 3)
    set_discard(game, 4)
    events = game.apply(0, TakeDiscard(9))
    cleared = [e for e in events if isinstance(e, LineCleared)]
    assert [(e.line, e.index, e.count) for e in cleared] == [("row", 0, 4)]
    assert [game.grids[0][p] for p in (0, 3, 6, 9)] == [None] * 4


def test_sky_end_1_a_player_with_no_face_down_card_ends_the_round_after_one_more_turn_each() -> None:
    game = playing_game(players=3, turn=1)
    set_grid(game, 1, [3] * 2 + [1] * 9 + [2], [True] * 11 + [False])
    game.apply(1, Draw())
    events = game.apply(1, DiscardAndReveal(11))
    assert game.finisher == 1 and any(isinstance(e, RoundFinishing) for e in events)
    assert game.turn == 2
    game.apply(2, Draw())
    game.apply(2, DiscardAndReveal(game.face_down_positions(2)[0]))
    assert game.turn == 0 and game.phase == skyjo.PLAY
    game.apply(0, Draw())
    events = game.apply(0, DiscardAndReveal(game.face_down_positions(0)[0]))
    assert game.phase == skyjo.ROUND_OVER
    assert any(isinstance(e, RoundEnded) for e in events)


def test_sky_end_2_remaining_cards_are_revealed_and_scored_including_negatives() -> None:
    game = playing_game(players=2)
    set_grid(game, 0, [-2, -1, -1, -2, -1, -1, -1, -2, -1, -1, -1, 0], ALL_UP_BUT_LAST)
    set_grid(game, 1, [5, 6, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4])
    game.apply(0, Draw())
    game.apply(0, DiscardAndReveal(11))
    events = game.apply(1, TakeDiscard(0))
    assert all(
        all(up or v is None for v, up in zip(g, u, strict=True))
        for g, u in zip(game.grids, game.face_up, strict=True)
    )
    revealed = [e for e in events if e.type == "card_revealed"]
    assert len(revealed) == 11 and all(e.how == "final" for e in revealed)  # type: ignore[attr-defined]
    assert game.rounds[-1].raw_scores[0] == -3 * 2 - 8
    assert game.rounds[-1].raw_scores[1] == sum(game.grids[1])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("raw", "finisher", "expected", "doubled"),
    [
        ([10, 24, 10], 0, [20, 24, 10], True),  # seed 001: a tie is not strictly lowest
        ([9, 24, 10], 0, [9, 24, 10], False),  # strictly lowest: kept
        ([15, 12, 30], 0, [30, 12, 30], True),
        ([0, -3, 4], 0, [0, -3, 4], False),  # zero is never doubled
        ([-2, -5, 4], 0, [-2, -5, 4], False),  # negative is never doubled
    ],
)
def test_sky_end_3_finisher_doubled_unless_strictly_lowest(
    raw: list[int], finisher: int, expected: list[int], doubled: bool
) -> None:
    assert score_round(raw, finisher, 2) == (expected, doubled)


@pytest.mark.parametrize(("multiplier", "expected"), [(2, 20), (3, 30), (1, 10)])
def test_sky_end_3_exact_seed_001_round(multiplier: int, expected: int) -> None:
    """SKY-END-3 with the rulebook's numbers: A finishes with 10, B has 24, C has 10 -> A scores 20.

    The multiplier is an option: 3 makes it 30, 1 leaves it at 10 (and nothing is "doubled").
    """
    game = playing_game(players=3, options=Options(initial_reveals=0, finisher_multiplier=multiplier))
    set_grid(game, 0, GRID_A, ALL_UP_BUT_LAST)
    set_grid(game, 1, [*GRID_B[:11], 3], ALL_UP_BUT_LAST)  # 21 showing, a face-down 3: 24
    set_grid(game, 2, GRID_C, ALL_UP_BUT_LAST)
    stack_draw(game, 0, 5, 0)
    game.apply(0, Draw())
    game.apply(0, Replace(11))  # A: 10, no face-down card left
    game.apply(1, Draw())
    game.apply(1, Replace(0))  # B swaps its 5 for the drawn 5: still 24 with the hidden 3
    game.apply(2, Draw())
    game.apply(2, Replace(11))  # C: 10
    result = game.rounds[-1]
    assert result.raw_scores == (10, 24, 10)
    assert result.scores == (expected, 24, 10) and result.finisher == 0
    assert result.doubled is (multiplier != 1)


def test_sky_end_4_round_scores_add_to_totals_negative_ones_lower_them() -> None:
    game = playing_game(players=2, options=Options(initial_reveals=0, score_limit=1000))
    game.totals = [30, 5]
    set_grid(game, 0, [-2, -1, 0, -2, -1, 0, -2, -1, -1, -2, -1, 7], ALL_UP_BUT_LAST)
    set_grid(game, 1, GRID_A, ALL_UP_BUT_LAST)
    stack_draw(game, 0, 0)
    game.apply(0, Draw())
    game.apply(0, Replace(11))  # -13, finisher, never doubled when negative
    game.apply(1, Draw())
    game.apply(1, Replace(0))  # a 0 for a 0: 10 showing plus the hidden 5
    assert game.rounds[-1].scores == (-13, 15)
    assert game.totals == [17, 20]


def _finish_round_with_totals(totals: list[int], limit: int = 100) -> tuple[State, list[object]]:
    """Seat 0 finishes a round scoring 10 (doubled to 20, tied with seat 2), seat 1 21, seat 2 10."""
    game = playing_game(players=3, options=Options(initial_reveals=0, score_limit=limit))
    game.totals = list(totals)
    for seat, grid in enumerate((GRID_A, GRID_B, GRID_C)):
        set_grid(game, seat, grid, ALL_UP_BUT_LAST)
    stack_draw(game, 0, 0, 0)
    events: list[object] = []
    for seat in range(3):
        game.apply(seat, Draw())
        events += game.apply(seat, Replace(11))
    assert game.rounds[-1].scores == (20, 21, 10)
    return game, events


def test_sky_game_1_the_game_ends_after_a_round_when_a_total_reaches_the_limit() -> None:
    game, events = _finish_round_with_totals([80, 0, 0])  # 80 + 20 reaches 100
    assert game.phase == skyjo.GAME_OVER and game.is_over
    assert any(isinstance(e, GameEnded) for e in events)
    with pytest.raises(GameError):
        game.apply(0, Draw())
    game, _ = _finish_round_with_totals([79, 78, 89])  # 99, 99, 99: not yet
    assert game.phase == skyjo.ROUND_OVER and game.totals == [99, 99, 99]
    game, _ = _finish_round_with_totals([10, 0, 0], limit=30)  # the limit is an option
    assert game.is_over and game.totals == [30, 21, 10]


def test_sky_game_1_a_game_never_stops_mid_round() -> None:
    game = playing_game(players=2)
    game.totals = [150, 0]  # already over the limit, but the round is not over yet
    game.apply(0, Draw())
    game.apply(0, DiscardAndReveal(game.face_down_positions(0)[0]))
    assert game.phase == skyjo.PLAY


def test_sky_game_2_lowest_total_wins_and_ties_share() -> None:
    game, events = _finish_round_with_totals([100, 9, 20])  # 120, 30, 30
    ended = next(e for e in events if isinstance(e, GameEnded))
    assert ended.winners == [1, 2]
    results = game.results()
    assert results["winners"] == [1, 2] and results["ranks"] == [3, 1, 1]
    game, _ = _finish_round_with_totals([100, 9, 21])  # 120, 30, 31
    assert game.winners() == [1]


def test_game_illegal_1_wrong_phase_and_bad_positions_change_nothing() -> None:
    game = State.new(["a", "b"], 2)
    before = game.to_dict()
    for seat, action in [
        (0, Draw()),
        (0, NextRound()),
        (0, Reveal(12)),
        (0, Reveal(-1)),
        (5, Reveal(0)),
        (0, TakeDiscard(0)),
    ]:
        with pytest.raises(GameError):
            game.apply(seat, action)
        assert game.to_dict() == before
    with pytest.raises(WrongPhase):
        game.apply(0, NextRound())
