"""Storage fixtures: a real SQLite file per test (no mocks) and helpers to play legal Skyjo moves."""

from __future__ import annotations

import os
import random
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import Seat, Storage, StoredGame

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


def two_seats(user: int = 11, level: str = "hard") -> list[Seat]:
    return [Seat(0, "Alice", user_id=user), Seat(1, f"Computer ({level})", ai_level=level)]


async def new_game(
    storage: Storage, channel: int = 100, guild: int | None = 1, seats: list[Seat] | None = None, **kw: object
) -> StoredGame:
    return await storage.games.create_game(
        guild_id=guild,
        channel_id=channel,
        kind="skyjo",
        seats=seats or two_seats(),
        seed=channel * 7 + 1,
        **kw,
    )  # type: ignore[arg-type]


async def play(storage: Storage, stored: StoredGame, moves: int, seed: int = 0) -> None:
    """Apply up to ``moves`` random legal moves (stops when the game is over), committing each."""
    rng = random.Random(seed)
    for _ in range(moves):
        if stored.game.is_over:
            return
        seat = rng.choice(stored.game.seats_to_act())
        action = rng.choice(stored.game.legal_actions(seat))
        await storage.games.apply_action(stored, seat, action)


async def play_to_end(storage: Storage, stored: StoredGame, seed: int = 0) -> None:
    await play(storage, stored, 100_000, seed)
    assert stored.game.is_over
