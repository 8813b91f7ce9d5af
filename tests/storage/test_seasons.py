"""Seasons (issue 41) on both backends: one running per server, names unique, a finished game rated in
the running season's scope too (fresh) while the server's and the global boards go on, the podium kept
at the end, and everything there after a restart."""

from __future__ import annotations

import asyncio
import random
import time

import psycopg
import pytest

from bot.games.registry import get_engine
from bot.service.ledger import GameLedger
from bot.service.outcomes import DEFAULT_MU, DEFAULT_SIGMA, NEW_RATING
from bot.storage import SeasonConflict, Seat, Storage, user_key
from bot.storage.postgres.database import PostgresDatabase
from bot.storage.seasons import season_scope
from devtools.pgserver import PostgresServer
from tests.storage.conftest import Backend, new_game, play_to_end

GUILD = 1
SHORT = {"score_limit": 1, "columns": 2, "rows": 2}  # one round on a small table


def _seats() -> list[Seat]:
    return [Seat(0, "Alice", user_id=11), Seat(1, "Bob", user_id=22), Seat(2, "Computer", ai_level="easy")]


async def _play(storage: Storage, channel: int, guild: int | None = GUILD) -> None:
    stored = await new_game(
        storage, channel=channel, guild=guild, seats=_seats(), options={"score_limit": 20}
    )
    await play_to_end(storage, stored, seed=channel)


async def test_one_season_runs_at_a_time_and_names_are_unique(backend: Backend) -> None:
    storage = await backend.open()
    try:
        first = await storage.seasons.start(GUILD, "Spring", 7, now=1000)
        with pytest.raises(SeasonConflict) as refused:
            await storage.seasons.start(GUILD, "Summer", 7, now=1001)
        assert refused.value.reason == "running"
        other = await storage.seasons.start(2, "spring", 8, now=1002)  # another server: its own seasons
        assert other.id != first.id
        ended = await storage.seasons.end(GUILD, 9, now=2000)
        assert (ended.id, ended.ended_at, ended.ended_by, ended.podium) == (first.id, 2000, 9, {})
        with pytest.raises(SeasonConflict) as refused:
            await storage.seasons.end(GUILD, 9, now=2001)
        assert refused.value.reason == "none_running"
        with pytest.raises(SeasonConflict) as refused:
            await storage.seasons.start(GUILD, "  SPRING ", 7, now=2002)
        assert refused.value.reason == "name_taken"
        assert await storage.seasons.running(GUILD) is None
        # The schema holds the rule even against a write that skips the checks.
        with pytest.raises(backend.unique_violation):
            backend.execute(
                "INSERT INTO seasons (guild_id, name, folded, started_at, started_by) VALUES (?, ?, ?, ?, ?)",
                2,
                "Two",
                "two",
                3000,
                1,
            )
    finally:
        await storage.close()


async def test_a_season_rates_fresh_keeps_its_podium_and_survives_a_restart(backend: Backend) -> None:
    storage = await backend.open()
    try:
        await _play(storage, 100)  # before the season: all time only
        season = await storage.seasons.start(GUILD, "Spring", 7, now=1000)
        assert season.scope == season_scope(season.id) < 0
        await _play(storage, 101)
        await _play(storage, 102, guild=None)  # outside a server: never a season's
    finally:
        await storage.close()
    storage = await backend.open()  # a restart in the middle of the season
    try:
        running = await storage.seasons.running(GUILD)
        assert running is not None and running.id == season.id and running.name == "Spring"
        await _play(storage, 103)
        board = await storage.ratings.leaderboard("skyjo", scope=season.scope)
        server = await storage.ratings.leaderboard("skyjo", GUILD)
        assert board.total == 3 and {r.games for r in board.rows} == {2}  # the two games of the season
        assert {r.games for r in server.rows} == {3}  # the server's board counts every game
        # Fresh: the season's rows moved from the model's default by its games only.
        history = await storage.ratings.history(user_key(11), "skyjo", scope=season.scope)
        assert len(history) == 2
        oldest = history[-1]
        assert (oldest.mu_before, oldest.sigma_before, oldest.rating_before) == (
            DEFAULT_MU,
            DEFAULT_SIGMA,
            NEW_RATING,
        )
        everyone = await storage.ratings.leaderboard("skyjo", None)
        assert {r.games for r in everyone.rows} == {3}  # not the game outside a server (venues.py)
        ended = await storage.seasons.end(GUILD, 7, now=5000)
        assert ended.podium is not None and list(ended.podium) == ["skyjo"]
        podium = ended.podium["skyjo"]
        people = [r for r in board.rows if not r.player.startswith("ai:")]
        assert [(p.player, p.rating, p.games) for p in podium] == [
            (r.player, r.conservative, r.games) for r in people
        ]
        assert [p.place for p in podium] == sorted(p.place for p in podium)
        await _play(storage, 104)  # after the end: the season's board is closed
        assert (await storage.ratings.leaderboard("skyjo", scope=season.scope)).rows == board.rows
        assert {r.games for r in (await storage.ratings.leaderboard("skyjo", None)).rows} == {4}
    finally:
        await storage.close()
    storage = await backend.open()
    try:
        kept = await storage.seasons.named(GUILD, "spring")
        assert kept is not None and kept.podium == ended.podium and not kept.running
        assert [s.name for s in await storage.seasons.of_guild(GUILD)] == ["Spring"]
    finally:
        await storage.close()


async def test_a_game_ending_while_the_season_ends_counts_for_all_time_only(
    pg_server: PostgresServer, pg_storage_template: str
) -> None:
    """PostgreSQL, two processes: the season's end holds its row (``FOR UPDATE``) when a game's last
    move commits; the game's finish waits for it, then finds no running season (the updated row is
    read again) and is rated on the server's and the global boards only, never in a closed season."""
    name = "seasons_race"
    pg_server.create_database(name, template=pg_storage_template)
    url = pg_server.dsn(name)
    storage = Storage(await PostgresDatabase.open(url))
    try:
        season = await storage.seasons.start(GUILD, "Spring", 7, now=1000)
        stored = await new_game(storage, channel=300, guild=GUILD, seats=_seats(), options=SHORT)
        rng = random.Random(4)
        while True:  # to the brink: the next move ends the game
            seat = rng.choice(stored.state.seats_to_act())
            action = rng.choice(stored.state.legal_actions(seat))
            trial = get_engine(stored.kind).State.from_dict(stored.state.to_dict())
            trial.apply(seat, action)
            if trial.is_over:
                break
            await GameLedger(storage).apply_action(stored, seat, action)
        with psycopg.connect(url) as ending:  # the end, in progress
            ending.execute("SELECT id FROM seasons WHERE id = %s FOR UPDATE", (season.id,))
            last = asyncio.ensure_future(GameLedger(storage).apply_action(stored, seat, action))
            await asyncio.to_thread(_waiting_on_a_lock, url)
            ending.execute(
                "UPDATE seasons SET ended_at = 2000, ended_by = 7, podium = '{}' WHERE id = %s", (season.id,)
            )
            ending.commit()
        await last
        assert stored.finished is not None
        assert {c.scope for c in stored.finished.rating_changes} == {0, GUILD}
        assert (await storage.ratings.leaderboard("skyjo", scope=season.scope)).total == 0
    finally:
        await storage.close()
        pg_server.drop_database(name)


def _waiting_on_a_lock(url: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    with psycopg.connect(url, autocommit=True) as conn:
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock'"
            ).fetchone()
            if row is not None and row[0] >= 1:
                return
            time.sleep(0.005)
    raise AssertionError("the finishing game never waited for the season's end")
