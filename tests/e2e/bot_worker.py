"""The real bot in a process of its own, against a fake Discord served by the test process.

usage: python tests/e2e/bot_worker.py API_BASE GATEWAY_URL DATABASE [--sync] [--seed N] [--grace S]
       [--no-limits] [--shard-count N --shard-ids IDS] [--lease-retake S] [--metrics-port PORT]
       [--busy-timeout-ms MS] [--ai-delay S] [--activity]

``API_BASE`` (``http://127.0.0.1:<port>/api/v10``) and ``GATEWAY_URL`` (``ws://127.0.0.1:<port>/``)
point discord.py at the fake the way ``FakeDiscord.patched`` does in-process. The bot is the
project's own (``bot.client.create_bot``) on ``DATABASE`` (a SQLite file or a ``postgresql://`` URL)
with fast timings; with ``--shard-count`` / ``--shard-ids`` it runs those shards and holds them as
``python -m bot run`` does (``SHARDS TAKEN: ...`` on stdout and exit status 3 when another process
holds one), on a short lease clock (``LEASE``; ``--lease-retake S``: LEASE_RETAKE_SECONDS). ``--sync``
syncs the command tree once ready (the fake keeps the commands across processes, as Discord does); ``--seed``
deals every game this process starts from seed N (the test's deals are then the same every run).
The worker prints ``READY`` (flushed) once discord.py is ready; it runs until it is killed (the point of
tests/e2e/test_kills.py), SIGTERM / SIGINT stops it gracefully as they stop ``python -m bot run``
(``bot.lifecycle.run_until_stopped``: tests/e2e/test_graceful_stop.py), or its stdin closes: a clean
stop when the test asks, and also when the test's process dies, so no bot is ever left behind. Logs
go to stderr at WARNING, so the test can demand that no ERROR and no traceback appeared. ``--grace S``:
the graceful stop's bound (default ``bot.lifecycle.STOP_GRACE``); ``--no-limits``: no table caps or
cool-down (one host opens several tables at once). ``--metrics-port PORT``: serve ``/healthz`` and
``/metrics`` on 127.0.0.1:PORT (``METRICS_PORT``); ``--busy-timeout-ms MS``: SQLite's busy timeout
(default the storage's, 5 s), so a test's lock outlasts it in a moment; ``--ai-delay S``: the
computer players' pause before each move (default 0: at once). The last three are for
tests/e2e/test_db_faults.py. ``--activity``: serve the Activity on a free port of 127.0.0.1 (the fake's
client secret comes in ``DISCORD_CLIENT_SECRET``: :func:`spawn` sets it), as ``ACTIVITY_PORT`` does; in a
fleet the process writes its address in ``activity_peers`` (tests/e2e/test_activity_fleet.py).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

import discord
import yarl

from bot.activity.sessions import ActivitySettings
from bot.client import BotTuning, create_bot
from bot.config import Limits, shards_from
from bot.lifecycle import STOP_GRACE, run_until_stopped
from bot.storage import ShardsTaken, Storage
from bot.storage.sqlite.database import DEFAULT_BUSY_TIMEOUT_MS

REPO = Path(__file__).resolve().parents[2]
# The fake's token (FakeDiscord's default): a test token, not a secret.
TOKEN = "fake-bot-token"
# Computer players move at once; between rounds the table waits for the humans' Next round (600 s:
# the round timer never deals in a kill test's minute, so every NextRound in the log is a click);
# no pause between edits; no pictures (rendering them would only slow a loaded machine down).
TUNING = BotTuning(ai_delay=0.0, round_delay=600.0, edit_interval=0.0, images=False)
# The shard leases' clock (bot.storage.postgres.leases.LeaseTiming), the same in every worker as the
# code's is in every process of a fleet: a round trip every 0.2 s, trusted 2 s (a process serves 2 s
# after it took its shards), so a round trip may take 1.8 s before the lease is given up on (production:
# 2 s). It was 0.6 s (0.5 s for a round trip): on a loaded machine a worker's lease blinked off and
# dropped a click of a game it went on serving (two runs of test_fleet's shared shards waited for an
# answer that never came). The retake time is --lease-retake.
LEASE = {"check_s": 0.2, "valid_s": 2.0, "retry_s": 0.1}


async def main(options: argparse.Namespace) -> int:
    discord.http.Route.BASE = options.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(options.gateway_url)
    url = options.database if options.database.startswith("postgresql://") else None
    shards = shards_from(options.shard_count, options.shard_ids)
    storage = await Storage.open(
        options.database if url is None else None,
        synchronous="FULL",
        busy_timeout_ms=options.busy_timeout_ms,
        url=url,
    )
    lease = None
    try:
        if shards.count is not None and shards.shard_ids is not None:
            # As python -m bot run does (bot.run): hold the shards before logging in.
            try:
                from bot.storage.postgres.leases import LeaseTiming  # a SQLite worker never loads psycopg

                timing = LeaseTiming(**LEASE, retake_s=options.lease_retake)
                lease = await storage.hold_shards(shards.count, shards.shard_ids, timing=timing)
            except ShardsTaken as exc:
                print(f"SHARDS TAKEN: {exc}", flush=True)
                return 3
        bot = create_bot(
            storage=storage,
            tuning=dataclasses.replace(TUNING, ai_delay=options.ai_delay),
            limits=Limits.none() if options.no_limits else None,
            metrics_port=options.metrics_port,
            shards=shards,
            activity=ActivitySettings.from_env({**os.environ, "ACTIVITY_PORT": "0"})
            if options.activity
            else None,
        )
        bot.shard_lease = lease
        return await serve(bot, options)
    finally:
        if lease is not None:
            await lease.release()
        await storage.close()


async def serve(bot: Any, options: argparse.Namespace) -> int:
    # discord.py waits 2 s after the last GUILD_CREATE before "ready"; the fake sends them at once.
    bot._connection.guild_ready_timeout = 0.1
    loop = asyncio.get_running_loop()
    stdin_closed: asyncio.Future[None] = loop.create_future()

    def closed() -> None:
        if not stdin_closed.done():
            stdin_closed.set_result(None)

    def watch_stdin() -> None:  # a daemon thread: it never holds the process's exit back
        sys.stdin.read()
        loop.call_soon_threadsafe(closed)

    threading.Thread(target=watch_stdin, name="stdin-watch", daemon=True).start()
    async with bot:
        runner = asyncio.create_task(run_until_stopped(bot, TOKEN, grace=options.grace))
        await bot.wait_until_ready()
        if options.seed is not None:
            bot.service.seed_source = lambda: options.seed
        if options.sync:
            await bot.tree.sync()
        print("READY", flush=True)
        waiting: set[asyncio.Future[Any]] = {runner, stdin_closed}
        done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if runner in done:
            if runner.result():
                print("STOPPED", flush=True)  # by a signal, gracefully
            return 0  # else the bot stopped by itself: runner.result() raised why (a traceback on stderr)
        await bot.close()
        await runner
    return 0


async def spawn(
    fake: Any, database: str | Path, *flags: str, stdout: int = asyncio.subprocess.PIPE
) -> asyncio.subprocess.Process:
    """This worker in a process of its own against ``fake`` (served by the calling test) on ``database``
    with ``flags``; stdin is a pipe (closing it stops the worker), stderr a pipe (its log)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("DATABASE_PATH", None)
    if "--activity" in flags:
        env["DISCORD_CLIENT_SECRET"] = fake.client_secret  # the fake's: a test secret
    return await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        fake.api_base,
        fake.gateway_url,
        str(database),
        *flags,
        cwd=REPO,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=stdout,
        stderr=asyncio.subprocess.PIPE,
    )


def parser() -> argparse.ArgumentParser:
    out = argparse.ArgumentParser(prog="bot_worker.py")
    out.add_argument("api_base")
    out.add_argument("gateway_url")
    out.add_argument("database", help="a SQLite file, or a postgresql:// URL")
    out.add_argument("--sync", action="store_true")
    out.add_argument("--seed", type=int, default=None)
    out.add_argument("--grace", type=float, default=STOP_GRACE)
    out.add_argument("--no-limits", action="store_true")
    out.add_argument("--shard-count", default=None)
    out.add_argument("--shard-ids", default=None)
    out.add_argument("--lease-retake", type=float, default=30.0, help="LEASE_RETAKE_SECONDS")
    out.add_argument("--metrics-port", type=int, default=None)
    out.add_argument("--busy-timeout-ms", type=int, default=DEFAULT_BUSY_TIMEOUT_MS)
    out.add_argument("--ai-delay", type=float, default=TUNING.ai_delay)
    out.add_argument("--activity", action="store_true")
    return out


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s %(message)s")
    sys.exit(asyncio.run(main(parser().parse_args())))
