"""A short, localized summary of the Skyjo rules with the options in force at a table."""

from __future__ import annotations

from bot.games.skyjo.engine import EDITIONS, MIN_PLAYERS, Options
from bot.i18n import translate as t


def rules_text(options: Options, locale: object = None) -> str:
    """The rules in a few lines, written for players (our own words, not the rulebook's)."""
    lines = [
        t("skyjo.rules.title", locale),
        t("skyjo.rules.goal", locale, limit=options.score_limit),
    ]
    if options.edition != "classic":  # Voyage: said, with its seats
        seats = {"min": MIN_PLAYERS, "max": EDITIONS[options.edition]}
        lines.append(t(f"skyjo.rules.edition_{options.edition}", locale, **seats))
    lines += [
        t(
            "skyjo.rules.setup" if options.initial_reveals else "skyjo.rules.setup_none",
            locale,
            columns=options.columns,
            rows=options.rows,
            reveals=options.initial_reveals,
        ),
        t("skyjo.rules.start_previous" if options.previous_finisher_starts else "skyjo.rules.start", locale),
        t("skyjo.rules.turn", locale),
        t("skyjo.rules.columns", locale),
    ]
    if options.row_clearing:
        lines.append(t("skyjo.rules.rows", locale))
    lines.append(t("skyjo.rules.end", locale))
    if options.finisher_multiplier != 1:
        lines.append(t("skyjo.rules.finisher", locale, multiplier=options.finisher_multiplier))
    lines.append(t("skyjo.rules.cards", locale))
    return "\n".join(lines)
