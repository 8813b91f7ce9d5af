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
    assert "full row" in text and "ended the previous round" in text
    assert "scores ×" not in rules_text(Options(finisher_multiplier=1), "en")
