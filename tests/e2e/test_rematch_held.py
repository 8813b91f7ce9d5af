"""A rematch holds the seats of the players it invites (``bot.service.lobbies``, docs/discord.md on
Rematch): while the hold lasts a stranger's Join and a computer added are refused privately when only
held seats are free, the invited player's Join finds their seat, their Leave declines; the hold is
stored with the lobby (a restart keeps it) and ends on the bot's clock (a ManualClock moved, no sleep).

The table is a Skyjo Voyage one (4 seats): Alice, Bob and two computer players fill it, so Bob's
rematch seats Bob and the computers and holds the fourth seat for Alice. Carol, the stranger, reads
French; Alice and Bob English."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from bot.clock import ManualClock
from bot.i18n import translate as t
from bot.service.types import REMATCH_HOLD_MS
from bot.storage.lobbies import HELD_UNTIL
from fakecord import FakeMessage, FakeUser

from .conftest import (
    BOTH_BACKENDS,
    FAST,
    BotDatabase,
    act_of,
    button,
    play_turns,
    private_answer,
    start_table,
)


def lobby_button(lobby: FakeMessage, act: str) -> str:
    return next(c for c in lobby.custom_ids if c.endswith(f":{act}"))


async def rematch_lobby(fake: Any, bot: Any, alice: FakeUser, bob: FakeUser) -> FakeMessage:
    """A short full game (Voyage, 4 seats: Alice, Bob, two computers; 2 x 2 grids, 10 points end it),
    then Bob's Rematch: its public lobby."""
    table_message, game_id = await start_table(
        fake, bot, alice, [bob], edition="voyage", computers=2, columns=2, rows=2, score_limit=10
    )
    await play_turns(fake, bot, game_id, table_message, [alice, bob], random.Random(7))
    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="Rematch")
    lobby: FakeMessage = await (await fake.click(bob, table_message, button(table_message, "rm"))).answer()
    assert not lobby.ephemeral
    return lobby


def held_line(alice: FakeUser, until_ms: int) -> str:
    seconds = until_ms // 1000
    return t(
        "table.lobby.rematch_held.one",
        "en-US",
        players=alice.global_name,
        at=f"<t:{seconds}:t>",
        until=f"<t:{seconds}:R>",
    )


@BOTH_BACKENDS
async def test_a_held_seat_refuses_a_stranger_and_a_computer_and_survives_a_restart(
    fake_discord: Any, skybo: Any, database: BotDatabase
) -> None:
    """While Alice's seat is held, Carol's Join and Bob's Add a computer are refused (privately, in
    each one's language) and change nothing, before and after a restart; Alice's Join takes her seat
    (a second Join is refused); her Leave declines, which frees the seat for Carol; Bob starts."""
    fake = fake_discord
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    clock = ManualClock()
    first = database.bot(dataclasses.replace(FAST, clock=clock))
    async with fake.running(first, sync_commands=True):
        lobby = await rematch_lobby(fake, first, alice, bob)
        stored = await first.service.lobbies.open_in_channel(lobby.channel_id)
        assert stored is not None and stored.host_id == bob.id
        until = stored.options[HELD_UNTIL]
        assert until == clock.now_ms() + REMATCH_HOLD_MS
        assert held_line(alice, until) in lobby.text
        join = lobby_button(lobby, "jn")
        refused = t(
            "table.error.seat_held.one",
            carol.locale,
            players=alice.global_name,
            until=f"<t:{until // 1000}:R>",
        )
        answer = await private_answer(await fake.click(carol, lobby, join))
        assert refused in answer.text
        answer = await private_answer(await fake.click(bob, lobby, lobby_button(lobby, "ai")))
        assert (
            t(
                "table.error.seat_held_computer.one",
                bob.locale,
                players=alice.global_name,
                until=f"<t:{until // 1000}:R>",
            )
            in answer.text
        )
        after = await first.service.lobbies.get(stored.id)
        assert after.seats == stored.seats and after.version == stored.version, "a refusal changes nothing"
    assert first.is_closed()

    # A new process, a minute later: the hold is read back from the lobby and still refuses Carol.
    clock = ManualClock(clock.now_ms() + 60_000)
    bot = await skybo(clock=clock)
    answer = await private_answer(await fake.click(carol, lobby, join))
    assert refused in answer.text
    assert (await bot.service.lobbies.get(stored.id)).version == stored.version

    # Alice's Join finds her seat; a second one is refused.
    await (await fake.click(alice, lobby, join)).response()
    await fake.wait_until(lambda: held_line(alice, until) not in lobby.text, what="Alice seated")
    seated = await bot.service.lobbies.get(stored.id)
    assert [s.user_id for s in seated.seats if s.ai_level is None] == [bob.id, alice.id]
    answer = await private_answer(await fake.click(alice, lobby, join))
    assert t("table.error.already_seated", alice.locale) in answer.text

    # Her Leave declines: the lobby names her no more, and Carol takes the seat.
    await (await fake.click(alice, lobby, lobby_button(lobby, "lv"))).response()
    invited = t("table.lobby.rematch_invited", "en-US", players=alice.global_name)
    await fake.wait_until(lambda: alice.global_name not in lobby.text, what="Alice gone")
    assert invited not in lobby.text
    await (await fake.click(carol, lobby, join)).response()
    await fake.wait_until(lambda: carol.global_name in lobby.text, what="Carol seated")
    await (await fake.click(bob, lobby, lobby_button(lobby, "st"))).response()
    table = await fake.wait_until(lambda: bot.service.table_in_channel(lobby.channel_id), what="the game")
    assert [s.user_id for s in table.stored.seats if s.ai_level is None] == [bob.id, carol.id]
    # The start done (its timer stored, the table drawn) before the bot closes at the test's end.
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table buttons")


