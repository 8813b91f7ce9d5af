"""What cannot be undone is asked first: the table's Leave and ``/<game> end`` wait for a private Yes.

The question is ephemeral (only the clicker sees it); Yes does it, No changes nothing, and both take
the buttons off the question. The buttons are game-level ids (``<sk|sb>:<game>:0:<ly|ey|no>:0``), so a
question asked before a restart is answered after it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import discord

from bot.client import create_bot
from bot.service.ledger import GameLedger
from bot.ui import ids
from fakecord import FakeMessage, FakeRole

from .conftest import FAST, act_of, button, forged_click, open_lobby, private_answer, start_table
from .skipbo_helpers import start_skipbo

LEAVE_QUESTION = "Leave this game and forfeit? A computer player takes your seat."
END_QUESTION = "End this game for everyone? It will not be rated."
LEFT = "You left the table: a computer player takes your seat."
NOTHING = "Nothing changed."


def assert_question(answer: FakeMessage, text: str, prefix: str, game_id: int, yes: str) -> None:
    """A private question with exactly Yes and No, game-level ids that do not go stale (version 0)."""
    assert answer.text == text
    assert answer.custom_ids == [
        ids.encode(prefix, game_id, 0, yes, 0),
        ids.encode(prefix, game_id, 0, "no", 0),
    ]


async def settled(fake: Any, question: FakeMessage, text: str) -> None:
    """The question was answered in place: it says ``text`` and has no buttons left."""
    await fake.wait_until(
        lambda: question.text == text and not question.custom_ids, what="the question settled"
    )


def grant_manage_channels(fake: Any, user: Any) -> FakeRole:
    """``user`` gets a moderator's role: Manage Channels, which @everyone lacks (Discord's defaults)."""
    role = FakeRole(fake.new_id(), "Moderator", discord.Permissions(manage_channels=True).value, 2)
    fake.guild.roles.append(role)
    fake.guild.members[user.id].roles.append(role.id)
    return role


async def test_leave_asks_first_and_yes_gives_the_seat_to_a_computer(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = bot.service.tables[game_id]
    seat, version = table.seat_of(bob.id), table.version

    question = await private_answer(await fake.click(bob, table_message, button(table_message, "lv")))
    assert_question(question, LEAVE_QUESTION, "sk", game_id, "ly")
    assert seat not in table.replaced() and table.version == version, "asking changes nothing"

    inter = await fake.click(bob, question, button(question, "ly"))
    assert (await inter.answer()).id == question.id, "Yes answers on the question itself"
    await settled(fake, question, LEFT)
    assert seat in table.replaced()
    stored = await GameLedger(bot.service.storage).get_game(game_id)
    assert str(seat) in stored.meta["replaced"], "the leave is committed"
    await fake.wait_until(
        lambda: "Bob 🤖 left: a computer player takes the seat." in table_message.text, what="the leave shown"
    )


async def test_leave_no_changes_nothing(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = bot.service.tables[game_id]
    version, edits = table.version, len(table_message.history)

    question = await private_answer(await fake.click(bob, table_message, button(table_message, "lv")))
    inter = await fake.click(bob, question, button(question, "no"))
    assert (await inter.response()).type == 7
    await settled(fake, question, NOTHING)
    assert not table.replaced() and table.version == version
    assert len(table_message.history) == edits, "the table message was not touched"
    assert "replaced" not in (await GameLedger(bot.service.storage).get_game(game_id)).meta
    # Bob still plays: his panel opens.
    panel = await private_answer(await fake.click(bob, table_message, button(table_message, "op")))
    assert panel.custom_ids


async def test_a_double_yes_leaves_once_and_says_why_in_french(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("carol")  # Carol reads French
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = bot.service.tables[game_id]
    seat = table.seat_of(bob.id)
    question = await private_answer(await fake.click(bob, table_message, button(table_message, "lv")))
    assert question.text.startswith("Quitter cette partie et abandonner ?")
    assert question.button_labels == ["Oui, quitter", "Non"]
    seen = question.snapshot()  # both clicks leave the client before the question loses its buttons

    await (await fake.click(bob, seen, button(seen, "ly"))).response()
    await settled(fake, question, "Tu as quitté la table : un joueur ordinateur prend ta place.")
    again = await private_answer(await forged_click(fake, bob, seen, button(seen, "ly")))
    assert again.text == "Un joueur ordinateur joue désormais à ta place à cette table."
    assert seat in table.replaced()
    stored = await GameLedger(bot.service.storage).get_game(game_id)
    assert list(stored.meta["replaced"]) == [str(seat)]


async def test_a_non_player_is_refused_without_a_question(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    table_message, _ = await start_table(fake, bot, alice, [carol])
    answer = await private_answer(await fake.click(bob, table_message, button(table_message, "lv")))
    assert answer.text == "You are not playing at this table." and not answer.custom_ids


async def test_end_asks_the_host_and_yes_ends_it_unrated(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob])

    question = await private_answer(await fake.run_command(alice, "skyjo", "end"))
    assert_question(question, END_QUESTION, "sk", game_id, "ey")
    assert game_id in bot.service.tables, "asking ends nothing"

    seen = question.snapshot()
    inter = await fake.click(alice, seen, button(seen, "ey"))
    assert (await inter.answer()).id == question.id  # acknowledged first, then the question edited
    await settled(fake, question, "You ended the game.")
    public = await inter.followup()
    assert not public.ephemeral and public.text == f"The game was ended by {alice.mention} (not rated)."
    await fake.wait_until(lambda: not table_message.custom_ids, what="the table without buttons")
    assert "ended by" in table_message.text
    assert (await GameLedger(bot.service.storage).get_game(game_id)).status == "cancelled"

    # The channel is free: a new lobby opens. A second Yes from the old question ends nothing else.
    lobby = await open_lobby(fake, bob)
    assert not lobby.ephemeral
    again = await private_answer(await forged_click(fake, alice, seen, button(seen, "ey")))
    assert again.text == "This game has already ended."
    assert (await bot.service.lobbies.open_in_channel(lobby.channel_id)) is not None, "the lobby stays open"


async def test_end_no_changes_nothing(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = bot.service.tables[game_id]
    version = table.version
    question = await private_answer(await fake.run_command(alice, "skyjo", "end"))
    await (await fake.click(alice, question, button(question, "no"))).response()
    await settled(fake, question, NOTHING)
    assert bot.service.tables.get(game_id) is table and table.version == version
    assert (await GameLedger(bot.service.storage).get_game(game_id)).status == "active"
    assert "op" in {act_of(c) for c in table_message.custom_ids}, "the table keeps its buttons"


async def test_end_is_refused_to_a_non_host_and_checked_again_on_yes(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    _, game_id = await start_table(fake, bot, alice, [bob])
    # Bob may manage the channel (a moderator's role): he is asked.
    moderator = grant_manage_channels(fake, bob)
    question = await private_answer(await fake.run_command(bob, "skyjo", "end"))
    assert_question(question, END_QUESTION, "sk", game_id, "ey")
    # He loses the right before answering: Yes is refused, the game goes on.
    fake.guild.members[bob.id].roles.remove(moderator.id)
    refused = await private_answer(await fake.click(bob, question, button(question, "ey")))
    assert refused.text == "Only the host or someone who can manage this channel can end the game."
    assert game_id in bot.service.tables
    # Without the right, he is refused at once, with no question.
    answer = await private_answer(await fake.run_command(bob, "skyjo", "end"))
    assert answer.text == refused.text and not answer.custom_ids
    assert (await GameLedger(bot.service.storage).get_game(game_id)).status == "active"


async def test_skipbo_end_and_leave_ask_too(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_skipbo(fake, bot, alice, [bob], stock_size=5)
    question = await private_answer(await fake.click(bob, table_message, button(table_message, "lv")))
    assert_question(question, LEAVE_QUESTION, "sb", game_id, "ly")
    await (await fake.click(bob, question, button(question, "no"))).response()
    await settled(fake, question, NOTHING)
    question = await private_answer(await fake.run_command(alice, "skipbo", "end"))
    assert_question(question, END_QUESTION, "sb", game_id, "ey")
    inter = await fake.click(alice, question, button(question, "ey"))
    await settled(fake, question, "You ended the game.")
    assert "not rated" in (await inter.followup()).text
    assert (await GameLedger(bot.service.storage).get_game(game_id)).status == "cancelled"


async def test_a_lobby_closes_at_once(fake_discord: Any, skybo: Any) -> None:
    """Nothing is lost yet: /skyjo end on a lobby needs no confirmation."""
    fake = fake_discord
    bot = await skybo()
    alice = fake.user("alice")
    lobby = await open_lobby(fake, alice)
    answer = await (await fake.run_command(alice, "skyjo", "end")).original()
    assert not answer.ephemeral and "not rated" in answer.text and not answer.custom_ids
    assert (await bot.service.lobbies.open_in_channel(lobby.channel_id)) is None


async def test_a_question_asked_before_a_restart_is_answered_after_it(
    fake_discord: Any, skybo: Any, db_file: Path
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    first = create_bot(database_path=db_file, tuning=FAST)
    async with fake.running(first, sync_commands=True):
        table_message, game_id = await start_table(fake, first, alice, [bob])
        leave = await private_answer(await fake.click(bob, table_message, button(table_message, "lv")))
        end = await private_answer(await fake.run_command(alice, "skyjo", "end"))
    second = await skybo()
    table = second.service.tables[game_id]
    seat = table.seat_of(bob.id)

    await (await fake.click(bob, leave, button(leave, "ly"))).response()
    await settled(fake, leave, LEFT)
    assert seat in table.replaced()
    inter = await fake.click(alice, end, button(end, "ey"))
    await settled(fake, end, "You ended the game.")
    assert "not rated" in (await inter.followup()).text
    assert (await GameLedger(second.service.storage).get_game(game_id)).status == "cancelled"
