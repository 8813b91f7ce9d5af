"""Commits retried exactly once, never applied twice (issue 37, item 2), and a game that keeps its last
committed state when it cannot be read again (item 1), on both backends.

A commit that fails on a transient fault (a dropped connection, a server away, a busy lock, an I/O
error) is made once more after a pause in which the backend reconnects. Each action carries an
idempotency key (the click's interaction id) logged with it: when the first commit had in fact landed
(its COMMIT reached the server, the answer was lost), the retry finds the key logged at that version
and takes the move as done. The tests make each case happen for real where it can:

- PostgreSQL, the answer of a COMMIT lost: a server of its own waits, after writing the commit, for a
  synchronous standby that does not exist (``synchronous_standby_names``; one insert turns
  ``synchronous_commit`` on); its session is then terminated from another connection: the transaction
  is committed, the client gets "terminating connection", exactly what an operator's
  ``pg_terminate_backend`` at the wrong moment does;
- PostgreSQL, the connection gone before the commit: the bot's sessions terminated;
- SQLite, a lock held longer than the busy timeout (a real SQLITE_BUSY), released before the retry;
- SQLite, a COMMIT that lands but reports an I/O error: the driver layer's ``run_batch`` commits, then
  raises the error SQLite would (SQLite has no server whose answer could be lost).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bot.games.skyjo import engine as skyjo
from bot.service.ledger import GameLedger
from bot.storage import Storage, StoredGame
from bot.storage.errors import ConnectionLost, NeedsReload, StaleVersion
from bot.storage.export import export_game
from bot.storage.game_log import _appender
from bot.storage.games import canonical_json
from bot.storage.postgres.database import PostgresDatabase
from bot.storage.sqlite import database as sqlite_database
from devtools.pgserver import PostgresServer
from tests.conftest import PgDatabase
from tests.storage.conftest import Backend, new_game, play

KEY = 1_400_000_000_000_000_123  # a Discord snowflake, as interaction ids are


def a_move(stored: StoredGame) -> tuple[int, Any]:
    seat = stored.state.seats_to_act()[0]
    return seat, stored.state.legal_actions(seat)[0]


async def log_of(storage: Storage, game_id: int) -> list[tuple[int, int, int | None]]:
    return [(a.seq, a.seat, a.key) for a in await storage.games.actions(game_id)]


# ------------------------------------------------------------------------------------------ the key


async def test_the_key_is_logged_with_its_action_and_exported(backend: Backend, any_storage: Storage) -> None:
    stored = await new_game(any_storage)
    await play(any_storage, stored, 3)
    seat, move = a_move(stored)
    await GameLedger(any_storage).apply_action(stored, seat, move, key=KEY)
    actions = await any_storage.games.actions(stored.id)
    assert [a.key for a in actions] == [None, None, None, KEY]  # unkeyed: computer, timer, tool
    assert backend.row("SELECT idempotency_key FROM game_actions WHERE seq = 4")[0] == KEY
    target = {"url": backend.target} if backend.kind == "postgres" else {}
    exported = await export_game(None if target else backend.target, stored.id, **target)
    assert [a["key"] for a in exported["actions"]] == [None, None, None, KEY]
    # One action per click in a game: the schema refuses the same key twice.
    with pytest.raises(backend.unique_violation):
        backend.execute(
            "INSERT INTO game_actions (game_id, seq, seat, action, created_at, idempotency_key)"
            " VALUES (?, 5, 0, '{}', 0, ?)",
            stored.id,
            KEY,
        )


async def test_a_retry_of_a_commit_that_landed_writes_nothing(any_storage: Storage) -> None:
    """The unit of work of a retry: the key (or, without one, the same seat and action) found at the
    new version means done; another action there is a stale version; nothing there, it writes."""
    games = any_storage.games
    stored = await new_game(any_storage)
    await play(any_storage, stored, 2)
    seat, move = a_move(stored)
    action, before = move.to_dict(), stored.version
    after = json.loads(canonical_json(stored.state.to_dict()))  # any snapshot: never written below
    await games.append_action(stored.id, before, seat, action, after, key=KEY)
    logged = await log_of(any_storage, stored.id)

    retry = _appender(stored.id, before, seat, action, after, key=KEY, retry=True)
    assert await any_storage.db.write(retry) == (before + 1, True)
    other_key = _appender(stored.id, before, seat, action, after, key=KEY + 1, retry=True)
    with pytest.raises(StaleVersion):
        await any_storage.db.write(other_key)
    assert await log_of(any_storage, stored.id) == logged  # one action, once

    # Without a key (a computer player), the same seat and action at that version are the same log.
    await games.append_action(stored.id, before + 1, 1, {"type": "reveal", "pos": 0}, after)
    unkeyed = _appender(stored.id, before + 1, 1, {"type": "reveal", "pos": 0}, after, retry=True)
    assert await any_storage.db.write(unkeyed) == (before + 2, True)
    different = _appender(stored.id, before + 1, 1, {"type": "reveal", "pos": 1}, after, retry=True)
    with pytest.raises(StaleVersion):
        await any_storage.db.write(different)
    # Nothing at the new version yet: the retry appends as the first commit would have.
    fresh = _appender(stored.id, before + 2, 0, {"type": "reveal", "pos": 2}, after, key=KEY + 2, retry=True)
    assert await any_storage.db.write(fresh) == (before + 3, False)
    assert [a[2] for a in await log_of(any_storage, stored.id)][-3:] == [KEY, None, KEY + 2]


# ------------------------------------------------------------------------------------------ PostgreSQL


@pytest.fixture
def waiting_server(pg_start: Callable[..., PostgresServer]) -> tuple[PostgresServer, str]:
    """A server of its own whose commits wait for a synchronous standby that never comes, when asked:
    every commit is local by default (``synchronous_commit = local``), so it works as usual until a
    transaction turns ``synchronous_commit`` on for itself."""
    server = pg_start(settings={"synchronous_standby_names": "nobody", "synchronous_commit": "local"})
    return server, server.create_database("blink")


def terminate_when_waiting(server: PostgresServer, database: str, seconds: float = 10.0) -> int:
    """Wait until a session of ``database`` waits for its commit's standby, then terminate it: its
    transaction is committed, its answer never sent. Returns the pid."""
    deadline = time.monotonic() + seconds
    with server.admin() as admin:
        while time.monotonic() < deadline:
            row = admin.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND wait_event = 'SyncRep'",
                (database,),
            ).fetchone()
            if row is not None:
                admin.execute("SELECT pg_terminate_backend(%s)", (row[0],))
                return int(row[0])
            time.sleep(0.005)
    raise AssertionError("no commit waited for its standby")


async def test_postgres_a_commit_whose_answer_was_lost_is_retried_and_applied_once(
    waiting_server: tuple[PostgresServer, str],
) -> None:
    server, url = waiting_server
    storage = Storage(await PostgresDatabase.open(url))
    try:
        stored = await new_game(storage)
        await play(storage, stored, 4)
        with psycopg.connect(url, autocommit=True) as conn:  # the app role owns the tables
            conn.execute(
                "CREATE FUNCTION wait_for_standby() RETURNS trigger LANGUAGE plpgsql AS"
                " $$ BEGIN PERFORM set_config('synchronous_commit', 'on', true); RETURN NEW; END $$"
            )
            conn.execute(
                "CREATE TRIGGER wait_for_standby AFTER INSERT ON game_actions FOR EACH ROW"
                f" WHEN (NEW.idempotency_key = {KEY}) EXECUTE FUNCTION wait_for_standby()"
            )
        writer = storage.db._writer.info.backend_pid  # type: ignore[attr-defined]
        seat, move = a_move(stored)
        version, state = stored.version, stored.state.to_dict()
        outcomes: list[str] = []
        killer = asyncio.create_task(asyncio.to_thread(terminate_when_waiting, server, "blink"))
        events = await GameLedger(storage).apply_action(stored, seat, move, key=KEY, on_retry=outcomes.append)
        assert await killer == writer  # the bot's writer was the one waiting, and it was terminated
        assert outcomes == ["already_applied"]  # the retry found its key: the first commit had landed
        assert events and stored.version == version + 1 and not stored.needs_reload
        assert stored.state.to_dict() != state
        assert (await log_of(storage, stored.id))[-1] == (version + 1, seat, KEY)
        assert len(await log_of(storage, stored.id)) == version + 1  # applied once
        # The database agrees with the cache, and play goes on (on a new writer connection).
        assert (
            await GameLedger(storage).get_game(stored.id, verify=True)
        ).state.to_dict() == stored.state.to_dict()
        await play(storage, stored, 3)
        assert stored.version == version + 4
        assert storage.db._writer.info.backend_pid != writer  # type: ignore[attr-defined]
    finally:
        await storage.close()


def terminate_sessions(url: str) -> int:
    """The operator's ``pg_terminate_backend`` of every other session of the bot's role (the app role
    may end its own sessions)."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()
    return int(row[0]) if row else 0


