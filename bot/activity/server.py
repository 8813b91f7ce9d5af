"""The Activity's public routes (docs/activity.md, "Routes"), served by the bot on a port of their own.

``ACTIVITY_PORT`` (:class:`~bot.activity.sessions.ActivitySettings`) is the public one, behind the
operator's HTTPS reverse proxy; ``/healthz`` and ``/metrics`` stay on ``METRICS_PORT``, private. Routes:

- ``GET /activity/`` and the files under it: ``bot/activity/static`` (``.js`` as ``text/javascript``);
- ``GET /activity/api/config``: the application's id, for the SDK;
- ``POST /activity/api/token`` ``{code, instance_id}``: the code exchanged at Discord's ``/oauth2/token``
  with the client secret, the user read from ``/users/@me``, the instance read with the bot token from
  ``/applications/{app}/activity-instances/{instance}`` (it runs and lists that user; its
  ``location.channel_id`` is the table's channel, never what the page says); answers the access token
  and a signed :class:`~bot.activity.sessions.Session` bound to that user and that channel's table;
- where the channel has no table, ``api/token`` answers 404 ``no_table`` with a signed
  :class:`~bot.activity.sessions.ChannelSession` (that user, that channel, no table) and the offer of
  :mod:`bot.activity.opening`; ``POST /activity/api/open`` ``{session, kind}`` opens a table there as
  ``/<game> new`` would, and ``POST /activity/api/channel`` ``{session}`` says whether the game is dealt;
- ``GET /activity/ws?session=``: the websocket; a session refused is closed with 4001 (the page signs in
  again); then the :class:`~bot.activity.hub.Hub` speaks the protocol.

In a fleet, a sign-in or a websocket of a table another process serves is relayed to that process
(:mod:`bot.activity.relay`).

Nothing here logs a code, a token or a session.
"""

from __future__ import annotations

import contextlib
import logging
import time
from pathlib import Path
from typing import Any, Protocol

import aiohttp
import discord
from aiohttp import web
from discord.http import Route

from bot.activity import frames, opening
from bot.activity.hub import Hub, Page
from bot.activity.relay import LOCAL, TRY_AGAIN, Relay
from bot.activity.sessions import (
    CHANNEL_SESSION_LIFETIME_S,
    SESSION_LIFETIME_S,
    ActivitySettings,
    ChannelSession,
    Session,
)
from bot.config import Shards
from bot.i18n import language_of
from bot.i18n import translate as t
from bot.service import Refused, TableService
from bot.service.snapshots import TableSnapshot
from bot.storage import Storage, StorageError
from bot.storage.prefs import DEFAULT_PREFS

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
SESSION_REFUSED = 4001  # the page signs in again (docs/activity.md)
GOING_AWAY = 1012  # "service restart": the page reconnects by itself
MAX_FIELD = 512  # a code or an instance id longer than this is not one
DISCORD_TIMEOUT_S = 10.0


class Host(Protocol):
    """What the Activity reads of the bot (``bot.client.SkyboBot``)."""

    @property
    def application_id(self) -> int | None: ...
    @property
    def http(self) -> discord.http.HTTPClient: ...
    @property
    def service(self) -> TableService: ...
    @property
    def shard_plan(self) -> Shards: ...
    @property
    def storage(self) -> Storage | None: ...
    def get_guild(self, guild_id: int, /) -> discord.Guild | None: ...
    def get_channel(self, channel_id: int, /) -> Any: ...


class Refusal(Exception):
    """A sign-in refused: the HTTP status and the protocol's error code."""

    def __init__(self, status: int, code: str) -> None:
        super().__init__(code)
        self.status = status
        self.code = code


class NoTable(Refusal):
    """A sign-in where the channel has no table: the channel session the page may open one with."""

    def __init__(self, session: ChannelSession) -> None:
        super().__init__(404, "no_table")
        self.session = session


