"""The sandbox's database, emptied at each start of ``python -m bot sandbox`` (and of ``make run``
without a token).

The sandbox's Discord lives in memory, so games stored by an earlier run would point at channels and
messages that no longer exist: the sandbox starts on an empty database (its "Restart bot" button then
shows a resume, on the same database). Where:

- **SQLite** (the default): its own file, ``data/sandbox.sqlite3``, deleted at start (never the bot's
  ``DATABASE_PATH``).
- **PostgreSQL** (``DATABASE_URL=postgresql://...``): the schema ``skybo_sandbox`` of that database,
  dropped and created again at start; the sandbox's connections put it first on their
  ``search_path``, so its tables, triggers and migrations table live there and the tables of a bot
  running on the same database (schema ``public``) are never read or touched.

``keep`` (``python -m bot sandbox --keep``, what the container image's test runs) keeps the database
between starts instead: the fake Discord's world (server, channels, users) has the same ids at every
start (:data:`bot.sandbox.server.WORLD_FIRST_ID`), so the games resume in their channels and the bot
posts their tables again, as it does for a table message deleted while it was stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from bot.storage import Storage

SCHEMA = "skybo_sandbox"


def postgres_url(url: str) -> str:
    """``url`` scoped to the sandbox's schema (what the sandbox's bots open)."""
    from bot.storage.postgres.schema import in_schema

    return in_schema(url, SCHEMA)


async def fresh(path: Path, url: str | None, *, keep: bool = False) -> str:
    """Empty the sandbox's database (unless ``keep``) and migrate it; returns where it is, for people
    (no password).

    ``url``: a PostgreSQL URL (the sandbox's schema in that database), else the SQLite file ``path``.
    Storage errors are raised (:class:`bot.storage.StorageError`, or ``OSError`` for the file).
    """
    if url is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm", "-journal") if not keep else ():
            with contextlib.suppress(FileNotFoundError):
                Path(f"{path}{suffix}").unlink()
        async with await Storage.open(path, synchronous="NORMAL") as storage:
            return storage.db.where
    from bot.storage.postgres.schema import recreate

    await asyncio.to_thread(recreate, url, SCHEMA, keep=keep)
    async with await Storage.open(url=postgres_url(url)) as storage:
        return f"{storage.db.where}, schema {SCHEMA}"