@pytest.fixture
async def pg_storage(pg_database: PgDatabase) -> AsyncIterator[Storage]:
    """A Storage on a fresh PostgreSQL database of the session's server (migrated by its open)."""
    opened = Storage(await PostgresDatabase.open(pg_database.dsn))
    try:
        yield opened
    finally:
        await opened.close()


async def test_postgres_a_commit_on_a_dropped_connection_is_retried_and_applied_once(
    pg_database: PgDatabase, pg_storage: Storage
) -> None:
    stored = await new_game(pg_storage)
    await play(pg_storage, stored, 4)
    version = stored.version
    assert terminate_sessions(pg_database.dsn) >= 1  # the bot's writer (and its readers)
    outcomes: list[str] = []
    seat, move = a_move(stored)
    await GameLedger(pg_storage).apply_action(stored, seat, move, key=KEY, on_retry=outcomes.append)
    assert outcomes == ["applied"]
    assert stored.version == version + 1 and not stored.needs_reload
    assert (await log_of(pg_storage, stored.id))[-1] == (version + 1, seat, KEY)
    assert len(await log_of(pg_storage, stored.id)) == version + 1


async def test_postgres_a_game_that_cannot_be_read_again_keeps_its_last_committed_state(
    pg_database: PgDatabase, pg_storage: Storage, pg_server: PostgresServer
) -> None:
    """The commit, its retry and the reload all fail (the server refuses the bot's database): the game
    keeps the state before the action, never None, refuses the next one (NeedsReload) until it is read
    again, then plays on; nothing was applied twice. (SQLite's twin: tests/e2e/test_db_blink.py.)"""
    name = pg_database.name
    stored = await new_game(pg_storage)
    await play(pg_storage, stored, 4)
    version, state, snapshot = stored.version, stored.state.to_dict(), stored.snapshot
    with pg_server.connections_refused(name):
        with pg_server.admin() as conn:
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
        outcomes: list[str] = []
        seat, move = a_move(stored)
        with pytest.raises(ConnectionLost):
            await GameLedger(pg_storage).apply_action(stored, seat, move, key=KEY, on_retry=outcomes.append)
        assert outcomes == ["failed"]
        assert stored.needs_reload and stored.state is not None
        assert stored.version == version and stored.state.to_dict() == state and stored.snapshot == snapshot
        with pytest.raises(NeedsReload):
            await GameLedger(pg_storage).apply_action(stored, seat, move, key=KEY + 1)
        assert stored.state.to_dict() == state  # refused before the engine touched it
        with pytest.raises(ConnectionLost):
            await GameLedger(pg_storage).reload(stored)
        assert stored.needs_reload
    await GameLedger(pg_storage).reload(stored)
    assert not stored.needs_reload and stored.version == version and stored.state.to_dict() == state
    await GameLedger(pg_storage).apply_action(stored, seat, move, key=KEY)
    assert (await log_of(pg_storage, stored.id))[-1] == (version + 1, seat, KEY)
    assert len(await log_of(pg_storage, stored.id)) == version + 1


