"""The Skip-Bo panel fits Discord's limits, offers exactly the legal moves in two clicks at most, and
shows a hand only to its owner (SB-INFO-1, GAME-INFO-1)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.games.skipbo.engine import (
    DISCARD,
    HAND,
    PARTNER_DISCARD,
    PARTNER_STOCK,
    STOCK,
    WILD,
    Action,
    Discard,
    EndTurn,
    NextRound,
    Options,
    Play,
    State,
)
from bot.games.skipbo.panel import (
    ACT_OF_SOURCE,
    END_TURN,
    GAME_ACTS,
    MODE,
    MODE_END,
    MODE_HAND,
    MODE_MAIN,
    MODE_PARTNER_STOCK,
    MODE_STOCK,
    MODES,
    NEXT_ROUND,
    PREFIX,
    REFRESH,
    ButtonSpec,
    action_for,
    discard_arg,
    panel_hint,
    panel_rows,
    play_arg,
)
from bot.games.skipbo.panel import (
    DISCARD as DISCARD_ACT,
)
from bot.games.skyjo.panel import MODE as SKYJO_MODE
from bot.games.skyjo.panel import NEXT_ROUND as SKYJO_NEXT_ROUND
from bot.games.skyjo.panel import REFRESH as SKYJO_REFRESH
from bot.ui.ids import MAX_CUSTOM_ID, MAX_LABEL, MAX_PER_ROW, MAX_ROWS, decode

from .helpers import names, new, rig, take

GAME_ID = 123_456_789_012_345_678  # 18 digits: the longest custom_id
VERSION = 999_999_999
NAMES = ["Alice", "Bob", "Chloé", "Denis", "Émile", "Fanny"]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def states(draw: st.DrawFn) -> State:
    """A state reached by random legal play: 2-6 players, teams on or off, small to full stocks."""
    teams = draw(st.booleans())
    players = draw(st.sampled_from([4, 6])) if teams else draw(st.integers(2, 6))
    limit = 25 if players <= 4 else 22
    options = Options(
        stock_size=draw(st.sampled_from([0, 5, 8, 12, limit])),
        teams=teams,
        several_rounds=draw(st.booleans()),
        score_limit=draw(st.sampled_from([60, 200])),
    )
    seed = draw(st.integers(0, 2**32))
    steps = draw(st.integers(0, 400))
    plays_first = draw(st.sampled_from([0.3, 0.9, 1.0]))
    stop_between_rounds = draw(st.booleans())
    game = State.new(names(players), seed, options)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over or (stop_between_rounds and game.phase == "round_over"):
            break
        seat = game.seats_to_act()[0]
        actions = game.legal_actions(seat)
        plays = [a for a in actions if isinstance(a, Play)]
        game.apply(seat, rng.choice(plays if plays and rng.random() < plays_first else actions))
    return game


def _buttons(layout: list[list[ButtonSpec]]) -> list[ButtonSpec]:
    return [b for row in layout for b in row]


def _check_limits(layout: list[list[ButtonSpec]]) -> None:
    assert 1 <= len(layout) <= MAX_ROWS
    ids = [b.custom_id for b in _buttons(layout)]
    assert len(ids) == len(set(ids)), "custom_ids must be unique on a message"
    for row in layout:
        assert 1 <= len(row) <= MAX_PER_ROW
        for button in row:
            assert len(button.custom_id) <= MAX_CUSTOM_ID
            assert 0 < len(button.label) <= MAX_LABEL
            assert button.style in ("primary", "secondary", "success", "danger")
            parsed = decode(button.custom_id)
            assert parsed is not None and parsed.prefix == PREFIX and parsed.version == VERSION
            if parsed.act == MODE:
                assert parsed.arg in MODES


def _enabled(layout: list[list[ButtonSpec]]) -> list[tuple[str, int]]:
    out = []
    for button in _buttons(layout):
        if not button.disabled:
            parsed = decode(button.custom_id)
            assert parsed is not None
            out.append((parsed.act, parsed.arg))
    return out


def _hand_buttons(layout: list[list[ButtonSpec]]) -> int:
    """Buttons standing for a hand card: a hand-card mode, or a hand slot's refresh."""
    count = 0
    for button in _buttons(layout):
        parsed = decode(button.custom_id)
        assert parsed is not None
        if (parsed.act == MODE and MODE_HAND <= parsed.arg < MODE_STOCK) or (
            parsed.act == REFRESH and 10 <= parsed.arg < 15
        ):
            count += 1
    return count


