"""Vanished places (issue 23, item 1): a deleted channel, the bot removed from its server, a lost
permission to post, each with the real bot against the fake Discord (which answers as Discord does:
10003 for a deleted channel, 50001 for a server the bot left, 50013 for a post it may not make)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.client import create_bot
from bot.service.ledger import GameLedger
from bot.ui import followed_panels

from .conftest import FAST, button, open_lobby, private_answer, reveal_own_cards, start_table

GONE_LOG = "game cancelled: its place is gone"


def touching(fake: Any, channels: list[Any], since: int) -> list[Any]:
    """REST requests made since index ``since`` about these channels (their id in the path)."""
    ids = [str(c.id) for c in channels]
    return [r for r in fake.requests[since:] if any(i in r.path for i in ids)]


async def eventually(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 60.0) -> None:
    """For conditions only the database can tell (the fake's wait_until takes synchronous predicates)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await check():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def game_status(bot: Any, game_id: int) -> str:
    return str((await GameLedger(bot.service.storage).get_game(game_id)).status)


async def lobby_closed(bot: Any, lobby_id: int) -> bool:
    return bool((await bot.service.lobbies.get(lobby_id)).status == "cancelled")


async def test_a_deleted_channels_game_and_lobby_are_cancelled_and_never_resumed(
    fake_discord: Any, skybo: Any, db_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    games, lounge = fake.channel("games"), fake.add_channel("lounge")
    first = create_bot(database_path=db_file, tuning=dataclasses.replace(FAST, ai_delay=0.05))
    async with fake.running(first, sync_commands=True):
        table_message, game_id = await start_table(fake, first, alice, [], channel=games, computers=2)
        # Alice leaves: computer players play every seat, so the game moves (and is redrawn) by itself.
        question = await private_answer(await fake.click(alice, table_message, button(table_message, "lv")))
        await (await fake.click(alice, question, button(question, "ly"))).response()
        table = first.service.tables[game_id]
        await fake.wait_until(lambda: table.version > 12, what="computer moves", timeout=20)
        await open_lobby(fake, bob, lounge)
        lobby = await first.service.lobbies.open_in_channel(lounge.id)
        assert lobby is not None

        with caplog.at_level(logging.INFO, logger="bot.service"):
            await fake.delete_channel(games)
            await fake.delete_channel(lounge)
            await fake.wait_until(lambda: game_id not in first.service.tables, what="the game ended")
            await eventually(lambda: lobby_closed(first, lobby.id), "the lobby closed")
        assert table.finished and table.gone
        assert await game_status(first, game_id) == "cancelled"
        assert (await first.service.lobbies.get(lobby.id)).status == "cancelled"
        assert [r.game_id for r in caplog.records if r.getMessage() == GONE_LOG] == [game_id]
        # Its timer and computer players stop: nothing moves, nothing is sent about these channels.
        due = first.service.sweeper.due
        assert ("game", game_id) not in due and ("lobby", lobby.id) not in due
        assert table.ai_task is None or table.ai_task.done() or table.ai_task.cancelling()
        await first.presenter.flush()
        seen, version = len(fake.requests), table.version
        await asyncio.sleep(1.0)  # twenty times the computer players' pause: they would have moved
        await first.presenter.flush()
        assert table.version == version
        assert touching(fake, [games, lounge], seen) == []
    # What the bot sent before the event reached it (a computer move's edit, say) found no channel.
    assert all(r.code == 10003 for r in fake.take_rejections())

    # A new process resumes neither of them, and sends nothing there.
    seen = len(fake.requests)
    second = await skybo()
    assert game_id not in second.service.tables
    assert await second.service.lobbies.open_in_channel(lounge.id) is None
    await second.presenter.flush()
    assert touching(fake, [games, lounge], seen) == []


async def test_a_channel_deleted_while_the_bot_was_stopped_ends_its_game_at_the_first_10003(
    fake_discord: Any, skybo: Any, db_file: Path
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    games = fake.channel("games")
    first = create_bot(database_path=db_file, tuning=FAST)
    async with fake.running(first, sync_commands=True):
        _, game_id = await start_table(fake, first, alice, [bob], channel=games)
    await fake.delete_channel(games)  # nobody is connected: the bot never hears of it

    # At start the game is resumed and its message redrawn ("live again"): Discord answers 10003.
    second = create_bot(database_path=db_file, tuning=FAST)
    async with fake.running(second):
        await fake.wait_rejection(10003)
        await fake.wait_until(lambda: game_id not in second.service.tables, what="the game ended")
        assert await game_status(second, game_id) == "cancelled"
        await second.presenter.flush()
    assert all(r.code == 10003 for r in fake.take_rejections())

    # The next start does not resume it: not one request about the channel.
    seen = len(fake.requests)
    third = await skybo()
    assert game_id not in third.service.tables
    await third.presenter.flush()
    assert touching(fake, [games], seen) == []


async def test_the_bot_removed_from_the_server_ends_its_tables_but_an_outage_ends_nothing(
    fake_discord: Any, skybo: Any, db_file: Path
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    games, general = fake.channel("games"), fake.channel("general")
    first = create_bot(database_path=db_file, tuning=FAST)
    async with fake.running(first, sync_commands=True):
        _, kept_id = await start_table(fake, first, alice, [bob], channel=games)
        # An outage of the server (GUILD_DELETE with "unavailable") ends nothing.
        await fake.dispatch("GUILD_DELETE", {"id": str(fake.guild.id), "unavailable": True})
        await fake.wait_until(lambda: first.get_guild(fake.guild.id).unavailable, what="the outage seen")
        await asyncio.sleep(0.2)
        assert kept_id in first.service.tables

    # Started during an outage (READY lists the server, no GUILD_CREATE follows): still nothing ends.
    fake.unavailable_guilds.add(fake.guild.id)
    second = create_bot(database_path=db_file, tuning=FAST)
    async with fake.running(second):
        assert second.get_guild(fake.guild.id) is not None and second.get_guild(fake.guild.id).unavailable
        await second.presenter.flush()
        assert kept_id in second.service.tables
        assert await game_status(second, kept_id) == "active"
    fake.unavailable_guilds.clear()

    # Removed while running: GUILD_DELETE without "unavailable" ends the game and the open lobby.
    third = create_bot(database_path=db_file, tuning=FAST)
    async with fake.running(third):
        await open_lobby(fake, bob, general)
        lobby = await third.service.lobbies.open_in_channel(general.id)
        assert lobby is not None and kept_id in third.service.tables
        await third.presenter.flush()
        await fake.remove_bot_from_guild()
        await fake.wait_until(lambda: kept_id not in third.service.tables, what="the game ended")
        await eventually(lambda: lobby_closed(third, lobby.id), "the lobby closed")
        assert await game_status(third, kept_id) == "cancelled"
        seen = len(fake.requests)
        await third.presenter.flush()
        assert touching(fake, [games, general], seen) == []
    assert fake.take_rejections() == []


async def test_a_server_that_removed_the_bot_while_it_was_stopped_ends_its_games_once_ready(
    fake_discord: Any, skybo: Any, db_file: Path
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    games = fake.channel("games")
    first = create_bot(database_path=db_file, tuning=FAST)
    async with fake.running(first, sync_commands=True):
        _, game_id = await start_table(fake, first, alice, [bob], channel=games)
    await fake.remove_bot_from_guild()

    second = await skybo()  # READY no longer lists the server
    await fake.wait_until(lambda: game_id not in second.service.tables, what="the game ended")
    assert await game_status(second, game_id) == "cancelled"
    await second.presenter.flush()
    # The redraw at resume may have gone out before READY: Discord refused it (not a member any more).
    assert all(r.code == 50001 for r in fake.take_rejections())
    seen = len(fake.requests)
    await asyncio.sleep(0.2)
    await second.presenter.flush()
    assert touching(fake, [games], seen) == []


async def test_lost_permission_is_told_to_each_clicker_and_the_host_can_still_end(
    fake_discord: Any, skybo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nobody is taken to be looking at a panel: the turn's mention goes out (FollowedPanels.looking).
    monkeypatch.setattr(followed_panels, "LOOKING_MS", 0)
    fake = fake_discord
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    games = fake.channel("games")
    bot = await skybo()
    table_message, game_id = await start_table(fake, bot, alice, [bob], channel=games)
    table = bot.service.tables[game_id]
    no_send = discord.Permissions(send_messages=True)
    await fake.set_overwrite(games, fake.bot_user, deny=no_send)
    revision = table_message.revision

    # The game goes on from the private panels; the first turn's mention cannot be posted.
    await reveal_own_cards(fake, alice, table_message, table)
    await reveal_own_cards(fake, bob, table_message, table)
    await fake.wait_rejection(50013)
    await fake.wait_until(lambda: bot.presenter.cannot_post(games.id), what="the refusal noticed")
    assert table.state.phase == "play"
    # Its own messages it may still edit: the table shows the game as it goes.
    await fake.wait_until(lambda: table_message.revision > revision, what="the table message edited")

    async def clicked(user: Any, message: Any, act: str, answers: int) -> Any:
        """The click, once ``answers`` messages answered it (then a pause: no more come)."""
        inter = await fake.click(user, message, button(message, act))
        await fake.wait_until(lambda: len(inter.messages) >= answers, what=f"{answers} answers")
        await asyncio.sleep(0.3)
        await bot.presenter.flush()
        return inter

    # Any button, anyone: the answer, then one private word in the clicker's language.
    inter = await clicked(carol, table_message, "ru", 2)
    rules, warning = inter.messages
    assert rules.visible_to == carol.id and "Skyjo" in rules.text
    assert warning.ephemeral and warning.visible_to == carol.id
    assert "Je ne peux plus publier dans ce salon" in warning.text and "/skyjo fin" in warning.text
    player = alice if table.turn_user() == alice.id else bob
    inter = await fake.click(player, table_message, button(table_message, "op"))
    panel = await inter.original()
    await fake.wait_until(lambda: len(inter.messages) == 2, what="the warning")
    warning = inter.messages[1]
    assert warning.visible_to == player.id and "I can no longer post in this channel" in warning.text
    assert "Send Messages" in warning.text and "/skyjo end" in warning.text
    inter = await clicked(player, panel, "dr", 2)  # a move on the panel is played, and warned too
    assert table.state.drawn is not None and len(inter.messages) == 2

    # Send Messages back: the next turn's mention is posted, and the warning stops.
    await fake.set_overwrite(games, fake.bot_user)
    turns = table.turns
    await clicked(player, panel, "rp", 1)
    await fake.wait_until(lambda: table.turns > turns, what="the next turn")
    await fake.wait_until(lambda: not bot.presenter.cannot_post(games.id), what="a post went through")
    inter = await clicked(carol, table_message, "ru", 1)
    assert len(inter.messages) == 1

    # Taken away again: the host ends the game all the same (its answers need no channel permission).
    await fake.set_overwrite(games, fake.bot_user, deny=no_send)
    ask = await fake.run_command(alice, "skyjo", "end", channel=games)
    question = await private_answer(ask)
    await (await fake.click(alice, question, button(question, "ey"))).response()
    await fake.wait_until(lambda: game_id not in bot.service.tables, what="the game ended")
    assert await game_status(bot, game_id) == "cancelled"
    await bot.presenter.flush()
    await fake.wait_until(lambda: "ended" in table_message.text.lower(), what="the table message says so")
    assert all(r.code == 50013 for r in fake.take_rejections())
