"""What a test (or a sandbox user) does: run a command, autocomplete, click (validated like
Discord), submit a modal, write a message; and what a user sees of a channel.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import discord

from fakecord.clock import to_int
from fakecord.constants import (
    ACTION_ROW,
    ATTACHMENT_SIZE_LIMIT,
    AUTO_SELECTS,
    BUTTON,
    LABEL,
    STRING_SELECT,
    TEXT_INPUT,
)
from fakecord.errors import FakeDiscordError, InteractionRefused
from fakecord.interaction import FakeInteraction
from fakecord.records import FailedClick
from fakecord.routes_interactions import InteractionRoutes
from fakecord.state import FakeChannel, FakeMessage, FakeRole, FakeUser
from fakecord.validation import walk_components

log = logging.getLogger(__name__)


class UserActions(InteractionRoutes):
    """The user side: interactions and messages sent to the bot, and what a user sees."""

    # ------------------------------------------------------------------ test-side actions

    def _interaction_payload(self, inter: FakeInteraction) -> dict[str, Any]:
        channel = inter.channel
        if self.channels.get(channel.id) is not channel:
            raise InteractionRefused(f"channel {channel.id} was deleted")
        if channel.guild_id is not None and not self._bot_in(channel.guild_id):
            raise InteractionRefused(f"the bot is no longer in guild {channel.guild_id}")
        if channel.archived and inter.type == 2:  # Discord: no slash command in an archived thread
            raise InteractionRefused(f"thread {channel.id} is archived")
        payload: dict[str, Any] = {
            "id": str(inter.id),
            "application_id": str(self.application_id),
            "type": inter.type,
            "token": inter.token,
            "version": 1,
            "data": inter.data,
            "channel_id": str(channel.id),
            "channel": channel.payload(),
            "locale": inter.user.locale,
            "entitlements": [],
            "authorizing_integration_owners": inter.integration_owners(),
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
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
                # Both in this channel, overwrites included, as Discord computes them.
                member={**member.payload(), "permissions": str(guild.permissions_of(inter.user.id, channel))},
                app_permissions=str(guild.permissions_of(self.bot_user.id, channel)),
                context=0,
            )
        else:
            payload.update(
                user=inter.user.payload(), app_permissions=str(discord.Permissions.text().value), context=1
            )
        if inter.message is not None:
            payload["message"] = inter.message.payload()
        return payload

    async def _send_interaction(self, inter: FakeInteraction) -> FakeInteraction:
        if self.session is None:
            raise FakeDiscordError("no bot has identified on the gateway")
        payload = self._interaction_payload(inter)
        guild_id = inter.channel.guild_id
        sessions = self.sessions_for(guild_id)
        if not sessions:
            where = "DMs" if guild_id is None else f"guild {guild_id}"
            raise FakeDiscordError(f"no gateway session receives the events of {where} (shard 0 for DMs)")
        self.interactions[inter.id] = inter
        self._interactions_by_token[inter.token] = inter
        inter.sessions = sessions
        for session in sessions:
            await session.dispatch("INTERACTION_CREATE", payload)
        self._notify()
        return inter

    async def _find_command(self, name: str, channel: FakeChannel, timeout: float) -> dict[str, Any] | None:
        if not self.strict_commands:
            return self.registered_command(name, channel.guild_id)
        try:
            return await self.wait_until(
                lambda: self.registered_command(name, channel.guild_id),
                timeout,
                what=f"command /{name} to be synced",
            )
        except TimeoutError:
            known = sorted(
                set(self.global_commands) | set(self.guild_commands.get(channel.guild_id or 0, {}))
            )
            raise FakeDiscordError(f"/{name} was never synced (known commands: {known})") from None

    def _build_options(
        self,
        schema: list[dict[str, Any]] | None,
        values: dict[str, Any],
        resolved: dict[str, dict[str, Any]],
        guild_id: int | None,
        focused: str | None = None,
    ) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        by_name = {o["name"]: o for o in (schema or [])}
        if schema is not None:
            unknown = set(values) - set(by_name)
            if unknown:
                raise FakeDiscordError(
                    f"unknown options {sorted(unknown)}; the command has {sorted(by_name)}"
                )
            missing = [
                o["name"]
                for o in schema
                if o.get("required") and o["name"] not in values and o["name"] != focused
            ]
            if missing:
                raise FakeDiscordError(f"missing required options {missing}")
        for name, value in values.items():
            spec = by_name.get(name)
            otype = spec["type"] if spec else _infer_option_type(value)
            entry: dict[str, Any] = {"name": name, "type": otype}
            if otype == 6:
                user = value if isinstance(value, FakeUser) else self.users[to_int(value)]
                entry["value"] = str(user.id)
                resolved.setdefault("users", {})[str(user.id)] = user.payload()
                if guild_id is not None and user.id in self.guilds[guild_id].members:
                    member = self.guilds[guild_id].members[user.id].payload()
                    member.pop("user")
                    member["permissions"] = str(self.guilds[guild_id].permissions_of(user.id))
                    resolved.setdefault("members", {})[str(user.id)] = member
            elif otype == 7:
                chan = value if isinstance(value, FakeChannel) else self.channels[to_int(value)]
                entry["value"] = str(chan.id)
                resolved.setdefault("channels", {})[str(chan.id)] = {
                    **chan.payload(),
                    "permissions": str(discord.Permissions.text().value),
                }
            elif otype == 8:
                role = (
                    value
                    if isinstance(value, FakeRole)
                    else next(r for g in self.guilds.values() for r in g.roles if r.id == to_int(value))
                )
                entry["value"] = str(role.id)
                resolved.setdefault("roles", {})[str(role.id)] = role.payload()
            else:
                if spec is not None and name != focused:
                    _check_option_value(spec, value)
                entry["value"] = value
            if name == focused:
                entry["focused"] = True
            out.append(entry)
        return out

    async def _command_interaction(
        self,
        itype: int,
        user: FakeUser,
        name: str,
        subcommand: str | None,
        options: dict[str, Any] | None,
        channel: FakeChannel | None,
        focused: str | None,
        timeout: float,
    ) -> FakeInteraction:
        channel = channel or self.channel("general")
        command = await self._find_command(name, channel, timeout)
        schema: list[dict[str, Any]] | None = command.get("options", []) if command else None
        path = subcommand.split() if subcommand else []
        resolved: dict[str, dict[str, Any]] = {}
        wrappers: list[dict[str, Any]] = []
        for part in path:
            spec = next((o for o in (schema or []) if o["name"] == part and o.get("type") in (1, 2)), None)
            if schema is not None and spec is None:
                raise FakeDiscordError(f"/{name} has no subcommand or group {part!r}")
            wrappers.append({"name": part, "type": spec["type"] if spec else (1 if part == path[-1] else 2)})
            schema = spec.get("options", []) if spec else None
        leaf = self._build_options(schema, options or {}, resolved, channel.guild_id, focused)
        tree: list[dict[str, Any]] = leaf
        for wrapper in reversed(wrappers):
            tree = [{**wrapper, "options": tree}]
        data: dict[str, Any] = {
            "id": command["id"] if command else str(self.new_id()),
            "name": name,
            "type": 1,
            "options": tree,
        }
        if resolved:
            data["resolved"] = resolved
        if command and command.get("guild_id"):
            data["guild_id"] = command["guild_id"]
        inter = FakeInteraction(self, type=itype, user=user, channel=channel, data=data, command_name=name)
        return await self._send_interaction(inter)

    async def run_command(
        self,
        user: FakeUser,
        name: str,
        subcommand: str | None = None,
        *,
        options: dict[str, Any] | None = None,
        channel: FakeChannel | None = None,
        timeout: float = 5.0,
    ) -> FakeInteraction:
        """A user runs ``/name [group] [subcommand]`` with ``options`` in ``channel`` (default #general).

        The command must have been synced by the bot (waits up to ``timeout`` for it);
        option names, requiredness, choices and min/max are checked against the synced
        schema.  User/channel/role options take :class:`FakeUser`/:class:`FakeChannel`/
        :class:`FakeRole` (or ids) and get their ``resolved`` data.
        """
        return await self._command_interaction(2, user, name, subcommand, options, channel, None, timeout)

    async def autocomplete(
        self,
        user: FakeUser,
        name: str,
        subcommand: str | None = None,
        *,
        focused: str,
        options: dict[str, Any] | None = None,
        channel: FakeChannel | None = None,
        timeout: float = 5.0,
    ) -> FakeInteraction:
        """A user types in option ``focused`` of ``/name``; the answer is a type 8 callback."""
        values = dict(options or {})
        values.setdefault(focused, "")
        return await self._command_interaction(4, user, name, subcommand, values, channel, focused, timeout)

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage | int,
        custom_id: str,
        *,
        values: list[Any] | None = None,
    ) -> FakeInteraction:
        """``user`` clicks the button (or picks ``values`` in the select) ``custom_id`` of ``message``.

        ``message`` is what the user's client shows: a message of the store (or its id) means the
        message as it is now; a :meth:`FakeMessage.snapshot` means the message as the user last saw
        it, possibly edited by the bot since.

        Raises :class:`InteractionRefused` when Discord's client would not let the user
        do it on what they see: deleted or ephemeral-for-someone-else message, no such
        component, disabled component, invalid select values.  Then, like Discord, checks the
        click against the message as it is now: when the component is no longer there (or now
        disabled, or the values no longer options), the click never reaches the bot; it is
        recorded in :attr:`failed_clicks` (a :class:`FailedClick`, which :meth:`assert_clean`
        reports until :meth:`take_failed_clicks` consumes it) and the returned handle has
        ``failed`` true.
        """
        seen = message if isinstance(message, FakeMessage) else self.messages.get(message)
        if seen is None:
            raise InteractionRefused(f"unknown message {message}")
        current = self.messages.get(seen.id, seen)
        if not seen.is_snapshot:
            seen = current
        if seen.deleted:
            raise InteractionRefused(f"message {seen.id} was deleted")
        if not seen.visible_for(user):
            raise InteractionRefused(f"message {seen.id} is ephemeral and not visible to {user.username}")
        comp = seen.component(custom_id)
        if comp is None:
            raise InteractionRefused(
                f"message {seen.id} has no component {custom_id!r} (it has {seen.custom_ids})"
            )
        if comp.get("disabled"):
            raise InteractionRefused(f"component {custom_id!r} is disabled")
        ctype = comp["type"]
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": ctype}
        if ctype == BUTTON:
            if values is not None:
                raise InteractionRefused("a button takes no values")
        else:
            picked = list(values or [])
            low, high = comp.get("min_values", 1), comp.get("max_values", 1)
            if not low <= len(picked) <= high:
                raise InteractionRefused(
                    f"select {custom_id!r} takes {low}..{high} values, got {len(picked)}"
                )
            if ctype == STRING_SELECT:
                allowed = [o.get("value") for o in comp.get("options") or []]
                bad = [v for v in picked if v not in allowed]
                if bad:
                    raise InteractionRefused(f"values {bad} are not options of {custom_id!r} ({allowed})")
                data["values"] = picked
            else:
                resolved: dict[str, dict[str, Any]] = {}
                otype = {5: 6, 6: 8, 7: 6, 8: 7}[ctype]
                ids = []
                for value in picked:
                    if ctype == 7 and isinstance(value, FakeRole):
                        self._build_options(None, {"v": value}, resolved, seen.guild_id)
                    else:
                        self._build_options(
                            [{"name": "v", "type": otype}], {"v": value}, resolved, seen.guild_id
                        )
                    ids.append(str(getattr(value, "id", value)))
                data["values"] = ids
                data["resolved"] = resolved
        channel = self.channels[seen.channel_id]
        # the bot receives the message as Discord holds it, not the user's stale copy
        inter = FakeInteraction(self, type=3, user=user, channel=channel, data=data, message=current)
        reason = self._component_validation(current, custom_id, ctype, data.get("values"))
        if reason is not None:
            failure = FailedClick(
                user=user,
                message_id=seen.id,
                custom_id=custom_id,
                reason=reason,
                seen_revision=seen.revision,
                revision=current.revision,
                clock=self.clock.now(),
            )
            inter.failure = failure
            self.failed_clicks.append(failure)
            log.info("fake discord: %r", failure)
            self._notify()
            return inter
        return await self._send_interaction(inter)

    @staticmethod
    def _component_validation(
        current: FakeMessage, custom_id: str, ctype: int, values: list[Any] | None
    ) -> str | None:
        """Why Discord fails a click on ``custom_id`` given the message as it holds it (None: it passes).

        Discord's COMPONENT_VALIDATION_FAILED: the component must still be on the message,
        of the same kind, enabled, and a string select's values must still be options.
        """
        if current.deleted:
            return "the message was deleted"
        comp = current.component(custom_id)
        if comp is None:
            return f"the message no longer has {custom_id!r} (it has {current.custom_ids})"
        if comp["type"] != ctype:
            return f"{custom_id!r} is now a component of type {comp['type']}, not {ctype}"
        if comp.get("disabled"):
            return f"{custom_id!r} is disabled now"
        if ctype == STRING_SELECT:
            allowed = [o.get("value") for o in comp.get("options") or []]
            gone = [v for v in values or [] if v not in allowed]
            if gone:
                return f"values {gone} are no longer options of {custom_id!r} ({allowed})"
        return None

    async def submit_modal(
        self, user: FakeUser, source: FakeInteraction, values: dict[str, Any], *, timeout: float = 5.0
    ) -> FakeInteraction:
        """``user`` submits the modal the bot opened in answer to ``source`` (type 9 callback).

        ``values`` maps text input custom_ids to strings (select custom_ids to lists).
        """
        if user is not source.user:
            raise InteractionRefused("only the user who opened a modal can submit it")
        await source.response(timeout)
        modal = next((m for i, m in self.modals if i is source), None)
        if modal is None:
            raise InteractionRefused(f"{source!r} was not answered with a modal")
        unknown = set(values) - {c.get("custom_id") for c in walk_components(modal.get("components") or [])}
        if unknown:
            raise InteractionRefused(f"the modal has no inputs {sorted(unknown)}")

        def answer(comp: dict[str, Any]) -> dict[str, Any]:
            ctype = comp.get("type")
            if ctype == ACTION_ROW:
                return {"type": ACTION_ROW, "components": [answer(c) for c in comp.get("components") or []]}
            if ctype == LABEL:
                return {"type": LABEL, "component": answer(comp["component"])}
            out: dict[str, Any] = {"type": ctype, "custom_id": comp.get("custom_id")}
            if ctype == TEXT_INPUT:
                value = values.get(comp.get("custom_id") or "", comp.get("value") or "")
                if comp.get("required", True) and not value:
                    raise InteractionRefused(f"text input {comp.get('custom_id')!r} is required")
                out["value"] = value
            elif ctype in (STRING_SELECT, *AUTO_SELECTS):
                out["values"] = [str(v) for v in values.get(comp.get("custom_id") or "", [])]
            return out

        components = [
            answer(c) for c in modal.get("components") or [] if c.get("type") in (ACTION_ROW, LABEL)
        ]
        data = {"custom_id": modal.get("custom_id"), "components": components}
        inter = FakeInteraction(
            self, type=5, user=user, channel=source.channel, data=data, message=source.message, source=source
        )
        return await self._send_interaction(inter)

    async def send_user_message(self, user: FakeUser, channel: FakeChannel, content: str) -> FakeMessage:
        """``user`` posts ``content`` in ``channel``; the bot gets MESSAGE_CREATE if it has the intent."""
        msg = FakeMessage(self.new_id(), channel.id, channel.guild_id, user, content=content)
        self.messages[msg.id] = msg
        await self._message_event("MESSAGE_CREATE", msg)
        self._notify()
        return msg

    # ------------------------------------------------------------------ queries

    def visible_messages(self, user: FakeUser, channel: FakeChannel | None = None) -> list[FakeMessage]:
        """Messages ``user`` can see (public ones plus their own ephemerals), oldest first."""
        return sorted(
            (
                m
                for m in self.messages.values()
                if m.visible_for(user) and (channel is None or m.channel_id == channel.id)
            ),
            key=lambda m: m.id,
        )

    def direct_messages(self, user: FakeUser) -> list[FakeMessage]:
        """The bot's direct messages to ``user``, oldest first (none if it never opened the channel)."""
        channel = self.dm_channels.get(user.id)
        return [] if channel is None else self.channel_messages(channel)

    def channel_messages(self, channel: FakeChannel) -> list[FakeMessage]:
        """Public, not deleted messages of ``channel``, oldest first."""
        return sorted(
            (
                m
                for m in self.messages.values()
                if m.channel_id == channel.id and not m.deleted and m.visible_to is None
            ),
            key=lambda m: m.id,
        )

    async def wait_for_message(
        self, predicate: Callable[[FakeMessage], bool], timeout: float = 5.0, *, what: str = "a message"
    ) -> FakeMessage:
        """Waits for a (not deleted) message matching ``predicate``."""

        def find() -> FakeMessage | None:
            return next((m for m in self.messages.values() if not m.deleted and predicate(m)), None)

        return await self.wait_until(find, timeout, what=what)


def _infer_option_type(value: Any) -> int:
    if isinstance(value, bool):
        return 5
    if isinstance(value, int):
        return 4
    if isinstance(value, float):
        return 10
    if isinstance(value, FakeUser):
        return 6
    if isinstance(value, FakeChannel):
        return 7
    if isinstance(value, FakeRole):
        return 8
    return 3


def _check_option_value(spec: dict[str, Any], value: Any) -> None:
    otype = spec["type"]
    name = spec["name"]
    expected: dict[int, tuple[type, ...]] = {3: (str,), 4: (int,), 5: (bool,), 10: (int, float)}
    if otype in expected and (
        not isinstance(value, expected[otype]) or (otype in (4, 10) and isinstance(value, bool))
    ):
        raise FakeDiscordError(f"option {name!r} expects type {otype}, got {value!r}")
    choices = spec.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise FakeDiscordError(
            f"option {name!r} must be one of {[c['value'] for c in choices]}, got {value!r}"
        )
    if otype in (4, 10):
        if spec.get("min_value") is not None and value < spec["min_value"]:
            raise FakeDiscordError(f"option {name!r} is below its min_value")
        if spec.get("max_value") is not None and value > spec["max_value"]:
            raise FakeDiscordError(f"option {name!r} is above its max_value")
    if otype == 3:
        if spec.get("min_length") is not None and len(value) < spec["min_length"]:
            raise FakeDiscordError(f"option {name!r} is shorter than its min_length")
        if spec.get("max_length") is not None and len(value) > spec["max_length"]:
            raise FakeDiscordError(f"option {name!r} is longer than its max_length")
