"""Skip-Bo events and tables in words, in English and French, within Discord's embed limits, with
nothing hidden (SB-INFO-1, GAME-INFO-1)."""

from __future__ import annotations

import random
from collections import deque
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.games.skipbo.engine import HAND, PARTNER_STOCK, STOCK, WILD, Discard, Options, Play, State
from bot.games.skipbo.message import (
    describe_events,
    option_lines,
    round_summary,
    table_body,
    turn_mention,
)
from bot.render.messages import NBSP

from .helpers import new, rig, take
from .test_panel import states

NAMES = ["Alice", "Bob", "Chloé", "Denis", "Émile", "Fanny"]
LONG = [f"{'W' * 28}{i:02d}" for i in range(6)]  # Discord display names go up to 32 characters
Recent = deque[tuple[int, list[dict[str, Any]]]]


def _check_embed(embed: dict[str, Any]) -> None:
    """Discord's embed limits: title 256, description 4096, 25 fields of name 256 and value 1024,
    6000 characters in all."""
    assert 0 < len(embed["title"]) <= 256
    assert len(embed["description"]) <= 4096
    fields = embed.get("fields", [])
    assert len(fields) <= 25
    for field in fields:
        assert 0 < len(field["name"]) <= 256
        assert 0 < len(field["value"]) <= 1024
    total = len(embed["title"]) + len(embed["description"])
    total += sum(len(f["name"]) + len(f["value"]) for f in fields)
    assert total <= 6000


def _texts(embed: dict[str, Any]) -> list[str]:
    fields = embed.get("fields", [])
    return [embed["title"], embed["description"], *(f["name"] for f in fields), *(f["value"] for f in fields)]


def _no_raw_keys(texts: list[str]) -> None:
    for text in texts:
        for word in text.split():
            assert not word.startswith(("skipbo.", "table.", "ui.", "error.")), text


def _play(game: State, rng: random.Random, recent: Recent) -> list[dict[str, Any]]:
    seat = game.seats_to_act()[0]
    actions = game.legal_actions(seat)
    plays = [a for a in actions if isinstance(a, Play)]
    action = rng.choice(plays if plays and rng.random() < 0.8 else actions)
    events = [e.to_dict() for e in game.apply(seat, action)]
    recent.append((seat, events))
    return events


@pytest.mark.parametrize("locale", ["en-GB", "fr"])
@pytest.mark.parametrize(
    ("players", "options"),
    [
        (2, Options(stock_size=8)),
        (4, Options(stock_size=6, teams=True, several_rounds=True, score_limit=120)),
        (6, Options(stock_size=5, several_rounds=True, score_limit=100)),
    ],
)
def test_a_whole_game_is_told_within_limits_and_hides_every_hand(
    locale: str, players: int, options: Options
) -> None:
    game = State.new(NAMES[:players], 11, options)
    rng = random.Random(11)
    recent: Recent = deque(maxlen=12)
    told: list[str] = []
    while not game.is_over:
        told += describe_events(_play(game, rng, recent), NAMES, locale)
        public = table_body(game.view(None), NAMES[:players], locale=locale, recent=recent)
        assert public.embed is not None
        _check_embed(public.embed)
        _no_raw_keys(_texts(public.embed))
        # A player's own view (with their hand) renders exactly as the public one.
        for seat in range(players):
            assert table_body(game.view(seat), NAMES[:players], locale=locale, recent=recent) == public
    assert told
    _no_raw_keys(told)
    final = told[-1]
    assert ("Game over" in final) if locale.startswith("en") else ("Partie terminée" in final)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(states(), st.sampled_from(["en-US", "fr"]), st.booleans())
