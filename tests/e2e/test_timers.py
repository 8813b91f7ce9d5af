"""Turn time limits, end to end with the real bot and a manual clock (no real waiting).

A player who does not play gets a reminder at half time, then the ``normal`` computer player plays
the turn for them (initial reveals at random) and the table says so; after 3 missed turns in a row a
computer player takes the seat and the player is told privately. Every turn gets the whole limit,
the one after a covered turn included (issue 22). Deadlines are in the database: a restart in the
middle of a countdown neither loses the timer nor fires it twice. Lobbies nobody starts close
after 15 minutes.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.service import LOBBY_TTL_MS, Table
from bot.service.types import token_of

from .conftest import (
    act_of,
    bot_on,
    button,
    open_lobby,
    play_turns,
    refuse_meta_writes,
    reveal_own_cards,
    start_table,
)
from .skipbo_helpers import start_skipbo

LIMIT = 60  # seconds per turn in these tests


def reminders(fake: Any, user: Any) -> list[Any]:
    general = fake.channel("general")
    return [m for m in fake.channel_messages(general) if "⏳" in m.content and f"<@{user.id}>" in m.content]


async def leave_table(fake: Any, user: Any, table_message: Any) -> None:
    """Leave with the table's button, saying yes when the bot asks to confirm."""
    inter = await fake.click(user, table_message, button(table_message, "lv"))
    answer = await inter.original()
    if any(act_of(c) == "ly" for c in answer.custom_ids):
        await (await fake.click(user, answer, button(answer, "ly"))).answer()


async def test_an_idle_player_is_covered_then_replaced_after_three_missed_turns(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock)
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=LIMIT, score_limit=100)
    table = bot.service.tables[game_id]
    bob_seat = table.seat_of(bob.id)
    assert bob_seat is not None and table.turn_limit == LIMIT
    await reveal_own_cards(fake, alice, table_message, table)
    assert table.state.phase == "reveal"  # Bob has not turned his cards

    # Half time: a public reminder mentions Bob; nothing is played yet.
    version = table.version
    clock.advance(LIMIT / 2 + 1)
    await fake.wait_until(lambda: len(reminders(fake, bob)) == 1, what="the reminder")
    assert table.version == version and table.missed(bob_seat) == 0

    # The limit: Bob's two reveals are made for him and the table says so.
    clock.advance(LIMIT / 2)
    await fake.wait_until(lambda: table.state.phase == "play", what="Bob's reveals made by the timer")
    assert table.missed(bob_seat) == 1
    await fake.wait_until(lambda: "ran out of time" in table_message.text, what="the table saying so")

    # Bob plays a turn himself: his missed count starts again from zero.
    rng = random.Random(5)

    def bob_to_play() -> bool:
        return table.state.phase == "play" and table.state.turn == bob_seat and table.state.drawn is None

    await play_turns(fake, bot, game_id, table_message, [alice], rng, until=bob_to_play)
    await play_turns(
        fake, bot, game_id, table_message, [bob], rng, until=lambda: table.state.turn != bob_seat
    )
    assert table.missed(bob_seat) == 0

    # Three turns in a row without Bob: covered each time, then a computer player takes his seat.
    for missed in (1, 2, 3):
        await play_turns(fake, bot, game_id, table_message, [alice], rng, until=bob_to_play)
        version = table.version
        clock.advance(LIMIT + 1)
        await fake.wait_until(
            lambda v=version: table.version > v and not bob_to_play() and table.state.drawn is None,
            what="Bob's turn covered",
        )
        if missed < 3:
            assert table.missed(bob_seat) == missed and bob_seat not in table.replaced()
    await fake.wait_until(lambda: bob_seat in table.replaced(), what="Bob replaced")
    await fake.wait_until(lambda: "missed 3 turns" in table_message.text, what="the table saying so")
    dm = await fake.wait_until(lambda: fake.dm_channels.get(bob.id), what="a private message to Bob")
    note = await fake.wait_until(
        lambda: next(
            (m for m in fake.channel_messages(dm) if "computer player took your seat" in m.content), None
        ),
        what="the private note",
    )
    assert str(table_message.id) in note.content  # a link back to the table
    # Bob's panel now answers privately that his seat was taken, with a way back (test_seat_back.py);
    # until he takes it, the computer plays on for him.
    inter = await fake.click(bob, table_message, button(table_message, "op"))
    answer = await inter.original()
    assert answer.ephemeral and answer.visible_to == bob.id
    assert "computer player took your seat" in answer.text
    assert act_of(button(answer, "rc")) == "rc"
    version = table.version
    await play_turns(
        fake, bot, game_id, table_message, [alice], rng, until=lambda: table.version > version + 4
    )


