"""The event bus: every event the service stores, delivered to each listener in order, none blocking another.

How an event is delivered (the guarantees docs/architecture.md states, and how they are met):

- **In commit order per table.** :meth:`EventBus.publish` is synchronous and is called right after a
  write is stored, under the lock that write took (a table's channel lock), so a table's events are
  published in commit order. Inline listeners are called inside ``publish``, in the order they
  subscribed; a queued listener's own task hears its events one at a time, in the order published
  (see coalescing below for the one exception, which keeps each stream's order).
- **Before the click that caused them is answered.** Inline listeners run inside the service call that
  made the change (``click``), before it returns to the ui that answers the click.
- **A listener's error never reaches another listener or the write.** Each call is wrapped: what a
  listener raises is logged (``event listener failed``, with its name), and ``publish`` goes on to the
  next. ``publish`` never raises for a listener.
- **A listener's slowness never delays another or the write.** Inline listeners must not await: they
  only note or schedule (mark a slot, set an event, create a task). One that returns an awaitable (an
  ``async def`` subscribed inline) is refused: its coroutine is closed unrun and an ERROR is logged
  (an awaitable that already runs, a task, is left to run, and logged the same). Whatever awaits
  subscribes queued (:meth:`EventBus.subscribe_queued`): publishing to it is an append to its own
  queue, and its own consumer task awaits the listener.
- **Publishing never nests.** A ``publish`` from inside an inline listener raises ``RuntimeError``
  (logged as that listener's failure): a listener that must write spawns a task, which takes the lock
  and publishes in its turn.

Coalescing (a queued listener's choice): an event whose class is ``coalescable`` (a newer one of its
stream carries everything it did) replaces the one queued before it when that one is the last queued
event of the same stream and coalescable too. So nothing else of that stream is ever overtaken or
dropped (a deal, an end, a seat taken, a reminder are never coalescable), and a queue holds at most one
coalescable event in a row per stream, whatever the listener's pace.

:meth:`EventBus.close` lets the queued listeners finish what they were given (within a grace), then
stops their tasks; an event published after it still reaches the inline listeners, not the queued ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from bot.service.events import Event, TableEvent
from bot.service.types import log

E = TypeVar("E", bound=Event)

CLOSE_GRACE_S = 2.0  # how long close() lets the queued listeners finish what they were given


def _fields(name: str, event: Event) -> dict[str, Any]:
    """The log line's fields for a listener and an event: names and numbers, nothing the event holds."""
    extra: dict[str, Any] = {"listener": name, "event_type": event.type, "seq": event.seq}
    if isinstance(event, TableEvent):
        extra["game_id"] = event.table_id
    return extra


class _Slot:
    """One place in a queued listener's queue (its event may be replaced by a newer one)."""

    __slots__ = ("event",)

    def __init__(self, event: Event) -> None:
        self.event = event


class Subscription(Generic[E]):
    """A queued listener: its own queue and the task that awaits the listener for each event in turn."""

    def __init__(self, name: str, hear: Callable[[E], Awaitable[None]], *, coalesce: bool) -> None:
        self.name = name
        self.coalesce = coalesce
        self._hear = hear
        self._queue: deque[_Slot] = deque()
        self._last: dict[Hashable, _Slot] = {}  # each stream's last queued slot (with coalesce)
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()  # nothing queued and nothing being heard
        self._idle.set()
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def pending(self) -> int:
        """Events queued and not heard yet."""
        return len(self._queue)

    def offer(self, event: E) -> None:
        """Queue ``event`` (called by the bus inside ``publish``: never awaits)."""
        if self._closed:
            return
        stream = event.stream if self.coalesce else None
        if stream is not None and type(event).coalescable:
            last = self._last.get(stream)
            if last is not None and type(last.event).coalescable:
                last.event = event  # the newest of a run, in the run's place: it overtakes nothing
                return
        slot = _Slot(event)
        self._queue.append(slot)
        if stream is not None:
            self._last[stream] = slot
        self._idle.clear()
        self._wake.set()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._consume(), name=f"listener-{self.name}")

    async def drained(self) -> None:
        """Wait until every event given so far was heard."""
        await self._idle.wait()

    def stop(self) -> asyncio.Task[None] | None:
        """Take nothing more and forget what is queued; the task to cancel, if it runs."""
        self._closed = True
        left = len(self._queue)
        if left:
            log.warning(
                "queued listener stopped with events unheard", extra={"listener": self.name, "left": left}
            )
        self._queue.clear()
        self._last.clear()
        return self._task

    async def _consume(self) -> None:
        while True:
            if not self._queue:
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            slot = self._queue.popleft()
            event = cast(E, slot.event)
            if self.coalesce and self._last.get(event.stream) is slot:
                del self._last[event.stream]
            try:
                await self._hear(event)
            except Exception:
                log.exception("event listener failed", extra=_fields(self.name, event))


