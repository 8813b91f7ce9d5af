"""Time and ids: the manual and the wall clock the deadlines run on, snowflakes (also on a chosen
shard), Discord's shard formula, and ids read from a path.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from fakecord.constants import DISCORD_EPOCH_MS


class FakeClock:
    """A manual clock used for every interaction deadline.

    Time only moves when the test calls :meth:`advance`, so deadlines never expire by
    accident on a slow machine and the tests never sleep for real.
    """

    def __init__(self, start: float = 1_000.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the clock cannot go backwards")
        self._now += seconds


class RealClock:
    """Wall-clock time for the fake's deadlines: a late answer fails as it would on Discord (the
    sandbox, and tests of answers on time: ``FakeDiscord(clock=RealClock())``)."""

    def now(self) -> float:
        return time.monotonic()


class SnowflakeFactory:
    """Real-looking, strictly increasing snowflakes (discord.py reads their timestamps).

    ``pinned``: the first ids are ``pinned``, ``pinned + 1``... until :meth:`unpin` (a world with the
    same ids at every start); it must lie in the past, so the ids that follow still increase."""

    def __init__(self, pinned: int | None = None) -> None:
        self._last = 0
        self._pinned = pinned

    def unpin(self) -> None:
        self._pinned = None

    def __call__(self) -> int:
        if self._pinned is not None:
            self._pinned += 1
            self._last = self._pinned - 1
            return self._last
        now_ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        candidate = now_ms << 22
        self._last = max(candidate, self._last + 1)
        return self._last

    def on_shard(self, shard_id: int, shard_count: int) -> int:
        """A new snowflake whose guild shard, ``(id >> 22) % shard_count``, is ``shard_id``: its
        timestamp moved forward by less than ``shard_count`` milliseconds (still strictly increasing)."""
        if not 0 <= shard_id < shard_count:
            raise ValueError(f"shard {shard_id} is not one of {shard_count}")
        snowflake = self()
        timestamp = snowflake >> 22
        timestamp += (shard_id - timestamp) % shard_count
        self._last = max(self._last, (timestamp << 22) | (snowflake & ((1 << 22) - 1)))
        return self._last


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """Discord's sharding formula: the shard (of ``shard_count``) that receives a guild's events;
    events without a guild (DMs) go to shard 0."""
    return 0 if guild_id is None else (guild_id >> 22) % shard_count


def iso_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


def to_int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1
