"""The PostgreSQL backend's own machinery (bot/storage/postgres/database.py), on the real local server:
migrations and their table, a schema newer than the code, clear open errors that never show the
password, the group commit (only a failing write fails), placeholders and numeric results."""

from __future__ import annotations

import asyncio
import socket

import psycopg
import pytest

from bot.storage import ChannelBusy, SchemaTooNew, StaleVersion, Storage, StorageError
from bot.storage.errors import StorageUnusable
from bot.storage.postgres.database import PostgresDatabase, load_migrations
from devtools.pgserver import PASSWORD_ROLE, PostgresServer
from tests.conftest import PgDatabase
from tests.storage.conftest import new_game


async def test_open_migrates_once_and_records_each_migration(pg_dsn: str) -> None:
    db = await PostgresDatabase.open(pg_dsn)
    try:
        assert db.schema_version == len(load_migrations()) == 12
        rows = await db.run(lambda c: c.execute("SELECT version, name FROM schema_migrations").fetchall())
        assert [r[0] for r in rows] == list(range(1, 13)) and rows[0][1] == "0001_initial.sql"
        assert rows[-1][1] == "0012_activity_peers.sql"
    finally:
        await db.close()
    again = await PostgresDatabase.open(pg_dsn)  # nothing to do the second time
    try:
        assert again.schema_version == 12
        count = await again.run(lambda c: c.execute("SELECT count(*) FROM schema_migrations").fetchone())
        assert count == (12,)
    finally:
        await again.close()


async def test_processes_starting_together_migrate_once(pg_dsn: str) -> None:
    opened = await asyncio.gather(*(PostgresDatabase.open(pg_dsn) for _ in range(4)))
    try:
        assert {db.schema_version for db in opened} == {len(load_migrations())}
    finally:
        for db in opened:
            await db.close()


async def test_a_schema_newer_than_the_code_is_refused(pg_dsn: str) -> None:
    db = await PostgresDatabase.open(pg_dsn)
    await db.write(lambda c: c.execute("INSERT INTO schema_migrations VALUES (99, '0099_future.sql', 0)"))
    await db.close()
    with pytest.raises(SchemaTooNew) as raised:
        await PostgresDatabase.open(pg_dsn)
    assert (raised.value.found, raised.value.known) == (99, len(load_migrations()))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_refused_connection_names_host_and_database_never_the_password() -> None:
    port = _free_port()
    with pytest.raises(StorageUnusable) as raised:
        await PostgresDatabase.open(f"postgresql://skybo:s3cret-pw@127.0.0.1:{port}/skybo_prod")
    message = str(raised.value)
    assert f"127.0.0.1:{port}" in message and "skybo_prod" in message and "refused" in message
    assert "s3cret-pw" not in message


async def test_a_missing_database_is_named(pg_server: PostgresServer) -> None:
    with pytest.raises(StorageUnusable, match=r"no_such_db.*no such database"):
        await PostgresDatabase.open(pg_server.dsn("no_such_db"))


async def test_a_malformed_url_is_refused_without_echoing_it() -> None:
    with pytest.raises(StorageError) as raised:
        await PostgresDatabase.open("postgresql://u:pw123@host:notaport/db")
    assert "pw123" not in str(raised.value)


async def test_where_names_the_server_and_database(pg_database: PgDatabase) -> None:
    db = await PostgresDatabase.open(pg_database.tcp_dsn)
    try:
        assert db.where.startswith(f"PostgreSQL database {pg_database.name!r} on 127.0.0.1:")
    finally:
        await db.close()


async def test_group_commit_fails_only_the_failing_write(pg_dsn: str) -> None:
    db = await PostgresDatabase.open(pg_dsn)
    try:
        await db.write(lambda c: c.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)"))

        def insert(k: int):  # type: ignore[no-untyped-def]
            return lambda c: c.execute("INSERT INTO t VALUES (?, ?) RETURNING k", (k, f"v{k}")).fetchone()[0]

        writes = [db.write(insert(k)) for k in (1, 2, 2, 3)]  # the second 2 breaks the primary key
        results = await asyncio.gather(*writes, return_exceptions=True)
        assert results[:2] == [1, 2] and results[3] == 3
        assert isinstance(results[2], StorageError)
        assert isinstance(results[2].__cause__, psycopg.errors.UniqueViolation)
        assert db.is_unique_violation(results[2].__cause__)
        assert db.stats.largest >= 2  # the writes shared a transaction
        rows = await db.run(lambda c: c.execute("SELECT k FROM t ORDER BY k").fetchall())
        assert rows == [(1,), (2,), (3,)]
        # sum of BIGINT is numeric on PostgreSQL: read back as an int, avg as a float (as SQLite)
        total, mean = await db.run(lambda c: c.execute("SELECT sum(k::bigint), avg(k) FROM t").fetchone())
        assert (total, mean) == (6, 2.0) and isinstance(total, int) and isinstance(mean, float)
        many = await db.write(lambda c: c.executemany("INSERT INTO t VALUES (?, ?)", [(4, "a"), (5, "b")]))
        assert many is None
        assert await db.run(lambda c: c.execute("SELECT count(*) FROM t").fetchone()) == (5,)
    finally:
        await db.close()


