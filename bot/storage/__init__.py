"""Durable games and leaderboards in SQLite: one aiosqlite connection, migrations, repositories.

Open it once per process::

    storage = await Storage.open()               # DATABASE_PATH / SQLITE_SYNCHRONOUS from the settings
    loaded = await storage.games.load_active()   # every active game, checked against its log
    ...
    await storage.close()
"""

from __future__ import annotations

import os

from bot.storage.database import DEFAULT_BUSY_TIMEOUT_MS, Database
from bot.storage.errors import (
    ChannelBusy,
    ConcurrencyError,
    DatabaseBusy,
    DatabaseInUse,
    GameNotActive,
    GameNotFound,
    GameNotOver,
    GameQuarantined,
    SchemaTooNew,
    StaleVersion,
    StorageError,
)
from bot.storage.games import (
    FinishedGame,
    GameRepository,
    LoadResult,
    Seat,
    StoredAction,
    StoredGame,
)
from bot.storage.ratings import (
    GLOBAL_SCOPE,
    LeaderboardPage,
    PlayerStats,
    RatingChange,
    RatingRepository,
    ai_key,
    user_key,
)
from bot.storage.results import ResultRepository, SeatResult

__all__ = [
    "GLOBAL_SCOPE",
    "ChannelBusy",
    "ConcurrencyError",
    "Database",
    "DatabaseBusy",
    "DatabaseInUse",
    "FinishedGame",
    "GameNotActive",
    "GameNotFound",
    "GameNotOver",
    "GameQuarantined",
    "GameRepository",
    "LeaderboardPage",
    "LoadResult",
    "PlayerStats",
    "RatingChange",
    "RatingRepository",
    "ResultRepository",
    "SchemaTooNew",
    "Seat",
    "SeatResult",
    "StaleVersion",
    "Storage",
    "StorageError",
    "StoredAction",
    "StoredGame",
    "ai_key",
    "user_key",
]


class Storage:
    """The database and its repositories: ``games``, ``results``, ``ratings``."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.games = GameRepository(db)
        self.results = ResultRepository(db)
        self.ratings = RatingRepository(db)

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        synchronous: str | None = None,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
        lock: bool = True,
        readonly: bool = False,
    ) -> Storage:
        """Open the database (by default the settings' ``DATABASE_PATH``, ``data/skybo.sqlite3``).

        ``lock`` refuses a second bot process on the same file (:class:`DatabaseInUse`).
        """
        if path is None or synchronous is None:
            from bot.config import load_settings

            settings = load_settings()
            path = settings.database_path if path is None else path
            synchronous = settings.synchronous if synchronous is None else synchronous
        db = await Database.open(
            path, synchronous=synchronous, busy_timeout_ms=busy_timeout_ms, lock=lock, readonly=readonly
        )
        return cls(db)

    async def close(self) -> None:
        await self.db.close()

    async def __aenter__(self) -> Storage:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
