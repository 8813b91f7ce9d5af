"""The PostgreSQL backend: psycopg 3 SYNC connections on worker threads, migrations under an advisory
lock, group-committed writes, and psycopg errors as storage errors.

Every unit of work is the same plain function of a connection the SQLite backend runs; here it gets a
:class:`PgConnection`, an adapter that turns the shared SQL's ``?`` placeholders into psycopg's ``%s``
(the shared SQL holds no literal ``?`` or ``%``, see :mod:`bot.storage.backend`). The units of work run
on threads, each in one hop: a read (:meth:`PostgresDatabase.run`) on one of a few reader connections,
inside its own REPEATABLE READ transaction (one snapshot for all its statements); a write
(:meth:`PostgresDatabase.write`) on the one writer connection, committed in groups.

The group commit is the one measured in docs/storage.md ("group, retry on error"): the writes that
arrive while a transaction is being committed wait in a queue, and the next hop runs all of them in ONE
transaction WITHOUT a savepoint per write (two round trips fewer each). If one of them raises, that
transaction is rolled back and the group runs again with a savepoint per write, so only the failing
write fails and the others commit (:func:`run_group`): two passes at most, the outcome SQLite's
``run_batch`` gives. Only after COMMIT returned is any caller resumed (``synchronous_commit`` left on),
so an acknowledged write is a durable one. A write function must act only through its connection: it
may run twice, or more: when the server aborts the group under a deadlock or a serialization failure
with another process's transaction, the whole group runs again (:data:`CONFLICT_ATTEMPTS`).

A group first runs pipelined (:func:`run_group_pipelined`): its statements go out without waiting for
each answer, the server executing them while the next ones are prepared, and one sync before COMMIT
brings every answer; a row count a unit of work tests is predicted until then and checked. Anything
unexpected (an error, another row count) rolls that run back and :func:`run_group` runs the group as
above (a deadlock met there counts as the group's first attempt). Measured in docs/storage.md
("Backends side by side"): 25-55% more durable actions per second at 200 games than ``run_group`` alone.

At open, the migrations of ``bot/storage/postgres/migrations`` are applied in ONE transaction under
``pg_advisory_xact_lock``, so processes starting together migrate once; ``schema_migrations`` records
each one (``version``, ``name``, ``applied_at``), and a schema newer than the code is refused
(:class:`SchemaTooNew`). A server that refuses the connection, cannot be reached or refuses the
credentials stops the open with a :class:`StorageUnusable` naming the host and the database, never the
password.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import queue
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pg_errors
from psycopg.adapt import Loader
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import TransactionStatus

from bot.storage.backend import (
    COMMITTED,
    FAILED,
    RETRY,
    GroupCommit,
    Migration,
    Outcomes,
    WriteStats,
    read_migrations,
)
from bot.storage.errors import ConnectionLost, SchemaTooNew, StorageError, StorageUnusable

log = logging.getLogger(__name__)

T = TypeVar("T")

READERS = 4  # reader connections (and threads); the writer has its own
MAX_BATCH = 256  # writes per group transaction, as the SQLite backend
CONNECT_TIMEOUT_S = 10  # unless the URL sets connect_timeout
# Runs of one group transaction that the server aborts for a deadlock or a serialization failure with
# another process's transaction, before the write that met it fails; and the pause before each rerun.
CONFLICT_ATTEMPTS = 5
CONFLICT_PAUSE_S = 0.005
_CONFLICT_STATES = frozenset({"40P01", "40001"})  # deadlock_detected, serialization_failure
# pg_advisory_xact_lock's key for "migrating Skybo's schema": any fixed number, the same in every process.
_MIGRATION_LOCK = 0x536B79626F  # "Skybo"


def load_migrations() -> list[Migration]:
    """This backend's numbered ``migrations/NNNN_name.sql`` files, in order."""
    return read_migrations("bot.storage.postgres.migrations")


