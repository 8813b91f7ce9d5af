"""The Start / Previous / Next / End of game and Previous round / End of round / Next round buttons of a
replay (``/<game> replay``).

The commands live in their game's cog; this cog registers the replay buttons' route with the one router
(custom_id prefix ``rpl:``, see :mod:`bot.ui.replay` and :mod:`bot.ui.router`). The buttons carry their
game and step: nothing is kept in memory, so they still work after a restart. A malformed id gets
``replay.error.malformed``; a well-formed one is not checked against the clicked message, as the click
reads the game again and refuses an unknown game exactly as another server's (no id is revealed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.ui import replay
from bot.ui.router import Route

if TYPE_CHECKING:
    from bot.client import SkyboBot


class ReplayCog(commands.Cog):
    def __init__(self, bot: SkyboBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        route = Route(
            replay.PREFIX,
            replay.BUTTON_ID,
            self.on_replay_click,
            forged_key="replay.error.malformed",
            on_message=False,
        )
        self.bot.router.add(route)

    async def cog_unload(self) -> None:
        self.bot.router.remove(replay.PREFIX)

    async def on_replay_click(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        await replay.click(self.bot, interaction, custom_id)


async def setup(bot: SkyboBot) -> None:
    await bot.add_cog(ReplayCog(bot))


__all__ = ["ReplayCog", "setup"]