async def test_a_reminder_whose_id_the_database_did_not_take_is_deleted_when_the_turn_moves_on(
    fake_discord: Any, skybo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The half-time reminder is posted, but the database refuses the write naming it in the game's
    meta (away for a moment): the process keeps its id, and deletes it, once, when the turn moves on
    (before, nothing named it any more: it stayed in the channel for good)."""
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock)
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=LIMIT)
    table = bot.service.tables[game_id]
    await reveal_own_cards(fake, alice, table_message, table)
    # Only the write naming the reminder: the timer's own ("reminded") goes through.
    refused, take_back = refuse_meta_writes(
        monkeypatch, bot, lambda meta: isinstance(meta.get("reminder"), int)
    )
    clock.advance(LIMIT / 2 + 5)  # past half time: the reminder goes out
    (reminder,) = await fake.wait_until(lambda: reminders(fake, bob) or None, what="the reminder")
    await fake.wait_until(lambda: refused, what="its id refused")
    await bot.presenter.flush()
    assert "reminder" not in table.stored.meta and not reminder.deleted
    take_back()

    clock.advance(LIMIT)  # the deadline: Bob's reveals are made for him, the turn moves on
    await fake.wait_until(lambda: table.state.phase == "play", what="Bob's reveals made")
    await fake.wait_until(lambda: reminder.deleted, what="the reminder deleted")
    await bot.presenter.flush()
    deletes = [r for r in fake.requests if r.method == "DELETE" and r.path.endswith(f"/{reminder.id}")]
    assert [r.status for r in deletes] == [204]
    assert sent_reminders(fake, bob) == [reminder]  # one reminder, deleted ones included
    fake.assert_clean()


async def test_a_restart_in_the_middle_of_a_countdown_fires_the_timer_once(
    fake_discord: Any, skybo: Any, db_file: Path
) -> None:
    fake = fake_discord
    clock = ManualClock()
    alice, bob = fake.user("alice"), fake.user("bob")
    first = bot_on(db_file, clock)
    async with fake.running(first, sync_commands=True):
        table_message, game_id = await start_table(fake, first, alice, [bob], turn_limit=LIMIT)
        table = first.service.tables[game_id]
        bob_seat = table.seat_of(bob.id)
        await reveal_own_cards(fake, alice, table_message, table)
        clock.advance(LIMIT / 2 + 5)  # past half time: the reminder goes out and is stored
        await fake.wait_until(lambda: len(reminders(fake, bob)) == 1, what="the reminder")
        reminder = reminders(fake, bob)[0]
        await fake.wait_until(
            lambda: (table.timer() or {}).get("reminded") is True, what="the stored reminder"
        )
        # and its message's id stored with the game (a stop before that write leaves the reminder in
        # the channel: the presenter's tasks are cancelled at close; 1 run in 12 stopped there)
        await fake.wait_until(
            lambda: table.stored.meta.get("reminder") == reminder.id, what="the reminder's id stored"
        )
        version = table.version
    assert first.is_closed()

    # The new process takes the clock where it was: 25 s are left, none of them played yet.
    second = await skybo(clock=ManualClock(clock.now_ms()))
    table = second.service.tables[game_id]
    assert table.version == version and table.state.phase == "reveal"
    timer = table.timer()
    assert timer is not None and timer["reminded"] and not timer["fired"]
    clock2 = second.service.clock
    assert isinstance(clock2, ManualClock)
    clock2.advance(10)
    await fake.wait_until(lambda: second.service.sweeper.due, what="the timer re-armed")
    assert table.version == version  # not due yet

    clock2.advance(LIMIT)  # well past the deadline
    await fake.wait_until(lambda: table.state.phase == "play", what="Bob's reveals made once")
    await second.presenter.flush()
    # No second reminder after the restart, and the one sent before it is deleted (its id was stored)
    # once the turn moved on.
    sent = [m for m in fake.messages.values() if "⏳" in m.content and f"<@{bob.id}>" in m.content]
    assert sent == [reminder]
    await fake.wait_until(lambda: reminder.deleted, what="the old reminder deleted")
    assert table.missed(bob_seat) == 1
    actions = await second.service.storage.games.actions(game_id)
    bob_reveals = [a for a in actions if a.seat == bob_seat]
    assert len(bob_reveals) == 2  # exactly his two initial reveals, made once
    assert table_message.text.count("ran out of time") == 1


async def test_a_lobby_nobody_starts_closes_after_fifteen_minutes(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    clock = ManualClock()
    await skybo(clock=clock)
    alice, bob = fake.user("alice"), fake.user("bob")
    lobby = await open_lobby(fake, alice)
    clock.advance(LOBBY_TTL_MS / 1000 - 60)
    await (await fake.click(bob, lobby, lobby.custom_ids[0])).response()  # still open: Bob joins
    await fake.wait_until(lambda: "Bob" in lobby.text, what="Bob in the lobby")
    clock.advance(61)
    await fake.wait_until(lambda: "15 minutes" in lobby.text, what="the lobby closed")
    assert not lobby.custom_ids  # no buttons left
    # The channel is free again for a new table.
    again = await open_lobby(fake, bob)
    assert again.id != lobby.id


async def test_a_player_who_leaves_during_their_countdown_is_not_waited_for(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock)
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=LIMIT)
    table = bot.service.tables[game_id]
    bob_seat = table.seat_of(bob.id)
    await reveal_own_cards(fake, alice, table_message, table)
    assert (table.timer() or {}).get("what") == "turn"  # waiting for Bob's reveals
    await leave_table(fake, bob, table_message)
    # The computer now in Bob's seat reveals for him; nobody's countdown is left for Bob's seat.
    await fake.wait_until(lambda: table.state.phase == "play", what="the computer revealing for Bob")
    clock.advance(LIMIT * 3)
    await fake.wait_until(
        lambda: table.state.turn == table.seat_of(alice.id) or table.timer() is None, what="a turn"
    )
    timer = table.timer()
    assert timer is None or timer["token"][2] != bob_seat
    assert table.missed(bob_seat) == 0
    # The sweeper is idle or waiting for a future deadline, not spinning on a past one.
    due = bot.service.sweeper.due.get(("game", game_id))
    assert due is None or due > clock.now_ms() or table.state.turn != bob_seat


async def test_a_skipbo_turn_left_unplayed_is_played_whole_by_the_computer(
    fake_discord: Any, skybo: Any
) -> None:
    """The same timers serve Skip-Bo: at the limit the normal computer plays the turn to its discard."""
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock, images=False)
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_skipbo(fake, bot, alice, [bob], stock_size=5, turn_limit=LIMIT)
    table = bot.service.tables[game_id]
    for turn in range(2):  # nobody clicks: both players' turns are covered, one after the other
        seat = table.state.turn
        assert (table.timer() or {}).get("token", [None, None, None])[2] == seat
        turns, version = table.state.turns, table.version
        clock.advance(LIMIT + 1)

        def covered(t: int = turns, v: int = version) -> bool:
            # Committed, and the next turn's timer stored: the engine's state runs ahead of the commit
            # while the computer's moves are being saved (a loaded machine saw the old timer here).
            timer = table.timer() or {}
            return table.state.turns > t and table.version > v and timer.get("token") == token_of(table.state)

        await fake.wait_until(covered, what=f"turn {turn} covered and committed")
        assert table.state.turn != seat and table.missed(seat) == 1
    actions = await bot.service.storage.games.actions(game_id)
    assert [a.action["type"] for a in actions][-1] == "discard"  # each covered turn ends with a discard
    await fake.wait_until(lambda: "ran out of time" in table_message.text, what="the table saying so")


def sent_reminders(fake: Any, user: Any) -> list[Any]:
    """Every reminder that mentioned ``user``, deleted ones included (a turn's reminder goes when it ends)."""
    return sorted(
        (m for m in fake.messages.values() if "⏳" in m.content and f"<@{user.id}>" in m.content),
        key=lambda m: m.id,
    )


async def miss_one_turn(fake: Any, bot: Any, clock: ManualClock, table: Table, users: dict[int, Any]) -> int:
    """Nobody clicks during the current turn: check it got the full limit and its half-time reminder,
    that nothing happens a second before the limit, and that the computer covers it at the limit.
    Returns the seat whose turn it was."""
    # The table shows the new turn (and deletes the last one's reminder) long before half time; the
    # manual clock jumps there at once, so let the presenter catch up first, as real time would.
    await bot.presenter.flush()
    seat = table.state.turn
    user = users[seat]
    started = clock.now_ms()  # the clock stands still between turns: the turn began now
    timer = table.timer()
    assert timer is not None and timer["token"][2] == seat
    assert timer["due"] == started + LIMIT * 1000 and timer["half"] == started + LIMIT * 500
    assert not timer["reminded"] and not timer["fired"]
    version, before = table.version, len(sent_reminders(fake, user))
    clock.advance(LIMIT / 2)
    await fake.wait_until(
        lambda: len(sent_reminders(fake, user)) == before + 1, what="the half-time reminder"
    )
    assert f"{LIMIT // 2} s left" in sent_reminders(fake, user)[-1].content
    assert table.version == version  # a reminder, nothing played
    clock.advance(LIMIT / 2 - 1)
    for _ in range(20):  # let the sweeper run: one second before the limit it must not cover the turn
        await asyncio.sleep(0)
    await fake.wait_until(lambda: (table.timer() or {}).get("reminded") is True, what="the stored reminder")
    assert table.version == version and table.state.turn == seat
    clock.advance(1)
    await fake.wait_until(  # committed with the next turn's timer (the engine runs ahead of the commit)
        lambda: (
            table.version > version
            and (
                table.finished
                or (table.state.turn != seat and (table.timer() or {}).get("token") == token_of(table.state))
            )
        ),
        what="the turn covered at its limit",
    )
    return seat


async def test_two_idle_players_each_get_every_turn_in_full_before_computers_take_their_seats(
    fake_discord: Any, skybo: Any
) -> None:
    """Issue 22: every turn waits the table's whole limit with its reminder (the turn after a covered
    one used to get 5 s), and a seat goes to a computer only after 3 full misses of its own."""
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock)
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=LIMIT)
    table = bot.service.tables[game_id]
    users = {table.seat_of(alice.id): alice, table.seat_of(bob.id): bob}
    await reveal_own_cards(fake, alice, table_message, table)
    await reveal_own_cards(fake, bob, table_message, table)
    assert table.state.phase == "play"
    started = clock.now_ms()
    seats_missed: list[int] = []
    for turn in range(6):  # three turns each, nobody clicks
        seat = await miss_one_turn(fake, bot, clock, table, users)
        seats_missed.append(seat)
        assert clock.now_ms() == started + (turn + 1) * LIMIT * 1000
        misses = seats_missed.count(seat)
        if misses < 3:
            assert table.missed(seat) == misses and seat not in table.replaced()
        else:
            await fake.wait_until(lambda s=seat: s in table.replaced(), what="the seat taken after 3 misses")
    assert sorted(seats_missed) == sorted([*users] * 3)  # turns alternated: 3 misses each
    for user in users.values():
        assert len(sent_reminders(fake, user)) == 3  # one reminder per missed turn
        dm = await fake.wait_until(lambda u=user: fake.dm_channels.get(u.id), what="the private note")
        await fake.wait_until(
            lambda d=dm: any("Take my seat back" in m.content for m in fake.channel_messages(d)),
            what="the note saying how to come back",
        )


