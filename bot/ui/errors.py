"""The one error funnel: what the user is told, and what the log says, when a slash command or a click
on any of our components fails.

:class:`bot.client.SkyboTree` (slash commands) and :class:`bot.ui.router.Router` (every component) both
hand their failures to :func:`answer_error`, which maps each failure to one private answer in the user's
language and at most one log line:

==================================  ===================================  ===========================
failure                             the user reads                       the log says
==================================  ===================================  ===========================
``Refused`` (a rule, a player's     its reason (``ChannelTaken``: and    DEBUG (a player's slip)
slip; ``bot.service``)              the link to the busy table)
``NoPrivateMessage``                ``table.error.guild_only``           nothing
other ``CheckFailure``              ``table.error.not_allowed``          nothing
a transient storage fault           ``table.error.unavailable``          WARNING, with the traceback
(``StorageError.transient``)        (nothing changed: try again)
``discord.HTTPException`` of a      nothing (Discord did not take our    WARNING (status, code)
click (its answer did not land)     answer: that token says no more)
anything else                       ``table.error.internal``             ERROR, with the traceback
==================================  ===================================  ===========================

ERROR is kept for what an operator must look at: a bug, or a fault nobody foresaw. A log line names the
user and the command or the loggable part of the custom_id (:func:`bot.ui.ids.loggable`: never a card
of a private panel); no error text of the user's goes to the log, no traceback to the user.
The answer is checked against ``interaction.response.is_done()``: first answer or follow-up.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

import discord
from discord import app_commands

from bot.i18n import placeholders, template
from bot.i18n import translate as t
from bot.service import ChannelTaken, Refused
from bot.service.computers import transient_fault
from bot.ui import card_emojis, command_names, ids
from bot.ui.views import message_link

log = logging.getLogger(__name__)

Source = Literal["command", "click"]


# Placeholders of a refusal that its reader's side fills: the service knows no reader's language, nor
# how their Discord names a command. ``{end_commands}``: every game's ``/<game> end`` (the registry's).
READER_PLACEHOLDERS = {"end_commands": lambda locale: command_names.game_commands("cmd.end.name", locale)}


def refusal_text(refused: Refused, locale: object) -> str:
    """A refusal's reason in ``locale`` (a busy channel: with the link to the table holding it)."""
    wanted = placeholders(template(refused.key, locale)) & READER_PLACEHOLDERS.keys()
    params = {name: READER_PLACEHOLDERS[name](locale) for name in wanted} | refused.params
    text = t(refused.key, locale, **params)
    if isinstance(refused, ChannelTaken):
        text += "\n" + message_link(refused.guild_id, refused.channel_id, refused.message_id)
    return text


async def tell(interaction: discord.Interaction[Any], text: str) -> None:
    """A private message to the user (first answer or follow-up); an answer Discord refuses is logged."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not answer an interaction", extra={"user_id": interaction.user.id})


def _where(interaction: discord.Interaction[Any], source: Source) -> dict[str, Any]:
    if source == "command":
        command = interaction.command.qualified_name if interaction.command else "?"
        return {"command": command}
    data: Any = interaction.data or {}
    return {"custom_id": ids.loggable(data.get("custom_id"))}


def error_text(interaction: discord.Interaction[Any], error: BaseException, source: Source) -> str | None:
    """What to tell the user of ``error`` (None: nothing can be told), after logging it (see the
    module docstring)."""
    original = getattr(error, "original", error)  # a command's CommandInvokeError wraps it
    locale = interaction.locale
    user_id = interaction.user.id
    if isinstance(original, Refused):
        log.debug(  # a player's slip, one per click or command: not an operator's concern
            f"{source} refused",
            extra={"user_id": user_id, "reason": original.key, "channel_id": interaction.channel_id},
        )
        return refusal_text(original, locale)
    if isinstance(error, app_commands.NoPrivateMessage):
        return t("table.error.guild_only", locale)
    if isinstance(error, app_commands.CheckFailure):
        return t("table.error.not_allowed", locale)
    if source == "click" and isinstance(original, discord.HTTPException):
        # Discord did not take our answer, even after the retries (a lost interaction, a dismissed
        # panel): nothing the bot can mend, and nothing to tell through that token.
        log.warning(
            "click not answered",
            extra={"user_id": user_id, "status": original.status, "code": original.code},
        )
        emojis = getattr(interaction.client, "card_emojis", None)
        if card_emojis.refused(original) and isinstance(emojis, card_emojis.CardEmojis):
            emojis.forget()  # an emoji deleted since the start: none shown until listed again
        return None
    if isinstance(original, Exception) and transient_fault(original) is not None:
        log.warning(
            f"{source} failed: the database did not answer",
            extra=_where(interaction, source),
            exc_info=original,
        )
        return t("table.error.unavailable", locale)
    log.error(f"{source} failed", extra=_where(interaction, source), exc_info=original)
    return t("table.error.internal", locale)


async def answer_error(interaction: discord.Interaction[Any], error: BaseException, source: Source) -> None:
    """The funnel: log ``error`` and answer the user privately (see the module docstring)."""
    text = error_text(interaction, error, source)
    if text is not None:
        await tell(interaction, text)


__all__ = ["Source", "answer_error", "error_text", "refusal_text", "tell"]
