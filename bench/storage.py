"""Storage benchmark: durable commits per second (the bot's SQLite backend vs the plain-driver ceiling,
one write at a time, then many games writing at once through group commit), loading 10,000 active
games at start, resuming 1,000 and 10,000 games whose timers are not stored yet (the service's start),
and the leaderboard over 100,000 rated players. Temp files in /tmp.

Run: ``python -m bench storage``. Prints figures with their targets; asserts nothing.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.sqlite_direct import raw_append_rate, write_active_games, write_ratings
from bot.games.skyjo import engine as skyjo
from bot.service import TableService
from bot.service.ledger import GameLedger
from bot.storage import Seat, Storage
from bot.storage.games import canonical_json, now_ms
from bot.storage.ratings import conservative

COMMITS = 1500  # per round, per path
ROUNDS = 2
LOAD_GAMES = 10_000
LOAD_ACTIONS = 30  # each loaded game is 30 actions into play
RESUME_GAMES = (1_000, 10_000)
BOARD_PLAYERS = 100_000


def _stream(games: int, length: int, seed: int) -> list[list[tuple[int, dict[str, Any], dict[str, Any]]]]:
    """Per game, ``length`` real (seat, action, snapshot after it): engine time stays out of the timing."""
    rng = random.Random(seed)
    out = []
    for g in range(games):
        game = skyjo.State.new(["u1", "ai1:hard", "u3"], 1000 + g, skyjo.Options())
        steps: list[tuple[int, dict[str, Any], dict[str, Any]]] = []
        while len(steps) < length:
            if game.is_over:
                game = skyjo.State.new(["u1", "ai1:hard", "u3"], rng.randrange(10**6), skyjo.Options())
            seat = rng.choice(game.seats_to_act())
            action = rng.choice(game.legal_actions(seat))
            game.apply(seat, action)
            steps.append((seat, action.to_dict(), game.to_dict()))
        out.append(steps)
    return out


SEATS = [Seat(0, "Ann", user_id=1), Seat(1, "Computer", ai_level="hard"), Seat(2, "Cid", user_id=3)]


async def _async_commits(path: Path, stream: list[list[tuple[int, dict[str, Any], dict[str, Any]]]]) -> float:
    async with await Storage.open(path, synchronous="FULL") as storage:
        ids = [
            (
                await GameLedger(storage).create_game(
                    guild_id=1, channel_id=c, kind="skyjo", seats=SEATS, seed=1000 + c
                )
            ).id
            for c in range(len(stream))
        ]
        versions = dict.fromkeys(ids, 0)
        order = [(i, step) for step in range(len(stream[0])) for i in range(len(stream))]
        started = time.perf_counter()
        for i, step in order:
            seat, action, snapshot = stream[i][step]
            game_id = ids[i]
            versions[game_id] = await storage.games.append_action(
                game_id, versions[game_id], seat, action, snapshot
            )
        return len(order) / (time.perf_counter() - started)


async def _grouped_commits(
    path: Path, stream: list[list[tuple[int, dict[str, Any], dict[str, Any]]]]
) -> tuple[float, float]:
    """Every game appends its actions one after the other, all games at once (like a busy bot): writes
    that arrive while a commit is in progress share the next transaction. (actions/s, per commit)."""
    async with await Storage.open(path, synchronous="FULL") as storage:
        ids = [
            (
                await GameLedger(storage).create_game(
                    guild_id=1, channel_id=c, kind="skyjo", seats=SEATS, seed=1000 + c
                )
            ).id
            for c in range(len(stream))
        ]

        async def play(game_id: int, steps: list[tuple[int, dict[str, Any], dict[str, Any]]]) -> None:
            version = 0
            for seat, action, snapshot in steps:
                version = await storage.games.append_action(game_id, version, seat, action, snapshot)

        stats = storage.db.stats
        writes, transactions = stats.writes, stats.transactions
        started = time.perf_counter()
        await asyncio.gather(*(play(game_id, steps) for game_id, steps in zip(ids, stream, strict=True)))
        elapsed = time.perf_counter() - started
        total = sum(len(steps) for steps in stream)
        return total / elapsed, (stats.writes - writes) / max(1, stats.transactions - transactions)


def _raw_commits(path: Path, stream: list[list[tuple[int, dict[str, Any], dict[str, Any]]]]) -> float:
    """The ceiling: the same schema, pragmas, statements and transaction, plain driver, no event loop."""
    games = []
    for c, steps in enumerate(stream):
        game = skyjo.State.new([s.engine_name for s in SEATS], 1000 + c, skyjo.Options())
        games.append((1000 + c, canonical_json(game.to_dict()), steps))
    return raw_append_rate(path, games)


def _build_active_games(path: Path, count: int = LOAD_GAMES) -> None:
    """``count`` active games (10,000), each 30 actions into play, with no meta (so no stored timer),
    written straight by the driver (setup, untimed)."""
    templates = []
    for t in range(250):
        (steps,) = _stream(1, LOAD_ACTIONS, seed=t)
        seed = 1000  # _stream's first game seed for index 0
        templates.append((seed, steps))
    options = canonical_json(skyjo.Options().to_dict())
    games = ((10_000 + g, *templates[g % len(templates)]) for g in range(count))
    write_active_games(path, SEATS, options, games, now_ms())


async def _load(path: Path, verify: str) -> tuple[float, int, int]:
    started = time.perf_counter()
    async with await Storage.open(path, synchronous="FULL") as storage:
        loaded = await GameLedger(storage).load_active(verify="full" if verify == "full" else "auto")
        elapsed = time.perf_counter() - started
    return elapsed, len(loaded.games), len(loaded.rebuilt) + len(loaded.quarantined)


async def _resume(path: Path) -> tuple[float, int, int]:
    """The service's start on games that have no stored timer yet (stored before timers existed, or by
    the setup here): load them all, then store the timers that games waiting for a human need.
    (seconds, durable commits, timers stored)."""
    async with await Storage.open(path, synchronous="FULL") as storage:
        service = TableService(storage, ai_delay=3600.0)
        try:
            before = storage.db.stats.transactions
            started = time.perf_counter()
            tables = await service.resume()
            elapsed = time.perf_counter() - started
            commits = storage.db.stats.transactions - before
        finally:
            await service.close()
    return elapsed, commits, sum(1 for table in tables if table.timer() is not None)


def _build_board(path: Path) -> None:
    rng = random.Random(5)

    def rows(scope: int) -> Any:
        for i in range(BOARD_PLAYERS):
            mu, sigma = rng.gauss(25, 5), rng.uniform(0.8, 8.3)
            games = rng.randint(1, 200)
            yield (
                scope,
                f"user:{i}",
                f"player {i}",
                mu,
                sigma,
                conservative(mu, sigma),
                games,
                rng.randint(0, games),
                games * 6,
                games * 6 * 20,
                json.dumps({"columns_cleared": games}),
            )

    write_ratings(path, "skyjo", (row for scope in (0, 1) for row in rows(scope)))


async def _board(path: Path) -> dict[str, float]:
    async def median_ms(call: Callable[[], Any], runs: int = 20) -> float:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            await call()
            times.append((time.perf_counter() - started) * 1000)
        return statistics.median(times)

    async with await Storage.open(path, synchronous="FULL") as storage:
        ratings = storage.ratings
        page = await ratings.leaderboard("skyjo")
        assert page.total == BOARD_PLAYERS and len(page.rows) == 10
        return {
            "first page": await median_ms(lambda: ratings.leaderboard("skyjo", page=0)),
            "page 100": await median_ms(lambda: ratings.leaderboard("skyjo", page=100)),
            "last page": await median_ms(lambda: ratings.leaderboard("skyjo", page=BOARD_PLAYERS // 10 - 1)),
            "guild board, 25/page": await median_ms(lambda: ratings.leaderboard("skyjo", 1, per_page=25)),
            "one player's stats + rank": await median_ms(lambda: ratings.player_stats("user:4242")),
        }


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="skybo-bench-", dir="/tmp") as tmp:
        folder = Path(tmp)
        stream = _stream(10, COMMITS // 10, seed=1)
        raw_rates, async_rates = [], []
        for r in range(ROUNDS):
            raw_rates.append(_raw_commits(folder / f"raw{r}.db", stream))
            async_rates.append(asyncio.run(_async_commits(folder / f"async{r}.db", stream)))
        raw, aio = statistics.mean(raw_rates), statistics.mean(async_rates)
        print(f"durable commits/s, raw SQLite ceiling, plain driver (synchronous=FULL): {raw:,.0f}")
        print(f"durable commits/s, storage append_action (synchronous=FULL): {aio:,.0f}")
        print(f"storage / ceiling: {aio / raw:.0%} (target >= 50%)")
        for games in (10, 100):
            grouped = _stream(games, COMMITS // games, seed=2)
            rate, per_commit = asyncio.run(_grouped_commits(folder / f"grouped{games}.db", grouped))
            print(
                f"durable actions/s, {games} games appending at once (group commit, synchronous=FULL):"
                f" {rate:,.0f} ({per_commit:.1f} actions per commit;"
                f" {rate / raw:.1f}x the one-by-one raw ceiling)"
            )

        games_path = folder / "games.db"
        _build_active_games(games_path)
        seconds, count, repaired = asyncio.run(_load(games_path, "auto"))
        print(
            f"load {count:,} active games at start (cheap checks, open included; {repaired} repaired):"
            f" {seconds:.2f} s (target < 2 s)"
        )
        seconds, count, repaired = asyncio.run(_load(games_path, "full"))
        print(
            f"load {count:,} active games verifying every snapshot by full replay ({repaired} repaired):"
            f" {seconds:.2f} s (no target: on demand, or once after an engine change)"
        )
        for count in RESUME_GAMES:
            resume_path = folder / f"resume{count}.db"
            _build_active_games(resume_path, count)
            seconds, commits, timers = asyncio.run(_resume(resume_path))
            print(
                f"resume {count:,} active games without stored timers (load, then store {timers:,} timers):"
                f" {seconds:.2f} s, {commits} durable commits (the engine fingerprints', the timers' one;"
                " one commit per timer before, issue 26: 1,000 games 0.48 s with 654 commits,"
                " 10,000 games 8.95 s)"
            )

        board_path = folder / "board.db"
        _build_board(board_path)
        for name, ms in asyncio.run(_board(board_path)).items():
            print(f"leaderboard over {BOARD_PLAYERS:,} rated players, {name}: {ms:.2f} ms (target < 20 ms)")