async def test_a_restart_between_missed_turns_keeps_the_count_and_the_full_limits(
    fake_discord: Any, skybo: Any, db_file: Path
) -> None:
    fake = fake_discord
    clock = ManualClock()
    alice, bob = fake.user("alice"), fake.user("bob")
    first = bot_on(db_file, clock)
    async with fake.running(first, sync_commands=True):
        table_message, game_id = await start_table(fake, first, alice, [bob], turn_limit=LIMIT)
        table = first.service.tables[game_id]
        users = {table.seat_of(alice.id): alice, table.seat_of(bob.id): bob}
        await reveal_own_cards(fake, alice, table_message, table)
        await reveal_own_cards(fake, bob, table_message, table)
        first_seat = await miss_one_turn(fake, first, clock, table, users)
        second_seat = table.state.turn
        turn_started = clock.now_ms()
        await first.presenter.flush()
        clock.advance(LIMIT / 2)  # the second turn's reminder goes out, then the process stops
        await fake.wait_until(
            lambda: len(sent_reminders(fake, users[second_seat])) == 1, what="the second turn's reminder"
        )
        await fake.wait_until(lambda: (table.timer() or {}).get("reminded") is True, what="it stored")
    assert first.is_closed()

    second = await skybo(clock=ManualClock(clock.now_ms()))
    clock2 = second.service.clock
    assert isinstance(clock2, ManualClock)
    table = second.service.tables[game_id]
    assert table.missed(first_seat) == 1 and table.missed(second_seat) == 0
    timer = table.timer()
    assert timer is not None and timer["due"] == turn_started + LIMIT * 1000  # the deadline kept
    version = table.version
    clock2.advance(LIMIT / 2 - 1)
    await fake.wait_until(lambda: second.service.sweeper.due, what="the timer re-armed")
    assert table.version == version
    clock2.advance(1)
    await fake.wait_until(lambda: table.state.turn == first_seat, what="the second turn covered")
    assert table.missed(second_seat) == 1
    # Back to the first player: a whole limit again, with its reminder, and the count goes on from 1.
    assert await miss_one_turn(fake, second, clock2, table, users) == first_seat
    assert table.missed(first_seat) == 2 and not table.replaced()
    assert len(sent_reminders(fake, users[second_seat])) == 1  # no second reminder after the restart
