"""A short, localized summary of the Skyjo rules with the options in force at a table."""

from __future__ import annotations

from bot.games.skyjo.engine import EDITIONS, LINE_LEAST, MIN_PLAYERS, Options
from bot.i18n import translate as t


def rules_text(options: Options, locale: object = None) -> str:
    """The rules in a few lines, written for players (our own words, not the rulebook's).

    Every number and every rule that an option changes is built from ``options``, never written for
    the default 4 x 3 grid: the score limit, the edition's seats, the grid and the reveals, who starts,
    how many equal cards clear a column (its ``rows`` cards) and a row (its ``columns`` cards, when row
    clearing is on), and the finisher's multiplier. A line that can lose cards to the other direction's
    clearing (a column of 4 with row clearing, a row of 4 or 5) is said to clear with the cards still
    in it, ``LINE_LEAST`` at least, as the engine does (see :mod:`bot.games.skyjo.engine`).
    """
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
    ]
    # A column loses a card only to a cleared row; a row loses one to every cleared column.
    column_shrinks = options.row_clearing and options.rows > LINE_LEAST
    lines.append(
        t(
            "skyjo.rules.columns_shrunk" if column_shrinks else "skyjo.rules.columns",
            locale,
            count=options.rows,
            least=LINE_LEAST,
        )
    )
    if options.row_clearing:
        row_shrinks = options.columns > LINE_LEAST
        lines.append(
            t(
                "skyjo.rules.rows_shrunk" if row_shrinks else "skyjo.rules.rows",
                locale,
                count=options.columns,
                least=LINE_LEAST,
            )
        )
    lines.append(t("skyjo.rules.end", locale))
    if options.finisher_multiplier != 1:
        lines.append(t("skyjo.rules.finisher", locale, multiplier=options.finisher_multiplier))
    lines.append(t("skyjo.rules.cards", locale))
    return "\n".join(lines)
