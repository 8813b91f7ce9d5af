"""SQLite and PostgreSQL side by side, through the real backends: durable actions per second and the
apply-and-commit latency at 1, 50 and 200 concurrent Skyjo games.

Run: ``python -m bench backends`` (``make bench`` runs it with the others). Prints figures; asserts
nothing.

- **Backends**: ``Storage`` on ``SqliteDatabase`` (WAL, ``synchronous=FULL``, group commit) and on
  ``PostgresDatabase`` (psycopg 3, group commit) on a PostgreSQL server this bench starts itself
  (``devtools.pgserver``: initdb into a temporary folder, a unix socket, ``fsync`` and
  ``synchronous_commit`` on, run as ``postgres`` when we are root), stopped and removed at the end.
  When no server can start, one line says why and the SQLite figures are printed alone.
- **Work**: real Skyjo games (three seats: two people and a computer, rated), each action a random
  legal one, committed through ``GameLedger.apply_action`` (bot.service.ledger), what a click does: the
  engine applies it, the snapshot is serialised and hashed, the action and snapshot are committed (the
  action that ends a game also writes its results and ratings in the same transaction; a new game then
  starts in that channel, outside the figures). Every acknowledged action is durable.
- **Latency**: from calling ``apply_action`` until it returned, so it includes the engine's apply and
  the snapshot's serialisation (about 50 us, printed) and the wait in the group-commit queue. Picking
  the random action (``legal_actions``) happens before and is not counted.
- **Load**: ``games`` asyncio tasks on one event loop, each applying its next action as soon as the
  last one returned (a closed loop: the most the path can carry; its latency is games / throughput
  whatever the backend, by Little's law); then ``PACED_GAMES`` games at one action every ``PACE_S``
  seconds each (an offered load below saturation: the latency a player sees on a busy bot).
  Actions whose commit returned within a ``WINDOW_S`` window after ``WARMUP_S`` of warm-up are counted.
- **CPU per action** in the window: this process (the bot's side: engine, storage, driver), and for
  PostgreSQL the server's processes, read from ``/proc``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.games.skyjo import engine as skyjo
from bot.service.ledger import GameLedger
from bot.storage import Seat, Storage, StoredGame
from bot.storage.games import canonical_json, snapshot_hash
from devtools.pgserver import server_cpu

GAMES = (1, 50, 200)
PACED_GAMES = 200
PACE_S = 0.5  # a paced game offers one action every PACE_S seconds: 400 actions/s for 200 games
WARMUP_S = 0.6  # connections, prepared statements and caches settle before the window opens
WINDOW_S = 3.0

# Opens a Storage on a fresh, empty database of one backend, and removes that database at the end.
Opener = Callable[[], contextlib.AbstractAsyncContextManager[Storage]]


@dataclass
class Figures:
    games: int
    paced: bool
    actions: int = 0  # committed in the window
    applied: int = 0  # committed in all (warm-up and the last ones after the window included)
    rate: float = 0.0  # actions per second in the window
    p50_ms: float = float("nan")
    p99_ms: float = float("nan")
    max_ms: float = float("nan")
    per_commit: float = 0.0  # actions per transaction (group commit)
    client_us: float = 0.0  # CPU of this process per action
    server_us: float = 0.0  # CPU of the PostgreSQL server per action
    failures: int = 0
    error: str = ""


def _percentile(ordered: Sequence[float], q: float) -> float:
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _seats(game: int) -> list[Seat]:
    """Two people (their own per game, as on a real bot) and a computer (one rating key for all)."""
    return [
        Seat(0, "Ann", user_id=2 * game + 1),
        Seat(1, "Computer", ai_level="hard"),
        Seat(2, "Cid", user_id=2 * game + 2),
    ]


async def _new_game(storage: Storage, game: int, round_: int) -> StoredGame:
    return await GameLedger(storage).create_game(
        guild_id=1, channel_id=game + 1, kind="skyjo", seats=_seats(game), seed=game * 1000 + round_
    )


async def measure(
    storage: Storage,
    games: int,
    *,
    pace_s: float = 0.0,
    postmaster: int | None = None,
    warmup_s: float | None = None,
    window_s: float | None = None,
) -> Figures:
    """``games`` tables playing at once on ``storage`` (a fresh database) until the window closes."""
    warmup = WARMUP_S if warmup_s is None else warmup_s
    window = WINDOW_S if window_s is None else window_s
    tables = [await _new_game(storage, g, 0) for g in range(games)]
    figures = Figures(games, paced=pace_s > 0)
    loop = asyncio.get_running_loop()
    started = loop.time()
    window_open, window_close = started + warmup, started + warmup + window
    done: list[tuple[float, float]] = []  # (when the commit returned, latency)
    failures: list[BaseException] = []
    cpu: dict[str, float] = {}
    commits: dict[str, tuple[int, int]] = {}

    async def play(index: int, stored: StoredGame) -> None:
        rng = random.Random(index)
        rounds = 0
        # Paced games start spread over one period, like tables opened at different moments.
        next_at = started + pace_s * index / games
        while loop.time() < window_close:
            if pace_s:
                await asyncio.sleep(max(0.0, next_at - loop.time()))
                next_at += pace_s
            game = stored.state
            seat = rng.choice(game.seats_to_act())
            action = rng.choice(game.legal_actions(seat))
            begun = time.perf_counter()
            try:
                await GameLedger(storage).apply_action(stored, seat, action)
            except Exception as error:
                failures.append(error)
                return
            done.append((loop.time(), time.perf_counter() - begun))
            if stored.finished is not None:
                rounds += 1
                stored = await _new_game(storage, index, rounds)

    async def sample() -> None:
        await asyncio.sleep(max(0.0, window_open - loop.time()))
        cpu["client"], cpu["server"] = time.process_time(), server_cpu(postmaster)
        stats = storage.db.stats
        commits["open"] = (stats.writes, stats.transactions)
        await asyncio.sleep(max(0.0, window_close - loop.time()))
        cpu["client"] = time.process_time() - cpu["client"]
        cpu["server"] = server_cpu(postmaster) - cpu["server"]
        commits["close"] = (stats.writes, stats.transactions)

    await asyncio.gather(sample(), *(play(i, stored) for i, stored in enumerate(tables)))
    in_window = sorted(lat for at, lat in done if window_open <= at < window_close)
    count = max(1, len(in_window))
    figures.actions = len(in_window)
    figures.applied = len(done)
    figures.rate = len(in_window) / window
    figures.p50_ms = _percentile(in_window, 0.50) * 1000
    figures.p99_ms = _percentile(in_window, 0.99) * 1000
    figures.max_ms = (in_window[-1] if in_window else float("nan")) * 1000
    (w0, t0), (w1, t1) = commits["open"], commits["close"]
    figures.per_commit = (w1 - w0) / max(1, t1 - t0)
    figures.client_us = cpu["client"] / count * 1e6
    figures.server_us = cpu["server"] / count * 1e6
    figures.failures = len(failures)
    if failures:
        figures.error = repr(failures[0])[:160]
    return figures


def engine_us(actions: int = 2000) -> float:
    """Microseconds per action of what the latency counts besides storage: the engine's apply, the
    snapshot's and action's canonical JSON and the snapshot's hash (one thread, nothing else running)."""
    rng = random.Random(7)
    game = skyjo.State.new([s.engine_name for s in _seats(0)], 1, skyjo.Options())
    spent = 0.0
    for n in range(actions):
        if game.is_over:
            game = skyjo.State.new([s.engine_name for s in _seats(0)], n, skyjo.Options())
        seat = rng.choice(game.seats_to_act())
        action = rng.choice(game.legal_actions(seat))
        begun = time.perf_counter()
        game.apply(seat, action)
        snapshot = canonical_json(game.to_dict())
        snapshot_hash(snapshot)
        canonical_json(action.to_dict())
        spent += time.perf_counter() - begun
    return spent / actions * 1e6


