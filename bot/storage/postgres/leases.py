"""Shard leases: one PostgreSQL advisory lock per shard, so a shard is run by one process at a time.

A process of a fleet (``SHARD_COUNT`` / ``SHARD_IDS``) takes, before it connects to Discord, a
session-level advisory lock ``(SHARD_LOCK, shard id)`` for each of its shards with
``pg_try_advisory_lock``, on a connection of its own that it keeps open for its whole life. A second
process asking for a shard that is held is refused at once (:class:`ShardsTaken`), never waits. The
server releases the locks when that connection ends, so a process that dies (even by SIGKILL or a lost
machine, once the server notices the dead connection) frees its shards for its replacement, with no
file and no clean-up.

Every process also holds a *shared* lock ``(COUNT_LOCK, shard count)``; one that finds a shared lock
on another count refuses to start: with two counts a guild would belong to two shards
(``(guild_id >> 22) % count`` differs), so two processes could drive its games.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

import psycopg

from bot.storage.errors import ShardsTaken
from bot.storage.postgres.database import PostgresDatabase, translate

# The first key of the two-key advisory locks: "Skybo shard", "Skybo shard count" (any fixed numbers,
# the same in every process; distinct from the migration lock's single bigint key space).
SHARD_LOCK = 0x536B7953  # int4
COUNT_LOCK = 0x536B7943


class PostgresShardLease:
    """The shards a process holds, on a dedicated connection; :meth:`release` (or the end of the
    process) gives them back. Keep a reference for as long as the shards are run: a lease that is
    garbage-collected closes its connection, which frees them."""

    def __init__(
        self, conn: psycopg.Connection[Any], where: str, count: int, shards: tuple[int, ...]
    ) -> None:
        self._conn = conn
        self.where = where
        self.count = count
        self.shards = shards

    @classmethod
    async def acquire(cls, db: PostgresDatabase, count: int, shards: Sequence[int]) -> PostgresShardLease:
        """Hold ``shards`` of ``count`` on a new connection to ``db``'s database, or raise ShardsTaken."""
        where = db.where
        conn = await asyncio.to_thread(db.connect_apart)
        try:
            await asyncio.to_thread(_take, conn, where, count, tuple(shards))
        except BaseException:
            with contextlib.suppress(psycopg.Error):
                conn.close()  # ends the session: any lock taken so far is released with it
            raise
        return cls(conn, where, count, tuple(shards))

    async def alive(self) -> bool:
        """True while the connection that holds the locks is up (a round trip)."""

        def probe() -> bool:
            if self._conn.closed or self._conn.broken:
                return False
            try:
                self._conn.execute("SELECT 1")
            except psycopg.Error:
                return False
            return True

        return await asyncio.to_thread(probe)

    async def release(self) -> None:
        def close() -> None:
            with contextlib.suppress(psycopg.Error):
                self._conn.close()

        await asyncio.to_thread(close)


def _take(conn: psycopg.Connection[Any], where: str, count: int, shards: tuple[int, ...]) -> None:
    try:
        conn.execute("SELECT pg_advisory_lock_shared(%s, %s)", (COUNT_LOCK, count))
        others = [
            int(row[0])
            for row in conn.execute(
                "SELECT DISTINCT objid FROM pg_locks WHERE locktype = 'advisory' AND classid = %s"
                " AND objsubid = 2 AND granted AND database = (SELECT oid FROM pg_database"
                " WHERE datname = current_database())",
                (COUNT_LOCK,),
            )
            if int(row[0]) != count
        ]
        if others:
            raise ShardsTaken(where, (), count, tuple(sorted(others)))
        taken: list[int] = []
        for shard in shards:
            row = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (SHARD_LOCK, shard)).fetchone()
            if not (row and row[0]):
                taken.append(shard)
    except psycopg.Error as error:
        raise translate(error, where) from error
    if taken:
        raise ShardsTaken(where, tuple(taken), count)
