"""The real bot in a process of its own, against a fake Discord served by the test process.

usage: python tests/e2e/bot_worker.py API_BASE GATEWAY_URL DATABASE [--sync] [--seed N] [--grace S]
       [--no-limits]

``API_BASE`` (``http://127.0.0.1:<port>/api/v10``) and ``GATEWAY_URL`` (``ws://127.0.0.1:<port>/``)
point discord.py at the fake the way ``FakeDiscord.patched`` does in-process. The bot is the
project's own (``bot.client.create_bot``) on ``DATABASE`` with fast timings. ``--sync`` syncs the
command tree once ready (the fake keeps the commands across processes, as Discord does); ``--seed``
deals every game this process starts from seed N (the test's deals are then the same every run).
The worker prints ``READY`` (flushed) once discord.py is ready; it runs until it is killed (the point of
tests/e2e/test_kills.py), SIGTERM / SIGINT stops it gracefully as they stop ``python -m bot run``
(``bot.lifecycle.run_until_stopped``: tests/e2e/test_graceful_stop.py), or its stdin closes: a clean
stop when the test asks, and also when the test's process dies, so no bot is ever left behind. Logs
go to stderr at WARNING, so the test can demand that no ERROR and no traceback appeared. ``--grace S``:
the graceful stop's bound (default ``bot.lifecycle.STOP_GRACE``); ``--no-limits``: no table caps or
cool-down (one host opens several tables at once).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading

import discord
import yarl

from bot.client import BotTuning, create_bot
from bot.config import Limits
from bot.lifecycle import STOP_GRACE, run_until_stopped

# The fake's token (FakeDiscord's default): a test token, not a secret.
TOKEN = "fake-bot-token"
# Computer players move at once; between rounds the table waits for the humans' Next round (600 s:
# the round timer never deals in a kill test's minute, so every NextRound in the log is a click);
# no pause between edits; no pictures (rendering them would only slow a loaded machine down).
TUNING = BotTuning(ai_delay=0.0, round_delay=600.0, edit_interval=0.0, images=False)


async def main(
    api_base: str,
    gateway_url: str,
    database: str,
    sync: bool,
    seed: int | None,
    grace: float = STOP_GRACE,
    no_limits: bool = False,
) -> None:
    discord.http.Route.BASE = api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    bot = create_bot(database_path=database, tuning=TUNING, limits=Limits.none() if no_limits else None)
    # discord.py waits 2 s after the last GUILD_CREATE before "ready"; the fake sends them at once.
    bot._connection.guild_ready_timeout = 0.1
    loop = asyncio.get_running_loop()
    stdin_closed: asyncio.Future[None] = loop.create_future()

    def watch_stdin() -> None:  # a daemon thread: it never holds the process's exit back
        sys.stdin.read()
        loop.call_soon_threadsafe(lambda: stdin_closed.done() or stdin_closed.set_result(None))

    threading.Thread(target=watch_stdin, name="stdin-watch", daemon=True).start()
    async with bot:
        runner = asyncio.create_task(run_until_stopped(bot, TOKEN, grace=grace))
        await bot.wait_until_ready()
        if seed is not None:
            bot.service._seed = lambda: seed
        if sync:
            await bot.tree.sync()
        print("READY", flush=True)
        done, _ = await asyncio.wait({runner, stdin_closed}, return_when=asyncio.FIRST_COMPLETED)
        if runner in done:
            if runner.result():
                print("STOPPED", flush=True)  # by a signal, gracefully
            return  # else the bot stopped by itself: runner.result() raised why (a traceback on stderr)
        await bot.close()
        await runner


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s %(message)s")
    flags = sys.argv[4:]
    seed = int(flags[flags.index("--seed") + 1]) if "--seed" in flags else None
    grace = float(flags[flags.index("--grace") + 1]) if "--grace" in flags else STOP_GRACE
    no_limits = "--no-limits" in flags
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], "--sync" in flags, seed, grace, no_limits))
