"""The world the fake holds: users, roles, channels, members, guilds, attachments and messages, each
with the JSON payload Discord sends for it.
"""

from __future__ import annotations

import copy
import mimetypes
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import discord

from fakecord.clock import iso_now
from fakecord.constants import BUTTON, FLAG_EPHEMERAL, FLAG_LOADING, TEXT_DISPLAY
from fakecord.validation import walk_components


@dataclass(eq=False)
class FakeUser:
    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    locale: str = "en-US"
    # The user's privacy settings refuse the bot's direct messages: Discord opens the DM channel but
    # refuses every message sent to it (403, code 50007).
    dms_closed: bool = False

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        """The user as Discord shows it to a bot (a message's author, a member's user, ``GET
        /users/{id}``): every field of its user object, the profile extras without a value (no avatar
        decoration, collectibles or server tag); ``bot`` only on a bot, as Discord sends it."""
        data: dict[str, Any] = {
            "id": str(self.id),
            "username": self.username,
            "avatar": None,
            "discriminator": "0",
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "global_name": self.global_name,
            "avatar_decoration_data": None,
            "collectibles": None,
            "primary_guild": None,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass(eq=False)
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeChannel:
    id: int
    name: str
    type: int = 0  # 0 guild text, 1 DM, 2 guild voice, 3 group DM, 11 public thread, 12 private thread
    guild_id: int | None = None
    position: int = 0
    recipient: FakeUser | None = None  # the bot's DM channel with this user
    # A group DM (type 3) or a DM between two users (type 1 without ``recipient``): its users, none of
    # them the bot (fakecord/places.py); ``owner_id`` is a group DM's creator.
    recipients: list[FakeUser] = field(default_factory=list)
    # Permission overwrites as Discord's overwrite objects: target id -> (type 0 role / 1 member, allow,
    # deny); the @everyone role's id is the guild's. See FakeGuild.permissions_of and set_overwrite.
    overwrites: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    # A thread (types 10-12, fakecord/routes_threads.py): its parent channel, who started it, and its
    # thread_metadata as Discord sends it (archived, archive_timestamp, auto_archive_duration, locked...).
    parent_id: int | None = None
    owner_id: int | None = None
    thread_metadata: dict[str, Any] | None = None
    message_count: int = 0

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def is_thread(self) -> bool:
        return self.type in (10, 11, 12)

    @property
    def archived(self) -> bool:
        return bool(self.thread_metadata and self.thread_metadata.get("archived"))

    @property
    def locked(self) -> bool:
        return bool(self.thread_metadata and self.thread_metadata.get("locked"))

    def payload(self) -> dict[str, Any]:
        if self.is_thread:
            return {
                "id": str(self.id),
                "type": self.type,
                "guild_id": str(self.guild_id),
                "parent_id": str(self.parent_id),
                "owner_id": str(self.owner_id),
                "name": self.name,
                "last_message_id": None,
                "rate_limit_per_user": 0,
                "flags": 0,
                "thread_metadata": dict(self.thread_metadata or {}),
                "message_count": self.message_count,
                "member_count": 1,
                "total_message_sent": self.message_count,
            }
        if self.type in (1, 3):
            users = [self.recipient] if self.recipient else self.recipients
            private: dict[str, Any] = {"id": str(self.id), "type": self.type, "last_message_id": None}
            private.update(flags=0, recipients=[u.payload() for u in users])
            if self.type == 3:
                private.update(name=self.name or None, icon=None, owner_id=str(self.owner_id))
            return private
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [
                {"id": str(target), "type": kind, "allow": str(allow), "deny": str(deny)}
                for target, (kind, allow, deny) in self.overwrites.items()
            ],
            "nsfw": False,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "parent_id": None,
            "flags": 0,
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.type == 2:  # a voice channel (the docs' example): no topic, its voice settings
            del data["topic"]
            data.update(bitrate=64000, user_limit=0, rtc_region=None)
        return data


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    def payload(self) -> dict[str, Any]:
        return {
            "user": self.user.payload(),
            "roles": [str(r) for r in self.roles],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    preferred_locale: str = "en-US"
    roles: list[FakeRole] = field(default_factory=list)
    channels: list[FakeChannel] = field(default_factory=list)
    members: dict[int, FakeMember] = field(default_factory=dict)
    threads: list[FakeChannel] = field(default_factory=list)  # every thread, archived ones included

    def permissions_of(self, user_id: int, channel: FakeChannel | None = None) -> int:
        """Discord's computation: the roles' permissions (none for a non-member), then, in ``channel``,
        its overwrites (@everyone's, the member's roles' together, the member's own; deny before allow).
        The owner and administrators have everything, overwrites or not."""
        if user_id == self.owner_id:
            return discord.Permissions.all().value
        member = self.members.get(user_id)
        if member is None:
            return 0
        value = 0
        for role in self.roles:
            if role.id == self.id or role.id in member.roles:
                value |= role.permissions
        if value & discord.Permissions(administrator=True).value:
            return discord.Permissions.all().value
        if channel is not None and channel.parent_id is not None:  # a thread has its parent's permissions
            channel = next((c for c in self.channels if c.id == channel.parent_id), channel)
        if channel is not None and channel.overwrites:
            layers = [channel.overwrites.get(self.id)]
            roles = [channel.overwrites[r] for r in member.roles if r in channel.overwrites]
            layers.append((0, _or(a for _, a, _ in roles), _or(d for _, _, d in roles)) if roles else None)
            layers.append(channel.overwrites.get(user_id))
            for layer in layers:
                if layer is not None:
                    _, allow, deny = layer
                    value = (value & ~deny) | allow
        return value

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "home_header": None,
            "owner_id": str(self.owner_id),
            "region": "deprecated",
            "afk_channel_id": None,
            "afk_timeout": 300,
            "widget_enabled": False,
            "widget_channel_id": None,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "preferred_locale": self.preferred_locale,
            "features": [],
            "emojis": [],
            "stickers": [],
            "roles": [r.payload() for r in self.roles],
            "channels": [c.payload() for c in self.channels],
            "threads": [t.payload() for t in self.threads if not t.archived],  # the active ones
            "members": [m.payload() for m in self.members.values()],
            "member_count": len(self.members),
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "large": False,
            "lazy": True,
            "unavailable": False,
            "joined_at": iso_now(),
            "max_presences": None,
            "max_members": 500000,
            "max_video_channel_users": 25,
            "max_stage_video_channel_users": 50,
            "incidents_data": None,
            "application_id": None,
            "nsfw": False,
        }


class MessageInteraction(Protocol):
    """What a message shows of the interaction that made it (Discord's ``interaction_metadata``): a
    protocol that :class:`~fakecord.interaction.FakeInteraction` satisfies, so that the
    world model does not import the interaction handle that imports it."""

    id: int
    type: int
    user: FakeUser
    data: dict[str, Any]
    message: FakeMessage | None
    command_name: str | None

    @property
    def source(self) -> MessageInteraction | None:
        """A modal submit's: the command or click the bot answered with the modal."""

    @property
    def original_message(self) -> FakeMessage | None: ...

    def integration_owners(self) -> dict[str, str]: ...


def interaction_metadata(inter: MessageInteraction, message: FakeMessage | None = None) -> dict[str, Any]:
    """Discord's ``interaction_metadata`` of a message the bot wrote in answer to ``inter``: its
    kind's fields (the clicked message of a click, the interaction that opened the modal of a modal
    submit), and on a follow-up the id of the original response."""
    meta: dict[str, Any] = {
        "id": str(inter.id),
        "type": inter.type,
        "user": inter.user.payload(),
        "authorizing_integration_owners": inter.integration_owners(),
    }
    original = inter.original_message
    if message is not None and original is not None and message.id != original.id:
        meta["original_response_message_id"] = str(original.id)
    if inter.type == 2 and inter.data.get("type") == 2:  # a user command: the user it was run on
        users = (inter.data.get("resolved") or {}).get("users") or {}
        meta["target_user"] = users[str(inter.data["target_id"])]
    if inter.type == 3 and inter.message is not None:
        meta["interacted_message_id"] = str(inter.message.id)
    if inter.type == 5 and inter.source is not None:
        meta["triggering_interaction_metadata"] = interaction_metadata(inter.source)
    return meta


@dataclass(eq=False)
class FakeAttachment:
    id: int
    filename: str
    data: bytes
    url: str
    description: str | None = None
    content_type: str | None = None

    @property
    def media_type(self) -> str | None:
        """The content type Discord gives the file: the one sent, else the filename's."""
        return self.content_type or mimetypes.guess_type(self.filename)[0]

    @property
    def size_in_pixels(self) -> tuple[int, int] | None:
        """(width, height) of a PNG or GIF image, read from its header (Discord measures images)."""
        data = self.data
        if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
            return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
            return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
        return None

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
        }
        if self.description is not None:
            out["description"] = self.description
        if self.media_type is not None:
            out["content_type"] = self.media_type
        pixels = self.size_in_pixels
        if pixels is not None:
            out["width"], out["height"] = pixels
        return out


