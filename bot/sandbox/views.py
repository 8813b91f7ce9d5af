"""What the sandbox page sees of the fake Discord: the world (the server, its users, channels and their
threads, the synced commands) and each message as the page draws it, read from the fake's state as
Discord shapes it (a thread is a channel with ``parent_id`` and ``thread_metadata``; a custom emoji's
picture comes from ``FakeDiscord.emoji_image``). Nothing here changes the fake.
"""

from __future__ import annotations

import json
import mimetypes
from typing import Any

from bot.sandbox import places
from fakecord import FakeChannel, FakeDiscord, FakeMessage, MessageInteraction, walk_components

THREAD_TYPES = (10, 11, 12)  # announcement, public and private threads: channels with a parent
LOCALES = {"en-US": "English", "fr": "Français"}


class PageViews:
    """The page's view of ``fake``; :attr:`labels` keeps each clicked button's label as the page saw it."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.labels: dict[int, str | None] = {}  # interaction id -> label of the clicked button

    def world(self, status: str) -> dict[str, Any]:
        """The server as the page lists it (``status``: the bot's, shown in the header)."""
        fake = self.fake
        guild = fake.guild
        commands = list(fake.global_commands.values()) + list(fake.guild_commands.get(guild.id, {}).values())
        users = [
            {
                "id": str(u.id),
                "username": u.username,
                "name": u.global_name or u.username,
                "locale": u.locale,
                "bot": u.bot,
                "role": "bot" if u.bot else "owner" if u.id == guild.owner_id else "member",
                "dms": len(fake.direct_messages(u)),  # the bot's direct messages to this user
            }
            for u in fake.users.values()
            if u.id in guild.members
        ]
        channels = [{"id": str(c.id), "name": c.name} for c in guild.channels if c.type not in THREAD_TYPES]
        return {
            "guild": {"id": str(guild.id), "name": guild.name, "locale": guild.preferred_locale},
            "bot": {"id": str(fake.bot_user.id), "name": fake.bot_user.username, "status": status},
            "users": users,
            "channels": channels,
            "threads": [self.thread_view(t) for t in self.threads()],
            "emoji_images": self.emoji_source() is not None,
            "commands": sorted(commands, key=lambda c: c.get("name", "")),
            "locales": LOCALES,
            **places.view(fake),  # the group DMs and the servers without the bot
        }

    def threads(self) -> list[FakeChannel]:
        """The server's threads, oldest first: channels of a thread type, wherever the fake keeps them.

        Read from each channel's Discord payload (``type``, ``parent_id``, ``thread_metadata``), the
        shape Discord gives a thread, so the page does not depend on how the fake stores one."""
        guild_id = self.fake.guild.id
        seen: dict[int, FakeChannel] = {}
        for channel in [*self.fake.guild.channels, *self.fake.channels.values()]:
            if channel.type in THREAD_TYPES and channel.guild_id == guild_id:
                seen.setdefault(channel.id, channel)
        return sorted(seen.values(), key=lambda c: c.id)

    def thread_view(self, thread: FakeChannel) -> dict[str, Any]:
        payload = thread.payload()
        metadata = payload.get("thread_metadata") or {}
        messages = [m for m in self.fake.messages.values()
                    if m.channel_id == thread.id and m.visible_to is None and not m.deleted]  # fmt: skip
        return {
            "id": str(thread.id),
            "name": payload.get("name") or thread.name,
            "parent_id": str(payload.get("parent_id") or ""),
            "archived": bool(metadata.get("archived", False)),
            "locked": bool(metadata.get("locked", False)),
            "messages": len(messages),
        }

    def starter(self, channel: FakeChannel) -> FakeMessage | None:
        """The message a thread was started from (it has the thread's id), if ``channel`` is one."""
        if channel.type not in THREAD_TYPES:
            return None
        message = self.fake.messages.get(channel.id)
        if message is None or message.deleted or message.visible_to is not None:
            return None
        return message

    def emoji_source(self) -> Any:
        """``FakeDiscord.emoji_image(emoji_id) -> bytes | None`` when the fake knows application emojis."""
        getter = getattr(self.fake, "emoji_image", None)
        return getter if callable(getter) else None

    def message_view(self, msg: FakeMessage) -> dict[str, Any]:
        """A message as the page draws it: the Discord payload, with attachment URLs the page can load."""

        def file_url(attachment: Any) -> str:
            return f"/files/{msg.id}/{attachment.id}/{attachment.filename}"

        by_name = {a.filename: a for a in msg.attachments}
        by_url = {a.url: a for a in msg.attachments}
        used: set[int] = set()

        def resolve(url: Any) -> Any:
            # Discord returns an embed's or a component's "attachment://name" as the attachment's URL
            attachment = None
            if isinstance(url, str) and url.startswith("attachment://"):
                attachment = by_name.get(url.removeprefix("attachment://"))
            elif isinstance(url, str):
                attachment = by_url.get(url)
            if attachment is not None:
                used.add(attachment.id)
                return file_url(attachment)
            return url

        embeds = json.loads(json.dumps(msg.embeds))
        for embed in embeds:
            for key, url_key in (("image", "url"), ("thumbnail", "url"), ("author", "icon_url"),
                                 ("footer", "icon_url")):  # fmt: skip
                part = embed.get(key)
                if isinstance(part, dict) and url_key in part:
                    part[url_key] = resolve(part[url_key])
        components = json.loads(json.dumps(msg.components))
        for comp in walk_components(components):
            media = comp.get("media")
            if isinstance(media, dict):
                media["url"] = resolve(media.get("url"))
            if comp.get("type") == 13 and isinstance(comp.get("file"), dict):
                comp["file"]["url"] = resolve(comp["file"].get("url"))
            for item in comp.get("items") or []:
                if isinstance(item, dict) and isinstance(item.get("media"), dict):
                    item["media"]["url"] = resolve(item["media"].get("url"))
        attachments = [
            {
                "id": str(a.id),
                "filename": a.filename,
                "size": len(a.data),
                "url": file_url(a),
                "content_type": a.content_type or mimetypes.guess_type(a.filename)[0] or "",
                "description": a.description,
            }
            for a in msg.attachments
            if a.id not in used
        ]
        data: dict[str, Any] = {
            "id": str(msg.id),
            "author": {
                "id": str(msg.author.id),
                "name": msg.author.global_name or msg.author.username,
                "bot": msg.author.bot,
            },
            "content": msg.content,
            "embeds": embeds,
            "components": components,
            "attachments": attachments,
            "flags": msg.flags,
            "ephemeral": msg.ephemeral,
            "loading": msg.loading,
            "edited": msg.edited_timestamp is not None,
            "timestamp": msg.timestamp,
            "rev": msg.revision,  # the page clicks "on this revision": see _act
            "type": msg.type,
        }
        # Discord gives a thread started from a message the message's id (and the message a ``thread``)
        thread = self.fake.channels.get(msg.id)
        if thread is not None and thread.type in THREAD_TYPES and msg.visible_to is None:
            data["thread"] = self.thread_view(thread)
        if msg.interaction is not None:
            inter = msg.interaction
            data["interaction"] = {
                "type": inter.type,
                "user": inter.user.global_name or inter.user.username,
                "command": self._command_line(inter) if inter.type == 2 else None,
                "component": self._component_label(inter) if inter.type == 3 else None,
            }
        return data

    def _component_label(self, inter: MessageInteraction) -> str | None:
        """The label of the clicked button (as it was when clicked, when the page clicked it)."""
        if inter.id in self.labels:
            return self.labels[inter.id]
        comp = inter.message.component(str(inter.data.get("custom_id"))) if inter.message else None
        return (comp or {}).get("label") or None

    @staticmethod
    def _command_line(inter: MessageInteraction) -> str:
        parts = [inter.command_name or "?"]
        options = inter.data.get("options") or []
        while options and options[0].get("type") in (1, 2):
            parts.append(options[0]["name"])
            options = options[0].get("options") or []
        return "/" + " ".join(parts)
