"""``/skipbo new`` as data: the options a Skip-Bo table is opened with (RULES.md SB-SETUP-1, SB-VAR-*),
their bounds and words (``NEW``, the game's ``new``; :mod:`bot.games.new_table`). The rest of
``/skipbo`` (``replay``, ``rules``, ``end``, ``kick``) is every game's (:mod:`cogs.games`); the words are
in this folder's catalogues (``cmd.skipbo.*``). Pure data: the engine-only tools may load it."""

from __future__ import annotations

from collections.abc import Mapping

from bot.games.new_table import NewTable, TableOption
from bot.games.skipbo import engine

DEFAULTS = engine.Options()  # the official rules: each option's default
OPTIONS = (
    # Not given, the stock is the official size for the number of players (SB-SETUP-1): the engine's
    # 0; given, MIN_STOCK to MAX_STOCK (SB-VAR-FAST-1).
    TableOption(
        "stock_size",
        int,
        None,
        "Cards in each stock pile, 5 to 30 (default: the official 30, or 20 with 5-6 players)",
        "cmd.skipbo.new.opt.stock_size",
        "cmd.skipbo.new.stock_size",
        bounds=(engine.MIN_STOCK, engine.MAX_STOCK),
    ),
    TableOption(
        "teams",
        bool,
        DEFAULTS.teams,
        "Play in teams of two (4 or 6 players)",
        "cmd.skipbo.new.opt.teams",
        "cmd.skipbo.new.teams",
    ),
    TableOption(
        "several_rounds",
        bool,
        DEFAULTS.several_rounds,
        "Play rounds until a total of 500 points",
        "cmd.skipbo.new.opt.several_rounds",
        "cmd.skipbo.new.several_rounds",
    ),
)
NEW = NewTable(engine.MAX_PLAYERS, OPTIONS)
# The integer options' bounds, which the table service checks (tests/e2e/test_option_ranges.py).
OPTION_RANGES: Mapping[str, tuple[int, int]] = NEW.ranges
