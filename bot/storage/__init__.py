"""The storage boundary: durable games, lobbies, results and leaderboards behind one facade.

Nothing outside ``bot/storage/`` writes SQL or touches a database driver (``tests/storage/
test_boundary.py`` checks it): the service, the cogs, the timers, the stats and the command line reach
the database only through :class:`Storage`. Open it once per process::

    storage = await Storage.open()               # DATABASE_PATH / SQLITE_SYNCHRONOUS from the settings
    rows, fingerprints = await storage.games.read_rows()   # every active game, unparsed
    ...
    await storage.close()

THE RULE of this layer: **storage stores what the service gives it, and runs no game's rules.** Nothing
under ``bot/storage/`` imports a game (``bot.games``) or the service (``tests/unit/test_imports.py``
checks it); it may use the engines' neutral base types (:mod:`bot.engine.base`, :mod:`bot.engine.errors`).
The service (:mod:`bot.service.ledger`) deals, applies, replays and computes a finished game's results
and ratings (:mod:`bot.service.outcomes`), and hands storage plain data: the state (its ``to_dict()``
JSON), the action, the version, the results rows and, for the ratings, a computation storage runs on
the rows it reads (locked) inside the transaction that ends the game. The action that ends a game, its
results, ratings, stats and history commit together in that ONE transaction.

The repositories are shared by every backend (their SQL is the dialect subset of
:mod:`bot.storage.backend`); a backend only provides the :class:`~bot.storage.backend.Database` they run
on: ``bot.storage.sqlite`` (aiosqlite, group commit, WAL), the default, or ``bot.storage.postgres``
(psycopg 3, pipelined group commit), chosen by ``DATABASE_URL`` (``Storage.open(url=...)``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from bot.storage.backend import Database, WriteStats
from bot.storage.errors import (
    ChannelBusy,
    ConcurrencyError,
    ConnectionLost,
    DatabaseBusy,
    DatabaseInUse,
    GameNotActive,
    GameNotFound,
    GameNotOver,
    GameQuarantined,
    NeedsReload,
    SchemaTooNew,
    ShardsLost,
    ShardsTaken,
    StaleVersion,
    StorageError,
)
from bot.storage.games import (
    FinishedGame,
    GameEnd,
    GameRepository,
    LoadResult,
    Seat,
    StoredAction,
    StoredGame,
)
from bot.storage.lobbies import LobbyRepository
from bot.storage.peers import PeerRepository
from bot.storage.prefs import PrefsRepository, UserPrefs
from bot.storage.ratings import (
    LeaderboardPage,
    PlayerStats,
    RatingChange,
    RatingRepository,
    ai_key,
    user_key,
)
from bot.storage.results import ResultRepository, SeatResult
from bot.storage.seasons import Season, SeasonConflict, SeasonRepository
from bot.storage.settings import ServerSettings, SettingsRepository
from bot.storage.sqlite.database import DEFAULT_BUSY_TIMEOUT_MS, SqliteDatabase, translate_os_error
from bot.storage.stats import StatsRepository
from bot.storage.tournaments import TournamentRepository
from bot.storage.venues import GLOBAL_SCOPE, Venue

if TYPE_CHECKING:  # a SQLite bot never loads the PostgreSQL driver
    from bot.storage.postgres.leases import LeaseTiming

__all__ = [
    "GLOBAL_SCOPE",
    "ChannelBusy",
    "ConcurrencyError",
    "ConnectionLost",
    "Database",
    "DatabaseBusy",
    "DatabaseInUse",
    "FinishedGame",
    "GameEnd",
    "GameNotActive",
    "GameNotFound",
    "GameNotOver",
    "GameQuarantined",
    "GameRepository",
    "LeaderboardPage",
    "LoadResult",
    "LobbyRepository",
    "NeedsReload",
    "PeerRepository",
    "PlayerStats",
    "RatingChange",
    "RatingRepository",
    "ResultRepository",
    "SchemaTooNew",
    "Season",
    "SeasonConflict",
    "SeasonRepository",
    "Seat",
    "SeatResult",
    "ServerSettings",
    "SettingsRepository",
    "ShardLease",
    "ShardsLost",
    "ShardsTaken",
    "StaleVersion",
    "StatsRepository",
    "Storage",
    "StorageError",
    "StoredAction",
    "StoredGame",
    "UserPrefs",
    "Venue",
    "WriteStats",
    "ai_key",
    "translate_os_error",
    "user_key",
]


class ShardLease(Protocol):
    """Shards held by this process (:meth:`Storage.hold_shards`; PostgreSQL:
    :class:`bot.storage.postgres.leases.PostgresShardLease`); keep a reference while running them.

    ``serving()``: may the process act for its shards at this instant; ``state``: ``held``,
    ``retaking`` (the connection dropped: not serving, taking them back), ``lost`` (for good: stop) or
    ``released``; ``epoch``: how many times the shards were taken (a new one: reload their games)."""

    shards: tuple[int, ...]
    epoch: int
    lost_reason: str

    @property
    def state(self) -> str: ...

    def serving(self) -> bool: ...

    async def alive(self) -> bool: ...

    async def wait_change(self, seen: int) -> int: ...

    async def wait_serving(self) -> bool: ...

    async def release(self) -> None: ...


class Storage:
    """The one way to the database: a backend's :class:`~bot.storage.backend.Database` and the
    repositories built on it. Their public methods are the whole interface (the service needs no other):

    ``games`` (:class:`GameRepository`): games and their action logs, deadlines and the service's
        metadata: ``create_game`` (a game the service dealt), ``append_action``, ``commit_action`` (an
        action the service applied, and, when it ended the game, its results and ratings),
        ``read_logged`` (the read-back after a failed commit), ``finish_game``, ``cancel_game``,
        ``quarantine``, ``set_message_id``, ``set_meta`` (turn deadlines live in the metadata),
        ``set_metas`` (many games' metadata in one transaction: the start), ``actions``,
        ``action_count``, ``read_rows`` / ``raw_logs`` / ``write_repairs`` / ``status_of`` (loading:
        the service parses and replays), ``active_in_channel``, ``ended_lately`` (the start: the games
        played in a thread whose result is still owed in their channel). ``commit_action`` commits with the
        action's idempotency key and retries once a commit that met a transient fault
        (:attr:`StorageError.transient`). Playable games (``load_active``, ``get_game``, ``verify``,
        ``reload``, ``apply_action``) are the service's: :class:`bot.service.ledger.GameLedger`.
    ``lobbies`` (:class:`LobbyRepository`): the tables being formed: ``create``, ``get``,
        ``open_in_channel``, ``list_open``, ``open_ids``, ``set_seats``, ``set_message_id``, ``close``.
    ``results`` (:class:`ResultRepository`): a finished game's results: ``for_game``; a player's
        latest finished games on a server (``/history``): ``played``.
    ``ratings`` (:class:`RatingRepository`): boards and players: ``leaderboard``, ``player_stats``,
        ``history``, ``changes_for_game`` (ratings are written by ``games`` when a game ends, from the
        service's computation).
    ``stats`` (:class:`StatsRepository`): a player's ``/stats`` card: ``overview`` (the caller names
        the games: storage knows none).
    ``settings`` (:class:`SettingsRepository`): a server's ``/skybo settings``: ``all``, ``get``,
        ``save``.
    ``seasons`` (:class:`SeasonRepository`): a server's seasons (``/skybo season``): ``start``, ``end``
        (keeping its podium), ``running``, ``named``, ``get``, ``of_guild``.
    ``prefs`` (:class:`PrefsRepository`): a user's ``/skybo notify`` and ``/skybo display``: ``get``,
        ``many``, ``save``.
    ``peers`` (:class:`PeerRepository`): where each shard's Activity answers the other processes of a
        fleet (issue 50): ``advertise``, ``url_of``.
    ``tournaments`` (:class:`TournamentRepository`): tournaments, their players and tables (issue 41):
        ``create``, ``get``, ``open``, ``latest_in``, ``update``, ``players``, ``join``, ``leave``, ``drop``,
        ``tables``, ``seat_round``, ``table_room``, ``table_playing``, ``table_ended``, ``game_endings``,
        ``table_of_game``.
    ``db`` (:class:`~bot.storage.backend.Database`): bookkeeping: ``schema_version``, ``stats`` (group
        commit counters), ``where``; ``run`` / ``write`` are for the repositories and for tests.
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        self.games = GameRepository(db)
        self.lobbies = LobbyRepository(db)
        self.results = ResultRepository(db)
        self.ratings = RatingRepository(db)
        self.stats = StatsRepository(db)
        self.settings = SettingsRepository(db)
        self.prefs = PrefsRepository(db)
        self.seasons = SeasonRepository(db)
        self.tournaments = TournamentRepository(db)
        self.peers = PeerRepository(db)

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        synchronous: str | None = None,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
        lock: bool = True,
        readonly: bool = False,
        url: str | None = None,
    ) -> Storage:
        """Open the database: PostgreSQL at ``url`` (``postgresql://...``) when given, else SQLite at
        ``path`` (by default the settings' ``DATABASE_URL`` / ``DATABASE_PATH``, ``data/skybo.sqlite3``).

        ``lock`` refuses a second bot process on the same SQLite file (:class:`DatabaseInUse`); several
        processes may share one PostgreSQL database.
        """
        if url is None and (path is None or synchronous is None):
            from bot.config import load_settings

            settings = load_settings()
            if path is None:
                url = settings.database_url
                path = settings.database_path
            synchronous = settings.synchronous if synchronous is None else synchronous
        if url is not None:
            # Imported here: a SQLite bot never loads the PostgreSQL driver.
            from bot.storage.postgres.database import PostgresDatabase

            return cls(await PostgresDatabase.open(url))
        assert path is not None and synchronous is not None
        db = await SqliteDatabase.open(
            path, synchronous=synchronous, busy_timeout_ms=busy_timeout_ms, lock=lock, readonly=readonly
        )
        return cls(db)

    async def hold_shards(
        self,
        count: int,
        shards: Sequence[int],
        *,
        retake_s: float | None = None,
        timing: LeaseTiming | None = None,
    ) -> ShardLease | None:
        """Hold ``shards`` (of ``count``) for this process while it runs them, or raise
        :class:`ShardsTaken`: two processes must never drive the same games. PostgreSQL: one advisory
        lock per shard (:mod:`bot.storage.postgres.leases`), taken back for ``retake_s`` seconds
        (``LEASE_RETAKE_SECONDS``) if their connection drops; ``timing``: a whole
        :class:`~bot.storage.postgres.leases.LeaseTiming` (tests). SQLite: None, nothing to hold: its
        file lock already keeps a second process away (and a part of the shards is refused by the
        settings)."""
        if isinstance(self.db, SqliteDatabase):
            return None
        # Imported here: a SQLite bot never loads the PostgreSQL driver.
        from bot.storage.postgres.leases import LeaseTiming, PostgresShardLease

        chosen = timing or LeaseTiming()
        if retake_s is not None:
            chosen = dataclasses.replace(chosen, retake_s=retake_s)
        db: Any = self.db
        return await PostgresShardLease.acquire(db, count, shards, chosen)

    async def ping(self) -> None:
        """One read round trip (health checks): raises a storage error when the database cannot answer."""
        await self.db.run(lambda conn: conn.execute("SELECT 1").fetchone())

    async def close(self) -> None:
        await self.db.close()

    async def __aenter__(self) -> Storage:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
