"""A computer's move, or a timer's, whose commit meets a transient database fault is tried again.

The real bot against the fake Discord, on a temporary SQLite file. Storage makes a commit that fails
on a transient fault (a busy lock, an I/O error, a dropped connection) once more, and if that fails
too the move is refused. Before: a refused computer move stopped its table's computer for good (the
table "waits for the computer" forever, ``/healthz`` 200), and a refused next round was dropped by the
timer (the round never started unless every human voted). Now the computer tries again with a growing
pause until its move is committed, deciding it from the game as it stands then, and a timer looks at
its deadline again; a table that went into "waiting for the database" is left to its reload, which arms
its computer: never two computer tasks at one table.

The faults are injected into the storage layer (the bot's SQLite ``write``) only for the commits the
test picks: a refused write raises :class:`DatabaseBusy`, as SQLite's busy timeout does, before
anything is written.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
from collections.abc import Callable
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.i18n import translate as t
from bot.storage.errors import DatabaseBusy
from bot.storage.game_types import StoredGame

from .conftest import button, open_panel, play_turns, private_answer, start_table
from .test_db_blink import SqliteBlackout

# Whether the commit being made is one the test makes fail (set around GameLedger.apply_action;
# the tasks it starts, the retry's included, see it too).
PICKED: contextvars.ContextVar[bool] = contextvars.ContextVar("picked", default=False)


class FailingCommits:
    """The next ``refuse`` writes of the picked commits are refused (DatabaseBusy, nothing written);
    then, if ``lose_answer``, one lands but its answer is lost (DatabaseBusy after it committed)."""

    def __init__(
        self, bot: Any, monkeypatch: pytest.MonkeyPatch, picked: Callable[[StoredGame, int, Any], bool]
    ) -> None:
        self.refuse = 0
        self.lose_answer = False
        self.refused = 0
        self.lost = 0
        games, db = bot.service.ledger, bot.service.storage.db
        apply_action, write = games.apply_action, db.write

        async def picking_apply(stored: StoredGame, seat: int, action: Any, *args: Any, **kwargs: Any) -> Any:
            token = PICKED.set(picked(stored, seat, action))
            try:
                return await apply_action(stored, seat, action, *args, **kwargs)
            finally:
                PICKED.reset(token)

        async def failing_write(fn: Callable[[Any], Any]) -> Any:
            if PICKED.get() and self.refuse:
                self.refuse -= 1
                self.refused += 1
                raise DatabaseBusy(300)
            if PICKED.get() and self.lose_answer:
                self.lose_answer = False
                await write(fn)
                self.lost += 1
                raise DatabaseBusy(300)
            return await write(fn)

        monkeypatch.setattr(games, "apply_action", picking_apply)
        monkeypatch.setattr(db, "write", failing_write)


def computer_seat(stored: StoredGame, seat: int, action: Any) -> bool:
    return stored.seats[seat].ai_level is not None


class LoopCount:
    """How many computer tasks run at each table, now and at most."""

    def __init__(self, bot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        service = bot.service
        self.live: dict[int, int] = {}
        self.most = 0
        loop = service._ai_loop

        async def counted(table: Any) -> None:
            self.live[table.id] = self.live.get(table.id, 0) + 1
            self.most = max(self.most, self.live[table.id])
            try:
                await loop(table)
            finally:
                self.live[table.id] -= 1

        monkeypatch.setattr(service, "_ai_loop", counted)


async def check_log(bot: Any, game_id: int) -> list[Any]:
    """The game's action log, checked: as many actions as the version, the snapshot its replay."""
    storage = bot.service.storage.games
    for _ in range(40):  # two reads: a computer may move between them (then both are read again)
        stored = await bot.service.ledger.get_game(game_id, verify=True)  # raises if not the replay
        actions: list[Any] = await storage.actions(game_id)
        if len(actions) == stored.version:
            break
        await asyncio.sleep(0.05)
    assert [a.seq for a in actions] == list(range(1, stored.version + 1))
    return actions


