"""Long games (correspondence mode, issue 28 item 3), end to end with the real bot and a manual clock.

A table opened with a turn limit of hours is a long game: the lobby says so; the player whose turn it
is gets a direct message in their own language (a link to the table, the deadline as a Discord
timestamp, nothing hidden), one reminder at half time, and the computer plays the turn at the
deadline as at any table. Nobody who chose ``/skybo notify off`` gets one, and a player whose direct
messages are closed is no error: the game goes on. What was sent is stored with the turn's timer, so
a restart sends what was owed once and nothing twice.
"""

from __future__ import annotations

import dataclasses
import logging
import random
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.service import TURN_LIMITS, Table
from tests.e2e.reading import text_of

from .conftest import (
    BOTH_BACKENDS,
    FAST,
    BotDatabase,
    act_of,
    open_lobby,
    play_turns,
    private_answer,
    reveal_own_cards,
)
from .skipbo_helpers import start_skipbo
from .test_crafted_options import crafted, option

HOUR = 3600
TURN_EN, TURN_FR = "Your turn has come in **Skyjo**", "C'est ton tour dans **Skyjo**"
REMINDER_EN, REMINDER_FR = "⏳ Reminder: your turn in **Skyjo**", "⏳ Rappel : ton tour dans **Skyjo**"


def letters(fake: Any, user: Any, start: str | None = None) -> list[str]:
    """The bot's direct messages to ``user`` (those starting with ``start``)."""
    return [m.content for m in fake.direct_messages(user) if start is None or start in m.content]


def table_link(fake: Any, table_message: Any) -> str:
    return f"https://discord.com/channels/{fake.guild.id}/{table_message.channel_id}/{table_message.id}"


async def start_long_table(
    fake: Any, bot: Any, host: Any, guests: list[Any], **options: Any
) -> tuple[Any, Table]:
    """Open a lobby, seat ``guests`` (their click tells the bot their language), start."""
    lobby = await open_lobby(fake, host, **options)
    for guest in guests:
        await (await fake.click(guest, lobby, lobby.custom_ids[0])).response()
        await fake.wait_until(lambda g=guest: g.global_name in lobby.text, what="the guest in the lobby")
    start = next(c for c in lobby.custom_ids if c.endswith(":st"))
    await (await fake.click(host, lobby, start)).response()
    table = await fake.wait_until(
        lambda: next((t for t in bot.service.tables.values() if t.stored.message_id == lobby.id), None),
        what="the game",
    )
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table buttons")
    return lobby, table


def user_of(fake: Any, table: Table, seat: int) -> Any:
    user_id = table.stored.seats[seat].user_id
    return next(u for u in fake.users.values() if u.id == user_id)


async def play_one_turn(fake: Any, bot: Any, table: Table, table_message: Any, user: Any) -> None:
    seat = table.seat_of(user.id)
    await play_turns(
        fake, bot, table.id, table_message, [user], random.Random(3), until=lambda: table.state.turn != seat
    )


