"""Opening a table from the Activity (docs/activity.md, "Opening a table"): launched where no table is.

A sign-in where the channel has no table answers a :class:`~bot.activity.sessions.ChannelSession` (the
user and the instance's channel, read from Discord as for a table's session) with :func:`offer`: the
games the bot has, whether the bot can open a table there, and the lobby already open there, if any.
``POST api/open`` with that session and a game is :func:`open_table`: the lobby ``/<game> new`` with no
option would open, by the same service call (:meth:`bot.service.TableService.open_lobby`, with every
check and refusal it makes: one table per channel, the server's settings, the fair-use caps), opened
with ``answered=False``: no command answers with its message, so the channel's surface posts it as a
listener of ``LobbyOpened`` (:mod:`bot.ui.table_messages`). The page then asks ``POST api/channel``
(:func:`channel_state`) every few seconds until the game is dealt, and signs in again for the table.

The bot opens a table only where it is a member of the server (it posts the lobby with the channel
route, having no interaction token): in a group DM or a server it is not in, :func:`offer` says it
cannot (the page says to use ``/<game> new`` there). Where it may not post (no View Channel or Send
Messages for it in the channel, as far as its cache knows), the open is refused with that reason; a
post Discord refuses anyway cancels the lobby (the page is back to the offer).
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord

from bot.activity.sessions import ChannelSession
from bot.games import registry
from bot.i18n import translate as t
from bot.service import Refused, TableService
from bot.service.types import THREAD_PARENT
from bot.storage.lobbies import Lobby

NOT_HERE = "activity.open.not_here"  # the bot is not a member of this place
CANNOT_POST = "activity.open.cannot_post"  # the bot may not post in this channel
_CHANNEL_MENTION = re.compile(r"<#(\d+)>")
_COMMAND_MENTION = re.compile(r"</([^:>]+):\d+>")


class Host(Protocol):
    """What opening a table reads of the bot (``bot.client.SkyboBot``)."""

    @property
    def service(self) -> TableService: ...
    def get_guild(self, guild_id: int, /) -> discord.Guild | None: ...
    def get_channel(self, channel_id: int, /) -> Any: ...


def games(language: str) -> list[dict[str, str]]:
    """The games the bot has, in order: their kind, name and one line about them, in ``language``."""
    return [
        {"kind": game.name, "name": game.title, "about": t(f"cmd.{game.name}.description", language)}
        for game in registry.games()
    ]


def commands(language: str) -> str:
    """The games' ``/<game> new`` commands, as Discord shows them in ``language``."""
    return ", ".join(f"/{game.name} {t('cmd.new.name', language)}" for game in registry.games())


def can_open(bot: Host, guild_id: int | None) -> bool:
    """True where the bot is a member of the channel's server (it posts the lobby there itself)."""
    return guild_id is not None and bot.get_guild(guild_id) is not None


def cannot_post(bot: Host, channel_id: int) -> bool:
    """True when the bot's cache says it may not see or post in the channel (an unknown channel, a
    thread not cached: not known, so False; Discord's own refusal of the post then cancels the lobby)."""
    channel = bot.get_channel(channel_id)
    guild = getattr(channel, "guild", None)
    me = getattr(guild, "me", None)
    if channel is None or me is None or not hasattr(channel, "permissions_for"):
        return False
    allowed = channel.permissions_for(me)
    post = allowed.send_messages_in_threads if isinstance(channel, discord.Thread) else allowed.send_messages
    return not (allowed.view_channel and post)


async def lobby_of(bot: Host, channel_id: int) -> dict[str, Any] | None:
    """The lobby open in the channel, as the page shows it (its game and who sits), or None."""
    lobby = await bot.service.lobbies.open_in_channel(channel_id)
    if lobby is None:
        return None
    return {
        "kind": lobby.kind,
        "name": registry.BY_KIND[lobby.kind].title if lobby.kind in registry.BY_KIND else lobby.kind,
        "seats": [seat.name for seat in lobby.seats],
    }


async def offer(bot: Host, session: ChannelSession) -> dict[str, Any]:
    """What the page offers where no table is (the no_table answer's body, beside the session)."""
    return {
        "language": session.language,
        "games": games(session.language),
        "commands": commands(session.language),
        "can_open": can_open(bot, session.guild),
        "lobby": await lobby_of(bot, session.channel),
    }


async def channel_state(bot: Host, session: ChannelSession) -> dict[str, Any]:
    """``api/channel``: whether the channel has a table now (the page signs in again), else its lobby;
    ``thread``: a game of this channel's lobby is being played in a thread of its own (the server's
    threads setting), where the Activity is to be opened to see it."""
    service = bot.service
    table = service.table_in_channel(session.channel)
    if table is not None and not table.finished:
        return {"table": True, "lobby": None, "thread": False}
    lobby = await lobby_of(bot, session.channel)
    thread = lobby is None and any(
        tb.stored.meta.get(THREAD_PARENT) == session.channel and not tb.finished
        for tb in service.tables.values()
    )
    return {"table": False, "lobby": lobby, "thread": thread}


async def open_table(bot: Host, session: ChannelSession, kind: str) -> Lobby:
    """The lobby of ``kind`` that ``/<game> new`` with no option would open, for the session's user in
    its channel (see the module doc). Raises :class:`Refused` (the service's refusals, and this
    module's :data:`NOT_HERE` and :data:`CANNOT_POST`)."""
    game = registry.find(kind)
    if game is None:
        raise Refused("table.error.forged")
    if not can_open(bot, session.guild):
        raise Refused(NOT_HERE, commands=commands(session.language))
    if cannot_post(bot, session.channel):
        raise Refused(CANNOT_POST, commands=commands(session.language))
    asked = game.new.table_options({})
    guild = bot.get_guild(session.guild) if session.guild is not None else None
    service = bot.service
    locale = service.public_locale(session.guild, guild.preferred_locale if guild is not None else None)
    return await service.open_lobby(
        kind=game.name,
        guild_id=session.guild,
        channel_id=session.channel,
        host_id=session.user,
        host_name=session.name,
        options=asked.options,
        computers=asked.computers,
        level=asked.level,
        locale=locale,
        turn_limit=asked.turn_limit,
        thread=asked.thread,
        answered=False,
    )


def refusal_text(bot: Host, refusal: Refused, language: str) -> str:
    """A refusal in the bot's own words, in ``language``, its Discord mentions made plain text (a
    channel's ``<#id>`` its ``#name``, a command's ``</name:id>`` its ``/name``)."""
    text = t(refusal.key, language, **refusal.params)

    def channel_name(match: re.Match[str]) -> str:
        channel = bot.get_channel(int(match.group(1)))
        return f"#{getattr(channel, 'name', None) or match.group(1)}"

    return _COMMAND_MENTION.sub(r"/\1", _CHANNEL_MENTION.sub(channel_name, text))
