"""Skyjo tables under load: 200 (or more) concurrent games through the wire-level fake Discord.

Two processes, like production: the bot (this process) talks over HTTP and the gateway websocket to the
fake Discord of :mod:`bot.sandbox.discord`, which runs in a child process together with the
simulated players. So the fake's own work (validating, storing every message and request) neither
steals the bot's event loop nor counts as the bot's memory.

Load: GAMES games (one human, "alice", against one computer at production timings: 1.2 s per
computer move, at most one edit per public message per second), all active at once. Each game is
set up (lobby, start, the human opens her private panel and plays WARMUP moves), then in every game
at once the human opens her panel again and clicks until CLICKS_PER_GAME clicks, thinking THINK
seconds (uniform) before each click; while the computer plays she clicks Refresh instead.

Figures:
* click latency: from the INTERACTION_CREATE leaving the fake to the bot's answer arriving at the fake
  (both instants taken in the fake's process): the interaction callback, or for a move (acknowledged
  first with a deferred update, see ``bot.ui.table_views.TableUI``) the edit of the panel that shows
  it; SQLite ``synchronous=FULL``;
* bot memory per active game: tracemalloc in the bot's process, started once the bot is connected
  and before the first table; Python memory still allocated (after ``gc.collect()``, median of 5
  samples) when GAMES - MEASURED tables are open versus when all GAMES are, divided by MEASURED.
  It includes everything the bot process holds for those games: discord.py's state, aiohttp client
  buffers in flight, the service's caches, the database layer's Python objects (SQLite's own page
  cache is outside Python's allocator and not counted). Also printed: the same over all GAMES tables.

Heavier runs (issue 26): ``python -m bot.bench.table --games 200,1000 --ramp`` (or, through
``python -m bot bench table``, which passes no arguments: ``SKYBO_BENCH_GAMES=200,1000
SKYBO_BENCH_RAMP=1``). Each count of games is a session of its own (a fresh fake, bot and database,
one after the other) and their figures are printed side by side. ``--ramp`` adds, to the first
session once its measured clicks are done, a ramp of the think time (RAMP, RAMP_STEP_S per step, the
windows of bot/bench/fleet.py: closed-loop players, so past its capacity the process slows them
down): the most clicks per second of a window whose p99 stayed within 50 ms is what one process
sustains. Without options: 200 games, no ramp (``make bench``).

Bounded: every phase has a deadline, scaled with the games (x games / 200); 200 games stop by
themselves in about 70 s, ``--games 200,1000 --ramp`` in about 6 minutes on 2 cores. Needs the
repository's ``tests`` package (run it from the repository root: ``python -m bot bench table``).
``SKYBO_BENCH_THINK=lo,hi`` changes the think time; ``SKYBO_BENCH_DEBUG=1`` also prints the lines of code
that hold the measured memory and what the garbage collector tracks; ``SKYBO_BENCH_PROFILE=FILE``
writes a cProfile of the bot's process during the clicks, ``SKYBO_BENCH_PYSPY=FILE`` a py-spy sample
of it (collapsed stacks, ``--format raw``: what docs/performance.md breaks down);
``SKYBO_BENCH_TRACE=FILE`` writes each click's send time and latency. With several counts of games
the files of the first session are written.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import multiprocessing
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.sandbox.discord import FakeDiscord, FakeInteraction

GAMES = 200
CLICKS_PER_GAME = 12
MEASURED = 20  # the last tables opened: memory per game is what they add
# Seconds a player takes before each click (uniform): reading the new panel and picking a card takes
# a human a second or more. SKYBO_BENCH_THINK="0.3,1.0" sets another range (e.g. a stress test).
THINK = tuple(float(x) for x in os.environ.get("SKYBO_BENCH_THINK", "1.0,3.0").split(","))[:2]
_DEBUG = bool(os.environ.get("SKYBO_BENCH_DEBUG"))
SETUP_DEADLINE = 60.0 * (4 if _DEBUG else 1)  # for GAMES games; scaled with the games (_scale)
PLAY_DEADLINE = 50.0
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
OPEN_CHUNK = 25  # tables opened at once during the setup
WARMUP = 2  # moves played in each game while it is set up (before memory is measured)
SETTLE_S = 1.0  # after the tables are opened, before memory is measured (the last answers)
SAMPLE_S = 0.2  # between the 5 samples of memory


def _scale(games: int) -> float:
    """How much longer than for GAMES games each phase may take (setting up 1,000 tables takes about
    five times as long as 200; an overloaded process answers every click later)."""
    return max(1.0, games / GAMES)


def _ramp_plan() -> list[tuple[str, tuple[float, float], float]]:
    """The windows of the ramp, as bot/bench/fleet.py's plan: (name, think range, seconds)."""
    steps = [(f"ramp {i + 1}", span, RAMP_STEP_S) for i, span in enumerate(RAMP)]
    return [("warm-up", *RAMP_WARMUP), *steps]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def _recv(pipe: Connection, timeout: float) -> Any:
    """The next message from the other process (without blocking the event loop)."""
    loop = asyncio.get_running_loop()
    ready = await asyncio.wait_for(loop.run_in_executor(None, pipe.poll, timeout), timeout + 1)
    if not ready:
        raise TimeoutError("the other process of the benchmark did not answer")
    return pipe.recv()


