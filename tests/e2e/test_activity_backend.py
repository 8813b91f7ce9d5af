"""The bot's own Activity backend (issue 50), spoken to as docs/activity.md says by a plain websocket client:
the real bot, its service and the fake Discord (its real OAuth2 code exchange and activity instances).

The sign-in refuses what Discord refuses (a reused code), a user the instance does not list, a channel
without a table, a forged session or one changed to another channel; on the socket, a move is the panel's
click (once per key, stale, forged and illegal moves refused, nothing changed), a move made in the page
shows on the channel's table, a move made with a panel button shows in the page, a spectator watches.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.config import load_settings
from bot.i18n import translate as t
from bot.run import _sync
from bot.ui import ids
from tests.e2e.activity_helpers import activity_bot, base, frame, frame_until, move, session_of, sign_in
from tests.e2e.conftest import button, open_panel, start_table

KEY = "m0123456789abcdef01234567"
pytestmark = pytest.mark.timeout(120)


async def test_the_sign_in_refuses_what_discord_refuses(
    fake_discord: Any, connect_bot: Callable[..., Awaitable[Any]], db_file: Path
) -> None:
    fake = fake_discord
    bot = await activity_bot(fake, connect_bot, db_file)
    fake.enable_activities()
    alice, bob = fake.user("alice"), fake.user("bob")
    general, games = fake.channel("general"), fake.channel("games")
    await start_table(fake, bot, alice, [], computers=1)
    async with aiohttp.ClientSession() as http:
        config = await (await http.get(f"{base(bot)}/api/config")).json()
        assert config == {"client_id": str(fake.application_id)}
        answer, code, instance = await sign_in(http, fake, bot, alice, general)
        assert answer.status == 200 and set(await answer.json()) == {"access_token", "session"}
        session = (await answer.json())["session"]
        again = await http.post(
            f"{base(bot)}/api/token", json={"code": code, "instance_id": instance.instance_id}
        )
        assert (again.status, await again.json()) == (401, {"error": "code"})  # a code is used once
        # bob's own code, but the instance does not list bob: he never joined the activity
        stranger = {"code": fake.authorize(bob), "instance_id": instance.instance_id}
        answer = await http.post(f"{base(bot)}/api/token", json=stranger)
        assert (answer.status, await answer.json()) == (403, {"error": "instance"})
        unknown = {"code": fake.authorize(alice), "instance_id": "i-1-gc-2-3"}
        answer = await http.post(f"{base(bot)}/api/token", json=unknown)
        assert (answer.status, await answer.json()) == (403, {"error": "instance"})
        answer, _, _ = await sign_in(http, fake, bot, alice, games)  # no table there: the offer to open one
        assert (answer.status, (await answer.json())["error"]) == (404, "no_table")
        assert (await http.post(f"{base(bot)}/api/token", data=b"not json")).status == 400
        # A session changed to another channel (its signature kept), or forged: closed with 4001.
        body, _, mac = session.partition(".")
        claims = json.loads(base64.urlsafe_b64decode(body))
        moved = base64.urlsafe_b64encode(json.dumps({**claims, "c": str(games.id)}).encode()).decode()
        socket = base(bot).replace("http", "ws") + "/ws?session="
        for forged in (f"{moved}.{mac}", "forged.0", ""):
            async with http.ws_connect(socket + forged) as ws:
                await ws.receive()
                assert ws.close_code == 4001
        async with http.ws_connect(socket + session) as ws:
            hello = await frame(ws)
            assert (hello["type"], hello["seat"], hello["kind"], hello["language"]) == (
                "hello",
                0,
                "skyjo",
                "en",
            )
    assert [r.message for r in fake.take_rejections()] == ["invalid_grant", "404: Not Found"]


async def test_moves_from_the_page_are_clicks(
    fake_discord: Any, connect_bot: Callable[..., Awaitable[Any]], db_file: Path
) -> None:
    fake = fake_discord
    bot = await activity_bot(fake, connect_bot, db_file)
    fake.enable_activities()
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")  # carol reads French
    general = fake.channel("general")
    message, game_id = await start_table(fake, bot, alice, [bob], computers=1)
    table = bot.service.tables[game_id]
    async with aiohttp.ClientSession() as http:
        socket = base(bot).replace("http", "ws") + "/ws?session="
        sessions = {u.id: await session_of(http, fake, bot, u, general) for u in (alice, bob, carol)}
        async with (
            http.ws_connect(socket + sessions[alice.id]) as ws,
            http.ws_connect(socket + sessions[carol.id]) as watcher,
        ):
            hello, first = await frame(ws), await frame(ws)
            assert (hello["seat"], first["type"], first["version"]) == (0, "table", table.version)
            assert first["view"] == table.state.view(0) and first["moves"]
            seen = await frame(watcher)
            assert (seen["seat"], seen["language"]) == (None, "fr")
            spectator = await frame(watcher)
            assert spectator["view"] == table.state.view(None) and spectator["moves"] == []
            await watcher.send_str(move("rv", 0, table.version, KEY))
            assert await frame(watcher) == {
                "type": "refused",
                "reason": t("error.not_a_player", "fr"),
                "key": KEY,
            }

            # A move made in the page: answered with its key, shown on the channel's table.
            chosen = first["moves"][0]
            version = table.version
            await bot.presenter.flush()
            shown_before = message.revision
            await ws.send_str(move(chosen["act"], chosen["arg"], version, KEY))
            answered = await frame_until(ws, lambda f: f.get("key") == KEY)
            assert answered["type"] == "table" and answered["version"] > version
            await fake.wait_until(lambda: message.revision > shown_before, what="the table message edited")
            # The same move again (a retry): answered with the table, not made twice.
            log_length = table.version  # the action log's length
            await ws.send_str(move(chosen["act"], chosen["arg"], version, KEY))
            again = await frame_until(ws, lambda f: f.get("key") == KEY)
            assert again["type"] == "table"
            assert table.version == log_length
            # Stale, forged and malformed moves: refused, nothing changed.
            before = table.version
            await ws.send_str(move(chosen["act"], chosen["arg"], version, "k" * 20))
            stale = await frame_until(ws, lambda f: f["type"] == "refused")
            assert stale["reason"] == t("activity.refused.already_done", "en")
            await ws.send_str(move("zz", 1, table.version, "f" * 20))
            forged = await frame_until(ws, lambda f: f["type"] == "refused")
            assert forged == {"type": "refused", "reason": t("table.error.forged", "en"), "key": "f" * 20}
            await ws.send_str('{"type":"move"}')
            assert (await frame_until(ws, lambda f: f["type"] == "refused"))["reason"] == t(
                "error.malformed_action", "en"
            )
            await ws.send_str('{"type":"ping"}')
            assert (await frame_until(ws, lambda f: f["type"] != "table")) == {"type": "pong"}
            assert table.version == before

            # A move made with bob's panel button shows in alice's page and the spectator's.
            panel = await open_panel(fake, bob, message)
            bob_seat = table.seat_of(bob.id)
            assert bob_seat is not None
            reveal = next(c for c in panel.custom_ids if (p := ids.decode(c)) is not None and p.act == "rv")
            before = table.version
            await (await fake.click(bob, panel, reveal)).response()
            shown = await frame_until(ws, lambda f: f["type"] == "table" and f["version"] > before)
            downs = [f["view"]["grids"][bob_seat].count("down") for f in (first, shown)]
            assert downs[1] < downs[0]
            await frame_until(watcher, lambda f: f["type"] == "table" and f["version"] > before)
    assert button(message, "op")


async def test_launching_the_activity(
    fake_discord: Any,
    connect_bot: Callable[..., Awaitable[Any]],
    db_file: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``sync`` carries the Entry Point command Discord keeps once Activities are enabled (a bulk
    overwrite without it is refused, 50240), and the table's "Open the table" button launches the
    Activity with the LAUNCH_ACTIVITY callback; both judged by the fake against Discord's description."""
    fake = fake_discord
    settings = load_settings({"DISCORD_TOKEN": fake.token}, dotenv=False)
    assert await _sync(settings, None) == 0  # Activities off: no Entry Point, none sent
    assert fake.entry_point_command() is None
    stored = fake.enable_activities()
    assert await _sync(settings, None) == 0
    kept = fake.entry_point_command()  # kept, as Discord keeps it (the same id, name and handler)
    assert kept is not None and [kept[k] for k in ("id", "name", "handler")] == [
        stored[k] for k in ("id", "name", "handler")
    ]
    synced = [line for line in capsys.readouterr().out.splitlines() if line.startswith("synced ")]
    assert f"/{stored['name']}" in synced[-1]  # the Entry Point among what the second sync sent
    bot = await activity_bot(fake, connect_bot, db_file, sync=False)  # synced above
    alice = fake.user("alice")
    message, _ = await start_table(fake, bot, alice, [], computers=1)
    opened = await fake.click(alice, message, button(message, "oa"))
    await opened.response()
    instance = fake.activity_launched_by(opened)
    assert instance is not None and instance.channel is fake.channel("general")
    assert alice in instance.users
