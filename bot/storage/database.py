"""The one aiosqlite connection of the process: pragmas, numbered migrations, one-hop transactions.

Every unit of work is a plain function of a ``sqlite3.Connection`` that runs on aiosqlite's own thread
in a single hop (:meth:`Database.run`), so "apply an action and commit" costs one queue round trip,
not one per statement. Writes go through :meth:`Database.write`, which wraps the function in
``BEGIN IMMEDIATE`` ... ``COMMIT``: the write lock is taken up front, so a second writer waits on
``busy_timeout`` instead of failing half-way, and a timeout becomes :class:`DatabaseBusy`.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.storage.errors import DatabaseBusy, DatabaseInUse, SchemaTooNew, StorageError

log = logging.getLogger(__name__)

T = TypeVar("T")

SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")
DEFAULT_BUSY_TIMEOUT_MS = 5000
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    sql: str


def load_migrations() -> list[Migration]:
    """The numbered ``migrations/NNNN_name.sql`` files shipped with the package, in order."""
    folder = resources.files("bot.storage").joinpath("migrations")
    found: list[Migration] = []
    for entry in folder.iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.number)
    numbers = [m.number for m in found]
    if numbers != list(range(1, len(found) + 1)):
        raise StorageError(f"migrations must be numbered 1, 2, 3... without gaps; found {numbers}")
    return found


def split_statements(script: str) -> list[str]:
    """Split a SQL script into complete statements (triggers included), dropping bare comments.

    ``executescript`` would commit the open transaction first, so migrations run statement by statement.
    """
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    rest = "\n".join(ln for ln in pending.splitlines() if ln.strip() and not ln.strip().startswith("--"))
    if rest.strip():
        raise StorageError(f"incomplete SQL statement at the end of a migration: {rest.strip()[:80]!r}")
    return statements


def apply_migrations(conn: sqlite3.Connection, migrations: list[Migration]) -> int:
    """Bring the schema up to date in ONE transaction; ``PRAGMA user_version`` records the last applied."""
    latest = migrations[-1].number if migrations else 0
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if current > latest:
            raise SchemaTooNew(current, latest)
        for migration in migrations:
            if migration.number > current:
                for statement in split_statements(migration.sql):
                    conn.execute(statement)
                log.info("storage.migrated migration=%s", migration.name)
        if latest != current:
            conn.execute(f"PRAGMA user_version = {int(latest)}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return latest


def configure(conn: sqlite3.Connection, synchronous: str, busy_timeout_ms: int, *, readonly: bool) -> None:
    """Per-connection settings: busy timeout, WAL, synchronous, foreign keys."""
    if synchronous not in SYNCHRONOUS_MODES:
        raise StorageError(f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}")
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    if not readonly:
        mode = str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
        if mode != "wal":
            log.warning("storage.no_wal journal_mode=%s", mode)
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    conn.execute("PRAGMA foreign_keys = ON")
    # A 64 MiB page cache: the leaderboard index of 100,000 players and the active games stay in memory.
    conn.execute("PRAGMA cache_size = -65536")


def in_transaction(conn: sqlite3.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``fn`` between BEGIN IMMEDIATE and COMMIT; any exception rolls everything back."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = fn(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return result


def is_busy(error: BaseException) -> bool:
    """SQLITE_BUSY / SQLITE_LOCKED ("database is locked"), which the busy timeout did not resolve."""
    if not isinstance(error, sqlite3.OperationalError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    return "locked" in str(error) or "busy" in str(error)


def translate(error: sqlite3.Error, busy_timeout_ms: int) -> StorageError:
    """A sqlite3 error as a storage error: no raw "database is locked" reaches a caller."""
    if is_busy(error):
        return DatabaseBusy(busy_timeout_ms)
    return StorageError(f"sqlite error: {error}")


class _ProcessLock:
    """An exclusive ``flock`` on ``<database>.lock``: one bot process per database file.

    The kernel drops it when the process dies, even by SIGKILL, so a crash never leaves it behind.
    """

    def __init__(self, path: Path) -> None:
        self.path = path.with_name(path.name + ".lock")
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            raise DatabaseInUse(str(path)) from None

    def release(self) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        with contextlib.suppress(OSError):
            os.close(self.fd)


class Database:
    """The process's connection. Open it with :meth:`open`; close it with :meth:`close`."""

    def __init__(
        self,
        connection: aiosqlite.Connection,
        raw: sqlite3.Connection,
        path: Path,
        *,
        busy_timeout_ms: int,
        schema_version: int,
        lock: _ProcessLock | None,
    ) -> None:
        self._connection = connection
        self._raw = raw
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self.schema_version = schema_version
        self._lock = lock

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str],
        *,
        synchronous: str = "FULL",
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
        lock: bool = True,
        readonly: bool = False,
    ) -> Database:
        """Open (creating the file and its folder if needed), configure and migrate the database.

        ``lock`` takes the one-writer-process lock (:class:`DatabaseInUse` if another process holds
        it); tools that only read (export) pass ``readonly=True`` and take no lock.
        """
        synchronous = synchronous.strip().upper()
        db_path = Path(path)
        if readonly:
            if not db_path.exists():
                raise StorageError(f"{db_path} does not exist")
            target, uri = f"file:{db_path.resolve()}?mode=ro", True
        else:
            db_path.parent.mkdir(parents=True, exist_ok=True)
            target, uri = str(db_path), False
        process_lock = _ProcessLock(db_path) if lock and not readonly else None
        try:
            connection = await aiosqlite.connect(target, uri=uri, isolation_level=None)
        except BaseException:
            if process_lock:
                process_lock.release()
            raise
        # aiosqlite has no public "run this callable on your thread"; _execute is the queue primitive
        # every public method of it is built on. Fail loudly here if a future release renames it.
        if not hasattr(connection, "_execute") or not hasattr(connection, "_conn"):
            await connection.close()
            if process_lock:
                process_lock.release()
            raise StorageError("this aiosqlite version lacks Connection._execute")
        raw: sqlite3.Connection = connection._conn
        db = cls(
            connection, raw, db_path, busy_timeout_ms=busy_timeout_ms, schema_version=0, lock=process_lock
        )
        try:
            await db.run(lambda c: configure(c, synchronous, busy_timeout_ms, readonly=readonly))
            if readonly:
                db.schema_version = await db.run(
                    lambda c: int(c.execute("PRAGMA user_version").fetchone()[0])
                )
            else:
                migrations = load_migrations()
                db.schema_version = await db.run(lambda c: apply_migrations(c, migrations))
        except BaseException:
            await db.close()
            raise
        return db

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(connection)`` on the connection's thread: one hop, whatever ``fn`` does."""
        raw = self._raw
        execute: Any = self._connection._execute
        try:
            result: T = await execute(fn, raw)
        except sqlite3.Error as error:
            raise translate(error, self.busy_timeout_ms) from error
        return result

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` in one write transaction (BEGIN IMMEDIATE ... COMMIT) in one hop."""
        return await self.run(lambda c: in_transaction(c, fn))

    async def close(self) -> None:
        try:
            with contextlib.suppress(ValueError):  # already closed
                await self._connection.close()
        finally:
            if self._lock is not None:
                self._lock.release()
                self._lock = None

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