# ---------------------------------------------------------------------------------- the fake's process


def _fake_process(pipe: Connection, games: int, clicks: int, measured: int) -> None:
    for name in ("discord", "bot", "tests", "aiohttp"):
        logging.getLogger(name).setLevel(logging.ERROR)
    # The fake keeps every request and message it saw: its heap only grows, and full collections of
    # it would stall its loop for hundreds of milliseconds, counted in the latency. It is the
    # harness, not the bot, and runs for a minute: no cyclic garbage collector in this process.
    gc.disable()
    try:
        asyncio.run(_fake_side(pipe, games, clicks, measured))
    except BaseException as error:
        with contextlib.suppress(Exception):
            pipe.send(("error", repr(error)))
        raise


async def _fake_side(pipe: Connection, games: int, clicks: int, measured: int) -> None:
    from bot.sandbox.discord import FakeDiscord

    fake = FakeDiscord()
    setup_deadline, play_deadline = SETUP_DEADLINE * _scale(games), PLAY_DEADLINE * _scale(games)
    channels = [fake.add_channel(f"table-{i}") for i in range(games)]
    alice = fake.user("alice")
    answers = Answers(fake)
    sent_at, answered_at, answer_of = answers.sent_at, answers.answered_at, answers.answer_of
    await fake.start()
    try:
        pipe.send(("fake", fake.api_base, fake.gateway_url, fake.token))
        assert (await _recv(pipe, setup_deadline))[0] == "ready"
        first, last = channels[: games - measured], channels[games - measured :]
        setup_started = time.perf_counter()
        tables = await asyncio.wait_for(_open_tables(fake, first, alice, answer_of), setup_deadline)
        pipe.send(("opened", len(tables)))
        assert (await _recv(pipe, setup_deadline))[0] == "more"
        tables += await asyncio.wait_for(_open_tables(fake, last, alice, answer_of), setup_deadline)
        setup_s = time.perf_counter() - setup_started
        pipe.send(("opened", len(tables)))
        assert (await _recv(pipe, setup_deadline))[0] == "play"
        sent_at.clear()
        answered_at.clear()
        monitor = _LoopMonitor()
        started = time.perf_counter()
        players = [
            _player(fake, message, alice, clicks, random.Random(i), answer_of)
            for i, message in enumerate(tables)
        ]
        done = await asyncio.wait_for(asyncio.gather(*players), play_deadline)
        elapsed = time.perf_counter() - started
        latencies = [(answered_at[i] - t0) * 1000 for i, t0 in sent_at.items() if i in answered_at]
        if os.environ.get("SKYBO_BENCH_TRACE"):
            with open(os.environ["SKYBO_BENCH_TRACE"], "w") as out:
                for i, t0 in sent_at.items():
                    if i in answered_at:
                        out.write(f"{t0 - started:.4f} {(answered_at[i] - t0) * 1000:.2f}\n")
        pipe.send(
            (
                "done",
                {
                    "latencies": latencies,
                    "unanswered": sum(1 for i in sent_at if i not in answered_at),
                    "clicks": sum(n for n, _, _ in done),
                    "refused": sum(r for _, r, _ in done),
                    "refreshes": sum(f for _, _, f in done),
                    "elapsed": elapsed,
                    "setup_s": setup_s,
                    "fake_loop": monitor.stop(),
                },
            )
        )
        message: Any = ("stop",)
        with contextlib.suppress(TimeoutError):
            message = await _recv(pipe, 30)  # "ramp" right away, or "stop" once the bot has closed
        if message[0] == "ramp":
            from bot.bench import fleet

            pipe.send(("ramp-done", await fleet._play(fake, answers, tables, alice, message[1], pipe)))
            with contextlib.suppress(TimeoutError):
                await _recv(pipe, 30)  # "stop": the bot has closed
    finally:
        await fake.stop()


