"""The Skip-Bo rules summary follows the table's options, in both languages, within one Discord message."""

from __future__ import annotations

import itertools

import pytest

from bot.games.skipbo.engine import Options
from bot.games.skipbo.rules import rules_text

DISCORD_MESSAGE = 2000


def test_default_rules_in_english_and_french() -> None:
    en = rules_text(Options(), "en-US")
    fr = rules_text(Options(), "fr")
    assert "30 cards (20 with 5 or 6 players)" in en and "Skip-Bo card is wild" in en
    assert "discard piles" in en and "building pile" in en
    assert "partner" not in en and "points" not in en  # teams and several rounds are off by default
    for word in ("stock", "pioche", "pile de construction", "piles de défausse", "main", "manche", "tour"):
        assert word in fr, word
    assert "équipe" not in fr


def test_options_in_force_are_shown() -> None:
    text = rules_text(Options(stock_size=12, teams=True, several_rounds=True, score_limit=300), "en")
    assert "stock of 12 cards" in text and "30 cards" not in text
    assert "300 points" in text and "25 points plus 5" in text
    assert "partner's stock top" in text and "both partners' stocks are empty" in text
    fr = rules_text(Options(stock_size=12, teams=True, several_rounds=True, score_limit=300), "fr")
    assert "12 cartes" in fr and "300 points" in fr and "l'autre membre de ton équipe" in fr


@pytest.mark.parametrize("locale", ["en", "fr"])
def test_every_combination_fits_one_discord_message(locale: str) -> None:
    for stock, teams, rounds in itertools.product((0, 5, 30), (False, True), (False, True)):
        text = rules_text(
            Options(stock_size=stock, teams=teams, several_rounds=rounds, score_limit=10_000), locale
        )
        assert 0 < len(text) < DISCORD_MESSAGE
        assert "skipbo." not in text  # no raw key