@dataclass(eq=False)
class FakeMessage:
    """A message in the fake's store.  Mutated in place on edit (see :attr:`history`)."""

    id: int
    channel_id: int
    guild_id: int | None
    author: FakeUser
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    visible_to: int | None = None  # user id for an ephemeral message, None = everyone
    interaction: MessageInteraction | None = None
    webhook_id: int | None = None
    thread: FakeChannel | None = None  # the thread started from this message (its ``thread`` field)
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None
    deleted: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)  # payloads before each edit
    snapshot_revision: int | None = None  # set on the frozen copies made by snapshot()

    @property
    def is_snapshot(self) -> bool:
        return self.snapshot_revision is not None

    @property
    def revision(self) -> int:
        """0 as sent, +1 at each edit; a snapshot keeps the revision it was taken at."""
        return self.snapshot_revision if self.snapshot_revision is not None else len(self.history)

    def snapshot(self, revision: int | None = None) -> FakeMessage:
        """A frozen copy of the message as a user's client shows it: now, or at ``revision``.

        The bot may edit the message after the user last saw it (the store's message is edited
        in place); :meth:`FakeDiscord.click` on a snapshot clicks "from what the user saw" and
        then checks the click against the message as it is now, like Discord.  A past revision
        is rebuilt from :attr:`history` (content, embeds, components, flags; no attachments).
        """
        if self.is_snapshot:
            if revision is None or revision == self.snapshot_revision:
                return self
            raise ValueError("a snapshot has only its own revision")
        now = len(self.history)
        revision = now if revision is None else revision
        if not 0 <= revision <= now:
            raise ValueError(f"message {self.id} has revisions 0..{now}, not {revision}")
        if revision == now:
            shown = self.payload()
            attachments, deleted = list(self.attachments), self.deleted
        else:
            shown, attachments, deleted = self.history[revision], [], False
        # deep copies: the snapshot must not change when the stored message is edited
        return FakeMessage(
            id=self.id,
            channel_id=self.channel_id,
            guild_id=self.guild_id,
            author=self.author,
            content=shown.get("content") or "",
            embeds=copy.deepcopy(list(shown.get("embeds") or [])),
            components=copy.deepcopy(list(shown.get("components") or [])),
            attachments=attachments,
            flags=int(shown.get("flags") or 0),
            type=self.type,
            visible_to=self.visible_to,
            interaction=self.interaction,
            webhook_id=self.webhook_id,
            timestamp=self.timestamp,
            edited_timestamp=shown.get("edited_timestamp"),
            deleted=deleted,
            snapshot_revision=revision,
        )

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & FLAG_LOADING)

    def visible_for(self, user: FakeUser | int) -> bool:
        user_id = user if isinstance(user, int) else user.id
        return not self.deleted and (self.visible_to is None or self.visible_to == user_id)

    def all_components(self) -> list[dict[str, Any]]:
        return list(walk_components(self.components))

    def component(self, custom_id: str) -> dict[str, Any] | None:
        for comp in self.all_components():
            if comp.get("custom_id") == custom_id:
                return comp
        return None

    @property
    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.all_components() if c.get("custom_id")]

    @property
    def button_labels(self) -> list[str]:
        return [c.get("label") or "" for c in self.all_components() if c.get("type") == BUTTON]

    @property
    def text(self) -> str:
        """Content plus embed titles/descriptions/fields and text displays, for loose assertions."""
        parts = [self.content]
        for embed in self.embeds:
            parts += [embed.get("title") or "", embed.get("description") or ""]
            for fld in embed.get("fields") or []:
                parts += [fld.get("name") or "", fld.get("value") or ""]
            parts.append((embed.get("footer") or {}).get("text") or "")
        parts += [c.get("content") or "" for c in self.all_components() if c.get("type") == TEXT_DISPLAY]
        return "\n".join(p for p in parts if p)

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "type": self.type,
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "flags": self.flags,
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
            data["application_id"] = str(self.webhook_id)
        if self.interaction is not None:
            data["interaction_metadata"] = interaction_metadata(self.interaction, self)
        if self.thread is not None:
            data["thread"] = self.thread.payload()
        return data


def _or(values: Iterable[int]) -> int:
    result = 0
    for value in values:
        result |= value
    return result


@dataclass(eq=False)
class FakeEmoji:
    """An application emoji (``/applications/{id}/emojis``): its name, its image as uploaded (the
    decoded bytes of the data URI), and the user who uploaded it."""

    id: int
    name: str
    image: bytes
    content_type: str
    user: FakeUser

    @property
    def markdown(self) -> str:
        return f"<:{self.name}:{self.id}>"

    def payload(self) -> dict[str, Any]:
        """The emoji object Discord answers for an application emoji: no roles, colons required, not
        managed, available; ``user`` is who uploaded it."""
        return {
            "id": str(self.id),
            "name": self.name,
            "roles": [],
            "user": self.user.payload(),
            "require_colons": True,
            "managed": False,
            "animated": False,
            "available": True,
        }
