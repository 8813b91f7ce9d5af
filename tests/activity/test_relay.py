"""A fleet's relay (bot/activity/relay.py) between two real aiohttp servers: the table's owner and a
front process that serves another shard. Who answers a page (this process, a peer from
``activity_peers`` on a real SQLite storage, or nobody: try again); the websocket piped frame by frame
both ways and closed both ways (the page's close reaches the owner, the owner's 4001 reaches the page,
an owner gone is 1012, an owner not reachable 1013, the front stopping says ``sleep`` and 1012); a
sign-in answered by the owner as it answered it, or 503 when it cannot be reached."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from bot.activity.relay import LOCAL, RELAYED, TRY_AGAIN, Relay
from bot.config import Shards
from bot.storage import Storage

SHARD_1 = 1 << 22  # a guild on shard 1 of 2 (and of 4)
SHARD_0 = 2 << 22
SHARD_3 = 3 << 22  # shard 3 of 4


async def serve(app: web.Application) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    server: Any = site._server
    return runner, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"


class Owner:
    """The table's process: echoes a page's frames in capitals, refuses the session ``refused``."""

    def __init__(self) -> None:
        self.heard: list[str] = []
        self.relayed: list[str | None] = []
        self.closed = asyncio.Event()
        self.app = web.Application()
        self.app.router.add_get("/activity/ws", self.ws)
        self.app.router.add_post("/activity/api/token", self.token)

    async def ws(self, request: web.Request) -> web.WebSocketResponse:
        self.relayed.append(request.headers.get(RELAYED))
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        if request.query["session"] == "refused":
            await socket.close(code=4001, message=b"session")
            return socket
        await socket.send_str(json.dumps({"type": "hello", "session": request.query["session"]}))
        async for message in socket:
            self.heard.append(message.data)
            await socket.send_str(message.data.upper())
        self.closed.set()
        return socket

    async def token(self, request: web.Request) -> web.Response:
        self.relayed.append(request.headers.get(RELAYED))
        return web.json_response({"error": "no_table", "echo": await request.json()}, status=404)


def front_app(relay: Relay, owner_url: str) -> web.Application:
    async def ws(request: web.Request) -> web.WebSocketResponse:
        page = web.WebSocketResponse()
        await page.prepare(request)
        await relay.websocket(page, request.query["session"], owner_url)
        return page

    app = web.Application()
    app.router.add_get("/activity/ws", ws)
    return app


async def test_who_answers_a_page(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "peers.sqlite3", synchronous="FULL")
    try:
        await storage.peers.advertise(2, [1], "http://old:1")
        await storage.peers.advertise(2, [1], "http://bot-1:8080")  # the shard's new holder
        relay = Relay(Shards(2, (0,)), lambda: storage.peers)
        relay.address = "http://bot-0:8080"
        page = make_mocked_request("GET", "/activity/ws")
        relayed = make_mocked_request("GET", "/activity/ws", headers={RELAYED: "1"})
        assert relay.fleet
        assert await relay.owner(SHARD_0, page) == LOCAL
        assert await relay.owner(None, page) == LOCAL  # no server: shard 0's
        assert await relay.owner(SHARD_1, page) == "http://bot-1:8080"
        assert await relay.owner(SHARD_1, relayed) is None  # never relayed twice: try again
        wider = Relay(Shards(4, (0,)), lambda: storage.peers)
        assert await wider.owner(SHARD_3, page) is None  # nobody wrote shard 3 of 4
        alone = Relay(Shards(), lambda: storage.peers)  # one process: every table is its own
        assert not alone.fleet and await alone.owner(SHARD_1, page) == LOCAL
        await relay.advertise()
        assert await storage.peers.url_of(2, 0) == "http://bot-0:8080"
        assert await storage.peers.url_of(2, 1) == "http://bot-1:8080"
    finally:
        await storage.close()


async def test_the_websocket_and_the_sign_in_are_relayed_both_ways() -> None:
    owner = Owner()
    owner_runner, owner_url = await serve(owner.app)
    relay = Relay(Shards(2, (0,)), lambda: None)
    front_runner, front_url = await serve(front_app(relay, owner_url))
    socket = front_url.replace("http", "ws", 1) + "/activity/ws"
    try:
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(socket, params={"session": "s1"}) as ws:
                assert json.loads(await ws.receive_str(timeout=5)) == {"type": "hello", "session": "s1"}
                await ws.send_str('{"type":"ping"}')
                assert await ws.receive_str(timeout=5) == '{"TYPE":"PING"}'
            await asyncio.wait_for(owner.closed.wait(), 5)  # the page's close reached the owner
            assert owner.heard == ['{"type":"ping"}'] and owner.relayed == ["1"]

            async with http.ws_connect(socket, params={"session": "refused"}) as ws:
                assert (await ws.receive(timeout=5)).type == aiohttp.WSMsgType.CLOSE
                assert ws.close_code == 4001  # the owner's word: the page signs in again

            answer = await relay.token(owner_url, {"code": "c", "instance_id": "i"})
            assert answer.status == 404 and answer.text is not None
            assert json.loads(answer.text) == {"error": "no_table", "echo": {"code": "c", "instance_id": "i"}}

            # This process stops: its relayed pages hear sleep("restart"), then 1012.
            async with http.ws_connect(socket, params={"session": "s2"}) as ws:
                await ws.receive_str(timeout=5)
                stopping = asyncio.create_task(relay.close_all())  # it waits for the pages' answers
                assert json.loads(await ws.receive_str(timeout=5)) == {"type": "sleep", "reason": "restart"}
                assert (await ws.receive(timeout=5)).type == aiohttp.WSMsgType.CLOSE and ws.close_code == 1012
                await asyncio.wait_for(stopping, 5)

            # The owner goes away: its pages get 1012; then nobody listens there: 1013, and 503.
            async with http.ws_connect(socket, params={"session": "s3"}) as ws:
                await ws.receive_str(timeout=5)
                await owner_runner.cleanup()
                assert (await ws.receive(timeout=5)).type == aiohttp.WSMsgType.CLOSE and ws.close_code == 1012
            async with http.ws_connect(socket, params={"session": "s4"}) as ws:
                assert (await ws.receive(timeout=5)).type == aiohttp.WSMsgType.CLOSE
                assert ws.close_code == TRY_AGAIN
            answer = await relay.token(owner_url, {"code": "c", "instance_id": "i"})
            assert answer.status == 503 and answer.text is not None
            assert json.loads(answer.text) == {"error": "unavailable"}
    finally:
        await relay.close_all()
        await front_runner.cleanup()
        await owner_runner.cleanup()
