"""Skyjo tables under load: 200 (or more) concurrent games through the wire-level fake Discord.

Two processes, like production: the bot (this process) talks over HTTP and the gateway websocket to the
fake Discord of :mod:`fakecord`, which runs in a child process together with the
simulated players. So the fake's own work (validating, storing every message and request) neither
steals the bot's event loop nor counts as the bot's memory.

Load: GAMES games (one human, "alice", against one computer at production timings: 1.2 s per
computer move, at most one edit per public message per second), all active at once. Each game is
set up (lobby, start, the human opens her private panel and plays WARMUP moves), then in every game
at once the human opens her panel again and clicks until CLICKS_PER_GAME clicks, thinking THINK
seconds (uniform) before each click; while the computer plays she clicks Refresh instead.

Figures:
* click latency: from the INTERACTION_CREATE leaving the fake to the bot's answer arriving at the fake
  (both instants taken in the fake's process): the interaction callback (for a move, the new panel:
  see ``bot.ui.answers``), or for a move whose commit took longer than 2 s (acknowledged with
  a deferred update) the edit of the panel that shows it; SQLite ``synchronous=FULL``;
* REST requests per click: every request the bot made to the fake from the first measured click to
  the last answer, by route (callbacks, the interactions' webhooks, the channel routes), divided by
  the clicks (docs/performance.md, "Requests per click");
* bot memory per active game: tracemalloc in the bot's process, started once the bot is connected
  and before the first table. The retained Python memory (see ``_measure``: after ``gc.collect()``,
  the least of SAMPLES samples over 2 s, since what is in flight only adds to it) when the first half
  of the tables is open (each set up and two moves played, its computer playing on) versus when all
  are, divided by the tables of the second half (MEASURED: 100 of 200). It includes everything the
  bot's process holds for those games: discord.py's state, the service's tables and caches, the
  presenter's slots and followed panels, the database layer's Python objects (SQLite's own page
  cache is outside Python's allocator and not counted). Also printed: the same over all the tables
  (from the bot connected with none). Before issue 40 the figure was the median of 5 samples over
  the last 20 tables only: what is in flight at the instant of a sample (pictures of 40 kB on their
  way, payloads, answers being parsed) comes and goes by more than 20 tables hold, and it printed
  -31 to -46 KB in some runs.

Heavier runs (issue 26): ``python -m bench.table --games 200,1000 --ramp`` (or, through
``python -m bench table``, which passes no arguments: ``SKYBO_BENCH_GAMES=200,1000
SKYBO_BENCH_RAMP=1``). Each count of games is a session of its own (a fresh fake, bot and database,
one after the other) and their figures are printed side by side. ``--ramp`` adds, to the first
session once its measured clicks are done, a ramp of the think time (RAMP, RAMP_STEP_S per step, the
windows bench/fleet.py plays too: closed-loop players, so past its capacity the process slows them
down): the most clicks per second of a window whose p99 stayed within 50 ms is what one process
sustains. Without options: 200 games, no ramp (``make bench``).

Bounded: every phase has a deadline, scaled with the games (x games / 200); 200 games stop by
themselves in about 70 s, ``--games 200,1000 --ramp`` in about 6 minutes on 2 cores. Needs the
repository's ``tests`` package (run it from the repository root: ``python -m bench table``).
``SKYBO_BENCH_THINK=lo,hi`` changes the think time; ``SKYBO_BENCH_DEBUG=1`` also prints the lines of code
that hold the measured memory and what the garbage collector tracks; ``SKYBO_BENCH_PROFILE=FILE``
writes a cProfile of the bot's process during the clicks, ``SKYBO_BENCH_PYSPY=FILE`` a py-spy sample
of it (collapsed stacks, ``--format raw``: what docs/performance.md breaks down);
``SKYBO_BENCH_TRACE=FILE`` writes each click's send time and latency. With several counts of games
the files of the first session are written.

This module is the bot's process and the command line; the fake's process and its players are in
bench/table_players.py, the report in table_report.py, the py-spy breakdown in profile_breakdown.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bench.profile_breakdown import breakdown
from bench.table_players import (
    _DEBUG,
    CLICKS_PER_GAME,
    GAMES,
    PLAY_DEADLINE,
    SETUP_DEADLINE,
    SLACK,
    Window,
    _fake_process,
    _LoopMonitor,
    _recv,
    _scale,
)
from bench.table_report import report, report_one, report_ramp

MEASURED = 0.5  # the share of the tables opened last: memory per game is what they add
# The ramp (--ramp): think ranges from light to heavy, RAMP_STEP_S seconds each, after a warm-up window
# in which every player opens her panel again (not counted for the capacity). At 200 games their
# offered loads are about 50, 100, 150, 230, 400 and 900 clicks per second.
RAMP_WARMUP: tuple[tuple[float, float], float] = ((0.5, 2.0), 3.0)
RAMP: tuple[tuple[float, float], ...] = (
    (3.0, 5.0),
    (1.0, 3.0),
    (0.7, 2.0),
    (0.4, 1.3),
    (0.2, 0.8),
    (0.05, 0.4),
)
RAMP_STEP_S = 6.0
SETTLE_S = 1.0  # after the tables are opened, before memory is measured (the last answers)
SAMPLE_S = 0.2  # between the samples of memory
SAMPLES = 10  # samples of memory, the least kept (see _measure)


def _ramp_plan() -> list[tuple[str, tuple[float, float], float]]:
    """The windows of the ramp, as bench/fleet.py's plan: (name, think range, seconds), played by
    table_players.play in the fake's process."""
    steps = [(f"ramp {i + 1}", span, RAMP_STEP_S) for i, span in enumerate(RAMP)]
    return [("warm-up", *RAMP_WARMUP), *steps]


