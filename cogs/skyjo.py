"""``/skyjo new``, ``/skyjo end`` and ``/skyjo kick``: parse, ask the table service, answer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.i18n import translate as t
from bot.service import Refused, Table

if TYPE_CHECKING:
    from bot.client import SkyboBot

LEVEL_CHOICES = [
    app_commands.Choice(name=_("easy", key="cmd.skyjo.level.easy"), value="easy"),
    app_commands.Choice(name=_("normal", key="cmd.skyjo.level.normal"), value="normal"),
    app_commands.Choice(name=_("hard", key="cmd.skyjo.level.hard"), value="hard"),
]


class SkyjoCog(commands.Cog):
    skyjo = app_commands.Group(
        name="skyjo",
        description=_("Play Skyjo at this channel's table", key="cmd.skyjo.description"),
        guild_only=True,
    )

    def __init__(self, bot: SkyboBot) -> None:
        self.bot = bot

    @skyjo.command(
        name="new", description=_("Open a Skyjo table in this channel", key="cmd.skyjo.new.description")
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
        computers=_("How many computer players sit at the table", key="cmd.skyjo.new.computers"),
        level=_("How well the computer players play", key="cmd.skyjo.new.level"),
    )
    @app_commands.choices(level=LEVEL_CHOICES)
    async def new(
        self,
        interaction: discord.Interaction[Any],
        score_limit: app_commands.Range[int, 10, 1000] = 100,
        finisher_multiplier: app_commands.Range[int, 1, 5] = 2,
        row_clearing: bool = False,
        previous_finisher_starts: bool = False,
        computers: app_commands.Range[int, 0, 7] = 0,
        level: str = "normal",
    ) -> None:
        user = interaction.user
        lobby = await self.bot.service.open_lobby(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id or 0,
            host_id=user.id,
            host_name=getattr(user, "display_name", None) or user.name,
            options={
                "score_limit": score_limit,
                "finisher_multiplier": finisher_multiplier,
                "row_clearing": row_clearing,
                "previous_finisher_starts": previous_finisher_starts,
            },
            computers=computers,
            level=level,
            locale=interaction.guild_locale,
        )
        await self.bot.skyjo_ui.post_lobby(interaction, lobby)

    @skyjo.command(
        name="end", description=_("End this channel's game (unrated)", key="cmd.skyjo.end.description")
    )
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        can_manage = interaction.permissions.manage_channels
        ended = await self.bot.service.end(
            interaction.channel_id or 0, interaction.user.id, can_manage=can_manage
        )
        if isinstance(ended, Table):
            self.bot.presenter.table_changed(ended)
        else:
            self.bot.presenter.lobby_changed(ended.id)
        await interaction.response.send_message(
            t("table.ended", interaction.guild_locale, user=interaction.user.mention),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @skyjo.command(
        name="kick",
        description=_("Give a player's seat to a computer player", key="cmd.skyjo.kick.description"),
    )
    @app_commands.describe(player=_("The player to replace", key="cmd.skyjo.kick.player"))
    async def kick(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        if player.bot:
            raise Refused("table.error.kick_not_player")
        _table, _seat = await self.bot.service.kick(
            interaction.channel_id or 0, interaction.user.id, player.id
        )
        await interaction.response.send_message(
            t("table.kicked", interaction.guild_locale, player=player.mention),
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def setup(bot: SkyboBot) -> None:
    await bot.add_cog(SkyjoCog(bot))


__all__ = ["SkyjoCog", "setup"]
