"""Shard leases: one PostgreSQL advisory lock per shard, so a shard is run by one process at a time.

A process of a fleet (``SHARD_COUNT`` / ``SHARD_IDS``) takes, before it connects to Discord, a
session-level advisory lock ``(SHARD_LOCK, shard id)`` for each of its shards with
``pg_try_advisory_lock``, on a connection of its own. A second process asking for a shard that is held
is refused at once (:class:`ShardsTaken`), never waits. The server releases the locks when that
connection ends, so a process that dies (even by SIGKILL or a lost machine, once the server notices the
dead connection) frees its shards for its replacement, with no file and no clean-up.

Every process also holds a *shared* lock ``(COUNT_LOCK, shard count)``; one that finds a shared lock
on another count refuses to start: with two counts a guild would belong to two shards
(``(guild_id >> 22) % count`` differs), so two processes could drive its games.

**May this process serve now?** An advisory lock is exclusive only while its session lives, and the
holder learns of its session's end late (at its next round trip), while another process may take the
lock the instant the server ends the session. So the lease answers "may I serve" (:meth:`serving`)
with time, not with the lock alone (:class:`LeaseTiming`):

- the holder trusts a round trip on the lock's connection for ``valid_s`` from the moment it was
  *sent* (the session, so the lock, was alive after that moment); a keeper thread makes one every
  ``check_s``. No success for ``valid_s``, or a failure, and :meth:`serving` is False;
- a process that takes the locks (at start, or back after a loss) serves only ``valid_s`` after it got
  them: whoever held them before has stopped trusting its last round trip by then, whether or not it
  noticed anything.

Hence, at every instant, at most one process serves a shard: the previous holder's last trusted round
trip was sent before its session ended, which was before the new holder got the lock; each adds the
same ``valid_s`` (every process of a fleet must use the same value: it is not a setting).

**A blink.** When the connection drops (PostgreSQL restarted, the session terminated, the network cut
for a moment), the keeper tries to take the same shards back on a new connection, every ``retry_s``,
for ``retake_s`` (``LEASE_RETAKE_SECONDS``). If it gets them all, the lease serves again ``valid_s``
later (:attr:`epoch` counts the takings: whoever runs the shards reloads their games then, since
another process may have run them meanwhile). If another process holds one of them, or ``retake_s``
passes, the lease is lost for good (:attr:`state` ``lost``): the process must stop, as its
replacement must not take from the process that holds them now. A lock still held by this process's
own previous session (a network cut the server has not noticed yet) is not another process's: that
session is ended (``pg_terminate_backend``) and the shard taken again.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, TypeVar

import psycopg

from bot.storage.errors import ConnectionLost, ShardsTaken, StorageError
from bot.storage.postgres.database import PostgresDatabase, translate

log = logging.getLogger(__name__)
T = TypeVar("T")

# The first key of the two-key advisory locks: "Skybo shard", "Skybo shard count" (any fixed numbers,
# the same in every process; distinct from the migration lock's single bigint key space).
SHARD_LOCK = 0x536B7953  # int4
COUNT_LOCK = 0x536B7943

HELD = "held"  # the locks are held (serving once the start's wait is over and while round trips succeed)
RETAKING = "retaking"  # the connection dropped: taking the shards back, not serving
LOST = "lost"  # given up: another process holds a shard, or retake_s passed; the process must stop
RELEASED = "released"  # given back (release())

DEFAULT_RETAKE_S = 30.0  # LEASE_RETAKE_SECONDS
CLOSE_WAIT_S = 5.0  # at most this long for a session to end when it is given back


TAKE_ANSWER_S = 10.0  # the most a start waits for the locks' answer (a retake: the same, or what is left)


@dataclass(frozen=True)
class LeaseTiming:
    """The lease's clock, in seconds. ``valid_s`` must be the same in every process of a fleet (it is a
    constant of the code; tests shorten it everywhere at once) and more than ``check_s`` plus a slow
    round trip, or a busy database makes the lease blink off between two round trips."""

    check_s: float = 1.0  # a round trip on the locks' connection this often
    valid_s: float = 3.0  # a round trip is trusted this long after it was sent; a new holder waits this long
    retake_s: float = DEFAULT_RETAKE_S  # after the connection dropped, try to take the shards back this long
    retry_s: float = 0.5  # between two tries

    def __post_init__(self) -> None:
        if not 0 < self.check_s < self.valid_s or self.retake_s < 0 or self.retry_s <= 0:
            raise ValueError(f"a lease needs 0 < check_s < valid_s, retake_s >= 0, retry_s > 0: {self}")

    @property
    def answer_s(self) -> float:
        """How long a round trip may take: past it, the connection is given up on (and, by then, a
        round trip sent a check earlier is no longer trusted either)."""
        return max(self.check_s, self.valid_s - self.check_s)


class _Session:
    """One connection holding (or taking) the locks, used only on a thread of its own: a round trip
    that hangs (a network cut) is given up on without ever touching the connection from elsewhere."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn
        self.pid = 0
        self.started: Any = None  # the server's backend_start: (pid, backend_start) names a session
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="skybo-shard-lease")

    @classmethod
    def open(cls, db: PostgresDatabase) -> _Session:
        return cls(db.connect_apart())

    def call(self, fn: Callable[[psycopg.Connection[Any]], T], timeout: float | None = None) -> T:
        """``fn(conn)`` on the session's thread; TimeoutError if it has not returned within ``timeout``."""
        future: Future[T] = self._thread.submit(fn, self.conn)
        try:
            return future.result(timeout)
        except FutureTimeout:
            raise TimeoutError(f"no answer within {timeout} s") from None

    def close(self, wait: float = CLOSE_WAIT_S, unlock: bool = False) -> None:
        """Ends the session (its locks go with it) once its thread is free, waiting at most ``wait``
        seconds for that (0: a session whose thread may hang on a dead network).

        ``unlock`` (a session that just answered): the locks are given back first, in a round trip.
        Closing alone only asks the server to end the session, whose locks stay granted until its
        backend has exited, a moment later (longer on a busy machine): a process taking the shards
        right after a release (a restart, a replacement) would be refused them meanwhile."""

        def close(conn: psycopg.Connection[Any]) -> None:
            if unlock:
                with contextlib.suppress(psycopg.Error, OSError):
                    conn.execute("SELECT pg_advisory_unlock_all()")
            with contextlib.suppress(psycopg.Error, OSError):
                conn.close()

        try:
            done = self._thread.submit(close, self.conn)
        except RuntimeError:  # already closed
            return
        self._thread.shutdown(wait=False)
        if wait > 0:
            with contextlib.suppress(FutureTimeout):
                done.result(wait)


