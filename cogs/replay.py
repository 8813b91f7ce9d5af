"""The Previous / Next / Next round buttons of a replay (``/skyjo replay``, ``/skipbo replay``).

The commands live in their game's cog; this listener takes the replay buttons (custom_id prefix
``rpl:``, see :mod:`bot.ui.replay`), which carry their game and step: nothing is kept in memory, so
they still work after a restart.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.i18n import translate as t
from bot.ui import replay

if TYPE_CHECKING:
    from bot.client import SkyboBot

log = logging.getLogger(__name__)


class ReplayCog(commands.Cog):
    def __init__(self, bot: SkyboBot) -> None:
        self.bot = bot

    @commands.Cog.listener("on_interaction")
    async def on_replay_click(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.type is not discord.InteractionType.component:
            return
        data: Any = interaction.data or {}
        custom_id = str(data.get("custom_id", ""))
        if not custom_id.startswith(replay.PREFIX):
            return
        try:
            await replay.click(self.bot, interaction, custom_id)
        except Exception:
            log.exception("replay click failed", extra={"custom_id": custom_id[:100]})
            await self.bot.table_ui.tell(interaction, t("table.error.internal", interaction.locale))


async def setup(bot: SkyboBot) -> None:
    await bot.add_cog(ReplayCog(bot))


__all__ = ["ReplayCog", "setup"]
