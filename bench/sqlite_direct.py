"""SQLite-only helpers of ``python -m bench storage``: the plain-sqlite3 ceiling and fast seeding.

They write straight through a plain ``sqlite3`` connection (no event loop, no group commit) with the
bot's own pragmas, migrations and units of work, so the figures compare like with like.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from bot.storage.game_log import _appender
from bot.storage.games import Seat, canonical_json, snapshot_hash
from bot.storage.sqlite.database import apply_migrations, configure, in_transaction, load_migrations

# One game's moves: (seat, action, the engine's state after it), all as dicts.
Steps = Sequence[tuple[int, dict[str, Any], dict[str, Any]]]


def _connect(path: Path, synchronous: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    configure(conn, synchronous, 5000, readonly=False)
    apply_migrations(conn, load_migrations())
    return conn


def raw_append_rate(path: Path, games: Sequence[tuple[int, str, Steps]]) -> float:
    """Durable appends per second, one transaction each (``synchronous=FULL``), plain sqlite3.

    ``games`` holds each game's seed, its first snapshot (canonical JSON) and its moves; the moves are
    appended round-robin over the games, with the same unit of work as ``append_action``.
    """
    conn = _connect(path, "FULL")
    ids = []
    for channel, (seed, text, _) in enumerate(games):
        (game_id,) = conn.execute(
            "INSERT INTO games (guild_id, channel_id, kind, options, seed, snapshot, snapshot_hash,"
            " created_at, updated_at) VALUES (1, ?, 'skyjo', '{}', ?, ?, ?, 0, 0) RETURNING id",
            (channel, seed, text, snapshot_hash(text)),
        ).fetchone()
        ids.append(int(game_id))
    versions = dict.fromkeys(ids, 0)
    order = [(i, step) for step in range(len(games[0][2])) for i in range(len(games))]
    started = time.perf_counter()
    for i, step in order:
        seat, action, snapshot = games[i][2][step]
        game_id = ids[i]
        work = _appender(game_id, versions[game_id], seat, action, snapshot)
        versions[game_id] = in_transaction(conn, work).version
    rate = len(order) / (time.perf_counter() - started)
    conn.close()
    return rate


def write_active_games(
    path: Path, seats: Sequence[Seat], options: str, games: Iterable[tuple[int, int, Steps]], now: int
) -> None:
    """Store active ``skyjo`` games, each ``(channel, seed, moves)`` with its log and the snapshot after
    its last move, in one unsynced transaction (bench setup, untimed)."""
    conn = _connect(path, "OFF")
    conn.execute("BEGIN")
    for channel, seed, steps in games:
        snapshot = canonical_json(steps[-1][2])
        (game_id,) = conn.execute(
            "INSERT INTO games (guild_id, channel_id, kind, options, seed, version, snapshot, snapshot_hash,"
            " created_at, updated_at) VALUES (1, ?, 'skyjo', ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (channel, options, seed, len(steps), snapshot, snapshot_hash(snapshot), now, now),
        ).fetchone()
        conn.executemany(
            "INSERT INTO game_seats (game_id, seat, user_id, ai_level, display_name) VALUES (?, ?, ?, ?, ?)",
            [(game_id, s.seat, s.user_id, s.ai_level, s.display_name) for s in seats],
        )
        conn.executemany(
            "INSERT INTO game_actions (game_id, seq, seat, action, created_at) VALUES (?, ?, ?, ?, ?)",
            [(game_id, n, seat, canonical_json(a), now) for n, (seat, a, _) in enumerate(steps, start=1)],
        )
    conn.execute("COMMIT")
    conn.close()


def write_ratings(path: Path, kind: str, rows: Iterable[tuple[Any, ...]]) -> None:
    """Store rating rows ``(scope, player, display_name, mu, sigma, shown, games, wins, round_count,
    round_sum, stats JSON)`` in one unsynced transaction, then ANALYZE (bench setup, untimed)."""
    conn = _connect(path, "OFF")
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO ratings (kind, scope, player, display_name, mu, sigma, conservative, games, wins,"
        " round_count, round_sum, stats, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
        ((kind, *row) for row in rows),
    )
    conn.execute("COMMIT")
    conn.execute("ANALYZE")
    conn.close()
