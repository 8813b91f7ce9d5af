"""The event bus (bot/service/bus.py): every listener hears every event in order, and none can block,
break or overtake another, nor the write that published.

Inline listeners are called inside ``publish``: one that raises is logged alone, one that awaits is
refused, one that publishes is refused. Queued listeners hear in their own task: a slow one delays
neither ``publish`` nor another listener; with coalescing a run of plain changes of one table is heard as
its newest, never dropping or overtaking anything else of that table. ``close`` lets them finish, within
a grace, then stops them.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import warnings
from collections import defaultdict
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.service.bus import EventBus
from bot.service.events import (
    EVENT_TYPES,
    Event,
    LobbyChanged,
    SeatReplaced,
    TableChanged,
    TableEnded,
    TableEvent,
    TableWaiting,
    TurnReminder,
    lobby_copy,
)
from bot.service.snapshots import TableSnapshot
from bot.storage.lobbies import Lobby, LobbySeat

from .conftest import ANN, BOB, bare_table


@cache
def snapshot(table_id: int) -> TableSnapshot:
    """A dealt table's snapshot (no storage: the bus reads no table)."""
    return TableSnapshot.of(bare_table(table_id))


def changed(table: int, label: int) -> TableChanged:
    """A plain change of ``table`` (coalescable), told apart from others by ``label`` (its ``key``)."""
    return TableChanged(snapshot=snapshot(table), cause="move", seat=0, key=label)


MAKERS: dict[str, Callable[[int, int], TableEvent]] = {
    "changed": changed,
    "replaced": lambda table, label: SeatReplaced(
        snapshot=snapshot(table), cause="seat_replaced", seat=1, reason="left", key=label
    ),
    "ended": lambda table, label: TableEnded(snapshot=snapshot(table), cause="ended", how="gone", key=label),
    "waiting": lambda table, label: TableWaiting(snapshot=snapshot(table)),
    "reminder": lambda table, label: TurnReminder(snapshot=snapshot(table), seats=(0,), seconds_left=label),
}


def failures(caplog: pytest.LogCaptureFixture) -> list[tuple[str, Any, Any, Any]]:
    return [
        (
            r.getMessage(),
            getattr(r, "listener", None),
            getattr(r, "event_type", None),
            getattr(r, "seq", None),
        )
        for r in caplog.records
        if r.name == "bot.service" and r.levelno >= logging.WARNING
    ]


def test_every_event_has_its_own_wire_name_and_only_plain_changes_coalesce() -> None:
    assert len(EVENT_TYPES) == 12 and all(cls.type == name for name, cls in EVENT_TYPES.items())
    coalescable = {name for name, cls in EVENT_TYPES.items() if cls.coalescable}
    assert coalescable == {"table_changed", "lobby_changed", "settings_changed", "tournament_changed"}


def test_a_lobby_event_keeps_the_lobby_as_it_was() -> None:
    lobby = Lobby(1, 1, 10, "any", ANN, None, {"turn_limit": 60}, [LobbySeat("Ann", ANN)], "open", None, 1)
    event = LobbyChanged(lobby=lobby_copy(lobby), cause="join")
    lobby.seats.append(LobbySeat("Bob", BOB))
    lobby.options["turn_limit"] = 30
    assert event.lobby.seats == [LobbySeat("Ann", ANN)] and event.lobby.options == {"turn_limit": 60}
    assert event.lobby_id == 1 and event.stream == ("lobby", 1)