class Answers:
    """When the bot answered each interaction, as its player sees it (both instants taken in the fake's
    process, so the bot's own clock and loop play no part). Wraps the fake's send and answer routes:
    build it before ``fake.start()``, which binds the routes. Also used by bot/bench/fleet.py."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.sent_at: dict[int, float] = {}
        self.answered_at: dict[int, float] = {}
        self._answered: dict[int, asyncio.Future[None]] = {}
        sent_at, answered_at, answered = self.sent_at, self.answered_at, self._answered
        original_send = fake._send_interaction
        original_callback = fake._h_callback
        original_execute = fake._h_webhook_execute
        original_edit = fake._h_webhook_edit

        def settle(key: int) -> None:
            """The player sees the bot's answer to interaction ``key``."""
            answered_at.setdefault(key, time.perf_counter())
            future = answered.get(key)
            if future is not None and not future.done():
                future.set_result(None)

        async def send(inter: FakeInteraction) -> FakeInteraction:
            sent_at[inter.id] = time.perf_counter()
            answered[inter.id] = asyncio.get_running_loop().create_future()
            result: FakeInteraction = await original_send(inter)
            return result

        async def callback(request: Any, record: Any, interaction_id: str, token: str) -> Any:
            key = int(interaction_id)
            try:
                return await original_callback(request, record, interaction_id, token)
            finally:
                inter = fake.interactions.get(key)
                done = inter.callback if inter is not None else None
                clicked = inter.message if inter is not None else None
                # A deferred update of a panel (a move) is answered by the panel's edit; anything else
                # (the panel itself, a lobby or table click the presenter shows) by its callback.
                if done is None or done.type != 6 or clicked is None or not clicked.ephemeral:
                    settle(key)

        async def webhook_write(
            original: Any, request: Any, record: Any, application_id: str, token: str, **rest: str
        ) -> Any:
            try:
                return await original(request, record, application_id, token, **rest)
            finally:
                inter = fake._interactions_by_token.get(token)
                if inter is not None and inter.webhook_writes:
                    settle(inter.id)

        async def execute(request: Any, record: Any, application_id: str, token: str) -> Any:
            return await webhook_write(original_execute, request, record, application_id, token)

        async def edit(request: Any, record: Any, application_id: str, token: str, message_id: str) -> Any:
            return await webhook_write(
                original_edit, request, record, application_id, token, message_id=message_id
            )

        fake._send_interaction = send  # type: ignore[method-assign]
        # bound into the routes by start()
        fake._h_callback = callback  # type: ignore[method-assign]
        fake._h_webhook_execute = execute  # type: ignore[method-assign]
        fake._h_webhook_edit = edit  # type: ignore[method-assign]

    async def answer_of(self, inter: Any) -> Any:
        """The message showing the bot's answer (None: a click the presenter answers on the public
        message). Waits on a future: the fake's wait_until polls, too costly here."""
        await asyncio.wait_for(self._answered[inter.id], 30)
        del self._answered[inter.id]
        done = inter.callback
        if done is not None and done.type in (4, 7):
            return done.message
        return inter.webhook_writes[0] if inter.webhook_writes else None


