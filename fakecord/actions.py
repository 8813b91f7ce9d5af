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
    BUTTON,
    STRING_SELECT,
    WAIT_S,
)
from fakecord.errors import FakeDiscordError, InteractionRefused
from fakecord.interaction import FakeInteraction
from fakecord.modals import submit_data
from fakecord.records import FailedClick
from fakecord.routes_interactions import InteractionRoutes
from fakecord.state import FakeChannel, FakeMessage, FakeRole, FakeUser

log = logging.getLogger(__name__)


class UserActions(InteractionRoutes):
    """The user side: interactions and messages sent to the bot, and what a user sees."""

    # ------------------------------------------------------------------ test-side actions

    async def _send_interaction(self, inter: FakeInteraction) -> FakeInteraction:
        if self.session is None:
            raise FakeDiscordError("no bot has identified on the gateway")
        if inter.owners is None:
            # A payload a test forges (the client's checks bypassed, as a crafted request would): the
            # installations of the place, else what an unplaced handle says.
            self._place(
                inter, self._installs(inter.channel, inter.user, [0, 1]) or inter.integration_owners()
            )
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

    async def _find_command(
        self, name: str, channel: FakeChannel, timeout: float, kind: int = 1
    ) -> dict[str, Any] | None:
        if not self.strict_commands:
            return self.registered_command(name, channel.guild_id, kind)
        try:
            return await self.wait_until(
                lambda: self.registered_command(name, channel.guild_id, kind),
                timeout,
                what=f"command {name!r} (type {kind}) to be synced",
            )
        except TimeoutError:
            scopes = [self.commands[None], self.commands.get(channel.guild_id or 0, {})]
            known = sorted({key for scope in scopes for key in scope})
            raise FakeDiscordError(f"{name!r} (type {kind}) was never synced (known: {known})") from None

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
        owners = (
            self._command_owners(command, channel, user) if command else self._installs(channel, user, [0])
        )
        return await self._send_interaction(self._place(inter, owners))

    async def run_command(
        self,
        user: FakeUser,
        name: str,
        subcommand: str | None = None,
        *,
        options: dict[str, Any] | None = None,
        channel: FakeChannel | None = None,
        timeout: float = WAIT_S,
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
        timeout: float = WAIT_S,
    ) -> FakeInteraction:
        """A user types in option ``focused`` of ``/name``; the answer is a type 8 callback."""
        values = dict(options or {})
        values.setdefault(focused, "")
        return await self._command_interaction(4, user, name, subcommand, values, channel, focused, timeout)

    async def run_user_command(
        self,
        user: FakeUser,
        name: str,
        target: FakeUser,
        *,
        channel: FakeChannel | None = None,
        timeout: float = WAIT_S,
    ) -> FakeInteraction:
        """``user`` right-clicks ``target`` in ``channel`` (default #general) and picks the user command
        (type 2) ``name`` under Apps. Like Discord's client: the command must be synced (waits up to
        ``timeout``) and offered there (its contexts and installations, fakecord/places.py), ``target``
        must be someone ``user`` sees there (a member of the server, a user of the DM or group DM), and in
        a server ``user`` needs Send Messages in the channel (the docs' "Permission Denied"); else
        :class:`InteractionRefused`. The interaction's data holds ``target_id`` and the resolved user
        (and member, in a server)."""
        channel = channel or self.channel("general")
        command = await self._find_command(name, channel, timeout, kind=2)
        if command is None:
            raise FakeDiscordError(f"user command {name!r} is not synced")
        if channel.guild_id is not None:
            guild = self.guilds[channel.guild_id]
            if target.id not in guild.members:
                raise InteractionRefused(f"{target.username} is not a member of {guild.name}")
            send = discord.Permissions(send_messages=True).value
            if not guild.permissions_of(user.id, channel) & send:
                raise InteractionRefused(f"{user.username} may not send messages in #{channel.name}")
        elif target not in [channel.recipient, self.bot_user, *channel.recipients]:
            raise InteractionRefused(f"{target.username} is not in channel {channel.id}")
        resolved: dict[str, dict[str, Any]] = {}
        self._build_options([{"name": "target", "type": 6}], {"target": target}, resolved, channel.guild_id)
        data: dict[str, Any] = {
            "id": command["id"],
            "name": name,
            "type": 2,
            "target_id": str(target.id),
            "resolved": resolved,
        }
        if command.get("guild_id"):
            data["guild_id"] = command["guild_id"]
        inter = FakeInteraction(self, type=2, user=user, channel=channel, data=data, command_name=name)
        return await self._send_interaction(self._place(inter, self._command_owners(command, channel, user)))

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
                data["values"] = [self._resolve_pick(ctype, v, resolved, seen.guild_id) for v in picked]
                data["resolved"] = resolved
        channel = self.channels[seen.channel_id]
        # the bot receives the message as Discord holds it, not the user's stale copy
        inter = FakeInteraction(self, type=3, user=user, channel=channel, data=data, message=current)
        self._place(inter, self._click_owners(current, channel, user))
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

    def _resolve_pick(
        self, ctype: int, value: Any, resolved: dict[str, dict[str, Any]], guild_id: int | None
    ) -> str:
        """A user, role or channel picked in an auto-populated select (types 5-8): its id, with its
        data added to ``resolved`` as Discord sends it."""
        if ctype == 7 and isinstance(value, FakeRole):
            self._build_options(None, {"v": value}, resolved, guild_id)
        else:
            otype = {5: 6, 6: 8, 7: 6, 8: 7}[ctype]
            self._build_options([{"name": "v", "type": otype}], {"v": value}, resolved, guild_id)
        return str(getattr(value, "id", value))

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
        self, user: FakeUser, source: FakeInteraction, values: dict[str, Any], *, timeout: float = WAIT_S
    ) -> FakeInteraction:
        """``user`` submits the modal the bot opened in answer to ``source`` (type 9 callback).

        ``values`` maps each input's custom_id to its answer: a text input's string, a radio group's
        option value (or None), a checkbox's bool, a list for a select (option values; users, roles or
        channels for the auto-populated ones) or a checkbox group. Inputs left out keep what the modal
        pre-fills. The MODAL_SUBMIT data is Discord's (fakecord/modals.py, which says what the user's
        client refuses to submit: :class:`InteractionRefused`); the submit is authorized as ``source``.
        """
        if user is not source.user:
            raise InteractionRefused("only the user who opened a modal can submit it")
        await source.response(timeout)
        modal = next((m for i, m in self.modals if i is source), None)
        if modal is None:
            raise InteractionRefused(f"{source!r} was not answered with a modal")

        def resolve(ctype: int, value: Any, resolved: dict[str, dict[str, Any]]) -> str:
            return self._resolve_pick(ctype, value, resolved, source.channel.guild_id)

        data = submit_data(modal, values, resolve)
        inter = FakeInteraction(
            self, type=5, user=user, channel=source.channel, data=data, message=source.message, source=source
        )
        return await self._send_interaction(self._place(inter, source.integration_owners()))

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
        self, predicate: Callable[[FakeMessage], bool], timeout: float = WAIT_S, *, what: str = "a message"
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