def _panel(game: State, seat: int, mode: int = MODE_MAIN, locale: object = None) -> list[list[ButtonSpec]]:
    return panel_rows(game.view(seat), seat, GAME_ID, VERSION, mode, locale)


def _reachable(game: State, seat: int) -> tuple[set[Action], set[int]]:
    """The actions reachable in at most two clicks from the main panel, and the modes visited."""
    actions: set[Action] = set()
    modes = {MODE_MAIN}
    for act, arg in _enabled(_panel(game, seat)):
        if act == MODE:
            modes.add(arg)
        elif act in GAME_ACTS:
            action = action_for(act, arg)
            assert action is not None
            actions.add(action)
    for mode in modes - {MODE_MAIN}:
        for act, arg in _enabled(_panel(game, seat, mode)):
            if act in GAME_ACTS:
                action = action_for(act, arg)
                assert action is not None
                actions.add(action)
    return actions, modes


@SETTINGS
@given(states(), st.sampled_from(["en-US", "fr"]))
def test_every_panel_fits_discord_and_offers_exactly_the_legal_moves(game: State, locale: str) -> None:
    """GAME-ILLEGAL-1 from the panel's side: every enabled button is legal, every legal Play and Discard
    (and End turn, Next round) is at most two clicks away; every layout fits Discord."""
    for seat in range(len(game.players)):
        legal = set(game.legal_actions(seat))
        # Every mode, even ones the panel never offers now (a stale or forged mode), fits and is safe.
        modes = MODES if seat == game.turn else {MODE_MAIN, MODE_END, MODE_STOCK, MODE_HAND + WILD}
        for mode in modes:
            layout = _panel(game, seat, mode, locale)
            _check_limits(layout)
            for act, arg in _enabled(layout):
                if act in GAME_ACTS:
                    assert action_for(act, arg) in legal, (mode, act, arg)
        reachable, _ = _reachable(game, seat)
        assert reachable == legal
        # The hand only in its owner's panel.
        hand_size = len(game.hands[seat])
        assert _hand_buttons(_panel(game, seat)) == hand_size
        other = (seat + 1) % len(game.players)
        for view in (game.view(None), game.view(other)):
            assert _hand_buttons(panel_rows(view, seat, GAME_ID, VERSION, MODE_MAIN, locale)) == 0
        assert panel_hint(game.view(seat), seat, NAMES, MODE_MAIN, locale)


@SETTINGS
@given(states())
def test_the_panel_reads_nothing_of_the_other_hands(game: State) -> None:
    """SB-INFO-1: shuffling the other players' hands with the draw pile changes nobody else's panel."""
    seat = game.seats_to_act()[0] if game.seats_to_act() else 0
    before = {mode: _panel(game, seat, mode) for mode in (MODE_MAIN, MODE_END, MODE_STOCK)}
    rng = random.Random(7)
    for other, hand in enumerate(game.hands):
        if other != seat and hand and game.draw_pile:
            pool = hand + game.draw_pile
            rng.shuffle(pool)
            game.hands[other], game.draw_pile = pool[: len(hand)], pool[len(hand) :]
    assert before == {mode: _panel(game, seat, mode) for mode in before}


def _rigged(**kwargs: Any) -> State:
    game = new(2, seed=3)
    return rig(game, 0, **kwargs)


def _targets(layout: list[list[ButtonSpec]]) -> dict[int, Action]:
    """The enabled plays of a layout, by building slot."""
    out: dict[int, Action] = {}
    for act, arg in _enabled(layout):
        action = action_for(act, arg)
        if isinstance(action, Play):
            out[action.pile] = action
    return out