@dataclass(frozen=True, slots=True)
class _Route:
    """One subscription: what it hears, and either the inline call or the queue."""

    kind: type[Event]
    name: str
    hear: Callable[[Event], object] | None = None
    queue: Subscription[Any] | None = None


class EventBus:
    """Where the service publishes each stored change, and every listener subscribes (see the module doc)."""

    def __init__(self) -> None:
        self._routes: list[_Route] = []
        self._by_class: dict[type[Event], tuple[_Route, ...]] = {}  # each event class's routes
        self._seq = 0
        self._publishing = False
        self._closed = False

    @property
    def seq(self) -> int:
        """The ``seq`` of the last event published (0: none yet)."""
        return self._seq

    def subscribe(self, kind: type[E], hear: Callable[[E], None], *, name: str) -> None:
        """Call ``hear(event)`` inside :meth:`publish` for every event of class ``kind`` (subclasses
        included). ``hear`` must not await, nor be slow: it notes or schedules. ``name`` is its name in
        the logs."""
        self._add(_Route(kind, name, hear=cast(Callable[[Event], object], hear)))

    def subscribe_queued(
        self, kind: type[E], hear: Callable[[E], Awaitable[None]], *, name: str, coalesce: bool = False
    ) -> Subscription[E]:
        """Have ``await hear(event)`` run in a task of its own for every event of class ``kind``, one at a
        time, in order. ``coalesce``: a run of coalescable events of one stream is heard as its newest
        (see the module doc)."""
        queue = Subscription(name, hear, coalesce=coalesce)
        self._add(_Route(kind, name, queue=queue))
        return queue

    def _add(self, route: _Route) -> None:
        self._routes.append(route)
        self._by_class.clear()

    def publish(self, event: Event) -> None:
        """Give ``event`` its ``seq`` and deliver it: to every inline listener, in the order they
        subscribed, and into every queued listener's queue. Never raises for a listener; raises
        ``RuntimeError`` if called from inside a listener, or for an event published already."""
        if self._publishing:
            raise RuntimeError("an event was published while another was being delivered")
        if event.seq:
            raise RuntimeError(f"event {event.type} #{event.seq} was published already")
        self._seq += 1
        object.__setattr__(event, "seq", self._seq)  # the one write of a frozen event: its place in line
        cls = type(event)
        routes = self._by_class.get(cls)
        if routes is None:
            routes = self._by_class[cls] = tuple(r for r in self._routes if issubclass(cls, r.kind))
        self._publishing = True
        try:
            for route in routes:
                try:
                    if route.queue is not None:
                        if not self._closed:
                            route.queue.offer(event)
                    elif route.hear is not None:
                        self._refuse_awaitable(route.name, event, route.hear(event))
                except Exception:
                    log.exception("event listener failed", extra=_fields(route.name, event))
        finally:
            self._publishing = False

    @staticmethod
    def _refuse_awaitable(name: str, event: Event, returned: object) -> None:
        """An inline listener returned an awaitable: nothing awaits it here. A coroutine is closed unrun;
        a task or future already runs by itself and is left alone. Both are an ERROR."""
        if returned is None or not inspect.isawaitable(returned):
            return
        if inspect.iscoroutine(returned):
            returned.close()
        log.error(
            "inline event listener returned an awaitable (subscribe it queued)", extra=_fields(name, event)
        )

    async def close(self, grace: float = CLOSE_GRACE_S) -> None:
        """Let the queued listeners hear what they were given, for at most ``grace`` seconds, then stop
        their tasks. Inline listeners still hear what is published after."""
        self._closed = True
        queues = [r.queue for r in self._routes if r.queue is not None]
        if queues:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*(q.drained() for q in queues)), grace)
        tasks = [task for q in queues if (task := q.stop()) is not None and not task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