# ---------------------------------------------------------------------------------- the bot's process


async def _measure() -> int:
    """The Python memory the bot's process retains: the least of SAMPLES samples, each after a full
    collection, SAMPLE_S apart (longer than a computer's move in all: every table moved meanwhile).
    What is in flight (a table's picture on its way, a request's payload, an answer being parsed)
    only ever adds to what is retained, and with 200 tables moving it comes and goes between two
    samples: the least sample is the closest to the retained memory."""
    values = []
    for _ in range(SAMPLES):
        gc.collect()
        values.append(tracemalloc.get_traced_memory()[0])
        await asyncio.sleep(SAMPLE_S)
    return min(values)


async def _bench(
    games: int,
    clicks: int,
    ramp: list[tuple[str, tuple[float, float], float]] | None = None,
    files: bool = True,
) -> dict[str, Any]:
    """One session: a fresh fake (in its process), bot and database; GAMES tables, the measured
    clicks, then the ramp's windows if ``ramp``. ``files``: write the profile and trace files asked
    for in the environment."""
    import discord
    import yarl

    from bot.client import BotTuning, create_bot
    from bot.config import Limits

    measured = max(1, round(games * MEASURED))
    setup_deadline, play_deadline = SETUP_DEADLINE * _scale(games), PLAY_DEADLINE * _scale(games)
    context = multiprocessing.get_context("spawn")
    pipe, child_pipe = context.Pipe()
    child = context.Process(target=_fake_process, args=(child_pipe, games, clicks, measured), daemon=True)
    child.start()
    results: dict[str, Any] = {"games": games, "measured": measured}
    tmp = tempfile.TemporaryDirectory(prefix="skybo-bench-")
    try:
        kind, api_base, gateway_url, token = await _recv(pipe, setup_deadline)
        assert kind == "fake", (kind, api_base)
        discord.http.Route.BASE = api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
        tuning = BotTuning()  # production timings: computers wait 1.2 s, one edit per message per second
        # One host opens every table of the bench: no fair-use caps or cool-down (bot.config.Limits).
        bot = create_bot(
            database_path=Path(tmp.name) / "bench.sqlite3",
            synchronous="FULL",
            tuning=tuning,
            limits=Limits.none(),
        )
        bot_any: Any = bot
        bot_any._connection.guild_ready_timeout = 0.1
        task = asyncio.create_task(bot.start(token))
        try:
            deadline = time.monotonic() + setup_deadline
            while not bot.is_ready():
                if task.done() or time.monotonic() > deadline:
                    raise RuntimeError(f"the bot did not connect: {task.exception() if task.done() else ''}")
                await asyncio.sleep(0.01)
            await bot.tree.sync()
            gc.collect()
            tracemalloc.start(12 if _DEBUG else 1)
            start_memory = await _measure()
            pipe.send(("ready",))
            message = await _recv(pipe, setup_deadline * 2)
            assert message[0] == "opened", message
            await asyncio.sleep(SETTLE_S)
            before = await _measure()
            snapshot = tracemalloc.take_snapshot() if _DEBUG else None
            pipe.send(("more",))
            message = await _recv(pipe, setup_deadline)
            assert message[0] == "opened", message
            await asyncio.sleep(SETTLE_S)
            after = await _measure()
            if snapshot is not None:
                _print_top(tracemalloc.take_snapshot().compare_to(snapshot, "traceback"), measured)
            tracemalloc.stop()
            active = sum(1 for t in bot.service.tables.values() if not t.finished)
            results["active_games"] = active
            results["memory_per_game"] = (after - before) / measured
            results["memory_all"] = (after - start_memory) / games
            profile = None
            if files and os.environ.get("SKYBO_BENCH_PROFILE"):
                import cProfile

                profile = cProfile.Profile()
                profile.enable()
            if _DEBUG:
                print(f"      objects tracked by the GC: {[len(gc.get_objects(g)) for g in range(3)]}")
                by_type: dict[str, int] = {}
                for obj in gc.get_objects():
                    by_type[type(obj).__name__] = by_type.get(type(obj).__name__, 0) + 1
                print("      ", sorted(by_type.items(), key=lambda kv: -kv[1])[:15])
            spy = (
                _start_pyspy(os.environ["SKYBO_BENCH_PYSPY"])
                if files and "SKYBO_BENCH_PYSPY" in os.environ
                else None
            )
            monitor = _LoopMonitor(bot.presenter.pictures.worker_cpu)
            pipe.send(("play",))
            message = await _recv(pipe, play_deadline + 5)
            results["loop"] = monitor.stop()
            if spy is not None:
                _stop_pyspy(spy)
            if profile is not None:
                profile.disable()
                profile.dump_stats(os.environ["SKYBO_BENCH_PROFILE"])
            assert message[0] == "done", message
            results.update(message[1])
            results["db"] = bot.service.storage.db.stats
            if ramp:
                results["ramp"] = await _bot_ramp(pipe, ramp)
        finally:
            await bot.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 10)
            pipe.send(("stop",))
    finally:
        if tracemalloc.is_tracing():
            tracemalloc.stop()
        child.join(15)
        if child.is_alive():
            child.kill()
        tmp.cleanup()
    return results


