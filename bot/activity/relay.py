"""A fleet's Activity: a page reaching a process that does not serve its table is relayed to the one that
does (docs/activity.md, "A fleet"; docs/deploy.md).

The operator puts one public HTTPS address (Discord's URL mapping) in front of any process of a fleet.
A table belongs to the process serving its guild's shard (``bot.config.shard_of``; a table in no server,
a group DM or a DM, to shard 0's). Each process writes, when it takes its shards and serves them, where
its Activity answers its peers (``ACTIVITY_PEER_URL``, default ``http://<ACTIVITY_HOST>:<port>``) in
``activity_peers`` (:class:`bot.storage.peers.PeerRepository`). A process that gets

- a **sign-in** (``api/token``) for an instance whose guild is another shard's posts the page's body as
  it came to that shard's process and answers the page that process's answer, status and all: the
  owner exchanges the code, checks the instance and signs the session;
- a **websocket** whose session's guild is another shard's opens the same websocket to that shard's
  process and passes every frame through as it is, both ways, until either side closes; the other side
  is then closed with the same code (4001: the page signs in again), or 1012 when the owner went away
  without one (killed, cut off): the page reconnects by itself and finds the shard's new owner.

Nobody listening there (the owner died and its shard is not taken over yet), or a relayed request that
reaches a process not serving that shard (a row the new owner has not written yet) is answered "try
again": ``503 {"error": "unavailable"}`` for a sign-in, a close with 1013 for a websocket (the page
reconnects, with its growing delay). A relayed request carries :data:`RELAYED` and is never relayed
again. Sessions are signed with the key every process of the fleet shares, so the relaying process checks
them itself before relaying; nothing here logs a code, a token or a session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Final

import aiohttp
from aiohttp import web

from bot.activity import frames
from bot.config import Shards, shard_of
from bot.storage import PeerRepository, StorageError

log = logging.getLogger(__name__)

RELAYED: Final = "X-Skybo-Relayed"  # on a request a peer relays: answered where it lands, never relayed on
LOCAL: Final = "local"  # :meth:`Relay.owner`: this process serves the table
TRY_AGAIN: Final = 1013  # a websocket's "try again later": the page reconnects by itself
GOING_AWAY: Final = 1012  # the owner went away without a word: the page reconnects by itself
CONNECT_S: Final = 3.0  # the most a relay waits to reach the owner
TOKEN_S: Final = 25.0  # the owner's sign-in: its two calls to Discord, 10 s each at most


def _sendable(code: int | None) -> int | None:
    """``code`` if a close frame may carry it (RFC 6455 7.4: not 1005, 1006, 1015), else None."""
    if code is None:
        return None
    return code if code in (1000, 1001, 1008, 1011, 1012, 1013) or 3000 <= code <= 4999 else None


class Relay:
    """This process's side of a fleet's Activity (see the module doc). ``directory``: the peers'
    addresses (the storage's ``peers``; None: not open yet); :attr:`address`: this process's own, once
    it listens."""

    def __init__(self, shards: Shards, directory: Callable[[], PeerRepository | None]) -> None:
        self.shards = shards
        self.directory = directory
        self.address = ""
        # Each relayed page: its owner's socket, and set once both are closed.
        self._pipes: dict[web.WebSocketResponse, tuple[aiohttp.ClientWebSocketResponse, asyncio.Event]] = {}
        self._http: aiohttp.ClientSession | None = None
        self._stopping = False

    @property
    def fleet(self) -> bool:
        """True when other processes serve some tables (this one runs a part of the shards)."""
        return self.shards.partial

    async def advertise(self) -> None:
        """Write this process's address for each of its shards (it serves them now). A failure is
        logged, not raised: the peers then relay to the row's last writer, or say "try again"."""
        count, ids, repo = self.shards.count, self.shards.shard_ids, self.directory()
        if not self.fleet or count is None or ids is None or repo is None or not self.address:
            return
        try:
            await repo.advertise(count, ids, self.address)
        except (StorageError, ValueError):
            log.warning("activity: could not write where this process's Activity listens", exc_info=True)
            return
        log.info("activity.advertised", extra={"shards": list(ids), "peer_url": self.address})

    async def owner(self, guild: int | None, request: web.Request) -> str | None:
        """Who answers a page of ``guild``'s table: :data:`LOCAL` (this process), a peer's address, or
        None: nobody to reach now (try again)."""
        count = self.shards.count
        if count is None or self.shards.owns(guild):
            return LOCAL
        if request.headers.get(RELAYED):
            return None  # the peer's row for this shard is stale: the shard's new owner has not written yet
        repo = self.directory()
        if repo is None:
            return None
        try:
            url = await repo.url_of(count, shard_of(guild, count))
        except StorageError:
            log.warning("activity relay: the peers' addresses could not be read")
            return None
        return None if url is None or url == self.address else url

    def _client(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            timeout = aiohttp.ClientTimeout(total=None, connect=CONNECT_S, sock_connect=CONNECT_S)
            self._http = aiohttp.ClientSession(timeout=timeout)
        return self._http

    async def token(self, peer: str, body: dict[str, Any]) -> web.Response:
        """The owner's answer to a sign-in, as it answered it (its status and its JSON)."""
        return await self.post(peer, "token", body)

    async def post(self, peer: str, route: str, body: dict[str, Any]) -> web.Response:
        """The owner's answer to ``api/<route>`` (a sign-in, or where no table is, an open or a look at
        the channel: the table's process does all three), as it answered it (its status and its JSON)."""
        timeout = aiohttp.ClientTimeout(total=TOKEN_S, connect=CONNECT_S, sock_connect=CONNECT_S)
        try:
            async with self._client().post(
                f"{peer}/activity/api/{route}", json=body, headers={RELAYED: "1"}, timeout=timeout
            ) as answer:
                payload = await answer.json(content_type=None)
                return web.json_response(payload, status=answer.status)
        except (aiohttp.ClientError, TimeoutError, ValueError):
            log.warning(
                "activity relay: the table's process did not answer", extra={"peer": peer, "route": route}
            )
            return web.json_response({"error": "unavailable"}, status=503)

    async def websocket(self, page: web.WebSocketResponse, session: str, peer: str) -> None:
        """``page`` (prepared) piped to the owner's websocket for ``session``, frame by frame both ways,
        until one side closes; then the other is closed (see the module doc)."""
        url = "ws" + peer[len("http") :] if peer.startswith("http") else peer
        try:
            upstream = await self._client().ws_connect(
                f"{url}/activity/ws",
                params={"session": session},
                headers={RELAYED: "1"},
                heartbeat=None,
                max_msg_size=0,
            )
        except (aiohttp.ClientError, TimeoutError):
            log.warning("activity relay: the table's process is not reachable", extra={"peer": peer})
            await page.close(code=TRY_AGAIN, message=b"owner")
            return
        done = asyncio.Event()
        self._pipes[page] = (upstream, done)
        try:
            await _pipe(page, upstream)
        finally:
            await upstream.close(code=_sendable(page.close_code) or 1000)
            code = GOING_AWAY if self._stopping else _sendable(upstream.close_code) or GOING_AWAY
            await page.close(code=code, message=b"" if code != GOING_AWAY else b"restart")
            del self._pipes[page]
            done.set()

    async def close_all(self) -> None:
        """This process stops: every relayed page hears ``sleep("restart")`` and loses its socket (1012);
        it reconnects by itself, through another process or this one back."""
        self._stopping = True
        pipes = list(self._pipes.items())
        for page, (upstream, _) in pipes:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await page.send_str(frames.encode(frames.sleep("restart")))
            await upstream.close(code=1001)  # its pipe ends, and closes the page (1012)
        if pipes:  # each page's close answered (or not, within CONNECT_S: the server then drops them)
            waits = [asyncio.create_task(done.wait()) for _, (_, done) in pipes]
            await asyncio.wait(waits, timeout=CONNECT_S)
            for wait in waits:
                wait.cancel()
        if self._http is not None:
            await self._http.close()
            self._http = None


async def _pipe(page: web.WebSocketResponse, upstream: aiohttp.ClientWebSocketResponse) -> None:
    """Text frames passed through both ways until either side ends."""

    # the owner's frames to the page, the page's to the owner
    tasks = [asyncio.create_task(_forward(upstream, page)), asyncio.create_task(_forward(page, upstream))]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        ended = (asyncio.CancelledError, ConnectionError, RuntimeError, aiohttp.ClientError)
        for task in tasks:
            with contextlib.suppress(*ended):
                await task


async def _forward(
    source: web.WebSocketResponse | aiohttp.ClientWebSocketResponse,
    sink: web.WebSocketResponse | aiohttp.ClientWebSocketResponse,
) -> None:
    """``source``'s text frames sent on to ``sink`` until ``source`` ends or fails."""
    async for message in source:
        if message.type == aiohttp.WSMsgType.TEXT:
            await sink.send_str(message.data)
        elif message.type == aiohttp.WSMsgType.ERROR:
            return
