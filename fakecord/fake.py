"""A wire-level fake of Discord (REST API v10 + gateway) for end-to-end tests and the local sandbox.

A library of its own (the top-level package ``fakecord``, README.md beside this file): it imports
nothing from ``bot`` or ``cogs``. ``bot/sandbox`` (``python -m bot sandbox``) runs the real bot against
it, and the tests and benches use it.

The fake is a real aiohttp server bound to ``127.0.0.1`` on a random port.  A real
``discord.Client`` / ``commands.Bot`` talks to it over HTTP and a websocket exactly as
it would talk to Discord, once :meth:`FakeDiscord.patch` has pointed
``discord.http.Route.BASE`` and ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` at it.

What it offers (see ``tests/fakecord/conftest.py`` for the pytest fixtures):

* **A small world**: one guild (``fake.guild``) with ``@everyone`` and a bot role, two
  text channels (``fake.channel("general")``, ``fake.channel("games")``), three human
  members (``fake.user("alice")``, ``"bob"``, ``"carol"``, French locale for carol), the
  bot member and the guild's owner (``fake.owner``: a user of its own, or one of the members with
  ``FakeDiscord(owner="alice")``). Permissions are Discord's: the owner has them all, a member those
  of @everyone (Discord's defaults for a new server: no Manage Server, no Manage Channels) and of its
  roles, then the channel's overwrites; each interaction carries them.  Add more with
  :meth:`FakeDiscord.add_user` / :meth:`FakeDiscord.add_channel` / :meth:`FakeDiscord.add_voice_channel`
  *before* the bot connects, and more guilds with :meth:`FakeDiscord.add_guild` (``shard=(1, 2)``
  picks an id on that shard; added while a bot runs, it is the bot joining a guild).
* **Gateway**: HELLO, heartbeat/ACK, IDENTIFY -> READY -> GUILD_CREATE, zlib-stream
  compression (``compress=zlib-stream``), RESUME with replay of missed events,
  REQUEST_GUILD_MEMBERS -> GUILD_MEMBERS_CHUNK, MESSAGE_CREATE/UPDATE/DELETE events for
  public messages (when the bot asked for the message intents).
* **The gateway's hard paths**, each recorded in :attr:`FakeDiscord.gateway_log` (``(kind,
  session_id)``: ``IDENTIFY``, ``RESUME``, ``INVALID_SESSION``, ``RECONNECT``, ``ZOMBIE``, ``CLOSE
  <code>``) so that a test asserts the path the bot took (resumed, or refused and identified anew);
  :meth:`FakeDiscord.deliveries` tells on which sockets an interaction was written (once, unless
  replayed twice). :meth:`FakeDiscord.drop_gateway` cuts a socket with a close code: resumable (4000),
  or 4007 Invalid seq / 4009 Session timed out, which end the session as on Discord (its events go to
  no one, its RESUME gets INVALID_SESSION, discord.py then IDENTIFYs after its 5 s wait); a RESUME with
  a seq past the last event sent is closed with 4007 too. :meth:`FakeDiscord.send_reconnect` sends
  RECONNECT (op 7): nothing more on that socket, the bot RESUMEs and gets the events sent meanwhile.
  :meth:`FakeDiscord.gateway_outage` keeps the bot away for a block (a drop, or op 7 with
  ``reconnect=True``) and waits for it to be back. :meth:`FakeDiscord.zombie` turns a socket into a
  zombie for a block: open, but silent both ways (no heartbeat ACK, events held for the RESUME);
  discord.py notices after its ``heartbeat_timeout`` without receiving anything, closes and RESUMEs
  (a fast test sets a short :attr:`FakeDiscord.heartbeat_interval_ms`, HELLO's interval, and a short
  client ``heartbeat_timeout``).
* **Shards**, as Discord routes them: IDENTIFY's ``shard: [shard_id, num_shards]`` (absent: ``[0,
  1]``, the whole bot) makes a :class:`GatewaySession` of that shard; READY lists (and carries the
  ``shard``), and GUILD_CREATE, every guild event (channel update/delete, guild delete, messages,
  raw :meth:`FakeDiscord.dispatch`) and every INTERACTION_CREATE go, only to the sessions whose
  ``(guild_id >> 22) % num_shards == shard_id`` (:func:`shard_of`); DMs to shard 0. Several
  processes or clients (``Client(shard_id=, shard_count=)``, ``AutoShardedClient``) may run
  against one fake at once. Refusals: a malformed or out-of-range shard (``num_shards < 1``,
  ``shard_id >= num_shards``) closes with 4010 Invalid shard; ``sharding_required=True`` (a bot
  past Discord's 2,500 guilds per session) closes an unsharded IDENTIFY with 4011 Sharding
  required; ``GET /gateway/bot`` answers ``recommended_shards``. *Stricter than Discord*: Discord
  accepts a second session on a shard that a live session holds, and sessions whose shard counts
  differ (it routes each event to every session its formula selects, so both would receive, and
  answer, the same interactions: the "Interaction has already been acknowledged" of a bot run
  twice). The fake refuses such a newcomer with 4010 and a protocol violation, because for this
  project it is a bug (two processes driving one shard); ``allow_shard_overlap=True`` models
  Discord exactly. A session that dropped without resuming is not live: a new IDENTIFY on its
  shard (the restarted process) takes over and *retires* it (its RESUME then gets
  INVALID_SESSION), as does one of an older shard count.
* **REST**: users, application info, command sync, interaction callbacks (types
  4, 5, 6, 7, 8, 9, 12), follow-ups and original-response edits through the interaction
  webhook, channel messages (create/edit/delete/fetch/history, embeds, components,
  multipart file attachments served back from ``/attachments/...``), DM channels,
  typing, guild members, application emojis (``routes_emojis``: list, create, fetch, rename, delete,
  :meth:`FakeDiscord.emoji_image`; a component's custom emoji must be one of them;
  ``FakeDiscord(emojis=False)`` is a Discord without them), threads (``routes_threads``: started
  from a message or without one, posted in, archived and locked, THREAD_CREATE / THREAD_UPDATE, the
  permissions each step needs; :meth:`FakeDiscord.archive_thread` archives one under the bot,
  :meth:`FakeDiscord.threads_of` lists a channel's), Activities (``routes_activities``,
  ``activity_actions``, ``routes_oauth2``: :meth:`FakeDiscord.enable_activities`, instances and
  ``GET /applications/{id}/activity-instances/{instance_id}``, the Entry Point command, LAUNCH_ACTIVITY
  (callback type 12), ``POST /oauth2/token`` and ``GET /users/@me`` with a bearer token; the rules are
  in those modules' docstrings).  :meth:`FakeDiscord.rate_limit` makes the next N
  calls to a route answer 429 the way Discord does, so discord.py sleeps ``retry_after`` and retries;
  :meth:`FakeDiscord.fail` makes them answer 500/502/503/504, before or after acting on them;
  :meth:`FakeDiscord.hold` holds them on their way until the test lets them go (a slow network).
* **Places and installations** (``places``, from Discord's developer docs): the app installed to a
  server (its bot a member; ``add_guild(..., bot=False)`` a server without it) and to users
  (:meth:`FakeDiscord.install_for_user`, for ``FakeDiscord(integration_types=(0, 1))``); group DMs
  (:meth:`FakeDiscord.add_group_dm`) and DMs between users (:meth:`FakeDiscord.add_user_dm`), which the
  bot is not in (403 50001, no events); USE_EXTERNAL_APPS (:meth:`FakeDiscord.set_external_apps`).
  Each interaction carries ``context``, ``authorizing_integration_owners``, ``app_permissions`` and a
  partial ``channel`` as Discord sends them there; a command runs only where its ``contexts`` and
  ``integration_types`` (checked at sync against the application's) reach, else the user action raises
  :class:`InteractionRefused`; where only a user install authorized it, 5 follow-ups then 400 40094;
  answers forced ephemeral where the server forbids external apps. User commands (type 2):
  :meth:`FakeDiscord.run_user_command`. Modals with labels, selects, radio groups, checkbox groups and
  checkboxes (``modals``), submitted in Discord's MODAL_SUBMIT shapes.
* **Test-side actions**: :meth:`FakeDiscord.run_command`, :meth:`FakeDiscord.run_user_command`,
  :meth:`FakeDiscord.click`,
  :meth:`FakeDiscord.autocomplete`, :meth:`FakeDiscord.submit_modal`,
  :meth:`FakeDiscord.send_user_message` send a real gateway event and return a handle
  (:class:`FakeInteraction`) whose coroutines wait for the bot's answers (``response()``: the
  callback; ``answer()``: what the user sees, also when the callback was a deferral).
  :meth:`FakeDiscord.delete_channel` (CHANNEL_DELETE, then 404 10003 on it),
  :meth:`FakeDiscord.remove_bot_from_guild` (GUILD_DELETE, then 403 50001 on its channels and 404
  10004 on the guild; :attr:`FakeDiscord.unavailable_guilds` is an outage instead) and
  :meth:`FakeDiscord.set_overwrite` (channel permission overwrites, e.g. the bot's Send Messages
  denied: 403 50013 on posts, edits of its own messages still allowed) change the world under the
  bot.
* **Strictness** (the reason this exists): double acknowledgement -> 400/40060;
  first answer after 3 s or token use after 15 min (on :attr:`FakeDiscord.clock`, a
  manual clock: ``fake.clock.advance(901)``, or :class:`RealClock`) -> 404/10062 or 401/50027; ephemeral
  messages visible to one user only; clicks on components absent from (or disabled on)
  the message the user sees raise :class:`InteractionRefused`; component/embed/content limits ->
  400/50035 "Invalid Form Body" with Discord's nested ``errors`` shape; unknown routes
  -> 404 *and* recorded.  Every non-2xx answer the fake gives (other than injected
  429s) is a *rejection*.  Clicks are validated like Discord does (COMPONENT_VALIDATION_FAILED):
  a test may click on :meth:`FakeMessage.snapshot` (the message as a user last saw it, before
  the bot's later edits); if the clicked custom_id is no longer on the message as the fake
  holds it now (or is disabled now), the click never reaches the bot, the user's client shows
  "This interaction failed", and the fake records a :class:`FailedClick` (the handle's
  ``failed`` is true and waiting on its answer raises :class:`InteractionFailed`).
  :meth:`FakeDiscord.assert_clean` (run by the fixture at teardown) fails the test if any
  unknown route, rejection, failed click or gateway protocol violation was not consumed by
  the test with :meth:`FakeDiscord.take_rejections` / :meth:`FakeDiscord.take_failed_clicks` /
  :meth:`FakeDiscord.take_protocol_violations`.

Everything the bot sends is recorded in :attr:`FakeDiscord.requests`
(:class:`RecordedRequest`) and every message in :attr:`FakeDiscord.messages`
(:class:`FakeMessage`).  Waiting is done with :meth:`FakeDiscord.wait_until`, which wakes
on every state change of the fake (no polling sleeps).

The package, one job per module. Plain data, imported by everything above it: ``constants``
(Discord's numbers), ``errors`` (what the fake raises and answers, the ERROR-log collector),
``clock`` (clocks, snowflakes, shards), ``validation`` (payload limits), ``state`` (the world
model and the payload Discord sends for each thing), ``stored`` (a message's components and embeds as
Discord stores and returns them), ``records`` (requests, rejections, failed clicks), ``sessions``
(gateway sockets and sessions), ``interaction`` (the handle on an interaction), ``modals`` (a modal's
rules, and what submitting it sends). ``openapi`` holds
Discord's own description of its API, which judges every request and answer. The server is one
class built in layers, each a subclass of the one before it, so that a layer only calls what is below
it: ``core``
(the fake's state, waiting, strictness checks) <- ``gateway`` <- ``routes_guilds`` (application,
commands, guilds) <- ``places`` (installations, group DMs, what an interaction carries in each
place) <- ``routes_emojis`` (application emojis) <- ``routes_messages`` <-
``routes_threads`` (threads: start, archive, post in one) <- ``routes_activities`` (the app's Activity:
its instances, its Entry Point command's rules, voice channels) <- ``routes_interactions`` (callbacks,
webhooks) <- ``actions`` (what a user does) <- ``activity_actions`` (running the Entry Point command) <-
``routes_oauth2`` (codes, the token exchange, ``/users/@me`` with a bearer token) <- ``app`` (route
table, middleware, injected 429s and 5xx) <- this
module's :class:`FakeDiscord` (lifecycle, and the world changing under the bot).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import discord
import yarl
from aiohttp import web

from fakecord.app import HttpFront
from fakecord.errors import FakeDiscordError
from fakecord.state import FakeChannel, FakeGuild, FakeMember, FakeRole, FakeUser

log = logging.getLogger(__name__)


class FakeDiscord(HttpFront):
    """The fake Discord server.  Use ``await fake.start()`` / ``await fake.stop()``."""

    # ------------------------------------------------------------------ lifecycle

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> FakeDiscord:
        """Serves the fake on ``host:port`` (default: loopback, a free port; :attr:`port` says which)."""
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        self._add_routes(app)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        server: Any = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]
        log.debug("fake discord listening on %s", self.port)
        return self

    async def stop(self) -> None:
        for client, task in list(self._clients):
            await self._stop_client(client, task)
        self._gateway_open.set()
        for conn in list(self._connections):
            conn.closed = True
            with contextlib.suppress(Exception):
                await conn.ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def patch(self, monkeypatch: Any) -> None:
        """Points discord.py at this fake (``monkeypatch`` is pytest's fixture)."""
        monkeypatch.setattr(discord.http.Route, "BASE", self.api_base)
        monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(self.gateway_url))

    @contextlib.contextmanager
    def patched(self) -> Iterator[None]:
        """Same as :meth:`patch` without pytest: a context manager restoring the originals."""
        old_base = discord.http.Route.BASE
        old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield
        finally:
            discord.http.Route.BASE = old_base
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    @contextlib.asynccontextmanager
    async def running(
        self,
        client: discord.Client,
        *,
        timeout: float = 10.0,
        guild_ready_timeout: float | None = 0.1,
        sync_commands: bool = False,
        token: str | None = None,
    ) -> AsyncIterator[Any]:
        """Starts ``client`` against the fake, waits until it is ready, closes it on exit.

        ``guild_ready_timeout`` overrides discord.py's wait after the last GUILD_CREATE
        (2 s by default) so that readiness takes a fraction of a second; pass ``None`` to
        keep the client's own value.  ``sync_commands=True`` runs ``client.tree.sync()``
        (global) once ready, for bots that do not sync by themselves.  ``token`` defaults
        to :attr:`token` (the one the fake accepts).  If the client's task dies while the
        block runs, leaving the block raises ``RuntimeError`` chained to the cause.
        """
        client_any: Any = client
        if guild_ready_timeout is not None:
            client_any._connection.guild_ready_timeout = guild_ready_timeout
        task = asyncio.create_task(
            client.start(token or self.token), name=f"fake-discord-client-{id(client)}"
        )
        self._clients.append((client, task))
        try:
            await self._wait_ready(client, task, timeout)
            if sync_commands:
                await client_any.tree.sync()
            yield client
        finally:
            crash = await self._stop_client(client, task)
        if crash is not None:
            raise RuntimeError(f"the client crashed while running: {crash!r}") from crash

    async def _wait_ready(self, client: discord.Client, task: asyncio.Task[None], timeout: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not client.is_ready():
            if task.done():
                exc = None if task.cancelled() else task.exception()
                raise RuntimeError(f"the client stopped before it was ready: {exc!r}") from exc
            if loop.time() > deadline:
                raise TimeoutError(f"the client was not ready after {timeout}s")
            await asyncio.sleep(0.005)

    async def _stop_client(self, client: discord.Client, task: asyncio.Task[None]) -> BaseException | None:
        """Closes the client and returns the exception its task died of, if any."""
        if (client, task) in self._clients:
            self._clients.remove((client, task))
        if not client.is_closed():
            await client.close()
        try:
            await asyncio.wait_for(task, 10)
        except asyncio.CancelledError:
            return None
        except Exception as exc:
            return exc
        return None

    # ------------------------------------------------------------------ places that appear, change or vanish

    async def add_guild(
        self,
        name: str,
        *,
        shard: tuple[int, int] | None = None,
        channels: Iterable[str] = (),
        members: Iterable[FakeUser] = (),
        bot: bool = True,
    ) -> FakeGuild:
        """Adds a guild the bot is in, with text ``channels`` (names unique in the whole fake, for
        :meth:`channel`) and human ``members``. ``shard=(shard_id, shard_count)`` picks its id so that
        it lands on that shard (``(id >> 22) % shard_count``). Added while bots are connected, it is
        the bot joining a guild: GUILD_CREATE goes to the sessions of its shard.

        ``bot=False``: a guild where the app is not installed (the bot is not a member): the bot hears
        nothing of it (no GUILD_CREATE, no event), its channel routes answer 403 50001, and its members
        reach the app only through their own install (:meth:`install_for_user`; fakecord/places.py)."""
        gid = self.new_id() if shard is None else self.new_id.on_shard(*shard)
        guild = self._new_guild(gid, name, bot=bot)
        for channel_name in channels:
            self.add_channel(channel_name, guild=guild)
        for user in members:
            guild.members[user.id] = FakeMember(user)
        if bot:
            await self._guild_event(guild.id, "GUILD_CREATE", guild.payload())
        self._notify()
        return guild

    async def delete_channel(self, channel: FakeChannel) -> None:
        """An admin deletes ``channel``. Like Discord: CHANNEL_DELETE goes to the bot (if it is in the
        guild and connected; a stopped bot never hears of it), the channel's messages go with it (no
        click on them any more), and every REST call on it, messages included, answers 404 10003
        Unknown Channel. A text channel's threads go with it; a thread deleted alone sends THREAD_DELETE
        (its id, guild, parent and type)."""
        guild = self.guilds.get(channel.guild_id or 0)
        gone = [channel]
        if guild is not None:
            gone += [t for t in guild.threads if t.parent_id == channel.id]
            guild.channels = [c for c in guild.channels if c not in gone]
            guild.threads = [t for t in guild.threads if t not in gone]
        ids = {c.id for c in gone}
        for gone_id in ids:
            self.channels.pop(gone_id, None)
        for msg in self.messages.values():
            if msg.channel_id in ids:
                msg.deleted = True
        if self._bot_in(channel.guild_id):
            if channel.is_thread:
                data = {"id": str(channel.id), "guild_id": str(channel.guild_id), "type": channel.type}
                await self._guild_event(
                    channel.guild_id, "THREAD_DELETE", {**data, "parent_id": str(channel.parent_id)}
                )
            else:
                await self._guild_event(channel.guild_id, "CHANNEL_DELETE", channel.payload())
        self._notify()

    async def remove_bot_from_guild(self, guild: FakeGuild | None = None) -> None:
        """An admin removes the bot from ``guild`` (default: the test guild): GUILD_DELETE without
        ``unavailable`` (what Discord sends for a removal, as opposed to an outage). Afterwards, as for
        any bot that is not a member: REST on the guild's channels answers 403 50001 Missing Access,
        ``GET /guilds/{id}`` 404 10004 Unknown Guild, READY no longer lists it, no event or interaction
        comes from it."""
        guild = guild or self.guild
        if guild.members.pop(self.bot_user.id, None) is None:
            raise FakeDiscordError(f"the bot is not in {guild.name}")
        await self._guild_event(guild.id, "GUILD_DELETE", {"id": str(guild.id)})
        self._notify()

    async def set_overwrite(
        self,
        channel: FakeChannel,
        target: FakeUser | FakeRole | FakeGuild,
        *,
        allow: discord.Permissions | None = None,
        deny: discord.Permissions | None = None,
    ) -> None:
        """An admin sets ``channel``'s permission overwrite of ``target`` (a member, a role, or the guild
        for @everyone); neither ``allow`` nor ``deny`` removes it. CHANNEL_UPDATE goes to the bot. Take
        the bot's Send Messages away with ``set_overwrite(channel, fake.bot_user,
        deny=discord.Permissions(send_messages=True))``: posting there then answers 403 50013 Missing
        Permissions, while editing or deleting its own messages still works (as on Discord)."""
        kind = 1 if isinstance(target, FakeUser) else 0
        if allow is None and deny is None:
            channel.overwrites.pop(target.id, None)
        else:
            allowed, denied = (allow or discord.Permissions()).value, (deny or discord.Permissions()).value
            channel.overwrites[target.id] = (kind, allowed, denied)
        if self._bot_in(channel.guild_id) and channel.id in self.channels:
            await self._guild_event(channel.guild_id, "CHANNEL_UPDATE", channel.payload())
        self._notify()
