"""The rules summary follows the table's options, in both languages."""

from __future__ import annotations

from bot.games.skyjo.engine import Options
from bot.games.skyjo.rules import rules_text


def test_default_rules_in_english_and_french() -> None:
    en = rules_text(Options(), "en-US")
    fr = rules_text(Options(), "fr")
    assert "100 points" in en and "4 × 3" in en and "×2" in en
    assert "100 points" in fr and "défausse" in fr and "colonne" in fr
    assert "row" not in en.lower().replace("rows", "")  # row clearing is off by default


def test_options_in_force_are_shown() -> None:
    text = rules_text(
        Options(
            score_limit=50,
            finisher_multiplier=3,
            columns=5,
            rows=4,
            row_clearing=True,
            previous_finisher_starts=True,
        ),
        "en",
    )
    assert "50 points" in text and "5 × 4" in text and "×3" in text
    assert "a row whose 5 cards are face up and equal" in text and "ended the previous round" in text
    assert "A column whose 4 cards are face up and equal" in text
    assert "scores ×" not in rules_text(Options(finisher_multiplier=1), "en")


def test_the_edition_and_no_reveals_are_said_in_both_languages() -> None:
    voyage = Options(edition="voyage", columns=3, rows=2, initial_reveals=0)
    en, fr = rules_text(voyage, "en"), rules_text(voyage, "fr")
    assert "Skyjo Voyage" in en and "2 to 4 players" in en and "nobody turns one up" in en
    assert "Skyjo Voyage" in fr and "de 2 à 4 joueurs" in fr and "personne n'en retourne" in fr
    assert "turn 0" not in en and "retournes 0" not in fr
    classic = rules_text(Options(), "en")
    assert "Voyage" not in classic and "nobody turns" not in classic
