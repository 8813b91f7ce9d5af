"""Where each slash command works (issue 49): its installations and contexts, declared here once, checked
by the bot when a command arrives, and fitted to what the application allows.

Discord offers a top-level command (a subcommand goes wherever its group goes) only where its
declaration reaches: ``integration_types`` (0 the server install, 1 the user install) and ``contexts``
(0 a server's channel, 1 the bot's DM, 2 a group DM or a DM between users, Discord's PRIVATE_CHANNEL).
Two declarations serve every command (docs/discord.md, "Where each command works", has the table and
each reason):

- :func:`everywhere` (:func:`anywhere` as a decorator): both installations, every context. The games'
  groups, so that ``/<game> new`` may be run anywhere (where the bot cannot post, it says so in one line
  until the table that lives in the interaction's own message comes), and the commands that only answer
  the interaction: ``/help``, ``/history``, ``/stats``, ``/leaderboard``.
- :func:`servers`: the server install, in a server's channels and the bot's DM: ``/skybo``, a server's
  settings, seasons and tournaments (and each player's ``display`` and ``notify``, in the same group,
  which answered in the bot's DM before and still do).

:func:`check_place`, the tree's interaction check, refuses a command reached in a place its declaration
leaves out (a stale or modified client, a crafted payload): one private line in the reader's language
(``venue.refused.<kind>``), nothing done. :func:`fit` narrows the declarations to an application whose
**User Install** is off in the Developer Portal: Discord refuses a command declaring an installation the
application lacks (400 / 50035, and the whole sync with it), so the bot, once logged in, declares its
commands for servers only there (``python -m bot sync`` says so).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import discord
from discord import app_commands
from discord.app_commands import AppCommandContext, AppInstallationType

from bot.service import Refused
from bot.ui.venue import BOT_DM, GROUP_DM, SERVER, SERVER_WITHOUT_BOT, Venue

log = logging.getLogger(__name__)

T = TypeVar("T")
REFUSED = "venue.refused.{kind}"  # the line of a command reached where its declaration does not reach


def everywhere() -> dict[str, Any]:
    """A ``Group``'s or ``Command``'s keyword arguments: both installations, every context."""
    return {
        "allowed_installs": AppInstallationType(guild=True, user=True),
        "allowed_contexts": AppCommandContext(guild=True, dm_channel=True, private_channel=True),
    }


def servers() -> dict[str, Any]:
    """A ``Group``'s or ``Command``'s keyword arguments: the server install, in a server's channels and
    the bot's DM."""
    return {
        "allowed_installs": AppInstallationType(guild=True, user=False),
        "allowed_contexts": AppCommandContext(guild=True, dm_channel=True, private_channel=False),
    }


def anywhere(command: T) -> T:
    """:func:`everywhere` as discord.py's decorators, for a cog's ``@app_commands.command``."""
    installs: Callable[[T], T] = app_commands.allowed_installs(guilds=True, users=True)
    contexts: Callable[[T], T] = app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    return contexts(installs(command))


def reaches(installs: AppInstallationType | None, contexts: AppCommandContext | None, venue: Venue) -> bool:
    """Whether a command so declared is offered in ``venue`` (None: undeclared, Discord's default of
    everywhere). A server without the bot and a private channel are reached by a user install only."""
    if contexts is not None:
        allowed = {
            SERVER: contexts.guild,
            SERVER_WITHOUT_BOT: contexts.guild,
            BOT_DM: contexts.dm_channel,
            GROUP_DM: contexts.private_channel,
        }
        if not allowed[venue.kind]:
            return False
    users_only = venue.kind in (SERVER_WITHOUT_BOT, GROUP_DM)
    return installs is None or not users_only or installs.user


class PlaceRefused(app_commands.AppCommandError):
    """Raised from the tree's interaction check; the error funnel answers ``original``'s reason."""

    def __init__(self, refused: Refused) -> None:
        super().__init__(refused.key)
        self.original = refused


def check_place(command: Any, interaction: discord.Interaction[Any]) -> None:
    """Raises :class:`PlaceRefused` when the top-level ``command`` (a Group, a Command or a context menu)
    is not declared for where ``interaction`` happens (see the module docstring)."""
    root = getattr(command, "root_parent", None) or command
    venue = Venue.of(interaction)
    if reaches(getattr(root, "allowed_installs", None), getattr(root, "allowed_contexts", None), venue):
        return
    log.info(
        "command refused in a place it is not declared for",
        extra={"user_id": interaction.user.id, "command": str(getattr(root, "name", "?")), "at": venue.kind},
    )
    raise PlaceRefused(Refused(REFUSED.format(kind=venue.kind)))


def fit(commands: Iterable[Any], *, users: bool) -> list[str]:
    """Narrows the declarations of ``commands`` (top-level) to an application that users may not install
    (``users`` False): no user install, no private channel (only a user install reaches one). Returns
    the names of the commands narrowed (none when users may install it)."""
    narrowed: list[str] = []
    for command in commands if not users else ():
        installs: AppInstallationType | None = getattr(command, "allowed_installs", None)
        if installs is None or not installs.user:
            continue
        command.allowed_installs = AppInstallationType(guild=installs.guild, user=False)
        contexts: AppCommandContext | None = command.allowed_contexts
        if contexts is not None and contexts.private_channel:
            command.allowed_contexts = AppCommandContext(
                guild=contexts.guild, dm_channel=contexts.dm_channel, private_channel=False
            )
        narrowed.append(command.name)
    return narrowed


__all__ = [
    "REFUSED",
    "PlaceRefused",
    "anywhere",
    "check_place",
    "everywhere",
    "fit",
    "reaches",
    "servers",
]
