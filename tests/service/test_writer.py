"""One commit, one event (docs/architecture.md): a listener subscribed once to the service's bus hears
every change of a whole game, in order, and every stored action exactly once, at its version; a
database blink as ``TableWaiting`` then ``TableChanged(reloaded)``; after a restart it starts from what
is stored (``TableResumed``). No part is edited for it, and no listener of
the old kind is involved: the bus alone."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from bot.games.skyjo import engine as skyjo
from bot.service import Refused, Table, TableService
from bot.service.events import (
    Event,
    LobbyChanged,
    LobbyOpened,
    TableChanged,
    TableDealt,
    TableEnded,
    TableEvent,
    TableResumed,
    TableWaiting,
)
from tests.e2e.test_db_blink import SqliteBlackout

from .conftest import ANN, BOB, CHANNEL, GUILD, Services, click_for, until

SHORT = {"score_limit": 10, "columns": 2, "rows": 2, "initial_reveals": 0}
COMMITS = {"move", "computer", "timer", "next_round"}  # the causes of a stored action


class Recorder:
    """A surface that records what it is told."""

    def __init__(self) -> None:
        self.heard: list[Event] = []

    def hear(self, event: Event) -> None:
        self.heard.append(event)

    def of_table(self, table_id: int) -> list[TableEvent]:
        return [e for e in self.heard if isinstance(e, TableEvent) and e.table_id == table_id]


def moved(table: Table) -> Callable[[], bool]:
    """Whether the table changed since now (a commit, a meta write) or the game is over."""
    version, meta = table.version, table.stored.meta
    return lambda: table.finished or table.version != version or table.stored.meta is not meta


async def play(service: TableService, table: Table, rng: random.Random, moves: int) -> None:
    """The humans click (a Next-round vote included) ``moves`` times, or until the game is over; the
    computer plays in its own task, armed by what it hears."""
    users = {s: seat.user_id for s, seat in enumerate(table.stored.seats) if seat.user_id is not None}
    for _ in range(moves):
        if table.finished:
            return
        state = table.state
        movers = [
            s
            for s in users
            if state.legal_actions(s) and not (state.phase == skyjo.ROUND_OVER and s in table.votes)
        ]
        if not movers:
            await until(moved(table), "a computer's move")
            continue
        seat = rng.choice(movers)
        act, arg = click_for(rng.choice(state.legal_actions(seat)))
        panel = await service.open_panel(table.id, users[seat])
        key = rng.getrandbits(60)  # the click's interaction id
        await service.click(table.id, panel.version, users[seat], act, arg, key=key)


async def test_one_listener_hears_a_whole_game_each_commit_once_in_order_a_blink_and_a_restart(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = await services.start()
    recorder = Recorder()
    service.bus.subscribe(Event, recorder.hear, name="recorder")  # the one registration
    lobby = await service.open_lobby(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=ANN,
        host_name="Ann",
        options=SHORT,
        computers=1,
        kind="skyjo",
    )
    await service.lobby_join(lobby.id, CHANNEL, BOB, "Bob")
    table = await service.lobby_start(lobby.id, CHANNEL, ANN)
    rng = random.Random(3)
    await play(service, table, rng, 6)

    # The database blinks: a click meets it (retried, then refused "reconnecting", nothing applied);
    # the table waits, and once the database answers the reloader reads it back.
    blackout = SqliteBlackout(service.storage.db, monkeypatch)
    blackout.begin()
    version = table.version
    seat = next(s for s in range(3) if table.state.legal_actions(s) and table.ai_level(s) is None)
    user = table.stored.seats[seat].user_id
    assert user is not None
    act, arg = click_for(rng.choice(table.state.legal_actions(seat)))
    with pytest.raises(Refused):
        await service.click(table.id, version, user, act, arg, key=rng.getrandbits(60))
    assert table.version == version
    await until(lambda: any(isinstance(e, TableWaiting) for e in recorder.of_table(table.id)), "the wait")
    blackout.end()
    reloaded = [TableChanged, "reloaded"]
    await until(
        lambda: any([type(e), getattr(e, "cause", None)] == reloaded for e in recorder.of_table(table.id)),
        "the table read back",
    )
    await play(service, table, rng, 4)

    # A restart: the new service's listener, subscribed before its resume, starts from what is stored.
    await services.stop(service)
    service = await services.start()
    restarted = Recorder()
    service.bus.subscribe(Event, restarted.hear, name="recorder")
    await service.resume()
    table = service.tables[table.id]
    (resumed,) = restarted.of_table(table.id)[:1]
    assert isinstance(resumed, TableResumed) and resumed.snapshot.version == table.version
    await play(service, table, rng, 2000)
    assert table.finished

    logged = [a.seq for a in await service.storage.games.actions(table.id)]
    for heard in (recorder.heard, restarted.heard):
        seqs = [e.seq for e in heard]
        assert seqs == sorted(set(seqs)) and seqs[0] > 0  # strictly increasing within a service
    first = recorder.heard[:3]
    assert [type(e) for e in first] == [LobbyOpened, LobbyChanged, TableDealt]
    assert isinstance(first[1], LobbyChanged) and first[1].cause == "join"
    events = [*recorder.of_table(table.id), *restarted.of_table(table.id)]
    # The blink, in its place: the wait, then the table read back at the version it waited at.
    waits = [i for i, e in enumerate(events) if isinstance(e, TableWaiting)]
    back = [i for i, e in enumerate(events) if isinstance(e, TableChanged) and e.cause == "reloaded"]
    assert waits and back and waits[0] < back[0] and events[back[0]].snapshot.version == version
    last = events[-1]
    assert isinstance(last, TableEnded) and last.how == "finished" and last.snapshot.is_over
    assert [e for e in events if isinstance(e, TableEnded)] == [last]
    versions = [e.snapshot.version for e in events]
    assert versions == sorted(versions)  # in commit order (the wait and the read-back at their version)
    # Every stored action is published exactly once, by the change its commit made, at its version.
    commits = [e.snapshot.version for e in events if isinstance(e, TableChanged) and e.cause in COMMITS]
    assert commits == logged and len(set(commits)) == len(commits)
    computer = [e for e in events if isinstance(e, TableChanged) and e.cause == "computer"]
    (ai_seat,) = [s for s in range(3) if table.ai_level(s) is not None]
    assert computer and all(e.seat == ai_seat and e.events for e in computer)  # the bus armed it
    clicked = [e for e in events if isinstance(e, TableChanged) and e.cause == "move"]
    assert clicked and all(e.key is not None for e in clicked)  # a click's change names its click