async def test_a_write_that_swallows_a_failed_statement_fails_alone(pg_dsn: str) -> None:
    db = await PostgresDatabase.open(pg_dsn)
    try:
        await db.write(lambda c: c.execute("CREATE TABLE t (k INTEGER PRIMARY KEY)"))

        def swallow(c):  # type: ignore[no-untyped-def]
            try:
                c.execute("INSERT INTO nowhere VALUES (1)")
            except psycopg.Error:
                return "swallowed"  # PostgreSQL has ended the transaction: this must not commit others away

        good = db.write(lambda c: c.execute("INSERT INTO t VALUES (1)"))
        results = await asyncio.gather(good, db.write(swallow), return_exceptions=True)
        assert isinstance(results[1], StorageError) and "re-raise" in str(results[1])
        assert await db.run(lambda c: c.execute("SELECT k FROM t").fetchall()) == [(1,)]
    finally:
        await db.close()


async def test_game_errors_in_a_group_reach_their_own_callers(pg_dsn: str) -> None:
    """tests/storage/test_group_commit.py's test on PostgreSQL: a stale version and a busy channel in a
    group send it to the savepoint pass, and only they fail."""
    storage = Storage(await PostgresDatabase.open(pg_dsn))
    try:
        games = [await new_game(storage, channel=c) for c in (1, 2, 3)]
        act = {"type": "reveal", "row": 0, "col": 0}
        snapshot = games[0].state.to_dict()
        results = await asyncio.gather(
            storage.games.append_action(games[0].id, 0, 0, act, snapshot),
            storage.games.append_action(games[1].id, 5, 0, act, snapshot),  # stale: the game is at 0
            storage.games.append_action(games[2].id, 0, 0, act, snapshot),
            new_game(storage, channel=2),  # the channel has a game
            new_game(storage, channel=4),
            new_game(storage, channel=4),  # the same channel twice in one group
            return_exceptions=True,
        )
        assert results[0] == 1 and results[2] == 1
        assert isinstance(results[1], StaleVersion)
        assert isinstance(results[3], ChannelBusy) and isinstance(results[5], ChannelBusy)
        assert not isinstance(results[4], BaseException)
        assert storage.db.stats.largest >= 6
        versions = await storage.db.run(lambda c: dict(c.execute("SELECT id, version FROM games")))
        assert versions[games[0].id] == 1 and versions[games[1].id] == 0 and versions[games[2].id] == 1
    finally:
        await storage.close()


async def test_a_lost_connection_fails_its_group_and_the_next_write_reconnects(pg_dsn: str) -> None:
    db = await PostgresDatabase.open(pg_dsn)
    try:
        await db.write(lambda c: c.execute("CREATE TABLE t (k INTEGER PRIMARY KEY)"))
        pid = await db.write(lambda c: c.execute("SELECT pg_backend_pid()").fetchone()[0])
        with psycopg.connect(pg_dsn, autocommit=True) as other:  # the server drops the writer
            assert other.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
        with pytest.raises(StorageUnusable, match="lost the connection"):
            await db.write(lambda c: c.execute("INSERT INTO t VALUES (1)"))
        await db.write(lambda c: c.execute("INSERT INTO t VALUES (2)"))  # on a new connection
        assert await db.run(lambda c: c.execute("SELECT k FROM t").fetchall()) == [(2,)]
    finally:
        await db.close()


@pytest.mark.parametrize("tcp", [True, False], ids=["tcp", "socket"])
async def test_wrong_credentials_stop_the_open_with_one_line_never_the_password(
    pg_server: PostgresServer, pg_database: PgDatabase, pg_password: str, tcp: bool
) -> None:
    wrong = pg_password[::-1]
    url = pg_server.dsn(pg_database.name, user=PASSWORD_ROLE, password=wrong, tcp=tcp)
    with pytest.raises(StorageUnusable) as raised:
        await PostgresDatabase.open(url)
    message = str(raised.value)
    assert "refused the credentials of skybo_password" in message and pg_database.name in message
    assert "\n" not in message and wrong not in message and pg_password not in message
    # The right password opens it (and migrates it): the refusal was about the password.
    db = await PostgresDatabase.open(
        pg_server.dsn(pg_database.name, user=PASSWORD_ROLE, password=pg_password, tcp=tcp)
    )
    try:
        assert db.schema_version > 0
    finally:
        await db.close()