async def test_a_long_game_tells_each_player_in_their_language_then_reminds_then_covers(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock)
    alice, carol = fake.user("alice"), fake.user("carol")  # English, French
    assert carol.locale == "fr"

    lobby = await open_lobby(fake, fake.user("bob"), turn_limit=HOUR)
    assert "⏱ 1 hour per turn, then the computer plays it" in lobby.text
    assert "✉️ A long game: each player gets a direct message when their turn comes" in lobby.text
    await (await fake.run_command(fake.user("bob"), "skyjo", "end")).original()  # a lobby closes at once

    table_message, table = await start_long_table(fake, bot, alice, [carol], turn_limit=HOUR)
    assert table.long_game and table.turn_limit == HOUR
    alice_seat, carol_seat = table.seat_of(alice.id), table.seat_of(carol.id)
    assert table.state.phase == "reveal"  # both turn two cards: both are waited for, both are told
    timer = table.timer()
    assert timer is not None
    deadline = f"<t:{int(timer['due']) // 1000}:R>"
    (to_alice,) = await fake.wait_until(lambda: letters(fake, alice) or None, what="Alice's letter")
    (to_carol,) = await fake.wait_until(lambda: letters(fake, carol) or None, what="Carol's letter")
    assert to_alice.startswith("✉️ " + TURN_EN) and "after that the computer plays it for you" in to_alice
    assert to_carol.startswith("✉️ " + TURN_FR) and "l'ordinateur le jouera à ta place" in to_carol
    for text in (to_alice, to_carol):
        assert table_link(fake, table_message) in text and deadline in text
        assert f"<#{table_message.channel_id}>" in text
    for message in fake.direct_messages(alice) + fake.direct_messages(carol):
        assert not message.embeds and not message.attachments and not message.components  # no cards
    await fake.wait_until(
        lambda: (table.timer() or {}).get("dm") == sorted([alice_seat, carol_seat]), what="stored"
    )

    # Alice turns her cards; Carol does not. Half time: Carol alone is reminded, in French, in
    # private and at the table (with a timestamp, not thousands of seconds).
    await reveal_own_cards(fake, alice, table_message, table)
    version = table.version
    clock.advance(HOUR / 2 + 1)
    reminder = await fake.wait_until(
        lambda: next(iter(letters(fake, carol, REMINDER_FR)), None), what="Carol's reminder"
    )
    assert table_link(fake, table_message) in reminder and deadline in reminder
    public = await fake.wait_until(
        lambda: next((m for m in fake.channel_messages(fake.channel("general")) if "⏳" in m.content), None),
        what="the reminder at the table",
    )
    assert f"<@{carol.id}>" in public.content and deadline in public.content and "1799" not in public.content
    await fake.wait_until(lambda: (table.timer() or {}).get("dm_reminded") == [carol_seat], what="stored")
    assert letters(fake, alice) == [to_alice] and table.version == version  # nothing played for her

    # The deadline: the computer turns Carol's cards, as at any table; the next turn is told.
    clock.advance(HOUR / 2)
    await fake.wait_until(lambda: table.state.phase == "play", what="Carol's reveals made for her")
    assert table.missed(carol_seat) == 1
    await fake.wait_until(lambda: "ran out of time" in table_message.text, what="the table saying so")
    player = user_of(fake, table, table.state.turn)
    turn_letter = TURN_EN if player is alice else TURN_FR
    await fake.wait_until(lambda: len(letters(fake, player, turn_letter)) == 2, what="the next turn's letter")
    await bot.presenter.flush()
    assert len(letters(fake, carol, REMINDER_FR)) == 1 and not letters(fake, alice, REMINDER_EN)


@BOTH_BACKENDS
async def test_letters_owed_across_restarts_are_sent_once(
    fake_discord: Any, skybo: Any, database: BotDatabase
) -> None:
    fake = fake_discord
    clock = ManualClock()
    alice, bob = fake.user("alice"), fake.user("bob")
    options = {"turn_limit": 24 * HOUR, "initial_reveals": 0}
    first = database.bot(dataclasses.replace(FAST, clock=clock))
    async with fake.running(first, sync_commands=True):
        table_message, table = await start_long_table(fake, first, alice, [bob], **options)
        assert table.state.phase == "play" and table.turn_limit == 24 * HOUR
        game_id = table.id
        mover = user_of(fake, table, table.state.turn)
        waiter = bob if mover is alice else alice
        await fake.wait_until(lambda: letters(fake, mover, TURN_EN) or None, what="the first turn's letter")
        # The process stops right after the next turn started, before its letter went out (as if
        # Discord had been out of reach): the letter is owed.
        first.service.outbox.postman = None
        await play_one_turn(fake, first, table, table_message, mover)
        assert table.state.turn == table.seat_of(waiter.id)
        await first.presenter.flush()
    assert first.is_closed() and not letters(fake, waiter)

    # An hour later: the owed letter is sent, with the deadline the turn had (24 h from its start).
    after_an_hour = clock.now_ms() + HOUR * 1000
    second = database.bot(dataclasses.replace(FAST, clock=ManualClock(after_an_hour)))
    async with fake.running(second, sync_commands=True):
        table = second.service.tables[game_id]
        timer = table.timer()
        assert timer is not None and timer["due"] == clock.now_ms() + 24 * HOUR * 1000
        (letter,) = await fake.wait_until(lambda: letters(fake, waiter) or None, what="the owed letter")
        assert f"<t:{int(timer['due']) // 1000}:R>" in letter and letter.startswith("✉️ " + TURN_EN)
        seat = table.seat_of(waiter.id)
        await fake.wait_until(lambda: (table.timer() or {}).get("dm") == [seat], what="stored")

    # Half time passes while the bot is stopped: the reminder is sent once at the start, the turn's
    # letter not again; then the deadline: the computer plays the turn and the next player is told.
    third = await skybo(clock=ManualClock(clock.now_ms() + 13 * HOUR * 1000))
    table = third.service.tables[game_id]
    await fake.wait_until(lambda: letters(fake, waiter, REMINDER_EN) or None, what="the reminder")
    await fake.wait_until(lambda: (table.timer() or {}).get("dm_reminded") == [seat], what="stored")
    clock3 = third.service.clock
    assert isinstance(clock3, ManualClock)
    clock3.advance(11 * HOUR + 1)
    await fake.wait_until(lambda: table.state.turn == table.seat_of(mover.id), what="the turn covered")
    assert table.missed(seat) == 1
    await fake.wait_until(lambda: len(letters(fake, mover, TURN_EN)) == 2, what="the next letter")
    await third.presenter.flush()
    assert len(letters(fake, waiter)) == 2  # one letter, one reminder: nothing twice
    assert len(letters(fake, mover)) == 2  # two turns, no reminder (nobody waited for them long)