async def _bot_ramp(pipe: Connection, plan: list[tuple[str, tuple[float, float], float]]) -> dict[str, Any]:
    """The bot's side of the ramp: the fake's players run the windows (table_players.play); at each
    window's mark the bot's CPU time is read (its share of one core in each window)."""
    pipe.send(("ramp", plan))
    cpus: list[dict[str, float]] = []
    last = (time.perf_counter(), time.process_time())
    deadline = sum(seconds for _, _, seconds in plan) + SLACK + 10
    while True:
        message = await _recv(pipe, deadline)
        if message[0] != "mark":
            break
        now = (time.perf_counter(), time.process_time())
        if message[1] > 0:
            cpus.append({"bot": (now[1] - last[1]) / max(1e-9, now[0] - last[0])})
        last = now
    assert message[0] == "ramp-done", message
    result = message[1]
    windows = [Window(**w, cpu=cpu) for w, cpu in zip(result["windows"], cpus, strict=True)]
    return {"windows": windows, "refused": result["refused"], "stopped_early": result["stopped_early"]}


def _start_pyspy(path: str) -> subprocess.Popen[bytes]:
    """py-spy sampling this process (every thread, 200 Hz, without pausing it) until _stop_pyspy."""
    exe = Path(sys.executable).with_name("py-spy")
    command = [str(exe) if exe.exists() else "py-spy", "record", "--pid", str(os.getpid())]
    command += ["--rate", "200", "--nonblocking", "--threads", "--format", "raw", "--output", path]
    with open(f"{path}.log", "wb") as log:  # py-spy's own messages (e.g. "sampling is behind")
        spy = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log)
    time.sleep(0.5)  # attached before the first click
    return spy


