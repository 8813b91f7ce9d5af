"""The driver bench's backends (:mod:`bot.storage.postgres.driver_bench`): today's SQLite storage,
psycopg 3 and asyncpg, each one transaction per write or group-committed (with or without savepoints)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from bot.storage.postgres.driver_workload import (
    _PG_INSERT_ACTION,
    _PG_INSERT_GAME,
    _PG_UPDATE,
    POOL_SIZE,
    Append,
    GroupCommit,
    NotWritten,
    Step,
    _canonical,
    _digest,
    _placeholders,
)

T = TypeVar("T")


# ----------------------------------------------------------------------------------- the backends


class Backend:
    """A way to commit appends. ``append`` returns the new version once the write is durable."""

    label = ""

    async def open(self, games: int, first: Step) -> list[int]:
        raise NotImplementedError

    async def append(self, game_id: int, expected: int, step: Step) -> int:
        raise NotImplementedError

    def per_commit(self) -> float:
        return 1.0

    async def close(self) -> None:
        pass


class SqliteBackend(Backend):
    """Today's code path, untouched: Storage.open (WAL, synchronous=FULL) and GameRepository.append_action,
    group-committed by Database.write."""

    label = "SQLite, today's Storage: group, savepoint per write"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.storage: Any = None
        self.runs = 0
        self._stats_at_start = (0, 0)

    async def open(self, games: int, first: Step) -> list[int]:
        from bot.service.rules import GameRules  # this bench leaves bot/storage for bench/ (issue 39)
        from bot.storage import Seat, Storage

        self.runs += 1
        self.storage = await Storage.open(self.folder / f"drivers{self.runs}.sqlite3", synchronous="FULL")
        seats = [Seat(0, "Ann", user_id=1), Seat(1, "Computer", ai_level="hard"), Seat(2, "Cid", user_id=3)]
        ids = []
        for channel in range(games):
            stored = await GameRules(self.storage).create_game(
                guild_id=1, channel_id=channel, kind="skyjo", seats=seats, seed=1000 + channel
            )
            ids.append(stored.id)
        self._stats_at_start = self._stats()
        return ids

    def _stats(self) -> tuple[int, int]:
        stats = self.storage.db.stats  # the group commit's counters (bot.storage.backend.WriteStats)
        return stats.writes, stats.transactions

    async def append(self, game_id: int, expected: int, step: Step) -> int:
        # append_action serialises the snapshot itself: it gets the dict, as from the service.
        version: int = await self.storage.games.append_action(
            game_id, expected, step.seat, step.action, step.snapshot
        )
        return version

    def per_commit(self) -> float:
        writes, transactions = self._stats()
        w0, t0 = self._stats_at_start
        return (writes - w0) / max(1, transactions - t0)

    async def close(self) -> None:
        if self.storage is not None:
            await self.storage.close()
            self.storage = None


# How a PostgreSQL backend commits: each write its own transaction on a pooled connection; or grouped
# like Database.write with a savepoint around each write (today's run_batch); or grouped without
# savepoints first, two statements and two round trips fewer per write: if a write raises, the group
# is rolled back and run again with a savepoint per write (so it costs two passes at most, and the
# outcome is the one the savepoint pass gives: only the failing writes fail).
PER_WRITE, SAVEPOINTS, RETRY_ON_ERROR = "txn per write", "group, savepoint per write", "group, retry on error"
MODES = (PER_WRITE, SAVEPOINTS, RETRY_ON_ERROR)


class _Abort(Exception):
    """Unwinds a group transaction (rolling it back) after one of its writes raised: an error of BEGIN or
    COMMIT themselves is not one, and goes up to the caller."""


def _run_group_sync(conn: Any, fns: list[Callable[[Any], Any]], mode: str) -> list[tuple[bool, Any]]:
    """One psycopg group transaction (see the modes above); one (ok, value or exception) per write."""
    if mode == RETRY_ON_ERROR:
        try:
            with conn.transaction():  # BEGIN ... COMMIT; ROLLBACK if an exception leaves the block
                values = []
                for fn in fns:
                    try:
                        values.append((True, fn(conn)))
                    except Exception as error:
                        raise _Abort from error
            return values
        except _Abort:
            pass  # rolled back: the savepoint pass below
    outcomes: list[tuple[bool, Any]] = []
    with conn.transaction():
        for fn in fns:
            try:
                with conn.transaction():  # nested: SAVEPOINT ... RELEASE, or ROLLBACK TO on error
                    outcomes.append((True, fn(conn)))
            except Exception as error:
                outcomes.append((False, error))
    return outcomes


async def _run_group_async(
    conn: Any, fns: list[Callable[[Any], Awaitable[Any]]], mode: str
) -> list[tuple[bool, Any]]:
    """The same for asyncpg, whose work functions are coroutines."""
    if mode == RETRY_ON_ERROR:
        try:
            async with conn.transaction():
                values = []
                for fn in fns:
                    try:
                        values.append((True, await fn(conn)))
                    except Exception as error:
                        raise _Abort from error
            return values
        except _Abort:
            pass
    outcomes: list[tuple[bool, Any]] = []
    async with conn.transaction():
        for fn in fns:
            try:
                async with conn.transaction():  # nested: a savepoint
                    outcomes.append((True, await fn(conn)))
            except Exception as error:
                outcomes.append((False, error))
    return outcomes


class PsycopgBackend(Backend):
    """psycopg 3, SYNC connections, each on its own worker thread: a unit of work stays a plain function
    of a connection run in one hop (today's shape). Grouped: one writer connection and thread, as today."""

    def __init__(self, conninfo: str, mode: str) -> None:
        import psycopg

        self.psycopg = psycopg
        self.conninfo = conninfo
        self.mode = mode
        self.label = f"psycopg 3 sync threads: {mode}"
        self.update = _placeholders(_PG_UPDATE, "psycopg")
        self.insert = _placeholders(_PG_INSERT_ACTION, "psycopg")
        self.executor: ThreadPoolExecutor | None = None
        self.local = threading.local()
        self.connections: list[Any] = []
        self.lock = threading.Lock()
        self.committer: GroupCommit | None = None

    def _connection(self) -> Any:
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.psycopg.connect(self.conninfo, autocommit=True)
            self.local.conn = conn
            with self.lock:
                self.connections.append(conn)
        return conn

    def _work(self, a: Append) -> Callable[[Any], int]:
        """The unit of work, as game_log._appender's: only the placeholders differ."""
        update, insert = self.update, self.insert
        new_version = a.expected + 1

        def work(conn: Any) -> int:
            cursor = conn.execute(
                update, (new_version, a.snapshot_json, a.digest, a.now, a.game_id, a.expected)
            )
            if cursor.rowcount != 1:
                raise NotWritten(a.game_id)
            conn.execute(insert, (a.game_id, new_version, a.seat, a.action_json, a.now))
            return new_version

        return work

    def _one(self, fn: Callable[[Any], T]) -> T:
        conn = self._connection()
        with conn.transaction():
            return fn(conn)

    def _group(self, fns: list[Callable[[Any], Any]]) -> list[tuple[bool, Any]]:
        return _run_group_sync(self._connection(), fns, self.mode)

    async def open(self, games: int, first: Step) -> list[int]:
        grouped = self.mode != PER_WRITE
        self.executor = ThreadPoolExecutor(1 if grouped else POOL_SIZE, thread_name_prefix="bench-pg")
        loop = asyncio.get_running_loop()
        if grouped:

            async def run_batch(fns: list[Any]) -> list[tuple[bool, Any]]:
                return await loop.run_in_executor(self.executor, self._group, fns)

            self.committer = GroupCommit(run_batch)
        text = _canonical(first.snapshot)
        insert_game = _placeholders(_PG_INSERT_GAME, "psycopg")

        def create(conn: Any) -> list[int]:
            conn.execute("TRUNCATE game_actions, games")
            return [
                int(conn.execute(insert_game, (c, 1000 + c, text, _digest(text))).fetchone()[0])
                for c in range(games)
            ]

        ids = await loop.run_in_executor(self.executor, self._one, create)
        await loop.run_in_executor(self.executor, self._checkpoint)
        return ids

    def _checkpoint(self) -> None:
        # Each measure starts from the same place: no dirty pages of the last one left to write. A role
        # that is not a superuser (the tests' app role) may not: its runs start less even, no more.
        with contextlib.suppress(self.psycopg.errors.InsufficientPrivilege):
            self._connection().execute("CHECKPOINT")

    async def append(self, game_id: int, expected: int, step: Step) -> int:
        work = self._work(Append.of(game_id, expected, step))
        if self.committer is not None:
            result: int = await self.committer.write(work)
            return result
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, self._one, work)

    def per_commit(self) -> float:
        c = self.committer
        return c.writes / max(1, c.transactions) if c is not None else 1.0

    async def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True)
            self.executor = None
        for conn in self.connections:
            conn.close()
        self.connections.clear()


