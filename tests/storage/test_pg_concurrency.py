"""Two bot processes on one PostgreSQL database: what SQLite, one writer process, never had to face.

Each test opens two :class:`Storage` instances (two pools, two writer connections: two processes as the
database sees them) on one fresh database of the real local server, and races them: the same action on
one game (the version check lets exactly one through), two games of one player ending together (the
rating rows are locked in key order, so neither update is lost), two games created in one channel (the
partial unique index), and two groups locking rows in crossing orders (the server's deadlock abort is
retried, so no write fails). A third, raw connection holds locks where a race must be forced to overlap.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import random
import signal
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import psycopg
import pytest

from bot.games.registry import get_engine
from bot.service.ledger import GameLedger
from bot.service.outcomes import DEFAULT_MU
from bot.storage import (
    ChannelBusy,
    GameNotActive,
    Seat,
    StaleVersion,
    Storage,
    StorageError,
    StoredGame,
)
from bot.storage.errors import StorageUnusable
from bot.storage.games import canonical_json
from bot.storage.postgres import database as pg_database_module
from bot.storage.postgres.database import PostgresDatabase
from bot.storage.ratings import GLOBAL_SCOPE, RatingChange, user_key
from devtools.pgserver import PostgresServer
from tests.storage.conftest import new_game

# One round on a small table: a game ends in a few dozen moves.
SHORT = {"score_limit": 1, "columns": 2, "rows": 2}
GUILD = 1
_names = itertools.count(1)


@pytest.fixture
def pg_url(pg_server: PostgresServer, pg_storage_template: str) -> Iterator[str]:
    name = f"concurrency_{next(_names)}"
    pg_server.create_database(name, template=pg_storage_template)
    try:
        yield pg_server.dsn(name)
    finally:
        pg_server.drop_database(name)


@pytest.fixture
async def two(pg_url: str) -> AsyncIterator[tuple[Storage, Storage]]:
    """Two storages on one database, as two bot processes would open it."""
    first, second = await asyncio.gather(PostgresDatabase.open(pg_url), PostgresDatabase.open(pg_url))
    try:
        yield Storage(first), Storage(second)
    finally:
        await first.close()
        await second.close()


def _seats(user: int, level: str = "hard") -> list[Seat]:
    return [Seat(0, f"User {user}", user_id=user), Seat(1, f"Computer ({level})", ai_level=level)]


def _snapshot(stored: StoredGame) -> str:
    return canonical_json(stored.state.to_dict())


def _ends(stored: StoredGame, seat: int, action: Any) -> bool:
    copy = get_engine(stored.kind).State.from_dict(stored.state.to_dict())
    copy.apply(seat, action)
    return bool(copy.is_over)


async def _play_to_the_brink(storage: Storage, stored: StoredGame, seed: int) -> tuple[int, Any]:
    """Play random legal moves until the next one ends the game; return that move, not applied."""
    rng = random.Random(seed)
    while True:
        seat = rng.choice(stored.state.seats_to_act())
        action = rng.choice(stored.state.legal_actions(seat))
        if _ends(stored, seat, action):
            return seat, action
        await GameLedger(storage).apply_action(stored, seat, action)


async def _game_at_the_brink(
    storage: Storage, channel: int, user: int, seed: int
) -> tuple[StoredGame, int, Any]:
    stored = await new_game(storage, channel=channel, guild=GUILD, seats=_seats(user), options=SHORT)
    seat, action = await _play_to_the_brink(storage, stored, seed)
    return stored, seat, action


def _waiting_on_locks(url: str, at_least: int, timeout: float = 10.0) -> None:
    """Wait until ``at_least`` sessions of the database wait on a lock (the race really overlaps)."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock'"
            ).fetchone()
            if row is not None and row[0] >= at_least:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"{at_least} sessions never waited on a lock together")
            time.sleep(0.005)


# ------------------------------------------------------------------ one action raced from two processes