# ------------------------------------------------------------------------------------------ backends


@contextlib.contextmanager
def sqlite_backend(folder: Path) -> Iterator[Opener]:
    """Fresh SQLite files in ``folder``, as the bot opens them (WAL, ``synchronous=FULL``), each removed
    once its cell is measured."""
    count = 0

    @contextlib.asynccontextmanager
    async def open_storage() -> AsyncIterator[Storage]:
        nonlocal count
        count += 1
        path = folder / f"bench{count}.sqlite3"
        try:
            async with await Storage.open(path, synchronous="FULL") as storage:
                yield storage
        finally:
            for file in folder.glob(f"{path.name}*"):
                file.unlink()

    yield open_storage


@dataclass
class LocalPostgres:
    """A server started for the bench: fresh databases on it, and its postmaster's pid (for its CPU)."""

    open_storage: Opener
    postmaster: int | None
    description: str


@contextlib.contextmanager
def local_postgres() -> Iterator[LocalPostgres]:
    """A throwaway PostgreSQL (``devtools.pgserver``), unix socket only, stopped and removed on exit.
    Raises ``devtools.pgserver.PostgresUnavailable`` when it cannot start."""
    from devtools import pgserver

    server = pgserver.PostgresServer.start(tcp=False)
    try:
        count = 0

        @contextlib.asynccontextmanager
        async def open_storage() -> AsyncIterator[Storage]:
            # Each cell on a fresh database, dropped after it: the autovacuum of an earlier cell's
            # tables must not run (on the same two cores) while a later cell is measured.
            nonlocal count
            count += 1
            name = f"bench{count}"
            url = server.create_database(name)
            try:
                async with await Storage.open(url=url) as storage:
                    yield storage
            finally:
                server.drop_database(name)

        yield LocalPostgres(
            open_storage, server.postmaster_pid, f"started in {server.timings['total']:.1f} s"
        )
    finally:
        server.stop()


