"""The SQLite backend: the one aiosqlite connection of the process, pragmas, PRAGMA user_version
migrations, group-committed writes, the one-process lock, and sqlite3 errors as storage errors.

Every unit of work is a plain function of a ``sqlite3.Connection`` that runs on aiosqlite's own thread
in a single hop (:meth:`SqliteDatabase.run`), so "apply an action and commit" costs one queue round trip,
not one per statement.

Writes go through :meth:`SqliteDatabase.write`, which commits them in groups. A durable commit costs an
fsync (milliseconds with ``synchronous=FULL``), so committing writes one by one caps the process at a
few hundred writes per second. Instead, the writes that arrive while a transaction is being committed
wait in a queue, and the next hop runs all of them in ONE transaction (:func:`run_batch`):
``BEGIN IMMEDIATE``, then each write inside its own ``SAVEPOINT`` (a write that raises is rolled back
alone and its caller gets its exception; the others go on), then one ``COMMIT``: one fsync for the
whole group. Only after that COMMIT returned is any caller resumed, so an acknowledged write is a
durable one, as before. Writes run in the order they were queued, so each caller's writes keep their
order. The write lock is taken up front (``BEGIN IMMEDIATE``), so a second writer process waits on
``busy_timeout`` instead of failing half-way, and a timeout becomes :class:`DatabaseBusy` for every
write of the group.

A write function must act only through the connection it is given: if SQLite aborts the whole
transaction under a write (disk full, I/O error), that write fails and the writes before it in the
group, rolled back with it, are run again in the next transaction.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.storage.backend import COMMITTED, FAILED, RETRY, GroupCommit, Migration, WriteStats, read_migrations
from bot.storage.errors import (
    DatabaseBusy,
    DatabaseCannotOpen,
    DatabaseCorrupt,
    DatabaseInUse,
    DatabaseReadOnly,
    DiskFull,
    DiskIOError,
    SchemaTooNew,
    StorageError,
    StorageUnusable,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")
DEFAULT_BUSY_TIMEOUT_MS = 5000
MAX_BATCH = 256  # writes per group transaction: bounds one hop of the connection thread
_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})


def load_migrations() -> list[Migration]:
    """This backend's numbered ``migrations/NNNN_name.sql`` files, in order."""
    return read_migrations("bot.storage.sqlite.migrations")


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
        applied = [m for m in migrations if m.number > current]
        for migration in applied:
            for statement in split_statements(migration.sql):
                conn.execute(statement)
        # Written even when unchanged: this COMMIT then writes a page, so a file that cannot be
        # written (read-only file or file system, disk full) is refused here, at start, instead of
        # at the first move.
        conn.execute(f"PRAGMA user_version = {int(latest)}")
        conn.execute("COMMIT")
        for migration in applied:  # logged once committed: a failed start migrated nothing
            log.info("storage.migrated migration=%s", migration.name)
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


_SAVEPOINT = "skybo_write"


def run_batch(
    conn: sqlite3.Connection, fns: Sequence[Callable[[sqlite3.Connection], Any]]
) -> list[tuple[int, Any]]:
    """Run ``fns`` in ONE write transaction, each in its own savepoint; one ``(outcome, value)`` each.

    ``(COMMITTED, result)``: the write is committed (the transaction's COMMIT returned).
    ``(FAILED, exception)``: the write raised; only its own changes were rolled back.
    ``(RETRY, None)``: SQLite aborted the whole transaction under another write of the group (disk
    full, I/O error...), so this write was rolled back too and must be run again.
    An error of BEGIN or COMMIT themselves (busy, I/O) is raised: nothing of the group is written.
    """
    conn.execute("BEGIN IMMEDIATE")
    outcomes: list[tuple[int, Any]] = []
    try:
        for index, fn in enumerate(fns):
            conn.execute(f"SAVEPOINT {_SAVEPOINT}")
            try:
                value = fn(conn)
            except Exception as error:
                if not conn.in_transaction:  # SQLite rolled the whole transaction back
                    rest = len(fns) - index - 1
                    return [(RETRY, None)] * index + [(FAILED, error)] + [(RETRY, None)] * rest
                conn.execute(f"ROLLBACK TO {_SAVEPOINT}")
                conn.execute(f"RELEASE {_SAVEPOINT}")
                outcomes.append((FAILED, error))
            else:
                conn.execute(f"RELEASE {_SAVEPOINT}")
                outcomes.append((COMMITTED, value))
        if any(outcome == COMMITTED for outcome, _ in outcomes):
            conn.execute("COMMIT")
        else:
            conn.execute("ROLLBACK")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return outcomes


