"""``/skipbo new``, ``/skipbo rules``, ``/skipbo end`` and ``/skipbo kick``: the Skip-Bo table.

The same lobby, table, panels, timers and boards as Skyjo (see :mod:`cogs.tables` and
:mod:`bot.games.skipbo`); only the options of ``new`` are Skip-Bo's (RULES.md SB-SETUP-1, SB-VAR-*).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.games.skipbo import SKIPBO
from bot.ui import command_options
from bot.ui import replay as replays
from cogs import tables

if TYPE_CHECKING:
    from bot.client import SkyboBot

# The declared ranges are the ones the table service accepts (tests/e2e/test_option_ranges.py).
STOCK_SIZE = SKIPBO.option_ranges["stock_size"]
MAX_COMPUTERS = SKIPBO.max_players - 1  # the host holds a seat


class SkipboCog(commands.Cog):
    skipbo = app_commands.Group(
        name="skipbo",
        description=_("Play Skip-Bo at this channel's table", key="cmd.skipbo.description"),
        guild_only=True,
    )

    def __init__(self, bot: SkyboBot) -> None:
        self.bot = bot

    @skipbo.command(
        name=_("new", key="cmd.new.name"),
        description=_("Open a Skip-Bo table in this channel", key="cmd.skipbo.new.description"),
        # The table service checks these values, with reasons of its own (a turn limit from the list...).
        extras={command_options.SERVICE_CHECKS_VALUES: True},
    )
    @app_commands.rename(
        stock_size=_("stock_size", key="cmd.skipbo.new.opt.stock_size"),
        teams=_("teams", key="cmd.skipbo.new.opt.teams"),
        several_rounds=_("several_rounds", key="cmd.skipbo.new.opt.several_rounds"),
        computers=tables.COMPUTERS,
        level=tables.LEVEL,
        turn_limit=tables.TURN_LIMIT,
    )
    @app_commands.describe(
        stock_size=_(
            "Cards in each stock pile, 5 to 30 (default: the official 30, or 20 with 5-6 players)",
            key="cmd.skipbo.new.stock_size",
        ),
        teams=_("Play in teams of two (4 or 6 players)", key="cmd.skipbo.new.teams"),
        several_rounds=_("Play rounds until a total of 500 points", key="cmd.skipbo.new.several_rounds"),
        computers=_("How many computer players sit at the table", key="cmd.skyjo.new.computers"),
        level=_("How well the computer players play", key="cmd.skyjo.new.level"),
        turn_limit=tables.TURN_LIMIT_HELP,
    )
    @app_commands.choices(level=tables.LEVEL_CHOICES)
    @app_commands.choices(turn_limit=tables.TURN_LIMIT_CHOICES)
    async def new(
        self,
        interaction: discord.Interaction[Any],
        stock_size: app_commands.Range[int, STOCK_SIZE[0], STOCK_SIZE[1]] | None = None,
        teams: bool = False,
        several_rounds: bool = False,
        computers: app_commands.Range[int, 0, MAX_COMPUTERS] = 0,
        level: str = "normal",
        turn_limit: int | None = None,
    ) -> None:
        await tables.open_table(
            self.bot,
            interaction,
            "skipbo",
            # Omitted, the stock is the official size for the number of players (SB-SETUP-1).
            {"teams": teams, "several_rounds": several_rounds}
            | ({} if stock_size is None else {"stock_size": stock_size}),
            computers=computers,
            level=level,
            turn_limit=turn_limit,
        )

    @skipbo.command(
        name=_("replay", key="cmd.replay.name"),
        description=_(
            "Replay a finished Skip-Bo game of this server step by step", key="cmd.skipbo.replay.description"
        ),
    )
    @app_commands.rename(game=_("game", key="cmd.replay.opt.game"))
    @app_commands.describe(
        game=_("The game's id (Game #id, /history)", key="cmd.replay.opt.game.description")
    )
    async def replay(self, interaction: discord.Interaction[Any], game: str) -> None:
        await replays.start(self.bot, interaction, "skipbo", game)

    @skipbo.command(
        name=_("rules", key="cmd.rules.name"),
        description=_("The rules of Skip-Bo, with this table's options", key="cmd.skipbo.rules.description"),
    )
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        await tables.rules(self.bot, interaction, "skipbo")

    @skipbo.command(
        name=_("end", key="cmd.end.name"),
        description=_("End this channel's game (unrated)", key="cmd.skyjo.end.description"),
    )
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        await tables.end(self.bot, interaction, "skipbo")

    @skipbo.command(
        name=_("kick", key="cmd.kick.name"),
        description=_("Give a player's seat to a computer player", key="cmd.skyjo.kick.description"),
    )
    @app_commands.rename(player=_("player", key="cmd.kick.opt.player"))
    @app_commands.describe(player=_("The player to replace", key="cmd.skyjo.kick.player"))
    async def kick(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        await tables.kick(self.bot, interaction, player, "skipbo")


async def setup(bot: SkyboBot) -> None:
    await bot.add_cog(SkipboCog(bot))


__all__ = ["SkipboCog", "setup"]