def test_tables_fit_discord_with_long_names(game: State, locale: str, long_names: bool) -> None:
    n = len(game.players)
    names = (LONG if long_names else NAMES)[:n]
    recent: Recent = deque(maxlen=12)
    rng = random.Random(1)
    for _ in range(12):
        if game.is_over:
            break
        _play(game, rng, recent)
    body = table_body(
        game.view(None),
        names,
        locale=locale,
        recent=recent,
        replaced=range(n),
        waiting_round=range(n),
        resumed=True,
        image_url="https://example.invalid/t.png",
    )
    assert body.embed is not None
    _check_embed(body.embed)
    _no_raw_keys(_texts(body.embed))
    ended = table_body(game.view(None), names, locale=locale, ended_by=42)
    assert ended.embed is not None and "<@42>" in ended.embed["description"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(states())
def test_sb_info_1_the_table_does_not_depend_on_the_hands(game: State) -> None:
    """Shuffling every hand with the draw pile (same sizes) changes nothing on the table."""
    n = len(game.players)
    before = table_body(game.view(None), NAMES[:n], locale="en")
    pool = [c for h in game.hands for c in h] + game.draw_pile
    random.Random(3).shuffle(pool)
    for hand in game.hands:
        size = len(hand)
        hand[:], pool = pool[:size], pool[size:]
    game.draw_pile = pool
    assert table_body(game.view(None), NAMES[:n], locale="en") == before


def test_plays_and_discards_read_as_sentences_in_both_languages() -> None:
    game = rig(new(2, seed=3), 0, hand=[WILD, 7, 7, 9, 10], stock_top=[4], piles=[3, 6, 0, 0])
    game.stocks[0].insert(-1, take(game, 11))  # the next stock card, under the 4
    events = [e.to_dict() for e in game.apply(0, Play(STOCK, 0, 4, 0, 4))]
    assert describe_events(events, NAMES, "en") == [
        f"Alice plays a 4 from their stock onto pile 1. Next stock card: 11 ({len(game.stocks[0])} left)."
    ]
    assert describe_events(events, NAMES, "fr")[0].startswith("Alice pose un 4 de son stock sur la pile 1.")
    events = [e.to_dict() for e in game.apply(0, Play(HAND, 0, WILD, 1, 7))]
    assert describe_events(events, NAMES, "en") == [
        "Alice plays a Skip-Bo card as 7 from their hand onto pile 2."
    ]
    assert describe_events(events, NAMES, "fr") == [
        "Alice pose une carte Skip-Bo comme 7 de sa main sur la pile 2."
    ]
    events = [e.to_dict() for e in game.apply(0, Discard(9, 2))]
    assert describe_events(events, NAMES, "en")[0] == (
        "Alice discards a 9 onto their discard pile 3 and ends the turn."
    )
    assert "défausse un 9 sur sa pile de défausse 3" in describe_events(events, NAMES, "fr")[0]


def test_sb_var_team_1_teams_are_shown_and_partner_plays_named() -> None:
    game = new(4, seed=5, teams=True)
    rig(game, 1, hand=[10, 10, 10, 10, 10], piles=[0, 0, 0, 0])
    game.stocks[3].append(take(game, 1))
    body = table_body(game.view(None), NAMES[:4], locale="en")
    assert body.embed is not None
    assert "Teams: Alice & Chloé · Bob & Denis" in body.embed["description"]
    assert "Bob to play (with their partner Denis" in body.embed["description"]
    events = [e.to_dict() for e in game.apply(1, Play(PARTNER_STOCK, 0, 1, 2, 1))]
    assert describe_events(events, NAMES, "en")[0].startswith("Bob plays a 1 from Denis's stock onto pile 3.")
    fr = table_body(game.view(None), NAMES[:4], locale="fr")
    assert fr.embed is not None and "Équipes : Alice et Chloé · Bob et Denis" in fr.embed["description"]


def test_public_piles_and_hand_sizes_are_shown() -> None:
    game = rig(new(2, seed=3), 0, hand=[2, 3], discards={1: [5, 9]}, piles=[4, 0, 12 - 1, 0])
    body = table_body(game.view(None), NAMES[:2], locale="en")
    assert body.embed is not None
    text = body.embed["description"]
    assert "Building piles: 4 · — · 11 · —" in text and "Alice to play." in text
    alice = body.embed["fields"][0]
    assert alice["name"].startswith("▶ Alice")
    value = alice["value"].replace(NBSP, " ")  # the field's phrases are kept whole (table_text.phrased)
    assert "Hand: 2 cards" in value and "9 (2 cards)" in value
    # The stock says which number is its top card and which its size.
    top = game.stocks[0][-1]
    assert f"Stock: top card **{top}**, {len(game.stocks[0])} left" in value


def _finish_round(game: State, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    told: list[dict[str, Any]] = []
    while game.phase == "play":
        seat = game.seats_to_act()[0]
        plays = [a for a in game.legal_actions(seat) if isinstance(a, Play)]
        told += [e.to_dict() for e in game.apply(seat, rng.choice(plays or game.legal_actions(seat)))]
    return told


def test_sb_var_score_1_round_summary_and_final_standings() -> None:
    game = new(3, seed=4, stock_size=5, several_rounds=True, score_limit=200)
    events = _finish_round(game, 4)
    assert game.phase == "round_over"
    winner = game.rounds[-1].winners[0]
    summary = round_summary(game.view(None), NAMES[:3], "en")
    assert summary.startswith("Round 1 is over.") and f"{NAMES[winner]} emptied their stock first." in summary
    assert f"+{game.rounds[-1].scores[winner]}" in summary
    told = describe_events(events, NAMES, "en")
    assert f"wins round 1: +{game.rounds[-1].scores[winner]} points!" in told[-1]
    body = table_body(game.view(None), NAMES[:3], locale="fr", waiting_round=[0, 2])
    assert body.embed is not None and "La manche 1 est terminée." in body.embed["description"]
    assert "Alice, Chloé" in body.embed["description"]
    while not game.is_over:
        if game.phase == "round_over":
            game.apply(0, game.legal_actions(0)[0])
        else:
            _finish_round(game, game.round)
    final = table_body(game.view(None), NAMES[:3], locale="en")
    assert final.embed is not None
    best = max(game.totals)
    assert f"1. {NAMES[game.totals.index(best)]} — {best} points" in final.embed["description"]


def test_single_round_standings_rank_by_stock_left() -> None:
    game = new(3, seed=8, stock_size=5)
    _finish_round(game, 8)
    assert game.is_over
    body = table_body(game.view(None), NAMES[:3], locale="en")
    assert body.embed is not None
    text = body.embed["description"]
    if game.is_draw:
        assert "draw" in text
    else:
        winner = game.winners()[0]
        assert f"1. {NAMES[winner]} — stock emptied" in text
        ranks = game.ranks()
        for seat in range(3):
            if seat != winner:
                left = game.rounds[-1].stock_left[seat]
                cards = "card" if left == 1 else "cards"
                assert f"{ranks[seat]}. {NAMES[seat]} — {left} {cards} left in stock" in text


def test_option_lines_and_turn_mention() -> None:
    assert option_lines(Options().to_dict(), "en") == [
        "Stock: the official size (30 cards, 20 with 5 or 6 players).",
        "A single round: the first to empty their stock wins.",
    ]
    fr = option_lines(Options(stock_size=10, teams=True, several_rounds=True).to_dict(), "fr")
    assert fr == [
        "Stock : 10 cartes chacun (partie rapide).",
        "Plusieurs manches : la partie se gagne à 500 points.",
        "Par équipes de deux : les deux places d'une équipe se font face.",
    ]
    recent: Recent = deque([(1, [{"type": "seat_replaced"}, {"type": "turn_started", "seat": 1}])])
    body = table_body(new(2, seed=1).view(None), NAMES[:2], locale="en", recent=recent, replaced=[1])
    assert body.embed is not None and "Bob 🤖 left: a computer player takes the seat." in body.recent
    assert turn_mention(7, "fr") == "<@7>, c'est ton tour au Skip-Bo."


def test_cards_in_sentences_take_the_right_english_article() -> None:
    from bot.games.skipbo.message import _discarded_card, _played_card

    assert [_played_card(v, v, "en-US") for v in (7, 8, 11, 12)] == ["a 7", "an 8", "an 11", "a 12"]
    assert _discarded_card(8, "en-US") == "an 8" and _discarded_card(8, "fr") == "un 8"
