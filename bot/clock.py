"""The time the table's deadlines are measured in: the system clock, or a manual one for tests.

Deadlines (turn limits, the pause between rounds, lobby expiry) are wall-clock instants in
milliseconds stored in the database, so a restart keeps them. The sweeper waits for the next one
with :meth:`Clock.sleep_until`, which also returns early when ``wake`` is set (a new, earlier
deadline). :class:`ManualClock` lets tests jump ahead with ``advance()`` instead of sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Protocol


class Clock(Protocol):
    def now_ms(self) -> int: ...

    async def sleep_until(self, when_ms: int, wake: asyncio.Event) -> None:
        """Return at ``when_ms``, when ``wake`` is set, or earlier (callers re-check the time)."""
        ...


class SystemClock:
    def now_ms(self) -> int:
        return int(time.time() * 1000)

    async def sleep_until(self, when_ms: int, wake: asyncio.Event) -> None:
        delay = max(0.0, (when_ms - self.now_ms()) / 1000)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), timeout=delay + 0.005)


class ManualClock:
    """A clock that moves only when told: ``clock.advance(61)`` wakes whoever sleeps on it."""

    def __init__(self, start_ms: int | None = None) -> None:
        self._now = int(time.time() * 1000) if start_ms is None else start_ms
        self._moved = asyncio.Event()

    def now_ms(self) -> int:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the clock cannot go backwards")
        self._now += int(seconds * 1000)
        moved, self._moved = self._moved, asyncio.Event()
        moved.set()

    async def sleep_until(self, when_ms: int, wake: asyncio.Event) -> None:
        if self._now >= when_ms or wake.is_set():
            return
        moved = asyncio.ensure_future(self._moved.wait())
        woken = asyncio.ensure_future(wake.wait())
        try:
            await asyncio.wait({moved, woken}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            moved.cancel()
            woken.cancel()
