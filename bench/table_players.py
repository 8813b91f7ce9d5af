"""The players' side of the table bench (bench/table.py), also played by the fleet bench
(bench/fleet.py): the fake Discord's child process, the simulated players and the windows of a
closed-loop ramp; and what both processes of a bench share (the load, the pipe, the loop monitor).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakecord import FakeDiscord, FakeInteraction

GAMES = 200
CLICKS_PER_GAME = 12
# Seconds a player takes before each click (uniform): reading the new panel and picking a card takes
# a human a second or more. SKYBO_BENCH_THINK="0.3,1.0" sets another range (e.g. a stress test).
THINK = tuple(float(x) for x in os.environ.get("SKYBO_BENCH_THINK", "1.0,3.0").split(","))[:2]
_DEBUG = bool(os.environ.get("SKYBO_BENCH_DEBUG"))
SETUP_DEADLINE = 60.0 * (4 if _DEBUG else 1)  # for GAMES games; scaled with the games (_scale)
PLAY_DEADLINE = 50.0
OPEN_CHUNK = 25  # tables opened at once during the setup
WARMUP = 2  # moves played in each game while it is set up (before memory is measured)
SLACK = 40.0  # past the last window of a ramp: the last clicks answered
# Interaction routes are outside Discord's global rate limit; channel routes count against it.
INTERACTION_ROUTES = ("/interactions/", "/webhooks/")
CHANNEL_ROUTES = ("/channels/",)


# ---------------------------------------------------------------------------------- both processes


def _scale(games: int) -> float:
    """How much longer than for GAMES games each phase may take (setting up 1,000 tables takes about
    five times as long as 200; an overloaded process answers every click later)."""
    return max(1.0, games / GAMES)


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


def run_child(pipe: Connection, side: Coroutine[Any, Any, None]) -> None:
    """The body of the fake's process: ``side`` (the fake and its players) on a loop of its own."""
    for name in ("discord", "bot", "tests", "aiohttp"):
        logging.getLogger(name).setLevel(logging.ERROR)
    # The fake keeps every request and message it saw: its heap only grows, and full collections of
    # it would stall its loop for hundreds of milliseconds, counted in the latency. It is the
    # harness, not the bot, and runs for minutes at most: no cyclic garbage collector in this process.
    gc.disable()
    try:
        asyncio.run(side)
    except BaseException as error:
        with contextlib.suppress(Exception):
            pipe.send(("error", repr(error)))
        raise


class _LoopMonitor:
    """An event loop's lag (how late a 5 ms sleep wakes up) and garbage collector pauses."""

    def __init__(self, worker_cpu: Callable[[], float] = lambda: 0.0) -> None:
        self.lags: list[float] = []
        self.gc_pauses: list[tuple[int, float]] = []
        self._gc_started = 0.0
        self._worker_cpu = worker_cpu  # picture workers' CPU seconds: the bot's too
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


# ---------------------------------------------------------------------------------- the fake's process


def _fake_process(pipe: Connection, games: int, clicks: int, measured: int) -> None:
    run_child(pipe, _fake_side(pipe, games, clicks, measured))


async def _fake_side(pipe: Connection, games: int, clicks: int, measured: int) -> None:
    from fakecord import FakeDiscord

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
        started, first_request = time.perf_counter(), len(fake.requests)
        players = [
            _player(fake, message, alice, clicks, random.Random(i), answer_of)
            for i, message in enumerate(tables)
        ]
        done = await asyncio.wait_for(asyncio.gather(*players), play_deadline)
        elapsed = time.perf_counter() - started
        requests = fake.requests[first_request:]
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
                    "rest": _rest_counts(requests),
                    "by_route": dict(Counter(f"{r.method} {r.route}" for r in requests).most_common()),
                },
            )
        )
        message: Any = ("stop",)
        with contextlib.suppress(TimeoutError):
            message = await _recv(pipe, 30)  # "ramp" right away, or "stop" once the bot has closed
        if message[0] == "ramp":
            pipe.send(("ramp-done", await play(fake, answers, tables, alice, message[1], pipe)))
            with contextlib.suppress(TimeoutError):
                await _recv(pipe, 30)  # "stop": the bot has closed
    finally:
        await fake.stop()


