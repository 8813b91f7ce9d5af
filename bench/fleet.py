"""A fleet under load: the same Skyjo tables served by one bot process (both shards) and by two (one
shard each), on one PostgreSQL, through the wire-level fake Discord.

Processes, as in production: PostgreSQL (started here with ``devtools.pgserver``: fsync on), the
fake Discord with the simulated players in a child process of their own (so its work is not the
bot's), and the bot processes (``python -m bench.fleet worker ...``: tests/e2e/bot_worker.py with
production timings, holding its shards with PostgreSQL advisory locks as ``python -m bot run`` does).
Each setup gets a fresh fake and a fresh database; the orchestrator (this process) only coordinates
and reads CPU times from /proc.

Load: GAMES games (one human against one computer player, as bench/table.py: production timings,
a computer move every 1.2 s, one edit per public message per second, pictures as in production;
``SKYBO_BENCH_IMAGES=0`` turns them off) in guilds of both shards (GUILDS_PER_SHARD each), all set up
first. Then every human clicks without stopping through a series of windows, each with its own think
range (the players read it before every click): a warm-up (every player opens her panel), the lighter
steps of the ramp (RAMP_BELOW, RAMP_STEP_S each), the steady window (THINK, 1-3 s, the load of
bench/table.py, STEADY_S), then the heavier steps (RAMP_ABOVE). The players are closed-loop (a
player waits for the answer before thinking again), so an overloaded fleet slows them down instead of
piling clicks up: past its capacity a window shows what the fleet still carried, and at what latency.
The players, their windows and the capacity are the table bench's (bench/table_players.py and
table_report.py); this module holds the setups, the bot processes, the CPU meter and the report.

Figures per window: clicks per second; click latency (INTERACTION_CREATE leaving the fake to the answer
arriving there, as bench/table.py measures it); REST requests per second the fleet made, split into
interaction routes (callbacks, webhook edits and follow-ups: not under Discord's global limit) and
channel routes (messages of the tables: under the per-application global limit, 50/s); CPU of each
bot process, of PostgreSQL and of the fake. Capacity: the most clicks per second of a window whose p99
stayed within P99_TARGET_MS.

Bounded: every wait has a deadline; about 2.5 minutes in all. PostgreSQL missing: one line says so and
the bench is skipped. Needs the repository's ``tests`` package (run it from the repository root:
``python -m bench fleet``). ``SKYBO_BENCH_PROFILE=FOLDER`` writes a cProfile of each bot process
(its event loop's thread) there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bench.table_players import SLACK, Answers, Window, _open_tables, _recv, play, run_child
from bench.table_report import P99_TARGET_MS, _ms, capacity

REPO = Path(__file__).resolve().parents[1]
SHARDS = 2
GAMES = 160
GUILDS_PER_SHARD = 4
THINK = (1.0, 3.0)  # the steady window: the load of bench/table.py
STEADY_S = 16.0
# Before the windows: every player opens her panel (a heavier click), not counted for the capacity.
WARMUP: tuple[tuple[float, float], float] = ((2.0, 5.0), 6.0)
# The ramp, RAMP_STEP_S per think range: lighter loads than the steady window, then heavier ones.
RAMP_BELOW: tuple[tuple[float, float], ...] = ((5.0, 7.0), (3.0, 5.0), (2.0, 3.5))
RAMP_ABOVE: tuple[tuple[float, float], ...] = ((0.5, 1.0), (0.2, 0.5), (0.05, 0.2))
RAMP_STEP_S = 6.0
IMAGES = os.environ.get("SKYBO_BENCH_IMAGES", "1") != "0"
# Each setup: its name and the SHARD_IDS of each of its processes (all of SHARD_COUNT=SHARDS).
SETUPS: tuple[tuple[str, tuple[str, ...]], ...] = (("1 process", ("0-1",)), ("2 processes", ("0", "1")))
START_DEADLINE = 60.0  # a bot process connected, the fake up
OPEN_DEADLINE = 120.0  # every table opened


@dataclass
class SetupResult:
    name: str
    processes: int
    games: int
    open_s: float
    windows: list[Window]
    refused: int  # clicks answered with a refusal (a stale panel), whole run
    stopped_early: int  # players whose game ended before the last window did
    log_errors: list[str]
    exit_codes: list[int]
    stored_actions: int  # rows of the action logs at the end (-1: a bot did not stop cleanly)

    @property
    def steady(self) -> Window:
        return next(w for w in self.windows if w.name == "steady")

    @property
    def capacity(self) -> Window | None:
        """The window of the most clicks per second whose p99 stayed within P99_TARGET_MS."""
        return capacity(self.windows)

    @property
    def peak(self) -> Window:
        """The window of the most clicks per second, whatever its latency."""
        return max(self.windows[1:], key=lambda w: w.rate)

    @property
    def unanswered(self) -> int:
        return sum(w.unanswered for w in self.windows)


# ---------------------------------------------------------------------------------- CPU from /proc


def _cpu_ticks(pid: int) -> int:
    """utime + stime of one process, in clock ticks (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def _children_of(parent: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError):
                if int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                    out.append(int(entry))
    return out


def _machine_busy() -> tuple[int, int]:
    """(busy, total) clock ticks of all cores since boot, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


class CpuMeter:
    """CPU time of named processes (PostgreSQL: the postmaster and its backends) between samples."""

    def __init__(self, pids: dict[str, int], postmaster: int | None) -> None:
        self.pids = pids
        self.postmaster = postmaster
        self.last = self._sample()

    def _sample(self) -> tuple[float, dict[str, int], tuple[int, int]]:
        ticks = {name: _cpu_ticks(pid) for name, pid in self.pids.items()}
        if self.postmaster is not None:
            # backends come and go; those that ended between samples are not counted (the pools
            # keep theirs for the whole run)
            ticks["postgresql"] = sum(
                _cpu_ticks(p) for p in [self.postmaster, *_children_of(self.postmaster)]
            )
        return time.perf_counter(), ticks, _machine_busy()

    def take(self) -> dict[str, float]:
        """Share of one core each process used since the last call; "machine": of all cores."""
        (t0, before, busy0), (t1, after, busy1) = self.last, self._sample()
        self.last = (t1, after, busy1)
        hz = os.sysconf("SC_CLK_TCK")
        out = {name: max(0, after[name] - before.get(name, 0)) / hz / (t1 - t0) for name in after}
        out["machine"] = (busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1])
        return out


# ---------------------------------------------------------------------------------- the fake's process


def _fake_process(pipe: Connection, games: int, guilds_per_shard: int) -> None:
    run_child(pipe, _fake_side(pipe, games, guilds_per_shard))


async def _fake_side(pipe: Connection, games: int, guilds_per_shard: int) -> None:
    from fakecord import FakeDiscord

    fake = FakeDiscord(recommended_shards=SHARDS)
    alice = fake.user("alice")
    guilds = [
        await fake.add_guild(f"guild-{shard}-{k}", shard=(shard, SHARDS), members=[alice])
        for k in range(guilds_per_shard)
        for shard in range(SHARDS)
    ]
    channels = [fake.add_channel(f"table-{i}", guild=guilds[i % len(guilds)]) for i in range(games)]
    answers = Answers(fake)
    await fake.start()
    try:
        pipe.send(("fake", fake.api_base, fake.gateway_url))
        message = await _recv(pipe, START_DEADLINE * 2)
        assert message[0] == "ready", message
        started = time.perf_counter()
        tables = await asyncio.wait_for(_open_tables(fake, channels, alice, answers.answer_of), OPEN_DEADLINE)
        pipe.send(("opened", len(tables), time.perf_counter() - started))
        message = await _recv(pipe, 30)
        assert message[0] == "play", message
        _, plan = message
        pipe.send(("results", await play(fake, answers, tables, alice, plan, pipe)))
        with contextlib.suppress(TimeoutError):
            await _recv(pipe, 60)  # "stop": the bots have closed
    finally:
        await fake.stop()


# ---------------------------------------------------------------------------------- a bot process


def worker(argv: list[str]) -> int:
    """One bot process of the fleet: tests/e2e/bot_worker.py (hold the shards, READY, stop when stdin
    closes) with production timings instead of the tests' fast ones."""
    sys.path.insert(0, str(REPO))
    from bot.client import BotTuning
    from tests.e2e import bot_worker

    bot_worker.TUNING = BotTuning(images=IMAGES)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s %(message)s")
    options = bot_worker.parser().parse_args(argv)
    folder = os.environ.get("SKYBO_BENCH_PROFILE")
    if not folder:
        return asyncio.run(bot_worker.main(options))
    import cProfile

    with cProfile.Profile() as profile:
        code = asyncio.run(bot_worker.main(options))
    profile.dump_stats(Path(folder) / f"bot-{options.shard_ids}.prof")
    return code


class BotProcess:
    """A bot process of the setup (``worker`` in a subprocess); its log goes to a file, read at the end
    for errors, so a busy pipe never blocks it."""

    def __init__(self, api_base: str, gateway_url: str, dsn: str, shard_ids: str, sync: bool, log: Path):
        self.log = log
        args = [sys.executable, "-m", "bench.fleet", "worker", api_base, gateway_url, dsn]
        args += ["--no-limits", "--shard-count", str(SHARDS), "--shard-ids", shard_ids]
        if sync:
            args.append("--sync")
        env = dict(os.environ)
        env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
        env["SKYBO_BENCH_IMAGES"] = "1" if IMAGES else "0"
        env.pop("DATABASE_PATH", None)
        env.pop("DATABASE_URL", None)
        with open(log, "wb") as err:
            self.proc = subprocess.Popen(
                args, cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err
            )

    async def ready(self) -> None:
        """Waits for READY (or raises with why it did not come)."""
        assert self.proc.stdout is not None
        loop = asyncio.get_running_loop()
        line = await asyncio.wait_for(loop.run_in_executor(None, self.proc.stdout.readline), START_DEADLINE)
        if line.strip() != b"READY":
            tail = self.log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"a bot process did not start ({line!r}):\n{tail}")

    def stop(self) -> int:
        """Closes its stdin (a clean stop: it closes the bot, releases its shards) and waits."""
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(10)

    def errors(self) -> list[str]:
        text = self.log.read_text(errors="replace")
        return [
            line
            for line in text.splitlines()
            if line.startswith(("ERROR", "CRITICAL")) or "Traceback" in line
        ]