async def run_cell(
    open_storage: Opener, games: int, *, pace_s: float = 0.0, postmaster: int | None = None, **kw: Any
) -> Figures:
    async with open_storage() as storage:
        return await measure(storage, games, pace_s=pace_s, postmaster=postmaster, **kw)


# ------------------------------------------------------------------------------------------ output


def _cell(f: Figures | None) -> str:
    if f is None:
        return f"{'-':>9} {'-':>7} {'-':>7} {'-':>7} {'-':>6}"
    if f.failures and not f.actions:
        return f"failed: {f.error}"[:42]
    return f"{f.rate:>9,.0f} {f.p50_ms:>7.1f} {f.p99_ms:>7.1f} {f.max_ms:>7.1f} {f.per_commit:>6.1f}"


def _load(f: Figures) -> str:
    return f"paced {f.games / PACE_S:.0f}/s" if f.paced else "closed loop"


def print_table(rows: Sequence[tuple[Figures, Figures | None]]) -> None:
    head = f"{'act/s':>9} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'/txn':>6}"
    print(f"   {'':>5} {'':<13} | {'SQLite (synchronous=FULL)':<42} | {'PostgreSQL':<42} | PG/SQLite")
    print(f"   {'games':>5} {'load':<13} | {head} | {head} |")
    for lite, pg in rows:
        ratio = f"{pg.rate / lite.rate:>8.0%}" if pg is not None and lite.rate and pg.actions else ""
        print(f"   {lite.games:>5} {_load(lite):<13} | {_cell(lite):<42} | {_cell(pg):<42} | {ratio}")
    print("   CPU per action in the window, us (this process + the PostgreSQL server):")
    for lite, pg in rows:
        pg_cpu = f"{pg.client_us:,.0f} + {pg.server_us:,.0f}" if pg is not None else "-"
        print(f"   {lite.games:>5} {_load(lite):<13} | SQLite {lite.client_us:,.0f} | PostgreSQL {pg_cpu}")
    for lite, pg in rows:
        for name, f in (("SQLite", lite), ("PostgreSQL", pg)):
            if f is not None and f.failures:
                print(f"   {name}, {f.games} games, {_load(f)}: {f.failures} failed writes, first: {f.error}")


def run() -> None:
    with (
        tempfile.TemporaryDirectory(prefix="skybo-bench-", dir="/tmp") as tmp,
        contextlib.ExitStack() as stack,
    ):
        lite = stack.enter_context(sqlite_backend(Path(tmp)))
        pg: LocalPostgres | None = None
        from devtools.pgserver import PostgresUnavailable

        try:
            pg = stack.enter_context(local_postgres())
        except PostgresUnavailable as error:
            print(f"   PostgreSQL not measured (no local server could start): {error}".splitlines()[0])
        print(
            f"   {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; the engine's apply and the"
            f" snapshot's JSON and hash: {engine_us():.0f} us per action (in the latency)"
        )
        rows = asyncio.run(_all(lite, pg))
        print_table(rows)


async def _all(lite: Opener, pg: LocalPostgres | None) -> list[tuple[Figures, Figures | None]]:
    if pg is not None:
        from bench.pg_settings import server_settings

        async with pg.open_storage() as storage:
            settings = await server_settings(storage.db)
        version = settings.pop("server_version")
        print(
            f"   PostgreSQL {version} ({pg.description}, a local server on the same cores):"
            + ", ".join(f" {k}={v}" for k, v in settings.items())
        )
    rows: list[tuple[Figures, Figures | None]] = []
    cells = [(n, 0.0) for n in GAMES] + [(PACED_GAMES, PACE_S)]
    for games, pace in cells:  # the two backends one after the other for each row: drift hits both
        a = await run_cell(lite, games, pace_s=pace)
        b = await run_cell(pg.open_storage, games, pace_s=pace, postmaster=pg.postmaster) if pg else None
        rows.append((a, b))
    return rows