async def _open_tables(fake: Any, channels: list[Any], host: Any, answer_of: Any) -> list[Any]:
    """/skyjo new with one computer, Start, then (so the game is in play when memory is measured) the
    host opens her panel and reveals WARMUP cards. Returns the table messages (the lobby messages)."""

    async def one(index: int, channel: Any) -> Any:
        inter = await fake.run_command(host, "skyjo", "new", options={"computers": 1}, channel=channel)
        await answer_of(inter)
        lobby = inter.original_message
        start = next(c for c in lobby.custom_ids if c.endswith(":st"))
        await answer_of(await fake.click(host, lobby, start))
        await fake.wait_until(lambda: any(":op:" in c for c in lobby.custom_ids), 30, what="the table")
        op = next(c for c in lobby.custom_ids if ":op:" in c)
        inter = await fake.click(host, lobby, op)
        await answer_of(inter)
        panel = inter.original_message
        rng = random.Random(-index)
        for _ in range(WARMUP):
            custom_id = _choose(panel, rng)
            if custom_id is None:
                break
            await answer_of(await fake.click(host, panel, custom_id))
        return lobby

    opened: list[Any] = []
    for i in range(0, len(channels), OPEN_CHUNK):
        opened += await asyncio.gather(*(one(i + k, c) for k, c in enumerate(channels[i : i + OPEN_CHUNK])))
    return opened


def _choose(panel: Any, rng: random.Random) -> str | None:
    """A legal move of the panel (a grid cell, else Draw / Next round), else Refresh; None if neither."""
    from bot.ui import ids

    enabled = [c for c in panel.all_components() if c.get("type") == 2 and not c.get("disabled")]
    parsed = [(str(c["custom_id"]), ids.decode(c["custom_id"])) for c in enabled]
    moves = [cid for cid, p in parsed if p and p.act in ("rv", "rp", "nx", "dr")]
    grid = [cid for cid, p in parsed if p and p.act in ("rv", "rp", "nx")]
    if grid:
        return rng.choice(grid)
    if moves:
        return moves[0]
    return next((cid for cid, p in parsed if p and p.act == "rf"), None)  # the computer is playing


async def _player(
    fake: Any,
    table_message: Any,
    user: Any,
    clicks: int,
    rng: random.Random,
    answer_of: Any,
    think: Sequence[float] | None = None,
    until: float | None = None,
) -> tuple[int, int, int]:
    """Click like a player: open the panel again, then legal moves (or Refresh while the computer plays).
    Returns the clicks, those refused, and those on Refresh (a panel that follows the game needs fewer,
    so more of the clicks are moves, each answered by a computer move: more work per click). ``think``:
    another think range than THINK, read before every click (bot/bench/fleet.py changes it in place to
    ramp the load up); ``until``: no click is sent at or after this ``time.perf_counter()``."""
    await asyncio.sleep(rng.uniform(*(think or THINK)[:2]))
    op = next(c for c in table_message.custom_ids if ":op:" in c)  # its version changes as play goes on
    inter = await fake.click(user, table_message, op)
    await answer_of(inter)
    panel = inter.original_message
    done, refused, refreshes = 1, 0, 0
    while done < clicks:
        pause = rng.uniform(*(think or THINK)[:2])
        if until is not None and time.perf_counter() + pause >= until:
            break
        await asyncio.sleep(pause)
        custom_id = _choose(panel, rng)
        if custom_id is None:
            break
        shown = await answer_of(await fake.click(user, panel, custom_id))
        done += 1
        refreshes += ":rf:" in custom_id
        if shown is None or shown.id != panel.id:  # not a panel update: a refusal in words
            refused += 1
    return done, refused, refreshes


# ---------------------------------------------------------------------------------- the bot's process


async def _measure() -> int:
    values = []
    for _ in range(5):
        gc.collect()
        values.append(tracemalloc.get_traced_memory()[0])
        await asyncio.sleep(SAMPLE_S)
    return int(statistics.median(values))


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

    measured = min(MEASURED, games)
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
    """The bot's side of the ramp: the fake's players run bot/bench/fleet.py's windows; at each
    window's mark the bot's CPU time is read (its share of one core in each window)."""
    from bot.bench import fleet

    pipe.send(("ramp", plan))
    cpus: list[dict[str, float]] = []
    last = (time.perf_counter(), time.process_time())
    deadline = sum(seconds for _, _, seconds in plan) + fleet.SLACK + 10
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
    windows = [fleet.Window(**w, cpu=cpu) for w, cpu in zip(result["windows"], cpus, strict=True)]
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


