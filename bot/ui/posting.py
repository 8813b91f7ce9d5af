"""Posting and editing in a table's channel, and what Discord's refusals there mean.

Every post or edit of a public message of the surfaces (a table's or a lobby's message, a turn's
mention or reminder) goes through :meth:`Posting.in_channel`, which turns Discord's answers into what
the bot does about them: the place gone (the channel's tables cancelled), posts refused (the clickers
told, :meth:`Posting.cannot_post`), a game's thread archived under it (unarchived, the edit retried).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import discord

from bot.ui import threads
from bot.ui.host import Host

# Discord's answers meaning the place of a table is gone (the table is cancelled), or that the message
# only is (it is posted again), or that the bot may no longer post there (the next clicker is told).
PLACE_GONE = {10003, 10004}  # Unknown Channel, Unknown Guild
UNKNOWN_MESSAGE = 10008
CANNOT_POST = {50001, 50013}  # Missing Access, Missing Permissions
NO_MENTIONS = discord.AllowedMentions.none()


class Posting:
    """The channels' side of every public post: refusals remembered, places gone, threads unarchived."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self._cannot_post: set[int] = set()  # channels where the last post or edit was refused (403)
        # The threads of games whose result is still to be posted there (TableMessages closes them):
        # an edit there that meets an archived thread unarchives it, as for a running game's.
        self.closing: set[int] = set()

    def cannot_post(self, channel_id: int | None) -> bool:
        """True while Discord refuses the bot's posts (or edits) in this channel, since its last refusal
        and until a post there succeeds: the players are told when they click (:class:`TableUI`)."""
        return channel_id in self._cannot_post

    def locale(self, guild_id: int | None) -> object:
        """The language of public messages: the server's fixed one (``/skybo settings``), else its own."""
        guild = self.bot.get_guild(guild_id) if guild_id else None
        return self.bot.service.public_locale(guild_id, guild.preferred_locale if guild is not None else None)

    @contextlib.asynccontextmanager
    async def in_channel(self, channel_id: int) -> AsyncIterator[None]:
        """Around every post or edit of a table or lobby message (and reminder) in ``channel_id``.

        10003 / 10004 (the channel or server is gone, e.g. deleted while the bot was stopped): every
        table there is cancelled (:meth:`TableService.cancel_gone`) and the failure ends here. 403
        50001 / 50013 (the bot may no longer see or post in the channel): the table goes on, the next
        clickers are told (:meth:`cannot_post`), and the error goes on to the caller (logged once,
        not retried: only a later change tries again). 400 50083 (a game's thread archived under it, or
        archived while the bot was stopped before the game's result was posted there): the thread is
        unarchived and the error goes on (the edit is retried; the close archives it again)."""
        try:
            yield
        except discord.NotFound as error:
            if error.code not in PLACE_GONE:
                raise
            why = "unknown channel" if error.code == 10003 else "unknown guild"
            await self.bot.service.cancel_gone(lambda _guild, channel: channel == channel_id, why)
        except discord.Forbidden as error:
            if error.code in CANNOT_POST:
                self._cannot_post.add(channel_id)
            raise
        except discord.HTTPException as error:
            # 50083: a game's thread was archived under it (a week without a message, or a moderator):
            # unarchive it and let the edit be tried again (bot.ui.threads).
            if error.code == threads.ARCHIVED and (
                self.bot.service.table_in_channel(channel_id) is not None or channel_id in self.closing
            ):
                await threads.unarchive(self.bot, channel_id)
            raise

    async def post(self, channel: discord.PartialMessageable, *args: Any, **kwargs: Any) -> discord.Message:
        """``channel.send``; a post that succeeds ends the "I can no longer post here" warning."""
        message = await channel.send(*args, **kwargs)
        self._cannot_post.discard(channel.id)
        return message
