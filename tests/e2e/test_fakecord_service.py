"""The fake Discord as a service of its own and a bot pointed at it by ``FAKE_DISCORD_URL``, each in a
process of its own, as the compose stack of ``make test-image`` runs them in containers
(tests/image/test_compose.py).

``python -m fakecord serve --shards 2`` (a guild on each shard) and the real ``python -m bot sync`` and
``python -m bot run`` with ``FAKE_DISCORD_URL`` set and ``SHARD_COUNT`` unset: discord.py takes the
fake's recommended 2 shards and its gateway's URL from ``GET /gateway/bot``, so every address the bot
uses comes from the setting or from the fake. The test acts through the fake's control API only: the
commands are synced into the fake, each shard's guild gets a lobby, a second player's click is answered,
``/healthz`` says healthy, the fake recorded no refusal, SIGTERM stops the bot cleanly, and its log says
which Discord it talked to.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from tests.fakecord.control import READY, FakeControl, buttons

pytestmark = pytest.mark.timeout(180)

TOKEN = "fake-bot-token"  # the fake's default token: not a secret


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
async def fakecord() -> AsyncIterator[tuple[str, FakeControl]]:
    """``python -m fakecord serve`` on free ports: (the address bots use, its control API's client)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "fakecord", "serve", "--port", "0", "--control-port", "0", "--shards", "2",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    assert proc.stdout is not None
    try:
        line = (await asyncio.wait_for(proc.stdout.readline(), 60)).decode()
        match = READY.search(line)
        assert match, line
        async with FakeControl(f"http://127.0.0.1:{match[3]}") as control:
            yield match[1], control
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 30) == 0, await proc.stdout.read()


def bot_env(fake_url: str, tmp_path: Path, metrics_port: int) -> dict[str, str]:
    """The environment of ``python -m bot``: the fake's address and token, a SQLite file of the test;
    a developer's .env cannot add to it (every setting it could hold is set here, empty or not)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "FAKE_", "SHARD_"))}
    env.update(
        DISCORD_TOKEN=TOKEN, FAKE_DISCORD_URL=fake_url, DATABASE_URL="",
        DATABASE_PATH=str(tmp_path / "skybo.sqlite3"), SHARD_COUNT="", SHARD_IDS="",
        METRICS_PORT=str(metrics_port), METRICS_HOST="127.0.0.1", LOG_LEVEL="INFO",
    )  # fmt: skip
    return env


async def test_a_bot_pointed_at_a_fakecord_service_syncs_and_plays_on_both_shards(
    fakecord: tuple[str, FakeControl], tmp_path: Path
) -> None:
    fake_url, fake = fakecord
    metrics_port = free_port()
    env = bot_env(fake_url, tmp_path, metrics_port)

    sync = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "sync", env=env, cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(sync.communicate(), 120)
    assert sync.returncode == 0 and b"synced" in out, out + err
    assert f"talking to a fake Discord at {fake_url}".encode() in err, err
    assert "skyjo" in (await fake.world())["commands"]

    bot = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", env=env, cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        await fake.sessions_live({0, 1})
        for shard, host in ((0, "alice"), (1, "carol")):  # one table each: a host has a cool-down
            channel = await fake.channel_on_shard(shard)
            answer = await fake.answer(await fake.command(host, channel, "skyjo", "new", computers=1), 10)
            assert answer["answered"] and answer["message"], answer
            _, shown = await fake.messages("bob", channel)
            lobby = next(m for m in shown if m["id"] == answer["message"])  # public: bob sees it
            join = next(c["custom_id"] for c in buttons(lobby) if c["custom_id"].endswith(":jn"))
            interaction, failed = await fake.click("bob", lobby, join)
            assert failed is None and (await fake.answer(interaction))["answered"], f"shard {shard}"
        async with (
            aiohttp.ClientSession() as http,
            http.get(f"http://127.0.0.1:{metrics_port}/healthz") as health,
        ):
            assert health.status == 200 and (await health.json())["healthy"] is True
        assert not any((await fake.problems()).values())
    finally:
        if bot.returncode is None:
            bot.send_signal(signal.SIGTERM)
        out, err = await asyncio.wait_for(bot.communicate(), 60)
    log = err.decode(errors="replace")
    assert bot.returncode == 0, log[-3000:]
    assert f"FAKE_DISCORD_URL is set: talking to a fake Discord at {fake_url}" in log, log[-3000:]
    assert not [line for line in log.splitlines() if " ERROR " in line or "Traceback" in line], log[-3000:]
