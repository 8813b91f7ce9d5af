"""A fleet's Activity (issue 50): one public address in front of any process, every page reaching the
process that serves its table (bot/activity/relay.py, docs/activity.md "A fleet").

Two real bot processes (shards 0 and 1 of 2, tests/e2e/bot_worker.py ``--activity``) on the test's
PostgreSQL, each writing where its Activity listens in ``activity_peers``. Alice signs in and connects
through the process that does NOT serve her table: she gets her table's frames, her move is played (by
the owner) and shows on the channel's table. The owner is killed and its shard taken over by a new
process: the page, reconnecting through the same front process as the page does (growing delays, "try
again" meanwhile), finds the new owner and goes on. Launched where no table is, through the same front:
the offer, the open and the look at the channel are the owner's too.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time

import aiohttp
import psycopg
import pytest

from bot.config import shard_of
from fakecord import FakeDiscord

from .activity_helpers import frame, frame_until, move
from .test_fleet import SHARDS, Process, open_table

pytestmark = pytest.mark.timeout(180)

DELAYS = (0.25, 0.5, 1.0, 2.0)  # the page's reconnection delays (bot/activity/static/connection.js)


def peer_url(dsn: str, shard: int) -> str | None:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT url FROM activity_peers WHERE shard_count = %s AND shard = %s", (SHARDS, shard)
        ).fetchone()
    return None if row is None else str(row[0])


def version_of(dsn: str, game_id: int) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT version FROM games WHERE id = %s", (game_id,)).fetchone()
    assert row is not None
    return int(row[0])


async def start(fake: FakeDiscord, dsn: str, shard: int, *, sync: bool = False) -> Process:
    """A process of the fleet serving the Activity, once it took its shard (a killed holder's lock may
    outlive it a moment: asked again until it is free)."""
    deadline = time.monotonic() + 30
    while True:
        process = Process(fake, dsn, shard, sync=sync)
        process.flags.append("--activity")
        line = await process.start()
        if line == "READY":
            return process
        assert line.startswith("SHARDS TAKEN:") and time.monotonic() < deadline, (line, process.err)
        await process.stop()
        await asyncio.sleep(0.2)


async def connect(http: aiohttp.ClientSession, front: str, session: str) -> aiohttp.ClientWebSocketResponse:
    """The page's reconnection: until ``hello``; meanwhile every close says "try again" (1013: the
    shard's owner not reachable yet) or "going away" (1012), never 4001 (the session still holds)."""
    closes = []
    for attempt in range(60):
        ws = await http.ws_connect(f"{front.replace('http', 'ws', 1)}/ws", params={"session": session})
        message = await ws.receive(timeout=20)
        if message.type == aiohttp.WSMsgType.TEXT:
            hello = json.loads(message.data)
            assert hello["type"] == "hello", hello
            return ws
        closes.append(ws.close_code)
        assert ws.close_code in (1012, 1013), closes
        await ws.close()
        await asyncio.sleep(DELAYS[min(attempt, len(DELAYS) - 1)])
    raise AssertionError(f"the page never reconnected: {closes}")


