"""The connection: pragmas, default path, numbered migrations tracked with PRAGMA user_version."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.storage import SchemaTooNew, Storage, StorageError
from bot.storage.sqlite.database import Migration, apply_migrations, load_migrations, split_statements


def _user_version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


async def test_pragmas_are_set(storage: Storage) -> None:
    def read(conn: sqlite3.Connection) -> tuple[str, int, int, int]:
        return (
            conn.execute("PRAGMA journal_mode").fetchone()[0],
            conn.execute("PRAGMA foreign_keys").fetchone()[0],
            conn.execute("PRAGMA synchronous").fetchone()[0],
            conn.execute("PRAGMA busy_timeout").fetchone()[0],
        )

    journal, foreign_keys, synchronous, busy = await storage.db.run(read)
    assert journal == "wal"
    assert foreign_keys == 1
    assert synchronous == 2  # FULL
    assert busy == 5000


async def test_synchronous_is_configurable(tmp_path: Path) -> None:
    async with await Storage.open(tmp_path / "n.sqlite3", synchronous="normal") as storage:
        assert await storage.db.run(lambda c: c.execute("PRAGMA synchronous").fetchone()[0]) == 1


async def test_default_path_comes_from_settings_and_folder_is_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "deep" / "er" / "bot.sqlite3"
    monkeypatch.setenv("DATABASE_PATH", str(target))
    monkeypatch.setenv("SQLITE_SYNCHRONOUS", "EXTRA")
    async with await Storage.open() as storage:
        assert storage.db.path == target
        assert await storage.db.run(lambda c: c.execute("PRAGMA synchronous").fetchone()[0]) == 3
    assert target.exists()


async def test_migrations_are_tracked_and_idempotent(db_path: Path) -> None:
    migrations = load_migrations()
    assert [m.number for m in migrations] == list(range(1, len(migrations) + 1))
    async with await Storage.open(db_path) as storage:
        assert storage.db.schema_version == len(migrations)
        tables = await storage.db.run(
            lambda c: {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        )
    assert {"games", "game_seats", "game_actions", "game_results", "ratings", "rating_history"} <= tables
    assert _user_version(db_path) == len(migrations)
    async with await Storage.open(db_path) as storage:  # a second start changes nothing
        assert storage.db.schema_version == len(migrations)
    with sqlite3.connect(db_path, isolation_level=None) as conn:
        assert apply_migrations(conn, migrations) == len(migrations)
        assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 0


def test_migrations_apply_in_one_transaction(tmp_path: Path) -> None:
    good = Migration(1, "0001_a.sql", "CREATE TABLE a (x INTEGER);\nCREATE TABLE b (y INTEGER);")
    bad = Migration(2, "0002_b.sql", "CREATE TABLE c (z INTEGER);\nTHIS IS NOT SQL;")
    with sqlite3.connect(tmp_path / "m.sqlite3", isolation_level=None) as conn:
        with pytest.raises(sqlite3.OperationalError):
            apply_migrations(conn, [good, bad])
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0  # nothing half-applied
        assert apply_migrations(conn, [good]) == 1
        fixed = Migration(2, "0002_b.sql", "CREATE TABLE c (z INTEGER);")
        assert apply_migrations(conn, [good, fixed]) == 2  # only 0002 runs now
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert names == {"a", "b", "c"}


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "new.sqlite3", isolation_level=None) as conn:
        conn.execute("PRAGMA user_version = 99")
        with pytest.raises(SchemaTooNew):
            apply_migrations(conn, load_migrations())


def test_split_statements_keeps_triggers_whole() -> None:
    script = """
    -- a comment
    CREATE TABLE t (x INTEGER); -- trailing
    CREATE TRIGGER t_ai AFTER INSERT ON t BEGIN
        UPDATE t SET x = x + 1;
        SELECT 1;
    END;
    -- the end
    """
    statements = split_statements(script)
    assert len(statements) == 2
    assert statements[1].startswith("-- trailing") or "CREATE TRIGGER" in statements[1]
    assert statements[1].rstrip().endswith("END;")
    with pytest.raises(StorageError):
        split_statements("CREATE TABLE x (a")