# ------------------------------------------------------------------------------------------ SQLite


class _OnRetry(logging.Handler):
    """Sets ``event`` when storage says it will retry a commit (its log line, before the pause)."""

    def __init__(self, event: threading.Event) -> None:
        super().__init__()
        self.event = event

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("storage.commit_retry "):
            self.event.set()


async def test_sqlite_a_commit_that_met_a_busy_lock_is_retried_and_applied_once(tmp_path: Path) -> None:
    """Another process holds the write lock longer than the busy timeout: the commit meets a real
    SQLITE_BUSY (DatabaseBusy), the lock is let go, and the one retry commits."""
    path = tmp_path / "busy.sqlite3"
    storage = await Storage.open(path, synchronous="FULL", busy_timeout_ms=200)
    retrying = threading.Event()
    handler = _OnRetry(retrying)
    logging.getLogger("bot.storage.games").addHandler(handler)
    try:
        stored = await new_game(storage)
        await play(storage, stored, 4)
        version = stored.version
        held = threading.Event()

        def hold_the_write_lock() -> None:  # another process's long write, until the commit gave up
            with sqlite3.connect(path, isolation_level=None) as other:
                other.execute("BEGIN IMMEDIATE")
                held.set()
                retrying.wait(10)
                other.execute("COMMIT")

        holder = threading.Thread(target=hold_the_write_lock)
        holder.start()
        assert held.wait(5)
        outcomes: list[str] = []
        seat, move = a_move(stored)
        await GameLedger(storage).apply_action(stored, seat, move, key=KEY, on_retry=outcomes.append)
        holder.join()
        assert retrying.is_set() and outcomes == ["applied"]
        assert stored.version == version + 1
        assert (await log_of(storage, stored.id))[-1] == (version + 1, seat, KEY)
        assert len(await log_of(storage, stored.id)) == version + 1
    finally:
        logging.getLogger("bot.storage.games").removeHandler(handler)
        await storage.close()


