"""Group commit: writes queued while a transaction commits share the next one (one fsync), each in its
own savepoint; a failing write rolls back alone; callers resume only once the group is committed;
each caller's writes keep their order; a busy database is DatabaseBusy; SIGKILL loses no acknowledged
write even when writes are grouped."""

from __future__ import annotations

import asyncio
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import tests.storage.test_faults as faults
from bot.storage import ChannelBusy, DatabaseBusy, StaleVersion, Storage, StorageError
from bot.storage.sqlite.database import SqliteDatabase
from tests.storage.conftest import REPO, new_game, worker_env


async def _scratch(db: SqliteDatabase) -> list[str]:
    """A scratch table, and the statements the connection runs from now on (BEGIN, COMMIT...)."""
    await db.write(
        lambda c: c.execute("CREATE TABLE scratch (id INTEGER PRIMARY KEY, who TEXT, n INTEGER UNIQUE)")
    )
    statements: list[str] = []
    await db.run(lambda c: c.set_trace_callback(statements.append))
    return statements


def _insert(who: str, n: int) -> Callable[[sqlite3.Connection], int]:
    def work(conn: sqlite3.Connection) -> int:
        return int(conn.execute("INSERT INTO scratch (who, n) VALUES (?, ?)", (who, n)).lastrowid or 0)

    return work


def _count(statements: list[str], word: str) -> int:
    return sum(1 for s in statements if s.strip().upper().startswith(word))


def _rows(path: Path) -> list[tuple[str, int]]:
    """What another connection sees: only committed data."""
    with sqlite3.connect(path) as conn:
        return [(w, n) for w, n in conn.execute("SELECT who, n FROM scratch ORDER BY id")]


class _Blocker:
    """Keeps the connection thread busy until released, so writes pile up behind it."""

    def __init__(self, db: SqliteDatabase) -> None:
        self.event = threading.Event()
        self.task = asyncio.create_task(db.run(lambda c: self.event.wait(10)))

    async def release(self) -> None:
        self.event.set()
        await self.task


async def _until(condition: Callable[[], bool]) -> None:
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition never met")


async def test_concurrent_writes_share_one_transaction(storage: Storage) -> None:
    db = storage.db
    statements = await _scratch(db)
    before = db.stats.transactions
    results = await asyncio.gather(*(db.write(_insert("a", n)) for n in range(20)))
    assert len(set(results)) == 20
    assert db.stats.transactions == before + 1
    assert db.stats.largest >= 20
    assert _count(statements, "BEGIN") == 1 and _count(statements, "COMMIT") == 1
    assert _count(statements, "SAVEPOINT") == 20
    assert [n for _, n in _rows(db.path)] == list(range(20))


async def test_writes_arriving_during_a_commit_form_the_next_group(storage: Storage) -> None:
    db = storage.db
    statements = await _scratch(db)
    blocker = _Blocker(db)
    first = asyncio.create_task(db.write(_insert("first", 0)))
    await _until(
        lambda: db._queue.flusher is not None and not db._queue.pending
    )  # its group is on the thread
    rest = [asyncio.create_task(db.write(_insert("rest", n))) for n in range(1, 9)]
    await _until(lambda: len(db._queue.pending) == 8)
    await blocker.release()
    await asyncio.gather(first, *rest)
    assert _count(statements, "BEGIN") == 2 and _count(statements, "COMMIT") == 2
    assert db.stats.largest == 8
    assert [n for _, n in _rows(db.path)] == list(range(9))