async def test_the_same_action_raced_from_two_processes_is_applied_once(
    two: tuple[Storage, Storage],
) -> None:
    """100 times: both processes load the game as it is, both apply the same legal action at once;
    exactly one commits, the other gets StaleVersion (and its in-memory game is reloaded to the
    winner's), and the log holds exactly one more action."""
    a, b = two
    rng = random.Random(24)
    channels = itertools.count(1000)
    stored = await new_game(a, channel=next(channels), seats=_seats(11), options=SHORT)
    winners = {"a": 0, "b": 0}
    games, finished = 1, 0
    for _ in range(100):
        if stored.status != "active":  # the race ended the game: the next one
            stored = await new_game(a, channel=next(channels), seats=_seats(11), options=SHORT)
            games += 1
        mine, theirs = await asyncio.gather(
            GameLedger(a).get_game(stored.id), GameLedger(b).get_game(stored.id)
        )
        assert mine.version == theirs.version
        before = mine.version
        seat = rng.choice(mine.state.seats_to_act())
        action = rng.choice(mine.state.legal_actions(seat))
        same = get_engine(mine.kind).action_from_dict(action.to_dict())
        results = await asyncio.gather(
            GameLedger(a).apply_action(mine, seat, action),
            GameLedger(b).apply_action(theirs, seat, same),
            return_exceptions=True,
        )
        won = [i for i, r in enumerate(results) if not isinstance(r, BaseException)]
        assert len(won) == 1, results
        winner = (mine, theirs)[won[0]]
        winners["ab"[won[0]]] += 1
        lost = results[1 - won[0]]
        if winner.status == "active":
            assert isinstance(lost, StaleVersion), results
            assert lost.expected == before and lost.actual == before + 1
        else:  # the winner's action ended the game: nothing more can be written to it
            assert isinstance(lost, GameNotActive) and lost.status == "finished", results
            finished += 1
        log = await a.games.actions(stored.id)
        assert len(log) == before + 1 and log[-1].action == action.to_dict() and log[-1].seat == seat
        fresh = await GameLedger(b).get_game(stored.id, verify=True)  # the snapshot against a replay too
        assert fresh.version == winner.version == before + 1
        assert _snapshot(fresh) == _snapshot(winner)
        loser = (mine, theirs)[1 - won[0]]
        assert loser.version == winner.version and _snapshot(loser) == _snapshot(winner)
        stored = winner
    assert sum(winners.values()) == 100 and finished == games - (stored.status == "active")


# ------------------------------------------------------------------ one player, two games ending together


async def _finish_both_while_held(
    url: str,
    two: tuple[Storage, Storage],
    brinks: list[tuple[StoredGame, int, Any]],
    hold_sql: str,
    hold_params: tuple[Any, ...],
    release: str,
) -> list[RatingChange]:
    """Finish the two games at once while a third connection holds a lock both finishes need; release
    it only once both wait on it, so the two rating updates truly overlap. The player's changes."""
    holder = psycopg.connect(url, autocommit=True)
    try:
        holder.execute("BEGIN")
        holder.execute(hold_sql, hold_params)
        finishing = [
            asyncio.ensure_future(GameLedger(storage).apply_action(stored, seat, action))
            for storage, (stored, seat, action) in zip(two, brinks, strict=True)
        ]
        await asyncio.to_thread(_waiting_on_locks, url, 2)
        holder.execute(release)
        await asyncio.gather(*finishing)
    finally:
        holder.close()
    changes: list[RatingChange] = []
    for stored, _, _ in brinks:
        assert stored.status == "finished" and stored.finished is not None
        changes += stored.finished.rating_changes
    return changes


def _check_no_lost_update(
    storage_rows: dict[int, tuple[Any, ...]],
    history: dict[int, list[tuple[Any, ...]]],
    changes: list[RatingChange],
    player: str,
    games_before: dict[int, int],
    mu_before: dict[int, float],
    game_ids: set[int],
) -> None:
    for scope in (GLOBAL_SCOPE, GUILD):
        mine = [c for c in changes if c.player == player and c.scope == scope]
        assert len(mine) == 2
        # One started from the row as it was, the other from the first one's result: no lost update.
        first, second = sorted(mine, key=lambda c: c.mu_before != mu_before[scope])
        assert first.mu_before == mu_before[scope]
        assert second.mu_before == first.mu_after and second.sigma_before == first.sigma_after
        assert second.rating_before == first.rating_after
        mu, sigma, games = storage_rows[scope]
        assert games == games_before[scope] + 2  # the row counts both games
        assert (mu, sigma) == (second.mu_after, second.sigma_after)
        rows = history[scope]
        assert {r[0] for r in rows} >= game_ids  # both games in the history
        by_game = {r[0]: r for r in rows}
        chained = sorted((by_game[g] for g in game_ids), key=lambda r: r[1] != mu_before[scope])
        assert chained[1][1] == chained[0][2]  # the second's mu_before is the first's mu_after


