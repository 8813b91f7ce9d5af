"""``/skipbo new`` and its options (RULES.md SB-SETUP-1, SB-VAR-*). The rest of ``/skipbo`` (``replay``,
``rules``, ``end``, ``kick``) is every game's (:mod:`cogs.games`); the group's words are in this
folder's catalogues (``cmd.skipbo.*``)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

from bot.games.commands import open_table, table_options
from bot.games.skipbo.engine import KIND, MAX_PLAYERS
from bot.games.skipbo.options import OPTION_RANGES

# The declared ranges are the ones the table service accepts (tests/e2e/test_option_ranges.py).
STOCK_SIZE = OPTION_RANGES["stock_size"]
MAX_COMPUTERS = MAX_PLAYERS - 1  # the host holds a seat


@app_commands.rename(
    stock_size=_("stock_size", key="cmd.skipbo.new.opt.stock_size"),
    teams=_("teams", key="cmd.skipbo.new.opt.teams"),
    several_rounds=_("several_rounds", key="cmd.skipbo.new.opt.several_rounds"),
)
@app_commands.describe(
    stock_size=_(
        "Cards in each stock pile, 5 to 30 (default: the official 30, or 20 with 5-6 players)",
        key="cmd.skipbo.new.stock_size",
    ),
    teams=_("Play in teams of two (4 or 6 players)", key="cmd.skipbo.new.teams"),
    several_rounds=_("Play rounds until a total of 500 points", key="cmd.skipbo.new.several_rounds"),
)
@table_options
async def new(
    interaction: discord.Interaction[Any],
    stock_size: app_commands.Range[int, STOCK_SIZE[0], STOCK_SIZE[1]] | None = None,
    teams: bool = False,
    several_rounds: bool = False,
    computers: app_commands.Range[int, 0, MAX_COMPUTERS] = 0,
    level: str = "normal",
    turn_limit: int | None = None,
    thread: bool | None = None,
) -> None:
    """``/skipbo new``: omitted, the stock is the official size for the number of players (SB-SETUP-1)."""
    options: dict[str, Any] = {"teams": teams, "several_rounds": several_rounds}
    if stock_size is not None:
        options["stock_size"] = stock_size
    await open_table(
        interaction, KIND, options, computers=computers, level=level, turn_limit=turn_limit, thread=thread
    )
