"""Coalesced renders: at most one in flight per message, one per pause, held for a run of moves.

Every message the surfaces keep up to date (a table's or a lobby's public message, a turn's mention,
a player's followed panel, a thread's result) is a **slot** of :class:`Slots`, keyed by a tuple whose
first item names what it is (``("game", id)``, ``("mention", id)``, ``("panel", id, user)`` ...).
:meth:`Slots.schedule` marks a slot dirty and hands it the render that brings it to the latest state;
one task per slot renders while it is dirty, pausing ``interval`` between two renders, so whatever
changed meanwhile becomes one request and two racing changes never leave an older state on screen. A
failed render is retried with a backoff (a 429 is discord.py's), a refusal (403) is not.

The same object runs the one-off sends (a reminder, a direct message: :meth:`Slots.spawn`), so that
:meth:`Slots.flush` (tests) and :meth:`Slots.close` (a stop) wait for everything under way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import discord

log = logging.getLogger(__name__)

# A render held for a run of moves (TableMessages.table_changed) waits at most this many pauses.
HOLD_INTERVALS = 3
CLOSE_GRACE_S = 2.0  # at a stop, what is under way may end within this before it is cancelled (close)

Key = tuple[Any, ...]


@dataclass
class _Slot:
    """One message kept up to date."""

    render: Callable[[], Awaitable[None]]
    dirty: bool = True
    task: asyncio.Task[None] | None = None
    interval: float | None = None  # the pause between two renders (None: the slots')
    # A run of moves is under way (see TableMessages.table_changed): the render waits until
    # this is set (the run ended) or HOLD_INTERVALS pauses have passed.
    held: asyncio.Event | None = None
    # Set when the slot's task ends with nothing left to render (the slot is then forgotten):
    # Slots.idle waits on it.
    ended: asyncio.Event = field(default_factory=asyncio.Event)


class Slots:
    """The coalesced renders and the one-off sends of the surfaces, and their stop."""

    def __init__(self, *, interval: float = 1.0, retries: int = 3) -> None:
        self.interval = interval  # the pause between two renders of one message
        self.retries = retries  # a failed render is tried this many times more
        self._slots: dict[Key, _Slot] = {}
        self._sends: set[asyncio.Task[None]] = set()
        self.closed = False  # closed: no render or send runs any more (close)
        # Held renders whose run of moves outlasted the hold (HOLD_INTERVALS pauses): each is one more
        # edit for the run, more frequent on a slow machine (tests/e2e/test_requests.py counts them).
        self.holds_timed_out = 0
        self.stopping = False  # no new render or send starts (close)

    def schedule(
        self,
        key: Key,
        render: Callable[[], Awaitable[None]],
        *,
        interval: float | None = None,
        hold: bool = False,
    ) -> None:
        """Render ``key``'s message again (at most one render in flight, one per pause). ``hold``: this
        change is in a run of moves, the render waits for the run's end (or HOLD_INTERVALS pauses)."""
        if self.stopping:
            return
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = _Slot(render, interval=interval)
        slot.render, slot.dirty = render, True
        if hold and self.interval > 0:
            if slot.held is None:
                slot.held = asyncio.Event()
        elif slot.held is not None:
            slot.held.set()  # the run ended: render now (within the pause)
        if slot.task is None or slot.task.done():
            slot.task = asyncio.create_task(self._run(key, slot), name=f"presenter-{key[0]}-{key[1]}")

    def stop(self, key: Key) -> None:
        """Render ``key``'s message no more (its place is gone): a render in flight ends by itself (and
        is ignored if it fails), a held one is let go to find nothing to do."""
        slot = self._slots.get(key)
        if slot is not None:
            slot.dirty = False
            if slot.held is not None:
                slot.held.set()

    async def idle(self, key: Key) -> None:
        """Wait, without polling, until ``key``'s message has nothing left to render: no slot, or its
        task ended with nothing dirty (:attr:`_Slot.ended`); a slot made again meanwhile is waited
        for too. Never returns once the slots are closed (their tasks are cancelled)."""
        while (slot := self._slots.get(key)) is not None:
            await slot.ended.wait()

    def spawn(self, work: Awaitable[None], name: str) -> None:
        """Run a one-off send (``name`` says what, in the logs); what it raises is logged."""

        async def run() -> None:
            try:
                await work
            except discord.HTTPException as error:
                log.warning("message send failed", extra={"what": name, "status": error.status})
            except Exception:
                log.exception("message send failed", extra={"what": name})

        if self.stopping:
            return
        task = asyncio.create_task(run(), name=name)
        self._sends.add(task)
        task.add_done_callback(self._sends.discard)

    async def _run(self, key: Key, slot: _Slot) -> None:
        try:
            await self._render_while_dirty(key, slot)
        finally:
            if self._slots.get(key) is slot and not slot.dirty:
                del self._slots[key]
                slot.ended.set()

    async def _render_while_dirty(self, key: Key, slot: _Slot) -> None:
        failures = 0
        while slot.dirty and not self.closed:
            held = slot.held
            if held is not None:
                try:
                    await asyncio.wait_for(held.wait(), HOLD_INTERVALS * self.interval)
                except TimeoutError:
                    self.holds_timed_out += 1
                if slot.held is held:
                    slot.held = None
                if not slot.dirty or self.closed:  # stopped meanwhile (stop)
                    break
            slot.dirty = False
            started = time.monotonic()
            try:
                await slot.render()
                failures = 0
            except discord.HTTPException as error:
                failures += 1
                log.warning(
                    "message edit failed",
                    extra={"what": key[0], "id": key[1], "status": error.status, "attempt": failures},
                )
                if failures <= self.retries and error.status != 403:  # a refusal stays one
                    slot.dirty = True
                    await asyncio.sleep(0.5 * failures)
            except Exception:
                log.exception("message render failed", extra={"what": key[0], "id": key[1]})
            interval = self.interval if slot.interval is None else slot.interval
            wait = interval - (time.monotonic() - started)
            if slot.dirty and wait > 0 and not self.stopping:
                await asyncio.sleep(wait)  # coalesce: whatever changed meanwhile becomes one edit

    def _under_way(self) -> list[asyncio.Task[None]]:
        """The renders and sends not done yet."""
        tasks = [s.task for s in self._slots.values() if s.task is not None and not s.task.done()]
        return tasks + [task for task in self._sends if not task.done()]

    async def flush(self) -> None:
        """Wait until every pending render and send is done (tests and shutdown)."""
        while True:
            if not (tasks := self._under_way()):
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Stop: nothing new starts, what is under way (an edit, a held one made now, a mention posted
        and its id being stored for the next process to delete) gets :data:`CLOSE_GRACE_S`, then the
        rest is cancelled. Cancelled at once, a mention posted just before a deploy stayed for good."""
        self.stopping = True
        for slot in list(self._slots.values()):
            if slot.held is not None:
                slot.held.set()
        if pending := self._under_way():
            await asyncio.wait(pending, timeout=CLOSE_GRACE_S)
        self.closed = True
        tasks = self._under_way()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
