"""The driver bench (bot/storage/postgres/driver_*.py) on a real PostgreSQL: its group-commit
runners fail only the write that fails and keep the others, its figures count real commits, and it says
what it could not measure instead of crashing."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bot.storage.postgres import driver_backends as backends
from bot.storage.postgres import driver_bench as drivers
from bot.storage.postgres import driver_workload as workload

GROUP_MODES = (backends.SAVEPOINTS, backends.RETRY_ON_ERROR)


class Boom(Exception):
    """A unit of work that fails after it wrote: its write must not survive."""


@pytest.fixture
def schema(pg_dsn: str) -> Iterator[str]:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(workload.PG_SCHEMA.encode())
    yield pg_dsn


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows of a fraction of a second: these tests check what is counted, not how fast."""
    monkeypatch.setattr(drivers, "WARMUP_S", 0.1)
    monkeypatch.setattr(drivers, "WINDOW_S", 0.4)


def _games(dsn: str, count: int) -> list[int]:
    insert = workload._placeholders(workload._PG_INSERT_GAME, "psycopg")
    with psycopg.connect(dsn, autocommit=True) as conn:
        return [int(conn.execute(insert, (c, c, "{}", "h")).fetchone()[0]) for c in range(count)]


def _state(dsn: str) -> tuple[dict[int, tuple[int, str | None]], int]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        games = {row[0]: (row[1], row[2]) for row in conn.execute("SELECT id, version, note FROM games")}
        (actions,) = conn.execute("SELECT count(*) FROM game_actions").fetchone() or (0,)
    return games, int(actions)


def _step() -> workload.Step:
    return workload.Step(0, {"kind": "draw"}, {"state": "x" * 6000})


@pytest.mark.parametrize("mode", GROUP_MODES)
def test_a_group_fails_only_its_failing_writes_psycopg(schema: str, mode: str) -> None:
    first, stale, third = _games(schema, 3)
    backend = backends.PsycopgBackend(schema, mode)
    step = _step()

    def breaks_after_writing(conn: Any) -> None:
        conn.execute("UPDATE games SET note = 'half-written' WHERE id = %s", (first,))
        raise Boom

    calls = [0, 0, 0, 0]

    def counted(index: int, fn: Any) -> Any:
        def run(conn: Any) -> Any:
            calls[index] += 1
            return fn(conn)

        return run

    fns = [
        backend._work(workload.Append.of(first, 0, step)),
        backend._work(workload.Append.of(stale, 5, step)),  # the game is at version 0
        breaks_after_writing,
        backend._work(workload.Append.of(third, 0, step)),
    ]
    with psycopg.connect(schema, autocommit=True) as conn:
        outcomes = backends._run_group_sync(conn, [counted(i, fn) for i, fn in enumerate(fns)], mode)

    # Retry on error: the first pass stops at the stale write, the savepoint pass runs them all once.
    assert calls == ([1, 1, 1, 1] if mode == backends.SAVEPOINTS else [2, 2, 1, 1])
    assert [ok for ok, _ in outcomes] == [True, False, False, True]
    assert outcomes[0][1] == 1 and outcomes[3][1] == 1
    assert isinstance(outcomes[1][1], workload.NotWritten) and isinstance(outcomes[2][1], Boom)
    games, actions = _state(schema)
    assert games == {first: (1, None), stale: (0, None), third: (1, None)}
    assert actions == 2


@pytest.mark.parametrize("mode", GROUP_MODES)
def test_a_group_fails_only_its_failing_writes_asyncpg(schema: str, mode: str) -> None:
    import asyncpg

    first, stale, third = _games(schema, 3)
    backend = backends.AsyncpgBackend({"dsn": schema}, mode)
    step = _step()

    async def breaks_after_writing(conn: Any) -> None:
        await conn.execute("UPDATE games SET note = 'half-written' WHERE id = $1", first)
        raise Boom

    async def go() -> list[tuple[bool, Any]]:
        conn = await asyncpg.connect(schema)
        try:
            fns = [
                backend._work(workload.Append.of(first, 0, step)),
                backend._work(workload.Append.of(stale, 5, step)),
                breaks_after_writing,
                backend._work(workload.Append.of(third, 0, step)),
            ]
            return await backends._run_group_async(conn, fns, mode)
        finally:
            await conn.close()

    outcomes = asyncio.run(go())
    assert [ok for ok, _ in outcomes] == [True, False, False, True]
    assert isinstance(outcomes[1][1], workload.NotWritten) and isinstance(outcomes[2][1], Boom)
    games, actions = _state(schema)
    assert games == {first: (1, None), stale: (0, None), third: (1, None)}
    assert actions == 2


@pytest.mark.parametrize("driver", ["psycopg", "asyncpg"])
@pytest.mark.parametrize("mode", backends.MODES)
def test_the_figures_count_committed_actions(schema: str, quick: None, driver: str, mode: str) -> None:
    backend: backends.Backend = (
        backends.PsycopgBackend(schema, mode)
        if driver == "psycopg"
        else backends.AsyncpgBackend({"dsn": schema}, mode)
    )
    steps = workload._steps(20, seed=1)
    figures = asyncio.run(drivers._measure(backend, 4, steps))

    assert figures.failures == 0, figures.error
    games, actions = _state(schema)
    assert len(games) == 4
    # Every acknowledged action is in the log, and each game's version is its last logged action.
    assert actions == sum(version for version, _ in games.values()) > 0
    # The window counts only part of what was committed (the warm-up is left out).
    assert 0 < figures.rate * drivers.WINDOW_S < actions
    assert 0 < figures.p50_ms <= figures.p99_ms


def test_sqlite_alone_when_postgresql_is_missing(
    monkeypatch: pytest.MonkeyPatch, quick: None, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("SKYBO_PG_BINDIR", str(tmp_path / "no-postgres-here"))
    monkeypatch.setattr(drivers, "GAMES", (1, 3))
    monkeypatch.setattr(drivers, "PACED_GAMES", 3)
    monkeypatch.setattr(drivers, "ROUNDS", 1)

    drivers.run()

    out = capsys.readouterr().out
    assert "PostgreSQL not measured: SKYBO_PG_BINDIR=" in out and "lacks initdb" in out
    rows = [line for line in out.splitlines() if line.startswith("SQLite, today's Storage")]
    assert len(rows) == 3  # 1 and 3 games closed-loop, 3 games paced
    assert "psycopg" not in out.split("PostgreSQL not measured")[1]


def test_a_missing_driver_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "asyncpg", None)  # import asyncpg now raises ImportError
    server = drivers.Server("host=/nowhere", {}, "test", None)

    makers, missing = drivers._backends_for(server)

    assert missing == ["asyncpg is not installed (pip install asyncpg): its rows are skipped"]
    assert len(makers) == len(backends.MODES)  # psycopg's rows only
