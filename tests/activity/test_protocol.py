"""docs/activity.md's protocol, spoken by a plain websocket client (no browser) to the stand-in backend: the
contract the real backend keeps too (point ``backend`` at it and these tests are its own).

The sign-in refuses a code Discord refuses (bad or used), a user the activity instance does not list, a
channel without a table, and an unknown session (closed with 4001); on the socket, ``hello`` then the
seat's ``table``, a move is applied once per key (sent again, it is answered with the table and the
same key, and not applied twice), a stale, forged or illegal move is refused with the bot's words and
changes nothing, ``ping`` gets ``pong``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from bot.i18n import translate as t
from fakecord import FakeDiscord
from tests.activity.page_server import PageServer

KEY = "m0123456789abcdef01234567"


@pytest.fixture
async def backend() -> AsyncIterator[tuple[FakeDiscord, PageServer, Any]]:
    fake = await FakeDiscord().start()
    fake.enable_activities()
    voice = fake.add_voice_channel("cards")
    server = await PageServer(fake).start()
    try:
        yield fake, server, voice
    finally:
        await server.stop()
        await fake.stop()
    fake.assert_clean()


async def _sign_in(
    http: aiohttp.ClientSession, fake: FakeDiscord, server: PageServer, user: Any, channel: Any
) -> Any:
    """What the page does: a code for ``user`` (Discord's client gives it to the SDK), posted with the
    instance's id. Returns the answer."""
    instance = fake.launch_activity(user, channel)
    code = fake.authorize(user, scopes=("identify", "guilds"))
    body = {"code": code, "instance_id": instance.instance_id}
    return await http.post(f"http://127.0.0.1:{server.port}/activity/api/token", json=body), code, instance


async def _frame(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    return dict(json.loads(await ws.receive_str(timeout=10)))


async def test_the_sign_in_refuses_what_discord_refuses(backend: Any) -> None:
    fake, server, voice = backend
    alice, bob = fake.user("alice"), fake.user("bob")
    await server.open_table(voice, "skyjo", [alice, None])
    base = f"http://127.0.0.1:{server.port}/activity/api"
    async with aiohttp.ClientSession() as http:
        assert (await (await http.get(f"{base}/config")).json()) == {"client_id": str(fake.application_id)}
        answer, code, instance = await _sign_in(http, fake, server, alice, voice)
        assert answer.status == 200 and set(await answer.json()) == {"access_token", "session"}
        again = await http.post(f"{base}/token", json={"code": code, "instance_id": instance.instance_id})
        assert (again.status, await again.json()) == (401, {"error": "code"})  # a code is used once
        # bob's own code, but the instance does not list bob: he never joined the activity
        stranger = {"code": fake.authorize(bob), "instance_id": instance.instance_id}
        answer = await http.post(f"{base}/token", json=stranger)
        assert (answer.status, await answer.json()) == (403, {"error": "instance"})
        answer, _, _ = await _sign_in(http, fake, server, alice, fake.add_voice_channel("empty"))
        assert (answer.status, await answer.json()) == (404, {"error": "no_table"})
        assert (await http.post(f"{base}/token", data=b"not json")).status == 400
        async with http.ws_connect(f"ws://127.0.0.1:{server.port}/activity/ws?session=forged.0") as ws:
            await ws.receive()
            assert ws.close_code == 4001
    refused = fake.take_rejections()  # the used code's refusal, as Discord answers it
    assert [r.message for r in refused] == ["invalid_grant"]


async def test_moves_once_per_key_and_refusals(backend: Any) -> None:
    fake, server, voice = backend
    alice, carol = fake.user("alice"), fake.user("carol")  # carol's Discord is in French
    # No initial reveal: the turns begin at once, with the first seat (every sum shown is 0).
    table = await server.open_table(voice, "skyjo", [carol, alice], seed=5, options={"initial_reveals": 0})
    assert table.state.turn == 0
    async with aiohttp.ClientSession() as http:
        sessions = {}
        for user in (carol, alice):
            answer, _, _ = await _sign_in(http, fake, server, user, voice)
            sessions[user.id] = (await answer.json())["session"]
        socket = f"ws://127.0.0.1:{server.port}/activity/ws?session="
        async with http.ws_connect(socket + sessions[alice.id]) as ws:  # alice waits for her turn
            hello, frame = await _frame(ws), await _frame(ws)
            assert (hello["seat"], hello["language"], frame["moves"]) == (1, "en", [])
            await ws.send_str(json.dumps({"type": "move", "act": "dr", "arg": 0, "version": 0, "key": KEY}))
            assert await _frame(ws) == {
                "type": "refused",
                "reason": t("error.not_your_turn", "en"),
                "key": KEY,
            }
        async with http.ws_connect(socket + sessions[carol.id]) as ws:
            hello, frame = await _frame(ws), await _frame(ws)
            assert (hello["type"], hello["seat"], hello["language"], hello["kind"]) == (
                "hello",
                0,
                "fr",
                "skyjo",
            )
            assert frame["type"] == "table" and frame["view"] == table.state.view(0) and frame["moves"]
            await ws.send_str('{"type":"ping"}')
            assert await _frame(ws) == {"type": "pong"}
            await ws.send_str('{"type":"move","act":"dr","arg":0,"version":0,"key":"bad key!"}')
            assert (await _frame(ws))["reason"] == t("error.malformed_action", "fr")
            move = {"type": "move", "act": "dr", "arg": 0, "version": 0, "key": KEY}
            await ws.send_str(json.dumps(move))
            answered = await _frame(ws)
            assert (answered["type"], answered["version"], answered["key"]) == ("table", 1, KEY)
            await ws.send_str(json.dumps(move))  # the same move again (a retry): answered, not applied
            again = await _frame(ws)
            assert (again["version"], again["key"]) == (1, KEY) and table.version == 1
            stale = {**move, "act": "rp", "arg": 0, "key": KEY[::-1], "version": 7}
            await ws.send_str(json.dumps(stale))
            assert (await _frame(ws))["reason"] == t("activity.refused.moved_on", "fr")
            assert (await _frame(ws))["version"] == 1 and table.version == 1