def _stop_pyspy(spy: subprocess.Popen[bytes]) -> None:
    spy.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
    try:
        spy.wait(30)
    except subprocess.TimeoutExpired:
        spy.kill()
        spy.wait(5)


def _print_top(diff: list[tracemalloc.StatisticDiff], measured: int) -> None:
    print(f"      top allocations added by the last {measured} tables (per game):")
    interesting = ("/bot/", "/discord/", "/aiohttp/", "/aiosqlite/", "asyncio", "/json/")
    for stat in sorted(diff, key=lambda s: -s.size_diff)[:25]:
        frames = [f for f in stat.traceback if any(k in f.filename for k in interesting)] or list(
            stat.traceback
        )
        where = " < ".join(
            f"{f.filename.split('site-packages/')[-1].split('/work/main/')[-1]}:{f.lineno}"
            for f in frames[-4:][::-1]
        )
        size, count = stat.size_diff / measured / 1024, stat.count_diff / measured
        print(f"      {size:7.1f} KB  {count:6.1f} blocks  {where}")


def measure(
    counts: Sequence[int], clicks_per_game: int = CLICKS_PER_GAME, ramp: bool = False
) -> list[dict[str, Any]]:
    """One session per count of games, one after the other; the ramp (``ramp``) and the profile and
    trace files only in the first."""
    return [
        asyncio.run(_bench(games, clicks_per_game, _ramp_plan() if ramp and i == 0 else None, i == 0))
        for i, games in enumerate(counts)
    ]


def _counts(text: str) -> list[int]:
    counts = [int(part) for part in text.split(",") if part.strip()]
    if not counts or min(counts) < 1:
        raise ValueError(f"games: positive numbers separated by commas, not {text!r}")
    return counts


def run(
    games: Sequence[int] | None = None, clicks_per_game: int = CLICKS_PER_GAME, ramp: bool | None = None
) -> None:
    """``python -m bench table``: the counts of games from SKYBO_BENCH_GAMES (default GAMES), the
    ramp if SKYBO_BENCH_RAMP=1."""
    for name in ("discord", "bot", "aiohttp"):
        logging.getLogger(name).setLevel(logging.ERROR)
    counts = list(games) if games else _counts(os.environ.get("SKYBO_BENCH_GAMES", str(GAMES)))
    if ramp is None:
        ramp = os.environ.get("SKYBO_BENCH_RAMP", "0") not in ("", "0")
    runs = measure(counts, clicks_per_game, ramp)
    lines = report_one(runs[0]) if len(runs) == 1 else report(runs)
    if len(runs) == 1 and "ramp" in runs[0]:
        lines += report_ramp(runs[0]["ramp"], runs[0]["games"])
    for line in lines:
        print(line, flush=True)


def main(argv: list[str]) -> int:
    """``python -m bench.table [--games N[,N...]] [--ramp]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bench.table", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--games",
        type=_counts,
        default=None,
        help=f"concurrent games; several (200,1000): side by side (default {GAMES})",
    )
    parser.add_argument(
        "--ramp", action="store_true", help="then ramp the think time up (first count of games)"
    )
    parser.add_argument("--breakdown", metavar="FILE", help="print the shares of a SKYBO_BENCH_PYSPY file")
    options = parser.parse_args(argv)
    if options.breakdown:
        print("\n".join(breakdown(options.breakdown)))
        return 0
    started = time.perf_counter()
    run(options.games, ramp=options.ramp)
    print(f"   ({time.perf_counter() - started:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
