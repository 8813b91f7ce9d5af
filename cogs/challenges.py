"""The right-click challenges: one user command (type 2) per game of the registry, "Play <game> with …".

Each is named by its game's own catalogue (``cmd.<game>.challenge.name``: the English name, and the
French one as its ``name_localizations``; Discord allows a user command 1 to 32 characters, spaces
included) and answered by :mod:`bot.ui.challenges` through the answer of ``/<game> new``. A new game
adds no extension: its folder, its registry line and that catalogue key give it its challenge.

Declared for the server install and servers' channels only, for now (a lobby is posted in a channel
where the bot is; the tables of group DMs are another piece of issue 49).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands

from bot.games import registry
from bot.games.base import Game
from bot.ui.challenges import command_name

if TYPE_CHECKING:
    from bot.client import SkyboBot


def challenge_command(game: Game) -> app_commands.ContextMenu:
    """The game's "Play <game> with …" on a right-click of a person."""

    async def challenge(interaction: discord.Interaction[Any], person: discord.Member | discord.User) -> None:
        bot = cast("SkyboBot", interaction.client)  # the bot that loaded this extension
        await bot.answers.open_lobby(interaction, game, {}, challenged=person)

    return app_commands.ContextMenu(
        name=command_name(game),
        callback=challenge,
        type=discord.AppCommandType.user,
        allowed_installs=app_commands.AppInstallationType(guild=True, user=False),
        allowed_contexts=app_commands.AppCommandContext(guild=True, dm_channel=False, private_channel=False),
    )


async def setup(bot: SkyboBot) -> None:
    for game in registry.games():
        bot.tree.add_command(challenge_command(game))


async def teardown(bot: SkyboBot) -> None:
    for game in registry.games():
        bot.tree.remove_command(command_name(game).message, type=discord.AppCommandType.user)
