"""Where each shard's Activity listens for a fleet's other processes (bot/storage/peers.py, migration
0012), on both backends: the last holder's row wins, per shard count."""

from __future__ import annotations

import pytest

from bot.storage import Storage


async def test_the_last_holder_of_a_shard_is_where_its_activity_listens(any_storage: Storage) -> None:
    peers = any_storage.peers
    assert await peers.url_of(2, 0) is None
    await peers.advertise(2, [0, 1], "http://bot:8080")
    await peers.advertise(2, [1], "http://bot-1:8080")  # shard 1 taken over
    await peers.advertise(4, [1], "http://other-count:1")  # another SHARD_COUNT: another row
    assert [await peers.url_of(2, s) for s in (0, 1, 2)] == ["http://bot:8080", "http://bot-1:8080", None]
    assert await peers.url_of(4, 1) == "http://other-count:1"
    with pytest.raises(ValueError):
        await peers.advertise(2, [0], "")