async def test_no_letter_to_who_turned_them_off_and_closed_messages_stop_nothing(
    fake_discord: Any, skybo: Any, caplog: pytest.LogCaptureFixture
) -> None:
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock)
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    answer = await private_answer(await fake.run_command(bob, "skybo", "notify", options={"state": "off"}))
    assert (
        "A direct message when your turn comes in a long game or your tournament table is seated: off"
        in answer.text
    )
    carol.dms_closed = True  # her privacy settings refuse the bot's direct messages
    caplog.set_level(logging.INFO)

    options = {"turn_limit": 2 * HOUR, "initial_reveals": 0}
    table_message, table = await start_long_table(fake, bot, alice, [bob, carol], **options)
    carol_seat = table.seat_of(carol.id)
    rng = random.Random(7)
    alice_turns = 0
    for _ in range(6):  # two turns each: Alice and Bob play theirs, the computer covers Carol's
        turn = table.state.turn
        player = user_of(fake, table, turn)
        if player is alice:
            alice_turns += 1
            await fake.wait_until(lambda n=alice_turns: len(letters(fake, alice)) == n, what="her letter")
        elif player is carol:  # refused by Discord, counted as told: not tried again
            await fake.wait_until(
                lambda s=turn: s in ((table.timer() or {}).get("dm") or []), what="Carol's letter refused"
            )
            version = table.version
            clock.advance(2 * HOUR + 1)
            await fake.wait_until(lambda v=version: table.version > v, what="Carol's turn covered")
        await play_turns(
            fake, bot, table.id, table_message, [alice, bob], rng, until=lambda s=turn: table.state.turn != s
        )
        await fake.wait_until(lambda: not bot.service.outbox.busy, what="the letters done")
    await bot.presenter.flush()
    alice_turns += table.state.turn == table.seat_of(alice.id)  # her third turn may have begun
    await fake.wait_until(lambda: len(letters(fake, alice, TURN_EN)) == alice_turns, what="her letters")
    assert alice_turns >= 2 and not letters(fake, bob) and not letters(fake, carol)
    refused = fake.take_rejections(50007)  # Discord refused the bot's two letters to Carol: no more
    assert len(refused) == 2 and all(r.status == 403 for r in refused)
    assert table.missed(carol_seat) == 2 and not table.finished  # the game goes on without her
    closed = [r for r in caplog.records if r.getMessage() == "direct messages closed"]
    assert len(closed) == 2 and all(r.levelno == logging.INFO for r in closed)
    assert all(getattr(r, "user_id", None) == carol.id for r in closed)
    logged = " ".join(r.getMessage() + str(r.__dict__.get("args")) for r in caplog.records)
    assert "Skyjo**" not in logged  # the log names the game, never quotes the letter


