"""Threads as Discord has them: started from a message or without one, a channel of their own (type 11
public, 12 private) under a parent text channel, archived and locked through ``PATCH /channels/{id}``,
their gateway events (THREAD_CREATE, THREAD_UPDATE) and the permissions each step needs.

Discord's rules the fake applies (its developer docs, topics/threads and resources/channel):

* A thread has its parent's permissions (``FakeGuild.permissions_of`` reads the parent's overwrites).
  Starting a public thread needs Create Public Threads (a private one Create Private Threads); posting
  in a thread needs Send Messages in Threads, not Send Messages; a refusal is 403 50013.
* A thread started from a message has the message's id, and the message then carries it in its
  ``thread`` field; a second thread from the same message is 400 160004. A thread cannot be started in
  a thread (400 50024).
* ``PATCH /channels/{thread.id}``: changing ``name``, ``archived`` or ``auto_archive_duration`` needs
  Manage Threads or being the thread's creator; ``locked`` and ``rate_limit_per_user`` need Manage
  Threads; unarchiving a locked thread needs Manage Threads. An archived thread takes only a request
  that unarchives it (else 400 50083).
* Posting in an archived thread unarchives it (THREAD_UPDATE), unless it is locked (then 400 160005
  for a poster without Manage Threads); editing a message of an archived thread is 400 50083.
* THREAD_CREATE carries ``newly_created``; GUILD_CREATE lists the active threads (``FakeGuild.payload``).
  Thread members (THREAD_MEMBERS_UPDATE, the ``/thread-members`` routes) are not modelled.
"""

from __future__ import annotations

from typing import Any

import discord
from aiohttp import web

from fakecord.clock import iso_now, to_int
from fakecord.errors import DiscordAPIError, unknown_message
from fakecord.records import RecordedRequest
from fakecord.routes_messages import MessageRoutes
from fakecord.state import FakeChannel, FakeUser

PUBLIC_THREAD, PRIVATE_THREAD = 11, 12
DEFAULT_AUTO_ARCHIVE_MINUTES = 1440  # a text channel's default_auto_archive_duration when none is set

_CREATE_PUBLIC = discord.Permissions(create_public_threads=True).value
_CREATE_PRIVATE = discord.Permissions(create_private_threads=True).value
_SEND_IN_THREADS = discord.Permissions(send_messages_in_threads=True).value
_MANAGE_THREADS = discord.Permissions(manage_threads=True).value


def _missing_permissions() -> DiscordAPIError:
    return DiscordAPIError(403, 50013, "Missing Permissions")


def _archived() -> DiscordAPIError:
    return DiscordAPIError(400, 50083, "Operation cannot be performed on an archived thread")