async def test_a_computer_move_refused_by_a_busy_database_is_applied_once_when_it_answers(
    fake_discord: Any, skybo: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    fake = fake_discord
    bot = await skybo()
    faults = FailingCommits(
        bot,
        monkeypatch,
        lambda stored, seat, action: computer_seat(stored, seat, action) and stored.state.phase == "play",
    )
    loops = LoopCount(bot, monkeypatch)
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], computers=1, turn_limit=0)
    table = bot.service.tables[game_id]
    ai = next(s.seat for s in table.stored.seats if s.ai_level is not None)
    rng = random.Random(3)

    # The humans play until the computer is to draw; its move's commit then meets a busy database:
    # two commits refused (each made twice by storage), and the third lands with its answer lost.
    def computer_next() -> bool:
        game = table.state
        return game.phase == "play" and game.turn == ai and game.drawn is None

    faults.refuse, faults.lose_answer = 4, True
    caplog.set_level(logging.WARNING, logger="bot")
    await play_turns(fake, bot, game_id, table_message, [alice, bob], rng, until=computer_next)
    before = table.version
    # (While a commit is made the cache holds the move already; a refused one is taken back.)
    await fake.wait_until(lambda: faults.refused >= 2 and computer_next(), what="the computer's move refused")
    assert table.version == before and not table.needs_reload

    # The database answers again: the move is applied, once, and the computer plays its turn on.
    await fake.wait_until(
        lambda: faults.lost == 1 and table.version > before and ai not in table.state.seats_to_act(),
        timeout=15,
        what="the computer's turn played",
    )
    assert faults.refused == 4 and faults.refuse == 0
    actions = await check_log(bot, game_id)
    turn = actions[before:]
    assert 1 <= len(turn) <= 2 and all(a.seat == ai for a in turn), turn  # each step logged once
    assert turn[0].action["type"] in ("draw", "take") and turn[0].key is None
    tries = [r for r in caplog.records if r.getMessage() == "computer move not saved, trying again"]
    assert len(tries) == 2 and all(r.levelno == logging.WARNING for r in tries)
    assert [getattr(r, "game_id", None) for r in tries] == [game_id, game_id]
    assert not table.needs_reload and loops.most == 1

    # The game goes on: the humans and the computer play several more turns.
    version = table.version
    await play_turns(
        fake, bot, game_id, table_message, [alice, bob], rng, until=lambda: table.version >= version + 12
    )
    await check_log(bot, game_id)
    assert loops.most == 1


async def test_a_computer_refused_while_its_table_waits_for_the_database_is_armed_once_by_the_reload(
    fake_discord: Any, skybo: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Initial reveals: the humans and the computer act at once. The computer's reveal is refused (it
    waits to try again) when Alice's reveal meets the database away: her table waits for it. Both the
    reload and the computer's retry then want the computer to play: one task does, each card once."""
    fake = fake_discord
    caplog.set_level(logging.WARNING, logger="bot")
    bot = await skybo()
    faults = FailingCommits(bot, monkeypatch, computer_seat)
    loops = LoopCount(bot, monkeypatch)
    blackout = SqliteBlackout(bot.service.storage.db, monkeypatch)
    faults.refuse = 1000  # the computer's commits are refused until the test says otherwise
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], computers=1, turn_limit=0)
    table = bot.service.tables[game_id]
    ai = next(s.seat for s in table.stored.seats if s.ai_level is not None)
    panel = await open_panel(fake, alice, table_message)
    await fake.wait_until(
        lambda: any(r.getMessage() == "computer move not saved, trying again" for r in caplog.records),
        what="the computer's reveal refused, to be tried again",
    )
    assert table.state.phase == "reveal" and ai in table.state.seats_to_act() and table.version == 0
    blackout.begin()
    answer = await private_answer(await fake.click(alice, panel, button(panel, "rv")))
    assert answer.text == t("table.error.reconnecting", "en-US")
    assert table.needs_reload and table.version == 0
    faults.refuse = 0
    blackout.end()

    await fake.wait_until(
        lambda: not table.needs_reload and ai not in table.state.seats_to_act(),
        timeout=15,
        what="the table reloaded and the computer's reveals made",
    )
    actions = await check_log(bot, game_id)
    reveals = [a for a in actions if a.seat == ai]
    assert len(reveals) == len({canonical(a.action) for a in reveals}) == 2, reveals  # each card once
    assert loops.most == 1
    # The humans turn their cards and the game goes on.
    version = table.version
    await play_turns(
        fake, bot, game_id, table_message, [alice, bob], random.Random(4),
        until=lambda: table.version >= version + 10,
    )  # fmt: skip
    await check_log(bot, game_id)
    assert loops.most == 1


