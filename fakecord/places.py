"""The places an interaction comes from and the installations behind it, as Discord's developer docs
describe them (resources/application "Installation Context", interactions/application-commands
"Contexts", interactions/receiving-and-responding "Interaction Object", topics/permissions
USE_EXTERNAL_APPS, and the change log of user-installed apps).

The world:

* The app is installed to a **server** when its bot is a member (``add_guild(..., bot=False)``: a
  server without it), and to a **user** with :meth:`Places.install_for_user` (only for an application
  whose ``integration_types`` holds 1, ``FakeDiscord(integration_types=(0, 1))``).
* Besides guild channels and the bot's DM with a user (type 1, :meth:`~FakeDiscordBase.dm_channel`):
  **group DMs** (type 3, :meth:`Places.add_group_dm`, 2 to 10 users) and **DMs between two users**
  (type 1, :meth:`Places.add_user_dm`). The bot is in neither: every channel route on them answers 403
  50001 Missing Access, and no gateway event of theirs reaches it.
* A server's members may be kept from letting user-installed apps answer in public: the
  USE_EXTERNAL_APPS permission (on by default for @everyone; :meth:`Places.set_external_apps`, or a
  channel overwrite with :meth:`FakeDiscord.set_overwrite`).

An interaction carries (:meth:`Places._interaction_payload`):

* ``context``: 0 GUILD in a server's channel, 1 BOT_DM in the bot's DM, 2 PRIVATE_CHANNEL in a group
  DM or a DM between users;
* ``authorizing_integration_owners``: "0" -> the guild's id (the guild install, in a server where the
  bot is; "0" in the bot's DM, where "an app's global commands are also available ... if that app has a
  bot that shares a mutual guild with the user"), "1" -> the authorizing user's id (their install,
  anywhere). A command has the keys of its ``integration_types`` that apply there; a guild command
  only its guild's. A click has the guild install of the place and the user install of the
  interaction that made the message (the *authorizing* user, not the clicker); a modal submit the keys
  of the interaction that opened the modal. None at all: the client never offers the action, and the
  fake's user action raises :class:`InteractionRefused`;
* ``app_permissions``: the bot's permissions in a server where it is; where it is not, @everyone's
  limited to what an answer uses (Attach Files and Embed Links always, Mention Everyone and Use External
  Emojis as @everyone has them: change log "Calculated Permissions in Interaction Payloads"); in a group
  DM or a DM between users ATTACH_FILES | EMBED_LINKS | MENTION_EVERYONE (the docs' footnote); in the
  bot's DM its text permissions, as before;
* a partial ``channel`` (a group DM's without its recipients, as Discord sends it) and, in a server,
  ``guild_id``, a partial ``guild``, ``guild_locale`` and the ``member`` with its permissions; ``user``
  elsewhere.

A command is offered (:meth:`Places._command_owners`) only in the ``contexts`` it declares and where
one of its installations applies; PRIVATE_CHANNEL needs a user install ("only meaningful for commands
installed to a user").

Discord forces ephemerality (:meth:`Places._forces_ephemeral`): in a server where the app is not
installed, when the user lacks USE_EXTERNAL_APPS ("your app's responses will be ephemeral for the end
user") or Send Messages in the channel ("the app won't be able to respond ... with a non-ephemeral
message": the fake reads it as the same forcing), every message the interaction makes is shown to the
user alone, without an error to the app. Its follow-ups are capped at 5 when only a user install
authorized it (routes_interactions: 400 40094).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import discord

from fakecord.constants import (
    ATTACHMENT_SIZE_LIMIT,
    BOT_DM_CONTEXT,
    DM_CHANNEL,
    GROUP_DM_CHANNEL,
    GROUP_DM_MAX_RECIPIENTS,
    GUILD_CONTEXT,
    PRIVATE_CHANNEL_CONTEXT,
    USER_INSTALL,
)
from fakecord.errors import FakeDiscordError, InteractionRefused
from fakecord.interaction import FakeInteraction
from fakecord.routes_guilds import GuildRoutes
from fakecord.state import FakeChannel, FakeGuild, FakeMessage, FakeUser

_P = discord.Permissions
# What an app may use in an answer where its bot is not (change log, June 2022 and August 2022 fix).
ANSWER_PERMISSIONS = _P(attach_files=True, embed_links=True).value
EVERYONE_ANSWER_PERMISSIONS = _P(mention_everyone=True, use_external_emojis=True).value
# app_permissions in a group DM or a DM between users (receiving-and-responding, app_permissions).
PRIVATE_CHANNEL_PERMISSIONS = _P(attach_files=True, embed_links=True, mention_everyone=True).value
USE_EXTERNAL_APPS = _P(use_external_apps=True).value
CONTEXT_NAMES = {
    GUILD_CONTEXT: "a server",
    BOT_DM_CONTEXT: "the bot's DM",
    PRIVATE_CHANNEL_CONTEXT: "a private channel",
}


class Places(GuildRoutes):
    """Installations, group DMs and DMs between users, and what Discord sends from each place."""

    # ------------------------------------------------------------------ the world

    def install_for_user(self, user: FakeUser) -> None:
        """``user`` installs the app to their account (USER_INSTALL): its user-installable commands
        are offered to them in every server, group DM and DM."""
        if USER_INSTALL not in self.integration_types:
            raise FakeDiscordError(
                "the application cannot be installed to users: FakeDiscord(integration_types=(0, 1))"
            )
        if user.bot:
            raise FakeDiscordError("a bot does not install apps")
        self.user_installs.add(user.id)
        self._notify()

    def uninstall_for_user(self, user: FakeUser) -> None:
        """``user`` removes the app from their account."""
        self.user_installs.discard(user.id)
        self._notify()

    def add_group_dm(self, *users: FakeUser, name: str | None = None) -> FakeChannel:
        """A group DM (type 3) of ``users`` (2 to 10, the first its owner), which the bot is not in."""
        if not 2 <= len(users) <= GROUP_DM_MAX_RECIPIENTS:
            raise FakeDiscordError(f"a group DM holds 2 to {GROUP_DM_MAX_RECIPIENTS} users, not {len(users)}")
        if len({u.id for u in users}) != len(users) or any(u.bot for u in users):
            raise FakeDiscordError("a group DM's users are distinct people, none of them a bot")
        channel = FakeChannel(self.new_id(), name or "", GROUP_DM_CHANNEL, owner_id=users[0].id)
        channel.recipients = list(users)
        self.channels[channel.id] = channel
        self._notify()
        return channel

    def add_user_dm(self, user: FakeUser, other: FakeUser) -> FakeChannel:
        """The DM channel (type 1) between two users, which the bot is not in (one per pair)."""
        if user.id == other.id or user.bot or other.bot:
            raise FakeDiscordError("a DM between users has two distinct people, neither of them a bot")
        pair = {user.id, other.id}
        for channel in self.channels.values():
            if channel.type == DM_CHANNEL and {u.id for u in channel.recipients} == pair:
                return channel
        channel = FakeChannel(self.new_id(), "", DM_CHANNEL)
        channel.recipients = [user, other]
        self.channels[channel.id] = channel
        self._notify()
        return channel

    async def set_external_apps(self, guild: FakeGuild, allowed: bool) -> None:
        """An admin lets @everyone use external (user-installed) apps in public, or not: the
        USE_EXTERNAL_APPS permission of the @everyone role (GUILD_ROLE_UPDATE to a bot in the guild)."""
        everyone = next(r for r in guild.roles if r.id == guild.id)
        if allowed:
            everyone.permissions |= USE_EXTERNAL_APPS
        else:
            everyone.permissions &= ~USE_EXTERNAL_APPS
        if self._bot_in(guild.id):
            await self._guild_event(
                guild.id, "GUILD_ROLE_UPDATE", {"guild_id": str(guild.id), "role": everyone.payload()}
            )
        self._notify()

    # ------------------------------------------------------------------ where an interaction comes from

    @staticmethod
    def context_of(channel: FakeChannel) -> int:
        """The interaction context of ``channel``: 0 a server's, 1 the bot's DM, 2 a group DM or a DM
        between users."""
        if channel.guild_id is not None:
            return GUILD_CONTEXT
        return BOT_DM_CONTEXT if channel.recipient is not None else PRIVATE_CHANNEL_CONTEXT

    def _bot_receives(self, channel: FakeChannel) -> bool:
        """Whether the gateway gives the bot the events of ``channel`` (a server it is in, its DMs)."""
        if channel.guild_id is not None:
            return self._bot_in(channel.guild_id)
        return channel.recipient is not None

    def _shares_guild(self, user: FakeUser) -> bool:
        return any(self._bot_in(g.id) and user.id in g.members for g in self.guilds.values())

    def _installs(self, channel: FakeChannel, user: FakeUser, kinds: Iterable[int]) -> dict[str, str]:
        """The installations of kinds ``kinds`` that apply when ``user`` acts in ``channel``."""
        kinds = set(kinds)
        owners: dict[str, str] = {}
        context = self.context_of(channel)
        if 0 in kinds and context == GUILD_CONTEXT and self._bot_in(channel.guild_id):
            owners["0"] = str(channel.guild_id)
        elif 0 in kinds and context == BOT_DM_CONTEXT and self._shares_guild(user):
            owners["0"] = "0"
        if 1 in kinds and user.id in self.user_installs:
            owners["1"] = str(user.id)
        return owners

    def _command_owners(
        self, command: dict[str, Any], channel: FakeChannel, user: FakeUser
    ) -> dict[str, str]:
        """The installations that let ``user`` run ``command`` in ``channel``; raises
        :class:`InteractionRefused` where the client does not offer it."""
        name = command.get("name")
        context = self.context_of(channel)
        if command.get("guild_id") is not None:  # a guild command: its guild only, through its install
            if str(channel.guild_id) != command["guild_id"] or not self._bot_in(channel.guild_id):
                raise InteractionRefused(f"guild command {name!r} is not offered here")
            return {"0": command["guild_id"]}
        contexts = command.get("contexts") or []
        if context not in contexts:
            raise InteractionRefused(
                f"command {name!r} is not offered in {CONTEXT_NAMES[context]}: its contexts are {contexts}"
            )
        owners = self._installs(channel, user, command.get("integration_types") or [])
        if not owners:
            raise InteractionRefused(
                f"command {name!r} is not offered to {user.username} in {CONTEXT_NAMES[context]}: no "
                f"installation of its integration_types {command.get('integration_types')} applies there"
            )
        return owners

    def offered_commands(self, user: FakeUser, channel: FakeChannel, kind: int = 1) -> list[dict[str, Any]]:
        """The synced commands of type ``kind`` (1 slash) that Discord's client offers ``user`` in
        ``channel``, by name: ``channel``'s guild's own and the global ones, each where its contexts and
        one of its installations reach (:meth:`_command_owners`: the same rule that lets it run)."""
        offered: dict[str, dict[str, Any]] = {}
        for scope in (self.commands.get(channel.guild_id or 0, {}), self.commands[None]):
            for (command_kind, name), command in scope.items():
                if command_kind != kind or name in offered:
                    continue
                try:
                    self._command_owners(command, channel, user)
                except InteractionRefused:
                    continue
                offered[name] = command
        return [offered[name] for name in sorted(offered)]

    def _click_owners(self, message: FakeMessage, channel: FakeChannel, user: FakeUser) -> dict[str, str]:
        """A click's installations: the place's guild install, and the user install of the interaction
        that made the message (its authorizing user, while the app is installed to them)."""
        owners = self._installs(channel, user, [0])
        made_by = message.interaction.integration_owners() if message.interaction is not None else {}
        if "1" in made_by and int(made_by["1"]) in self.user_installs:
            owners["1"] = made_by["1"]
        if not owners:
            raise InteractionRefused(f"no installation of the app reaches message {message.id} any more")
        return owners

    def _app_permissions(self, channel: FakeChannel) -> int:
        if channel.guild_id is None:
            if channel.recipient is not None:
                return self._bot_permissions(channel)
            return PRIVATE_CHANNEL_PERMISSIONS
        guild = self.guilds[channel.guild_id]
        if self._bot_in(guild.id):
            return guild.permissions_of(self.bot_user.id, channel)
        return (self._everyone_permissions(guild, channel) & EVERYONE_ANSWER_PERMISSIONS) | ANSWER_PERMISSIONS

    @staticmethod
    def _everyone_permissions(guild: FakeGuild, channel: FakeChannel) -> int:
        """@everyone's permissions in ``channel`` (its role, then its overwrite there)."""
        value = next(r.permissions for r in guild.roles if r.id == guild.id)
        if channel.parent_id is not None:  # a thread has its parent's permissions
            channel = next((c for c in guild.channels if c.id == channel.parent_id), channel)
        overwrite = channel.overwrites.get(guild.id)
        if overwrite is not None:
            value = (value & ~overwrite[2]) | overwrite[1]
        return value

    def _forces_ephemeral(self, channel: FakeChannel, user: FakeUser) -> bool:
        """Discord shows this user's answers to them alone: a server where the app is not installed,
        and the user may not use external apps, or not post, in the channel."""
        if channel.guild_id is None or self._bot_in(channel.guild_id):
            return False
        permissions = self.guilds[channel.guild_id].permissions_of(user.id, channel)
        send = _P(send_messages_in_threads=True) if channel.is_thread else _P(send_messages=True)
        return not permissions & USE_EXTERNAL_APPS or not permissions & send.value

    def _place(self, inter: FakeInteraction, owners: dict[str, str]) -> FakeInteraction:
        """Sets where ``inter`` happens and what authorized it (see the module's docstring); no
        installation at all: the client offers nothing there (:class:`InteractionRefused`)."""
        if not owners:
            raise InteractionRefused(
                f"no installation of the app applies to {inter!r} in channel {inter.channel.id}"
            )
        inter.context = self.context_of(inter.channel)
        inter.owners = dict(owners)
        inter.forced_ephemeral = self._forces_ephemeral(inter.channel, inter.user)
        return inter

    # ------------------------------------------------------------------ what the bot receives

    def _partial_channel(self, channel: FakeChannel, user: FakeUser) -> dict[str, Any]:
        """The ``channel`` of an interaction: a group DM's without its recipients (as Discord sends
        it), a DM between users with the other user, every other channel as its payload."""
        if channel.type == GROUP_DM_CHANNEL:
            data = channel.payload()
            del data["recipients"]
            return data
        if channel.type == DM_CHANNEL and channel.recipient is None:
            data = channel.payload()
            data["recipients"] = [u.payload() for u in channel.recipients if u.id != user.id]
            return data
        return channel.payload()

    def _interaction_payload(self, inter: FakeInteraction) -> dict[str, Any]:
        channel = inter.channel
        if self.channels.get(channel.id) is not channel:
            raise InteractionRefused(f"channel {channel.id} was deleted")
        if channel.archived and inter.type == 2:  # Discord: no slash command in an archived thread
            raise InteractionRefused(f"thread {channel.id} is archived")
        if inter.owners is None or inter.context is None:
            raise FakeDiscordError(f"{inter!r} was sent without its place (FakeDiscord._place)")
        payload: dict[str, Any] = {
            "id": str(inter.id),
            "application_id": str(self.application_id),
            "type": inter.type,
            "token": inter.token,
            "version": 1,
            "data": inter.data,
            "channel_id": str(channel.id),
            "channel": self._partial_channel(channel, inter.user),
            "locale": inter.user.locale,
            "entitlements": [],
            "authorizing_integration_owners": inter.integration_owners(),
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
            "app_permissions": str(self._app_permissions(channel)),
            "context": inter.context,
        }
        if channel.guild_id is not None:
            guild = self.guilds[channel.guild_id]
            member = guild.members.get(inter.user.id)
            if member is None:
                raise FakeDiscordError(f"{inter.user.username} is not a member of {guild.name}")
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": guild.preferred_locale, "features": []},
                guild_locale=guild.preferred_locale,
                # In this channel, overwrites included, as Discord computes them.
                member={**member.payload(), "permissions": str(guild.permissions_of(inter.user.id, channel))},
            )
        else:
            members = [channel.recipient] if channel.recipient is not None else channel.recipients
            if inter.user not in members:
                raise InteractionRefused(f"{inter.user.username} is not in channel {channel.id}")
            payload["user"] = inter.user.payload()
        if inter.message is not None:
            payload["message"] = inter.message.payload()
        return payload