# ---------------------------------------------------------------------------------- the orchestrator


def plan() -> list[tuple[str, tuple[float, float], float]]:
    """The windows of a setup's run, in order: (name, think range, seconds)."""
    ramp = [*RAMP_BELOW, THINK, *RAMP_ABOVE]
    names = [f"ramp {i + 1}" for i in range(len(ramp) - 1)]
    names.insert(len(RAMP_BELOW), "steady")
    seconds = [STEADY_S if name == "steady" else RAMP_STEP_S for name in names]
    return [("warm-up", *WARMUP), *zip(names, ramp, seconds, strict=True)]


async def run_setup(
    server: Any, name: str, shard_ids: tuple[str, ...], games: int, index: int
) -> SetupResult:
    """One setup from scratch: a fresh database and fake, its bot processes, the tables, the windows."""
    from bot.storage import Storage

    database = f"fleet_bench_{index}"
    server.create_database(database)
    dsn = server.dsn(database)
    context = multiprocessing.get_context("spawn")
    pipe, child_pipe = context.Pipe()
    child = context.Process(target=_fake_process, args=(child_pipe, games, GUILDS_PER_SHARD), daemon=True)
    child.start()
    bots: list[BotProcess] = []
    logs = tempfile.TemporaryDirectory(prefix="skybo-fleet-bench-")
    try:
        message = await _recv(pipe, START_DEADLINE)
        assert message[0] == "fake", message
        _, api_base, gateway_url = message
        await (await Storage.open(url=dsn)).close()  # migrated once, before the bots start together
        for k, ids in enumerate(shard_ids):
            bots.append(BotProcess(api_base, gateway_url, dsn, ids, k == 0, Path(logs.name) / f"bot-{k}.log"))
        await asyncio.gather(*(bot.ready() for bot in bots))
        pipe.send(("ready",))
        message = await _recv(pipe, OPEN_DEADLINE + 5)
        assert message[0] == "opened", message
        _, opened, open_s = message
        await asyncio.sleep(1.0)  # the last computer moves of the setup
        names = {f"bot {ids}": bot.proc.pid for ids, bot in zip(shard_ids, bots, strict=True)}
        names["fake+players"] = child.pid or 0
        meter = CpuMeter(names, server.postmaster_pid)
        steps = plan()
        pipe.send(("play", steps))
        cpus: list[dict[str, float]] = []
        deadline = sum(s for _, _, s in steps) + SLACK + 10
        while True:
            message = await _recv(pipe, deadline)
            if message[0] == "mark":
                if message[1] > 0:
                    cpus.append(meter.take())
                else:
                    meter.take()
                continue
            assert message[0] == "results", message
            break
        results = message[1]
    finally:
        codes = [bot.stop() for bot in bots]
        stored = await _stored_actions(dsn) if codes and all(c == 0 for c in codes) else -1
        errors = [line for bot in bots for line in bot.errors()]
        with contextlib.suppress(Exception):
            pipe.send(("stop",))
        child.join(15)
        if child.is_alive():
            child.kill()
        logs.cleanup()
        with contextlib.suppress(Exception):
            server.drop_database(database)
    windows = [Window(**w, cpu=cpu) for w, cpu in zip(results["windows"], cpus, strict=True)]
    return SetupResult(
        name=name,
        processes=len(shard_ids),
        games=opened,
        open_s=open_s,
        windows=windows,
        refused=results["refused"],
        stopped_early=results["stopped_early"],
        log_errors=errors,
        exit_codes=codes,
        stored_actions=stored,
    )


