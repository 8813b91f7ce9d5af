"""A SQLite database opened read-only, as ``migrate-db`` reads it: the SQLite half of the copy.

The file is opened with ``mode=ro`` (nothing can be written, no lock taken: a bot still running on it
keeps running) and everything is read inside ONE read transaction, so every table is read at the same
moment (WAL keeps that snapshot while the bot goes on writing).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bot.storage.errors import StorageError


class SourceDatabase:
    """A SQLite file, read-only, in one read transaction. Open it with :meth:`open`."""

    def __init__(
        self,
        path: Path,
        conn: sqlite3.Connection,
        schema_version: int,
        columns: dict[str, list[str]],
        parents: dict[str, set[str]],
    ) -> None:
        self.path = path
        self._conn = conn
        self.schema_version = schema_version  # PRAGMA user_version: the last migration applied
        self.columns = columns  # table -> its columns, in order
        self.parents = parents  # table -> the other tables its foreign keys point at

    @classmethod
    def open(cls, path: Path) -> SourceDatabase:
        """Open ``path`` read-only; :class:`StorageError` (one line) if it is missing or no SQLite file."""
        if not path.is_file():
            raise StorageError(f"{path}: no such file")
        try:
            conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None)
        except sqlite3.Error as error:
            raise StorageError(f"{path}: cannot open it read-only ({error})") from None
        try:
            conn.execute("BEGIN")  # deferred: the first read below fixes the snapshot of every later one
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            names = [
                str(r[0])
                for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                    " ORDER BY name"
                )
            ]
            columns = {
                t: [str(r[1]) for r in conn.execute("SELECT * FROM pragma_table_info(?)", (t,))]
                for t in names
            }
            parents = {
                t: {str(r[2]) for r in conn.execute("SELECT * FROM pragma_foreign_key_list(?)", (t,))} - {t}
                for t in names
            }
        except sqlite3.DatabaseError as error:
            conn.close()
            raise StorageError(f"{path}: not a SQLite database ({error})") from None
        return cls(path, conn, version, columns, parents)

    def rows(self, table: str, columns: Sequence[str]) -> Iterator[tuple[Any, ...]]:
        """Every row of ``table`` (one of :attr:`columns`), streamed; read errors as storage errors."""
        if table not in self.columns or not set(columns) <= set(self.columns[table]):
            raise StorageError(f"{self.path}: no such table or columns: {table}")
        quoted = ", ".join(f'"{c}"' for c in columns)
        try:
            yield from self._conn.execute(f'SELECT {quoted} FROM "{table}"')
        except sqlite3.Error as error:
            raise StorageError(f"{self.path}: cannot read {table} ({error})") from error

    def close(self) -> None:
        self._conn.close()  # ends the read transaction; nothing was written
