"""``/skyjo new`` as data: the options a Skyjo table is opened with, their bounds, choices and words
(``NEW``, the game's ``new``; :mod:`bot.games.new_table`). The rest of ``/skyjo`` (``replay``,
``rules``, ``end``, ``kick``) is every game's (:mod:`cogs.games`); the words are in this folder's
catalogues (``cmd.skyjo.*``). Pure data: the engine-only tools may load it."""

from __future__ import annotations

from collections.abc import Mapping

from bot.games.new_table import Choice, NewTable, TableOption
from bot.games.skyjo import engine

DEFAULTS = engine.Options()  # the official rules: each option's default
# The engine takes wider settings (terminal games, simulations); a table offers these.
# Every grid the engine deals fits the private panel (one button row per grid row, at most 5
# buttons each, and a row of actions: Discord's 5 x 5). The reveals: as many as the default grid
# allows (one card stays face down); a smaller grid refuses more (Options.validate, one reason).
OPTIONS = (
    TableOption(
        "score_limit",
        int,
        DEFAULTS.score_limit,
        "The game ends when someone reaches this total (100)",
        "cmd.skyjo.new.opt.score_limit",
        "cmd.skyjo.new.score_limit",
        bounds=(10, 1000),
    ),
    TableOption(
        "finisher_multiplier",
        int,
        DEFAULTS.finisher_multiplier,
        "The finisher's score is multiplied by this unless lowest (2)",
        "cmd.skyjo.new.opt.multiplier",
        "cmd.skyjo.new.multiplier",
        bounds=(1, 5),
    ),
    TableOption(
        "row_clearing",
        bool,
        DEFAULTS.row_clearing,
        "Rows of equal cards leave the grid too",
        "cmd.skyjo.new.opt.row_clearing",
        "cmd.skyjo.new.row_clearing",
    ),
    TableOption(
        "previous_finisher_starts",
        bool,
        DEFAULTS.previous_finisher_starts,
        "The previous round's finisher starts",
        "cmd.skyjo.new.opt.previous_starts",
        "cmd.skyjo.new.previous_starts",
    ),
    TableOption(
        "columns",
        int,
        DEFAULTS.columns,
        "Columns of each grid (4)",
        "cmd.skyjo.new.opt.columns",
        "cmd.skyjo.new.columns",
        bounds=(2, engine.MAX_COLUMNS),
    ),
    TableOption(
        "rows",
        int,
        DEFAULTS.rows,
        "Rows of each grid, the cards in a column (3)",
        "cmd.skyjo.new.opt.rows",
        "cmd.skyjo.new.rows",
        bounds=(2, engine.MAX_ROWS),
    ),
    TableOption(
        "initial_reveals",
        int,
        DEFAULTS.initial_reveals,
        "Cards each player turns face up before the first turn (2)",
        "cmd.skyjo.new.opt.reveals",
        "cmd.skyjo.new.reveals",
        bounds=(0, DEFAULTS.columns * DEFAULTS.rows - 1),
    ),
    TableOption(
        "edition",
        str,
        DEFAULTS.edition,
        "classic (2-8 players) or Voyage, the travel edition (2-4)",
        "cmd.skyjo.new.opt.edition",
        "cmd.skyjo.new.edition",
        # The editions the engine knows (SKY-PLAYERS-1), each with its table size.
        choices=tuple(
            Choice(name, f"{name} ({engine.MIN_PLAYERS}-{most} players)", f"cmd.skyjo.edition.{name}")
            for name, most in engine.EDITIONS.items()
        ),
    ),
)
# The set-up form's first page ("Set up…"): what most tables change; the rest is behind "More options…"
# (the multiplier, the grid, the reveals, and the yes-or-no rules with the thread).
FORM_FIRST = ("edition", "score_limit", "computers", "level", "turn_limit")
NEW = NewTable(engine.MAX_PLAYERS, OPTIONS, form_first=FORM_FIRST)
# The integer options' bounds, which the table service checks (tests/e2e/test_option_ranges.py).
OPTION_RANGES: Mapping[str, tuple[int, int]] = NEW.ranges