class _LostCommitAnswer:
    """``run_batch`` (the SQLite backend's group transaction) that commits its group for real, then,
    once, raises the I/O error SQLite reports when the disk fails under a COMMIT."""

    def __init__(self, real: Callable[..., Any]) -> None:
        self.real = real
        self.armed = False
        self.fired = 0

    def __call__(self, conn: sqlite3.Connection, fns: Any) -> Any:
        outcomes = self.real(conn, fns)
        if self.armed:
            self.armed = False
            self.fired += 1
            error = sqlite3.OperationalError("disk I/O error")
            error.sqlite_errorcode = sqlite3.SQLITE_IOERR_FSYNC  # type: ignore[misc]
            raise error
        return outcomes


@pytest.mark.parametrize("final", [False, True], ids=["a move", "the move that ends the game"])
async def test_sqlite_a_commit_that_landed_but_reported_an_error_is_applied_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, final: bool
) -> None:
    lost = _LostCommitAnswer(sqlite_database.run_batch)
    monkeypatch.setattr(sqlite_database, "run_batch", lost)
    storage = await Storage.open(tmp_path / "lost.sqlite3", synchronous="FULL")
    try:
        stored = await new_game(storage, options={"score_limit": 10})
        if final:  # up to the move that ends the game (results, ratings)
            seat, move = await _play_until_a_move_ends_it(storage, stored)
        else:
            await play(storage, stored, 4)
            seat, move = a_move(stored)
        version = stored.version
        outcomes: list[str] = []
        lost.armed = True
        await GameLedger(storage).apply_action(stored, seat, move, key=KEY, on_retry=outcomes.append)
        assert lost.fired == 1 and outcomes == ["already_applied"]
        assert stored.version == version + 1
        actions = await log_of(storage, stored.id)
        assert actions[-1] == (version + 1, seat, KEY) and len(actions) == version + 1
        if final:
            assert stored.status == "finished" and stored.finished is not None
            assert stored.finished.results == await storage.results.for_game(stored.id)
            assert stored.finished.rating_changes == await storage.ratings.changes_for_game(stored.id)
            assert len(stored.finished.rating_changes) == 4  # two seats, two scopes: read back
    finally:
        await storage.close()


async def _play_until_a_move_ends_it(storage: Storage, stored: StoredGame) -> tuple[int, Any]:
    """Random legal moves until one of the legal moves would end the game; returns that one."""
    rng = random.Random(3)
    while True:
        for seat in stored.state.seats_to_act():
            for move in stored.state.legal_actions(seat):
                probe = skyjo.State.from_dict(stored.state.to_dict())
                probe.apply(seat, move)
                if probe.is_over:
                    return seat, move
        seat = rng.choice(stored.state.seats_to_act())
        await GameLedger(storage).apply_action(stored, seat, rng.choice(stored.state.legal_actions(seat)))