class ActivityServer:
    """The Activity's aiohttp app: ``await start()``, ``await stop()`` (see the module doc)."""

    def __init__(self, bot: Host, settings: ActivitySettings, hub: Hub) -> None:
        self.bot = bot
        self.settings = settings
        self.hub = hub
        self.port = settings.port
        self._runner: web.AppRunner | None = None
        self.relay = Relay(bot.shard_plan, lambda: None if bot.storage is None else bot.storage.peers)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/activity", self._home)
        app.router.add_get("/activity/", self._index)
        app.router.add_get("/activity/api/config", self._config)
        app.router.add_post("/activity/api/token", self._token)
        app.router.add_post("/activity/api/open", self._open)
        app.router.add_post("/activity/api/channel", self._channel)
        app.router.add_get("/activity/ws", self._ws)
        app.router.add_static("/activity/", STATIC)
        runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, self.settings.host, self.port, reuse_address=True)
        try:
            await site.start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        server: Any = site._server
        self.port = int(server.sockets[0].getsockname()[1])
        self.relay.address = self.settings.peer_address(self.port)
        log.info("activity.listening", extra={"host": self.settings.host, "port": self.port})

    async def stop(self) -> None:
        """Every page hears ``sleep("restart")`` and loses its socket (1012): it comes back by itself."""
        await self.hub.close_all(frames.sleep("restart"), GOING_AWAY)
        await self.relay.close_all()
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    # ------------------------------------------------------------------ routes

    async def _home(self, _request: web.Request) -> web.Response:
        raise web.HTTPFound("/activity/")

    async def _index(self, _request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def _config(self, _request: web.Request) -> web.Response:
        return web.json_response({"client_id": str(self.bot.application_id)})

    async def _token(self, request: web.Request) -> web.Response:
        try:
            body = await request.json()
            code, instance_id = body["code"], body["instance_id"]
            if not all(isinstance(v, str) and 0 < len(v) <= MAX_FIELD for v in (code, instance_id)):
                raise ValueError
        except (ValueError, KeyError, TypeError):
            return web.json_response({"error": "bad_request"}, status=400)
        instance: dict[str, Any] | None = None
        if self.relay.fleet:  # whose table: the instance's guild's shard (a refused one: as on one process)
            with contextlib.suppress(Refusal):
                instance = await self._instance(instance_id)
                guild = instance["location"].get("guild_id")
                owner = await self.relay.owner(None if guild is None else int(guild), request)
                if owner is None:
                    return web.json_response({"error": "unavailable"}, status=503)
                if owner != LOCAL:
                    return await self.relay.token(owner, {"code": code, "instance_id": instance_id})
        try:
            access_token, session = await self.sign_in(code, instance_id, instance)
        except NoTable as none:
            offer = await opening.offer(self.bot, none.session)
            signed_channel = none.session.sign(self.settings.key)
            return web.json_response({"error": "no_table", "session": signed_channel, **offer}, status=404)
        except Refusal as refusal:
            return web.json_response({"error": refusal.code}, status=refusal.status)
        signed = session.sign(self.settings.key)
        return web.json_response({"access_token": access_token, "session": signed})

    async def sign_in(
        self, code: str, instance_id: str, instance: dict[str, Any] | None = None
    ) -> tuple[str, Session]:
        """The code exchanged, the user read, the instance checked (``instance``: already read), the
        table found: the access token and the session. Raises :class:`Refusal`."""
        api = Route.BASE
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "client_id": str(self.bot.application_id),
            "client_secret": self.settings.client_secret,
        }
        timeout = aiohttp.ClientTimeout(total=DISCORD_TIMEOUT_S)
        try:
            async with aiohttp.ClientSession(timeout=timeout) as http:
                async with http.post(f"{api}/oauth2/token", data=form) as answer:
                    if answer.status != 200:
                        raise Refusal(401, "code")
                    access_token = str((await answer.json())["access_token"])
                headers = {"Authorization": f"Bearer {access_token}"}
                async with http.get(f"{api}/users/@me", headers=headers) as answer:
                    if answer.status != 200:
                        raise Refusal(401, "code")
                    user = await answer.json()
        except (aiohttp.ClientError, TimeoutError, KeyError, ValueError):
            log.warning("activity sign-in: Discord did not answer the code exchange")
            raise Refusal(502, "discord") from None
        if instance is None:
            instance = await self._instance(instance_id)
        if str(user.get("id")) not in instance.get("users", []):
            raise Refusal(403, "instance")
        location = instance["location"]
        channel_id = int(location["channel_id"])
        guild = location.get("guild_id")  # whose shard serves the table (none: a private channel's)
        name = str(user.get("global_name") or user.get("username") or "")
        language = language_of(user.get("locale"))
        table = self.bot.service.table_in_channel(channel_id)
        if table is None or table.finished:
            server = guild if location.get("kind") == "gc" else None
            raise NoTable(
                ChannelSession(
                    user=int(user["id"]),
                    name=name,
                    channel=channel_id,
                    guild=None if server is None else int(server),
                    language=language,
                    expires=time.time() + CHANNEL_SESSION_LIFETIME_S,
                )
            )
        session = Session(
            user=int(user["id"]),
            name=name,
            channel=channel_id,
            table=table.id,
            language=language,
            expires=time.time() + SESSION_LIFETIME_S,
            guild=None if guild is None else int(guild),
        )
        return access_token, session

    async def _instance(self, instance_id: str) -> dict[str, Any]:
        """The running instance, read with the bot token (it says where it runs and who is in it)."""
        route = Route(
            "GET",
            "/applications/{application_id}/activity-instances/{instance_id}",
            application_id=self.bot.application_id,
            instance_id=instance_id,
        )
        try:
            instance = await self.bot.http.request(route)
        except discord.HTTPException:
            raise Refusal(403, "instance") from None
        if not isinstance(instance, dict) or not isinstance(instance.get("location"), dict):
            raise Refusal(403, "instance")
        return instance

    async def _channel_session(self, request: web.Request) -> tuple[ChannelSession, dict[str, Any]]:
        """The body's channel session, read and checked (raises 400 or 401 as a JSON answer)."""
        try:
            body = await request.json()
            text = body["session"]
            if not isinstance(text, str) or len(text) > 4 * MAX_FIELD:
                raise ValueError
        except (ValueError, KeyError, TypeError):
            raise web.HTTPBadRequest(
                text='{"error":"bad_request"}', content_type="application/json"
            ) from None
        session = ChannelSession.read(text, self.settings.key)
        if session is None:  # forged, or expired: the page signs in again
            raise web.HTTPUnauthorized(text='{"error":"session"}', content_type="application/json")
        return session, body

    async def _elsewhere(
        self, request: web.Request, session: ChannelSession, body: Any
    ) -> web.Response | None:
        """In a fleet, the answer of the process that serves the session's channel (relayed), or None: this
        one does."""
        owner = await self.relay.owner(session.guild, request)
        if owner == LOCAL:
            return None
        if owner is None:
            return web.json_response({"error": "unavailable"}, status=503)
        return await self.relay.post(owner, request.path.rsplit("/", 1)[-1], body)

    async def _open(self, request: web.Request) -> web.Response:
        """Open a table in the session's channel (:func:`bot.activity.opening.open_table`); a refusal
        is answered 409 with its reason in the bot's words, in the user's language."""
        session, body = await self._channel_session(request)
        if (relayed := await self._elsewhere(request, session, body)) is not None:
            return relayed
        kind = body.get("kind")
        if not isinstance(kind, str) or len(kind) > MAX_FIELD:
            return web.json_response({"error": "bad_request"}, status=400)
        try:
            lobby = await opening.open_table(self.bot, session, kind)
        except Refused as refusal:
            reason = opening.refusal_text(self.bot, refusal, session.language)
            return web.json_response({"error": "refused", "reason": reason}, status=409)
        except StorageError:
            reason = t("table.error.unavailable", session.language)
            return web.json_response({"error": "refused", "reason": reason}, status=503)
        log.info("activity opened a table", extra={"lobby_id": lobby.id, "channel_id": session.channel})
        return web.json_response(await opening.channel_state(self.bot, session))

    async def _channel(self, request: web.Request) -> web.Response:
        """Whether the session's channel has a table now, else its lobby (the page waits on it)."""
        session, body = await self._channel_session(request)
        if (relayed := await self._elsewhere(request, session, body)) is not None:
            return relayed
        return web.json_response(await opening.channel_state(self.bot, session))

    async def _ws(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse(heartbeat=None, max_msg_size=4 * frames.MAX_PAGE_FRAME)
        await socket.prepare(request)
        session = Session.read(request.query.get("session", ""), self.settings.key)
        if session is None:
            await socket.close(code=SESSION_REFUSED, message=b"session")
            return socket
        owner = await self.relay.owner(session.guild, request)
        if owner is None:
            await socket.close(code=TRY_AGAIN, message=b"owner")
            return socket
        if owner != LOCAL:
            await self.relay.websocket(socket, request.query["session"], owner)
            return socket
        prefs = (await self.bot.service.user_prefs.of([session.user])).get(session.user, DEFAULT_PREFS)
        cards = prefs.cards if prefs.cards in frames.CARDS else "classic"
        # No await from the snapshot to the join: the page hears every commit after its first frame.
        snapshot = await self._snapshot(session)
        if snapshot is None:
            await socket.close(code=SESSION_REFUSED, message=b"session")
            return socket
        page = Page(socket, session, session.table, snapshot.seat_of(session.user), cards)
        await self.hub.join(page, snapshot)
        try:
            async for message in socket:
                if message.type == aiohttp.WSMsgType.TEXT:
                    await self.hub.heard(page, message.data)
                elif message.type == aiohttp.WSMsgType.ERROR:
                    break
        finally:
            await self.hub.leave(page)
        return socket

    async def _snapshot(self, session: Session) -> TableSnapshot | None:
        """The table the session is bound to, as committed now (its end, for a table that ended); None
        when it is not this process's any more (the page signs in again)."""
        service = self.bot.service
        table = service.tables.get(session.table)
        if table is not None and table.channel_id == session.channel and not table.finished:
            async with service.lock(table.channel_id):  # no commit half-way: the snapshot's rule
                return TableSnapshot.of(table)
        ended = self.hub.ended.get(session.table)
        return ended.snapshot if ended is not None and ended.snapshot.channel_id == session.channel else None
