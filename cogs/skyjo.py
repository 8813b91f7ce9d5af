"""``/skyjo new``, ``/skyjo rules``, ``/skyjo end`` and ``/skyjo kick``: parse, ask the table service, answer.

Every command, option and choice name is localized through the catalogues (``cmd.*`` keys, see
``CatalogueTranslator``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.games.skyjo import SKYJO
from bot.games.skyjo.engine import EDITIONS
from bot.ui import command_options
from bot.ui import replay as replays
from cogs import tables

if TYPE_CHECKING:
    from bot.client import SkyboBot

# The declared ranges are the ones the table service accepts (tests/e2e/test_option_ranges.py).
SCORE_LIMIT = SKYJO.option_ranges["score_limit"]
MULTIPLIER = SKYJO.option_ranges["finisher_multiplier"]
COLUMNS = SKYJO.option_ranges["columns"]
ROWS = SKYJO.option_ranges["rows"]
REVEALS = SKYJO.option_ranges["initial_reveals"]
# The editions the engine knows (SKY-PLAYERS-1), each with its table size.
EDITION_CHOICES = [
    app_commands.Choice(
        name=_(f"{name} ({SKYJO.min_players}-{most} players)", key=f"cmd.skyjo.edition.{name}"), value=name
    )
    for name, most in EDITIONS.items()
]
MAX_COMPUTERS = SKYJO.max_players - 1  # the host holds a seat


class SkyjoCog(commands.Cog):
    skyjo = app_commands.Group(
        name="skyjo",
        description=_("Play Skyjo at this channel's table", key="cmd.skyjo.description"),
        guild_only=True,
    )

    def __init__(self, bot: SkyboBot) -> None:
        self.bot = bot

    @skyjo.command(
        name=_("new", key="cmd.new.name"),
        description=_("Open a Skyjo table in this channel", key="cmd.skyjo.new.description"),
        # The table service checks these values, with reasons of its own (a turn limit from the list...).
        extras={command_options.SERVICE_CHECKS_VALUES: True},
    )
    @app_commands.rename(
        score_limit=_("score_limit", key="cmd.skyjo.new.opt.score_limit"),
        finisher_multiplier=_("finisher_multiplier", key="cmd.skyjo.new.opt.multiplier"),
        row_clearing=_("row_clearing", key="cmd.skyjo.new.opt.row_clearing"),
        previous_finisher_starts=_("previous_finisher_starts", key="cmd.skyjo.new.opt.previous_starts"),
        columns=_("columns", key="cmd.skyjo.new.opt.columns"),
        rows=_("rows", key="cmd.skyjo.new.opt.rows"),
        initial_reveals=_("initial_reveals", key="cmd.skyjo.new.opt.reveals"),
        edition=_("edition", key="cmd.skyjo.new.opt.edition"),
        computers=tables.COMPUTERS,
        level=tables.LEVEL,
        turn_limit=tables.TURN_LIMIT,
    )
    @app_commands.describe(
        score_limit=_("The game ends when someone reaches this total (100)", key="cmd.skyjo.new.score_limit"),
        finisher_multiplier=_(
            "The finisher's score is multiplied by this unless lowest (2)", key="cmd.skyjo.new.multiplier"
        ),
        row_clearing=_("Rows of equal cards leave the grid too", key="cmd.skyjo.new.row_clearing"),
        previous_finisher_starts=_(
            "The previous round's finisher starts", key="cmd.skyjo.new.previous_starts"
        ),
        columns=_("Columns of each grid (4)", key="cmd.skyjo.new.columns"),
        rows=_("Rows of each grid, the cards in a column (3)", key="cmd.skyjo.new.rows"),
        initial_reveals=_(
            "Cards each player turns face up before the first turn (2)", key="cmd.skyjo.new.reveals"
        ),
        edition=_("classic (2-8 players) or Voyage, the travel edition (2-4)", key="cmd.skyjo.new.edition"),
        computers=_("How many computer players sit at the table", key="cmd.skyjo.new.computers"),
        level=_("How well the computer players play", key="cmd.skyjo.new.level"),
        turn_limit=tables.TURN_LIMIT_HELP,
    )
    @app_commands.choices(level=tables.LEVEL_CHOICES)
    @app_commands.choices(turn_limit=tables.TURN_LIMIT_CHOICES)
    @app_commands.choices(edition=EDITION_CHOICES)
    async def new(
        self,
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
    ) -> None:
        await tables.open_table(
            self.bot,
            interaction,
            "skyjo",
            {
                "score_limit": score_limit,
                "finisher_multiplier": finisher_multiplier,
                "row_clearing": row_clearing,
                "previous_finisher_starts": previous_finisher_starts,
                "columns": columns,
                "rows": rows,
                "initial_reveals": initial_reveals,
                "edition": edition,
            },
            computers=computers,
            level=level,
            turn_limit=turn_limit,
        )

    @skyjo.command(
        name=_("replay", key="cmd.replay.name"),
        description=_(
            "Replay a finished Skyjo game of this server step by step", key="cmd.skyjo.replay.description"
        ),
    )
    @app_commands.rename(game=_("game", key="cmd.replay.opt.game"))
    @app_commands.describe(
        game=_("The game's id (Game #id, /history)", key="cmd.replay.opt.game.description")
    )
    async def replay(self, interaction: discord.Interaction[Any], game: str) -> None:
        await replays.start(self.bot, interaction, "skyjo", game)

    @skyjo.command(
        name=_("rules", key="cmd.rules.name"),
        description=_("The rules of Skyjo, with this table's options", key="cmd.skyjo.rules.description"),
    )
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        await tables.rules(self.bot, interaction, "skyjo")

    @skyjo.command(
        name=_("end", key="cmd.end.name"),
        description=_("End this channel's game (unrated)", key="cmd.skyjo.end.description"),
    )
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        await tables.end(self.bot, interaction, "skyjo")

    @skyjo.command(
        name=_("kick", key="cmd.kick.name"),
        description=_("Give a player's seat to a computer player", key="cmd.skyjo.kick.description"),
    )
    @app_commands.rename(player=_("player", key="cmd.kick.opt.player"))
    @app_commands.describe(player=_("The player to replace", key="cmd.skyjo.kick.player"))
    async def kick(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        await tables.kick(self.bot, interaction, player, "skyjo")


async def setup(bot: SkyboBot) -> None:
    await bot.add_cog(SkyjoCog(bot))


__all__ = ["SkyjoCog", "setup"]