class PostgresShardLease:
    """The shards a process holds, on a dedicated connection watched by a keeper thread;
    :meth:`release` (or the end of the process) gives them back.

    :meth:`serving`: may the process act for its shards at this instant (answer clicks, fire timers,
    play computer seats)? :attr:`state`: ``held``, ``retaking``, ``lost`` or ``released``;
    :attr:`epoch`: how many times the shards were taken (1 at start, +1 at each taking back).
    :meth:`wait_change` wakes at every change of those (and when the start's wait is over)."""

    def __init__(
        self,
        db: PostgresDatabase,
        count: int,
        shards: tuple[int, ...],
        timing: LeaseTiming,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self._db = db
        self.where = db.where
        self.count = count
        self.shards = shards
        self.timing = timing
        self._loop = loop
        self._lock = threading.Lock()
        self._session: _Session | None = None
        self._state = HELD
        self._unlock = False  # release(): give the locks back in a round trip before closing
        self.epoch = 0
        self.lost_reason = ""  # why the lease was lost for good ("taken", "expired")
        self.lost_at: float | None = None  # monotonic time of the last drop of the connection
        self._serve_from = 0.0  # monotonic: the new holder's wait ends
        self._valid_until = 0.0  # monotonic: the last trusted round trip's end of trust
        self._announced = 0  # the epoch whose serving was announced (wait_change)
        # Every session this lease opened, as (pid, backend_start): a lock held by one of them is ours.
        self._ours: set[tuple[int, Any]] = set()
        self._stop = threading.Event()
        self._keeper: threading.Thread | None = None
        self._version = 0
        self._changed = asyncio.Event()

    # ------------------------------------------------------------------ taking

    @classmethod
    async def acquire(
        cls,
        db: PostgresDatabase,
        count: int,
        shards: Sequence[int],
        timing: LeaseTiming | None = None,
    ) -> PostgresShardLease:
        """Hold ``shards`` of ``count`` on a new connection to ``db``'s database, or raise ShardsTaken.
        The lease serves ``timing.valid_s`` later (:meth:`wait_serving`)."""
        lease = cls(db, count, tuple(shards), timing or LeaseTiming(), asyncio.get_running_loop())
        session = await asyncio.to_thread(_Session.open, db)
        try:
            sent = time.monotonic()
            # Bounded like a retake's (a database that stops answering mid-way, a cut network): an
            # unbounded wait here held its thread, and a process's start, forever.
            await asyncio.to_thread(session.call, lease._taker(session), TAKE_ANSWER_S)
        except ShardsTaken:  # refused in an answer: the locks taken so far go back at once
            await asyncio.to_thread(session.close, CLOSE_WAIT_S, True)
            raise
        except TimeoutError:  # its thread may hang on: the session ends once it is free
            await asyncio.to_thread(session.close, 0)
            raise ConnectionLost(
                lease.where,
                f"no answer within {TAKE_ANSWER_S:g} s while taking the shards",
                "check that PostgreSQL is up and answers (another session may hold a lock it waits for)",
            ) from None
        except BaseException:
            await asyncio.to_thread(session.close)  # ends the session: any lock taken so far goes with it
            raise
        lease._took(session, sent, time.monotonic())
        lease._keeper = threading.Thread(target=lease._keep, name="skybo-shard-keeper", daemon=True)
        lease._keeper.start()
        return lease

    def _taker(self, session: _Session) -> Callable[[psycopg.Connection[Any]], None]:
        """Takes the locks on ``session`` (bound now: a try given up on may still run later)."""
        return functools.partial(
            _take, where=self.where, count=self.count, shards=self.shards, session=session
        )

    def _took(self, session: _Session, sent: float, got: float) -> None:
        with self._lock:
            if self._state == RELEASED:  # given back meanwhile: so is this
                session.close(wait=0)
                return
            self._session = session
            self._ours.add((session.pid, session.started))
            self.epoch += 1
            self._serve_from = got + self.timing.valid_s
            self._valid_until = sent + self.timing.valid_s
            self._state = HELD

    # ------------------------------------------------------------------ what the process asks

    @property
    def state(self) -> str:
        return self._state

    def serving(self, at: float | None = None) -> bool:
        """True if this process may act for its shards now (or at the monotonic time ``at``, near now:
        tests compare two leases at one instant): the locks are held, trusted, and the wait of a new
        holder is over. Instant (no round trip): ask it for every click."""
        now = time.monotonic() if at is None else at
        with self._lock:
            return self._state == HELD and self._serve_from <= now < self._valid_until

    async def alive(self) -> bool:
        """True while the locks are known held (the last round trip is trusted), the new holder's wait
        included. Not whether the process may act: :meth:`serving` (the health check asks the bot's
        ``may_serve``, which is False during that wait too)."""
        now = time.monotonic()
        with self._lock:
            return self._state == HELD and now < self._valid_until

    async def wait_change(self, seen: int) -> int:
        """Wait until something changed since ``seen`` (the value this returned last; 0 at first)."""
        while self._version == seen:
            await self._changed.wait()
        return self._version

    async def wait_serving(self) -> bool:
        """Wait until the lease serves (True), or is lost or released (False)."""
        seen = 0
        while True:
            if self.serving():
                return True
            if self._state in (LOST, RELEASED):
                return False
            seen = await self.wait_change(seen)

    async def release(self) -> None:
        with self._lock:
            # the connection answered lately: its locks are given back in a round trip (else let go)
            self._unlock = self._state == HELD and time.monotonic() < self._valid_until
            if self._state != LOST:
                self._state = RELEASED
        self._stop.set()
        keeper = self._keeper
        if keeper is not None and keeper is not threading.current_thread():
            await asyncio.to_thread(keeper.join, self.timing.check_s + self.timing.valid_s + 5)
        session, self._session = self._session, None
        if session is not None:
            await asyncio.to_thread(session.close, CLOSE_WAIT_S, self._unlock)

    # ------------------------------------------------------------------ the keeper thread

    def _post(self) -> None:
        """Tell the event loop that something changed (from the keeper thread)."""

        def bump() -> None:
            self._version += 1
            changed, self._changed = self._changed, asyncio.Event()
            changed.set()

        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is listening
            self._loop.call_soon_threadsafe(bump)

    def _keep(self) -> None:
        next_check = time.monotonic()
        try:
            while not self._stop.is_set():
                if self._state == RETAKING:
                    self._retake()
                    next_check = time.monotonic()
                    continue
                if self._state != HELD:
                    return
                wake = next_check if self._announced == self.epoch else min(next_check, self._serve_from)
                if self._stop.wait(max(0.0, wake - time.monotonic())):
                    return
                if time.monotonic() >= next_check:
                    next_check = time.monotonic() + self.timing.check_s
                    self._check()
                if self._announced != self.epoch and self.serving():
                    self._announced = self.epoch
                    self._post()
        except Exception:
            log.exception("shard lease keeper failed", extra={"shards": list(self.shards)})
            self._lose("keeper failed")
        finally:
            if self._state in (LOST, RELEASED) or self._stop.is_set():
                session, self._session = self._session, None
                if session is not None:
                    # given back: its locks at once (lost: the connection may hang, just let it go)
                    session.close(unlock=self._state == RELEASED and self._unlock)

    def _check(self) -> None:
        """One round trip on the locks' connection; a failure (or no answer in ``answer_s``) means the
        session may be gone: stop serving at once and take the shards back."""
        session = self._session
        assert session is not None
        sent = time.monotonic()
        try:
            session.call(lambda conn: conn.execute("SELECT 1"), timeout=self.timing.answer_s)
        except (psycopg.Error, OSError, TimeoutError) as error:
            with self._lock:
                if self._state != HELD:
                    return
                self._valid_until = 0.0  # before anything else: no more serving
                self._state = RETAKING
                self.lost_at = time.monotonic()
            log.warning(
                "shard lease connection lost: taking the shards back",
                extra={
                    "shards": list(self.shards),
                    "within_s": self.timing.retake_s,
                    "error": str(error)[:200],
                },
            )
            self._post()
            return
        with self._lock:
            if self._state == HELD:
                self._valid_until = max(self._valid_until, sent + self.timing.valid_s)

    def _retake(self) -> None:
        old = self._session
        assert old is not None and self.lost_at is not None
        old.close(wait=0)  # it may hang; if the server still has it, the retake below ends it
        deadline = self.lost_at + self.timing.retake_s
        while not self._stop.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                self._lose("expired")
                return
            try:
                session = _Session.open(self._db)
            except StorageError:
                self._stop.wait(self.timing.retry_s)
                continue
            sent = time.monotonic()
            try:
                session.call(self._taker(session), timeout=max(0.1, min(TAKE_ANSWER_S, left)))
            except ShardsTaken as taken:
                self._ours.add((session.pid, session.started))
                holders = set() if taken.other_counts else self._holders(session, taken.taken)
                session.close(unlock=True)
                if not holders or not holders <= self._ours:
                    self._lose("taken")
                    return
                # Held by a session of this process the server has not seen end (a network cut): end
                # it, and take the shards on the next try.
                self._terminate({pid for pid, _ in holders})
                self._stop.wait(self.timing.retry_s)
                continue
            except (StorageError, psycopg.Error, OSError, TimeoutError):
                if session.pid:  # it may hold some locks until its thread closes it
                    self._ours.add((session.pid, session.started))
                session.close()
                self._stop.wait(self.timing.retry_s)
                continue
            self._took(session, sent, time.monotonic())
            log.warning(
                "shard lease taken back",
                extra={
                    "shards": list(self.shards),
                    "after_s": round(time.monotonic() - self.lost_at, 2),
                    "serving_in_s": self.timing.valid_s,
                },
            )
            self._post()
            return

    def _holders(self, session: _Session, shards: tuple[int, ...]) -> set[tuple[int, Any]]:
        """The sessions, as (pid, backend_start), holding ``shards`` (empty if that cannot be read)."""

        def holders(conn: psycopg.Connection[Any]) -> set[tuple[int, Any]]:
            rows = conn.execute(
                "SELECT l.pid, a.backend_start FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid"
                " WHERE l.locktype = 'advisory' AND l.classid = %s AND l.objsubid = 2 AND l.granted"
                " AND l.objid = ANY(%s) AND l.database = (SELECT oid FROM pg_database"
                " WHERE datname = current_database())",
                (SHARD_LOCK, list(shards)),
            ).fetchall()
            return {(int(row[0]), row[1]) for row in rows}

        try:
            return session.call(holders, timeout=10.0)
        except (psycopg.Error, OSError, TimeoutError):
            return set()

    def _terminate(self, pids: set[int]) -> None:
        log.warning("shard lease: ending this process's earlier session", extra={"pids": sorted(pids)})
        try:
            closer = _Session.open(self._db)
        except StorageError:
            return

        def terminate(conn: psycopg.Connection[Any]) -> None:
            for pid in pids:
                conn.execute("SELECT pg_terminate_backend(%s)", (pid,))

        try:
            closer.call(terminate, 10.0)
        except (psycopg.Error, OSError, TimeoutError):
            pass
        finally:
            closer.close()

    def _lose(self, reason: str) -> None:
        with self._lock:
            self._valid_until = 0.0
            if self._state != RELEASED:
                self.lost_reason = reason
                self._state = LOST
        log.warning("shard lease given up", extra={"shards": list(self.shards), "reason": reason})
        self._post()


def _take(
    conn: psycopg.Connection[Any],
    where: str,
    count: int,
    shards: tuple[int, ...],
    session: _Session | None = None,
) -> None:
    try:
        if session is not None:
            row = conn.execute(
                "SELECT pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()"
            ).fetchone()
            if row is not None:
                session.pid, session.started = int(row[0]), row[1]
        conn.execute("SELECT pg_advisory_lock_shared(%s, %s)", (COUNT_LOCK, count))
        others = [
            int(row[0])
            for row in conn.execute(
                "SELECT DISTINCT objid FROM pg_locks WHERE locktype = 'advisory' AND classid = %s"
                " AND objsubid = 2 AND granted AND database = (SELECT oid FROM pg_database"
                " WHERE datname = current_database())",
                (COUNT_LOCK,),
            )
            if int(row[0]) != count
        ]
        if others:
            raise ShardsTaken(where, (), count, tuple(sorted(others)))
        taken: list[int] = []
        for shard in shards:
            row = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (SHARD_LOCK, shard)).fetchone()
            if not (row and row[0]):
                taken.append(shard)
    except psycopg.Error as error:
        raise translate(error, where) from error
    if taken:
        raise ShardsTaken(where, tuple(taken), count)
