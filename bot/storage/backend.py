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

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

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

    async def close(self) -> None: ...
