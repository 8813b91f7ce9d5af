"""The snapshot an event carries (bot/service/snapshots.py) always answers for its own committed version.

Whole games of every game (the two real ones and the test-only third) are played through the real
:class:`~bot.service.TableService` on SQLite: humans click (a seeded choice among their legal moves,
sometimes a hint, sometimes a Leave), computers play at once. At every change the service tells its
listener of, three snapshots of the table are made. For every seat and the spectator, the first is asked
at once, the second inside the next commit (the engine has applied the next action, storage has not
stored it: the state runs ahead of its version) and the third once the game is over. All three must give
the view of the state rebuilt from that version's stored JSON, and that JSON must be the one the action
log replays to. Asked at once, the snapshot's facts and panels are the live table's and the service's.

The one writer of tables sets ``Table.committing`` around an action, and the snapshot's rule reads it:
a snapshot asked inside a commit must not answer from the state that runs ahead.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import random
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.clock import ManualClock
from bot.engine.base import JSON
from bot.games import registry
from bot.games.registry import BY_KIND
from bot.service import HINT_ACT, PLAY, ROUND_OVER, Refused, Table, TableService
from bot.service.events import TableChanged
from bot.service.snapshots import TableSnapshot
from bot.storage import Storage, StoredGame
from bot.storage.game_types import canonical_json
from tests.e2e.highcard import HIGHCARD

from .conftest import bare_table

ANN, BOB = 101, 102
USERS = (ANN, BOB)
# Short games, so that a whole game is a few dozen commits (a game not listed plays its defaults).
SHORT: dict[str, dict[str, Any]] = {
    "skyjo": {"score_limit": 10, "columns": 2, "rows": 2, "initial_reveals": 0},
    "skipbo": {"stock_size": 5},
}
KINDS = (*sorted(BY_KIND), HIGHCARD.name)
# The reads every table has (TableFacts): asked without arguments, then per seat.
FACTS = (
    *("names", "turn_seat", "turn_user", "timer", "replaced", "idle", "human_seats", "waited_for"),
    "round_waiting",
)
PROPERTIES = ("turn_limit", "long_game", "turns", "votes", "hinted", "finished", "game", "version")
PER_SEAT = ("missed", "ai_level")


@cache
def clicks_of(kind: str) -> dict[Any, tuple[str, int]]:
    """Each engine action of ``kind`` -> the (act, arg) of a panel button that stands for it."""
    panel = BY_KIND[kind].panel
    found: dict[Any, tuple[str, int]] = {}
    for act in sorted(panel.GAME_ACTS):
        for arg in range(4000):
            action = panel.action_for(act, arg)
            if action is not None:
                found.setdefault(action, (act, arg))
    return found


@dataclass
class Seen:
    """One change the service told of: the table's three snapshots, and its stored JSON then."""

    now: TableSnapshot
    late: TableSnapshot  # asked inside the next commit
    after: TableSnapshot  # asked once the game is over
    stored_json: str
    asked_late: bool = False


@dataclass
class Watch:
    """A listener of the service's bus: a snapshot at every change, checked against the live table at once."""

    service: TableService | None = None
    seen: list[Seen] = field(default_factory=list)
    ahead: int = 0  # late snapshots asked while their table ran ahead of their version

    def hear(self, event: TableChanged) -> None:
        assert self.service is not None
        table = self.service.writer.table_of(event)
        if table is not None:
            self.take(table)

    def take(self, table: Table) -> None:
        assert self.service is not None
        now = TableSnapshot.of(table)
        self.seen.append(Seen(now, TableSnapshot.of(table), TableSnapshot.of(table), table.stored.snapshot))
        everyone(now)  # asked at once (and kept: the checks at the end read the same views)
        assert (now.table_id, now.kind, now.channel_id) == (table.id, table.stored.kind, table.channel_id)
        for name in FACTS:
            assert getattr(now, name)() == getattr(table, name)(), name
        for name in PROPERTIES:
            assert getattr(now, name) == getattr(table, name), name
        for seat, sitting in enumerate(table.stored.seats):
            for name in PER_SEAT:
                assert getattr(now, name)(seat) == getattr(table, name)(seat), name
            if sitting.user_id is not None:
                assert now.seat_of(sitting.user_id) == seat
            assert now.panel(seat) == self.service.panel_of(table, seat)
            assert now.panel(seat, 1).mode == 1

    def ask_late(self, stored: StoredGame) -> None:
        """Inside a commit of ``stored``: ask every late snapshot not asked yet."""
        for seen in self.seen:
            if not seen.asked_late and seen.late.table_id == stored.id:
                if stored.version == seen.late.version:
                    self.ahead += 1  # the state has the action applied, storage does not have it yet
                everyone(seen.late)
                seen.asked_late = True


