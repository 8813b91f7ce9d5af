"""Where an interaction happens, and whether the bot may post there (issue 49): :class:`Venue`.

Since Discord lets a person install an app to their own account, an interaction comes from one of four
kinds of place, told apart by what the interaction itself carries (Discord's ``context`` and
``authorizing_integration_owners``; no cache, no request):

==========================  ====================================================  ==============
``kind``                    the place                                             ``bot_can_post``
==========================  ====================================================  ==============
``"server"``                a server's channel, the app installed to the server   True
                            (its bot a member: ``interaction.is_guild_integration()``)
``"server_without_bot"``    a server's channel reached through a user install     False
                            only: the bot is not a member
``"bot_dm"``                the direct messages between the user and the bot      True
``"group_dm"``              a group DM, or a DM between two users (Discord's      False
                            PRIVATE_CHANNEL context): the bot is in neither
==========================  ====================================================  ==============

``bot_can_post``: the bot may use the channel's own routes there (post a message, edit its messages),
because it is a member of the place. Where it is not, it can only answer the interaction itself: the
callback, then follow-ups and edits of that answer through the interaction's token (15 minutes; 5
follow-ups when only a user install authorized it), every channel route answering 403 / 50001 Missing
Access. Whether a channel's permissions let a member bot post is another matter, met when it posts
(:mod:`bot.ui.posting`): a server with the bot is ``bot_can_post`` whatever the channel's overwrites.

Skybo's install link always asks for the ``bot`` scope, so a server install is read as the bot being a
member. An interaction without ``context`` (Discord sends it since 2024) is placed by its ``guild_id``
and channel type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import discord

Kind = Literal["server", "server_without_bot", "bot_dm", "group_dm"]
SERVER: Kind = "server"
SERVER_WITHOUT_BOT: Kind = "server_without_bot"
BOT_DM: Kind = "bot_dm"
GROUP_DM: Kind = "group_dm"
KINDS: tuple[Kind, ...] = (SERVER, SERVER_WITHOUT_BOT, BOT_DM, GROUP_DM)
_MEMBER_OF = frozenset({SERVER, BOT_DM})  # the places the bot is a member of


@dataclass(frozen=True)
class Venue:
    """The kind of place an interaction comes from, and whether the bot may post there (see the module
    docstring)."""

    kind: Kind
    bot_can_post: bool

    @classmethod
    def of(cls, interaction: discord.Interaction[Any]) -> Venue:
        """Where ``interaction`` happens, read from the interaction alone."""
        context = interaction.context
        if not (context.guild or context.dm_channel or context.private_channel):  # no context sent
            context = discord.app_commands.AppCommandContext(
                guild=interaction.guild_id is not None,
                private_channel=isinstance(interaction.channel, discord.GroupChannel),
            )
        kind: Kind
        if context.guild:
            kind = SERVER if interaction.is_guild_integration() else SERVER_WITHOUT_BOT
        elif context.private_channel:
            kind = GROUP_DM
        else:
            kind = BOT_DM
        return cls(kind, kind in _MEMBER_OF)


__all__ = ["BOT_DM", "GROUP_DM", "KINDS", "SERVER", "SERVER_WITHOUT_BOT", "Kind", "Venue"]
