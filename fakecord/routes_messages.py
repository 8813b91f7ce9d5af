"""Messages: creating and editing them (validated, shared by the channel and webhook routes), their
gateway events, and the channel message routes (post, fetch, history, edit, delete).
"""

from __future__ import annotations

from typing import Any

import discord
from aiohttp import web

from fakecord.clock import iso_now, to_int
from fakecord.constants import (
    ATTACHMENT_SIZE_LIMIT,
    FLAG_COMPONENTS_V2,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    FLAG_SUPPRESS_NOTIFICATIONS,
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MESSAGES,
    INTENT_MESSAGE_CONTENT,
)
from fakecord.errors import DiscordAPIError, FormErrors, unknown_message
from fakecord.interaction import FakeInteraction
from fakecord.records import RecordedRequest
from fakecord.routes_emojis import EmojiRoutes
from fakecord.state import FakeAttachment, FakeChannel, FakeMessage, FakeUser
from fakecord.stored import stored_components, stored_embeds
from fakecord.validation import validate_flags_edit, validate_message_body


class MessageRoutes(EmojiRoutes):
    """Messages and the channel message routes."""

    # ------------------------------------------------------------------ messages (shared)

    def _make_attachments(
        self,
        channel: FakeChannel,
        body: dict[str, Any],
        files: dict[str, tuple[str | None, bytes]],
        existing: list[FakeAttachment],
    ) -> list[FakeAttachment] | None:
        """Resolves ``attachments`` + ``files[n]``; None means "leave the attachments as they are"."""
        if "attachments" not in body and not files:
            return None
        by_id = {a.id: a for a in existing}
        result: list[FakeAttachment] = []
        used: set[str] = set()
        specs = body.get("attachments")
        if specs is None:
            specs = [{"id": i} for i in range(len(files))]
            result = list(existing)
        errors = FormErrors()
        for i, spec in enumerate(specs):
            ident = spec.get("id")
            key = f"files[{ident}]"
            if key in files and not (isinstance(ident, str) and ident.isdigit() and int(ident) in by_id):
                filename, data = files[key]
                used.add(key)
                if len(data) > ATTACHMENT_SIZE_LIMIT:
                    raise DiscordAPIError(413, 40005, "Request entity too large")
                aid = self.new_id()
                name = spec.get("filename") or filename or "file"
                result.append(
                    FakeAttachment(
                        aid,
                        name,
                        data,
                        url=f"{self.http_base}/attachments/{channel.id}/{aid}/{name}",
                        description=spec.get("description"),
                    )
                )
            elif to_int(ident) in by_id:
                result.append(by_id[to_int(ident)])
            else:
                errors.add(["attachments", i, "id"], "ATTACHMENT_NOT_FOUND", "Unknown attachment")
        unused = set(files) - used
        if unused:
            errors.add(
                ["attachments"], "ATTACHMENT_NOT_FOUND", f"Files without attachment entry: {sorted(unused)}"
            )
        errors.raise_if_any()
        return result

    def _validate_new_message(
        self, body: dict[str, Any], flags: int, files: dict[str, Any], path: list[str | int]
    ) -> None:
        errors = FormErrors()
        validate_message_body(body, path=path, flags=flags, errors=errors)
        self._check_component_emojis(body, path, errors)
        errors.raise_if_any()
        if not (
            body.get("content")
            or body.get("embeds")
            or body.get("components")
            or files
            or body.get("sticker_ids")
            or body.get("poll")
        ):
            raise DiscordAPIError(400, 50006, "Cannot send an empty message")

    def _create_message(
        self,
        channel: FakeChannel,
        body: dict[str, Any],
        files: dict[str, tuple[str | None, bytes]],
        *,
        author: FakeUser,
        interaction: FakeInteraction | None = None,
        visible_to: int | None = None,
        extra_flags: int = 0,
        check_empty: bool = True,
        path: list[str | int] | None = None,
    ) -> FakeMessage:
        allowed_flags = FLAG_SUPPRESS_EMBEDS | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_COMPONENTS_V2
        if interaction is not None:
            allowed_flags |= FLAG_EPHEMERAL
        flags = (int(body.get("flags") or 0) & allowed_flags) | extra_flags
        if check_empty:
            self._validate_new_message(body, flags, files, path or [])
        else:
            errors = FormErrors()
            validate_message_body(body, path=path or [], flags=flags, errors=errors)
            self._check_component_emojis(body, path or [], errors)
            errors.raise_if_any()
        if flags & FLAG_EPHEMERAL and interaction is not None:
            visible_to = interaction.user.id
        msg = FakeMessage(
            id=self.new_id(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=author,
            content=body.get("content") or "",
            flags=flags,
            type=_message_type(interaction),
            visible_to=visible_to,
            interaction=interaction,
            webhook_id=self.application_id if interaction is not None else None,
        )
        msg.attachments = self._make_attachments(channel, body, files, []) or []
        msg.embeds = stored_embeds(body.get("embeds") or [], msg.attachments)
        msg.components = stored_components(body.get("components") or [], msg.attachments, self.new_id)
        self.messages[msg.id] = msg
        return msg

    def _edit_message(
        self,
        msg: FakeMessage,
        body: dict[str, Any],
        files: dict[str, tuple[str | None, bytes]],
        *,
        path: list[str | int] | None = None,
    ) -> FakeMessage:
        flags = msg.flags
        if "flags" in body and body["flags"] is not None:
            flags = (msg.flags & ~(FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2)) | (
                int(body["flags"]) & (FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2)
            )
        errors = FormErrors()
        validate_message_body(body, path=path or [], flags=flags, errors=errors)
        self._check_component_emojis(body, path or [], errors)
        validate_flags_edit(msg.flags, body, {"content": msg.content, "embeds": msg.embeds}, errors)
        errors.raise_if_any()
        channel = self._channel(msg.channel_id)
        attachments = self._make_attachments(channel, body, files, msg.attachments)
        if attachments is None:
            attachments = msg.attachments
        content = (body["content"] or "") if "content" in body else msg.content
        embeds = stored_embeds(body["embeds"] or [], attachments) if "embeds" in body else msg.embeds
        components = msg.components
        if "components" in body:
            components = stored_components(body["components"] or [], attachments, self.new_id)
        if not (content or embeds or components or attachments):
            # refused as a whole: the message stays as it was
            raise DiscordAPIError(400, 50006, "Cannot send an empty message")
        msg.history.append(msg.payload())
        msg.attachments, msg.content, msg.embeds, msg.components = attachments, content, embeds, components
        msg.flags = flags & ~FLAG_LOADING
        msg.edited_timestamp = iso_now()
        return msg

    async def _message_event(self, event: str, msg: FakeMessage) -> None:
        if msg.visible_to is not None:
            return
        channel = self.channels.get(msg.channel_id)
        if channel is None or not self._bot_receives(channel):  # a server without the bot, a group DM
            return
        intent = INTENT_DIRECT_MESSAGES if channel.type == 1 else INTENT_GUILD_MESSAGES
        for session in self.sessions_for(channel.guild_id):
            if not session.intents & intent:
                continue
            if event == "MESSAGE_DELETE":
                data: dict[str, Any] = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
                if msg.guild_id is not None:
                    data["guild_id"] = str(msg.guild_id)
            else:
                data = msg.payload()
                if msg.author.id != self.bot_user.id and not session.intents & INTENT_MESSAGE_CONTENT:
                    data.update(content="", embeds=[], attachments=[], components=[])
                if msg.guild_id is not None and msg.guild_id in self.guilds:
                    member = self.guilds[msg.guild_id].members.get(msg.author.id)
                    if member is not None:
                        member_data = member.payload()
                        member_data.pop("user")
                        data["member"] = member_data
            await session.dispatch(event, data)

    # ------------------------------------------------------------------ where the bot may post

    def _send_permission(self, channel: FakeChannel) -> int:
        """The permission a post in ``channel`` needs (a thread's layer asks Send Messages in Threads)."""
        return discord.Permissions(send_messages=True).value

    async def _before_post(self, channel: FakeChannel) -> None:
        """Refuses or prepares a post in ``channel`` (the thread layer: an archived thread)."""

    def _before_edit(self, channel: FakeChannel) -> None:
        """Refuses an edit in ``channel`` (the thread layer: an archived thread)."""

    def _after_post(self, channel: FakeChannel) -> None:
        """Counts a post in ``channel`` (the thread layer: its message count)."""

    # ------------------------------------------------------------------ channel message routes

    def _channel_message(self, channel_id: str, message_id: str) -> FakeMessage:
        msg = self.messages.get(to_int(message_id))
        if msg is None or msg.deleted or msg.channel_id != to_int(channel_id) or msg.visible_to is not None:
            raise unknown_message()
        return msg

    async def _h_create_message(self, request: web.Request, record: RecordedRequest, channel_id: str) -> Any:
        channel = self._channel(channel_id)
        self._bot_can_see(channel)
        if not self._bot_permissions(channel) & self._send_permission(channel):
            raise DiscordAPIError(403, 50013, "Missing Permissions")
        if channel.recipient is not None and channel.recipient.dms_closed:
            raise DiscordAPIError(403, 50007, "Cannot send messages to this user")
        body = record.json or {}
        await self._before_post(channel)
        msg = self._create_message(channel, body, record.files, author=self.bot_user)
        self._after_post(channel)
        await self._message_event("MESSAGE_CREATE", msg)
        return msg.payload()

    async def _h_get_message(
        self, request: web.Request, record: RecordedRequest, channel_id: str, message_id: str
    ) -> Any:
        self._bot_can_see(self._channel(channel_id))
        return self._channel_message(channel_id, message_id).payload()

    async def _h_history(self, request: web.Request, record: RecordedRequest, channel_id: str) -> Any:
        channel = self._channel(channel_id)
        self._bot_can_see(channel)
        limit = max(1, min(100, int(request.query.get("limit", 50))))
        before = to_int(request.query.get("before")) if "before" in request.query else None
        after = to_int(request.query.get("after")) if "after" in request.query else None
        found = [
            m
            for m in self.messages.values()
            if m.channel_id == channel.id
            and not m.deleted
            and m.visible_to is None
            and (before is None or m.id < before)
            and (after is None or m.id > after)
        ]
        found.sort(key=lambda m: m.id, reverse=after is None)
        return [m.payload() for m in found[:limit]]

    async def _h_edit_message(
        self, request: web.Request, record: RecordedRequest, channel_id: str, message_id: str
    ) -> Any:
        # No Send Messages needed: Discord lets an author edit (and delete) their messages in a channel
        # where they may no longer post (discord-api-docs#3096); not seeing it is another matter.
        channel = self._channel(channel_id)
        self._bot_can_see(channel)
        msg = self._channel_message(channel_id, message_id)
        if msg.author.id != self.bot_user.id:
            raise DiscordAPIError(403, 50005, "Cannot edit a message authored by another user")
        self._before_edit(channel)
        self._edit_message(msg, record.json or {}, record.files)
        await self._message_event("MESSAGE_UPDATE", msg)
        return msg.payload()

    async def _h_delete_message(
        self, request: web.Request, record: RecordedRequest, channel_id: str, message_id: str
    ) -> Any:
        self._bot_can_see(self._channel(channel_id))
        msg = self._channel_message(channel_id, message_id)
        msg.deleted = True
        await self._message_event("MESSAGE_DELETE", msg)
        return None


def _message_type(interaction: FakeInteraction | None) -> int:
    """A message's type: 20 CHAT_INPUT_COMMAND answering a slash command, 23 CONTEXT_MENU_COMMAND
    answering a user or message command, else 0 DEFAULT."""
    if interaction is None or interaction.type != 2:
        return 0
    return 20 if interaction.data.get("type", 1) == 1 else 23
