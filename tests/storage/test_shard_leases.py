"""Shard leases on a real PostgreSQL (bot/storage/postgres/leases.py): a shard is run by one live
process at a time, a dead process frees its shards, and every process must use the same count."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator

import pytest

from bot.storage import ShardLease, Storage
from bot.storage.errors import ShardsTaken

from .conftest import REPO, worker_env

HOLDER = """
import asyncio, sys
from bot.storage import Storage
async def main():
    storage = await Storage.open(url=sys.argv[1])
    lease = await storage.hold_shards(2, [0, 1])  # kept: a dropped lease closes
    print("held", flush=True)
    await asyncio.sleep(3600)
    await lease.release()
asyncio.run(main())
"""


@pytest.fixture
async def storage(pg_dsn: str) -> AsyncIterator[Storage]:
    """One Storage: each hold_shards call is a connection of its own, as another process's would be."""
    opened = await Storage.open(url=pg_dsn)
    try:
        yield opened
    finally:
        await opened.close()


async def hold(storage: Storage, count: int, shards: list[int]) -> ShardLease:
    lease = await storage.hold_shards(count, shards)
    assert lease is not None
    return lease


async def test_a_held_shard_is_refused_until_its_holder_releases_it(storage: Storage) -> None:
    first = await hold(storage, 4, [0, 1])
    try:
        with pytest.raises(ShardsTaken) as raised:
            await hold(storage, 4, [1, 2])
        assert raised.value.taken == (1,)
        assert "shard 1 of 4 already run in another live process" in str(raised.value)
        # The refused process took nothing: shard 2 is still free for another.
        second = await hold(storage, 4, [2, 3])
        assert await first.alive() and await second.alive()
        await second.release()
        assert not await second.alive()
    finally:
        await first.release()
    again = await hold(storage, 4, [0, 1, 2, 3])
    await again.release()


async def test_processes_must_agree_on_the_shard_count(storage: Storage) -> None:
    first = await hold(storage, 2, [0])
    try:
        with pytest.raises(ShardsTaken, match=r"SHARD_COUNT=2, this one with 4"):
            await hold(storage, 4, [3])
        second = await hold(storage, 2, [1])  # same count, other shard: fine
        await second.release()
    finally:
        await first.release()
    other = await hold(storage, 4, [3])  # nobody runs count 2 any more
    await other.release()


async def test_a_killed_process_frees_its_shards(storage: Storage, pg_dsn: str) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, pg_dsn], cwd=REPO, env=worker_env(), stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(ShardsTaken):
            await hold(storage, 2, [1])
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
        deadline = time.monotonic() + 10  # the server ends the dead session when its socket closes
        while True:
            try:
                lease = await hold(storage, 2, [0, 1])
                break
            except ShardsTaken:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)
        await lease.release()
    finally:
        holder.kill()
        holder.wait(timeout=10)
