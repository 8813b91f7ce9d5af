"""A process of a fleet resumes only the games and lobbies of its shards' guilds (bot.config.Shards),
on both backends: the other processes own the rest, in the same database."""

from __future__ import annotations

from bot.config import shards_from
from bot.service import TableService
from bot.service.ledger import GameLedger
from bot.storage import Seat, Storage
from bot.storage.lobbies import LobbySeat

from .conftest import Backend

# Guild ids on shard 0 and shard 1 of 2: (guild_id >> 22) % 2.
GUILDS = {0: 10 << 22, 1: 11 << 22}


async def _fill(storage: Storage) -> dict[int, tuple[int, int]]:
    """Per shard: (game id, lobby id) in a guild of that shard."""
    made: dict[int, tuple[int, int]] = {}
    for shard, guild in GUILDS.items():
        stored = await GameLedger(storage).create_game(
            guild_id=guild,
            channel_id=100 + shard,
            kind="skyjo",
            seats=[Seat(0, "Ann", user_id=1 + shard), Seat(1, "Computer (easy)", ai_level="easy")],
            seed=7 + shard,
        )
        lobby = await storage.lobbies.create(
            guild_id=guild,
            channel_id=200 + shard,
            kind="skyjo",
            host_id=5 + shard,
            options={},
            seats=[LobbySeat("Host", user_id=5 + shard)],
        )
        made[shard] = (stored.id, lobby.id)
    return made


async def test_each_process_resumes_only_the_tables_of_its_shards(backend: Backend) -> None:
    storage = await backend.open()
    try:
        made = await _fill(storage)
        for shard in (0, 1):
            service = TableService(storage, ai_delay=3600.0, owns=shards_from("2", str(shard)).owns)
            try:
                tables = await service.resume()
                assert [t.id for t in tables] == [made[shard][0]]
                assert set(service.tables) == {made[shard][0]}
                # The lobby's expiry is timed by its own shard's process only.
                lobbies = {key for key in service.sweeper.due if key[0] == "lobby"}
                assert lobbies == {("lobby", made[shard][1])}
            finally:
                await service.close()
        # A vanished place (every place, here) ends only this process's tables, never another shard's.
        service = TableService(storage, ai_delay=3600.0, owns=shards_from("2", "1").owns)
        try:
            await service.resume()
            ended = await service.cancel_gone(lambda _guild, _channel: True, "test")
            assert sorted(type(e).__name__ for e in ended) == ["Lobby", "Table"]
        finally:
            await service.close()
        still_open = {lobby.id for lobby in await storage.lobbies.list_open()}
        assert still_open == {made[0][1]}
        assert (await GameLedger(storage).get_game(made[0][0])).status == "active"
        assert (await GameLedger(storage).get_game(made[1][0])).status == "cancelled"
        # Without shard settings a process owns everything, as before.
        service = TableService(storage, ai_delay=3600.0)
        try:
            assert [t.id for t in await service.resume()] == [made[0][0]]
        finally:
            await service.close()
    finally:
        await storage.close()


async def test_a_process_neither_loads_nor_repairs_another_shards_games(backend: Backend) -> None:
    """Loading is filtered before anything is parsed: a broken game of shard 0 (an unknown kind, which
    its own process would quarantine) is left alone by the process of shard 1."""
    storage = await backend.open()
    try:
        made = await _fill(storage)
        backend.execute("UPDATE games SET kind = ? WHERE id = ?", "chess", made[0][0])
        loaded = await GameLedger(storage).load_active(owns=shards_from("2", "1").owns)
        assert [g.id for g in loaded.games] == [made[1][0]] and not loaded.quarantined
        assert backend.row("SELECT status FROM games WHERE id = ?", made[0][0]) == ("active",)
        everything = await GameLedger(storage).load_active()  # shard 0's own process would set it aside
        assert [g.id for g in everything.games] == [made[1][0]]
        assert backend.row("SELECT status FROM games WHERE id = ?", made[0][0]) == ("quarantined",)
    finally:
        await storage.close()
