"""Fixtures for the table service's own tests: a real :class:`~bot.service.TableService` over a real SQLite
file, on a manual clock, with no Discord at all (neither discord.py nor the fake).

These tests use only what the cogs and ``bot/ui`` call of the service (``open_lobby``, ``lobby_join``,
``lobby_start``, ``open_panel``, ``click``, ``resume``, ``close``, ``tables``) and what it tells its
listener, so a change of the service's insides leaves them standing. Each takes well under a second;
whatever needs Discord's side (payloads, the presenter, the router) is for ``tests/e2e``.

``clock``
    A :class:`~bot.clock.ManualClock`: the turn timers and lobby deadlines move only when a test says
    ``clock.advance(seconds)``.
``bare_table(table_id)`` (a function)
    A dealt two-player table of the first registered game, with no storage behind it: for what reads
    a table without writing it (the snapshots, the event bus).
``services``
    ``await services.start()``: a service (with a :class:`Heard` listener) on the test's SQLite file;
    ``await services.restart(service)`` closes it and its storage and starts a new one on the same
    database, as a new process would (it then calls ``resume()`` itself). Whatever is still open is
    closed at teardown.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bot.clock import ManualClock
from bot.games.registry import BY_KIND
from bot.games.skyjo import engine as skyjo
from bot.games.skyjo import panel
from bot.service import Table, TableService
from bot.service.events import Event, TableChanged
from bot.storage import Seat, Storage
from bot.storage.game_types import GameHead, canonical_json

E = TypeVar("E", bound=Event)

GUILD, CHANNEL = 1, 10
ANN, BOB = 101, 102  # user ids; Ann hosts


class Recorder:
    """A surface that records what it is told: every event of a service's bus, in order, by one
    registration (``service.bus.subscribe(Event, recorder.hear, name="recorder")``), nothing else."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def hear(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: type[E]) -> list[E]:
        return [event for event in self.events if isinstance(event, kind)]

    @property
    def versions(self) -> list[int]:
        """The version of each table change heard (the deal and the moves), in the order told."""
        return [event.snapshot.version for event in self.of(TableChanged)]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()  # starts at the wall clock: storage stamps a lobby's creation with it


class Services:
    """Table services on one SQLite file, one at a time (a process, then the next after a restart)."""

    def __init__(self, path: Path, clock: ManualClock) -> None:
        self.path = path
        self.clock = clock
        self.open: list[TableService] = []
        self.heard: dict[TableService, Recorder] = {}  # each service's events, recorded from its start

    async def start(self) -> TableService:
        storage = await Storage.open(self.path)
        service = TableService(
            storage, ai_delay=0.0, round_delay=30.0, clock=self.clock, seed_source=lambda: 7
        )
        self.heard[service] = Recorder()
        service.bus.subscribe(Event, self.heard[service].hear, name="recorder")
        self.open.append(service)
        return service

    async def stop(self, service: TableService) -> None:
        self.open.remove(service)
        await service.close()
        await service.storage.close()

    async def restart(self, service: TableService) -> TableService:
        await self.stop(service)
        again = await self.start()
        await again.resume()
        return again


@pytest.fixture
async def services(tmp_path: Path, clock: ManualClock) -> AsyncIterator[Services]:
    made = Services(tmp_path / "data" / "skybo.sqlite3", clock)
    try:
        yield made
    finally:
        for service in list(made.open):
            await made.stop(service)


async def until(done: Callable[[], bool], what: str, seconds: float = 30.0) -> None:
    """Let the service's tasks (the sweeper) run until ``done()``; fail after ``seconds`` of real time."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not done():
        if loop.time() > deadline:
            raise AssertionError(f"still waiting for {what}")
        await asyncio.sleep(0.005)


async def two_player_table(service: TableService, *, turn_limit: int | None = None) -> Table:
    """Ann opens a Skyjo lobby in CHANNEL, Bob joins, Ann starts it: the dealt table."""
    lobby = await service.open_lobby(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=ANN,
        host_name="Ann",
        options={},
        kind="skyjo",
        turn_limit=turn_limit,
    )
    await service.lobby_join(lobby.id, CHANNEL, BOB, "Bob")
    return await service.lobby_start(lobby.id, CHANNEL, ANN)


def click_for(action: Any) -> tuple[str, int]:
    """The (act, arg) of the Skyjo panel button that stands for ``action`` (what a click carries)."""
    acts = {
        skyjo.Reveal: panel.REVEAL,
        skyjo.Draw: panel.DRAW,
        skyjo.TakeDiscard: panel.TAKE,
        skyjo.Replace: panel.REPLACE,
        skyjo.DiscardAndReveal: panel.DISCARD_REVEAL,
        skyjo.NextRound: panel.NEXT_ROUND,
    }
    return acts[type(action)], getattr(action, "pos", 0)


def bare_table(table_id: int, kind: str | None = None) -> Table:
    """A dealt table of Ann and Bob (``kind``: the first registered game by default), no storage."""
    kind = kind or sorted(BY_KIND)[0]
    engine = BY_KIND[kind].engine
    state = engine.State.new([f"u{ANN}", f"u{BOB}"], 1, engine.Options())
    head = GameHead(
        id=table_id,
        guild_id=GUILD,
        channel_id=CHANNEL + table_id,
        kind=kind,
        seed=1,
        options=engine.Options().to_dict(),
        seats=(Seat(0, "Ann", ANN), Seat(1, "Bob", BOB)),
        status="active",
        rated=True,
        host_id=ANN,
        message_id=None,
        version=0,
        meta={},
        note=None,
        created_at=0,
        updated_at=0,
        finished_at=None,
    )
    return Table(head.with_state(state, canonical_json(state.to_dict())), [0, 0])