def retries(caplog: pytest.LogCaptureFixture, game_id: int) -> list[logging.LogRecord]:
    """The timer's WARNING lines saying it will try again (the game's id, nothing hidden)."""
    found = [r for r in caplog.records if r.getMessage() == "timer action not saved, trying again"]
    assert all(r.levelno == logging.WARNING and getattr(r, "game_id", None) == game_id for r in found)
    return found


def canonical(action: dict[str, Any]) -> str:
    return repr(sorted(action.items()))


async def test_a_next_round_refused_by_a_busy_database_is_started_when_it_answers(
    fake_discord: Any, skybo: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The round pause ends while the database is busy: the timer's next round is tried again (before:
    dropped, the table stayed between rounds until every human clicked Next round)."""
    fake = fake_discord
    caplog.set_level(logging.WARNING, logger="bot")
    clock = ManualClock()
    bot = await skybo(clock=clock, round_delay=30.0)
    faults = FailingCommits(bot, monkeypatch, lambda stored, seat, action: action.type == "next_round")
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=0, score_limit=400)
    table = bot.service.tables[game_id]
    await play_turns(
        fake, bot, game_id, table_message, [alice, bob], random.Random(6),
        until=lambda: table.state.phase == "round_over",
    )  # fmt: skip
    timer = table.timer()
    assert timer is not None and timer["what"] == "round"
    version = table.version

    faults.refuse = 6  # three tries of the next round refused, each made twice by storage
    clock.advance(31)
    for _ in range(100):  # the clock moves on a second at a time (nobody votes)
        if table.version > version:  # committed (the cache holds a move while it is committed)
            break
        await asyncio.sleep(0.05)
        clock.advance(1)
    assert table.version == version + 1, "the next round was never started"
    assert table.state.phase != "round_over" and faults.refused == 6
    assert len(retries(caplog, game_id)) == 3
    await check_log(bot, game_id)


async def test_a_turn_covered_while_the_database_is_busy_is_covered_once_when_it_answers(
    fake_discord: Any, skybo: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Bob's time runs out while the database is busy: his reveals are made for him once it answers,
    and the miss counted once."""
    fake = fake_discord
    caplog.set_level(logging.WARNING, logger="bot")
    clock = ManualClock()
    bot = await skybo(clock=clock)
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=60)
    table = bot.service.tables[game_id]
    bob_seat = table.seat_of(bob.id)
    assert bob_seat is not None
    faults = FailingCommits(bot, monkeypatch, lambda stored, seat, action: seat == bob_seat)
    panel = await open_panel(fake, alice, table_message)
    while table.seat_of(alice.id) in table.state.seats_to_act():
        await (await fake.click(alice, panel, button(panel, "rv"))).answer()
    assert table.state.phase == "reveal"

    faults.refuse = 6
    version = table.version
    clock.advance(61)
    for _ in range(100):
        if table.version >= version + 2:  # Bob's two reveals committed
            break
        await asyncio.sleep(0.05)
        clock.advance(1)
    assert table.version == version + 2 and table.state.phase == "play", "Bob's reveals were never made"
    assert faults.refused == 6 and table.missed(bob_seat) == 1
    actions = await check_log(bot, game_id)
    assert len([a for a in actions if a.seat == bob_seat]) == 2
    assert len(retries(caplog, game_id)) == 3  # looked at again after a pause, nothing written meanwhile
    told = [e for _, events in table.recent for e in events if e["type"] == "turn_timed_out"]
    assert told == [{"type": "turn_timed_out", "seat": bob_seat}]  # said once, not at every try
    await fake.wait_until(
        lambda: table_message.text.count("ran out of time") == 1, what="the table saying so"
    )