def everyone(snapshot: TableSnapshot) -> dict[int | None, JSON]:
    return {seat: snapshot.view(seat) for seat in [None, *range(len(snapshot.seats))]}


def no_engine_state(value: Any, where: str) -> None:
    """Nothing reachable through ``value`` (containers walked) is an engine state or a stored game."""
    assert not isinstance(value, Table | StoredGame), where
    assert not (hasattr(value, "apply") and hasattr(value, "legal_actions")), where
    if isinstance(value, dict | MappingProxyType):
        for key, item in value.items():
            no_engine_state(item, f"{where}[{key!r}]")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            no_engine_state(item, f"{where}[{i}]")


def public_fields(snapshot: TableSnapshot) -> Iterator[tuple[str, Any]]:
    for f in dataclasses.fields(snapshot):
        if not f.name.startswith("_"):
            yield f.name, getattr(snapshot, f.name)


async def play_out(kind: str, seed: int, humans: int, computers: int, pick: random.Random) -> None:
    with tempfile.TemporaryDirectory() as folder:
        storage = await Storage.open(Path(folder) / "skybo.sqlite3")
        watch = Watch()
        service = TableService(storage, ai_delay=0.0, clock=ManualClock(), seed_source=lambda: seed)
        watch.service = service
        service.bus.subscribe(TableChanged, watch.hear, name="watch")
        commit_action = storage.games.commit_action

        async def committing(stored: StoredGame, *args: Any, **kwargs: Any) -> Any:
            watch.ask_late(stored)
            return await commit_action(stored, *args, **kwargs)

        storage.games.commit_action = committing  # type: ignore[method-assign]
        try:
            table = await deal(service, kind, humans, computers)
            watch.take(table)
            await play(service, table, pick)
            await service.close()
            logged = await storage.games.actions(table.id)
        finally:
            await service.close()
            await storage.close()
    check(table, watch, logged)


async def deal(service: TableService, kind: str, humans: int, computers: int) -> Table:
    lobby = await service.open_lobby(
        guild_id=1,
        channel_id=10,
        host_id=ANN,
        host_name="Ann",
        options=SHORT.get(kind, {}),
        computers=computers,
        kind=kind,
    )
    if humans == 2:
        await service.lobby_join(lobby.id, 10, BOB, "Bob")
    return await service.lobby_start(lobby.id, 10, ANN)


async def play(service: TableService, table: Table, pick: random.Random) -> None:
    """Humans click until the game is over; computers play in their own task meanwhile."""
    clicks = clicks_of(table.stored.kind)
    for _ in range(5000):
        if table.finished:
            return
        state = table.state
        movers = [
            seat
            for seat, sitting in enumerate(table.stored.seats)
            if sitting.user_id is not None
            and seat not in table.replaced()
            and state.legal_actions(seat)
            and not (state.phase == ROUND_OVER and seat in table.votes)
        ]
        if not movers:
            await until(moved(table))
            continue
        seat = pick.choice(movers)
        user = table.stored.seats[seat].user_id
        assert user is not None
        roll = pick.random()
        if roll < 0.05 and user == BOB:
            await service.leave(table.id, user)  # a computer takes Bob's seat
            continue
        panel = await service.open_panel(table.id, user)
        if roll < 0.08 and state.phase == PLAY and state.turn == seat and table.game.suggestion:
            with contextlib.suppress(Refused):  # no suggestion for this position
                await service.click(table.id, panel.version, user, HINT_ACT, 0)  # the game becomes unrated
            continue
        act, arg = clicks[pick.choice(state.legal_actions(seat))]
        await service.click(table.id, panel.version, user, act, arg)
    raise AssertionError("the game did not end")


