"""A thread per game (issue 40 item 3; docs/discord.md, "Threads"), through the fake with the real bot:
the lobby stays in the channel, the game is played in a thread started from it (table, mentions,
panels), its result comes back in the channel and the thread is archived; the per-table choice beats
the server's setting; without the permission the table stays in the channel with one line; a restart
in the middle changes nothing, and a stop between a game's end and its result's post loses neither
(the next start posts it, once); English and French."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from typing import Any

import discord
import pytest

from bot.ui import followed_panels, threads
from bot.ui.threads import NAME_LIMIT, thread_name
from fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser

from . import test_db_blink
from .conftest import BOTH_BACKENDS, FAST, BotDatabase, act_of, button, open_lobby, play_turns

blackout_for = test_db_blink.blackout_for  # the database away: on PostgreSQL for real, on SQLite injected


async def set_threads(fake: FakeDiscord, value: str, **more: Any) -> None:
    inter = await fake.run_command(fake.owner, "skybo", "settings", options={"threads": value, **more})
    await inter.answer()


async def start_lobby(
    fake: FakeDiscord, bot: Any, host: FakeUser, guests: list[FakeUser], **options: Any
) -> tuple[FakeMessage, Any]:
    """Open a Skyjo lobby in #general, seat ``guests``, start it; the lobby message and the table."""
    lobby = await open_lobby(fake, host, **options)
    for guest in guests:
        await (await fake.click(guest, lobby, lobby.custom_ids[0])).response()
        await fake.wait_until(lambda g=guest: g.global_name in lobby.text, what="the guest in the lobby")
    start = next(c for c in lobby.custom_ids if c.endswith(":st"))
    await (await fake.click(host, lobby, start)).response()
    table = await fake.wait_until(lambda: next(iter(bot.service.tables.values()), None), what="the game")
    await fake.wait_until(lambda: table.stored.message_id is not None, what="the table message")
    return lobby, table


def thread_of(fake: FakeDiscord, table: Any) -> FakeChannel:
    channel = fake.channels[table.channel_id]
    assert channel.is_thread, "the game is played in a thread"
    return channel


def posted_in(fake: FakeDiscord, channel: FakeChannel) -> list[FakeMessage]:
    return [m for m in fake.messages.values() if m.channel_id == channel.id and m.visible_to is None]


def results_in(fake: FakeDiscord, channel: FakeChannel, game_id: int) -> list[FakeMessage]:
    """Every result of game ``game_id`` posted in ``channel`` (🏁 ..., its game id at the end)."""
    return [
        m
        for m in posted_in(fake, channel)
        if m.text.startswith("🏁") and f"#{game_id}" in m.text.split(">")[-1]
    ]


async def result_in(fake: FakeDiscord, channel: FakeChannel, game_id: int) -> FakeMessage:
    """The result of game ``game_id`` posted back in ``channel`` (🏁 ..., its game id at the end)."""
    found: FakeMessage = await fake.wait_until(
        lambda: next(
            (
                m
                for m in posted_in(fake, channel)
                if m.text.startswith("🏁") and f"#{game_id}" in m.text.split(">")[-1]
            ),
            None,
        ),
        what="the result",
    )
    return found