async def test_a_listener_that_raises_is_logged_alone_and_the_others_hear(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bus = EventBus()
    heard: list[tuple[str, int]] = []

    def broken(event: TableEvent) -> None:
        raise RuntimeError("boom")

    bus.subscribe(TableChanged, lambda e: heard.append(("first", e.seq)), name="first")
    bus.subscribe(TableEvent, broken, name="broken")  # a base class hears its subclasses
    bus.subscribe(Event, lambda e: heard.append(("last", e.seq)), name="last")
    bus.subscribe(TableEnded, lambda e: heard.append(("ends", e.seq)), name="ends")
    with caplog.at_level(logging.ERROR, logger="bot.service"):
        bus.publish(changed(1, 0))  # never raises for a listener
        bus.publish(MAKERS["ended"](1, 1))
    assert heard == [("first", 1), ("last", 1), ("first", 2), ("last", 2), ("ends", 2)]
    assert failures(caplog) == [
        ("event listener failed", "broken", "table_changed", 1),
        ("event listener failed", "broken", "table_ended", 2),
    ]
    assert all(r.exc_info is not None and getattr(r, "game_id", None) == 1 for r in caplog.records)
    with pytest.raises(RuntimeError):
        bus.publish(changed(1, 0).__class__(snapshot=snapshot(1), cause="move", seq=2))  # published already


async def test_an_inline_listener_that_awaits_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    bus = EventBus()
    ran: list[Event] = []
    after: list[Event] = []
    spawned: list[asyncio.Task[None]] = []

    async def awaits(event: TableChanged) -> None:
        ran.append(event)

    def spawns(event: TableChanged) -> asyncio.Task[None]:
        spawned.append(asyncio.create_task(asyncio.sleep(0)))
        return spawned[-1]

    bus.subscribe(TableChanged, awaits, name="awaits")  # type: ignore[arg-type]  # mypy refuses it too
    bus.subscribe(TableChanged, spawns, name="spawns")  # type: ignore[arg-type]
    bus.subscribe(TableChanged, after.append, name="after")
    event = changed(1, 0)
    with caplog.at_level(logging.ERROR, logger="bot.service"), warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        bus.publish(event)
        gc.collect()  # a coroutine dropped unclosed would warn "never awaited" here
    await spawned[0]  # a task already running is left to run
    assert ran == [] and after == [event]
    assert not [w for w in warned if "never awaited" in str(w.message)]
    refused = "inline event listener returned an awaitable (subscribe it queued)"
    assert failures(caplog) == [
        (refused, "awaits", "table_changed", 1),
        (refused, "spawns", "table_changed", 1),
    ]


async def test_a_slow_queued_listener_delays_neither_publish_nor_another_listener() -> None:
    bus = EventBus()
    gate = asyncio.Event()
    slow_heard: list[int] = []
    fast_heard: list[int] = []
    inline: list[int] = []

    async def slow(event: TableChanged) -> None:
        await gate.wait()
        slow_heard.append(event.seq)

    async def fast(event: TableChanged) -> None:
        fast_heard.append(event.seq)

    slow_queue = bus.subscribe_queued(TableChanged, slow, name="slow")
    fast_queue = bus.subscribe_queued(TableChanged, fast, name="fast")
    bus.subscribe(TableChanged, lambda e: inline.append(e.seq), name="inline")
    for label in range(50):
        bus.publish(changed(1, label))  # synchronous: returns with every inline listener told
    assert inline == list(range(1, 51)) and slow_heard == fast_heard == []
    assert slow_queue.pending == fast_queue.pending == 50
    await fast_queue.drained()  # while the slow one waits on its first event
    assert fast_heard == list(range(1, 51)) and slow_heard == [] and slow_queue.pending == 49
    gate.set()
    await slow_queue.drained()
    assert slow_heard == list(range(1, 51))
    await bus.close()


async def test_coalescing_keeps_each_table_in_order_and_drops_only_plain_changes() -> None:
    bus = EventBus()
    heard: list[tuple[str, int, int | None]] = []
    everything: list[int | None] = []

    async def hear(event: TableEvent) -> None:
        heard.append((event.type, event.table_id, getattr(event, "key", None)))

    async def all_of_them(event: TableEvent) -> None:
        everything.append(getattr(event, "key", None))

    queue = bus.subscribe_queued(TableEvent, hear, name="coalesced", coalesce=True)
    plain = bus.subscribe_queued(TableEvent, all_of_them, name="plain")
    published = [
        ("changed", 1, 1),
        ("changed", 1, 2),
        ("changed", 2, 3),
        ("replaced", 1, 4),
        ("changed", 1, 5),
        ("changed", 1, 6),
        ("changed", 2, 7),
        ("ended", 1, 8),
        ("changed", 2, 9),
    ]
    for what, table, label in published:
        bus.publish(MAKERS[what](table, label))
    assert queue.pending == 5  # a table's run of plain changes takes one place, whatever the pace
    await queue.drained()
    await plain.drained()
    assert heard == [
        ("table_changed", 1, 2),  # 1 made useless by 2
        ("table_changed", 2, 9),  # 3, 7 and 9 were a run of table 2's: heard in the run's place
        ("seat_replaced", 1, 4),  # never coalesced away, never overtaken by 5 or 6
        ("table_changed", 1, 6),
        ("table_ended", 1, 8),
    ]
    assert everything == [label for _, _, label in published]
    await bus.close()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["changed", "changed", *sorted(MAKERS)]),  # plain changes are most events
            st.integers(1, 2),
            st.integers(0, 7).map(lambda n: n == 0),  # now and then the listener hears what it has
        ),
        max_size=40,
    ),
)
def test_coalescing_never_drops_nor_overtakes_what_matters(steps: list[tuple[str, int, bool]]) -> None:
    """Whatever the events and whenever the listener gets to run (``pause``: it hears what it was given
    before the next publish), per table: every event that is not a plain change is heard once, the
    order is the order published, the newest event is heard, and a plain change is left out only for a
    newer one of its own run (no other event of its table between them)."""
    published, heard = asyncio.run(_coalesced(steps))
    by_table: dict[int, list[TableEvent]] = defaultdict(list)
    for event in published:
        by_table[event.table_id].append(event)
    heard_seqs = {e.seq for e in heard}
    assert len(heard_seqs) == len(heard)  # nothing heard twice
    for table, events in by_table.items():
        mine = [e.seq for e in heard if e.table_id == table]
        assert mine == sorted(mine)
        assert events[-1].seq in heard_seqs
        for i, event in enumerate(events):
            if event.seq in heard_seqs:
                continue
            assert type(event).coalescable
            later = events[i + 1]  # not the newest: it was heard
            assert type(later).coalescable  # made useless by the next of its own run
    if not any(pause for _, _, pause in steps):  # nothing heard before the end: one place per run
        runs = sum(
            1
            for events in by_table.values()
            for i, e in enumerate(events)
            if not type(e).coalescable or i == 0 or not type(events[i - 1]).coalescable
        )
        assert len(heard) == runs