def apply_migrations(conn: psycopg.Connection[Any], migrations: list[Migration]) -> int:
    """Bring the schema up to date in ONE transaction, under an advisory lock; return its version."""
    latest = migrations[-1].number if migrations else 0
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
            " name TEXT NOT NULL, applied_at BIGINT NOT NULL)"
        )
        row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()
        current = int(row[0]) if row else 0
        if current > latest:
            raise SchemaTooNew(current, latest)
        applied = [m for m in migrations if m.number > current]
        now = int(time.time() * 1000)
        for migration in applied:
            conn.execute(migration.sql.encode("utf-8"))  # no parameters: the whole file at once
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (%s, %s, %s)",
                (migration.number, migration.name, now),
            )
    for migration in applied:  # logged once committed: a failed start migrated nothing
        log.info("storage.migrated migration=%s", migration.name)
    return latest


@functools.lru_cache(maxsize=1024)
def to_psycopg(sql: str) -> str:
    """The shared SQL with psycopg's placeholders: each ``?`` becomes ``%s``."""
    if "%" in sql:
        raise StorageError(f"the shared SQL must hold no literal %: {sql[:80]!r}")
    return sql.replace("?", "%s")


class _NumericLoader(Loader):
    """``numeric`` (what ``sum`` of BIGINT and ``avg`` return) as SQLite gives it: an int when whole
    (``sum``), a float otherwise (``avg``), never a Decimal."""

    def load(self, data: Any) -> int | float:
        text = bytes(data).decode("ascii")
        return float(text) if any(c in text for c in ".eEN") else int(text)


class PgConnection:
    """What a unit of work gets (a :class:`bot.storage.backend.Connection`): ``?`` placeholders."""

    __slots__ = ("raw",)

    def __init__(self, raw: psycopg.Connection[Any]) -> None:
        self.raw = raw

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> psycopg.Cursor[Any]:
        return self.raw.execute(to_psycopg(sql), parameters if parameters else None)

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> None:
        with self.raw.cursor() as cursor:
            cursor.executemany(to_psycopg(sql), parameters)


def _call(fn: Callable[[Any], T], adapter: PgConnection) -> T:
    """``fn(adapter)``, refused if it swallowed a failed statement: PostgreSQL then ends the transaction
    (its COMMIT would silently roll back the whole group), so a unit of work must re-raise."""
    value = fn(adapter)
    if adapter.raw.info.transaction_status == TransactionStatus.INERROR:
        raise StorageError("a write went on after a failed statement; it must re-raise the error")
    return value


class _Abort(Exception):
    """Unwinds the group's first pass (rolling it back) after one of its writes raised."""


class _Conflict(Exception):
    """Unwinds a group (rolling it back) that the server aborted for a deadlock or a serialization
    failure; ``index`` is the write that met it (None: COMMIT did)."""

    def __init__(self, index: int | None, error: BaseException) -> None:
        super().__init__(str(error))
        self.index = index
        self.error = error


