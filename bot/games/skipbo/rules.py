"""A short, localized summary of the Skip-Bo rules with the options in force at a table.

Our own words (RULES.md, rules ``SB-*``), never the rulebook's; it stays under Discord's 2000
characters a message whatever the options.
"""

from __future__ import annotations

from bot.games.skipbo.engine import Options
from bot.i18n import translate as t


def rules_text(options: Options, locale: object = None) -> str:
    """The rules in a few lines, written for players, with this table's settings.

    Every line an option changes is built from ``options`` (the stock's size, one round or several
    and the score limit, teams); the rest (a hand of 5, 4 building and 4 discard piles, 1 to 12) is
    the same at every table, so it is written once in the catalogue.
    """
    lines = [t("skipbo.rules.title", locale)]
    if options.several_rounds:
        lines.append(t("skipbo.rules.goal_rounds", locale, limit=options.score_limit))
    else:
        lines.append(t("skipbo.rules.goal", locale))
    if options.stock_size:
        lines.append(t("skipbo.rules.setup_stock", locale, size=options.stock_size))
    else:
        lines.append(t("skipbo.rules.setup", locale))
    lines += [
        t("skipbo.rules.turn", locale),
        t("skipbo.rules.build", locale),
        t("skipbo.rules.empty_hand", locale),
        t("skipbo.rules.end", locale),
    ]
    if options.teams:
        lines.append(t("skipbo.rules.teams", locale))
    lines.append(t("skipbo.rules.win_team" if options.teams else "skipbo.rules.win", locale))
    if options.several_rounds:
        lines.append(t("skipbo.rules.score", locale))
    lines += [t("skipbo.rules.info", locale), t("skipbo.rules.panel", locale)]
    return "\n".join(lines)
