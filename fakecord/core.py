"""The fake's base layer: its state (the world, every recording), the bot's place in the world,
waiting on changes and the strictness checks; the layers above add the gateway, routes and actions.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

import discord
from aiohttp import web

from fakecord.clock import FakeClock, SnowflakeFactory, to_int
from fakecord.constants import (
    API_PREFIX,
    EVERYONE_DEFAULT_PERMISSIONS,
    HEARTBEAT_ACK_DELAY_S,
    HEARTBEAT_INTERVAL_MS,
    WAIT_S,
)
from fakecord.errors import DiscordAPIError, unknown_channel
from fakecord.interaction import FakeInteraction
from fakecord.records import FailedClick, FailureRule, HoldRule, RateLimitRule, RecordedRequest, Rejection
from fakecord.sessions import GatewayConnection, GatewaySession
from fakecord.state import FakeChannel, FakeGuild, FakeMember, FakeMessage, FakeRole, FakeUser

_T = TypeVar("_T")


class FakeDiscordBase:
    """The state of the fake and what every layer uses: the world, the recordings, :meth:`wait_until`,
    the strictness checks (:meth:`assert_clean`)."""

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        strict_commands: bool = True,
        clock: Any = None,
        users: Iterable[tuple[str, str, str | None]] | None = None,
        guild_name: str = "Skybo Test Guild",
        owner: str | None = None,
        recommended_shards: int = 1,
        sharding_required: bool = False,
        allow_shard_overlap: bool = False,
        world_first_id: int | None = None,
        integration_types: Iterable[int] = (0,),
    ) -> None:
        """``clock``: anything with ``now()`` (default a manual :class:`FakeClock`); ``users``:
        ``(username, locale, global_name)`` of the human members (default alice, bob, carol (fr));
        ``owner``: the username of one of them who owns the guild (:attr:`owner`; default: a user
        ``owner`` of its own). The owner has every permission; the others only @everyone's, Discord's
        defaults (:data:`EVERYONE_DEFAULT_PERMISSIONS`: no Manage Server, no Manage Channels).

        Shards: ``recommended_shards`` is what ``GET /gateway/bot`` answers; ``sharding_required``
        models a bot past Discord's 2,500 guilds per session: an unsharded IDENTIFY (no ``shard``, or a
        count of 1) is closed with 4011; ``allow_shard_overlap`` lets sessions on the same shard, or
        with different shard counts, live together as Discord allows (each receives the events its
        shard formula selects), instead of refusing the newcomer with 4010 (the default).

        ``world_first_id``: the bot, the guild, its roles, channels and users take the ids from this
        one on, the same at every start (a snowflake in the past); default: from the clock.

        ``integration_types``: where the application may be installed (its installation contexts, the
        Developer Portal's setting): 0 to servers (the default, as for an app created before 2024), 1 to
        users; ``(0, 1)`` both. A command may only declare installation contexts of this set, and a
        user installs the app (:meth:`install_for_user`) only if 1 is in it (fakecord/places.py)."""
        if recommended_shards < 1:
            raise ValueError("recommended_shards must be at least 1")
        self.integration_types = frozenset(integration_types)
        if not self.integration_types or not self.integration_types <= {0, 1}:
            raise ValueError(
                f"integration_types must be a non-empty subset of (0, 1), not {integration_types}"
            )
        self.token = token
        self.recommended_shards = recommended_shards
        self.sharding_required = sharding_required
        self.allow_shard_overlap = allow_shard_overlap
        self.max_concurrency = 1  # session_start_limit.max_concurrency of GET /gateway/bot
        self.strict_commands = strict_commands
        self.clock = clock if clock is not None else FakeClock()
        self._guild_name = guild_name
        self._owner_name = owner
        self._initial_users = (
            list(users)
            if users is not None
            else [("alice", "en-US", None), ("bob", "en-US", None), ("carol", "fr", None)]
        )
        self._listeners: list[Callable[[], None]] = []
        self._background: set[asyncio.Future[Any]] = set()
        # Seconds from a heartbeat to its ACK: a network's round trip, never 0 (see HEARTBEAT_ACK_DELAY_S).
        self.heartbeat_ack_delay = HEARTBEAT_ACK_DELAY_S
        # HELLO's heartbeat_interval (Discord's 41250 ms); a test of a zombie connection makes it short, below
        # the client's heartbeat_timeout, so that ACKs keep a quiet connection alive and silence shows fast.
        self.heartbeat_interval_ms = HEARTBEAT_INTERVAL_MS
        # Guilds in an outage: READY lists them (unavailable) but no GUILD_CREATE follows.
        self.unavailable_guilds: set[int] = set()
        self.new_id = SnowflakeFactory(world_first_id)
        self.port: int = 0
        self.public_url: str | None = None  # see http_base
        self._runner: web.AppRunner | None = None
        self._changed = asyncio.Event()

        # recordings
        self.requests: list[RecordedRequest] = []
        self.unknown_routes: list[RecordedRequest] = []
        self.rejections: list[Rejection] = []
        self.failed_clicks: list[FailedClick] = []
        self.rate_limited: list[RecordedRequest] = []
        self.protocol_violations: list[str] = []
        self.internal_errors: list[str] = []
        # Discord's own OpenAPI description judges every request and answer (app.py, openapi/):
        # the bot's bodies that broke it (each also a 400/50035 rejection) and the fake's own answers
        # that broke it (a bug of the fake). Off only for a benchmark that measures what it costs.
        self.judge_by_description = True
        self.description_violations: list[str] = []
        self.answer_violations: list[str] = []
        self.gateway_urls: list[str] = []
        self.gateway_connections: list[GatewayConnection] = []  # every socket, with .compress/.frames_sent
        # (close code, reason) of every gateway socket the fake closed itself, in order
        self.gateway_closes: list[tuple[int, str]] = []
        self.heartbeats = 0
        # What happened to the gateway sessions, in order: (kind, session_id), kind one of "IDENTIFY",
        # "RESUME", "INVALID_SESSION" (a RESUME refused), "RECONNECT" (op 7 sent), "ZOMBIE" (a socket went
        # silent), "CLOSE <code>" (the fake closed a socket; session_id "" before IDENTIFY). A test asserts
        # the path a reconnection took: resumed, or refused and identified anew.
        self.gateway_log: list[tuple[str, str]] = []
        self.presence_updates: list[dict[str, Any]] = []
        self._rate_limits: list[RateLimitRule] = []
        self.server_errors: list[RecordedRequest] = []  # requests answered with an injected 5xx
        self._failures: list[FailureRule] = []
        self._holds: list[HoldRule] = []

        # world
        self.bot_user = FakeUser(self.new_id(), "Skybo", bot=True)
        self.application_id = self.bot_user.id
        self.owner = FakeUser(self.new_id(), owner or "owner")  # its locale and name: see _build_world
        self.users: dict[int, FakeUser] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.guilds: dict[int, FakeGuild] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.interactions: dict[int, FakeInteraction] = {}
        self._interactions_by_token: dict[str, FakeInteraction] = {}
        # The synced commands of each scope (None: global; else a guild's id), by (command type, name):
        # Discord's names are unique per type and scope. ``global_commands`` / ``guild_commands`` show
        # them by name.
        self.commands: dict[int | None, dict[tuple[int, str], dict[str, Any]]] = {None: {}}
        self.user_installs: set[int] = set()  # the users who installed the app to their account
        self.modals: list[tuple[FakeInteraction, dict[str, Any]]] = []
        self.dm_channels: dict[int, FakeChannel] = {}

        # gateway
        self.sessions: dict[str, GatewaySession] = {}
        self.session: GatewaySession | None = None
        self._connections: list[GatewayConnection] = []
        self._gateway_open = asyncio.Event()
        self._gateway_open.set()
        self._clients: list[tuple[discord.Client, asyncio.Task[None]]] = []

        self._build_world()
        self.new_id.unpin()  # what comes next (messages, interactions, added users) is new

    # ------------------------------------------------------------------ world

    def _build_world(self) -> None:
        self.users[self.bot_user.id] = self.bot_user
        self.users[self.owner.id] = self.owner
        self.guild = self._new_guild(self.new_id(), self._guild_name)
        self.add_channel("general")
        self.add_channel("games")
        for username, locale, global_name in self._initial_users:
            if username == self._owner_name:  # the owner is this member: it is already in the guild
                self.owner.locale = locale
                self.owner.global_name = global_name or username.title()
            else:
                self.add_user(username, locale=locale, global_name=global_name)
        if self._owner_name is not None and self.owner.global_name is None:
            raise ValueError(f"the owner {self._owner_name!r} is not one of the users")

    def _new_guild(self, gid: int, name: str, *, bot: bool = True) -> FakeGuild:
        """A guild with @everyone and the owner as a member, and (``bot``: the app installed there) the
        bot as a member with its role."""
        everyone = FakeRole(gid, "@everyone", EVERYONE_DEFAULT_PERMISSIONS)
        guild = FakeGuild(gid, name, owner_id=self.owner.id, roles=[everyone])
        self.guilds[gid] = guild
        guild.members[self.owner.id] = FakeMember(self.owner)
        if bot:
            permissions = (discord.Permissions.text() | discord.Permissions(view_channel=True)).value
            bot_role = FakeRole(self.new_id(), "Skybo", permissions, 1)
            guild.roles.append(bot_role)
            guild.members[self.bot_user.id] = FakeMember(self.bot_user, roles=[bot_role.id])
        return guild

    def add_user(self, username: str, *, locale: str = "en-US", global_name: str | None = None) -> FakeUser:
        """Creates a human user, member of the default guild (do it before the bot connects)."""
        user = FakeUser(self.new_id(), username, global_name=global_name or username.title(), locale=locale)
        self.users[user.id] = user
        self.guild.members[user.id] = FakeMember(user)
        return user

    def add_role(self, name: str, *, members: tuple[FakeUser, ...] = (), permissions: int = 0) -> FakeRole:
        """Creates a role of the default guild given to ``members`` (do it before the bot connects:
        the guild's roles reach the bot in GUILD_CREATE)."""
        role = FakeRole(self.new_id(), name, permissions, len(self.guild.roles))
        self.guild.roles.append(role)
        for user in members:
            self.guild.members[user.id].roles.append(role.id)
        return role

    def add_channel(self, name: str, *, guild: FakeGuild | None = None) -> FakeChannel:
        """Creates a text channel in ``guild`` (default: the default guild; do it before the bot
        connects)."""
        guild = guild or self.guild
        channel = FakeChannel(self.new_id(), name, 0, guild_id=guild.id, position=len(guild.channels))
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        return channel

    def user(self, username: str) -> FakeUser:
        for user in self.users.values():
            if user.username == username:
                return user
        raise KeyError(username)

    def channel(self, name: str) -> FakeChannel:
        for channel in self.channels.values():
            if channel.name == name:
                return channel
        raise KeyError(name)

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between the bot and ``user`` (created on first use)."""
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(self.new_id(), "", 1, recipient=user)
            self.dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    # ------------------------------------------------------------------ addresses

    @property
    def http_base(self) -> str:
        """Where clients reach the fake: :attr:`public_url` when set (a fake served to other hosts or
        containers, ``python -m fakecord serve --public-url``), else ``http://127.0.0.1:<port>``. The
        addresses the fake hands out (the gateway's, the resume URL, attachments) are built on it."""
        return self.public_url.rstrip("/") if self.public_url else f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.http_base}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        return "ws" + self.http_base.removeprefix("http") + "/"

    @property
    def resume_gateway_url(self) -> str:
        return self.gateway_url + "resume"

    # ------------------------------------------------------------------ waiting & checks

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()
        for listener in list(self._listeners):
            listener()

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def add_listener(self, listener: Callable[[], None]) -> None:
        """Calls ``listener()`` (synchronously, keep it cheap) on every state change of the fake."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    async def wait_until(
        self, predicate: Callable[[], _T | None], timeout: float = WAIT_S, *, what: str = "a condition"
    ) -> _T:
        """Returns ``predicate()`` as soon as it is truthy; raises ``TimeoutError`` after ``timeout``.

        The predicate is re-checked on every state change of the fake and at least every
        20 ms, so it may also look at the bot's own state.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
            event = self._changed
            # wake on any change of the fake, and every 20 ms for conditions on bot-side state
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), min(remaining, 0.02))

    def take_rejections(self, code: int | None = None) -> list[Rejection]:
        """Removes (and returns) the recorded rejections, all or those with this error code."""
        taken = [r for r in self.rejections if code is None or r.code == code]
        self.rejections = [r for r in self.rejections if r not in taken]
        return taken

    async def wait_rejection(self, code: int, timeout: float = WAIT_S) -> Rejection:
        """Waits for a rejection with this error code and consumes it."""

        def find() -> Rejection | None:
            return next((r for r in self.rejections if r.code == code), None)

        rejection: Rejection = await self.wait_until(find, timeout, what=f"a rejection with code {code}")
        self.rejections.remove(rejection)
        return rejection

    def take_failed_clicks(self, custom_id: str | None = None) -> list[FailedClick]:
        """Removes (and returns) the recorded failed clicks, all or those on this custom_id."""
        taken = [f for f in self.failed_clicks if custom_id is None or f.custom_id == custom_id]
        self.failed_clicks = [f for f in self.failed_clicks if f not in taken]
        return taken

    def take_protocol_violations(self, needle: str | None = None) -> list[str]:
        """Removes (and returns) the recorded gateway protocol violations, all or those containing
        ``needle``: for a test that provokes one on purpose (e.g. an IDENTIFY on an invalid shard)."""
        taken = [v for v in self.protocol_violations if needle is None or needle in v]
        self.protocol_violations = [v for v in self.protocol_violations if v not in taken]
        return taken

    def assert_clean(self) -> None:
        """Fails on unknown routes, unconsumed rejections or failed clicks, gateway protocol
        violations, fake bugs."""
        problems: list[str] = []
        problems += [f"unknown route: {r.method} {r.path}" for r in self.unknown_routes]
        problems += [f"rejected: {r!r} errors={r.errors}" for r in self.rejections]
        problems += [f"failed click (This interaction failed): {f!r}" for f in self.failed_clicks]
        problems += [f"gateway protocol violation: {v}" for v in self.protocol_violations]
        problems += [f"fake discord internal error: {e}" for e in self.internal_errors]
        problems += [f"fake discord answered what Discord would not: {a}" for a in self.answer_violations]
        if self.judge_by_description:  # every request of a route, and its answer, went before the judge
            problems += [
                f"not judged by Discord's description: {r.method} {r.path} -> {r.status}"
                for r in self.requests
                if r.route is not None
                and not r.injected
                and r.status != 401
                and not (r.request_judged and r.answer_judged)
            ]
        if problems:
            raise AssertionError("fake Discord strictness check failed:\n  " + "\n  ".join(problems))

    def requests_to(self, method: str, route: str) -> list[RecordedRequest]:
        """Recorded requests for e.g. ``("POST", "/channels/{channel_id}/messages")`` (template or path)."""
        return [r for r in self.requests if r.method == method and route in (r.route, r.path)]

    # ------------------------------------------------------------------ the bot's place in the world

    def _channel(self, channel_id: str | int) -> FakeChannel:
        channel = self.channels.get(to_int(channel_id))
        if channel is None:
            raise unknown_channel()
        return channel

    def _bot_in(self, guild_id: int | None) -> bool:
        """True while the bot is a member of this guild (see :meth:`FakeDiscord.remove_bot_from_guild`)."""
        guild = self.guilds.get(guild_id or 0)
        return guild is not None and self.bot_user.id in guild.members

    @property
    def global_commands(self) -> dict[str, dict[str, Any]]:
        """The synced global commands by name, as Discord answers them (every type; where a slash
        command and a user or message command share a name, the slash command). :attr:`commands` is
        the store by (type, name)."""
        return _by_name(self.commands[None])

    @property
    def guild_commands(self) -> dict[int, dict[str, dict[str, Any]]]:
        """Each guild's synced commands by name (as :attr:`global_commands`)."""
        return {gid: _by_name(bucket) for gid, bucket in self.commands.items() if gid is not None}

    def registered_command(
        self, name: str, guild_id: int | None = None, kind: int = 1
    ) -> dict[str, Any] | None:
        """The synced command ``name`` of type ``kind`` (1 slash, 2 user) visible in ``guild_id``: the
        guild's own first, then the global one."""
        if guild_id is not None and (kind, name) in self.commands.get(guild_id, {}):
            return self.commands[guild_id][kind, name]
        return self.commands[None].get((kind, name))

    def _bot_permissions(self, channel: FakeChannel) -> int:
        if channel.type == 3 or (channel.type == 1 and channel.recipient is None):
            return 0  # a group DM or a DM between users: the bot is not in it (fakecord/places.py)
        if channel.type == 1:
            return discord.Permissions.text().value | discord.Permissions(view_channel=True).value
        if channel.guild_id is None or not self._bot_in(channel.guild_id):
            return 0
        return self.guilds[channel.guild_id].permissions_of(self.bot_user.id, channel)

    def _bot_can_see(self, channel: FakeChannel) -> None:
        """Every channel route: a channel the bot cannot view (or of a guild it is no longer in) answers
        403 50001 Missing Access, as Discord does."""
        if not self._bot_permissions(channel) & discord.Permissions(view_channel=True).value:
            raise DiscordAPIError(403, 50001, "Missing Access")


def _by_name(bucket: dict[tuple[int, str], dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """A scope's commands by name, a slash command (type 1) before another type of the same name."""
    ordered = sorted(bucket.items(), key=lambda item: item[0][0] == 1)
    return {name: cmd for (_, name), cmd in ordered}