def is_conflict(error: BaseException) -> bool:
    """True if ``error`` (or what it was raised from) is a deadlock (40P01) or a serialization failure
    (40001): the server aborted the transaction because of another one, and running it again is right."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, psycopg.Error) and current.sqlstate in _CONFLICT_STATES:
            return True
        current = current.__cause__ or current.__context__
    return False


def run_group(
    conn: psycopg.Connection[Any],
    fns: Sequence[Callable[[Any], Any]],
    attempts: int | None = None,
) -> Outcomes:
    """Run ``fns`` in ONE transaction; one ``(outcome, value)`` each once it is over
    (:class:`bot.storage.backend.GroupCommit`'s outcomes).

    Two bot processes write the same database, each group under its own transaction, and two groups may
    lock rows in crossing orders: the server then aborts one of them (deadlock_detected), which says
    nothing about the writes themselves. So a group aborted for a deadlock or a serialization failure is
    rolled back and run again, up to ``attempts`` times in all (:data:`CONFLICT_ATTEMPTS` by default; the
    other transaction has usually committed by then). If the last run is aborted too, the write that met
    it fails with that error and the others come back ``RETRY`` (first in the next group). An error of
    BEGIN or COMMIT themselves (a lost connection) is raised: nothing of the group is written.
    """
    attempts = CONFLICT_ATTEMPTS if attempts is None else attempts
    for attempt in range(1, attempts + 1):
        try:
            return _run_group_once(conn, fns)
        except _Conflict as conflict:
            sqlstate = getattr(conflict.error, "sqlstate", None) or "?"
            log.warning(
                "storage.write_conflict sqlstate=%s attempt=%d/%d writes=%d",
                sqlstate,
                attempt,
                attempts,
                len(fns),
                extra={"event": "write_conflict", "sqlstate": sqlstate, "attempt": attempt},
            )
            if attempt == attempts:
                if conflict.index is None:
                    raise conflict.error from None
                return [
                    (FAILED, conflict.error) if i == conflict.index else (RETRY, None)
                    for i in range(len(fns))
                ]
            time.sleep(CONFLICT_PAUSE_S * attempt * random.uniform(0.5, 1.5))  # unsynchronise the two
    raise AssertionError("not reached")  # pragma: no cover


def _run_group_once(conn: psycopg.Connection[Any], fns: Sequence[Callable[[Any], Any]]) -> Outcomes:
    """One run of the group: first without savepoints; if a write raises, that pass is rolled back and
    the group runs again with a savepoint per write, so only the failing writes fail (``FAILED``). A
    deadlock or serialization failure anywhere raises :class:`_Conflict`, the whole group rolled back."""
    adapter = PgConnection(conn)
    try:
        try:
            with conn.transaction():  # BEGIN ... COMMIT; ROLLBACK if an exception leaves the block
                values: Outcomes = []
                for index, fn in enumerate(fns):
                    try:
                        values.append((COMMITTED, _call(fn, adapter)))
                    except Exception as error:
                        if is_conflict(error):
                            raise _Conflict(index, error) from error
                        raise _Abort from error
            return values
        except _Abort:
            pass
        outcomes: Outcomes = []
        with conn.transaction():
            for index, fn in enumerate(fns):
                try:
                    with conn.transaction():  # nested: SAVEPOINT ... RELEASE, or ROLLBACK TO on error
                        outcomes.append((COMMITTED, _call(fn, adapter)))
                except Exception as error:
                    if is_conflict(error):
                        raise _Conflict(index, error) from error
                    outcomes.append((FAILED, error))
        return outcomes
    except psycopg.Error as error:  # BEGIN or COMMIT
        if is_conflict(error):
            raise _Conflict(None, error) from error
        raise


# The group's first run is pipelined (see run_group_pipelined); False runs every group as run_group
# alone (kept to measure the difference: docs/storage.md, "Backends side by side").
PIPELINED_GROUPS = True
# What a pipelined run assumes a statement's row count is until the server answers: every unit of work
# that reads a row count tests that it touched exactly one row (a version-checked update).
_PREDICTED_ROWCOUNT = 1


class _SpeculativeCursor:
    """A cursor of a pipelined run: its rows are fetched when asked for (psycopg waits for them), but
    its row count, not known until the server answers, is predicted and checked before COMMIT."""

    __slots__ = ("_cursor", "_predictions")

    def __init__(self, cursor: psycopg.Cursor[Any], predictions: list[psycopg.Cursor[Any]]) -> None:
        self._cursor = cursor
        self._predictions = predictions

    @property
    def rowcount(self) -> int:
        if self._cursor.pgresult is None:  # still on its way: predict, and check at the sync
            self._predictions.append(self._cursor)
            return _PREDICTED_ROWCOUNT
        return self._cursor.rowcount

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._cursor.fetchall())


class _SpeculativeConnection:
    """What a unit of work gets in a pipelined run: statements are queued, not waited for."""

    __slots__ = ("predictions", "raw", "statements", "writing")

    def __init__(self, raw: psycopg.Connection[Any]) -> None:
        self.raw = raw
        self.predictions: list[psycopg.Cursor[Any]] = []
        self.statements: list[tuple[int, psycopg.Cursor[Any]]] = []  # (the write that sent it, cursor)
        self.writing = 0  # the index of the write running now

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> _SpeculativeCursor:
        cursor = self.raw.execute(to_psycopg(sql), parameters if parameters else None)
        self.statements.append((self.writing, cursor))
        return _SpeculativeCursor(cursor, self.predictions)

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> None:
        with self.raw.cursor() as cursor:
            cursor.executemany(to_psycopg(sql), parameters)

    def first_failed(self) -> int:
        """The write whose statement failed: psycopg hands every answer that came to its cursor, in
        order, and none to a failed statement or to those after it."""
        for writing, cursor in self.statements:
            if cursor.pgresult is None:
                return writing
        return self.writing


class _Mispredicted(Exception):
    """A row count differed from the prediction: the pipelined run is rolled back."""


def run_group_pipelined(
    conn: psycopg.Connection[Any], fns: Sequence[Callable[[Any], Any]]
) -> Outcomes | None:
    """Run ``fns`` in ONE transaction in pipeline mode, the server working while the next statements are
    prepared; their outcomes (all COMMITTED) once committed, or None, rolled back, if anything went wrong
    (then :func:`run_group` runs the group, and its writes run again).

    The statements of the whole group go out without waiting for their answers: a unit of work waits only
    when it fetches rows; a row count it tests is predicted (:class:`_SpeculativeCursor`). Before COMMIT
    one sync brings every answer: an error, a row count other than predicted or any exception of a unit
    of work rolls the run back, so a committed run is one in which every unit of work saw what it would
    have seen waiting for each statement. Two round trips per group (the sync, and COMMIT) instead of
    two per write. A deadlock or serialization failure raises :class:`_Conflict` (rolled back) naming the
    write whose statement met it. An error of ROLLBACK or COMMIT themselves (a lost connection) is
    raised: nothing of the group is written.
    """
    adapter = _SpeculativeConnection(conn)
    conflict: _Conflict | None = None
    with conn.pipeline() as pipeline:
        try:
            conn.execute("BEGIN")
            values: Outcomes = []
            for index, fn in enumerate(fns):
                adapter.writing = index
                values.append((COMMITTED, fn(adapter)))
            pipeline.sync()
            if any(cursor.rowcount != _PREDICTED_ROWCOUNT for cursor in adapter.predictions):
                raise _Mispredicted
        except Exception as error:
            with contextlib.suppress(psycopg.Error):
                pipeline.sync()  # the answers still due, a failed statement's among them
            conn.execute("ROLLBACK")  # sent, and waited for, when the pipeline is left below
            if is_conflict(error):
                conflict = _Conflict(adapter.first_failed(), error)
        else:
            conn.execute("COMMIT")
            return values  # leaving the pipeline sent the COMMIT and waited for it (raising if it failed)
    if conflict is not None:
        raise conflict
    return None


def _after_pipelined_conflict(
    conn: psycopg.Connection[Any], fns: Sequence[Callable[[Any], Any]], conflict: _Conflict
) -> Outcomes:
    """A pipelined run aborted for a deadlock or a serialization failure was the group's first attempt:
    :func:`run_group` makes the others (``CONFLICT_ATTEMPTS`` in all); with none left, the write that met
    it fails and the others come back ``RETRY``, as :func:`run_group` does on its last attempt."""
    sqlstate = getattr(conflict.error, "sqlstate", None) or "?"
    log.warning(
        "storage.write_conflict sqlstate=%s attempt=1/%d writes=%d (pipelined)",
        sqlstate,
        CONFLICT_ATTEMPTS,
        len(fns),
        extra={"event": "write_conflict", "sqlstate": sqlstate, "attempt": 1},
    )
    if CONFLICT_ATTEMPTS <= 1:
        return [(FAILED, conflict.error) if i == conflict.index else (RETRY, None) for i in range(len(fns))]
    time.sleep(CONFLICT_PAUSE_S * random.uniform(0.5, 1.5))  # unsynchronise the two processes
    return run_group(conn, fns, CONFLICT_ATTEMPTS - 1)


def describe(url: str) -> tuple[str, dict[str, Any]]:
    """``(where, params)`` of a PostgreSQL URL: where names the host, port and database, not the password."""
    try:
        params = conninfo_to_dict(url)
    except psycopg.Error:
        raise StorageError(
            "DATABASE_URL is not a valid PostgreSQL URL (postgresql://user:pass@host:5432/db)"
        ) from None
    host = str(params.get("host") or "localhost")
    port = str(params.get("port") or "5432")
    dbname = str(params.get("dbname") or params.get("user") or "postgres")
    return f"PostgreSQL database {dbname!r} on {host}:{port}", params


def _connect_error(error: psycopg.Error, where: str, params: dict[str, Any]) -> StorageUnusable:
    """A failed connection as one clear line naming the server and database (libpq never prints the
    password; it is scrubbed anyway)."""
    detail = "; ".join(line.strip() for line in str(error).splitlines() if line.strip())
    detail = detail or type(error).__name__
    password = params.get("password")
    if password:
        detail = detail.replace(str(password), "***")
    low = detail.lower()
    user = params.get("user") or "the default user"
    if (
        "authentication failed" in low
        or "no password supplied" in low
        or ("role" in low and "does not exist" in low)
    ):
        return StorageUnusable(
            where,
            f"the server refused the credentials of {user} ({detail})",
            "check the user and password in DATABASE_URL",
        )
    if "database" in low and "does not exist" in low:
        return StorageUnusable(
            where,
            f"no such database on that server ({detail})",
            "create it (createdb) or fix DATABASE_URL",
        )
    if "refused" in low or "no such file" in low:
        problem, remedy = (
            "connection refused",
            "is PostgreSQL running and listening there? check DATABASE_URL",
        )
    else:
        problem, remedy = (
            "cannot reach the server",
            "check the host, the port and the network in DATABASE_URL",
        )
    # A server that refuses or cannot be reached now may answer in a moment (a restart): transient.
    return ConnectionLost(where, f"{problem} ({detail})", remedy)


def translate(error: psycopg.Error, where: str) -> StorageError:
    """A psycopg error met while running a unit of work, as a storage error."""
    state = error.sqlstate or ""  # none for the client's own errors (the connection dropped)
    if isinstance(error, psycopg.OperationalError) and (not state or state.startswith(("08", "57P"))):
        return ConnectionLost(where, f"lost the connection to the server ({error})")
    return StorageError(f"postgresql error: {error}")


class PostgresDatabase:
    """A PostgreSQL database (a :class:`bot.storage.backend.Database`). Open it with :meth:`open`; close
    it with :meth:`close`."""

    def __init__(self, url: str, where: str, params: dict[str, Any], writer: psycopg.Connection[Any]) -> None:
        self._url = url
        self._params = params
        self._where = where
        self._writer = writer
        self._idle: queue.SimpleQueue[psycopg.Connection[Any]] = queue.SimpleQueue()
        self._opened: list[psycopg.Connection[Any]] = [writer]
        self._write_thread = ThreadPoolExecutor(1, thread_name_prefix="skybo-pg-writer")
        self._read_threads = ThreadPoolExecutor(READERS, thread_name_prefix="skybo-pg-reader")
        self.schema_version = 0
        self.stats = WriteStats()
        self._queue = GroupCommit(self._run_group, self._translate, self.stats, MAX_BATCH)

    @classmethod
    async def open(cls, url: str) -> PostgresDatabase:
        """Connect to ``url`` (``postgresql://user:pass@host:5432/db``) and migrate the database."""
        where, params = describe(url)
        writer = await asyncio.to_thread(cls._connect, url, where, params)
        db = cls(url, where, params, writer)
        try:
            migrations = load_migrations()
            db.schema_version = await db._on(
                db._write_thread, lambda: apply_migrations(db._writer, migrations)
            )
        except BaseException:
            await db.close()
            raise
        return db

    @staticmethod
    def _connect(url: str, where: str, params: dict[str, Any]) -> psycopg.Connection[Any]:
        extra: dict[str, Any] = {} if "connect_timeout" in params else {"connect_timeout": CONNECT_TIMEOUT_S}
        try:
            conn = psycopg.connect(url, autocommit=True, **extra)
        except psycopg.Error as error:
            raise _connect_error(error, where, params) from None
        conn.adapters.register_loader("numeric", _NumericLoader)
        return conn

    @property
    def where(self) -> str:
        return self._where

    def connect_apart(self) -> psycopg.Connection[Any]:
        """A new autocommit connection to the same database, outside the pool (the shard leases hold
        theirs for the whole life of the process): blocking, errors as :class:`StorageUnusable`."""
        return self._connect(self._url, self._where, self._params)

    # Another process's writer may update the same rows between a read and its write (READ COMMITTED):
    # a read-modify-write locks them first (see Database.row_lock).
    row_lock = " FOR UPDATE"

    def is_unique_violation(self, error: BaseException) -> bool:
        return isinstance(error, pg_errors.UniqueViolation)

    async def _on(self, executor: ThreadPoolExecutor, call: Callable[[], T]) -> T:
        try:
            return await asyncio.get_running_loop().run_in_executor(executor, call)
        except psycopg.Error as error:
            raise translate(error, self._where) from error

    def _read(self, fn: Callable[[PgConnection], T]) -> T:
        try:
            conn, reused = self._idle.get_nowait(), True
        except queue.Empty:
            conn, reused = self._new_reader(), False
        try:
            return self._read_on(conn, fn)
        except psycopg.OperationalError:
            if not reused or not conn.broken:
                raise
        # An idle connection the server dropped meanwhile (a restart, a terminated session): nothing
        # told us before this read. A read changes nothing, so it runs once more on a new connection
        # (whose failure, the server still away, is the answer).
        return self._read_on(self._new_reader(), fn)

    def _new_reader(self) -> psycopg.Connection[Any]:
        conn = self._connect(self._url, self._where, self._params)
        # One snapshot for the whole read: a write committed between two of its statements (the
        # writer is another connection) must not show a game's log ahead of its row.
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        self._opened.append(conn)
        return conn

    def _read_on(self, conn: psycopg.Connection[Any], fn: Callable[[PgConnection], T]) -> T:
        try:
            with conn.transaction():
                return fn(PgConnection(conn))
        finally:
            if conn.closed or conn.broken:
                self._opened.remove(conn)
                with contextlib.suppress(psycopg.Error):
                    conn.close()
            else:
                self._idle.put(conn)

    async def run(self, fn: Callable[[PgConnection], T]) -> T:
        """Run ``fn(connection)`` on a reader connection's thread, in one transaction: one hop."""
        return await self._on(self._read_threads, lambda: self._read(fn))

    async def write(self, fn: Callable[[PgConnection], T]) -> T:
        """Run ``fn`` in a write transaction; return once that transaction is committed (durable).

        ``fn`` may share its transaction with other writes queued meanwhile (see the module doc); if it
        raises, only its changes are rolled back and its exception (a psycopg error translated, as
        :meth:`run`) is raised here. ``fn`` must act only through the connection: it may run twice.
        """
        return await self._queue.write(fn)

    def _group(self, fns: list[Callable[[Any], Any]]) -> Outcomes:
        if self._writer.closed or self._writer.broken:  # the server restarted: connect again
            # (a connection that cannot be made raises ConnectionLost, and the next group tries again)
            if self._writer in self._opened:
                self._opened.remove(self._writer)
            self._writer = self._connect(self._url, self._where, self._params)
            self._opened.append(self._writer)
        if PIPELINED_GROUPS:
            try:
                outcomes = run_group_pipelined(self._writer, fns)
            except _Conflict as conflict:
                return _after_pipelined_conflict(self._writer, fns, conflict)
            if outcomes is not None:
                return outcomes
        return run_group(self._writer, fns)

    async def _run_group(self, fns: list[Callable[[Any], Any]]) -> Outcomes:
        return await asyncio.get_running_loop().run_in_executor(self._write_thread, self._group, fns)

    def _translate(self, error: BaseException) -> BaseException:
        return translate(error, self._where) if isinstance(error, psycopg.Error) else error

    async def close(self) -> None:
        await self._queue.drain()  # let the queued writes commit first
        self._write_thread.shutdown(wait=True)
        self._read_threads.shutdown(wait=True)
        for conn in self._opened:
            with contextlib.suppress(psycopg.Error):
                conn.close()
        self._opened.clear()

    async def __aenter__(self) -> PostgresDatabase:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
