"""The sweeper: one task that sleeps until the earliest deadline and hands each due key to its owner.

A deadline is a key, ``(kind, id)`` with kind ``"game"``, ``"lobby"`` or ``"tournament"``, and a time in
ms on the service's clock. Whoever owns a kind registers its handler once (:meth:`Sweeper.handle`: the
timers part the games', the lobby part the lobbies', the tournaments part the tournaments'), and any
part may schedule or forget a key. The sweeper knows nothing of what a key means.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType

from bot.clock import Clock
from bot.service.types import ServiceObserver, log

# A deadline whose handler raised is looked at again this much later (ms), unless it was scheduled anew.
FAILED_AGAIN_MS = 5000

Key = tuple[str, int]  # ("game" | "lobby" | "tournament", id)
Handler = Callable[[int], Awaitable[None]]


class Sweeper:
    """One task that sleeps until the earliest deadline of its index and hands each due key to the
    handler of its kind (one at a time, in the order they came due); a handler raising is logged and the
    key looked at again :data:`FAILED_AGAIN_MS` later, unless the handler scheduled it anew."""

    def __init__(self, clock: Clock, observer: ServiceObserver | None = None) -> None:
        self._clock = clock
        self._observer = observer
        self._handlers: dict[str, Handler] = {}
        self._due: dict[Key, int] = {}  # key -> when to look at it next (ms)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopped = False

    def handle(self, kind: str, act: Handler) -> None:
        """``await act(id)`` when a key of ``kind`` comes due (one handler per kind: its owner's)."""
        if kind in self._handlers:
            raise ValueError(f"the sweeper's {kind!r} deadlines have a handler already")
        self._handlers[kind] = act

    @property
    def due(self) -> Mapping[Key, int]:
        """The index, read-only (what tests and metrics look at)."""
        return MappingProxyType(self._due)

    def schedule(self, key: Key, due: int) -> None:
        """Look at ``key`` at ``due`` (ms), instead of whenever it was due before."""
        if self._stopped:
            return
        old = self._due.get(key)
        self._due[key] = due
        if old is None or due < old:
            self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._sweep(), name="timer-sweeper")

    def forget(self, key: Key) -> None:
        """``key`` has no deadline any more (its game ended, its lobby closed)."""
        self._due.pop(key, None)

    def stop(self) -> list[asyncio.Task[None]]:
        """Schedule nothing more; the task to cancel, if it runs."""
        self._stopped = True
        return [self._task] if self._task is not None else []

    async def _sweep(self) -> None:
        """Sleep until the earliest deadline, act on every one that is due, repeat."""
        while not self._stopped:
            self._wake.clear()
            if not self._due:
                await self._wake.wait()
                continue
            now = self._clock.now_ms()
            due = [key for key, when in self._due.items() if when <= now]
            if not due:
                await self._clock.sleep_until(min(self._due.values()), self._wake)
                continue
            for key in due:
                self._due.pop(key, None)
                try:
                    await self._act(key)
                except Exception:
                    log.exception("timer failed", extra={"what": key[0], "id": key[1]})
                    if key not in self._due:  # try again soon (a busy database, say)
                        self._due[key] = self._clock.now_ms() + FAILED_AGAIN_MS

    async def _act(self, key: Key) -> None:
        kind, key_id = key
        if self._observer is not None:
            self._observer.timer_fired("lobby" if kind == "lobby" else "turn")
        act = self._handlers.get(kind)
        if act is None:
            raise LookupError(f"no handler for the sweeper's {kind!r} deadlines")
        await act(key_id)