async def test_a_failing_write_rolls_back_alone(storage: Storage) -> None:
    db = storage.db
    statements = await _scratch(db)

    def fails_after_writing(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO scratch (who, n) VALUES ('bad', 100)")
        raise ValueError("no")

    calls = [
        db.write(_insert("ok", 1)),
        db.write(fails_after_writing),
        db.write(_insert("ok", 2)),
        db.write(_insert("dup", 1)),  # UNIQUE(n): sqlite3.IntegrityError, translated
        db.write(_insert("ok", 3)),
    ]
    results = await asyncio.gather(*calls, return_exceptions=True)
    assert isinstance(results[1], ValueError)
    assert isinstance(results[3], StorageError) and isinstance(results[3].__cause__, sqlite3.IntegrityError)
    assert all(isinstance(r, int) for r in (results[0], results[2], results[4]))
    assert _count(statements, "COMMIT") == 1  # one group, committed despite two failures
    assert _rows(db.path) == [("ok", 1), ("ok", 2), ("ok", 3)]


async def test_game_errors_in_a_group_reach_their_own_callers(storage: Storage) -> None:
    games = [await new_game(storage, channel=c) for c in (1, 2, 3)]
    act = {"type": "reveal", "row": 0, "col": 0}
    snapshot = games[0].state.to_dict()
    results = await asyncio.gather(
        storage.games.append_action(games[0].id, 0, 0, act, snapshot),
        storage.games.append_action(games[1].id, 5, 0, act, snapshot),  # stale: the game is at 0
        storage.games.append_action(games[2].id, 0, 0, act, snapshot),
        new_game(storage, channel=2),  # the channel has a game
        new_game(storage, channel=4),
        return_exceptions=True,
    )
    assert results[0] == 1 and results[2] == 1
    assert isinstance(results[1], StaleVersion)
    assert isinstance(results[3], ChannelBusy)
    assert not isinstance(results[4], BaseException)
    assert storage.db.stats.largest >= 5
    versions = await storage.db.run(lambda c: dict(c.execute("SELECT id, version FROM games")))
    assert versions[games[0].id] == 1 and versions[games[1].id] == 0 and versions[games[2].id] == 1


async def test_each_callers_writes_keep_their_order(storage: Storage) -> None:
    db = storage.db
    await _scratch(db)

    async def caller(name: str, base: int) -> None:
        rng = random.Random(name)
        for k in range(15):
            await db.write(_insert(name, base + k))
            if rng.random() < 0.5:
                await asyncio.sleep(0)

    await asyncio.gather(*(caller(f"c{i}", 1000 * i) for i in range(6)))
    # writes queued together from one task run in the order they were queued
    await asyncio.gather(*(db.write(_insert("burst", 9000 + k)) for k in range(30)))
    rows = _rows(db.path)
    for i in range(6):
        mine = [n for who, n in rows if who == f"c{i}"]
        assert mine == [1000 * i + k for k in range(15)]
    assert [n for who, n in rows if who == "burst"] == [9000 + k for k in range(30)]
    assert db.stats.transactions < db.stats.writes  # the callers' writes were grouped


async def test_a_caller_resumes_only_after_its_group_is_committed(storage: Storage) -> None:
    db = storage.db
    await _scratch(db)
    seen: list[bool] = []

    async def write_then_look(n: int) -> None:
        await db.write(_insert("w", n))
        seen.append(("w", n) in _rows(db.path))  # another connection already sees it

    await asyncio.gather(*(write_then_look(n) for n in range(10)))
    assert seen == [True] * 10


async def test_a_write_cancelled_before_it_ran_is_not_written(storage: Storage) -> None:
    db = storage.db
    await _scratch(db)
    blocker = _Blocker(db)
    first = asyncio.create_task(db.write(_insert("kept", 1)))
    await _until(lambda: db._queue.flusher is not None and not db._queue.pending)
    ran: list[int] = []

    def second(conn: sqlite3.Connection) -> None:
        ran.append(1)
        conn.execute("INSERT INTO scratch (who, n) VALUES ('cancelled', 2)")

    dropped = asyncio.create_task(db.write(second))
    await _until(lambda: len(db._queue.pending) == 1)
    dropped.cancel()
    await blocker.release()
    await first
    with pytest.raises(asyncio.CancelledError):
        await dropped
    await db.write(_insert("after", 3))
    assert ran == []
    assert _rows(db.path) == [("kept", 1), ("after", 3)]


async def test_a_transaction_aborted_under_one_write_reruns_the_others(storage: Storage) -> None:
    """SQLite may roll the whole transaction back (disk full, I/O error); simulated by a ROLLBACK."""
    db = storage.db
    statements = await _scratch(db)
    calls: dict[int, int] = {}

    def counted(n: int) -> Callable[[sqlite3.Connection], int]:
        inner = _insert("ok", n)

        def work(conn: sqlite3.Connection) -> int:
            calls[n] = calls.get(n, 0) + 1
            return inner(conn)

        return work

    def aborts(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO scratch (who, n) VALUES ('bad', 99)")
        conn.execute("ROLLBACK")
        raise sqlite3.OperationalError("disk I/O error")

    results = await asyncio.gather(
        db.write(counted(1)),
        db.write(counted(2)),
        db.write(aborts),
        db.write(counted(3)),
        return_exceptions=True,
    )
    assert isinstance(results[2], StorageError) and not isinstance(results[2], DatabaseBusy)
    assert calls == {1: 2, 2: 2, 3: 1}  # 1 and 2 were rolled back with the group and run again
    assert _rows(db.path) == [("ok", 1), ("ok", 2), ("ok", 3)]
    assert _count(statements, "COMMIT") == 1


async def test_a_locked_database_is_database_busy_for_the_whole_group(db_path: Path) -> None:
    async with await Storage.open(db_path, busy_timeout_ms=150) as storage:
        db = storage.db
        await _scratch(db)
        other = sqlite3.connect(db_path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
            results = await asyncio.gather(
                *(db.write(_insert("x", n)) for n in range(5)), return_exceptions=True
            )
            assert all(isinstance(r, DatabaseBusy) for r in results), results
            assert all(
                isinstance(r, BaseException) and isinstance(r.__cause__, sqlite3.OperationalError)
                for r in results
            )
            other.execute("COMMIT")
        finally:
            other.close()
        assert _rows(db_path) == []
        await asyncio.gather(*(db.write(_insert("y", n)) for n in range(5)))  # the lock is free again
        assert len(_rows(db_path)) == 5

        def locked(conn: sqlite3.Connection) -> None:
            raise sqlite3.OperationalError("database is locked")

        busy, written = await asyncio.gather(
            db.write(locked), db.write(_insert("z", 9)), return_exceptions=True
        )
        assert isinstance(busy, DatabaseBusy) and isinstance(written, int) and written > 0


# ------------------------------------------------------------------------------------------ SIGKILL

_WORKER = r"""
import asyncio, random, sys
from bot.service.ledger import GameLedger
from bot.storage import Seat, Storage
from bot.storage.games import canonical_json

async def player(storage, rng, channel, stored):
    while True:
        if stored.finished is not None:
            print(f"FIN {stored.id}", flush=True)
            stored = await GameLedger(storage).create_game(
                guild_id=7, channel_id=channel, kind="skyjo", seed=rng.randrange(2**31),
                seats=[Seat(0, "u", user_id=channel), Seat(1, "c", ai_level="easy")],
                options={"score_limit": 30})
        game = stored.state
        seat = rng.choice(game.seats_to_act())
        action = rng.choice(game.legal_actions(seat))
        await GameLedger(storage).apply_action(stored, seat, action)
        print(f"ACK {stored.id} {stored.version} {seat} {canonical_json(action.to_dict())}", flush=True)
        if storage.db.stats.largest > 1:
            print("GROUPED", flush=True)

async def main(path, seed, count):
    rng = random.Random(seed)
    storage = await Storage.open(path, synchronous="FULL")
    loaded = await GameLedger(storage).load_active(verify="full")
    print(f"LOADED {len(loaded.games)} quarantined={len(loaded.quarantined)}", flush=True)
    games = {g.channel_id: g for g in loaded.games}
    for channel in range(1, count + 1):
        if channel not in games:
            games[channel] = await GameLedger(storage).create_game(
                guild_id=7, channel_id=channel, kind="skyjo", seed=rng.randrange(2**31),
                seats=[Seat(0, "u", user_id=channel), Seat(1, "c", ai_level="easy")],
                options={"score_limit": 30})
    await asyncio.gather(*(player(storage, random.Random(seed * 100 + c), c, g) for c, g in games.items()))

asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
"""


def test_sigkill_during_group_commits_loses_no_acknowledged_write(tmp_path: Path) -> None:
    """Like test_faults, but 12 games play concurrently, so their writes are committed in groups."""
    path = tmp_path / "grouped.sqlite3"
    rng = random.Random(7)
    acked: dict[tuple[int, int], tuple[int, str]] = {}
    last_version: dict[int, int] = {}
    grouped = False
    for run in range(1, 11):
        proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(path), str(run), "12"],
            cwd=REPO,
            env=worker_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("LOADED") and "quarantined=0" in line, line
        time.sleep(rng.uniform(0.05, 0.4))
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == -signal.SIGKILL, err
        assert "Traceback" not in err, err
        for line in out.splitlines(keepends=True):
            if not line.endswith("\n"):
                continue  # cut off by the kill: not an acknowledgement
            parts = line.split(" ", 4)
            if line.strip() == "GROUPED":
                grouped = True
            elif parts[0] == "ACK":
                game_id, version, seat = int(parts[1]), int(parts[2]), int(parts[3])
                assert version > last_version.get(game_id, 0), (game_id, version)
                last_version[game_id] = version
                acked[(game_id, version)] = (seat, parts[4].rstrip("\n"))
        faults._check_database(path, acked)
    assert grouped, "the writes were never grouped: the test did not exercise group commit"
    assert len(acked) > 200, len(acked)