async def _rating_state(
    storage: Storage, player: str
) -> tuple[dict[int, tuple[Any, ...]], dict[int, list[tuple[Any, ...]]]]:
    def read(conn: Any) -> tuple[dict[int, tuple[Any, ...]], dict[int, list[tuple[Any, ...]]]]:
        rows = {
            int(r[0]): tuple(r[1:])
            for r in conn.execute(
                "SELECT scope, mu, sigma, games FROM ratings WHERE kind = 'skyjo' AND player = ?", (player,)
            )
        }
        history: dict[int, list[tuple[Any, ...]]] = {GLOBAL_SCOPE: [], GUILD: []}
        for scope, game_id, mu0, mu1 in conn.execute(
            "SELECT scope, game_id, mu_before, mu_after FROM rating_history"
            " WHERE kind = 'skyjo' AND player = ? ORDER BY game_id",
            (player,),
        ):
            history[int(scope)].append((game_id, mu0, mu1))
        return rows, history

    return await storage.db.run(read)


async def test_two_games_of_a_rated_player_ending_together_lose_no_update(
    two: tuple[Storage, Storage], pg_url: str
) -> None:
    """A player who has a rating row finishes two games at the same moment, one on each process: the
    row counts both, the history has both, and the second update starts from the first's result."""
    a, b = two
    user = 31
    player = user_key(user)
    first = await _game_at_the_brink(a, 1, user, seed=1)
    await GameLedger(a).apply_action(first[0], first[1], first[2])  # the player now has rows
    rows, _ = await _rating_state(a, player)
    assert set(rows) == {GLOBAL_SCOPE, GUILD}
    brinks = [await _game_at_the_brink(a, 2, user, seed=2), await _game_at_the_brink(b, 3, user, seed=3)]
    changes = await _finish_both_while_held(
        pg_url,
        two,
        brinks,
        # The first rating row both finishes update ("ai:hard" < "user:31"): without a locking read,
        # both would read every row, then wait here to write them from what they read.
        "SELECT 1 FROM ratings WHERE kind = 'skyjo' AND scope = 0 AND player = %s FOR UPDATE",
        ("ai:hard",),
        "COMMIT",
    )
    after, history = await _rating_state(b, player)
    _check_no_lost_update(
        after,
        history,
        changes,
        player,
        {s: rows[s][2] for s in rows},
        {s: rows[s][0] for s in rows},
        {brinks[0][0].id, brinks[1][0].id},
    )
    # The computer player's shared row ("ai:hard", in both games) lost nothing either.
    ai = await a.ratings.player_stats("ai:hard", kind="skyjo", global_=True)
    assert ai[0].games == 3
    board = await b.ratings.leaderboard("skyjo")
    assert board.total == 2 and {r.player for r in board.rows} == {player, "ai:hard"}


async def test_two_games_of_a_new_player_ending_together_lose_no_update(
    two: tuple[Storage, Storage], pg_url: str
) -> None:
    """The same for a player with no row yet: both games would create it. A third connection holds an
    uncommitted row of that player, so both finishes wait on it; it then rolls back and both create
    or update the row at once. One creates it, the other starts from its result; the board counts
    the player once."""
    a, b = two
    user = 41
    player = user_key(user)
    brinks = [await _game_at_the_brink(a, 2, user, seed=4), await _game_at_the_brink(b, 3, user, seed=5)]
    changes = await _finish_both_while_held(
        pg_url,
        two,
        brinks,
        "INSERT INTO ratings (kind, scope, player, display_name, mu, sigma, conservative, updated_at)"
        " VALUES ('skyjo', 0, %s, 'held', 0, 1, 0, 0)",
        (player,),
        "ROLLBACK",
    )
    after, history = await _rating_state(b, player)
    _check_no_lost_update(
        after,
        history,
        changes,
        player,
        {GLOBAL_SCOPE: 0, GUILD: 0},
        {GLOBAL_SCOPE: DEFAULT_MU, GUILD: DEFAULT_MU},
        {brinks[0][0].id, brinks[1][0].id},
    )
    for guild in (None, GUILD):
        board = await a.ratings.leaderboard("skyjo", guild)
        assert board.total == 2 and sorted(r.player for r in board.rows) == ["ai:hard", player]
        assert {r.games for r in board.rows} == {2}