def _rest_counts(requests: Sequence[Any]) -> dict[str, int]:
    """The bot's requests to the fake by kind: all, interaction (callbacks and the interaction
    webhooks: answers and panel edits), channel (table edits, mentions and their deletes)."""
    routes = [r.route or "" for r in requests]
    return {
        "all": len(routes),
        "callback": sum(1 for r in routes if r.startswith("/interactions/")),
        "interaction": sum(1 for r in routes if r.startswith(INTERACTION_ROUTES)),
        "channel": sum(1 for r in routes if r.startswith(CHANNEL_ROUTES)),
    }


class Answers:
    """When the bot answered each interaction, as its player sees it (both instants taken in the fake's
    process, so the bot's own clock and loop play no part). Wraps the fake's send and answer routes:
    build it before ``fake.start()``, which binds the routes. Also used by bench/fleet.py."""

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
    another think range than THINK, read before every click (``play`` below changes it in place to
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


# ---------------------------------------------------------------------------------- the ramp's windows


@dataclass
class Window:
    """One window of the run: think range, what the players did, what the processes used."""

    name: str
    think: tuple[float, float]
    seconds: float
    latencies: list[float]  # ms, of the clicks sent in the window and answered
    unanswered: int
    refreshes: int
    rest: dict[str, int]  # requests by kind: all, interaction, channel
    by_route: dict[str, int]  # requests by "METHOD route", most first
    cpu: dict[str, float] = field(default_factory=dict)  # process -> share of one core

    @property
    def clicks(self) -> int:
        return len(self.latencies) + self.unanswered

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds

    def p(self, q: float) -> float:
        return _percentile(self.latencies, q) if self.latencies else float("nan")

    def rest_rate(self, kind: str) -> float:
        return self.rest[kind] / self.seconds


async def play(
    fake: Any,
    answers: Answers,
    tables: list[Any],
    user: Any,
    plan: list[tuple[str, tuple[float, float], float]],
    pipe: Connection,
) -> dict[str, Any]:
    """Every player clicks until the end of the plan's last window; at each window's start the think
    range changes (in place: the players read it before every click) and the orchestrator is told, so
    it samples the CPU times at the same instants."""
    answers.sent_at.clear()
    answers.answered_at.clear()
    think = list(plan[0][1])
    marks: list[tuple[float, int]] = []  # (start, index of the first request) of each window
    start = time.perf_counter()
    until = start + sum(seconds for _, _, seconds in plan)
    ended: list[float] = []

    async def player(index: int, message: Any) -> tuple[int, int, int]:
        try:
            return await _player(
                fake, message, user, 10**9, random.Random(index), answers.answer_of, think=think, until=until
            )
        finally:
            ended.append(time.perf_counter())

    async def conduct() -> None:
        at = start
        for _, span, seconds in plan:
            await asyncio.sleep(max(0.0, at - time.perf_counter()))
            think[:] = span
            marks.append((time.perf_counter(), len(fake.requests)))
            pipe.send(("mark", len(marks) - 1))
            at += seconds

    conductor = asyncio.create_task(conduct())
    players = [player(i, message) for i, message in enumerate(tables)]
    done = await asyncio.wait_for(asyncio.gather(*players), until - start + SLACK)
    await conductor
    # The last window ends once its last click is answered (no click is sent after ``until``).
    marks.append((time.perf_counter(), len(fake.requests)))
    pipe.send(("mark", len(marks) - 1))
    windows = []
    for k, (name, span, _) in enumerate(plan):
        (t0, r0), (t1, r1) = marks[k], marks[k + 1]
        sent = [key for key, at in answers.sent_at.items() if t0 <= at < t1]
        latencies = [
            (answers.answered_at[key] - answers.sent_at[key]) * 1000
            for key in sent
            if key in answers.answered_at
        ]
        requests = fake.requests[r0:r1]
        windows.append(
            {
                "name": name,
                "think": span,
                "seconds": t1 - t0,
                "latencies": latencies,
                "unanswered": len(sent) - len(latencies),
                "refreshes": sum(
                    1 for key in sent if ":rf:" in str(fake.interactions[key].data.get("custom_id"))
                ),
                "rest": _rest_counts(requests),
                "by_route": dict(Counter(f"{r.method} {r.route}" for r in requests).most_common()),
            }
        )
    return {
        "windows": windows,
        "refused": sum(r for _, r, _ in done),
        "stopped_early": sum(1 for t in ended if t < until - 1.0),  # its game ended (no move left)
    }