class _LoopMonitor:
    """The bot's event loop lag (how late a 5 ms sleep wakes up) and garbage collector pauses."""

    def __init__(self, worker_cpu: Callable[[], float] = lambda: 0.0) -> None:
        self.lags: list[float] = []
        self.gc_pauses: list[tuple[int, float]] = []
        self._gc_started = 0.0
        self._worker_cpu = worker_cpu  # the picture workers' CPU seconds, counted as the bot's
        self._cpu = time.process_time() + worker_cpu()
        self._wall = time.perf_counter()
        gc.callbacks.append(self._on_gc)
        self._task = asyncio.create_task(self._watch())

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.gc_pauses.append((info["generation"], (time.perf_counter() - self._gc_started) * 1000))

    async def _watch(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.005)
            self.lags.append((time.perf_counter() - before - 0.005) * 1000)

    def stop(self) -> dict[str, Any]:
        self._task.cancel()
        gc.callbacks.remove(self._on_gc)
        lags = self.lags or [0.0]
        full = [ms for gen, ms in self.gc_pauses if gen == 2]
        cpu = time.process_time() + self._worker_cpu() - self._cpu
        return {
            "cpu": cpu / (time.perf_counter() - self._wall),
            "lag_p50": statistics.median(lags),
            "lag_p99": _percentile(lags, 0.99),
            "lag_max": max(lags),
            "gc_count": len(self.gc_pauses),
            "gc_total": sum(ms for _, ms in self.gc_pauses),
            "gc_max": max((ms for _, ms in self.gc_pauses), default=0.0),
            "gc_full": len(full),
            "gc_full_max": max(full, default=0.0),
        }


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


# ---------------------------------------------------------------------------------- the profile's breakdown

# Where a sample of the bot's event loop thread goes (docs/performance.md): the first rule of OWNERS that
# matches any frame of the stack, else the deepest frame that matches a rule of LAYERS (the first rule
# that matches that frame). A rule: (category, part of the file, part of the function or "").
OWNERS: tuple[tuple[str, str, str], ...] = (
    ("bench harness", "bot/bench/", "_recv"),
    ("bench harness", "bot/bench/", "_LoopMonitor"),
    ("computer players", "/ai.py", ""),  # bot/games/<game>/ai.py and the parts of a level's search
    ("computer players", "/lookahead.py", ""),
    ("computer players", "/hard.py", ""),
    ("computer players", "/reading.py", ""),
    ("computer players", "bot/service/", "_ai_decide"),
    ("decode", "discord/gateway.py", ""),
    ("render picture", "bot/", "_picture"),
)
LAYERS: tuple[tuple[str, str, str], ...] = (
    ("View construction", "", "urandom"),
    ("View construction", "discord/ui/", "__init__"),
    ("View construction", "discord/ui/", "add_item"),
    ("View construction", "discord/ui/", "_init_children"),
    ("encode", "discord/ui/", "to_components"),
    ("encode", "json/encoder", ""),
    ("encode", "aiohttp/formdata", ""),
    ("encode", "aiohttp/multipart", ""),
    ("encode", "aiohttp/payload", ""),
    ("encode", "discord/file.py", ""),
    ("encode", "", "to_dict"),
    ("encode", "discord/utils.py", "_to_json"),
    ("encode", "discord/http.py", "handle_message_parameters"),
    ("encode", "discord/http.py", "MultipartParameters"),
    ("decode", "json/decoder", ""),
    ("decode", "aiohttp/_websocket", ""),
    ("decode", "aiohttp/http_websocket", ""),
    ("decode", "discord/utils.py", ""),
    ("decode", "discord/state.py", ""),
    ("decode", "discord/message.py", "__init__"),
    ("decode", "discord/message.py", "_handle"),
    ("decode", "discord/components.py", ""),
    ("decode", "discord/interactions.py", "__init__"),
    ("decode", "discord/interactions.py", "_from_data"),
    ("decode", "discord/user.py", ""),
    ("decode", "discord/member.py", ""),
    ("send", "aiohttp/", ""),
    ("send", "discord/http.py", ""),
    ("send", "discord/webhook/", ""),
    ("send", "asyncio/selector_events.py", "write"),
    ("send", "asyncio/selector_events.py", "_sock_connect"),
    ("send", "discord/interactions.py", ""),
    ("send", "discord/message.py", ""),
    ("commit", "bot/storage/", ""),
    ("commit", "aiosqlite/", ""),
    ("commit", "bot/service/", "_commit"),
    ("timers", "", "timer"),
    ("engine apply", "bot/engine/", "apply"),
    ("engine apply", "/engine.py", "apply"),  # bot/games/<game>/engine.py
    ("engine: game views", "bot/engine/", ""),
    ("engine: game views", "/engine.py", ""),
    ("render picture", "PIL/", ""),
    ("render picture", "/image.py", ""),  # bot/games/<game>/image.py
    ("render picture", "bot/render/images", ""),
    ("render text", "bot/ui/", ""),
    ("render text", "bot/games/", ""),  # panels, table texts, rules
    ("render text", "bot/render/", ""),
    ("render text", "bot/i18n/", ""),
    ("discord.py other", "discord/", ""),
    ("service (other)", "bot/", ""),
    ("asyncio loop", "asyncio/", ""),
)


