"""The gateway: HELLO, heartbeats, IDENTIFY (per shard, with Discord's refusals) and RESUME, member
chunks, and the dispatch of events to the sessions of a guild's shard; and its hard paths for the tests:
a dropped socket (resumable, or 4007 / 4009: a new session), an outage, RECONNECT (op 7), a zombie.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
from aiohttp import web

from fakecord.clock import to_int
from fakecord.constants import NEW_SESSION_CLOSE_CODES
from fakecord.core import FakeDiscordBase
from fakecord.errors import FakeDiscordError
from fakecord.interaction import FakeInteraction
from fakecord.sessions import GatewayConnection, GatewaySession


class Gateway(FakeDiscordBase):
    """The gateway websocket and the sessions on it."""

    async def _ws_handler(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        url = str(request.rel_url)
        self.gateway_urls.append(url)
        query = request.query
        if query.get("v") != "10" or query.get("encoding", "json") != "json":
            self.protocol_violations.append(f"unexpected gateway query {url}")
        compress = query.get("compress")
        if compress not in (None, "zlib-stream"):
            self.protocol_violations.append(f"unsupported gateway compression {compress!r}")
        conn = GatewayConnection(ws, compress=compress == "zlib-stream", url=url)
        self._connections.append(conn)
        self.gateway_connections.append(conn)
        try:
            await self._gateway_open.wait()
            if ws.closed:
                return ws
            hello = {"heartbeat_interval": self.heartbeat_interval_ms}
            await conn.send({"op": 10, "d": hello, "s": None, "t": None})
            async for msg in ws:
                if msg.type is aiohttp.WSMsgType.TEXT:
                    await self._gateway_receive(conn, json.loads(msg.data))
                elif msg.type is aiohttp.WSMsgType.BINARY:
                    self.protocol_violations.append("client sent a binary gateway frame")
                if conn.closed:
                    break
        finally:
            conn.closed = True
            if conn.session is not None and conn.session.connection is conn:
                conn.session.connection = None
            if conn in self._connections:
                self._connections.remove(conn)
            self._notify()
        return ws

    async def _gateway_receive(self, conn: GatewayConnection, payload: dict[str, Any]) -> None:
        op = payload.get("op")
        data = payload.get("d")
        if conn.silent:
            # A zombie: what the bot sends is lost; its heartbeats are counted, never acknowledged.
            if op == 1:
                self.heartbeats += 1
                conn.heartbeats += 1
            self._notify()
            return
        if op == 1:
            self.heartbeats += 1
            conn.heartbeats += 1
            # Never at once: discord.py notes a heartbeat's send time only after the send completed,
            # on its keep-alive thread; an ACK read before that counts from the previous heartbeat
            # ("Can't keep up, ... 41.3s behind"). A network's round trip always comes first.
            asyncio.get_running_loop().call_later(
                self.heartbeat_ack_delay, lambda: self._spawn(self._heartbeat_ack(conn))
            )
        elif op == 2:
            await self._identify(conn, data or {})
        elif op == 6:
            await self._resume(conn, data or {})
        elif conn.session is None:
            self.protocol_violations.append(f"op {op} sent before IDENTIFY")
            await self._close_gateway(conn, 4003, "Not authenticated.")
        elif op == 3:
            self.presence_updates.append(data or {})
        elif op == 4:
            pass  # voice state update: nothing to do
        elif op == 8:
            await self._request_members(conn, data or {})
        else:
            self.protocol_violations.append(f"unknown gateway opcode {op}")
            await self._close_gateway(conn, 4001, "Unknown opcode.")
        self._notify()

    async def _heartbeat_ack(self, conn: GatewayConnection) -> None:
        """A heartbeat's ACK, on the socket it came on, unless that socket no longer carries its session
        (closed, a zombie, or RECONNECT sent on it: the fake sends nothing more there)."""
        if conn.session is not None and conn.session.connection is not conn:
            return
        await conn.send({"op": 11, "d": None, "s": None, "t": None})
        self._notify()

    async def _close_gateway(self, conn: GatewayConnection, code: int, reason: str) -> None:
        self.gateway_closes.append((code, reason))
        self.gateway_log.append((f"CLOSE {code}", conn.session.session_id if conn.session else ""))
        await conn.close(code, reason)

    def _identify_shard(self, data: dict[str, Any]) -> tuple[int, int] | str:
        """The IDENTIFY's ``[shard_id, num_shards]`` (``[0, 1]`` when absent), or why it is invalid."""
        shard = data.get("shard")
        if shard is None:
            return 0, 1
        if (
            not isinstance(shard, list)
            or len(shard) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in shard)
        ):
            return f"IDENTIFY shard must be [shard_id, num_shards], got {shard!r}"
        shard_id, shard_count = shard
        if shard_count < 1 or not 0 <= shard_id < shard_count:
            return f"IDENTIFY shard {shard!r} is out of range (0 <= shard_id < num_shards, num_shards >= 1)"
        return shard_id, shard_count

    def _shard_conflict(self, shard_id: int, shard_count: int) -> str | None:
        """Why a new session on this shard may not join the live ones (``None``: it may)."""
        if self.allow_shard_overlap:
            return None
        for other in self.sessions.values():
            if other.retired or not other.live:
                continue
            here = f"IDENTIFY on shard [{shard_id}, {shard_count}] while live session {other.session_id[:8]}"
            if other.shard_count != shard_count:
                return (
                    f"{here} is on shard [{other.shard_id}, {other.shard_count}]: the shard counts disagree"
                )
            if other.shard_id == shard_id:
                return f"{here} still holds that shard: a second session on one shard"
        return None

    async def _identify(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        if conn.session is not None:
            self.protocol_violations.append("IDENTIFY sent twice on one connection")
            await self._close_gateway(conn, 4005, "Already authenticated.")
            return
        if data.get("token") != self.token:
            await self._close_gateway(conn, 4004, "Authentication failed.")
            return
        shard = self._identify_shard(data)
        if isinstance(shard, str):
            self.protocol_violations.append(shard)
            await self._close_gateway(conn, 4010, "Invalid shard.")
            return
        shard_id, shard_count = shard
        conflict = self._shard_conflict(shard_id, shard_count)
        if conflict is not None:
            self.protocol_violations.append(conflict)
            await self._close_gateway(conn, 4010, "Invalid shard.")
            return
        if self.sharding_required and shard_count == 1:
            await self._close_gateway(conn, 4011, "Sharding required.")
            return
        # The new session takes over its shard: a disconnected session on it (a process that died),
        # or of an older shard layout, will never be resumed; it stops collecting events.
        for old in self.sessions.values():
            if (
                not old.retired
                and not old.live
                and (old.shard_count != shard_count or old.shard_id == shard_id)
            ):
                old.retire()
        session = GatewaySession(
            secrets.token_hex(16),
            int(data.get("intents") or 0),
            data,
            shard_id=shard_id,
            shard_count=shard_count,
        )
        self.sessions[session.session_id] = session
        self.session = session
        self.gateway_log.append(("IDENTIFY", session.session_id))
        session.connection = conn
        conn.session = session
        ready: dict[str, Any] = {
            "v": 10,
            "user": {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "email": None},
            "guilds": [
                {"id": str(g.id), "unavailable": True}
                for g in self.guilds.values()
                if self._bot_in(g.id) and session.handles(g.id)
            ],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.resume_gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "auth": {},
            "_trace": ["fake-discord"],
        }
        if "shard" in data:
            ready["shard"] = data["shard"]
        await session.dispatch("READY", ready)
        for guild in self.guilds.values():
            if (
                self._bot_in(guild.id)
                and guild.id not in self.unavailable_guilds
                and session.handles(guild.id)
            ):
                await session.dispatch("GUILD_CREATE", guild.payload())

    async def _resume(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        session_id = str(data.get("session_id") or "")
        session = self.sessions.get(session_id)
        if session is None or session.retired or data.get("token") != self.token:
            if session is not None:
                session.refused_resumes += 1
            self.gateway_log.append(("INVALID_SESSION", session_id))
            await conn.send({"op": 9, "d": False, "s": None, "t": None})
            return
        if conn.url.split("?")[0] != "/resume":
            self.protocol_violations.append(f"RESUME not sent to resume_gateway_url (got {conn.url})")
        seq = int(data.get("seq") or 0)
        if seq > session.seq:
            # A sequence number the session never sent: Discord closes with 4007 and the session is over.
            self.protocol_violations.append(f"RESUME with seq {seq}, past the last event sent: {session.seq}")
            session.retire()
            self.gateway_closes.append((4007, NEW_SESSION_CLOSE_CODES[4007]))
            self.gateway_log.append(("CLOSE 4007", session.session_id))
            await conn.close(4007, NEW_SESSION_CLOSE_CODES[4007])
            return
        if session.connection is not None and session.connection is not conn:
            session.connection.closed = True
        session.connection = conn
        conn.session = session
        for event in session.events:
            if event["s"] > seq:
                await conn.send(event)
        session.resumes += 1
        self.gateway_log.append(("RESUME", session.session_id))
        await session.dispatch("RESUMED", {"_trace": ["fake-discord"]})

    async def _request_members(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        assert conn.session is not None
        guild = self.guilds.get(to_int(data.get("guild_id")))
        if guild is None or not self._bot_in(guild.id) or not conn.session.handles(guild.id):
            return
        members = list(guild.members.values())
        if data.get("user_ids"):
            wanted = {to_int(u) for u in data["user_ids"]}
            members = [m for m in members if m.user.id in wanted]
        elif data.get("query"):
            members = [m for m in members if m.user.username.startswith(data["query"])]
        if data.get("limit"):
            members = members[: int(data["limit"])]
        chunk: dict[str, Any] = {
            "guild_id": str(guild.id),
            "members": [m.payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        await conn.session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    def sessions_for(self, guild_id: int | None) -> list[GatewaySession]:
        """The sessions that receive ``guild_id``'s events (``None``: DMs, shard 0), dropped ones
        (queuing for their RESUME) included: one, unless ``allow_shard_overlap`` let several in."""
        return [s for s in self.sessions.values() if s.handles(guild_id)]

    def session_on(self, shard_id: int, shard_count: int | None = None) -> GatewaySession:
        """The newest not retired session on shard ``shard_id`` (of ``shard_count``, any if omitted)."""
        for session in reversed(list(self.sessions.values())):
            if (
                not session.retired
                and session.shard_id == shard_id
                and shard_count in (None, session.shard_count)
            ):
                return session
        raise FakeDiscordError(f"no gateway session on shard {shard_id} of {shard_count}")

    async def _guild_event(self, guild_id: int | None, event: str, data: Any) -> list[GatewaySession]:
        """Dispatches a guild's event (``None``: a DM's) to the sessions of its shard."""
        sessions = self.sessions_for(guild_id)
        for session in sessions:
            await session.dispatch(event, data)
        return sessions

    async def dispatch(self, event: str, data: Any, *, session: GatewaySession | None = None) -> None:
        """Sends a raw DISPATCH event (queued for replay if the socket is down) to ``session``, by
        default to the sessions of the guild in ``data`` (``guild_id``, or ``id`` for GUILD_* events;
        none: shard 0)."""
        if self.session is None:
            raise FakeDiscordError("no bot has identified on the gateway")
        if session is not None:
            await session.dispatch(event, data)
        else:
            raw = data.get("guild_id") if isinstance(data, dict) else None
            if raw is None and isinstance(data, dict) and event.startswith("GUILD_"):
                raw = data.get("id")
            await self._guild_event(None if raw is None else to_int(raw), event, data)
        self._notify()

    def _target(self, session: GatewaySession | None) -> GatewaySession:
        target = session or self.session
        if target is None:
            raise FakeDiscordError("no bot has identified on the gateway")
        return target

    async def drop_gateway(self, code: int = 4000, *, session: GatewaySession | None = None) -> None:
        """Closes the gateway socket of ``session`` (default: the last one identified) with ``code``.

        The default, 4000, is resumable: the bot RESUMEs and gets what it missed. 4007 (Invalid seq) and
        4009 (Session timed out) end the session, as on Discord: it no longer collects events (those of
        its guilds go to no one until the bot identifies again), and a RESUME of it gets INVALID_SESSION.
        discord.py 2.7 tries that RESUME anyway (it only gives up on 4004 and 4010-4014), then, refused,
        IDENTIFYs anew, 5 s later (``Client.before_identify_hook`` waits that long before any IDENTIFY but
        the first): ``gateway_log`` shows ``CLOSE 4009, INVALID_SESSION, IDENTIFY``."""
        session = self._target(session)
        if session.connection is None:
            raise FakeDiscordError("no gateway connection to drop")
        conn = session.connection
        session.connection = None
        reason = NEW_SESSION_CLOSE_CODES.get(code, "dropped by the test")
        if code in NEW_SESSION_CLOSE_CODES:
            session.retire()
        self.gateway_closes.append((code, reason))
        self.gateway_log.append((f"CLOSE {code}", session.session_id))
        conn.closed = True
        conn.close_code, conn.close_reason = code, reason
        await conn.ws.close(code=code, message=reason.encode())
        self._notify()

    async def send_reconnect(self, *, session: GatewaySession | None = None) -> GatewaySession:
        """Sends RECONNECT (op 7) on the socket of ``session`` (default: the last one identified): Discord
        asking the bot to reconnect and RESUME. Like Discord, the fake then sends nothing more on that
        socket: what is dispatched from now on (events, clicks) is queued and replayed on the RESUME.
        discord.py closes the socket at once and RESUMEs on ``resume_gateway_url``; wait for it with
        ``session.resumes`` (or use ``gateway_outage(reconnect=True)``). Returns the session."""
        target = self._target(session)
        conn = target.connection
        if conn is None or not target.live:
            raise FakeDiscordError(f"{target!r} has no open gateway socket to send RECONNECT on")
        target.connection = None  # from now on, its events queue for the RESUME
        self.gateway_log.append(("RECONNECT", target.session_id))
        await conn.send({"op": 7, "d": None, "s": None, "t": None})
        self._notify()
        return target

    def _successor(self, session: GatewaySession) -> GatewaySession | None:
        """The live session identified on ``session``'s shard after it (the bot back after a new IDENTIFY)."""
        later = list(self.sessions.values())
        later = later[later.index(session) + 1 :]
        return next((s for s in later if s.shard == session.shard and s.live), None)

    @contextlib.asynccontextmanager
    async def gateway_outage(
        self,
        code: int = 4000,
        timeout: float = 10.0,
        *,
        session: GatewaySession | None = None,
        reconnect: bool = False,
    ) -> AsyncIterator[None]:
        """Drops the socket of ``session`` (default: the last one identified) with ``code`` (or, with
        ``reconnect=True``, sends it RECONNECT, op 7, instead) and keeps new connections waiting until the
        block exits: the bot is away for the whole block.

        Events dispatched inside the block (``dispatch``, ``run_command``, ``click``) are queued; on exit
        the bot reconnects, RESUMEs, and receives them as a replay; the exit waits for the RESUMED event
        to be sent. With 4007 or 4009 (see :meth:`drop_gateway`) the session is over: nothing is queued
        (a click in the block has no session to go to), and the exit waits for the bot's new session
        (RESUME refused, then IDENTIFY) to be live.
        """
        target = self._target(session)
        resumes = target.resumes
        self._gateway_open.clear()
        try:
            if reconnect:
                await self.send_reconnect(session=target)
            else:
                await self.drop_gateway(code, session=target)
            yield
        finally:
            self._gateway_open.set()
        if target.retired:
            await self.wait_until(
                lambda: self._successor(target), timeout, what="the bot to IDENTIFY a new session"
            )
        else:
            await self.wait_until(
                lambda: target.resumes > resumes and target.connection is not None,
                timeout,
                what="the bot to RESUME",
            )

    @contextlib.asynccontextmanager
    async def zombie(
        self, *, session: GatewaySession | None = None, timeout: float = 10.0
    ) -> AsyncIterator[GatewayConnection]:
        """The socket of ``session`` (default: the last one identified) becomes a zombie for the block and
        after: it stays open, but nothing goes through it any more (a half-open connection): the bot's
        heartbeats get no ACK (op 11) and events dispatched to the session are not sent but queued, and
        replayed when the bot RESUMEs on a new socket. Yields the zombie connection.

        discord.py 2.7 notices a zombie by silence: when nothing at all (no ACK, no event) arrived for its
        ``heartbeat_timeout`` (a ``Client`` option, 60 s by default; its keep-alive thread checks at every
        heartbeat, and each read of the socket times out after it), it closes the socket with 4000 and
        RESUMEs. The exit of the block waits (up to ``timeout``) for that RESUME. For a fast test, give the
        client a short ``heartbeat_timeout`` (e.g. ``client._connection.heartbeat_timeout = 1.5``) and
        the fake a :attr:`heartbeat_interval_ms` below it (e.g. 250), both before the client connects:
        ACKs then keep a quiet connection alive, and the zombie shows within ``heartbeat_timeout``.
        """
        target = self._target(session)
        conn = target.connection
        if conn is None or not target.live:
            raise FakeDiscordError(f"{target!r} has no open gateway socket to turn into a zombie")
        resumes = target.resumes
        conn.silent = True
        self.gateway_log.append(("ZOMBIE", target.session_id))
        self._notify()
        yield conn
        await self.wait_until(
            lambda: target.resumes > resumes and target.connection not in (None, conn),
            timeout,
            what="the bot to notice the zombie connection and RESUME",
        )

    def deliveries(self, inter: FakeInteraction) -> list[GatewayConnection]:
        """The gateway sockets the INTERACTION_CREATE of ``inter`` was written to, once per writing (a
        replay writes it again): exactly one entry when the bot received the interaction once."""
        wanted = str(inter.id)
        return [
            conn
            for conn in self.gateway_connections
            for event in conn.sent_events
            if event["t"] == "INTERACTION_CREATE" and event["d"].get("id") == wanted
        ]