class ThreadRoutes(MessageRoutes):
    """Threads: the routes that start and change them, and what posting in one does."""

    # ------------------------------------------------------------------ the world's threads

    def threads_of(self, channel: FakeChannel) -> list[FakeChannel]:
        """The threads started in ``channel`` (archived ones included), oldest first."""
        if channel.guild_id is None:
            return []
        return [t for t in self.guilds[channel.guild_id].threads if t.parent_id == channel.id]

    def _new_thread(
        self,
        parent: FakeChannel,
        *,
        thread_id: int,
        name: str,
        kind: int,
        owner: FakeUser,
        auto_archive_duration: int | None,
    ) -> FakeChannel:
        now = iso_now()
        thread = FakeChannel(
            thread_id,
            name,
            kind,
            guild_id=parent.guild_id,
            parent_id=parent.id,
            owner_id=owner.id,
            thread_metadata={
                "archived": False,
                "archive_timestamp": now,
                "auto_archive_duration": auto_archive_duration or DEFAULT_AUTO_ARCHIVE_MINUTES,
                "locked": False,
                "create_timestamp": now,
            },
        )
        if kind == PRIVATE_THREAD:
            thread.thread_metadata = {**(thread.thread_metadata or {}), "invitable": True}
        assert parent.guild_id is not None
        self.guilds[parent.guild_id].threads.append(thread)
        self.channels[thread.id] = thread
        return thread

    def _parent_for_thread(self, channel_id: str) -> FakeChannel:
        parent = self._channel(channel_id)
        self._bot_can_see(parent)
        if parent.type != 0:  # only a text channel here (announcement and forum channels: not modelled)
            raise DiscordAPIError(400, 50024, "Cannot execute action on this channel type")
        return parent

    async def _thread_event(self, event: str, thread: FakeChannel, **extra: Any) -> None:
        await self._guild_event(thread.guild_id, event, {**thread.payload(), **extra})

    # ------------------------------------------------------------------ routes

    async def _h_start_thread_from_message(
        self, request: web.Request, record: RecordedRequest, channel_id: str, message_id: str
    ) -> Any:
        parent = self._parent_for_thread(channel_id)
        if not self._bot_permissions(parent) & _CREATE_PUBLIC:
            raise _missing_permissions()
        msg = self.messages.get(to_int(message_id))
        if msg is None or msg.deleted or msg.channel_id != parent.id or msg.visible_to is not None:
            raise unknown_message()
        if msg.thread is not None:
            raise DiscordAPIError(400, 160004, "A thread has already been created for this message")
        body = record.json or {}
        thread = self._new_thread(
            parent,
            thread_id=msg.id,  # Discord: a thread and the message it was started from share their id
            name=str(body.get("name") or ""),
            kind=PUBLIC_THREAD,
            owner=self.bot_user,
            auto_archive_duration=body.get("auto_archive_duration"),
        )
        msg.thread = thread
        await self._thread_event("THREAD_CREATE", thread, newly_created=True)
        await self._message_event("MESSAGE_UPDATE", msg)
        return 201, thread.payload()

    async def _h_start_thread(self, request: web.Request, record: RecordedRequest, channel_id: str) -> Any:
        parent = self._parent_for_thread(channel_id)
        body = record.json or {}
        kind = int(body.get("type") or PRIVATE_THREAD)  # Discord's default, kept from the first threads
        if kind not in (PUBLIC_THREAD, PRIVATE_THREAD):
            raise DiscordAPIError(400, 50024, "Cannot execute action on this channel type")
        needed = _CREATE_PUBLIC if kind == PUBLIC_THREAD else _CREATE_PRIVATE
        if not self._bot_permissions(parent) & needed:
            raise _missing_permissions()
        thread = self._new_thread(
            parent,
            thread_id=self.new_id(),
            name=str(body.get("name") or ""),
            kind=kind,
            owner=self.bot_user,
            auto_archive_duration=body.get("auto_archive_duration"),
        )
        await self._thread_event("THREAD_CREATE", thread, newly_created=True)
        return 201, thread.payload()

    async def _h_edit_channel(self, request: web.Request, record: RecordedRequest, channel_id: str) -> Any:
        channel = self._channel(channel_id)
        self._bot_can_see(channel)
        body = record.json or {}
        permissions = self._bot_permissions(channel)
        if not channel.is_thread:
            # Editing a text channel (only its name here) needs Manage Channels.
            if not permissions & discord.Permissions(manage_channels=True).value:
                raise _missing_permissions()
            if body.get("name"):
                channel.name = str(body["name"])
            await self._guild_event(channel.guild_id, "CHANNEL_UPDATE", channel.payload())
            return channel.payload()
        self._edit_thread(channel, body, self.bot_user, permissions)
        await self._thread_event("THREAD_UPDATE", channel)
        return channel.payload()

    def _edit_thread(
        self, thread: FakeChannel, body: dict[str, Any], user: FakeUser, permissions: int
    ) -> None:
        manages = bool(permissions & _MANAGE_THREADS)
        creator = thread.owner_id == user.id
        meta = dict(thread.thread_metadata or {})
        unarchives = body.get("archived") is False
        if thread.archived and not unarchives:
            raise _archived()
        if unarchives and thread.locked and not manages:
            raise _missing_permissions()
        owner_fields = ("name", "archived", "auto_archive_duration")
        if any(body.get(k) is not None for k in owner_fields) and not (manages or creator):
            raise _missing_permissions()
        if any(body.get(k) is not None for k in ("locked", "rate_limit_per_user")) and not manages:
            raise _missing_permissions()
        if body.get("name"):
            thread.name = str(body["name"])
        for key in ("archived", "locked", "auto_archive_duration"):
            if body.get(key) is not None:
                meta[key] = body[key]
        if body.get("archived") is not None or body.get("auto_archive_duration") is not None:
            meta["archive_timestamp"] = iso_now()
        thread.thread_metadata = meta

    # ------------------------------------------------------------------ posting in a thread

    def _send_permission(self, channel: FakeChannel) -> int:
        return _SEND_IN_THREADS if channel.is_thread else super()._send_permission(channel)

    async def _before_post(self, channel: FakeChannel) -> None:
        if not channel.is_thread or not channel.archived:
            return
        if channel.locked and not self._bot_permissions(channel) & _MANAGE_THREADS:
            raise DiscordAPIError(400, 160005, "Thread is locked")
        # Discord: a message sent in an archived thread unarchives it
        channel.thread_metadata = {
            **(channel.thread_metadata or {}),
            "archived": False,
            "archive_timestamp": iso_now(),
        }
        await self._thread_event("THREAD_UPDATE", channel)

    def _before_edit(self, channel: FakeChannel) -> None:
        if channel.is_thread and channel.archived:
            raise _archived()

    def _after_post(self, channel: FakeChannel) -> None:
        if channel.is_thread:
            channel.message_count += 1

    # ------------------------------------------------------------------ the world changing

    async def archive_thread(self, thread: FakeChannel, *, locked: bool = False) -> None:
        """The thread is archived under the bot (its inactivity ran out, or a moderator archived it,
        and locked it with ``locked=True``): THREAD_UPDATE goes to the bot."""
        if not thread.is_thread:
            raise ValueError(f"channel {thread.id} is not a thread")
        thread.thread_metadata = {
            **(thread.thread_metadata or {}),
            "archived": True,
            "locked": locked,
            "archive_timestamp": iso_now(),
        }
        if self.session is not None:
            await self._thread_event("THREAD_UPDATE", thread)
        self._notify()