async def test_games_of_one_player_ending_together_many_times(two: tuple[Storage, Storage]) -> None:
    """Unforced: rounds of two games (one per process) with the same player and computer ending at
    once; after them, the rows count every game and each history chains without a gap."""
    a, b = two
    user, rounds = 51, 6
    player = user_key(user)
    channels = itertools.count(1)
    for r in range(rounds):
        brinks = await asyncio.gather(
            _game_at_the_brink(a, next(channels), user, seed=100 + r),
            _game_at_the_brink(b, next(channels), user, seed=200 + r),
        )
        await asyncio.gather(
            *(
                GameLedger(storage).apply_action(stored, seat, action)
                for storage, (stored, seat, action) in zip(two, brinks, strict=True)
            )
        )
    rows, history = await _rating_state(a, player)
    for scope in (GLOBAL_SCOPE, GUILD):
        assert rows[scope][2] == 2 * rounds
        steps = history[scope]
        assert len(steps) == 2 * rounds
        # Every update started from another's result (or the default): one chain through all games.
        starts = {mu0 for _, mu0, _ in steps}
        ends = {mu1 for _, _, mu1 in steps}
        assert len(starts) == 2 * rounds and DEFAULT_MU in starts
        assert starts - {DEFAULT_MU} <= ends and rows[scope][0] in ends - starts


# ------------------------------------------------------------------ one active game per channel


async def test_one_active_game_per_channel_holds_across_processes(two: tuple[Storage, Storage]) -> None:
    a, b = two
    for channel in range(700, 720):
        results = await asyncio.gather(
            new_game(a, channel=channel, seats=_seats(61)),
            new_game(b, channel=channel, seats=_seats(62)),
            return_exceptions=True,
        )
        busy = [r for r in results if isinstance(r, ChannelBusy)]
        made = [r for r in results if isinstance(r, StoredGame)]
        assert len(busy) == 1 and len(made) == 1, results
        assert await b.games.active_in_channel(channel) == made[0].id
        assert await a.games.active_in_channel(channel) == made[0].id


# ------------------------------------------------------------------ crossing locks: a deadlock, retried


# A group's first write -> the other group's second write (see CrossingLocks).
_OTHER_SECOND = {"A1": "B2", "B1": "A2"}


class CrossingLocks:
    """Two processes' groups of two writes each: A1 locks row x then A2 row y, B1 locks y then B2 x.
    The first write of each group waits (on its first run only: a rerun must not wait for the other)
    until both hold their first row, so each then wants the other's: a deadlock.

    The server aborts one group, the victim; the other's second write, waiting for the victim's first
    row, gets it when the victim's backend rolls back. The victim's rerun must not take that row first:
    it is free for a moment (the aborted update no longer holds it) until the survivor's backend wakes
    to take it, and on a loaded machine the rerun may come first; the two groups then cross again and
    the survivor is aborted in turn (seen: both groups run twice). So a rerun of a group's first write
    waits until the other group's second write holds its row, as the test counts one victim."""

    def __init__(self, a: Storage, b: Storage) -> None:
        self.a, self.b = a, b
        self.runs: dict[str, int] = {}
        self.both_hold = threading.Barrier(2, timeout=10)  # writers are threads
        self.holds = {name: threading.Event() for name in ("A1", "A2", "B1", "B2")}  # its row, once
        self.pids: dict[str, int] = {}  # group -> its writer's backend
        self.rerun_ready = threading.Event()  # a first write's rerun waits for, or has, its row
        self.stalled: int | None = None  # the backend stall_the_survivor stopped

    async def prepare(self) -> None:
        await self.a.db.write(
            lambda c: c.executemany("INSERT INTO storage_state (key, value) VALUES (?, '')", [("x",), ("y",)])
        )

    def tag(self, name: str, key: str, wait: bool) -> Any:
        def work(conn: Any) -> str:
            self.runs[name] = self.runs.get(name, 0) + 1
            self.pids[name[0]] = conn.raw.info.backend_pid
            rerun = wait and self.runs[name] > 1
            if rerun:
                self.rerun_ready.set()
                other = _OTHER_SECOND[name]
                assert self.holds[other].wait(10), f"{other} never got its row"
            # Fetched: the statement has run (and holds its row) before the barrier, pipelined or not.
            conn.execute(
                "UPDATE storage_state SET value = value || ? WHERE key = ? RETURNING key", (name, key)
            ).fetchone()
            self.holds[name].set()
            if rerun:
                self.rerun_ready.set()
            if wait and self.runs[name] == 1:
                self.both_hold.wait()
            return name

        return work

    async def send(self, *, return_exceptions: bool = False) -> list[Any]:
        """The four writes at once; their results in the order A1, A2, B1, B2."""
        return list(
            await asyncio.gather(
                self.a.db.write(self.tag("A1", "x", wait=True)),
                self.a.db.write(self.tag("A2", "y", wait=False)),
                self.b.db.write(self.tag("B1", "y", wait=True)),
                self.b.db.write(self.tag("B2", "x", wait=False)),
                return_exceptions=return_exceptions,
            )
        )

    async def values(self) -> dict[str, str]:
        rows = await self.a.db.run(lambda c: c.execute("SELECT key, value FROM storage_state").fetchall())
        return dict(rows)

    def stall_the_survivor(self, url: str) -> threading.Thread:
        """A slow survivor, as on a loaded machine: once both second writes wait for a row, the backend
        that began waiting last (it will not be the victim: the first waiter's deadlock check comes
        first) is stopped until the victim's rerun waits for its row, or has taken it."""

        def stall() -> None:
            with psycopg.connect(url, autocommit=True) as conn:
                waiting: list[tuple[int, Any]] = []
                for _ in range(6000):  # polled: the thing itself, both backends in the lock queue
                    waiting = conn.execute(
                        "SELECT pid, waitstart FROM pg_locks WHERE NOT granted AND pid = ANY(%s)"
                        " ORDER BY waitstart",
                        (list(self.pids.values()),),
                    ).fetchall()
                    if len(waiting) == 2:
                        break
                    time.sleep(0.005)
                else:
                    return  # never both waiting: the test finds no stalled backend
            survivor = self.stalled = waiting[-1][0]
            os.kill(survivor, signal.SIGSTOP)
            try:
                self.rerun_ready.wait(30)
            finally:
                os.kill(survivor, signal.SIGCONT)

        thread = threading.Thread(target=stall, daemon=True)
        thread.start()
        return thread


