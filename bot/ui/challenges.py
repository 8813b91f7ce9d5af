"""A right-click challenge (issue 49): "Play <game> with …" on a person opens a lobby holding their seat.

Each game of the registry has one user command (type 2, built by ``cogs/challenges.py``; its name is the
game's own ``cmd.<game>.challenge.name``). Its answer is :meth:`bot.ui.answers.Answers.open_lobby`, the
answer of ``/<game> new`` with no option given, the clicker the host: the same service call opens the
same lobby with the game's defaults, in the same channel, with the challenged person's seat held
(:func:`bot.service.types.challenge_options`: stored with the lobby, so a restart keeps it, and carried
by the lobby's events, so every surface draws it). Only they may take that seat (their Join); the
other seats stay free for anyone; their Leave declines; the host's Start without them asks first.

**Who is refused**, privately, nothing opened: challenging oneself or a bot (:func:`check_target`), and,
as ``/<game> new`` is, a channel that has a table or a lobby already (with the link to it).

**How the challenged person is told** (:func:`tell`): a direct message, in their own Discord language
as the bot last saw it (else the server's), naming the host, the game and the channel, where the bot
can send one; else, and also when they chose ``/skybo notify off`` (no direct message from the bot),
the lobby's first post mentions them, with ``allowed_mentions`` for that user only (the lobby's later
edits name them without a ping: Discord pings on a message's creation only). The direct message is
sent before the lobby is posted, so that the post knows whether to mention: it has until
:data:`bot.ui.on_time.ANSWER_BY` after the right-click (the post must land within Discord's 3 s);
one not delivered by then is given up and the lobby mentions them instead.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
from discord import app_commands

from bot.games import registry
from bot.games.base import Game
from bot.i18n import DEFAULT_LANGUAGE, catalogue, template
from bot.i18n import translate as t
from bot.render.messages import or_list
from bot.render.names import escape_name
from bot.service import Refused
from bot.storage import StorageError
from bot.storage.lobbies import Lobby
from bot.ui import on_time
from bot.ui.host import Host
from bot.ui.letters import CANNOT_SEND_TO_USER, NO_MENTIONS
from bot.ui.views import message_link

log = logging.getLogger(__name__)

NAME_KEY = "cmd.{kind}.challenge.name"  # a game's user command's name, in its own catalogue files
NAME_LIMIT = 32  # Discord: a user command's name is 1 to 32 characters
Person = discord.User | discord.Member


def command_name(game: Game) -> app_commands.locale_str:
    """The game's user command's name: its own ``cmd.<game>.challenge.name`` (English, and the
    translator gives Discord the other languages from the same key); a game that declares none gets
    "Play <title> with …" in English alone."""
    key = NAME_KEY.format(kind=game.name)
    if key in catalogue(DEFAULT_LANGUAGE):
        return app_commands.locale_str(template(key, DEFAULT_LANGUAGE), key=key)
    return app_commands.locale_str(f"Play {game.title[: NAME_LIMIT - 12]} with …")


def shown_commands(locale: object) -> str:
    """Every game's user command as the reader's Discord shows it, in bold ("**a** or **b**"): /help."""

    def shown(name: app_commands.locale_str) -> str:
        key = name.extras.get("key")
        return t(key, locale) if key else name.message

    return or_list([f"**{shown(command_name(game))}**" for game in registry.games()], locale)


def check_target(host: Person, target: Person) -> None:
    """Refused (privately, by the funnel) when ``target`` cannot be challenged: oneself, or a bot."""
    if target.id == host.id:
        raise Refused("challenge.error.self")
    if target.bot:
        raise Refused("challenge.error.bot", player=f"<@{target.id}>")


def shown_name(person: Person) -> str:
    """The name a lobby stores for a person, as ``/<game> new`` stores its host's."""
    return getattr(person, "display_name", None) or person.name


async def tell(
    bot: Host, interaction: discord.Interaction[Any], lobby: Lobby, game: Game, target: Person
) -> bool:
    """Tell ``target`` of the challenge by a direct message (see the module docstring): True once sent,
    False when it could not be (their direct messages closed, ``/skybo notify off``, no time left):
    then the lobby's post mentions them."""
    try:
        prefs = (await bot.service.user_prefs.of([target.id]))[target.id]
    except StorageError:  # the database away: the lobby is stored, its post must go; it mentions them
        log.warning("challenge letter not sent: no preferences", extra={"user_id": target.id}, exc_info=True)
        return False
    budget = on_time.answer_budget(interaction.id)
    if not prefs.notify or budget <= 0:
        return False
    locale = prefs.locale or bot.service.public_locale(lobby.guild_id, interaction.guild_locale)
    text = t(
        "challenge.dm",
        locale,
        host=escape_name(lobby.seats[0].name),  # the host's name (a mention in a DM may not resolve)
        game=game.title,
        channel=f"<#{lobby.channel_id}>",
        link=message_link(lobby.guild_id, lobby.channel_id, None),
    )
    try:
        await asyncio.wait_for(_send(bot, target.id, text), timeout=budget)
    except TimeoutError:
        log.info("challenge letter not sent in time", extra={"user_id": target.id, "lobby_id": lobby.id})
        return False
    except discord.HTTPException as error:
        if error.code != CANNOT_SEND_TO_USER:
            log.warning(
                "challenge letter failed",
                extra={"user_id": target.id, "status": error.status, "code": error.code},
            )
        else:
            log.info("direct messages closed", extra={"user_id": target.id, "lobby_id": lobby.id})
        return False
    return True


async def _send(bot: Host, user_id: int, text: str) -> None:
    channel = await bot.create_dm(discord.Object(user_id))
    await channel.send(text, allowed_mentions=NO_MENTIONS)


def mention_only(user_id: int) -> discord.AllowedMentions:
    """The lobby's first post when the direct message could not go: it pings the challenged alone."""
    return discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(user_id)])
