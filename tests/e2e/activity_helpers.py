"""What the tests of the bot's Activity backend share (issue 50): the real bot serving the Activity on a
port of its own, in front of the fake Discord, and the page's side spoken by a plain websocket client."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp

from bot.activity.sessions import ActivitySettings
from bot.client import SkyboBot, create_bot
from fakecord import FakeDiscord
from tests.e2e.conftest import FAST


async def activity_bot(
    fake: FakeDiscord,
    connect_bot: Callable[..., Awaitable[Any]],
    db_file: Path,
    *,
    sync: bool = True,
    port: int = 0,
    **tuning: Any,
) -> SkyboBot:
    """The real bot on ``db_file``, connected, commands synced (discord.py's own sync: before
    Activities are enabled), serving the Activity on ``port`` (0: a free one)."""
    started: SkyboBot = await connect_bot(
        activity_bot_on(fake, db_file, port=port, **tuning), sync_commands=sync
    )
    return started


def activity_bot_on(fake: FakeDiscord, db_file: Path, *, port: int = 0, **tuning: Any) -> SkyboBot:
    """The bot (not connected) serving the Activity on ``port`` (0: a free one)."""
    settings = ActivitySettings(port=port, client_secret=fake.client_secret)
    tuned = FAST.__class__(**{**FAST.__dict__, **tuning})
    return create_bot(database_path=db_file, tuning=tuned, activity=settings)


def base(bot: SkyboBot) -> str:
    assert bot.activity_server is not None
    return f"http://127.0.0.1:{bot.activity_server.port}/activity"


async def sign_in(
    http: aiohttp.ClientSession, fake: FakeDiscord, bot: SkyboBot, user: Any, channel: Any
) -> tuple[aiohttp.ClientResponse, str, Any]:
    """What the page does: a code for ``user`` (Discord's client gives it to the SDK), posted with the
    instance's id. Returns the answer, the code and the instance."""
    instance = fake.launch_activity(user, channel)
    code = fake.authorize(user, scopes=("identify", "guilds"))
    body = {"code": code, "instance_id": instance.instance_id}
    return await http.post(f"{base(bot)}/api/token", json=body), code, instance


async def session_of(
    http: aiohttp.ClientSession, fake: FakeDiscord, bot: SkyboBot, user: Any, channel: Any
) -> str:
    answer, _, _ = await sign_in(http, fake, bot, user, channel)
    assert answer.status == 200, await answer.text()
    return str((await answer.json())["session"])


async def frame(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    return dict(json.loads(await ws.receive_str(timeout=20)))


async def frame_until(
    ws: aiohttp.ClientWebSocketResponse, test: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """The first frame that passes ``test`` (those before it skipped: the other seats' moves)."""
    while True:
        got = await frame(ws)
        if test(got):
            return got


def move(act: str, arg: int, version: int, key: str) -> str:
    return json.dumps({"type": "move", "act": act, "arg": arg, "version": version, "key": key})
