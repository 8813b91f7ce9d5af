"""One-shot PostgreSQL connections for the command-line tools: the bulk target of ``migrate-db`` and the
read-only transaction of ``export-game``. No pool, no group commit: one connection, one transaction.

Every psycopg error leaves here as a storage error (:func:`bot.storage.postgres.database.translate`),
so the tools, which live outside the backends, never import the driver; nothing raised or printed holds
the password (a failed connection names the host and the database only).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import psycopg
from psycopg import sql

from bot.storage.postgres.database import (
    PgConnection,
    PostgresDatabase,
    apply_migrations,
    describe,
    load_migrations,
    translate,
)

T = TypeVar("T")

COPY_READ_BATCH = 5000  # rows per fetch of a server-side cursor


def _connect(url: str) -> tuple[psycopg.Connection[Any], str]:
    where, params = describe(url)
    return PostgresDatabase._connect(url, where, params), where


def read_once(url: str, fn: Callable[[PgConnection], T]) -> T:
    """Run the unit of work ``fn`` in one READ ONLY transaction on a connection of its own, then close
    it. Unlike ``Storage.open`` it never migrates: a read changes nothing."""
    conn, where = _connect(url)
    try:
        conn.read_only = True
        with conn.transaction():
            return fn(PgConnection(conn))
    except psycopg.Error as error:
        raise translate(error, where) from error
    finally:
        conn.close()


class BulkTarget:
    """A PostgreSQL database being filled in ONE transaction (``migrate-db``). Use :meth:`connect`, then
    everything inside ``with target.transaction():`` (committed at its end, rolled back on any error)."""

    def __init__(self, conn: psycopg.Connection[Any], where: str) -> None:
        self._conn = conn
        self.where = where

    @classmethod
    def connect(cls, url: str) -> BulkTarget:
        """Connect (a :class:`StorageUnusable` naming the server if it cannot be reached or refuses)."""
        conn, where = _connect(url)
        return cls(conn, where)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        try:
            with self._conn.transaction():
                yield
        except psycopg.Error as error:
            raise translate(error, self.where) from error

    @property
    def connection(self) -> PgConnection:
        """For the shared units of work (``?`` placeholders), inside the transaction."""
        return PgConnection(self._conn)

    def migrate(self) -> int:
        """Apply the migrations the target lacks (a savepoint of the transaction, under the migrations'
        advisory lock, held until the transaction ends); the schema version."""
        return apply_migrations(self._conn, load_migrations())

    def columns(self) -> dict[str, list[tuple[str, str]]]:
        """Every table but the migrations' own: its ``(column, data type)`` in order."""
        found: dict[str, list[tuple[str, str]]] = {}
        for table, column, data_type in self._conn.execute(
            "SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns AS c"
            " JOIN information_schema.tables AS t"
            " ON t.table_schema = c.table_schema AND t.table_name = c.table_name"
            " WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'"
            " AND c.table_name <> 'schema_migrations' ORDER BY c.table_name, c.ordinal_position"
        ):
            found.setdefault(table, []).append((column, data_type))
        return found

    def user_triggers(self) -> list[tuple[str, str]]:
        """``(table, trigger)`` of every trigger the schema created (not the foreign keys' own)."""
        return [
            (str(table), str(trigger))
            for table, trigger in self._conn.execute(
                "SELECT c.relname, t.tgname FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid"
                " JOIN pg_namespace AS n ON n.oid = c.relnamespace"
                " WHERE NOT t.tgisinternal AND n.nspname = current_schema() ORDER BY 1, 2"
            )
        ]

    def lock(self, tables: Sequence[str]) -> None:
        """Keep every other writer out until the transaction ends (readers may still read)."""
        names = sql.SQL(", ").join(sql.Identifier(t) for t in tables)
        self._conn.execute(sql.SQL("LOCK TABLE {} IN EXCLUSIVE MODE").format(names))

    def count(self, table: str) -> int:
        row = self._conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))).fetchone()
        return int(row[0]) if row else 0

    def delete_all(self, table: str) -> None:
        self._conn.execute(sql.SQL("DELETE FROM {}").format(sql.Identifier(table)))

    def copy_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """Stream ``rows`` into ``table`` with COPY (the fastest way in, one round trip per buffer)."""
        names = sql.SQL(", ").join(sql.Identifier(c) for c in columns)
        statement = sql.SQL("COPY {} ({}) FROM STDIN").format(sql.Identifier(table), names)
        with self._conn.cursor() as cursor, cursor.copy(statement) as copy:
            for row in rows:
                copy.write_row(row)

    def rows(self, table: str, columns: Sequence[str]) -> Iterator[tuple[Any, ...]]:
        """Every row of ``table`` as the transaction sees it, through a server-side cursor."""
        names = sql.SQL(", ").join(sql.Identifier(c) for c in columns)
        with self._conn.cursor(name=f"bulk_read_{table}") as cursor:
            cursor.itersize = COPY_READ_BATCH
            cursor.execute(sql.SQL("SELECT {} FROM {}").format(names, sql.Identifier(table)))
            yield from cursor

    def reset_identities(self) -> dict[str, int]:
        """Set each identity column's sequence past the ids the table holds: ``table -> next id``."""
        following: dict[str, int] = {}
        identities = self._conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND is_identity = 'YES' ORDER BY table_name"
        ).fetchall()
        for table, column in identities:
            top = self._conn.execute(
                sql.SQL("SELECT coalesce(max({}), 0) FROM {}").format(
                    sql.Identifier(column), sql.Identifier(table)
                )
            ).fetchone()
            following[table] = int(top[0] if top else 0) + 1
            self._conn.execute(
                "SELECT setval(pg_get_serial_sequence(%s, %s), %s, false)",
                (sql.Identifier(table).as_string(self._conn), column, following[table]),
            )
        return following

    def close(self) -> None:
        with contextlib.suppress(psycopg.Error):
            self._conn.close()
