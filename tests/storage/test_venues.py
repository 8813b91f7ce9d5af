"""Games where the bot has no server (issue 49, "Play anywhere"; bot/storage/venues.py), on both backends.

A group DM's or a DM's game is stored without a guild; a game in a server only a user installed Skybo
in keeps the guild (its shard) and ``off_server``. Either is rated on its channel's own board only:
never a server's, a season's or the global board. ``/history`` (``results.played``) reads one place.
The service's table surface for these places is not wired yet: the group DM games here are dealt by
the service's rules (``GameLedger.create_game`` with no guild), the ones in a server without the bot
through storage (``new_off_server_game``: the service cannot pass ``off_server`` yet).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest

from bot.config import Shards
from bot.service.ledger import GameLedger
from bot.storage import GLOBAL_SCOPE, Seat, Storage, StoredGame, Venue, user_key
from bot.storage.lobbies import LobbySeat
from bot.storage.postgres import database as pg
from bot.storage.sqlite import database as lite
from tests.conftest import PgDatabase
from tests.storage.conftest import Backend, new_game, new_off_server_game, play_to_end

GUILD = 1  # a server where the bot is
GROUP_DM = 5_000  # group DMs (channels without a guild)
OTHER_GROUP_DM = 5_001
BOTLESS_GUILD = 7  # a server only a user installed Skybo in, and a channel of it
BOTLESS_CHANNEL = 7_001
OPTIONS = {"score_limit": 40}


def _seats(*users: int) -> list[Seat]:
    people = [Seat(i, f"User {u}", user_id=u) for i, u in enumerate(users)]
    return [*people, Seat(len(users), "Computer (easy)", ai_level="easy")]


@pytest.fixture
def storage(any_storage: Storage) -> Storage:
    return any_storage


async def _server_game(storage: Storage, channel: int, guild: int = GUILD, *users: int) -> StoredGame:
    stored = await new_game(storage, channel=channel, guild=guild, seats=_seats(*(users or (11, 22))))
    await play_to_end(storage, stored, seed=channel)
    return stored


async def _group_dm_game(storage: Storage, channel: int, *users: int) -> StoredGame:
    stored = await GameLedger(storage).create_game(
        guild_id=None, channel_id=channel, kind="skyjo", seats=_seats(*(users or (11, 22))), seed=channel,
        options=OPTIONS,
    )  # fmt: skip
    await play_to_end(storage, stored, seed=channel)
    return stored


async def _players(storage: Storage, scope: int) -> dict[str, int]:
    board = await storage.ratings.leaderboard("skyjo", scope=scope, per_page=100)
    return {row.player: row.games for row in board.rows}


async def test_a_group_dm_game_counts_on_its_friends_board_only(storage: Storage, backend: Backend) -> None:
    season = await storage.seasons.start(GUILD, "Spring", 11, now=1)
    await _server_game(storage, 100)
    friends = await _group_dm_game(storage, GROUP_DM)
    assert friends.guild_id is None and friends.off_server and friends.venue == Venue.channel(GROUP_DM)
    assert friends.finished is not None
    assert {c.scope for c in friends.finished.rating_changes} == {GROUP_DM}
    stored_changes = await storage.ratings.changes_for_game(friends.id)
    assert sorted(stored_changes, key=repr) == sorted(friends.finished.rating_changes, key=repr)
    # The friends board holds its players; the server's, its season's and the global board only count
    # the server's game.
    alice, bob, easy = user_key(11), user_key(22), "ai:easy"
    assert await _players(storage, GROUP_DM) == {alice: 1, bob: 1, easy: 1}
    for scope in (GLOBAL_SCOPE, GUILD, season.scope):
        assert await _players(storage, scope) == {alice: 1, bob: 1, easy: 1}, scope
    # A second game in the group DM and one in another group DM: each board its own.
    await _group_dm_game(storage, GROUP_DM)
    await _group_dm_game(storage, OTHER_GROUP_DM, 11, 33)
    assert await _players(storage, GROUP_DM) == {alice: 2, bob: 2, easy: 2}
    assert await _players(storage, OTHER_GROUP_DM) == {alice: 1, user_key(33): 1, easy: 1}
    assert await _players(storage, GLOBAL_SCOPE) == {alice: 1, bob: 1, easy: 1}
    (card,) = await storage.stats.overview(alice, kinds=("skyjo",), scope=GROUP_DM)
    assert card.scope == GROUP_DM and card.stats is not None and card.stats.games == 2
    assert len(card.history) == 2
    assert backend.row("SELECT count(*) FROM games WHERE guild_id IS NULL AND off_server = 1") == (3,)


async def test_a_game_in_a_server_without_the_bot_is_rated_on_its_channel_not_the_server(
    storage: Storage,
) -> None:
    # Even a season left running there (the bot was once a member) does not count it.
    await storage.seasons.start(BOTLESS_GUILD, "Old", 11, now=1)
    stored = await new_off_server_game(storage, BOTLESS_CHANNEL, BOTLESS_GUILD, _seats(11, 22))
    assert stored.guild_id == BOTLESS_GUILD and stored.off_server
    await play_to_end(storage, stored, seed=3)
    assert stored.finished is not None
    assert {c.scope for c in stored.finished.rating_changes} == {BOTLESS_CHANNEL}
    assert await _players(storage, BOTLESS_GUILD) == {}
    assert await _players(storage, GLOBAL_SCOPE) == {}
    assert len(await _players(storage, BOTLESS_CHANNEL)) == 3
    again = await GameLedger(storage).get_game(stored.id)  # read back as stored
    assert again.off_server and again.guild_id == BOTLESS_GUILD
    assert (
        again.venue == Venue.channel(BOTLESS_CHANNEL, BOTLESS_GUILD) and again.venue.board == BOTLESS_CHANNEL
    )


async def test_a_channel_with_its_servers_id_is_rated_on_no_board(storage: Storage, backend: Backend) -> None:
    """A server's first channel made before 2017 has the server's id: rated there, an off-server game
    would fill that server's board before the bot ever joined it. It is played and kept, unrated."""
    stored = await new_off_server_game(storage, BOTLESS_GUILD, BOTLESS_GUILD, _seats(11, 22))
    await play_to_end(storage, stored, seed=4)
    assert stored.finished is not None and stored.finished.rating_changes == []
    assert len(await storage.results.for_game(stored.id)) == 3
    assert backend.row("SELECT count(*) FROM ratings") == (0,)
    assert [g.game_id for g in await storage.results.played(11, stored.venue)] == [stored.id]