def moved(table: Table) -> Callable[[], bool]:
    """Whether the table changed since now (a commit, a meta write) or the game is over."""
    version, meta = table.version, table.stored.meta
    return lambda: table.finished or table.version != version or table.stored.meta is not meta


async def until(done: Callable[[], bool]) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30.0  # a bound for a stuck game, never reached by one that plays
    while not done():
        assert loop.time() < deadline, "the computers did not move"
        await asyncio.sleep(0.001)


def check(table: Table, watch: Watch, logged: list[Any]) -> None:
    """Every snapshot, asked at once, inside the next commit and at the end, is its version's JSON."""
    engine = table.game.engine
    stored = table.stored
    state = engine.State.new(
        [s.engine_name for s in stored.seats], stored.seed, engine.Options.from_dict(stored.options)
    )
    replayed = {0: canonical_json(state.to_dict())}
    for action in logged:
        state.apply(action.seat, engine.action_from_dict(action.action))
        replayed[action.seq] = canonical_json(state.to_dict())
    assert table.finished and len(logged) == table.version
    assert watch.ahead > 0  # the tricky moment was met
    assert [s.now.version for s in watch.seen] == sorted(s.now.version for s in watch.seen)
    for seen in watch.seen:
        assert seen.stored_json == replayed[seen.now.version]
        committed = engine.State.from_dict(json.loads(seen.stored_json))
        expected = {seat: committed.view(seat) for seat in [None, *range(len(stored.seats))]}
        for snapshot in (seen.now, seen.late, seen.after):
            assert everyone(snapshot) == expected
            assert snapshot.results() == committed.results()
            for name, value in public_fields(snapshot):
                no_engine_state(value, name)
            assert seen.stored_json not in repr(snapshot)
            assert not hasattr(snapshot, "state") and not hasattr(snapshot, "seed")


@pytest.fixture
def third_game() -> Iterator[None]:
    registry.register(HIGHCARD)
    try:
        yield
    finally:
        registry.unregister(HIGHCARD)


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 2**40),
    humans=st.integers(1, 2),
    more=st.integers(0, 2),
    choices=st.integers(0, 2**32),
)
def test_a_snapshot_is_its_committed_version_whenever_it_is_asked(
    third_game: None, kind: str, seed: int, humans: int, more: int, choices: int
) -> None:
    game = BY_KIND[kind]
    computers = min(max(game.min_players - humans, more), game.max_players - humans)
    asyncio.run(play_out(kind, seed, humans, computers, random.Random(choices)))


def test_a_snapshot_keeps_its_version_while_the_table_moves_on() -> None:
    """The rule of the module, step by step on one table: while an action is being applied the live
    state runs ahead, and a snapshot asked then (or after) reads its own version's JSON."""
    table = bare_table(1)
    stored = table.stored
    before = TableSnapshot.of(table)
    seat = table.state.seats_to_act()[0]
    table.committing = True
    with pytest.raises(RuntimeError):
        TableSnapshot.of(table)  # a state that runs ahead has no snapshot
    events = table.state.apply(seat, table.state.legal_actions(seat)[0])  # applied, not stored yet
    assert events and table.version == before.version
    dealt = table.game.engine.State.from_dict(json.loads(stored.snapshot))
    assert everyone(before) == {s: dealt.view(s) for s in (None, 0, 1)}  # not the state running ahead
    assert before.panel(seat).view == dealt.view(seat) and before.results() == dealt.results()
    stored.snapshot, stored.version = canonical_json(table.state.to_dict()), stored.version + 1  # stored
    table.committing = False
    after = TableSnapshot.of(table)
    assert after.view(None) == table.state.view(None) != before.view(None)
    assert after.view(0) is after.view(0)  # computed once
    with pytest.raises(ValueError):
        after.view(2)  # no such seat