def _category(frames: list[str]) -> str:
    """The category of one sample; ``frames``: "function (file:line)", outermost first."""
    parsed = [(f.rsplit(" (", 1)[0], f.rsplit(" (", 1)[-1]) for f in frames]
    for category, where, function in OWNERS:
        if any(where in file and function in name for name, file in parsed):
            return category
    for name, file in reversed(parsed):
        for category, where, function in LAYERS:
            if where in file and function in name:
                return category
    return "other"


def breakdown(path: str) -> list[str]:
    """Shares of a py-spy file (``SKYBO_BENCH_PYSPY``: raw, one line per stack and thread) by category:
    the event loop's thread (MainThread) without its idle samples (waiting in select), then the other
    threads (pictures, the SQLite connection) in samples of the same rate."""
    loop: dict[str, int] = {}
    threads: dict[str, int] = {}
    idle = 0
    with open(path) as lines:
        for line in lines:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            thread, *frames = stack.split(";")
            n = int(count)
            if "MainThread" not in thread:
                name = thread.split(": ", 1)[-1].rstrip("_0123456789")
                threads[name] = threads.get(name, 0) + n
            elif frames and frames[-1].startswith(("EpollSelector.select", "BaseSelector.select")):
                idle += n
            else:
                category = _category(frames)
                loop[category] = loop.get(category, 0) + n
    busy = sum(loop.values())
    out = [f"   event loop thread: {busy} busy samples ({idle} idle in select not counted)"]
    for category, n in sorted(loop.items(), key=lambda kv: -kv[1]):
        out.append(f"   {category:<24} {n / max(1, busy):6.1%}  ({n})")
    out.append("   other threads (samples at the same rate, and as a share of the loop's busy samples):")
    for name, n in sorted(threads.items(), key=lambda kv: -kv[1]):
        out.append(f"   {name:<50} {n:6d}  ({n / max(1, busy):.0%})")
    return out


def measure(
    counts: Sequence[int], clicks_per_game: int = CLICKS_PER_GAME, ramp: bool = False
) -> list[dict[str, Any]]:
    """One session per count of games, one after the other; the ramp (``ramp``) and the profile and
    trace files only in the first."""
    return [
        asyncio.run(_bench(games, clicks_per_game, _ramp_plan() if ramp and i == 0 else None, i == 0))
        for i, games in enumerate(counts)
    ]