async def test_a_long_lobby_in_french(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    await skybo()
    carol = fake.user("carol")
    path = ("skybo", "settings")
    shown = await private_answer(await fake.run_command(fake.owner, *path, options={"language": "fr"}))
    assert shown.ephemeral
    lobby = await open_lobby(fake, carol, turn_limit=24 * HOUR)
    # A public lobby addresses no one reader (issue 47 item 10: it said "joue à ta place").
    assert "⏱ 24 heures par tour ; au-delà, l'ordinateur joue le tour" in lobby.text
    assert "✉️ Partie longue : chaque joueur reçoit un message privé quand son tour arrive" in lobby.text
    settings = await private_answer(
        await fake.run_command(fake.owner, *path, options={"turn_limit": 4 * HOUR})
    )
    assert "⏱ Turn limit of a new table: 4 hours (long game)" in settings.text


@pytest.mark.parametrize(
    ("user", "reason"),
    [
        ("alice", "Pick the turn limit from the list (no limit, or 30 seconds to 24 hours)."),
        ("carol", "Choisis le temps par tour dans la liste (sans limite, ou de 30 secondes à 24 heures)."),
    ],
)
async def test_a_turn_limit_not_offered_opens_nothing(
    fake_discord: Any, skybo: Any, user: str, reason: str
) -> None:
    fake = fake_discord
    bot = await skybo()
    who = fake.user(user)
    path = ("skyjo", "new")
    answer = await (await crafted(fake, who, path, [option(fake, path, "turn_limit", 5000)])).original()
    assert answer.ephemeral and answer.visible_to == who.id
    assert answer.text == reason, answer.text
    assert await bot.service.lobbies.list_open() == []
    assert not [m for m in fake.channel_messages(fake.channel("general")) if m.embeds]


async def test_the_commands_offer_hours_in_words(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    await skybo()
    for path in (("skyjo", "new"), ("skipbo", "new"), ("skybo", "settings")):
        command = fake.registered_command(path[0], fake.guild.id)
        assert command is not None
        options = command.get("options", [])
        for part in path[1:]:
            options = next(o for o in options if o["name"] == part).get("options", [])
        declared = next(o for o in options if o["name"] == "turn_limit")
        choices = {c["value"]: c for c in declared["choices"]}
        assert list(choices) == list(TURN_LIMITS) and len(choices) <= 25
        assert choices[3600]["name"] == "1 hour (long game: a direct message at your turn)"
        assert choices[86400]["name"] == "24 hours (long game)"
        assert choices[86400]["name_localizations"]["fr"] == "24 heures (partie longue)"


async def test_a_long_skipbo_game_tells_its_player_but_never_a_computer(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock)
    carol = fake.user("carol")
    await private_answer(await fake.run_command(carol, "skybo", "notify"))  # her language is now known
    table_message, game_id = await start_skipbo(fake, bot, carol, [], add_computers=1, turn_limit=8 * HOUR)
    table = bot.service.tables[game_id]
    assert table.long_game and "⏱ 8 hours per turn" in text_of(table_message.history[0])
    if table.state.turn != table.seat_of(carol.id):  # the computer plays first: no letter for it
        await fake.wait_until(lambda: table.state.turn == table.seat_of(carol.id), what="Carol's turn")
    (letter,) = await fake.wait_until(lambda: letters(fake, carol) or None, what="Carol's letter")
    due = int((table.timer() or {})["due"]) // 1000
    assert letter == (  # exactly this: the game, where and by when, no card
        f"✉️ C'est ton tour dans **Skip-Bo**, dans <#{table_message.channel_id}> : "
        f"{table_link(fake, table_message)}\nJoue-le avant <t:{due}:f> (<t:{due}:R>) ; ensuite l'ordinateur"
        " le jouera à ta place."
    )
    assert [u for u in fake.dm_channels if u != carol.id] == []  # nobody else, no computer


async def test_three_missed_long_turns_give_the_seat_to_a_computer_and_say_so_in_french(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock)
    alice, carol = fake.user("alice"), fake.user("carol")
    options = {"turn_limit": HOUR, "initial_reveals": 0}
    table_message, table = await start_long_table(fake, bot, alice, [carol], **options)
    carol_seat = table.seat_of(carol.id)
    rng = random.Random(11)
    while carol_seat not in table.replaced():
        turn = table.state.turn
        if turn == carol_seat:  # she never comes: told, reminded, covered
            await fake.wait_until(
                lambda: carol_seat in ((table.timer() or {}).get("dm") or []), what="her turn's letter"
            )
            count = len(letters(fake, carol, REMINDER_FR))
            clock.advance(HOUR / 2 + 1)
            await fake.wait_until(lambda c=count: len(letters(fake, carol, REMINDER_FR)) > c, what="nudge")
            version = table.version
            clock.advance(HOUR / 2)
            await fake.wait_until(lambda v=version: table.version > v, what="her turn covered")
        await play_turns(
            fake, bot, table.id, table_message, [alice], rng, until=lambda s=turn: table.state.turn != s
        )
    note = await fake.wait_until(
        lambda: next(iter(letters(fake, carol, "un joueur ordinateur a donc pris ta place")), None),
        what="the note in her language",
    )
    assert note.startswith("Tu as manqué 3 tours de suite") and table_link(fake, table_message) in note
    assert len(letters(fake, carol, TURN_FR)) == len(letters(fake, carol, REMINDER_FR)) == 3
    await bot.presenter.flush()
    await fake.wait_until(lambda: not bot.service.outbox.busy, what="the letters done")
    assert len(letters(fake, carol)) == 7  # three turns, three reminders, the note: nothing after
