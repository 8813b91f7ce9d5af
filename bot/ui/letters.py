"""A long game's direct messages sent through Discord (:class:`Letters`, the service's postman).

What the service decides (bot.service.letters), this writes: in the player's own Discord language
(the one their last click or command came in; the server's public one if the bot never saw it), the
game's name, the channel and a link to the table message, and the deadline as a Discord timestamp
(each reader sees it in their own time zone). Nothing hidden: no card, no hand.

A user who does not take direct messages from the bot (Discord: 403, code 50007) is no error: the
letter counts as delivered (False) and the game goes on; the log line names the game and the user,
never the text.
"""

from __future__ import annotations

import logging

import discord

from bot.i18n import translate as t
from bot.service import Letter
from bot.ui.host import Host
from bot.ui.views import message_link

log = logging.getLogger(__name__)

CANNOT_SEND_TO_USER = 50007  # Discord: the user's privacy settings refuse the bot's direct messages
NO_MENTIONS = discord.AllowedMentions.none()


def letter_text(letter: Letter, locale: object) -> str:
    """The message itself: which game, where, by when."""
    seconds = letter.due_ms // 1000
    return t(
        f"long_games.dm.{letter.what}",
        locale,
        game=letter.game,
        channel=f"<#{letter.channel_id}>",
        link=message_link(letter.guild_id, letter.channel_id, letter.message_id),
        deadline=f"<t:{seconds}:R>",
        when=f"<t:{seconds}:f>",
    )


class Letters:
    """Sends the letters the table service owes (``TableService.outbox``)."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot

    def _locale(self, letter: Letter) -> object:
        if letter.locale:
            return letter.locale
        guild = self.bot.get_guild(letter.guild_id) if letter.guild_id else None
        server = guild.preferred_locale if guild is not None else None
        return self.bot.service.public_locale(letter.guild_id, server)

    async def send_letter(self, letter: Letter) -> bool:
        text = letter_text(letter, self._locale(letter))
        try:
            channel = await self.bot.create_dm(discord.Object(letter.user_id))
            await channel.send(text, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as error:  # Discord answers 403 (a DM channel's creation: 400)
            if error.code != CANNOT_SEND_TO_USER:
                raise
            log.info(
                "direct messages closed",
                extra={"user_id": letter.user_id, "game_id": letter.game_id, "what": letter.what},
            )
            return False
        return True
