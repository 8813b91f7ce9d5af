"""Where each shard's Activity listens for the other processes of a fleet (issue 50, migration 0012).

A process of a fleet writes, each time it takes its shards and serves them, one row per shard: the
address its Activity answers its peers on (``ACTIVITY_PEER_URL``). A process that gets a page of a
table it does not serve reads the row of that table's shard and relays the page there
(:mod:`bot.activity.relay`). The lease makes the last writer of a shard's row its holder: only one
process serves a shard at a time, and it writes once it does. A row may name a process that died (its
shard not taken over yet): its peers then find nobody listening, and the page tries again later.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from bot.storage.backend import Connection, Database

MAX_URL = 512


class PeerRepository:
    """Reads and writes of ``activity_peers``; each method is one hop of the database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def advertise(self, count: int, shards: Iterable[int], url: str) -> None:
        """``url`` is where the Activity of ``shards`` (of ``count``) answers its peers from now on."""
        if not url or len(url) > MAX_URL:
            raise ValueError("a peer's address is a URL of at most 512 characters")
        rows = [(count, int(shard), url, int(time.time() * 1000)) for shard in sorted(set(shards))]

        def work(conn: Connection) -> None:
            for row in rows:
                conn.execute(
                    "INSERT INTO activity_peers (shard_count, shard, url, updated_at) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (shard_count, shard) DO UPDATE SET url = excluded.url,"
                    " updated_at = excluded.updated_at",
                    row,
                )

        await self.db.write(work)

    async def url_of(self, count: int, shard: int) -> str | None:
        """The address the holder of ``shard`` (of ``count``) last wrote, or None: never written."""
        row = await self.db.run(
            lambda c: c.execute(
                "SELECT url FROM activity_peers WHERE shard_count = ? AND shard = ?", (count, shard)
            ).fetchone()
        )
        return None if row is None else str(row[0])
