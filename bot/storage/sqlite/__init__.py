"""The SQLite backend (the embedded default): aiosqlite, group commit, WAL, ``synchronous=FULL``."""

from bot.storage.sqlite.database import DEFAULT_BUSY_TIMEOUT_MS, SYNCHRONOUS_MODES, SqliteDatabase

__all__ = ["DEFAULT_BUSY_TIMEOUT_MS", "SYNCHRONOUS_MODES", "SqliteDatabase"]
