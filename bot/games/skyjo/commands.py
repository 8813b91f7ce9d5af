"""``/skyjo new`` and its options. The rest of ``/skyjo`` (``replay``, ``rules``, ``end``, ``kick``) is
every game's (:mod:`cogs.games`); the group's words are in this folder's catalogues (``cmd.skyjo.*``)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

from bot.games.commands import open_table, table_options
from bot.games.skyjo.engine import EDITIONS, KIND, MAX_PLAYERS, MIN_PLAYERS
from bot.games.skyjo.options import OPTION_RANGES

# The declared ranges are the ones the table service accepts (tests/e2e/test_option_ranges.py).
SCORE_LIMIT = OPTION_RANGES["score_limit"]
MULTIPLIER = OPTION_RANGES["finisher_multiplier"]
COLUMNS = OPTION_RANGES["columns"]
ROWS = OPTION_RANGES["rows"]
REVEALS = OPTION_RANGES["initial_reveals"]
# The editions the engine knows (SKY-PLAYERS-1), each with its table size.
EDITION_CHOICES = [
    app_commands.Choice(
        name=_(f"{name} ({MIN_PLAYERS}-{most} players)", key=f"cmd.skyjo.edition.{name}"), value=name
    )
    for name, most in EDITIONS.items()
]
MAX_COMPUTERS = MAX_PLAYERS - 1  # the host holds a seat


@app_commands.rename(
    score_limit=_("score_limit", key="cmd.skyjo.new.opt.score_limit"),
    finisher_multiplier=_("finisher_multiplier", key="cmd.skyjo.new.opt.multiplier"),
    row_clearing=_("row_clearing", key="cmd.skyjo.new.opt.row_clearing"),
    previous_finisher_starts=_("previous_finisher_starts", key="cmd.skyjo.new.opt.previous_starts"),
    columns=_("columns", key="cmd.skyjo.new.opt.columns"),
    rows=_("rows", key="cmd.skyjo.new.opt.rows"),
    initial_reveals=_("initial_reveals", key="cmd.skyjo.new.opt.reveals"),
    edition=_("edition", key="cmd.skyjo.new.opt.edition"),
)
@app_commands.describe(
    score_limit=_("The game ends when someone reaches this total (100)", key="cmd.skyjo.new.score_limit"),
    finisher_multiplier=_(
        "The finisher's score is multiplied by this unless lowest (2)", key="cmd.skyjo.new.multiplier"
    ),
    row_clearing=_("Rows of equal cards leave the grid too", key="cmd.skyjo.new.row_clearing"),
    previous_finisher_starts=_("The previous round's finisher starts", key="cmd.skyjo.new.previous_starts"),
    columns=_("Columns of each grid (4)", key="cmd.skyjo.new.columns"),
    rows=_("Rows of each grid, the cards in a column (3)", key="cmd.skyjo.new.rows"),
    initial_reveals=_(
        "Cards each player turns face up before the first turn (2)", key="cmd.skyjo.new.reveals"
    ),
    edition=_("classic (2-8 players) or Voyage, the travel edition (2-4)", key="cmd.skyjo.new.edition"),
)
@app_commands.choices(edition=EDITION_CHOICES)
@table_options
async def new(
    interaction: discord.Interaction[Any],
    score_limit: app_commands.Range[int, SCORE_LIMIT[0], SCORE_LIMIT[1]] = 100,
    finisher_multiplier: app_commands.Range[int, MULTIPLIER[0], MULTIPLIER[1]] = 2,
    row_clearing: bool = False,
    previous_finisher_starts: bool = False,
    columns: app_commands.Range[int, COLUMNS[0], COLUMNS[1]] = 4,
    rows: app_commands.Range[int, ROWS[0], ROWS[1]] = 3,
    initial_reveals: app_commands.Range[int, REVEALS[0], REVEALS[1]] = 2,
    edition: str = "classic",
    computers: app_commands.Range[int, 0, MAX_COMPUTERS] = 0,
    level: str = "normal",
    turn_limit: int | None = None,
    thread: bool | None = None,
) -> None:
    """``/skyjo new``: the lobby of a Skyjo table with these options."""
    options = {
        "score_limit": score_limit,
        "finisher_multiplier": finisher_multiplier,
        "row_clearing": row_clearing,
        "previous_finisher_starts": previous_finisher_starts,
        "columns": columns,
        "rows": rows,
        "initial_reveals": initial_reveals,
        "edition": edition,
    }
    await open_table(
        interaction, KIND, options, computers=computers, level=level, turn_limit=turn_limit, thread=thread
    )
