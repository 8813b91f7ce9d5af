"""Gateway sockets and sessions: a websocket (zlib-stream or plain) and an IDENTIFYed session on
its shard, with the sequence of events it was sent (replayed on RESUME).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import zlib
from typing import Any

from aiohttp import web

from fakecord.clock import shard_of


class GatewayConnection:
    def __init__(self, ws: web.WebSocketResponse, *, compress: bool, url: str) -> None:
        self.ws = ws
        self.url = url
        self.compress = compress
        self._compressor = zlib.compressobj() if compress else None
        self._lock = asyncio.Lock()
        self.session: GatewaySession | None = None
        self.closed = False
        self.frames_sent = 0
        self.close_code: int | None = None  # the close code the fake sent on this socket, if it closed it
        self.close_reason = ""
        # A zombie (FakeDiscord.zombie): the socket stays open but nothing goes through it any more, either
        # way: no ACK for the bot's heartbeats, no event (the session queues them for its RESUME).
        self.silent = False
        self.heartbeats = 0  # the bot's heartbeats received on this socket
        self.acks = 0  # the HEARTBEAT_ACKs sent on it
        self.sent_events: list[dict[str, Any]] = []  # the DISPATCH payloads written to it, replays included

    async def close(self, code: int, reason: str) -> None:
        """The fake closes the socket with a gateway close code (kept on the connection for the tests)."""
        self.close_code, self.close_reason = code, reason
        self.closed = True
        with contextlib.suppress(Exception):
            await self.ws.close(code=code, message=reason.encode())

    async def send(self, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload, separators=(",", ":"))
        async with self._lock:
            if self.closed or self.silent or self.ws.closed:
                return
            try:
                if self._compressor is not None:
                    blob = self._compressor.compress(raw.encode()) + self._compressor.flush(zlib.Z_SYNC_FLUSH)
                    await self.ws.send_bytes(blob)
                else:
                    await self.ws.send_str(raw)
                self.frames_sent += 1
                if payload.get("op") == 0:
                    self.sent_events.append(payload)
                elif payload.get("op") == 11:
                    self.acks += 1
            except (ConnectionError, RuntimeError):
                self.closed = True


class GatewaySession:
    """One IDENTIFYed gateway session: shard ``shard_id`` of ``shard_count`` ([0, 1] when the IDENTIFY
    had no ``shard``). It receives the events of the guilds of its shard (DMs: shard 0) until it is
    *retired*: replaced by a new IDENTIFY on its shard while it was disconnected, or ended by a close code
    after which Discord wants a new session (4007, 4009); a RESUME of it then gets INVALID_SESSION."""

    def __init__(
        self,
        session_id: str,
        intents: int,
        identify: dict[str, Any],
        *,
        shard_id: int = 0,
        shard_count: int = 1,
    ) -> None:
        self.session_id = session_id
        self.intents = intents
        self.identify = identify
        self.shard_id = shard_id
        self.shard_count = shard_count
        self.seq = 0
        self.events: list[dict[str, Any]] = []
        self.connection: GatewayConnection | None = None
        self.resumes = 0  # RESUMEs of it that succeeded
        self.refused_resumes = 0  # RESUMEs of it answered INVALID_SESSION (it was retired)
        self.retired = False

    def __repr__(self) -> str:
        return f"<GatewaySession {self.session_id[:8]} shard=[{self.shard_id}, {self.shard_count}]>"

    @property
    def shard(self) -> tuple[int, int]:
        return self.shard_id, self.shard_count

    @property
    def live(self) -> bool:
        """A socket is attached and open (a dropped session waiting for its RESUME is not live)."""
        conn = self.connection
        return conn is not None and not conn.closed and not conn.ws.closed

    def retire(self) -> None:
        """It will never be resumed: it stops collecting events (a RESUME of it gets INVALID_SESSION)."""
        self.retired = True
        self.events.clear()

    def handles(self, guild_id: int | None) -> bool:
        """Whether this session receives the events of ``guild_id`` (``None``: a DM, shard 0)."""
        return not self.retired and shard_of(guild_id, self.shard_count) == self.shard_id

    async def dispatch(self, event: str, data: Any) -> None:
        self.seq += 1
        payload = {"op": 0, "t": event, "s": self.seq, "d": data}
        self.events.append(payload)
        if self.connection is not None:
            await self.connection.send(payload)
