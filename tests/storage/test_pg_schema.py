"""The PostgreSQL migrations (bot/storage/postgres/migrations) against their SQLite twins (issue 24).

Both folders hold the same numbered migrations, and once applied they give the same schema: the same
tables, the same columns in the same order (with matching type families, nullability and defaults), the
same explicitly created indexes, foreign keys and triggers. The PostgreSQL side runs on the real local
server of ``tests/conftest.py`` (no mock).

What is compared, and what is not:

- Indexes: only those created by ``CREATE [UNIQUE] INDEX``. The indexes behind a PRIMARY KEY or UNIQUE
  constraint are named by each engine (``sqlite_autoindex_<table>_<n>`` vs ``<table>_pkey``, and an
  ``INTEGER PRIMARY KEY`` has none at all on SQLite), so they are left out on both sides; the primary
  keys themselves are compared as column nullability and, through the foreign keys, as their targets.
- Types are compared by family: SQLite INTEGER may be PostgreSQL integer or bigint (ids, Discord ids,
  times and sums are bigint), REAL is double precision, TEXT is text (JSON stays TEXT).
- CHECK constraints and partial-index predicates are not read back (SQLite keeps them only as SQL text);
  the smoke test exercises the partial unique index of lobbies.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg.errors import UniqueViolation

from bot.storage.backend import read_migrations
from bot.storage.sqlite.database import apply_migrations, load_migrations
from tests.conftest import PgDatabase

_SAME_FAMILY = {"INTEGER": {"integer", "bigint"}, "REAL": {"double precision"}, "TEXT": {"text"}}
_FK_ACTION = {"a": "NO ACTION", "c": "CASCADE", "r": "RESTRICT", "n": "SET NULL", "d": "SET DEFAULT"}

Columns = list[tuple[str, str, bool, str | None]]  # (name, type, not null, default)


def migration_files(package: str) -> list[tuple[str, str]]:
    """(file name, SQL) of a migrations package, in number order."""
    return [(m.name, m.sql) for m in read_migrations(package)]


def migrate_postgres(dsn: str) -> None:
    """Every PostgreSQL migration in order, in ONE transaction (autocommit off: committed at the end)."""
    with psycopg.connect(dsn, autocommit=False) as conn:
        for _name, sql in migration_files("bot.storage.postgres.migrations"):
            conn.execute(sql)  # no parameters: the server runs the whole file at once
        conn.commit()


def migrate_sqlite() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    apply_migrations(conn, load_migrations())  # the backend's own code path
    return conn


# --- SQLite side -------------------------------------------------------------------------------------


def sqlite_tables(conn: sqlite3.Connection) -> dict[str, Columns]:
    names = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    ]
    tables: dict[str, Columns] = {}
    for name in names:
        tables[name] = [
            (col, decl.upper(), bool(notnull) or pk > 0, default)
            for _cid, col, decl, notnull, default, pk in conn.execute(f"PRAGMA table_info({name})")
        ]
    return tables


def sqlite_indexes(conn: sqlite3.Connection) -> dict[str, tuple[str, bool, bool, list[tuple[str, bool]]]]:
    """Created indexes: name -> (table, unique, partial, [(column, descending)])."""
    found = {}
    for table in sqlite_tables(conn):
        for _seq, name, unique, origin, partial in conn.execute(f"PRAGMA index_list({table})"):
            if origin != "c":  # 'pk' / 'u': the automatic index of a constraint
                continue
            cols = [
                (col, bool(desc))
                for _n, _cid, col, desc, _coll, key in conn.execute(f"PRAGMA index_xinfo({name})")
                if key
            ]
            found[name] = (table, bool(unique), bool(partial), cols)
    return found


def sqlite_foreign_keys(conn: sqlite3.Connection) -> set[tuple[str, str, str, str, str]]:
    """(table, column, referenced table, referenced column, on delete)."""
    return {
        (table, src, ref, dst, on_delete)
        for table in sqlite_tables(conn)
        for _id, _seq, ref, src, dst, _upd, on_delete, _match in conn.execute(
            f"PRAGMA foreign_key_list({table})"
        )
    }


def sqlite_triggers(conn: sqlite3.Connection) -> set[tuple[str, str]]:
    return set(conn.execute("SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'"))


# --- PostgreSQL side ---------------------------------------------------------------------------------


def pg_tables(conn: psycopg.Connection[Any]) -> dict[str, Columns]:
    tables: dict[str, Columns] = {}
    rows = conn.execute(
        "SELECT c.table_name, c.column_name, c.data_type, c.is_nullable, c.column_default"
        " FROM information_schema.columns c"
        " JOIN information_schema.tables t USING (table_schema, table_name)"
        " WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'"
        " ORDER BY c.table_name, c.ordinal_position"
    ).fetchall()
    for table, col, data_type, nullable, default in rows:
        tables.setdefault(table, []).append((col, data_type, nullable == "NO", default))
    return tables


def pg_indexes(conn: psycopg.Connection[Any]) -> dict[str, tuple[str, bool, bool, list[tuple[str, bool]]]]:
    """Indexes that back no constraint: name -> (table, unique, partial, [(column, descending)])."""
    rows = conn.execute(
        "SELECT ic.relname, tc.relname, i.indisunique, i.indpred IS NOT NULL,"
        "  array(SELECT a.attname FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, n)"
        "        JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.n),"
        "  array(SELECT (o.opt & 1) = 1 FROM unnest(i.indoption::int2[]) WITH ORDINALITY o(opt, n)"
        "        ORDER BY o.n)"
        " FROM pg_index i"
        " JOIN pg_class ic ON ic.oid = i.indexrelid"
        " JOIN pg_class tc ON tc.oid = i.indrelid"
        " JOIN pg_namespace ns ON ns.oid = tc.relnamespace"
        " WHERE ns.nspname = 'public'"
        "   AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = i.indexrelid)"
    ).fetchall()
    return {
        name: (table, unique, partial, list(zip(cols, descs, strict=True)))
        for name, table, unique, partial, cols, descs in rows
    }


def pg_foreign_keys(conn: psycopg.Connection[Any]) -> set[tuple[str, str, str, str, str]]:
    rows = conn.execute(
        "SELECT con.conrelid::regclass::text, a.attname, con.confrelid::regclass::text, fa.attname,"
        "  con.confdeltype::text"
        " FROM pg_constraint con"
        " JOIN pg_namespace ns ON ns.oid = con.connamespace"
        " CROSS JOIN LATERAL unnest(con.conkey, con.confkey) AS k(src, dst)"
        " JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.src"
        " JOIN pg_attribute fa ON fa.attrelid = con.confrelid AND fa.attnum = k.dst"
        " WHERE con.contype = 'f' AND ns.nspname = 'public'"
    ).fetchall()
    return {(table, src, ref, dst, _FK_ACTION[action]) for table, src, ref, dst, action in rows}


def pg_triggers(conn: psycopg.Connection[Any]) -> set[tuple[str, str]]:
    rows = conn.execute(
        "SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
        " JOIN pg_namespace ns ON ns.oid = c.relnamespace"
        " WHERE NOT t.tgisinternal AND ns.nspname = 'public'"
    ).fetchall()
    return {(name, table) for name, table in rows}


def _one(cur: psycopg.Cursor[Any]) -> Any:
    row = cur.fetchone()
    assert row is not None
    return row[0]


def _pg_default(default: str | None) -> str | None:
    """``'active'::text`` -> ``'active'``: PostgreSQL spells a literal default with its cast."""
    return None if default is None else re.sub(r"::[a-z ]+$", "", default)


# --- tests -------------------------------------------------------------------------------------------


def test_both_folders_hold_the_same_migrations() -> None:
    sqlite_names = [name for name, _ in migration_files("bot.storage.sqlite.migrations")]
    pg_names = [name for name, _ in migration_files("bot.storage.postgres.migrations")]
    assert sqlite_names, "no SQLite migrations found"
    assert pg_names == sqlite_names
    assert [int(name[:4]) for name in pg_names] == list(range(1, len(pg_names) + 1))
    # and the backend's own loader agrees on the SQLite side
    assert [m.name for m in load_migrations()] == sqlite_names


Schemas = tuple[sqlite3.Connection, psycopg.Connection[Any]]


@pytest.fixture
def schemas(pg_database: PgDatabase) -> Iterator[Schemas]:
    migrate_postgres(pg_database.dsn)
    lite = migrate_sqlite()
    with psycopg.connect(pg_database.dsn) as pg:
        yield lite, pg
    lite.close()


def test_same_tables_and_columns(schemas: Schemas) -> None:
    lite, pg = schemas
    lite_tables, pg_tables_ = sqlite_tables(lite), pg_tables(pg)
    assert sorted(pg_tables_) == sorted(lite_tables)
    for table, lite_cols in lite_tables.items():
        pg_cols = pg_tables_[table]
        assert [c[0] for c in pg_cols] == [c[0] for c in lite_cols], table
        for (name, lite_type, lite_notnull, lite_default), (_, pg_type, pg_notnull, pg_default) in zip(
            lite_cols, pg_cols, strict=True
        ):
            where = f"{table}.{name}"
            assert pg_type in _SAME_FAMILY[lite_type], f"{where}: {lite_type} vs {pg_type}"
            assert pg_notnull == lite_notnull, where
            assert _pg_default(pg_default) == lite_default, where


def test_same_indexes_foreign_keys_and_triggers(schemas: Schemas) -> None:
    lite, pg = schemas
    lite_indexes, pg_indexes_ = sqlite_indexes(lite), pg_indexes(pg)
    assert sorted(pg_indexes_) == sorted(lite_indexes)
    assert pg_indexes_ == lite_indexes
    assert pg_foreign_keys(pg) == sqlite_foreign_keys(lite)
    assert pg_triggers(pg) == sqlite_triggers(lite)


_GAME = (
    "INSERT INTO games (guild_id, channel_id, kind, options, seed, snapshot, snapshot_hash,"
    " created_at, updated_at) VALUES (%s, %s, 'skyjo', '{}', %s, '{}', 'h', 1, 1) RETURNING id"
)
_LOBBY = (
    "INSERT INTO lobbies (guild_id, channel_id, kind, host_id, options, seats, created_at, updated_at)"
    " VALUES (%s, %s, 'skyjo', %s, '{}', '[]', 1, 1) RETURNING id"
)


def test_smoke_rows_ids_and_one_open_lobby_per_channel(pg_database: PgDatabase) -> None:
    migrate_postgres(pg_database.dsn)
    guild, channel, user = 1_100_000_000_000_000_001, 1_200_000_000_000_000_002, 1_300_000_000_000_000_003
    with psycopg.connect(pg_database.dsn, autocommit=False) as conn:
        game_id = _one(conn.execute(_GAME, (guild, channel, 2**62)))
        lobby_id = _one(conn.execute(_LOBBY, (guild, channel, user)))
        assert isinstance(game_id, int) and isinstance(lobby_id, int)
        row = conn.execute("SELECT guild_id, channel_id, seed, status, rated, version FROM games").fetchone()
        assert row == (guild, channel, 2**62, "active", 1, 0)
        # a second active game in the channel, and a second open lobby, are refused by the schema
        with pytest.raises(UniqueViolation), conn.transaction():
            conn.execute(_GAME, (guild, channel, 1))
        with pytest.raises(UniqueViolation), conn.transaction():
            conn.execute(_LOBBY, (guild, channel, user + 1))
        # ...but only while the first is open: the index is partial
        conn.execute("UPDATE lobbies SET status = 'started', game_id = %s WHERE id = %s", (game_id, lobby_id))
        second = _one(conn.execute(_LOBBY, (guild, channel, user)))
        assert second > lobby_id
        # ids may be given explicitly (a copy from SQLite keeps its ids): GENERATED BY DEFAULT
        conn.execute(
            "INSERT INTO lobbies (id, channel_id, kind, host_id, options, seats, created_at, updated_at)"
            " VALUES (1000, 7, 'skyjo', 1, '{}', '[]', 1, 1)"
        )
        conn.commit()


def test_smoke_rating_board_triggers(pg_database: PgDatabase) -> None:
    migrate_postgres(pg_database.dsn)
    insert = (
        "INSERT INTO ratings (kind, scope, player, display_name, mu, sigma, conservative, updated_at)"
        " VALUES ('skyjo', 0, %s, %s, 25.0, 8.3, 0.1, 1)"
    )
    with psycopg.connect(pg_database.dsn) as conn:
        conn.execute(insert, ("user:1", "A"))
        conn.execute(insert, ("user:2", "B"))
        board = "SELECT players FROM rating_boards WHERE kind = 'skyjo' AND scope = 0"
        assert conn.execute(board).fetchone() == (2,)
        conn.execute("DELETE FROM ratings WHERE player = 'user:1'")
        assert conn.execute(board).fetchone() == (1,)
