"""One application, one rate limit: this process's share of Discord's global REST limit.

Discord allows a bot 50 requests per second to its API, across every process that uses its token
(the limit is per application, not per connection); a bot over it gets 429s with ``global: true`` and,
persisting, a temporary ban. Interaction responses (callbacks, follow-ups, edits of the original
response) are not under that limit, and the bot answers every click through them. What is under it:
the edits of the public table and lobby messages, turn mentions and reminders (posted, then deleted),
DMs, command syncs: every request made with the bot token (discord.py's ``HTTPClient.request``).

:class:`RestBudget` is a token bucket in front of ``HTTPClient.request``: a request waits for a token,
``rate`` per second, up to ``rate`` at once after a quiet second. The table edits coalesce while they
wait (a public message is edited again only once its previous edit is done, showing the newest state),
so under load the public tables are edited a little less often instead of Discord refusing requests.
``rate`` is the process's share of ``REST_PER_SECOND`` (40 of the 50 by default: headroom for a process
starting while the others run, or another tool using the same token), in proportion to the shards it
runs, so the processes of a fleet together stay under the application's limit.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bot import discord_patches

DISCORD_GLOBAL_LIMIT = 50  # requests per second per application (Discord's documented global limit)
DEFAULT_REST_PER_SECOND = 40.0


def share(total: float, shards_here: int | None, shard_count: int | None) -> float:
    """This process's part of ``total`` requests per second: all of it for a process that runs every
    shard, else in proportion to its shards (2 of 4 shards: half)."""
    if not shard_count or not shards_here:
        return total
    return total * shards_here / shard_count


class RestBudget:
    """A token bucket: :meth:`take` returns at once while tokens last, else when the next one comes."""

    def __init__(self, rate: float) -> None:
        if rate <= 0:
            raise ValueError("a REST budget needs a positive rate")
        self.rate = rate
        self.capacity = max(1.0, rate)  # a second's worth, after a quiet second
        self._tokens = self.capacity
        self._stamp = time.monotonic()
        self._lock = asyncio.Lock()  # first come, first served
        self.waited = 0  # requests that had to wait (a sign the budget binds)

    def _refill(self) -> None:
        now = time.monotonic()
        self._tokens = min(self.capacity, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    async def take(self) -> None:
        async with self._lock:
            self._refill()
            if self._tokens < 1.0:
                self.waited += 1
                await asyncio.sleep((1.0 - self._tokens) / self.rate)
                self._refill()
            self._tokens -= 1.0

    def install(self, http: Any) -> None:
        """Put the budget in front of a discord.py ``HTTPClient`` (every bot-token request)."""
        discord_patches.budget_rest_requests(http, self.take)