async def _stored_actions(dsn: str) -> int:
    """Moves in the action logs of the setup's database, once its bots have stopped: what the clicks
    (and the computer players) applied and committed."""
    from bot.storage import Storage

    storage = await Storage.open(url=dsn)
    try:
        return await storage.games.action_count()
    finally:
        await storage.close()


async def measure(server: Any, games: int = GAMES) -> list[SetupResult]:
    """Both setups, one after the other, on ``server`` (a devtools.pgserver.PostgresServer)."""
    out = []
    for index, (name, shard_ids) in enumerate(SETUPS):
        out.append(await run_setup(server, name, shard_ids, games, index))
    return out


def _bots_cpu(window: Window) -> float:
    return sum(share for name, share in window.cpu.items() if name.startswith("bot "))


def _others(window: Window, cores: int) -> float:
    """CPU the machine spent outside the bench's processes (other work on a shared machine)."""
    ours = _bots_cpu(window) + window.cpu["postgresql"] + window.cpu["fake+players"]
    return max(0.0, window.cpu["machine"] * cores - ours)


def report(results: list[SetupResult]) -> list[str]:
    """The figures, setups side by side."""
    width = 36
    cores = os.cpu_count() or 1
    lines = []

    def row(label: str, cells: list[str]) -> None:
        lines.append(f"   {label:<28}" + "".join(f"{c:>{width}}" for c in cells))

    first = results[0]
    lines.append(
        f"   load: {first.games} concurrent Skyjo games (1 human + 1 computer each;"
        f" a computer move every 1.2 s, one edit per public message per second,"
        f" pictures {'on' if IMAGES else 'off'}) in"
        f" {GUILDS_PER_SHARD * SHARDS} guilds over {SHARDS} shards; PostgreSQL (fsync on) on this machine,"
        f" {cores} cores. Latency: INTERACTION_CREATE sent -> answer received, in the fake's process."
        " CPU: % of one core; 'others': processes outside the bench"
    )
    row("", [r.name for r in results])
    row("tables opened in", [f"{r.open_s:.1f} s" for r in results])
    for k, window in enumerate(first.windows):
        lines.append(
            f"   -- {window.name}: think {window.think[0]}-{window.think[1]} s, {window.seconds:.1f} s"
        )
        ws = [r.windows[k] for r in results]
        row("clicks/s", [f"{w.rate:.1f} ({w.clicks} clicks, {w.refreshes} Refresh)" for w in ws])
        row(
            "latency p50/p95/p99/max",
            [
                f"{_ms(w.p(0.5))}/{_ms(w.p(0.95))}/{_ms(w.p(0.99))}/{_ms(max(w.latencies, default=0))} ms"
                for w in ws
            ],
        )
        row(
            "REST/s all (interaction|chan)",
            [
                f"{w.rest_rate('all'):.0f} ({w.rest_rate('interaction'):.0f} | {w.rest_rate('channel'):.0f})"
                for w in ws
            ],
        )
        row(
            "CPU bot process(es)",
            [" + ".join(f"{v:.0%}" for n, v in w.cpu.items() if n.startswith("bot ")) for w in ws],
        )
        row(
            "CPU postgres/fake/others",
            [
                f"{w.cpu['postgresql']:.0%} / {w.cpu['fake+players']:.0%} / {_others(w, cores):.0%}"
                f" (machine {w.cpu['machine']:.0%} busy)"
                for w in ws
            ],
        )
        row("unanswered", [str(w.unanswered) for w in ws])
    lines.append("   -- whole run")
    best = [r.capacity for r in results]
    row(
        f"capacity (p99 <= {P99_TARGET_MS:.0f} ms)",
        [f"{b.rate:.1f} clicks/s ({b.name}, p99 {_ms(b.p(0.99))} ms)" if b else "none" for b in best],
    )
    row(
        "peak (any latency)",
        [f"{r.peak.rate:.1f} clicks/s ({r.peak.name}, p99 {_ms(r.peak.p(0.99))} ms)" for r in results],
    )
    row("unanswered", [str(r.unanswered) for r in results])
    row("refused (stale panel)", [str(r.refused) for r in results])
    row("players whose game ended", [str(r.stopped_early) for r in results])
    row("actions stored (all games)", [str(r.stored_actions) for r in results])
    row("errors in bot logs", [str(len(r.log_errors)) for r in results])
    for result in results:
        steady = result.steady
        top = ", ".join(
            f"{route} {n / steady.seconds:.0f}/s" for route, n in list(steady.by_route.items())[:4]
        )
        lines.append(f"   {result.name}, steady window, REST by route: {top}")
    if len(results) == 2:
        one, two = results
        lines.append(
            f"   {two.name} / {one.name}: steady clicks/s x{two.steady.rate / one.steady.rate:.2f}"
            f" (p99 {_ms(one.steady.p(0.99))} -> {_ms(two.steady.p(0.99))} ms),"
            f" peak clicks/s x{two.peak.rate / one.peak.rate:.2f}"
        )
    return lines


def run() -> None:
    from devtools.pgserver import PostgresServer, PostgresUnavailable

    for name in ("discord", "bot", "aiohttp"):
        logging.getLogger(name).setLevel(logging.ERROR)
    try:
        server = PostgresServer.start(tcp=False)
    except PostgresUnavailable as exc:
        print(f"   skipped: no local PostgreSQL could start ({exc})")
        return
    try:
        results = asyncio.run(measure(server))
    finally:
        server.stop()
    for line in report(results):
        print(line)
    for result in results:
        for line in result.log_errors[:5]:
            print(f"   {result.name} logged: {line}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["worker"]:
        sys.exit(worker(sys.argv[2:]))
    run()
