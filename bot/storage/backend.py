"""What a storage backend provides to the shared repositories: a database that runs units of work.

The repositories (games, lobbies, results, ratings, stats) are written once, for every backend. Each of
their reads and writes is a plain function of a :class:`Connection` (a *unit of work*) that the backend
runs in one hop: :meth:`Database.run` for a read, :meth:`Database.write` for a write, committed before
it returns (durable). A backend is a class satisfying :class:`Database`: ``bot.storage.sqlite`` today,
``bot.storage.postgres`` next.

The SQL inside the units of work is a dialect subset that SQLite (3.35+) and PostgreSQL (12+) both
accept, so no query exists twice:

- ``?`` placeholders, positional only (no ``?1``, no ``:name``); a PostgreSQL connection translates them
  to its driver's own. Hence no literal ``?`` and no ``%`` anywhere in the SQL text (a ``LIKE`` pattern is
  a parameter), which that translation would break.
- ``INSERT ... RETURNING id`` for a new row's id (no ``lastrowid``), ``INSERT ... ON CONFLICT (...) DO
  NOTHING / DO UPDATE`` (no ``INSERT OR IGNORE / REPLACE``), ``WITH ... AS MATERIALIZED``, window
  functions; aggregates and ``coalesce``, but no scalar ``min(a, b)`` / ``max(a, b)`` (PostgreSQL calls
  them ``least`` / ``greatest``, SQLite lacks those): such arithmetic is done in Python.
- No PRAGMA, no ``BEGIN IMMEDIATE``: transactions, savepoints and settings belong to the backend.
- A unique-constraint violation is recognised with :meth:`Database.is_unique_violation`, never by
  catching a driver's exception class.

The schema itself (migrations) is per backend, with the same tables and columns.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol, TypeVar

from bot.storage.errors import StorageError

T = TypeVar("T")


class Cursor(Protocol):
    """What a unit of work may do with the result of :meth:`Connection.execute`."""

    @property
    def rowcount(self) -> int:
        """Rows an UPDATE or DELETE matched (the optimistic version checks test it)."""
        ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """What a unit of work may call: statements with ``?`` placeholders, nothing else.

    ``sqlite3.Connection`` is one as it is; a PostgreSQL backend hands its units of work an adapter
    (placeholders translated, ``executemany`` provided).
    """

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Any: ...


@dataclass
class WriteStats:
    """What :meth:`Database.write` did since the database was opened."""

    writes: int = 0  # write functions run to an outcome (committed or failed)
    transactions: int = 0  # group transactions (hops of the connection thread)
    largest: int = 0  # the most writes one transaction carried


class Database(Protocol):
    """A backend's database, as the repositories and the Storage facade use it."""

    schema_version: int  # the last migration applied
    stats: WriteStats

    @property
    def where(self) -> str:
        """The database named for people (a file path, or a server and database: never a password)."""
        ...

    async def run(self, fn: Callable[[Connection], T]) -> T:
        """Run a read ``fn(connection)`` in one hop; driver errors come out as storage errors."""
        ...

    async def write(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn`` in a write transaction and return once it is committed (durable).

        ``fn`` may share its transaction with other writes (group commit) inside its own savepoint:
        if it raises, only its changes are rolled back and its exception is raised here. ``fn`` must
        act only through the connection: it may run a second time.
        """
        ...

    def is_unique_violation(self, error: BaseException) -> bool:
        """True if ``error``, raised by a statement, broke a unique constraint or index."""
        ...

    @property
    def row_lock(self) -> str:
        """The clause a read-modify-write appends to its SELECT to lock the rows it will update.

        ``" FOR UPDATE"`` where another process may write the same rows between the read and the write
        (PostgreSQL, READ COMMITTED); ``""`` where the one writer already excludes that (SQLite, which
        refuses the clause). The rating update uses it (:func:`bot.storage.ratings.rate_game`).
        """
        ...

    async def close(self) -> None: ...


@dataclass(frozen=True)
class Migration:
    """One numbered schema change of a backend: ``migrations/NNNN_name.sql``."""

    number: int
    name: str
    sql: str


_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def read_migrations(package: str) -> list[Migration]:
    """The numbered ``NNNN_name.sql`` files of a backend's migrations package, in order (each backend
    has its own folder, with the same numbers and names)."""
    found: list[Migration] = []
    for entry in resources.files(package).iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.number)
    numbers = [m.number for m in found]
    if numbers != list(range(1, len(found) + 1)):
        raise StorageError(f"migrations must be numbered 1, 2, 3... without gaps; found {numbers}")
    return found


# What became of one write of a group (a backend's ``run_group``).
COMMITTED, FAILED, RETRY = 0, 1, 2

Outcomes = list[tuple[int, Any]]


@dataclass
class _Write:
    fn: Callable[[Any], Any]
    future: asyncio.Future[Any]


class GroupCommit:
    """The write queue of every backend: the writes that arrive while a group transaction is being
    committed wait here, and the next hop runs all of them (at most ``max_batch``) in ONE transaction.

    ``run_group(fns)`` is the backend's: it runs the functions in one transaction on its writer and
    returns one ``(outcome, value)`` each once that transaction is over: ``(COMMITTED, result)``,
    ``(FAILED, exception)`` (only that write's changes were rolled back), or ``(RETRY, None)`` (the
    backend aborted the whole transaction under another write: this one runs again, first in the next
    group). If ``run_group`` itself raises (BEGIN or COMMIT failed), nothing of the group is written and
    every write of it fails with that error. ``translate`` turns a driver's error into a storage error.
    A caller is resumed only after its group's outcome is known, so an acknowledged write is durable.
    """

    def __init__(
        self,
        run_group: Callable[[list[Callable[[Any], Any]]], Awaitable[Outcomes]],
        translate: Callable[[BaseException], BaseException],
        stats: WriteStats,
        max_batch: int,
    ) -> None:
        self._run_group = run_group
        self._translate = translate
        self.stats = stats
        self.max_batch = max_batch
        self.pending: deque[_Write] = deque()
        self.flusher: asyncio.Task[None] | None = None

    async def write(self, fn: Callable[[Any], T]) -> T:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self.pending.append(_Write(fn, future))
        if self.flusher is None:
            self.flusher = loop.create_task(self._flush(), name="storage-group-commit")
        return await future

    async def drain(self) -> None:
        """Let the queued writes commit (closing the database)."""
        flusher = self.flusher
        if flusher is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await flusher

    async def _flush(self) -> None:
        """Commit the queued writes, group after group, until the queue is empty."""
        pending = self.pending
        try:
            while pending:
                batch: list[_Write] = []
                while pending and len(batch) < self.max_batch:
                    item = pending.popleft()
                    if not item.future.done():  # a caller cancelled before its write ran: skip it
                        batch.append(item)
                if not batch:
                    continue
                try:
                    outcomes = await self._run_group([w.fn for w in batch])
                except asyncio.CancelledError:
                    for item in batch:
                        if not item.future.done():
                            item.future.cancel()
                    raise
                except BaseException as error:  # BEGIN or COMMIT failed: nothing of the group is written
                    for item in batch:
                        self._fail(item, error)
                    continue
                self.stats.transactions += 1
                self.stats.largest = max(self.stats.largest, len(batch))
                retry: list[_Write] = []
                for item, (outcome, value) in zip(batch, outcomes, strict=True):
                    if outcome == RETRY:
                        retry.append(item)
                        continue
                    self.stats.writes += 1
                    if outcome == COMMITTED:
                        if not item.future.done():
                            item.future.set_result(value)
                    else:
                        self._fail(item, value)
                pending.extendleft(reversed(retry))  # first in the next group, in their order
        finally:
            self.flusher = None
            for item in pending:  # cancelled with writes still queued: they were never run
                if not item.future.done():
                    item.future.cancel()
            pending.clear()

    def _fail(self, item: _Write, error: BaseException) -> None:
        if item.future.done():
            return
        translated = self._translate(error)
        if translated is not error:
            translated.__cause__ = error
        item.future.set_exception(translated)