async def test_the_hold_ends_on_time_and_a_stranger_may_then_join(fake_discord: Any, skybo: Any) -> None:
    """After REMATCH_HOLD_MS on the bot's clock the lobby is drawn without its held line (it still
    invites Alice) and Carol joins the last seat; Alice, too late, is refused (the table is full: the
    Voyage edition's reason), and her Leave declines the invitation though she has no seat."""
    fake = fake_discord
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    clock = ManualClock()
    bot = await skybo(clock=clock)
    lobby = await rematch_lobby(fake, bot, alice, bob)
    stored = await bot.service.lobbies.open_in_channel(lobby.channel_id)
    assert stored is not None
    until = stored.options[HELD_UNTIL]
    assert held_line(alice, until) in lobby.text
    invited = t("table.lobby.rematch_invited", "en-US", players=alice.global_name)

    clock.advance(REMATCH_HOLD_MS / 1000)
    await fake.wait_until(lambda: held_line(alice, until) not in lobby.text, what="the hold's end drawn")
    assert invited in lobby.text, "the invitation stays: Alice may still take a free seat"
    assert HELD_UNTIL not in (await bot.service.lobbies.get(stored.id)).options

    join = lobby_button(lobby, "jn")
    await (await fake.click(carol, lobby, join)).response()
    await fake.wait_until(lambda: carol.global_name in lobby.text, what="Carol seated")
    answer = await private_answer(await fake.click(alice, lobby, join))
    full = t("skyjo.error.edition_players.voyage", alice.locale, min=2, max=4)  # the engine's reason
    assert full in answer.text

    await (await fake.click(alice, lobby, lobby_button(lobby, "lv"))).response()
    await fake.wait_until(lambda: invited not in lobby.text, what="Alice declined")
    assert lobby.component(join)["label"] == t("table.button.join", "en-US")
    answer = await private_answer(await fake.click(alice, lobby, lobby_button(lobby, "lv")))
    assert t("table.error.not_seated", alice.locale) in answer.text

    # The hold is over: Bob's Start deals at once, asking nothing (Alice was waited for 2 minutes).
    await (await fake.click(bob, lobby, lobby_button(lobby, "st"))).response()
    table = await fake.wait_until(lambda: bot.service.table_in_channel(lobby.channel_id), what="the game")
    assert [s.user_id for s in table.stored.seats if s.ai_level is None] == [bob.id, carol.id]
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table")
    private = [m.text for m in fake.messages.values() if m.ephemeral and m.visible_to == bob.id]
    assert private and not [text for text in private if "Start without waiting" in text]


async def test_start_while_a_seat_is_held_asks_the_host_naming_who_is_waited_for(
    fake_discord: Any, skybo: Any
) -> None:
    """Issue 47 item 10: Bob's Start while Alice's seat is held no longer drops it without a word: Bob
    is asked privately, naming Alice and until when; No changes nothing (the lobby still holds her
    seat), Start now deals without her and the question says it was started; the public lobby
    becomes the table."""
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    clock = ManualClock()
    bot = await skybo(clock=clock)
    lobby = await rematch_lobby(fake, bot, alice, bob)
    stored = await bot.service.lobbies.open_in_channel(lobby.channel_id)
    assert stored is not None
    until = stored.options[HELD_UNTIL] // 1000

    question = await private_answer(await fake.click(bob, lobby, lobby_button(lobby, "st")))
    assert question.id in fake.messages  # (the check after the hold's end reads them there)
    assert question.text == (
        f"🔒 The seat of {alice.global_name} is held for this table until <t:{until}:t> (<t:{until}:R>), "
        "and not taken yet. Start without waiting?"
    )
    assert question.button_labels == ["Start now", "No"]
    assert bot.service.table_in_channel(lobby.channel_id) is None
    assert (await bot.service.lobbies.get(stored.id)).version == stored.version, "asking changes nothing"

    await (
        await fake.click(bob, question, next(c for c in question.custom_ids if c.endswith(":sn")))
    ).response()
    await fake.wait_until(lambda: not question.custom_ids, what="No settled")
    assert question.text == "Nothing changed: the table waits."
    assert held_line(alice, stored.options[HELD_UNTIL]) in lobby.text
    assert bot.service.table_in_channel(lobby.channel_id) is None

    question = await private_answer(await fake.click(bob, lobby, lobby_button(lobby, "st")))
    await (
        await fake.click(bob, question, next(c for c in question.custom_ids if c.endswith(":sy")))
    ).response()
    table = await fake.wait_until(lambda: bot.service.table_in_channel(lobby.channel_id), what="the game")
    assert [s.user_id for s in table.stored.seats if s.ai_level is None] == [bob.id]
    assert table.stored.message_id == lobby.id, "the lobby's message became the table"
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table buttons")
    await fake.wait_until(lambda: not question.custom_ids, what="the question settled")
    assert question.text == "You started the game."
