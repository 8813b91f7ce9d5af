"""The results owed at start in the channels of games played in threads (bot.service.resume,
docs/discord.md "A thread per game"), on both backends: only the games of this process's shards that
ended in a thread within a day and whose result was never posted, each once."""

from __future__ import annotations

from bot.config import shards_from
from bot.service import TableService
from bot.service.types import RESULT_OWED_WITHIN_MS, RESULT_POSTED, THREAD_PARENT
from bot.storage import Storage, StoredGame

from .conftest import Backend, new_game, play_to_end

# Guild ids on shard 0 and shard 1 of 2: (guild_id >> 22) % 2.
MINE, OTHERS = 10 << 22, 11 << 22
SMALL = {"columns": 2, "rows": 2, "score_limit": 10}
PARENT = 900


async def ended(storage: Storage, channel: int, *, guild: int = MINE, meta: dict[str, object]) -> StoredGame:
    stored = await new_game(storage, channel=channel, guild=guild, options=SMALL, meta=meta)
    await play_to_end(storage, stored, seed=channel)
    return stored


async def test_a_start_owes_the_results_of_its_shards_thread_games_ended_lately(backend: Backend) -> None:
    storage = await backend.open()
    try:
        in_thread = {THREAD_PARENT: PARENT, "turn_limit": 120}
        owed = await ended(storage, 101, meta=in_thread)
        await ended(storage, 102, meta={"turn_limit": 120})  # played in its channel: nothing to post
        await ended(storage, 103, guild=OTHERS, meta=in_thread)  # another process's shard
        await ended(storage, 104, meta={**in_thread, RESULT_POSTED: True})  # posted before the stop
        stale = await ended(storage, 105, meta=in_thread)  # ended two days ago
        backend.execute(
            "UPDATE games SET finished_at = finished_at - ? WHERE id = ?", 2 * RESULT_OWED_WITHIN_MS, stale.id
        )
        by_hand = await new_game(storage, channel=106, guild=MINE, meta=in_thread)
        await storage.games.cancel_game(by_hand.id, note="ended by 77")
        gone = await new_game(storage, channel=107, guild=MINE, meta=in_thread)
        await storage.games.cancel_game(gone.id, note="gone: thread deleted")
        live = await new_game(storage, channel=108, guild=MINE, meta=in_thread)

        service = TableService(storage, ai_delay=3600.0, owns=shards_from("2", "0").owns)
        try:
            tables = {table.id: table for table in await service.resume()}
        finally:
            await service.close()
        assert set(tables) == {live.id, owed.id, by_hand.id}
        assert set(service.tables) == {live.id}  # the ended ones are not played on
        assert tables[owed.id].finished and tables[owed.id].ended_by is None
        finished = tables[owed.id].stored.finished  # its results read back, for its final table
        assert finished is not None and len(finished.results) == 2
        assert tables[by_hand.id].finished and tables[by_hand.id].ended_by == 77

        # The presenter stores the post (bot.ui.threads.close_thread): a second start owes nothing.
        for game_id in (owed.id, by_hand.id):
            table = tables[game_id]
            await storage.games.set_meta(game_id, {**table.stored.meta, RESULT_POSTED: True})
        again = TableService(storage, ai_delay=3600.0, owns=shards_from("2", "0").owns)
        try:
            assert [table.id for table in await again.resume()] == [live.id]
        finally:
            await again.close()
    finally:
        await storage.close()