def is_busy(error: BaseException) -> bool:
    """SQLITE_BUSY / SQLITE_LOCKED ("database is locked"), which the busy timeout did not resolve."""
    if not isinstance(error, sqlite3.OperationalError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    return "locked" in str(error) or "busy" in str(error)


def translate(error: sqlite3.Error, busy_timeout_ms: int, path: str | os.PathLike[str] = "") -> StorageError:
    """A sqlite3 error as a storage error: no raw "database is locked" reaches a caller, and the
    errors that make the file unusable (read-only, disk full, cannot open, not a database, I/O) become
    a :class:`StorageUnusable` naming ``path`` and what to do."""
    if is_busy(error):
        return DatabaseBusy(busy_timeout_ms)
    code = getattr(error, "sqlite_errorcode", None)
    where = str(path) or "the database"
    if code == sqlite3.SQLITE_IOERR_SHMSIZE:
        # Growing the WAL index (-shm) failed: SQLite reports an I/O error, but the cause is
        # ENOSPC/EFBIG (measured on a full tmpfs and under RLIMIT_FSIZE).
        return DiskFull(where)
    unusable = _UNUSABLE.get(code & 0xFF) if code is not None else None
    if unusable is not None:
        return unusable(where, str(error))
    return StorageError(f"sqlite error: {error}")


def _disk_full(path: str, detail: str) -> StorageUnusable:
    return DiskFull(path)


# Primary result codes (the low byte of the extended code) that mean "this file cannot be used".
_UNUSABLE: dict[int, Callable[[str, str], StorageUnusable]] = {
    sqlite3.SQLITE_READONLY: DatabaseReadOnly,  # "attempt to write a readonly database"
    sqlite3.SQLITE_PERM: DatabaseReadOnly,
    sqlite3.SQLITE_FULL: _disk_full,  # "database or disk is full"
    sqlite3.SQLITE_CANTOPEN: DatabaseCannotOpen,  # "unable to open database file"
    sqlite3.SQLITE_NOTADB: DatabaseCorrupt,  # "file is not a database"
    sqlite3.SQLITE_CORRUPT: DatabaseCorrupt,  # "database disk image is malformed"
    sqlite3.SQLITE_IOERR: DiskIOError,  # "disk I/O error"
}


def translate_os_error(error: OSError, path: str | os.PathLike[str]) -> StorageUnusable:
    """An OS error met while preparing the database's folder or lock file, as a clear storage error."""
    detail = error.strerror or str(error)
    if error.filename is not None and str(error.filename) != str(path):
        detail = f"{detail}: {error.filename}"
    if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return DiskFull(str(path))
    if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return DatabaseReadOnly(str(path), detail)
    if error.errno == errno.EIO:
        return DiskIOError(str(path), detail)
    return DatabaseCannotOpen(str(path), detail)


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


class SqliteDatabase:
    """The process's connection (a :class:`bot.storage.backend.Database`). Open it with :meth:`open`;
    close it with :meth:`close`."""

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
        self.stats = WriteStats()
        execute: Any = connection._execute  # one hop onto aiosqlite's thread
        self._queue = GroupCommit(
            lambda fns: execute(run_batch, raw, fns), self._translate, self.stats, MAX_BATCH
        )

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str],
        *,
        synchronous: str = "FULL",
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
        lock: bool = True,
        readonly: bool = False,
    ) -> SqliteDatabase:
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
            try:
                db_path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise translate_os_error(error, db_path) from error
            target, uri = str(db_path), False
        try:
            process_lock = _ProcessLock(db_path) if lock and not readonly else None
        except OSError as error:
            raise translate_os_error(error, db_path) from error
        try:
            connection = await aiosqlite.connect(target, uri=uri, isolation_level=None)
        except BaseException as error:
            if process_lock:
                process_lock.release()
            if isinstance(error, sqlite3.Error):
                raise translate(error, busy_timeout_ms, db_path) from error
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

    @property
    def where(self) -> str:
        return str(self.path)

    # The one writer connection of the one process already serialises every read-modify-write, and
    # SQLite has no SELECT ... FOR UPDATE (see Database.row_lock).
    row_lock = ""

    def is_unique_violation(self, error: BaseException) -> bool:
        # The primary code, so NOT NULL or CHECK failures (also IntegrityError) do not count.
        code = getattr(error, "sqlite_errorcode", None)
        return isinstance(error, sqlite3.IntegrityError) and code in (
            sqlite3.SQLITE_CONSTRAINT_UNIQUE,
            sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY,
        )

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(connection)`` on the connection's thread: one hop, whatever ``fn`` does."""
        raw = self._raw
        execute: Any = self._connection._execute
        try:
            result: T = await execute(fn, raw)
        except sqlite3.Error as error:
            raise translate(error, self.busy_timeout_ms, self.path) from error
        return result

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` in a write transaction; return once that transaction is committed (durable).

        ``fn`` may share its transaction with other writes queued meanwhile (see the module doc); it
        runs in its own savepoint, so if it raises, only its changes are rolled back and the
        exception (a sqlite3 error translated, like :meth:`run`) is raised here. ``fn`` must act only
        through the connection: it may run a second time if SQLite aborts a group under another write.
        """
        return await self._queue.write(fn)

    def _translate(self, error: BaseException) -> BaseException:
        if isinstance(error, sqlite3.Error):
            return translate(error, self.busy_timeout_ms, self.path)
        return error

    async def close(self) -> None:
        await self._queue.drain()  # let the queued writes commit first
        try:
            with contextlib.suppress(ValueError):  # already closed
                await self._connection.close()
        finally:
            if self._lock is not None:
                self._lock.release()
                self._lock = None

    async def __aenter__(self) -> SqliteDatabase:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