@pytest.mark.parametrize("survivor", ["as it comes", "stalled"])
async def test_groups_locking_rows_in_crossing_orders_all_commit(
    two: tuple[Storage, Storage], pg_url: str, survivor: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Each process commits a group of two writes: the first locks one row, the second the other row,
    in opposite orders. Once each holds its first row, each wants the other's: PostgreSQL aborts one
    group (deadlock_detected), which runs again and commits. All four writes commit, once each; so
    too when the surviving group's backend is slow to wake (stalled: see CrossingLocks)."""
    a, b = two
    crossing = CrossingLocks(a, b)
    await crossing.prepare()
    caplog.set_level(logging.WARNING, logger="bot.storage.postgres.database")
    stall = crossing.stall_the_survivor(pg_url) if survivor == "stalled" else None
    results = await crossing.send()
    if stall is not None:
        stall.join(30)
        assert crossing.stalled is not None, "both groups never waited for a row at once"
    runs = crossing.runs
    assert list(results) == ["A1", "A2", "B1", "B2"]
    assert a.db.stats.largest == 2 and b.db.stats.largest == 2  # each pair shared one transaction
    values = await crossing.values()
    assert sorted(values["x"][i : i + 2] for i in (0, 2)) == ["A1", "B2"]
    assert sorted(values["y"][i : i + 2] for i in (0, 2)) == ["A2", "B1"]
    # One group met the deadlock and ran again (both its writes twice); the other ran once.
    assert (
        sorted((runs["A1"], runs["B1"])) == [1, 2] and runs["A2"] == runs["A1"] and runs["B2"] == runs["B1"]
    )
    assert any("storage.write_conflict sqlstate=40P01" in r.getMessage() for r in caplog.records)


async def test_a_group_deadlocked_on_its_last_attempt_fails_only_the_write_that_met_it(
    two: tuple[Storage, Storage], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With one attempt only, the deadlocked group gives up: the write that met the deadlock fails with
    it (a storage error), the other write of that group runs again in the next group and commits, and
    the other process's group commits as it was."""
    monkeypatch.setattr(pg_database_module, "CONFLICT_ATTEMPTS", 1)
    crossing = CrossingLocks(*two)
    await crossing.prepare()
    results = await crossing.send(return_exceptions=True)
    runs = crossing.runs
    failed = [i for i, r in enumerate(results) if isinstance(r, BaseException)]
    assert len(failed) == 1 and failed[0] in (1, 3), results  # the second write of one group
    error = results[failed[0]]
    assert isinstance(error, StorageError) and not isinstance(error, StorageUnusable)
    assert isinstance(error.__cause__, psycopg.errors.DeadlockDetected)
    victim_first = failed[0] - 1
    names = ["A1", "A2", "B1", "B2"]
    assert runs[names[victim_first]] == 2  # rolled back with the failed one, then run again alone
    values = await crossing.values()
    committed = sorted(values["x"][i : i + 2] for i in range(0, len(values["x"]), 2)) + sorted(
        values["y"][i : i + 2] for i in range(0, len(values["y"]), 2)
    )
    assert sorted(committed) == sorted(n for i, n in enumerate(names) if i != failed[0])