def test_sb_build_1_only_the_piles_that_accept_a_hand_card_are_enabled() -> None:
    game = _rigged(hand=[3, 5, 5, 9, 12], piles=[2, 4, 0, 8])
    mode = MODE_HAND + 3
    layout = _panel(game, 0, mode)
    assert _targets(layout) == {0: Play(HAND, 0, 3, 0, 3)}
    # The 5s are two buttons with distinct ids; either copy selects a 5.
    second_five = MODE_HAND + 20 + 5
    assert second_five in {arg for act, arg in _enabled(_panel(game, 0)) if act == MODE}
    assert _targets(_panel(game, 0, second_five)) == {1: Play(HAND, 0, 5, 1, 5)}
    # A hand card that fits nowhere can still be discarded, on any of the 4 discard piles.
    stuck = _panel(game, 0, MODE_HAND + 12)
    assert _targets(stuck) == {}
    discards = {action_for(a, g) for a, g in _enabled(stuck) if a == DISCARD_ACT}
    assert discards == {Discard(12, p) for p in range(4)}
    assert "12" in panel_hint(game.view(0), 0, NAMES, MODE_HAND + 12)


def test_sb_build_1_a_skipbo_card_fits_every_pile_as_the_value_it_needs() -> None:
    game = _rigged(hand=[WILD, 7], piles=[0, 4, 11, 6])
    layout = _panel(game, 0, MODE_HAND + WILD)
    assert _targets(layout) == {
        0: Play(HAND, 0, WILD, 0, 1),
        1: Play(HAND, 0, WILD, 1, 5),
        2: Play(HAND, 0, WILD, 2, 12),
        3: Play(HAND, 0, WILD, 3, 7),
    }
    labels = [b.label for b in _buttons(layout)]
    assert "▶ SB" in labels and "Pile 3: 11 → 12" in labels


def test_sb_turn_2_stock_and_discard_tops_are_sources() -> None:
    game = _rigged(hand=[10, 10, 10, 10, 10], stock_top=[1], discards={2: [9, 4]}, piles=[3, 0, 0, 0])
    main = _enabled(_panel(game, 0))
    assert (MODE, MODE_STOCK) in main and (MODE, 212) in main
    assert _targets(_panel(game, 0, MODE_STOCK)) == {s: Play(STOCK, 0, 1, s, 1) for s in (1, 2, 3)}
    assert _targets(_panel(game, 0, 212)) == {0: Play(DISCARD, 2, 4, 0, 4)}
    # A top that fits nowhere is not a source; an empty discard pile neither.
    assert (MODE, 210) not in main
    assert _targets(_panel(game, 0, 210)) == {}  # a stale mode shows the main panel


def test_sb_var_team_1_the_partners_tops_are_sources_too() -> None:
    game = new(4, seed=5, teams=True)
    rig(game, 1, hand=[10, 10, 10, 10, 10], piles=[0, 0, 0, 0])
    game.stocks[3].append(take(game, WILD))
    game.discard_piles[3][1] = [take(game, 1)]
    layout = _panel(game, 1)
    assert len(layout) == 5  # hand, own piles, partner's piles, building piles, actions
    main = _enabled(layout)
    assert (MODE, MODE_PARTNER_STOCK) in main and (MODE, 311) in main
    assert _targets(_panel(game, 1, MODE_PARTNER_STOCK)) == {
        s: Play(PARTNER_STOCK, 0, WILD, s, 1) for s in range(4)
    }
    assert _targets(_panel(game, 1, 311)) == {s: Play(PARTNER_DISCARD, 1, 1, s, 1) for s in range(4)}
    # The partner (not on turn) sees the same piles, all disabled, and a hint naming the player.
    assert all(act not in GAME_ACTS for act, _ in _enabled(_panel(game, 3)))
    assert "partner" in panel_hint(game.view(3), 3, NAMES[:4])
    assert "Bob" in panel_hint(game.view(3), 3, NAMES[:4])