def _ms(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def _latency(latencies: list[float]) -> str:
    if not latencies:
        return "none answered"
    p = [statistics.median(latencies), _percentile(latencies, 0.95), _percentile(latencies, 0.99)]
    return "/".join(_ms(v) for v in [*p, max(latencies)]) + " ms"


def report_one(results: dict[str, Any]) -> list[str]:
    """The figures of one session (the output of ``make bench``)."""
    latencies = results.get("latencies") or []
    if not latencies:
        return ["   no click was answered"]
    db, measured = results["db"], results["measured"]
    lines = [
        f"   load: {results['active_games']} concurrent games (1 human + 1 computer each, computer moves"
        f" every 1.2 s); the human thinks {THINK[0]}-{THINK[1]} s (uniform) before each click,"
        f" {CLICKS_PER_GAME} clicks per game, all games at once",
        f"   {len(latencies)} clicks measured in {results['elapsed']:.1f} s"
        f" ({len(latencies) / results['elapsed']:.0f}/s; {results['unanswered']} unanswered,"
        f" {results['refused']} answered with a refusal; {results['refreshes']} on Refresh, the rest moves"
        " or the panel opened)",
        f"   click latency (INTERACTION_CREATE sent -> callback received, synchronous=FULL):"
        f" p50 {statistics.median(latencies):.1f} ms, p95 {_percentile(latencies, 0.95):.1f} ms,"
        f" p99 {_percentile(latencies, 0.99):.1f} ms, max {max(latencies):.1f} ms   (target p99 < 50 ms)",
    ]
    loop = results["loop"]
    cpu_per_click = loop["cpu"] * results["elapsed"] * 1000 / len(latencies)  # ms of the bot's CPU
    lines.append(
        f"   bot process: {loop['cpu']:.0%} of a core, {cpu_per_click:.1f} ms per click;"
        f" event loop lag: p50 {loop['lag_p50']:.1f} ms,"
        f" p99 {loop['lag_p99']:.1f} ms,"
        f" max {loop['lag_max']:.1f} ms; {loop['gc_count']} GC runs ({loop['gc_total']:.0f} ms in all,"
        f" longest {loop['gc_max']:.1f} ms),"
        f" {loop['gc_full']} full (longest {loop['gc_full_max']:.1f} ms)"
    )
    fake = results["fake_loop"]
    lines.append(
        f"   fake Discord + players process: {fake['cpu']:.0%} of a core; its event loop lag (counted in"
        f" the latency): p50 {fake['lag_p50']:.1f} ms,"
        f" p99 {fake['lag_p99']:.1f} ms, max {fake['lag_max']:.1f} ms (its garbage collector is off)"
    )
    lines.append(
        f"   storage: {db.writes} writes in {db.transactions} transactions"
        f" ({db.writes / max(1, db.transactions):.1f} per commit on average, at most {db.largest})"
    )
    lines.append(
        f"   bot memory per active game: {results['memory_per_game'] / 1024:.1f} KB   (target < 50 KB)"
        f"   [tracemalloc in the bot's process, fake Discord in another process: the last {measured}"
        f" tables opened while {results['active_games'] - measured} others are active;"
        f" over all {results['active_games']}: {results['memory_all'] / 1024:.1f} KB per game]"
    )
    return lines


def report(runs: list[dict[str, Any]]) -> list[str]:
    """Several sessions side by side, then the ramp of the first if it ran."""
    width = 30
    lines = [
        f"   load: 1 human + 1 computer per game (computer moves every 1.2 s), the human thinks"
        f" {THINK[0]}-{THINK[1]} s before each click, {CLICKS_PER_GAME} clicks per game, all games at once;"
        f" SQLite synchronous=FULL; {os.cpu_count()} cores. Latency: INTERACTION_CREATE sent -> answer"
        " received, in the fake's process. CPU: share of one core"
    ]

    def row(label: str, cells: list[str]) -> None:
        lines.append(f"   {label:<34}" + "".join(f"{c:>{width}}" for c in cells))

    row("concurrent games", [str(r.get("active_games", r["games"])) for r in runs])
    row("tables set up in", [f"{r['setup_s']:.1f} s" for r in runs])
    row(
        "clicks measured (per second)",
        [
            f"{len(r['latencies'])} in {r['elapsed']:.0f} s ({len(r['latencies']) / r['elapsed']:.0f}/s)"
            for r in runs
        ],
    )
    row(
        "unanswered / refused / Refresh",
        [f"{r['unanswered']} / {r['refused']} / {r['refreshes']}" for r in runs],
    )
    row("latency p50/p95/p99/max", [_latency(r.get("latencies") or []) for r in runs])
    row("bot CPU", [f"{r['loop']['cpu']:.0%}" for r in runs])
    row(
        "bot loop lag p50/p99/max",
        [
            f"{_ms(r['loop']['lag_p50'])}/{_ms(r['loop']['lag_p99'])}/{_ms(r['loop']['lag_max'])} ms"
            for r in runs
        ],
    )
    row(
        "bot GC runs (ms in all, longest)",
        [f"{r['loop']['gc_count']} ({r['loop']['gc_total']:.0f}, {_ms(r['loop']['gc_max'])})" for r in runs],
    )
    row(
        "fake+players CPU (loop lag p99)",
        [f"{r['fake_loop']['cpu']:.0%} ({_ms(r['fake_loop']['lag_p99'])} ms)" for r in runs],
    )
    row(
        "storage writes / commits",
        [f"{r['db'].writes} / {r['db'].transactions}" for r in runs],
    )
    row(
        "bot memory per game (last, all)",
        [f"{r['memory_per_game'] / 1024:.1f} KB, {r['memory_all'] / 1024:.1f} KB" for r in runs],
    )
    ramped = next((r for r in runs if "ramp" in r), None)
    if ramped is not None:
        lines += report_ramp(ramped["ramp"], ramped["games"])
    return lines


def report_ramp(ramp: dict[str, Any], games: int) -> list[str]:
    """The ramp's windows and the capacity: the most clicks per second of a window (past the warm-up)
    whose p99 stayed within bot/bench/fleet.py's P99_TARGET_MS, every click answered."""
    from bot.bench import fleet

    windows = ramp["windows"]
    lines = [f"   ramp at {games} games (closed-loop players; the think range changes every window):"]
    for w in windows:
        lines.append(
            f"   {w.name:<9} think {w.think[0]:>4}-{w.think[1]:<4} s {w.seconds:5.1f} s:"
            f" {w.rate:6.1f} clicks/s, p50/p95/p99/max {_latency(w.latencies)},"
            f" bot CPU {w.cpu['bot']:.0%}, {w.unanswered} unanswered"
        )
    best = capacity(windows)
    peak = max(windows[1:], key=lambda w: w.rate, default=None)
    sustained = (
        f"{best.rate:.1f} clicks/s ({best.name}, p99 {_ms(best.p(0.99))} ms)" if best is not None else "none"
    )
    lines.append(
        f"   sustained by one process (p99 <= {fleet.P99_TARGET_MS:.0f} ms): {sustained};"
        + (f" peak {peak.rate:.1f} clicks/s ({peak.name}, p99 {_ms(peak.p(0.99))} ms);" if peak else "")
        + f" {ramp['refused']} refused, {ramp['stopped_early']} players whose game ended"
    )
    shown = best or peak
    if shown is not None and shown.clicks:
        routes = ", ".join(f"{route} {n / shown.clicks:.2f}" for route, n in list(shown.by_route.items())[:5])
        lines.append(
            f"   REST requests per click in {shown.name}: {shown.rest['all'] / shown.clicks:.2f}"
            f" (interaction routes {shown.rest['interaction'] / shown.clicks:.2f},"
            f" channel routes {shown.rest['channel'] / shown.clicks:.2f}): {routes}"
        )
    return lines


def capacity(windows: list[Any]) -> Any:
    """The window of the most clicks per second whose p99 stayed within the target (None: none did)."""
    from bot.bench import fleet

    within = [w for w in windows[1:] if w.latencies and w.p(0.99) <= fleet.P99_TARGET_MS and not w.unanswered]
    return max(within, key=lambda w: w.rate, default=None)


def _counts(text: str) -> list[int]:
    counts = [int(part) for part in text.split(",") if part.strip()]
    if not counts or min(counts) < 1:
        raise ValueError(f"games: positive numbers separated by commas, not {text!r}")
    return counts


def run(
    games: Sequence[int] | None = None, clicks_per_game: int = CLICKS_PER_GAME, ramp: bool | None = None
) -> None:
    """``python -m bot bench table``: the counts of games from SKYBO_BENCH_GAMES (default GAMES), the
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
    """``python -m bot.bench.table [--games N[,N...]] [--ramp]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bot.bench.table", description=__doc__.split("\n")[0])
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