async def _coalesced(steps: list[tuple[str, int, bool]]) -> tuple[list[TableEvent], list[TableEvent]]:
    bus = EventBus()
    heard: list[TableEvent] = []

    async def hear(event: TableEvent) -> None:
        heard.append(event)

    queue = bus.subscribe_queued(TableEvent, hear, name="coalesced", coalesce=True)
    published = []
    for label, (what, table, pause) in enumerate(steps):
        event = MAKERS[what](table, label)
        bus.publish(event)
        published.append(event)
        if pause:
            await queue.drained()
    await queue.drained()
    await bus.close()
    return published, heard


async def test_a_listener_cannot_publish_while_an_event_is_delivered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bus = EventBus()
    heard: list[Event] = []
    told: list[Event] = []

    def republish(event: TableChanged) -> None:
        bus.publish(changed(2, 99))  # a listener that must write spawns a task instead

    bus.subscribe(TableChanged, republish, name="republish")
    bus.subscribe(TableChanged, heard.append, name="heard")
    first = changed(1, 0)
    with caplog.at_level(logging.ERROR, logger="bot.service"):
        bus.publish(first)
    assert heard == [first] and bus.seq == 1  # the inner event was refused before it had a seq
    assert failures(caplog) == [("event listener failed", "republish", "table_changed", 1)]
    assert "published while another was being delivered" in caplog.text

    # A queued listener runs in its own task, outside any publish: it may write and publish.
    other = EventBus()

    async def writes(event: TurnReminder) -> None:
        other.publish(changed(1, 7))

    other.subscribe(TableChanged, told.append, name="told")
    queue = other.subscribe_queued(TurnReminder, writes, name="writes")
    caplog.clear()
    other.publish(MAKERS["reminder"](1, 30))
    await queue.drained()
    assert [(e.type, e.seq) for e in told] == [("table_changed", 2)] and failures(caplog) == []
    await bus.close()
    await other.close()


async def test_close_lets_queued_listeners_finish_then_stops_them(caplog: pytest.LogCaptureFixture) -> None:
    bus = EventBus()
    heard: list[int] = []
    inline: list[int] = []

    async def steady(event: TableChanged) -> None:
        await asyncio.sleep(0)
        heard.append(event.seq)

    bus.subscribe_queued(TableChanged, steady, name="steady")
    bus.subscribe(TableChanged, lambda e: inline.append(e.seq), name="inline")
    for label in range(3):
        bus.publish(changed(1, label))
    await bus.close()  # returns once drained (the grace bounds a listener that never finishes)
    assert heard == [1, 2, 3]
    bus.publish(changed(1, 3))  # after close: the inline listeners still hear, the queued ones not
    await asyncio.sleep(0)
    assert inline == [1, 2, 3, 4] and heard == [1, 2, 3]

    stuck_bus = EventBus()
    started = asyncio.Event()

    async def stuck(event: TableChanged) -> None:
        started.set()
        await asyncio.Event().wait()  # never set

    queue = stuck_bus.subscribe_queued(TableChanged, stuck, name="stuck")
    for label in range(3):
        stuck_bus.publish(changed(1, label))
    await started.wait()
    with caplog.at_level(logging.WARNING, logger="bot.service"):
        await stuck_bus.close(grace=0.05)
    assert queue.pending == 0
    assert failures(caplog) == [("queued listener stopped with events unheard", "stuck", None, None)]
    assert caplog.records[-1].left == 2  # type: ignore[attr-defined]