def test_sb_turn_4_end_turn_leads_to_a_discard_and_with_an_empty_hand_ends_the_turn() -> None:
    game = _rigged(hand=[6, 8], piles=[0, 0, 0, 0])
    main = _enabled(_panel(game, 0))
    assert (MODE, MODE_END) in main
    ending = _panel(game, 0, MODE_END)
    assert {a for a, _ in _enabled(ending)} == {MODE, REFRESH}  # hand cards, Cancel, Refresh
    assert "discard" in panel_hint(game.view(0), 0, NAMES, MODE_END).lower()
    game.draw_pile.extend(game.hands[0])
    game.hands[0] = []
    game.draw_pile, spare = [], game.draw_pile
    game.set_aside.extend(spare)  # keep the cards, but nothing to draw: the hint says so
    assert (END_TURN, 0) in _enabled(_panel(game, 0))
    assert action_for(END_TURN, 0) == EndTurn()


def test_round_over_offers_next_round_to_everyone() -> None:
    game = new(3, seed=4, stock_size=5, several_rounds=True, score_limit=500)
    rng = random.Random(4)
    while game.phase == "play":
        seat = game.seats_to_act()[0]
        plays = [a for a in game.legal_actions(seat) if isinstance(a, Play)]
        game.apply(seat, rng.choice(plays or game.legal_actions(seat)))
    assert game.phase == "round_over"
    for seat in range(3):
        assert (NEXT_ROUND, 0) in _enabled(_panel(game, seat))
        assert "Next round" in panel_hint(game.view(seat), seat, NAMES)
    assert action_for(NEXT_ROUND, 0) == NextRound()


@pytest.mark.parametrize(
    ("act", "arg"),
    [
        ("ph", -1),
        ("ph", 1000),  # a hand card has no discard index
        ("ps", 2005),
        ("pd", 4005),  # discard pile 5 does not exist
        ("pd", 405),  # building pile 5 does not exist
        ("pd", 13),  # card 13
        ("pd", 0),  # card 0 is not a number: a Skip-Bo card is 21..32
        ("qd", 20),
        ("qs", 33),
        ("dc", 400),
        ("dc", 13),
        ("dc", -5),
        ("et", 1),
        ("nx", 7),
        ("md", 0),
        ("rf", -1),
        ("op", 0),
        ("zz", 5),
        ("PH", 5),
    ],
)
def test_forged_act_or_arg_is_no_action(act: str, arg: int) -> None:
    assert action_for(act, arg) is None


def test_action_encoding_round_trips() -> None:
    for source, act in ACT_OF_SOURCE.items():
        indexes = range(4) if source in (DISCARD, PARTNER_DISCARD) else [0]
        for index in indexes:
            for pile in range(4):
                for value in range(1, 13):
                    assert action_for(act, play_arg(index, pile, value, value)) == Play(
                        source, index, value, pile, value
                    )
                    assert action_for(act, play_arg(index, pile, WILD, value)) == Play(
                        source, index, WILD, pile, value
                    )
    for pile in range(4):
        for card in range(13):
            assert action_for(DISCARD_ACT, discard_arg(pile, card)) == Discard(card, pile)


def test_shared_acts_are_skyjos() -> None:
    assert (MODE, REFRESH, NEXT_ROUND) == (SKYJO_MODE, SKYJO_REFRESH, SKYJO_NEXT_ROUND)
    assert all(len(a) == 2 and a.islower() for a in GAME_ACTS | {MODE, REFRESH})
    assert all(-999 <= m <= 9999 for m in MODES)


def test_hint_names_who_is_playing_and_speaks_french() -> None:
    game = new(3, seed=9)
    assert game.turn is not None
    waiting = (game.turn + 1) % 3
    hint = panel_hint(game.view(waiting), waiting, NAMES[:3])
    assert NAMES[game.turn] in hint and "playing" in hint
    assert "joue" in panel_hint(game.view(waiting), waiting, NAMES[:3], locale="fr")
    mine = panel_hint(game.view(game.turn), game.turn, NAMES[:3], locale="fr")
    assert "pile de construction" in mine and "défausse" in mine