class AsyncpgBackend(Backend):
    """asyncpg, async work functions over a pool. Grouped: one connection of the pool runs the groups."""

    def __init__(self, dsn: dict[str, Any], mode: str) -> None:
        import asyncpg

        self.asyncpg = asyncpg
        self.dsn = dsn
        self.mode = mode
        self.label = f"asyncpg: {mode}"
        self.update = _placeholders(_PG_UPDATE, "asyncpg")
        self.insert = _placeholders(_PG_INSERT_ACTION, "asyncpg")
        self.pool: Any = None
        self.committer: GroupCommit | None = None

    def _work(self, a: Append) -> Callable[[Any], Awaitable[int]]:
        update, insert = self.update, self.insert
        new_version = a.expected + 1

        async def work(conn: Any) -> int:
            status = await conn.execute(
                update, new_version, a.snapshot_json, a.digest, a.now, a.game_id, a.expected
            )
            if status != "UPDATE 1":
                raise NotWritten(a.game_id)
            await conn.execute(insert, a.game_id, new_version, a.seat, a.action_json, a.now)
            return new_version

        return work

    async def _group(self, fns: list[Callable[[Any], Awaitable[Any]]]) -> list[tuple[bool, Any]]:
        async with self.pool.acquire() as conn:
            return await _run_group_async(conn, fns, self.mode)

    async def open(self, games: int, first: Step) -> list[int]:
        size = POOL_SIZE if self.mode == PER_WRITE else 1
        self.pool = await self.asyncpg.create_pool(**self.dsn, min_size=size, max_size=size)
        if self.mode != PER_WRITE:
            self.committer = GroupCommit(self._group)
        text = _canonical(first.snapshot)
        insert_game = _placeholders(_PG_INSERT_GAME, "asyncpg")
        async with self.pool.acquire() as conn:
            await conn.execute("TRUNCATE game_actions, games")
            ids = [
                int(await conn.fetchval(insert_game, c, 1000 + c, text, _digest(text))) for c in range(games)
            ]
            with contextlib.suppress(self.asyncpg.exceptions.InsufficientPrivilegeError):
                await conn.execute("CHECKPOINT")  # as PsycopgBackend._checkpoint
        return ids

    async def append(self, game_id: int, expected: int, step: Step) -> int:
        work = self._work(Append.of(game_id, expected, step))
        if self.committer is not None:
            result: int = await self.committer.write(work)
            return result
        async with self.pool.acquire() as conn, conn.transaction():
            return await work(conn)

    def per_commit(self) -> float:
        c = self.committer
        return c.writes / max(1, c.transactions) if c is not None else 1.0

    async def close(self) -> None:
        if self.pool is not None:
            await self.pool.close()
            self.pool = None