async def test_a_page_reaches_its_table_through_a_process_that_does_not_serve_it(
    fake_discord: FakeDiscord, pg_dsn: str
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    channel = fake.channel("general")
    owner_shard = shard_of(fake.guild.id, SHARDS)
    front_shard = 1 - owner_shard
    processes = {
        owner_shard: await start(fake, pg_dsn, owner_shard, sync=True),
        front_shard: await start(fake, pg_dsn, front_shard),
    }
    fake.enable_activities()  # after the commands' sync (discord.py's own knows no Entry Point)
    try:
        table_message, game_id = await open_table(fake, pg_dsn, channel, alice, bob)
        # Each process wrote where its Activity listens, once serving its shard.
        owner_url, front_url = peer_url(pg_dsn, owner_shard), peer_url(pg_dsn, front_shard)
        assert owner_url and front_url and owner_url != front_url
        front = f"{front_url}/activity"  # the one public address, here in front of the other shard's process
        async with aiohttp.ClientSession() as http:
            instance = fake.launch_activity(alice, channel)
            code = fake.authorize(alice, scopes=("identify", "guilds"))
            answer = await http.post(
                f"{front}/api/token", json={"code": code, "instance_id": instance.instance_id}
            )
            assert answer.status == 200, await answer.text()  # the owner's answer (before: 404 no_table)
            session = str((await answer.json())["session"])

            ws = await connect(http, front, session)
            first = await frame(ws)
            version = version_of(pg_dsn, game_id)
            assert (first["type"], first["version"], first["seat"]) == ("table", version, 0)
            assert first["moves"], first
            # Her move, through the front process: played by the owner, answered with its key, shown on
            # the channel's table.
            shown = table_message.revision
            chosen = first["moves"][0]
            await ws.send_str(move(chosen["act"], chosen["arg"], version, "k" * 24))
            answered = await frame_until(ws, lambda f: f.get("key") == "k" * 24)
            assert answered["type"] == "table" and answered["version"] > version
            assert version_of(pg_dsn, game_id) >= answered["version"]
            await fake.wait_until(lambda: table_message.revision > shown, 20, what="the table message edited")

            # The owner dies: the relayed socket closes with 1012 (the page reconnects by itself).
            processes[owner_shard].kill()
            assert await processes[owner_shard].stop() == -signal.SIGKILL
            while (message := await ws.receive(timeout=20)).type == aiohttp.WSMsgType.TEXT:
                pass  # frames sent before the kill
            assert ws.close_code == 1012, (message, ws.close_code)

            # A new process takes the shard over (while it starts, the front says "try again").
            reconnecting = asyncio.create_task(connect(http, front, session))
            processes[owner_shard] = await start(fake, pg_dsn, owner_shard)
            ws = await asyncio.wait_for(reconnecting, 60)
            assert peer_url(pg_dsn, owner_shard) not in (None, owner_url)  # the new owner's address
            again = await frame(ws)
            version = version_of(pg_dsn, game_id)
            assert (again["type"], again["version"]) == ("table", version) and again["moves"]
            await fake.wait_until(lambda: "live again" in table_message.text, 20, what="the table live again")
            shown = table_message.revision
            chosen = again["moves"][0]
            await ws.send_str(move(chosen["act"], chosen["arg"], version, "n" * 24))
            answered = await frame_until(ws, lambda f: f.get("key") == "n" * 24)
            assert answered["type"] == "table" and answered["version"] > version
            await fake.wait_until(lambda: table_message.revision > shown, 20, what="the table message edited")
            await ws.close()

            # Where no table is, through the front too: the offer, the open and the look at the channel
            # are the owner's (the front, which does not have the guild, would answer "not here").
            games = fake.channel("games")
            instance = fake.launch_activity(alice, games)
            code = fake.authorize(alice, scopes=("identify", "guilds"))
            answer = await http.post(
                f"{front}/api/token", json={"code": code, "instance_id": instance.instance_id}
            )
            offer = await answer.json()
            assert (answer.status, offer["error"], offer["can_open"]) == (404, "no_table", True), offer
            opened = await http.post(f"{front}/api/open", json={"session": offer["session"], "kind": "skyjo"})
            assert opened.status == 200, await opened.text()
            looked = await http.post(f"{front}/api/channel", json={"session": offer["session"]})
            state = await looked.json()
            assert state["table"] is False and state["lobby"], state
    finally:
        codes = {}
        for shard, process in processes.items():
            if process.proc is not None and process.proc.returncode is None:
                try:
                    codes[shard] = await process.stop()
                except TimeoutError:
                    process.kill()
                    raise
    assert codes == {owner_shard: 0, front_shard: 0}, codes
    for process in processes.values():
        process.check_log()
