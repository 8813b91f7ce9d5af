"""Storage fixtures: a real SQLite file per test, or a real PostgreSQL database (no mocks), and helpers
to play legal Skyjo moves.

``storage`` is SQLite only (for the tests of SQLite's own machinery). ``backend`` is parametrized
(``sqlite``, ``postgres``): a :class:`Backend` opens a ``Storage`` on a fresh database of its kind and
reads or changes that database directly (as another process would); ``any_storage`` is one opened by it.
"""

from __future__ import annotations

import os
import random
import sqlite3
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bot.games.registry import BY_KIND
from bot.service.ledger import GameLedger
from bot.storage import Seat, Storage, StoredGame
from bot.storage.postgres.database import PostgresDatabase, apply_migrations, load_migrations, to_psycopg
from devtools.pgserver import PostgresServer

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def worker_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("DATABASE_PATH", None)
    return env


def worker_command(script: str, *args: object) -> list[str]:
    return [sys.executable, str(HERE / script), *(str(a) for a in args)]


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "skybo.sqlite3"


@pytest.fixture
async def storage(db_path: Path) -> AsyncIterator[Storage]:
    opened = await Storage.open(db_path, synchronous="FULL")
    try:
        yield opened
    finally:
        await opened.close()


class Backend:
    """A fresh database of one kind: ``open()`` a Storage on it (again after a close: a restart),
    ``row`` / ``execute`` a statement (``?`` placeholders) on a connection of its own, outside Storage."""

    def __init__(self, kind: str, target: str) -> None:
        self.kind = kind
        self.target = target  # the SQLite file, or the PostgreSQL URL
        # What the schema raises when a statement breaks a unique index.
        self.unique_violation: type[Exception] = (
            sqlite3.IntegrityError if kind == "sqlite" else psycopg.errors.UniqueViolation
        )

    async def open(self) -> Storage:
        if self.kind == "sqlite":
            return await Storage.open(self.target, synchronous="FULL")
        return Storage(await PostgresDatabase.open(self.target))

    def execute(self, sql: str, *params: object) -> list[Any]:
        """Run one statement and commit it; its rows (none for an UPDATE)."""
        if self.kind == "sqlite":
            with sqlite3.connect(self.target) as conn:
                return conn.execute(sql, params).fetchall()
        with psycopg.connect(self.target, autocommit=True) as pg:
            cursor = pg.execute(to_psycopg(sql), params or None)
            return cursor.fetchall() if cursor.description else []

    def row(self, sql: str, *params: object) -> Any:
        rows = self.execute(sql, *params)
        return rows[0] if rows else None


@pytest.fixture(scope="session")
def pg_storage_template(pg_server: PostgresServer) -> str:
    """A database migrated once per session, copied for each test (no connection left open on it)."""
    name = "skybo_storage_template"
    pg_server.create_database(name)
    with psycopg.connect(pg_server.dsn(name), autocommit=True) as conn:
        apply_migrations(conn, load_migrations())
    return name


_pg_names = iter(range(1, 1_000_000))


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        yield Backend("sqlite", str(tmp_path / "data" / "skybo.sqlite3"))
        return
    server: PostgresServer = request.getfixturevalue("pg_server")
    template: str = request.getfixturevalue("pg_storage_template")
    name = f"storage_{next(_pg_names)}"
    server.create_database(name, template=template)
    try:
        yield Backend("postgres", server.dsn(name))
    finally:
        server.drop_database(name)


@pytest.fixture
async def any_storage(backend: Backend) -> AsyncIterator[Storage]:
    opened = await backend.open()
    try:
        yield opened
    finally:
        await opened.close()


def two_seats(user: int = 11, level: str = "hard") -> list[Seat]:
    return [Seat(0, "Alice", user_id=user), Seat(1, f"Computer ({level})", ai_level=level)]


async def new_game(
    storage: Storage, channel: int = 100, guild: int | None = 1, seats: list[Seat] | None = None, **kw: object
) -> StoredGame:
    return await GameLedger(storage).create_game(
        guild_id=guild,
        channel_id=channel,
        kind="skyjo",
        seats=seats or two_seats(),
        seed=channel * 7 + 1,
        **kw,
    )  # type: ignore[arg-type]


async def new_off_server_game(
    storage: Storage, channel: int, guild: int | None, seats: list[Seat] | None = None, **kw: Any
) -> StoredGame:
    """A Skyjo game dealt where the bot has no server (issue 49): a group DM or a DM (``guild`` None),
    or a channel of a server only a user installed Skybo in (``guild``). Dealt by the engine and stored
    with ``off_server`` through storage: the service's table surface for these places is not wired yet."""
    seats = seats or two_seats()
    engine = BY_KIND["skyjo"].engine
    options = engine.Options.from_dict(dict(kw.pop("options", {"score_limit": 40})))
    seed = channel * 7 + 1
    state = engine.State.new([s.engine_name for s in seats], seed, options)
    return await storage.games.create_game(
        guild_id=guild, channel_id=channel, kind="skyjo", seats=seats, seed=seed,
        options=options.to_dict(), state=state, off_server=True, **kw,
    )  # fmt: skip


async def play(storage: Storage, stored: StoredGame, moves: int, seed: int = 0) -> None:
    """Apply up to ``moves`` random legal moves (stops when the game is over), committing each."""
    rng = random.Random(seed)
    for _ in range(moves):
        if stored.state.is_over:
            return
        seat = rng.choice(stored.state.seats_to_act())
        action = rng.choice(stored.state.legal_actions(seat))
        await GameLedger(storage).apply_action(stored, seat, action)


async def play_to_end(storage: Storage, stored: StoredGame, seed: int = 0) -> None:
    await play(storage, stored, 100_000, seed)
    assert stored.state.is_over