async def test_history_lists_one_places_games(storage: Storage) -> None:
    server = await _server_game(storage, 100)
    friends = await _group_dm_game(storage, GROUP_DM)
    other = await _group_dm_game(storage, OTHER_GROUP_DM)
    botless = await new_off_server_game(storage, BOTLESS_CHANNEL, GUILD, _seats(11, 22))
    await play_to_end(storage, botless, seed=5)  # a channel of GUILD played before the bot joined it
    assert [g.game_id for g in await storage.results.played(11, GUILD)] == [server.id]
    assert [g.game_id for g in await storage.results.played(11, Venue.server(GUILD))] == [server.id]
    assert [g.game_id for g in await storage.results.played(11, Venue.channel(GROUP_DM))] == [friends.id]
    assert [g.game_id for g in await storage.results.played(22, Venue.channel(OTHER_GROUP_DM))] == [other.id]
    there = await storage.results.played(11, Venue.channel(BOTLESS_CHANNEL, GUILD))
    assert [g.game_id for g in there] == [botless.id]
    assert await storage.results.played(33, Venue.channel(GROUP_DM)) == []
    # Which place holds which game (the replay's check).
    for game, venue in ((server, Venue.server(GUILD)), (friends, Venue.channel(GROUP_DM))):
        assert venue.holds(game.guild_id, game.channel_id, game.off_server)
    assert not Venue.server(GUILD).holds(botless.guild_id, botless.channel_id, botless.off_server)
    assert not Venue.channel(GROUP_DM).holds(other.guild_id, other.channel_id, other.off_server)
    assert not Venue.channel(BOTLESS_CHANNEL).holds(botless.guild_id, botless.channel_id, True)


async def test_lobbies_keep_their_venue(storage: Storage) -> None:
    seat = [LobbySeat("User 11", 11)]
    group = await storage.lobbies.create(
        guild_id=None, channel_id=GROUP_DM, kind="skyjo", host_id=11, options={}, seats=seat
    )
    botless = await storage.lobbies.create(
        guild_id=BOTLESS_GUILD, channel_id=BOTLESS_CHANNEL, kind="skyjo", host_id=11, options={}, seats=seat,
        off_server=True,
    )  # fmt: skip
    server = await storage.lobbies.create(
        guild_id=GUILD, channel_id=100, kind="skyjo", host_id=11, options={}, seats=seat
    )
    for made in (group, botless, server):
        read = await storage.lobbies.get(made.id)
        assert (read.off_server, read.venue) == (made.off_server, made.venue)
    assert group.venue == Venue.channel(GROUP_DM) and botless.venue == Venue.channel(
        BOTLESS_CHANNEL, BOTLESS_GUILD
    )
    assert server.venue == Venue.server(GUILD)
    # One open lobby per channel holds in a group DM as anywhere.
    assert await storage.lobbies.open_ids(guild_id=BOTLESS_GUILD) == {botless.id}


