"""Skyjo events and tables in words, in English and French, with nothing hidden."""

from __future__ import annotations

import random

import pytest

from bot.games.skyjo.engine import Options, State, TakeDiscard
from bot.games.skyjo.text import CARD_BACK, describe_events, table_text

from .helpers import playing_game, set_discard, set_grid

NAMES = ["Alice", "Bob", "Chloé"]


def test_taking_the_discard_reads_as_one_sentence() -> None:
    game = playing_game(players=3)
    set_grid(game, 0, {4: 11})
    set_discard(game, 3)
    events = [e.to_dict() for e in game.apply(0, TakeDiscard(4))]
    assert describe_events(events, NAMES, "en-US") == [
        "Alice took the 3 from the discard pile and replaced a face-down 11."
    ]
    assert describe_events(events, NAMES, "fr") == [
        "Alice prend le 3 de la défausse et remplace un 11 caché."
    ]


@pytest.mark.parametrize("locale", ["en-GB", "fr"])
def test_a_whole_game_is_told_without_raw_keys_or_hidden_cards(locale: str) -> None:
    game = State.new(NAMES, 5, Options(score_limit=40))
    rng = random.Random(5)
    told: list[str] = []
    while not game.is_over:
        seat = game.seats_to_act()[0]
        events = [e.to_dict() for e in game.apply(seat, rng.choice(game.legal_actions(seat)))]
        told += describe_events(events, NAMES, locale)
        text = table_text(game.view(None), NAMES, locale)
        # Face-down cards show as backs: the text has exactly as many backs as there are hidden cards.
        hidden = sum(len(game.face_down_positions(s)) for s in range(3))
        assert text.count(CARD_BACK) == hidden
    assert told and not any(line.startswith(("skyjo.", "error.")) for line in told)
    final = told[-1]
    assert ("Game over" in final) if locale.startswith("en") else ("Partie terminée" in final)
