"""``/history [user]``: a player's latest finished games on this server, with each game's id.

Answered **privately** (ephemeral) in the asker's language, like ``/stats``: a look-up for one
reader. Only this server's games are listed (``games.guild_id``); outside a server there is no
server to list, so the answer says so, privately. The ids are those the final table message shows
and that a replay will take. The words come from ``history.*`` and ``cmd.history.*``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.i18n import translate as t
from bot.ui import history, installs

if TYPE_CHECKING:
    from bot.client import SkyboBot


class HistoryCog(commands.Cog):
    def __init__(self, bot: SkyboBot) -> None:
        self.bot = bot

    @app_commands.command(
        name=_("history", key="cmd.history.name"),
        description=_(
            "List a player's recent games on this server, with their ids", key="cmd.history.description"
        ),
    )
    @installs.anywhere
    @app_commands.rename(user=_("user", key="cmd.history.opt.user"))
    @app_commands.describe(user=_("Whose games (you)", key="cmd.history.opt.user.description"))
    async def history_command(
        self, interaction: discord.Interaction[Any], user: discord.User | None = None
    ) -> None:
        if interaction.guild_id is None:
            await interaction.response.send_message(
                t("history.error.no_server", interaction.locale), ephemeral=True
            )
            return
        storage = self.bot.storage
        assert storage is not None, "storage opens in setup_hook"
        who = user or interaction.user
        games = await storage.results.played(who.id, interaction.guild_id, limit=history.HISTORY_GAMES)
        name = getattr(who, "display_name", None) or who.name  # escaped by history_body
        body = history.history_body(name, games, interaction.locale)
        await interaction.response.send_message(
            embed=discord.Embed.from_dict(body.embed or {}),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def setup(bot: SkyboBot) -> None:
    await bot.add_cog(HistoryCog(bot))


__all__ = ["HistoryCog", "setup"]