async def test_each_process_of_a_fleet_loads_the_games_its_shards_receive(storage: Storage) -> None:
    """Discord sends every event without a guild (a DM's, a group DM's interactions) to shard 0, and a
    server's interactions to the guild's shard, the bot a member or not (docs/deploy.md): the process
    holding shard 0 owns the games without a guild, a game in a server without the bot is its guild's."""
    on_shard_1 = 1 << 22  # (id >> 22) % 2 == 1
    group = await GameLedger(storage).create_game(
        guild_id=None, channel_id=GROUP_DM, kind="skyjo", seats=_seats(11), seed=1
    )
    botless = await new_off_server_game(storage, BOTLESS_CHANNEL, on_shard_1, _seats(22))
    server = await new_game(storage, channel=100, guild=2 << 22, seats=_seats(33))
    first, second = Shards(2, (0,)), Shards(2, (1,))
    for shards, expected in ((first, {group.id, server.id}), (second, {botless.id})):
        rows, _ = await storage.games.read_rows(owns=shards.owns)
        assert {row.id for row in rows} == expected, shards
        loaded = await GameLedger(storage).load_active(owns=shards.owns)
        assert {g.id for g in loaded.games} == expected
    assert all(g.off_server for g in loaded.games)


async def test_one_active_game_per_channel_in_a_group_dm(storage: Storage) -> None:
    from bot.storage import ChannelBusy

    await GameLedger(storage).create_game(
        guild_id=None, channel_id=GROUP_DM, kind="skyjo", seats=_seats(11), seed=1
    )
    with pytest.raises(ChannelBusy):
        await new_off_server_game(storage, GROUP_DM, None, _seats(22))
    assert await storage.games.active_in_channel(GROUP_DM) is not None


# ------------------------------------------------------------------------------------ migration 0011

_GAME = (
    "INSERT INTO games (guild_id, channel_id, kind, options, seed, snapshot, snapshot_hash, created_at,"
    " updated_at) VALUES (?, ?, 'skyjo', '{}', 1, '{}', 'x', 1, 1)"
)
_LOBBY = (
    "INSERT INTO lobbies (guild_id, channel_id, kind, host_id, options, seats, created_at, updated_at)"
    " VALUES (?, ?, 'skyjo', 11, '{}', '[]', 1, 1)"
)
_BEFORE = [(None, GROUP_DM), (GUILD, 100)]


def test_migration_11_marks_the_games_without_a_guild_sqlite(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "old.sqlite3", isolation_level=None)
    migrations = lite.load_migrations()
    assert migrations[10].number == 11
    lite.apply_migrations(conn, migrations[:10])
    for guild, channel in _BEFORE:
        conn.execute(_GAME, (guild, channel))
        conn.execute(_LOBBY, (guild, channel))
    lite.apply_migrations(conn, migrations)
    for table in ("games", "lobbies"):
        rows = conn.execute(f"SELECT channel_id, off_server FROM {table} ORDER BY channel_id").fetchall()
        assert rows == [(100, 0), (GROUP_DM, 1)], table
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("UPDATE games SET off_server = 2")


def test_migration_11_marks_the_games_without_a_guild_postgres(pg_database: PgDatabase) -> None:
    with psycopg.connect(pg_database.dsn, autocommit=True) as conn:
        migrations = pg.load_migrations()
        pg.apply_migrations(conn, migrations[:10])
        for guild, channel in _BEFORE:
            conn.execute(pg.to_psycopg(_GAME), (guild, channel))
            conn.execute(pg.to_psycopg(_LOBBY), (guild, channel))
        pg.apply_migrations(conn, migrations)
        for table in ("games", "lobbies"):
            rows = conn.execute(f"SELECT channel_id, off_server FROM {table} ORDER BY channel_id").fetchall()
            assert rows == [(100, 0), (GROUP_DM, 1)], table
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute("UPDATE games SET off_server = 2")


def test_a_venue_is_a_server_or_a_channel() -> None:
    assert Venue.server(GUILD).board == GUILD and not Venue.server(GUILD).off_server
    assert Venue.of(None, GROUP_DM, False) == Venue.channel(GROUP_DM)  # no guild: off server anyway
    assert Venue.of(GUILD, 100, False) == Venue.server(GUILD)  # any channel of the server
    assert Venue.of(GUILD, 100, True).board == 100
    with pytest.raises(ValueError):
        Venue(None)
    with pytest.raises(ValueError):
        Venue(GUILD, None, True)
