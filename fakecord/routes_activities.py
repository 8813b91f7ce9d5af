"""Activities: the app's Activity (a web page Discord embeds in a channel), its instances, its Entry Point
command, and the LAUNCH_ACTIVITY callback's launch.

Discord's rules, from its developer docs (activities/how-activities-work, development-guides
multiplayer-experience and user-actions, interactions/application-commands, resources/application) and
its API description:

* **Activities enabled.** An app has Activities once its developer enables them in the portal
  (:meth:`ActivityRoutes.enable_activities`): the application then carries the ``EMBEDDED`` flag
  (``1 << 17``) and Discord creates a default Entry Point command, a global command of type 4
  ``PRIMARY_ENTRY_POINT`` named "Launch" with handler 2 ``DISCORD_LAUNCH_ACTIVITY``.
* **The Entry Point command.** Type 4 is global only (no guild command of that type), at most one per
  app, without options (options are for chat-input commands); ``handler`` (1 ``APP_HANDLER``, 2
  ``DISCORD_LAUNCH_ACTIVITY``) is only for type 4, and only for an app with Activities. Once the app has
  an Entry Point command, a bulk overwrite of the global commands that leaves it out is refused as
  Discord refuses it: 400, code 50240, "You cannot remove this app's Entry Point command in a bulk update
  operation. Please include the Entry Point command in your update request or delete it separately."
  (that code and message are Discord's live answer, quoted by the libraries that met it; the docs
  give neither). It may still be deleted alone (``DELETE .../commands/{id}``).
* **Instances.** Launching the Activity in a channel starts an instance there, or joins the one already
  running ("any users joining the same application will receive the same instanceId"); when its last
  user leaves, the instance ends and is never used again (the next launch makes a new one). Its id is
  ``i-<launch_id>-gc-<guild_id>-<channel_id>`` in a guild, ``i-<launch_id>-pc-<channel_id>`` in a DM or
  group DM, as in the docs' example. ``GET /applications/{application_id}/activity-instances/
  {instance_id}`` (bot token) answers a running instance (the description's ``EmbeddedActivityInstance``)
  and ``404: Not Found`` (code 0) for any other id, an ended one included.
* **Where.** An Activity runs in a guild's text channel, voice channel or thread, and in a DM or group
  DM; the fake refuses any other channel type. In a guild the user needs the Use Activities permission
  (``USE_EMBEDDED_ACTIVITIES``, ``1 << 39``; @everyone has it by default).
* **LAUNCH_ACTIVITY** (callback type 12) answers a command (the Entry Point too), a component or a modal
  submit, never an autocomplete; only for an app with Activities, only where an Activity can run. The
  docs give no error for a LAUNCH_ACTIVITY refused for the app or the place: the fake answers 400 /
  50035 with the error on ``type``, named after the launch error Discord's client shows
  (``ACTIVITY_LAUNCH_INVALID_CONFIGURATION_NOT_EMBEDDED``, ``ACTIVITY_LAUNCH_INVALID_CHANNEL_TYPE``,
  ``ACTIVITY_LAUNCH_INVALID_USER_PERMISSIONS``): the status and code are the fake's reading, the names
  Discord's. Launched, the user is in the instance of that channel, and the callback's answer (with
  ``with_response``) carries ``activity_instance_id`` and the ``activity_instance`` resource.
* **The gateway** sends a bot nothing about Activity instances (no such event in the docs): a bot learns
  of one from an interaction's callback answer or from the instance route.

Codes and tokens for the Activity's user (the SDK's ``authorize``, ``/oauth2/token``) are in
``routes_oauth2.py``; running the Entry Point command as a user is in ``activity_actions.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

import discord
from aiohttp import web

from fakecord.clock import to_int
from fakecord.errors import DiscordAPIError, FakeDiscordError, FormErrors, InteractionRefused
from fakecord.interaction import FakeInteraction
from fakecord.records import RecordedRequest
from fakecord.routes_threads import ThreadRoutes
from fakecord.state import FakeChannel, FakeUser

PRIMARY_ENTRY_POINT = 4
APP_HANDLER, DISCORD_LAUNCH_ACTIVITY = 1, 2
LAUNCH_ACTIVITY = 12
FLAG_EMBEDDED = 1 << 17  # the application flag of an app with Activities
DEFAULT_ENTRY_POINT = "Launch"  # the name Discord gives the command it creates
# Guild text, guild voice, the three thread types; DM and group DM.
ACTIVITY_GUILD_CHANNELS = (0, 2, 10, 11, 12)
ACTIVITY_PRIVATE_CHANNELS = (1, 3)
_USE_ACTIVITIES = discord.Permissions(use_embedded_activities=True).value
ENTRY_POINT_KEPT = (
    "You cannot remove this app's Entry Point command in a bulk update operation. "
    "Please include the Entry Point command in your update request or delete it separately."
)


@dataclass(eq=False)
class FakeActivityInstance:
    """One instance of the app's Activity, running in ``channel`` with ``users`` in it (ended when the
    last one left)."""

    launch_id: int
    application_id: int
    channel: FakeChannel
    users: list[FakeUser] = field(default_factory=list)
    ended: bool = False

    @property
    def location_id(self) -> str:
        if self.channel.guild_id is None:
            return f"pc-{self.channel.id}"
        return f"gc-{self.channel.guild_id}-{self.channel.id}"

    @property
    def instance_id(self) -> str:
        return f"i-{self.launch_id}-{self.location_id}"

    def payload(self) -> dict[str, Any]:
        """The instance as ``GET /applications/{id}/activity-instances/{instance_id}`` answers it."""
        location: dict[str, Any] = {
            "id": self.location_id,
            "kind": "pc" if self.channel.guild_id is None else "gc",
            "channel_id": str(self.channel.id),
        }
        if self.channel.guild_id is not None:
            location["guild_id"] = str(self.channel.guild_id)
        return {
            "application_id": str(self.application_id),
            "instance_id": self.instance_id,
            "launch_id": str(self.launch_id),
            "location": location,
            "users": [str(user.id) for user in self.users],
        }

    def frame_query(self, *, platform: str = "desktop") -> dict[str, str]:
        """The query Discord gives the Activity's page in a user's client (what the Embedded App SDK
        reads: ``frame_id``, ``instance_id``, ``platform``, ``location_id``, ``channel_id``, and
        ``guild_id`` in a guild); a new ``frame_id`` at each call, as each client frame has its own."""
        query = {
            "frame_id": str(uuid4()),
            "instance_id": self.instance_id,
            "platform": platform,
            "location_id": self.location_id,
            "channel_id": str(self.channel.id),
        }
        if self.channel.guild_id is not None:
            query["guild_id"] = str(self.channel.guild_id)
        return query


def _launch_refused(code: str, message: str) -> DiscordAPIError:
    errors = FormErrors()
    errors.add(["type"], code, message)
    return DiscordAPIError(400, 50035, "Invalid Form Body", errors.tree)


class ActivityRoutes(ThreadRoutes):
    """The app's Activity: enabling it, its instances and their route, the Entry Point command's rules,
    voice channels, and the launch a LAUNCH_ACTIVITY callback makes."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activities_enabled = False
        # Every instance ever launched, by its id (ended ones stay, marked ended).
        self.activity_instances: dict[str, FakeActivityInstance] = {}
        # The instance a LAUNCH_ACTIVITY callback (or Discord's own handler) launched, by interaction id.
        self.activity_launches: dict[int, FakeActivityInstance] = {}

    # ------------------------------------------------------------------ the world

    def add_voice_channel(self, name: str, *, guild: Any = None) -> FakeChannel:
        """Creates a voice channel (type 2) in ``guild`` (default: the default guild; do it before the
        bot connects: it reaches the bot in GUILD_CREATE). Its text chat takes messages and
        interactions like a text channel's."""
        guild = guild or self.guild
        channel = FakeChannel(self.new_id(), name, 2, guild_id=guild.id, position=len(guild.channels))
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        return channel

    def enable_activities(self) -> dict[str, Any]:
        """The developer enables Activities in the portal: the application gets the EMBEDDED flag and
        Discord creates the default Entry Point command ("Launch", handler ``DISCORD_LAUNCH_ACTIVITY``)
        unless the app has one. Returns the Entry Point command as Discord stores it."""
        self.activities_enabled = True
        existing = self.entry_point_command()
        if existing is not None:
            return existing
        command = {
            "name": DEFAULT_ENTRY_POINT,
            "type": PRIMARY_ENTRY_POINT,
            "handler": DISCORD_LAUNCH_ACTIVITY,
        }
        stored = self._store_command(self.commands[None], command, None)
        self._notify()
        return stored

    def entry_point_command(self) -> dict[str, Any] | None:
        """The app's Entry Point command (global, type 4), if it has one."""
        return next((c for c in self.commands[None].values() if c.get("type") == PRIMARY_ENTRY_POINT), None)

    # ------------------------------------------------------------------ instances

    def activity_in(self, channel: FakeChannel) -> FakeActivityInstance | None:
        """The instance of the app's Activity running in ``channel``, if any."""
        return next(
            (i for i in self.activity_instances.values() if i.channel is channel and not i.ended), None
        )

    def activity_launched_by(self, inter: FakeInteraction) -> FakeActivityInstance | None:
        """The instance ``inter``'s LAUNCH_ACTIVITY callback (or Discord's Entry Point handler) launched
        or joined, if any."""
        return self.activity_launches.get(inter.id)

    def _activity_refusal(self, user: FakeUser, channel: FakeChannel) -> tuple[str, str] | None:
        """Why ``user`` cannot launch the app's Activity in ``channel``: (Discord's launch error, text),
        or None."""
        if not self.activities_enabled:
            return (
                "ACTIVITY_LAUNCH_INVALID_CONFIGURATION_NOT_EMBEDDED",
                "LAUNCH_ACTIVITY is only available for apps with Activities enabled.",
            )
        guild_channel = channel.guild_id is not None
        allowed = ACTIVITY_GUILD_CHANNELS if guild_channel else ACTIVITY_PRIVATE_CHANNELS
        if channel.type not in allowed:
            return (
                "ACTIVITY_LAUNCH_INVALID_CHANNEL_TYPE",
                f"An Activity cannot run in a channel of type {channel.type}.",
            )
        if (
            guild_channel
            and not self.guilds[channel.guild_id or 0].permissions_of(user.id, channel) & _USE_ACTIVITIES
        ):
            return (
                "ACTIVITY_LAUNCH_INVALID_USER_PERMISSIONS",
                "The user lacks the Use Activities permission here.",
            )
        return None

    def _join_or_launch(self, user: FakeUser, channel: FakeChannel) -> FakeActivityInstance:
        instance = self.activity_in(channel)
        if instance is None:
            instance = FakeActivityInstance(self.new_id(), self.application_id, channel)
            self.activity_instances[instance.instance_id] = instance
        if user not in instance.users:
            instance.users.append(user)
        self._notify()
        return instance

    def launch_activity(
        self, user: FakeUser, channel: FakeChannel, *others: FakeUser
    ) -> FakeActivityInstance:
        """``user`` launches the app's Activity in ``channel`` (from the App Launcher or a shared link;
        the instance running there is joined, as Discord does), then ``others`` join it. Raises
        :class:`InteractionRefused` where Discord's client would not launch it (Activities not enabled,
        a channel where an Activity cannot run, no Use Activities permission)."""
        for who in (user, *others):
            refusal = self._activity_refusal(who, channel)
            if refusal is not None:
                raise InteractionRefused(
                    f"{who.username} cannot launch the Activity in {channel.id}: {refusal[1]}"
                )
        instance = self._join_or_launch(user, channel)
        for other in others:
            self._join_or_launch(other, channel)
        return instance

    def join_activity(self, user: FakeUser, instance: FakeActivityInstance) -> None:
        """``user`` joins a running instance (the "Join" of its card in the channel)."""
        if instance.ended:
            raise InteractionRefused(f"the instance {instance.instance_id} has ended")
        self.launch_activity(user, instance.channel)

    def leave_activity(self, user: FakeUser, instance: FakeActivityInstance) -> None:
        """``user`` closes the Activity; the instance ends when its last user has left."""
        if user not in instance.users:
            raise FakeDiscordError(f"{user.username} is not in {instance.instance_id}")
        instance.users.remove(user)
        instance.ended = not instance.users
        self._notify()

    def _launch_by_callback(self, inter: FakeInteraction) -> FakeActivityInstance:
        """A LAUNCH_ACTIVITY callback: its user launches (or joins) the Activity in the interaction's
        channel; refused as the module's docstring says."""
        refusal = self._activity_refusal(inter.user, inter.channel)
        if refusal is not None:
            raise _launch_refused(*refusal)
        instance = self._join_or_launch(inter.user, inter.channel)
        self.activity_launches[inter.id] = instance
        return instance

    # ------------------------------------------------------------------ the instance route

    async def _h_activity_instance(
        self, request: web.Request, record: RecordedRequest, application_id: str, instance_id: str
    ) -> Any:
        instance = self.activity_instances.get(instance_id)
        if to_int(application_id) != self.application_id or instance is None or instance.ended:
            raise DiscordAPIError(404, 0, "404: Not Found")
        return instance.payload()

    # ------------------------------------------------------------------ the Entry Point command's rules

    def _validate_command(self, cmd: Any, path: list[str | int], errors: FormErrors) -> None:
        super()._validate_command(cmd, path, errors)
        if not isinstance(cmd, dict):
            return
        ctype = cmd.get("type") or 1
        if cmd.get("handler") is not None and ctype != PRIMARY_ENTRY_POINT:
            errors.add(
                [*path, "handler"],
                "APPLICATION_COMMAND_HANDLER_INVALID",
                "Only an Entry Point command has a handler.",
            )
        if ctype != PRIMARY_ENTRY_POINT:
            return
        if cmd.get("handler") is not None and not self.activities_enabled:
            errors.add(
                [*path, "handler"],
                "APPLICATION_COMMAND_HANDLER_INVALID",
                "A handler needs an app with Activities (the EMBEDDED flag).",
            )
        if cmd.get("options"):
            errors.add(
                [*path, "options"],
                "APPLICATION_COMMAND_OPTIONS_INVALID",
                "Only a chat-input command has options.",
            )

    def _entry_point_rules(self, payload: list[Any], guild_id: str | None, *, replaces_all: bool) -> None:
        """Type 4 is global and one per app; a bulk overwrite keeps the app's Entry Point command.
        ``replaces_all``: a bulk overwrite (its errors under each command's index), else one command."""
        errors = FormErrors()

        def at(i: int, key: str) -> list[str | int]:
            return [i, key] if replaces_all else [key]

        entry_points = [
            i for i, c in enumerate(payload) if isinstance(c, dict) and c.get("type") == PRIMARY_ENTRY_POINT
        ]
        for i in entry_points:
            if guild_id is not None:
                errors.add(
                    at(i, "type"),
                    "APPLICATION_COMMAND_TYPE_INVALID",
                    "An Entry Point command can only be global.",
                )
        too_many = "An app has at most one Entry Point command."
        for i in entry_points[1:]:
            errors.add(at(i, "type"), "APPLICATION_COMMAND_TOO_MANY_ENTRY_POINTS", too_many)
        existing = self.entry_point_command()
        # a POST of another Entry Point than the app's (one of the same name overwrites it)
        second = (
            existing is not None and entry_points and existing["name"] != payload[entry_points[0]].get("name")
        )
        if not replaces_all and guild_id is None and second:
            errors.add(at(0, "type"), "APPLICATION_COMMAND_TOO_MANY_ENTRY_POINTS", too_many)
        errors.raise_if_any()
        if replaces_all and guild_id is None and existing is not None and not entry_points:
            raise DiscordAPIError(400, 50240, ENTRY_POINT_KEPT)

    async def _h_put_commands(
        self, request: web.Request, record: RecordedRequest, application_id: str, guild_id: str | None = None
    ) -> Any:
        self._command_bucket(application_id, guild_id)  # 403 first, as the route below answers it
        if isinstance(record.json, list):
            self._entry_point_rules(record.json, guild_id, replaces_all=True)
        return await super()._h_put_commands(request, record, application_id, guild_id)

    async def _h_post_command(
        self, request: web.Request, record: RecordedRequest, application_id: str, guild_id: str | None = None
    ) -> Any:
        self._command_bucket(application_id, guild_id)
        if isinstance(record.json, dict):
            self._entry_point_rules([record.json], guild_id, replaces_all=False)
        return await super()._h_post_command(request, record, application_id, guild_id)

    def _store_command(
        self, bucket: dict[tuple[int, str], dict[str, Any]], cmd: dict[str, Any], guild_id: str | None
    ) -> dict[str, Any]:
        stored = super()._store_command(bucket, cmd, guild_id)
        if stored.get("type") == PRIMARY_ENTRY_POINT:
            stored.setdefault("handler", APP_HANDLER)  # the fake's reading: unset, the app handles it
        return stored
