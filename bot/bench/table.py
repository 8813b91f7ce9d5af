"""Skyjo tables under load: 200 concurrent games through the wire-level fake Discord.

Two processes, like production: the bot (this process) talks over HTTP and the gateway websocket to the
fake Discord of ``tests/e2e/fake_discord.py``, which runs in a child process together with the
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

Bounded: every phase has a deadline; it stops by itself in well under 2 minutes. Needs the
repository's ``tests`` package (run it from the repository root: ``python -m bot bench table``).
``SKYBO_BENCH_THINK=lo,hi`` changes the think time; ``SKYBO_BENCH_DEBUG=1`` also prints the lines of code
that hold the measured memory and what the garbage collector tracks; ``SKYBO_BENCH_PROFILE=FILE``
writes a cProfile of the bot's process during the clicks; ``SKYBO_BENCH_TRACE=FILE`` writes each
click's send time and latency.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import multiprocessing
import os
import random
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.sandbox.fake_discord import FakeDiscord, FakeInteraction

GAMES = 200
CLICKS_PER_GAME = 12
MEASURED = 20  # the last tables opened: memory per game is what they add
# Seconds a player takes before each click (uniform): reading the new panel and picking a card takes
# a human a second or more. SKYBO_BENCH_THINK="0.3,1.0" sets another range (e.g. a stress test).
THINK = tuple(float(x) for x in os.environ.get("SKYBO_BENCH_THINK", "1.0,3.0").split(","))[:2]
_DEBUG = bool(os.environ.get("SKYBO_BENCH_DEBUG"))
SETUP_DEADLINE = 60.0 * (4 if _DEBUG else 1)
PLAY_DEADLINE = 50.0
OPEN_CHUNK = 25  # tables opened at once during the setup
WARMUP = 2  # moves played in each game while it is set up (before memory is measured)


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
    from bot.sandbox.fake_discord import FakeDiscord

    fake = FakeDiscord()
    channels = [fake.add_channel(f"table-{i}") for i in range(games)]
    alice = fake.user("alice")
    answers = Answers(fake)
    sent_at, answered_at, answer_of = answers.sent_at, answers.answered_at, answers.answer_of
    await fake.start()
    try:
        pipe.send(("fake", fake.api_base, fake.gateway_url, fake.token))
        assert (await _recv(pipe, SETUP_DEADLINE))[0] == "ready"
        first, last = channels[: games - measured], channels[games - measured :]
        tables = await asyncio.wait_for(_open_tables(fake, first, alice, answer_of), SETUP_DEADLINE)
        pipe.send(("opened", len(tables)))
        assert (await _recv(pipe, SETUP_DEADLINE))[0] == "more"
        tables += await asyncio.wait_for(_open_tables(fake, last, alice, answer_of), SETUP_DEADLINE)
        pipe.send(("opened", len(tables)))
        assert (await _recv(pipe, SETUP_DEADLINE))[0] == "play"
        sent_at.clear()
        answered_at.clear()
        monitor = _LoopMonitor()
        started = time.perf_counter()
        players = [
            _player(fake, message, alice, clicks, random.Random(i), answer_of)
            for i, message in enumerate(tables)
        ]
        done = await asyncio.wait_for(asyncio.gather(*players), PLAY_DEADLINE)
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
                    "fake_loop": monitor.stop(),
                },
            )
        )
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
        await asyncio.sleep(0.2)
    return int(statistics.median(values))


async def _bench(games: int, clicks: int) -> dict[str, Any]:
    import discord
    import yarl

    from bot.client import BotTuning, create_bot
    from bot.config import Limits

    measured = min(MEASURED, games)
    context = multiprocessing.get_context("spawn")
    pipe, child_pipe = context.Pipe()
    child = context.Process(target=_fake_process, args=(child_pipe, games, clicks, measured), daemon=True)
    child.start()
    results: dict[str, Any] = {}
    tmp = tempfile.TemporaryDirectory(prefix="skybo-bench-")
    try:
        kind, api_base, gateway_url, token = await _recv(pipe, SETUP_DEADLINE)
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
            deadline = time.monotonic() + SETUP_DEADLINE
            while not bot.is_ready():
                if task.done() or time.monotonic() > deadline:
                    raise RuntimeError(f"the bot did not connect: {task.exception() if task.done() else ''}")
                await asyncio.sleep(0.01)
            await bot.tree.sync()
            gc.collect()
            tracemalloc.start(12 if _DEBUG else 1)
            start_memory = await _measure()
            pipe.send(("ready",))
            message = await _recv(pipe, SETUP_DEADLINE * 2)
            assert message[0] == "opened", message
            await asyncio.sleep(1.0)
            before = await _measure()
            snapshot = tracemalloc.take_snapshot() if _DEBUG else None
            pipe.send(("more",))
            message = await _recv(pipe, SETUP_DEADLINE)
            assert message[0] == "opened", message
            await asyncio.sleep(1.0)
            after = await _measure()
            if snapshot is not None:
                _print_top(tracemalloc.take_snapshot().compare_to(snapshot, "traceback"), measured)
            tracemalloc.stop()
            active = sum(1 for t in bot.service.tables.values() if not t.finished)
            results["active_games"] = active
            results["memory_per_game"] = (after - before) / measured
            results["memory_all"] = (after - start_memory) / games
            profile = None
            if os.environ.get("SKYBO_BENCH_PROFILE"):
                import cProfile

                profile = cProfile.Profile()
                profile.enable()
            if _DEBUG:
                print(f"      objects tracked by the GC: {[len(gc.get_objects(g)) for g in range(3)]}")
                by_type: dict[str, int] = {}
                for obj in gc.get_objects():
                    by_type[type(obj).__name__] = by_type.get(type(obj).__name__, 0) + 1
                print("      ", sorted(by_type.items(), key=lambda kv: -kv[1])[:15])
            monitor = _LoopMonitor()
            pipe.send(("play",))
            message = await _recv(pipe, PLAY_DEADLINE + 5)
            results["loop"] = monitor.stop()
            if profile is not None:
                profile.disable()
                profile.dump_stats(os.environ["SKYBO_BENCH_PROFILE"])
            assert message[0] == "done", message
            results.update(message[1])
            results["db"] = bot.service.storage.db.stats
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


class _LoopMonitor:
    """The bot's event loop lag (how late a 5 ms sleep wakes up) and garbage collector pauses."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self.gc_pauses: list[tuple[int, float]] = []
        self._gc_started = 0.0
        self._cpu = time.process_time()
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
        return {
            "cpu": (time.process_time() - self._cpu) / (time.perf_counter() - self._wall),
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


def run(games: int = GAMES, clicks_per_game: int = CLICKS_PER_GAME) -> None:
    for name in ("discord", "bot", "aiohttp"):
        logging.getLogger(name).setLevel(logging.ERROR)
    results = asyncio.run(_bench(games, clicks_per_game))
    latencies = results.get("latencies") or []
    if not latencies:
        print("   no click was answered")
        return
    db = results["db"]
    print(
        f"   load: {results['active_games']} concurrent games (1 human + 1 computer each, computer moves"
        f" every 1.2 s); the human thinks {THINK[0]}-{THINK[1]} s (uniform) before each click,"
        f" {CLICKS_PER_GAME} clicks per game, all games at once"
    )
    print(
        f"   {len(latencies)} clicks measured in {results['elapsed']:.1f} s"
        f" ({len(latencies) / results['elapsed']:.0f}/s; {results['unanswered']} unanswered,"
        f" {results['refused']} answered with a refusal; {results['refreshes']} on Refresh, the rest moves"
        " or the panel opened)"
    )
    print(
        f"   click latency (INTERACTION_CREATE sent -> callback received, synchronous=FULL):"
        f" p50 {statistics.median(latencies):.1f} ms, p95 {_percentile(latencies, 0.95):.1f} ms,"
        f" p99 {_percentile(latencies, 0.99):.1f} ms, max {max(latencies):.1f} ms   (target p99 < 50 ms)"
    )
    loop = results["loop"]
    print(
        f"   bot process: {loop['cpu']:.0%} of a core; event loop lag: p50 {loop['lag_p50']:.1f} ms,"
        f" p99 {loop['lag_p99']:.1f} ms,"
        f" max {loop['lag_max']:.1f} ms; {loop['gc_count']} GC runs ({loop['gc_total']:.0f} ms in all,"
        f" longest {loop['gc_max']:.1f} ms),"
        f" {loop['gc_full']} full (longest {loop['gc_full_max']:.1f} ms)"
    )
    fake = results["fake_loop"]
    print(
        f"   fake Discord + players process: {fake['cpu']:.0%} of a core; its event loop lag (counted in"
        f" the latency): p50 {fake['lag_p50']:.1f} ms,"
        f" p99 {fake['lag_p99']:.1f} ms, max {fake['lag_max']:.1f} ms (its garbage collector is off)"
    )
    print(
        f"   storage: {db.writes} writes in {db.transactions} transactions"
        f" ({db.writes / max(1, db.transactions):.1f} per commit on average, at most {db.largest})"
    )
    print(
        f"   bot memory per active game: {results['memory_per_game'] / 1024:.1f} KB   (target < 50 KB)"
        f"   [tracemalloc in the bot's process, fake Discord in another process: the last {MEASURED}"
        f" tables opened while {results['active_games'] - MEASURED} others are active;"
        f" over all {results['active_games']}: {results['memory_all'] / 1024:.1f} KB per game]"
    )


if __name__ == "__main__":
    run()
