"""Lobbies through ``storage.lobbies``: the new row's id comes back from ``INSERT ... RETURNING``, one open
lobby per channel holds in the schema (a unique violation recognised by the backend becomes
ChannelBusy), and every change checks the version read."""

from __future__ import annotations

import pytest

from bot.storage import ChannelBusy, Storage, StorageError
from bot.storage.backend import Connection
from bot.storage.lobbies import CANCELLED, STARTED, LobbyChanged, LobbySeat
from tests.storage.conftest import Backend, new_game


@pytest.fixture
def storage(any_storage: Storage) -> Storage:
    """Every test here runs on both backends (``backend`` is parametrized: sqlite, postgres)."""
    return any_storage


async def _lobby(storage: Storage, channel: int, host: int = 11) -> int:
    lobby = await storage.lobbies.create(
        guild_id=1,
        channel_id=channel,
        kind="skyjo",
        host_id=host,
        options={},
        seats=[LobbySeat("Alice", user_id=host)],
    )
    return lobby.id


async def test_create_returns_the_stored_id(storage: Storage) -> None:
    first = await _lobby(storage, 200)
    second = await _lobby(storage, 201, host=12)
    assert first != second
    assert (await storage.lobbies.get(first)).channel_id == 200
    assert (await storage.lobbies.get(second)).host_id == 12
    assert {lobby.id for lobby in await storage.lobbies.list_open()} == {first, second}


async def test_one_open_lobby_per_channel_is_the_schemas(storage: Storage) -> None:
    first = await _lobby(storage, 300)
    # lobbies.create checks only for an active game first: the second lobby reaches the unique index.
    with pytest.raises(ChannelBusy) as busy:
        await _lobby(storage, 300, host=12)
    assert busy.value.channel_id == 300
    assert [lobby.id for lobby in await storage.lobbies.list_open()] == [first]
    await storage.lobbies.close(await storage.lobbies.get(first), CANCELLED)
    again = await _lobby(storage, 300, host=12)  # a closed lobby frees its channel
    assert (await storage.lobbies.open_in_channel(300)) is not None
    assert again != first


async def test_a_channel_with_an_active_game_refuses_a_lobby(storage: Storage) -> None:
    game = await new_game(storage, channel=400)
    with pytest.raises(ChannelBusy) as busy:
        await _lobby(storage, 400)
    assert busy.value.game_id == game.id


async def test_a_stale_lobby_is_refused(storage: Storage) -> None:
    lobby = await storage.lobbies.get(await _lobby(storage, 500))
    stale = await storage.lobbies.get(lobby.id)
    await storage.lobbies.set_seats(lobby, [LobbySeat("Alice", user_id=11), LobbySeat("Bob", user_id=12)])
    with pytest.raises(LobbyChanged):
        await storage.lobbies.close(stale, STARTED)
    assert (await storage.lobbies.get(lobby.id)).version == 1


async def test_the_backend_tells_unique_violations_apart(storage: Storage, backend: Backend) -> None:
    db = storage.db

    async def attempt(sql: str) -> tuple[str, bool]:
        seen: list[tuple[str, bool]] = []

        def work(conn: Connection) -> None:
            try:
                conn.execute(sql)
            except Exception as error:
                seen.append((type(error).__name__, db.is_unique_violation(error)))
                raise  # as the repositories do: on PostgreSQL a failed statement ends the transaction

        with pytest.raises(StorageError):
            await db.write(work)
        return seen[0]

    await db.write(lambda c: c.execute("INSERT INTO storage_state (key, value) VALUES ('k', 'v')"))
    duplicate = await attempt("INSERT INTO storage_state (key, value) VALUES ('k', 'w')")
    not_null = await attempt("INSERT INTO storage_state (key, value) VALUES ('n', NULL)")
    syntax = await attempt("INSERT INTO nowhere VALUES (1)")
    # only the unique violation counts: a NOT NULL failure is an integrity error, but not a unique one
    assert (duplicate[1], not_null[1], syntax[1]) == (True, False, False)
    names = (duplicate[0], not_null[0], syntax[0])
    if backend.kind == "sqlite":
        assert names == ("IntegrityError", "IntegrityError", "OperationalError")
    else:
        assert names == ("UniqueViolation", "NotNullViolation", "UndefinedTable")
