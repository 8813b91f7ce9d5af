"""The backends bench (bench/backends.py) at tiny sizes, on real SQLite and a real PostgreSQL: every
action it counts is one committed in the database, its figures are positive, and it prints both
backends side by side, or SQLite alone with one line saying why PostgreSQL is missing."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable
from pathlib import Path

import pytest

from bench import backends
from bot.storage import Storage
from bot.storage.backend import Connection


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows of a fraction of a second and a few games: these tests check what is counted."""
    monkeypatch.setattr(backends, "WARMUP_S", 0.1)
    monkeypatch.setattr(backends, "WINDOW_S", 0.4)
    monkeypatch.setattr(backends, "GAMES", (1, 3))
    monkeypatch.setattr(backends, "PACED_GAMES", 3)
    monkeypatch.setattr(backends, "PACE_S", 0.05)


async def _count_actions(storage: Storage) -> tuple[int, int]:
    """(rows of the action log, sum of the games' versions): equal when every action was logged once."""

    def read(conn: Connection) -> tuple[int, int]:
        (actions,) = conn.execute("SELECT count(*) FROM game_actions").fetchone()
        (versions,) = conn.execute("SELECT sum(version) FROM games").fetchone()
        return int(actions), int(versions or 0)

    return await storage.db.run(read)


async def _measured(
    opening: Awaitable[Storage], games: int, pace_s: float = 0.0
) -> tuple[backends.Figures, int, int]:
    async with await opening as storage:
        figures = await backends.measure(storage, games, pace_s=pace_s, warmup_s=0.1, window_s=0.4)
        actions, versions = await _count_actions(storage)
    return figures, actions, versions


@pytest.mark.parametrize("pace_s", [0.0, 0.02], ids=["closed-loop", "paced"])
def test_every_counted_action_is_committed_sqlite(tmp_path: Path, pace_s: float) -> None:
    opening = Storage.open(tmp_path / "bench.sqlite3", synchronous="FULL")
    figures, actions, versions = asyncio.run(_measured(opening, 4, pace_s))

    assert figures.failures == 0, figures.error
    assert actions == versions == figures.applied  # each acknowledged action is in the log, once
    assert 0 < figures.actions < figures.applied  # the window leaves out the warm-up
    assert figures.rate == pytest.approx(figures.actions / 0.4)
    assert 0 < figures.p50_ms <= figures.p99_ms <= figures.max_ms
    assert figures.per_commit >= 1.0


def test_every_counted_action_is_committed_postgres(pg_dsn: str) -> None:
    figures, actions, versions = asyncio.run(_measured(Storage.open(url=pg_dsn), 4))

    assert figures.failures == 0, figures.error
    assert actions == versions == figures.applied
    assert 0 < figures.actions < figures.applied
    assert 0 < figures.p50_ms <= figures.p99_ms <= figures.max_ms


def _rows(out: str) -> list[list[str]]:
    """The table's figure rows: games, load, then each backend's five figures."""
    rows = []
    for line in out.splitlines():
        if re.match(r"^\s+\d+ (closed loop|paced)", line) and "|" in line and "SQLite" not in line:
            rows.append([cell.strip() for cell in line.split("|")])
    return rows


def _figures(cell: str) -> list[float]:
    return [float(x.replace(",", "")) for x in cell.split()]


def test_run_prints_both_backends_side_by_side(tiny: None, capsys: pytest.CaptureFixture[str]) -> None:
    backends.run()

    out = capsys.readouterr().out
    assert "PostgreSQL not measured" not in out
    assert "synchronous_commit=on" in out and "fsync=on" in out and "connection=unix socket" in out
    rows = _rows(out)
    assert [row[0].split()[0] for row in rows] == ["1", "3", "3"]  # 1 and 3 games, then 3 paced
    for row in rows:
        for cell in (row[1], row[2]):  # SQLite, PostgreSQL: actions/s, p50, p99, max, per commit
            rate, p50, p99, top, per_commit = _figures(cell)
            assert rate > 0 and 0 < p50 <= p99 <= top and per_commit >= 1
        assert row[3].endswith("%")


def test_sqlite_alone_when_postgresql_cannot_start(
    tiny: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("SKYBO_PG_BINDIR", str(tmp_path / "no-postgres-here"))

    backends.run()

    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if "PostgreSQL not measured" in line]
    assert "lacks initdb" in line
    rows = _rows(out)
    assert len(rows) == 3
    for row in rows:
        assert all(x > 0 for x in _figures(row[1]))  # SQLite measured
        assert row[2].split() == ["-"] * 5  # PostgreSQL left empty
