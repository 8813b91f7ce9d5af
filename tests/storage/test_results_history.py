"""``/history``'s read (``storage.results.played``): a player's finished games on one server, newest first."""

from __future__ import annotations

import pytest

from bot.service.ledger import GameLedger
from bot.storage import Seat, Storage
from tests.storage.conftest import new_game, play_to_end


@pytest.fixture
def storage(any_storage: Storage) -> Storage:
    """Every test here runs on both backends (``backend`` is parametrized: sqlite, postgres)."""
    return any_storage


async def _finish(storage: Storage, channel: int, *, guild: int | None = 1, kind: str = "skyjo") -> int:
    seats = [Seat(0, "Alice", user_id=11), Seat(1, "Bob", user_id=22), Seat(2, "C", ai_level="easy")]
    options = {"score_limit": 40} if kind == "skyjo" else {"stock_size": 5}
    stored = await GameLedger(storage).create_game(
        guild_id=guild, channel_id=channel, kind=kind, seats=seats, seed=channel, options=options
    )
    await play_to_end(storage, stored, seed=channel)
    return stored.id


async def test_played_lists_this_servers_finished_games_newest_first(storage: Storage) -> None:
    here = [await _finish(storage, 100), await _finish(storage, 101, kind="skipbo")]
    other_server = await _finish(storage, 102, guild=2)
    outside = await _finish(storage, 103, guild=None)
    running = await new_game(
        storage, channel=104, seats=[Seat(0, "Alice", user_id=11), Seat(1, "Bob", user_id=22)]
    )
    cancelled = await new_game(
        storage, channel=105, seats=[Seat(0, "Alice", user_id=11), Seat(1, "Bob", user_id=22)]
    )
    await storage.games.cancel_game(cancelled.id, "test")

    games = await storage.results.played(11, 1)
    assert [g.game_id for g in games] == here[::-1]  # newest first; only finished games of server 1
    assert {other_server, outside, running.id, cancelled.id}.isdisjoint(g.game_id for g in games)
    for game in games:
        results = await storage.results.for_game(game.game_id)
        assert game.rank == results[0].rank and game.total == results[0].total
        assert game.players == 3 and game.rated and game.finished_at > 0
        assert game.rounds == len(results[0].round_scores)
    assert [g.kind for g in games] == ["skipbo", "skyjo"]
    assert [g.game_id for g in await storage.results.played(11, 2)] == [other_server]
    assert [g.game_id for g in await storage.results.played(11, 1, limit=1)] == [here[1]]
    assert await storage.results.played(33, 1) == []  # a user with no game