async def test_a_whole_game_in_a_thread_its_result_in_the_channel(
    fake_discord: FakeDiscord, skybo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    # The turn mentions are what this test follows into the thread: players who keep clicking their
    # panels get none (issue 40: FollowedPanels.looking), so nobody counts as looking here.
    monkeypatch.setattr(followed_panels, "LOOKING_MS", 0)
    alice, bob = fake.user("alice"), fake.user("bob")
    general = fake.channel("general")
    bot = await skybo()
    await set_threads(fake, "on")
    lobby, table = await start_lobby(fake, bot, alice, [bob], score_limit=10, columns=2, rows=2)

    thread = thread_of(fake, table)
    # a public thread started from the lobby message (so it has its id), named after the game
    assert thread.parent_id == general.id and thread.id == lobby.id and thread.type == 11
    assert thread.name == "Skyjo — Alice, Bob"
    table_message = fake.messages[table.stored.message_id]
    assert table_message.channel_id == thread.id
    # the lobby message stays in the channel and says where the game went; no buttons left on it
    await fake.wait_until(lambda: f"<#{thread.id}>" in lobby.text, what="the lobby pointing to the thread")
    assert lobby.custom_ids == []
    # the parent channel is free again: a new lobby opens there while the game is played
    other = await open_lobby(fake, fake.user("carol"))
    assert other.channel_id == general.id and any(act_of(c) is None for c in other.custom_ids)

    await play_turns(fake, bot, table.id, table_message, [alice, bob], random.Random(2))
    assert table.finished
    result = await result_in(fake, general, table.id)
    assert f"<#{thread.id}>" in result.text and "Alice" in result.text and "Bob" in result.text
    assert "1. " in result.text and "/skyjo replay" in result.text
    await fake.wait_until(lambda: thread.archived, what="the thread archived")
    assert not thread.locked
    # posted once, and that is stored with the game (no start posts it again: bot.service.resume)
    await bot.presenter.flush()
    assert len(results_in(fake, general, table.id)) == 1
    assert table.stored.meta.get("result_posted") is True
    # every turn mention went to the thread, none to the channel
    mentions = [
        m for m in fake.messages.values() if f"<@{alice.id}>" in m.content or f"<@{bob.id}>" in m.content
    ]
    assert mentions and {m.channel_id for m in mentions} == {thread.id}
    assert all(f"<@{alice.id}>" not in m.text for m in posted_in(fake, general))
    # a rematch from the final table opens its lobby in the thread, which it unarchives
    inter = await fake.click(bob, table_message, button(table_message, "rm"))
    rematch = await inter.answer()
    assert rematch.channel_id == thread.id and not thread.archived
    # ... and its game is played there: no thread in a thread, and nothing said about it
    await (await fake.click(alice, rematch, rematch.custom_ids[0])).response()
    await fake.wait_until(lambda: "Alice" in rematch.text, what="Alice in the rematch")
    await (
        await fake.click(bob, rematch, next(c for c in rematch.custom_ids if c.endswith(":st")))
    ).response()
    second = await fake.wait_until(
        lambda: next((t for t in bot.service.tables.values() if t is not table), None),
        what="the rematch game",
    )
    assert second.channel_id == thread.id and fake.threads_of(general) == [thread]
    assert not any("Create Public Threads" in m.text for m in fake.messages.values())


async def test_the_table_choice_beats_the_server_setting_and_end_closes_the_thread(
    fake_discord: FakeDiscord, skybo: Any
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    general = fake.channel("general")
    bot = await skybo()
    # the server's setting is off (the default): thread:True gives this table a thread
    lobby, table = await start_lobby(fake, bot, alice, [bob], thread=True)
    said = "🧵 At the start, the game moves to a thread of its own"  # the lobby said it before the start
    assert any(said in json.dumps(shown, ensure_ascii=False) for shown in lobby.history)
    thread = thread_of(fake, table)
    # /skyjo end in the thread: the result (ended, by whom) in the channel, the thread archived
    question = await (await fake.run_command(alice, "skyjo", "end", channel=thread)).answer()
    await (await fake.click(alice, question, button(question, "ey"))).answer()
    result = await result_in(fake, general, table.id)
    assert "ended by" in result.text and f"<@{alice.id}>" in result.text
    await fake.wait_until(lambda: thread.archived, what="the thread archived")

    # the server's setting on, thread:False keeps this table in the channel
    await set_threads(fake, "on")
    bot.service.tables.clear()  # start_lobby reads the first table: forget the ended one
    lobby, table = await start_lobby(fake, bot, bob, [alice], thread=False)  # bob: alice's cool-down
    assert table.channel_id == general.id and table.stored.message_id == lobby.id
    assert len(fake.threads_of(general)) == 1


async def test_without_the_permission_the_table_stays_in_the_channel_with_one_line(
    fake_discord: FakeDiscord, skybo: Any
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    general = fake.channel("general")
    await fake.set_overwrite(general, fake.bot_user, deny=discord.Permissions(create_public_threads=True))
    bot = await skybo()
    await set_threads(fake, "on")
    lobby, table = await start_lobby(fake, bot, alice, [bob])
    assert table.channel_id == general.id and table.stored.message_id == lobby.id
    assert fake.threads_of(general) == []
    lines = [m for m in posted_in(fake, general) if "I may not start a thread" in m.text]
    assert len(lines) == 1 and "Create Public Threads" in lines[0].text
    # the bot saw it in the click's permissions: it never asked Discord for a thread it would refuse
    assert not fake.requests_to("POST", "/channels/{channel_id}/messages/{message_id}/threads")


async def test_a_restart_in_the_middle_of_a_thread_game_in_french(
    fake_discord: FakeDiscord, skybo: Any, database: BotDatabase
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    general = fake.channel("general")
    first = database.bot(FAST)
    async with fake.running(first, sync_commands=True):
        await set_threads(fake, "on", language="fr")
        lobby, table = await start_lobby(fake, first, alice, [bob], score_limit=10, columns=2, rows=2)
        thread = thread_of(fake, table)
        game_id, message_id = table.id, table.stored.message_id
        await fake.wait_until(lambda: "continue dans" in lobby.text, what="the lobby, in French")
    second = await skybo()
    table = second.service.tables[game_id]
    assert table.channel_id == thread.id and table.stored.message_id == message_id  # nothing else stored
    # Discord archives the thread under the game (a week without a message, or a moderator): the bot
    # unarchives it when its table edit is refused (50083), and the game goes on there
    await fake.archive_thread(thread)
    await play_turns(fake, second, game_id, fake.messages[message_id], [alice, bob], random.Random(4))
    result = await fake.wait_until(
        lambda: next(
            (
                m
                for m in posted_in(fake, general)
                if m.text.startswith("🏁") and f"#{game_id}" in m.text.split(">")[-1]
            ),
            None,
        ),
        what="the result",
    )
    assert "est finie" in result.text and "/skyjo revoir" in result.text
    await fake.wait_until(lambda: thread.archived, what="the thread archived")
    # each edit refused while it was archived (none if a mention's post unarchived it first) made the
    # bot unarchive it; the last change is the archive at the end
    refused = fake.take_rejections(50083)
    changes = [r.json for r in fake.requests_to("PATCH", "/channels/{channel_id}")]
    assert changes[-1] == {"archived": True} and changes.count({"archived": False}) == len(refused)


def test_a_thread_name_fits_discord_s_100_characters() -> None:
    assert thread_name("Skip-Bo", ["Alice", "Bob"]) == "Skip-Bo — Alice, Bob"
    long = thread_name("Skyjo", [f"Player number {i}" for i in range(8)])
    assert len(long) == NAME_LIMIT and long.endswith("…")


async def test_a_long_skipbo_game_in_a_thread_links_its_letters_into_the_thread(
    fake_discord: FakeDiscord, skybo: Any
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    bot = await skybo()
    inter = await fake.run_command(alice, "skipbo", "new", options={"thread": True, "turn_limit": 3600})
    lobby = await inter.original()
    await (await fake.click(bob, lobby, lobby.custom_ids[0])).response()
    await fake.wait_until(lambda: "Bob" in lobby.text, what="Bob in the lobby")
    start = next(c for c in lobby.custom_ids if c.endswith(":st"))
    await (await fake.click(alice, lobby, start)).response()
    table = await fake.wait_until(lambda: next(iter(bot.service.tables.values()), None), what="the game")
    thread = thread_of(fake, table)
    assert thread.name == "Skip-Bo — Alice, Bob"
    # the first letter may leave before the table message is posted in the thread: it links the thread
    link = f"https://discord.com/channels/{fake.guild.id}/{thread.id}"
    to_act = fake.user("alice") if table.seat_of(alice.id) == table.state.turn else bob
    letter = await fake.wait_until(
        lambda: next((m.content for m in fake.direct_messages(to_act)), None), what="the turn's letter"
    )
    assert link in letter and f"<#{thread.id}>" in letter


async def test_a_deleted_thread_cancels_its_game_and_nothing_is_posted_for_it(
    fake_discord: FakeDiscord, skybo: Any
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    general = fake.channel("general")
    bot = await skybo()
    await set_threads(fake, "on")
    _, table = await start_lobby(fake, bot, alice, [bob])
    thread = thread_of(fake, table)
    await fake.delete_channel(thread)  # a moderator deletes the thread with the game in it
    # THREAD_DELETE: the game is cancelled as gone (unrated), as a deleted channel's; nothing posted
    await fake.wait_until(lambda: table.finished and table.gone, what="the game cancelled")
    assert bot.service.table_in_channel(thread.id) is None
    assert not any(m.text.startswith("🏁") for m in posted_in(fake, general))
    assert fake.threads_of(general) == []


async def stop_before_the_result(monkeypatch: pytest.MonkeyPatch) -> tuple[asyncio.Event, Any]:
    """Make the presenter hang where it would post a thread's result (after the table's last edit and
    mention): the bot closed then is one stopped between the game's end and that post. The event is
    set when it got there; the second value is the real ``close_thread``, to put back."""
    reached = asyncio.Event()
    real = threads.close_thread

    async def stopped_here(*_: Any) -> None:
        reached.set()
        await asyncio.Event().wait()  # cancelled when the bot closes

    monkeypatch.setattr(threads, "close_thread", stopped_here)
    return reached, real


@BOTH_BACKENDS
async def test_a_game_ended_in_a_thread_while_the_bot_stopped_gets_its_result_once_at_the_restart(
    fake_discord: FakeDiscord, skybo: Any, database: BotDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    general = fake.channel("general")
    reached, real = await stop_before_the_result(monkeypatch)
    first = database.bot(FAST)
    async with fake.running(first, sync_commands=True):
        await set_threads(fake, "on")
        _, table = await start_lobby(fake, first, alice, [bob], score_limit=10, columns=2, rows=2)
        thread, game_id, message_id = thread_of(fake, table), table.id, table.stored.message_id
        await play_turns(fake, first, game_id, fake.messages[message_id], [alice, bob], random.Random(2))
        await fake.wait_until(reached.is_set, what="the presenter at the result's post")
    # the bot stopped there: nothing in the channel, the thread open
    assert table.finished and results_in(fake, general, game_id) == [] and not thread.archived
    monkeypatch.setattr(threads, "close_thread", real)

    second = database.bot(FAST)
    async with fake.running(second):
        result = await result_in(fake, general, game_id)
        assert "Alice" in result.text and "Bob" in result.text and "1. " in result.text
        await fake.wait_until(lambda: thread.archived, what="the thread archived")
        await second.presenter.flush()
        # the table message shows the end (the final standings, no buttons to play)
        final = fake.messages[message_id]
        assert not any(act_of(c) in {"rv", "dr", "tk", "rp", "dv"} for c in final.custom_ids)
    assert len(results_in(fake, general, game_id)) == 1

    third = await skybo()  # a second restart: nothing is owed any more
    await third.presenter.flush()
    assert len(results_in(fake, general, game_id)) == 1 and thread.archived
    stored = await third.service.ledger.get_game(game_id)
    assert stored.meta.get("result_posted") is True


async def test_a_game_ended_by_hand_before_a_stop_in_a_thread_archived_meanwhile_gets_its_result(
    fake_discord: FakeDiscord, skybo: Any, database: BotDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    general = fake.channel("general")
    reached, real = await stop_before_the_result(monkeypatch)
    first = database.bot(FAST)
    async with fake.running(first, sync_commands=True):
        await set_threads(fake, "on", language="fr")
        _, table = await start_lobby(fake, first, alice, [bob])
        thread, game_id = thread_of(fake, table), table.id
        question = await (await fake.run_command(alice, "skyjo", "end", channel=thread)).answer()
        await (await fake.click(alice, question, button(question, "ey"))).answer()
        await fake.wait_until(reached.is_set, what="the presenter at the result's post")
    monkeypatch.setattr(threads, "close_thread", real)
    assert results_in(fake, general, game_id) == [] and not thread.archived
    await fake.archive_thread(thread)  # a moderator archives it while the bot is stopped

    second = await skybo()
    result = await result_in(fake, general, game_id)
    assert f"arrêtée par <@{alice.id}>" in result.text  # in the server's language, as before the stop
    await fake.wait_until(lambda: thread.archived, what="the thread archived")
    await second.presenter.flush()
    assert len(results_in(fake, general, game_id)) == 1
    # the final table's edit refused in the archived thread (50083): unarchived, edited, archived again
    refused = fake.take_rejections(50083)
    changes = [r.json for r in fake.requests_to("PATCH", "/channels/{channel_id}")]
    assert len(refused) == 1 and changes == [{"archived": False}, {"archived": True}]
    assert "arrêtée par" in fake.messages[table.stored.message_id].text


@BOTH_BACKENDS
@pytest.mark.parametrize("stop", ["once the database answered", "while the database was away"])
async def test_a_thread_result_posted_during_a_blink_is_never_posted_again_by_a_restart(
    fake_discord: FakeDiscord,
    skybo: Any,
    database: BotDatabase,
    monkeypatch: pytest.MonkeyPatch,
    blackout_for: Any,
    caplog: pytest.LogCaptureFixture,
    stop: str,
) -> None:
    """A game ends in its thread and its result is posted in the channel while the database is away:
    that the result was posted cannot be stored then. It is kept in memory and stored as soon as the
    database answers, so the next start owes nothing; and a process stopped before the database
    answered leaves a start that reads the channel first and finds the result there. Either way the
    channel holds one result (before: a second one after the restart, "thread result not stored as
    posted" in the log)."""
    fake = fake_discord
    caplog.set_level(logging.INFO, logger="bot")
    alice, bob = fake.user("alice"), fake.user("bob")
    general = fake.channel("general")
    real = threads.close_thread
    go, reached = asyncio.Event(), asyncio.Event()

    async def at_the_result(*args: Any) -> None:
        reached.set()
        await go.wait()
        await real(*args)

    monkeypatch.setattr(threads, "close_thread", at_the_result)
    first = database.bot(FAST)
    async with fake.running(first, sync_commands=True):
        await set_threads(fake, "on")
        _, table = await start_lobby(fake, first, alice, [bob], score_limit=10, columns=2, rows=2)
        thread, game_id, message_id = thread_of(fake, table), table.id, table.stored.message_id
        await play_turns(fake, first, game_id, fake.messages[message_id], [alice, bob], random.Random(2))
        await fake.wait_until(reached.is_set, what="the presenter at the result's post")
        blackout = blackout_for(first)
        blackout.begin()
        go.set()
        await result_in(fake, general, game_id)
        await fake.wait_until(lambda: thread.archived, what="the thread archived")
        assert any(r.getMessage().startswith("thread result not stored as posted") for r in caplog.records)
        assert table.stored.meta.get("result_posted") is True  # in memory: never posted twice here
        if stop == "once the database answered":
            blackout.end()
            await fake.wait_until(
                lambda: any(r.getMessage() == "thread result stored as posted" for r in caplog.records),
                timeout=10,
                what="the fact stored",
            )
            stored = await first.service.ledger.get_game(game_id)
            assert stored.meta.get("result_posted") is True
    if stop == "while the database was away":
        blackout.end()
    monkeypatch.setattr(threads, "close_thread", real)
    assert len(results_in(fake, general, game_id)) == 1

    second = await skybo()  # the restart
    await second.presenter.flush()
    assert len(results_in(fake, general, game_id)) == 1 and thread.archived
    stored = await second.service.ledger.get_game(game_id)
    assert stored.meta.get("result_posted") is True
    found = [r for r in caplog.records if r.getMessage().startswith("thread result found in the channel")]
    assert len(found) == (1 if stop == "while the database was away" else 0)
    if found:  # owed: the final table shown in the archived thread (unarchived for that edit, 50083)
        assert len(fake.take_rejections(50083)) == 1
