"""The pipelined first run of a PostgreSQL group (``run_group_pipelined`` in
bot/storage/postgres/database.py), on the real local server: it commits only when every unit of work
saw what it would have seen waiting for each statement (fetched rows are real, predicted row counts
are checked), and otherwise rolls everything back and says so, leaving the connection ready for
``run_group``."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest

from bot.service.ledger import GameLedger
from bot.storage import StaleVersion, Storage
from bot.storage.backend import COMMITTED
from bot.storage.postgres import database as pg_database
from bot.storage.postgres.database import PgConnection, run_group_pipelined
from tests.storage.conftest import new_game


@pytest.fixture
def conn(pg_dsn: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(pg_dsn, autocommit=True) as connection:
        connection.execute("CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        connection.execute("INSERT INTO kv (key, value) VALUES ('x', ''), ('y', '')")
        yield connection


def _state(conn: psycopg.Connection[Any]) -> dict[str, str]:
    assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE  # nothing left open
    return {k: v for k, v in conn.execute("SELECT key, value FROM kv ORDER BY key")}


Work = Callable[[Any], Any]


def _counted(runs: list[str], name: str, fn: Work) -> Work:
    def work(c: Any) -> Any:
        runs.append(name)
        return fn(c)

    return work


def _tag(key: str, text: str) -> Work:
    """A write that tests its row count, as every version-checked update does."""

    def work(c: Any) -> int:
        cursor = c.execute("UPDATE kv SET value = value || ? WHERE key = ?", (text, key))
        if cursor.rowcount != 1:
            raise LookupError(key)
        return len(text)

    return work


def test_a_group_commits_in_one_run(conn: psycopg.Connection[Any]) -> None:
    runs: list[str] = []

    def returning(c: Any) -> str:
        # A fetched row is the server's real answer, mid-group: the write before it is already applied.
        (value,) = c.execute("SELECT value FROM kv WHERE key = ?", ("x",)).fetchone()
        return str(value)

    fns = [
        _counted(runs, "a", _tag("x", "A")),
        _counted(runs, "b", returning),
        _counted(runs, "c", _tag("y", "C")),
    ]

    outcomes = run_group_pipelined(conn, fns)

    assert outcomes == [(COMMITTED, 1), (COMMITTED, "A"), (COMMITTED, 1)]
    assert runs == ["a", "b", "c"]
    assert _state(conn) == {"x": "A", "y": "C"}


def test_a_mispredicted_row_count_rolls_the_group_back(conn: psycopg.Connection[Any]) -> None:
    runs: list[str] = []
    # "z" has no row: its update touches none, but the unit of work was told 1 and went on.
    fns = [
        _counted(runs, "a", _tag("x", "A")),
        _counted(runs, "z", _tag("z", "Z")),
        _counted(runs, "c", _tag("y", "C")),
    ]

    assert run_group_pipelined(conn, fns) is None

    assert runs == ["a", "z", "c"]
    assert _state(conn) == {"x": "", "y": ""}  # nothing of the group was written
    # Waiting for each statement, the same unit of work sees the real count.
    with pytest.raises(LookupError):
        _tag("z", "Z")(PgConnection(conn))


def test_a_failing_statement_rolls_the_group_back(conn: psycopg.Connection[Any]) -> None:
    def duplicate(c: Any) -> None:  # its error arrives only with the sync, after the next writes
        c.execute("INSERT INTO kv (key, value) VALUES (?, '')", ("x",))

    fns = [_tag("x", "A"), duplicate, _tag("y", "C")]

    assert run_group_pipelined(conn, fns) is None
    assert _state(conn) == {"x": "", "y": ""}


def test_an_exception_of_a_unit_of_work_rolls_the_group_back(conn: psycopg.Connection[Any]) -> None:
    def refuses(c: Any) -> None:
        c.execute("UPDATE kv SET value = 'half' WHERE key = ?", ("y",))
        raise ValueError("no")

    assert run_group_pipelined(conn, [_tag("x", "A"), refuses]) is None
    assert _state(conn) == {"x": "", "y": ""}
    # The connection is out of pipeline mode and usable as before.
    assert run_group_pipelined(conn, [_tag("x", "B")]) == [(COMMITTED, 1)]
    assert _state(conn) == {"x": "B", "y": ""}


async def test_through_the_database_a_stale_write_in_a_group_fails_alone(pg_dsn: str) -> None:
    """A group with a stale write: the pipelined run is rolled back, run_group's first pass too, and its
    savepoint pass fails only the stale write; the others commit (the same outcome as without pipelining)."""
    assert pg_database.PIPELINED_GROUPS
    async with await Storage.open(url=pg_dsn) as storage:
        games = [await new_game(storage, channel=c) for c in (1, 2, 3)]
        steps = []
        for stored in games:
            seat = stored.state.seats_to_act()[0]
            steps.append((seat, stored.state.legal_actions(seat)[0]))
        games[1].version = 5  # as if another process had moved it on: stale
        results = await asyncio.gather(
            *(
                GameLedger(storage).apply_action(stored, seat, action)
                for stored, (seat, action) in zip(games, steps, strict=True)
            ),
            return_exceptions=True,
        )
        assert isinstance(results[1], StaleVersion)
        assert not isinstance(results[0], BaseException) and not isinstance(results[2], BaseException)
        assert storage.db.stats.largest == 3  # the three shared one group
        for stored, version in zip(games, (1, 0, 1), strict=True):
            assert (await GameLedger(storage).get_game(stored.id)).version == version
            assert len(await storage.games.actions(stored.id)) == version


def test_a_deadlock_names_the_write_whose_statement_met_it(
    pg_dsn: str, conn: psycopg.Connection[Any]
) -> None:
    """Two pipelined runs lock x and y in crossing orders: the server aborts one; its run is rolled back
    and raises _Conflict naming its second write (the one whose statement met the deadlock)."""
    both_hold = threading.Barrier(2, timeout=10)

    def locking(key: str, then: str) -> list[Work]:
        def first(c: Any) -> None:
            # Fetched, so the row is locked before the barrier: pipelined statements are not waited for.
            c.execute("UPDATE kv SET value = value || 'a' WHERE key = ? RETURNING key", (key,)).fetchone()
            both_hold.wait()

        return [first, _tag(then, "b")]

    outcomes: dict[str, Any] = {}

    def run(name: str, fns: list[Work]) -> None:
        with psycopg.connect(pg_dsn, autocommit=True) as own:
            try:
                outcomes[name] = run_group_pipelined(own, fns)
            except pg_database._Conflict as conflict:
                outcomes[name] = conflict
            assert own.info.transaction_status == psycopg.pq.TransactionStatus.IDLE

    threads = [
        threading.Thread(target=run, args=("A", locking("x", "y"))),
        threading.Thread(target=run, args=("B", locking("y", "x"))),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(15)

    conflicts = [o for o in outcomes.values() if isinstance(o, pg_database._Conflict)]
    committed = [o for o in outcomes.values() if isinstance(o, list)]
    assert len(conflicts) == 1 and len(committed) == 1, outcomes
    assert conflicts[0].index == 1 and isinstance(conflicts[0].error, psycopg.errors.DeadlockDetected)
    assert committed[0] == [(COMMITTED, None), (COMMITTED, 1)]
    winner = "A" if isinstance(outcomes["A"], list) else "B"
    # The winner's writes only: it locked its first row ("a"), then wrote the other ("b").
    assert _state(conn) == ({"x": "a", "y": "b"} if winner == "A" else {"x": "b", "y": "a"})
