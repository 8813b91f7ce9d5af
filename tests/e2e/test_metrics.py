"""Health and metrics (bot/metrics.py): /healthz says whether the process can do its job, /metrics
counts interactions, commits, timers and active games, in Prometheus' format; a port that cannot be
listened on stops ``python -m bot run`` with one line."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp

from bot.client import create_bot

from .conftest import FAST, BotDatabase, button, open_panel, start_table

REPO = Path(__file__).resolve().parents[2]


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample of the exposition text (0.0 when it is absent)."""
    wanted = ",".join(f'{k}="{v}"' for k, v in labels.items())
    pattern = re.escape(name) + (r"\{" + re.escape(wanted) + r"\}" if wanted else "") + r" (\S+)$"
    for line in text.splitlines():
        match = re.match(pattern, line)
        if match:
            return float(match.group(1))
    return 0.0


async def get(port: int, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}{path}") as response:
        return response.status, await response.text()


async def test_healthz_and_metrics_follow_the_bot(
    fake_discord: Any, connect_bot: Any, database: BotDatabase
) -> None:
    fake = fake_discord
    bot = create_bot(database_path=database.path, tuning=FAST, metrics_port=0)
    await connect_bot(bot, sync_commands=True)
    assert bot.metrics_server is not None
    port = bot.metrics_server.port

    status, body = await get(port, "/healthz")
    assert status == 200, body
    assert json.loads(body) == {
        "healthy": True,
        "gateway": "ok",
        "database": "ok",
        "shards": "ok (not a fleet)",
        "tables": "ok",
    }

    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, _ = await start_table(fake, bot, alice, [bob], computers=1)
    panel = await open_panel(fake, alice, table_message)
    await (await fake.click(alice, panel, button(panel, "rv"))).answer()

    status, text = await get(port, "/metrics")
    assert status == 200
    assert sample(text, "skybo_interactions_total", kind="command", outcome="handled") >= 1
    assert (
        sample(text, "skybo_interactions_total", kind="component", outcome="handled") >= 3
    )  # join, start, open
    assert sample(text, "skybo_apply_commit_seconds_count", kind="skyjo") >= 1
    assert 0 < sample(text, "skybo_apply_commit_seconds_sum", kind="skyjo") < 5
    assert sample(text, "skybo_active_games", kind="skyjo") == 1
    assert sample(text, "skybo_shards_owned") == 1  # the one shard Discord recommends for a small bot
    assert "skybo_gateway_latency_seconds" in text
    # Nothing about players or games: no names, no user ids, no game ids.
    assert "alice" not in text.lower() and str(alice.id) not in text and "game_id" not in text

    # The database gone: unhealthy, with the reason, and counted.
    assert bot.storage is not None
    await bot.storage.close()
    status, body = await get(port, "/healthz")
    assert status == 503 and json.loads(body)["database"].startswith("unreachable"), body
    _, text = await get(port, "/metrics")
    assert sample(text, "skybo_database_errors_total", where="health") == 1


def test_a_metrics_port_in_use_stops_the_start_with_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp_path),
            "PYTHONPATH": str(REPO),
            "DISCORD_TOKEN": "MTIz.fake-token.not-a-secret",
            "METRICS_PORT": str(port),
        }
        done = subprocess.run(
            [sys.executable, "-m", "bot", "run"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2, done.stderr
    log_line = re.compile(r"^\d{4}-\d\d-\d\dT")  # the storage's INFO lines (it opens first)
    lines = [line for line in done.stderr.strip().splitlines() if not log_line.match(line)]
    assert len(lines) == 1 and lines[0].startswith(f"METRICS_PORT={port}: cannot listen on 127.0.0.1: "), (
        lines
    )
    assert lines[0].endswith("Address already in use") and "Traceback" not in done.stderr
