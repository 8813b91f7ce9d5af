"""Opening a table from the Activity launched where no table is (issue 50, docs/activity.md "Opening a
table"), through the real bot and the fake Discord: the sign-in answers a channel session and the games;
``api/open`` opens the lobby ``/<game> new`` with no option would (the bot posts it in the channel as a
listener of the service's events); the host starts it with the lobby's buttons; the page's next sign-in
gets the table. Refused where one table already is, where the bot may not post, and where the bot is not
a member (a group DM), each in the user's language with the bot's own words; nothing opened then."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest

from bot.activity import opening
from bot.i18n import translate as t
from tests.e2e.activity_helpers import activity_bot, base, frame, sign_in

pytestmark = pytest.mark.timeout(120)


def lobby_messages(fake: Any, channel: Any) -> list[Any]:
    return [
        m
        for m in fake.messages.values()
        if m.channel_id == channel.id and any(c.endswith(":st") for c in m.custom_ids)
    ]


def lobby_button(lobby: Any, act: str) -> str:
    return next(c for c in lobby.custom_ids if c.endswith(f":{act}"))


async def test_a_table_opened_from_the_activity(
    fake_discord: Any, connect_bot: Callable[..., Awaitable[Any]], db_file: Path
) -> None:
    fake = fake_discord
    bot = await activity_bot(fake, connect_bot, db_file)
    fake.enable_activities()
    alice = fake.user("alice")
    cards = fake.add_voice_channel("cards")
    async with aiohttp.ClientSession() as http:
        answer, _, _ = await sign_in(http, fake, bot, alice, cards)
        offer = await answer.json()
        assert (answer.status, offer["error"], offer["can_open"], offer["lobby"]) == (
            404,
            "no_table",
            True,
            None,
        )
        assert [(g["kind"], g["name"]) for g in offer["games"]] == [("skyjo", "Skyjo"), ("skipbo", "Skip-Bo")]
        assert offer["games"][0]["about"] == t("cmd.skyjo.description", "en")
        session = offer["session"]
        # A channel session is no table's session, and a forged one opens nothing.
        async with http.ws_connect(base(bot).replace("http", "ws") + "/ws?session=" + session) as ws:
            await ws.receive()
            assert ws.close_code == 4001
        forged = await http.post(f"{base(bot)}/api/open", json={"session": session + "0", "kind": "skyjo"})
        assert (forged.status, await forged.json()) == (401, {"error": "session"})

        opened = await http.post(f"{base(bot)}/api/open", json={"session": session, "kind": "skyjo"})
        assert opened.status == 200, await opened.text()
        name = alice.global_name
        assert await opened.json() == {
            "table": False,
            "lobby": {"kind": "skyjo", "name": "Skyjo", "seats": [name]},
            "thread": False,
        }
        # The lobby is posted in the channel by the bot, as /skyjo new's would be (its buttons, its host).
        lobby = await fake.wait_until(lambda: next(iter(lobby_messages(fake, cards)), None), what="the lobby")
        assert lobby.author.id == fake.bot_user.id and name in lobby.text
        await bot.presenter.flush()  # the post done: its id kept with the lobby
        stored = await bot.service.lobbies.open_in_channel(cards.id)
        assert stored is not None and stored.message_id == lobby.id and stored.host_id == alice.id
        # One table per channel: a second open is refused in the bot's words, nothing more opened.
        again = await http.post(f"{base(bot)}/api/open", json={"session": session, "kind": "skipbo"})
        assert (again.status, (await again.json())["reason"]) == (
            409,
            t("table.error.channel_taken", "en", game="Skyjo"),
        )
        assert len(lobby_messages(fake, cards)) == 1

        # The host adds a computer and starts, with the lobby's own buttons.
        shown = lobby.revision
        await (await fake.click(alice, lobby, lobby_button(lobby, "ai"))).response()
        await fake.wait_until(lambda: lobby.revision > shown, what="the computer in the lobby")
        await (await fake.click(alice, lobby, lobby_button(lobby, "st"))).response()
        await fake.wait_until(lambda: bot.service.table_in_channel(cards.id) is not None, what="the game")
        waiting = await http.post(f"{base(bot)}/api/channel", json={"session": session})
        assert await waiting.json() == {"table": True, "lobby": None, "thread": False}
        # The page signs in again: now the table's session.
        answer, _, _ = await sign_in(http, fake, bot, alice, cards)
        assert answer.status == 200
        socket = base(bot).replace("http", "ws") + "/ws?session=" + (await answer.json())["session"]
        async with http.ws_connect(socket) as ws:
            hello, table = await frame(ws), await frame(ws)
            assert (hello["seat"], hello["kind"], table["type"]) == (0, "skyjo", "table")
            assert len(table["names"]) == 2


async def test_where_the_activity_cannot_open_a_table(
    fake_discord: Any, connect_bot: Callable[..., Awaitable[Any]], db_file: Path
) -> None:
    fake = fake_discord
    bot = await activity_bot(fake, connect_bot, db_file)
    fake.enable_activities()
    alice, carol = fake.user("alice"), fake.user("carol")  # carol reads French
    games = fake.channel("games")
    await fake.set_overwrite(games, fake.bot_user, deny=discord.Permissions(send_messages=True))
    group = fake.add_group_dm(carol, alice)
    async with aiohttp.ClientSession() as http:
        # A channel where the bot may not post: refused with the reason, nothing opened.
        answer, _, _ = await sign_in(http, fake, bot, alice, games)
        offer = await answer.json()
        assert offer["can_open"] is True
        refused = await http.post(
            f"{base(bot)}/api/open", json={"session": offer["session"], "kind": "skipbo"}
        )
        commands = "/skyjo new, /skipbo new"
        assert (refused.status, (await refused.json())["reason"]) == (
            409,
            t(opening.CANNOT_POST, "en", commands=commands),
        )
        # A group DM, where the bot is not a member: the page is told it cannot, in French for carol.
        answer, _, _ = await sign_in(http, fake, bot, carol, group)
        offer = await answer.json()
        french = f"/skyjo {t('cmd.new.name', 'fr')}, /skipbo {t('cmd.new.name', 'fr')}"
        assert (offer["can_open"], offer["commands"], offer["language"]) == (False, french, "fr")
        assert offer["games"][1]["about"] == t("cmd.skipbo.description", "fr")
        refused = await http.post(
            f"{base(bot)}/api/open", json={"session": offer["session"], "kind": "skyjo"}
        )
        assert (refused.status, (await refused.json())["reason"]) == (
            409,
            t(opening.NOT_HERE, "fr", commands=french),
        )
    for channel in (games, group):
        assert await bot.service.lobbies.open_in_channel(channel.id) is None
        assert not lobby_messages(fake, channel)


async def test_the_servers_settings_hold_for_the_activity(
    fake_discord: Any, connect_bot: Callable[..., Awaitable[Any]], db_file: Path
) -> None:
    """Tables only in #games (``/skybo settings``): refused elsewhere, the channel named as Discord shows
    it; games in threads: the waiting page is told the game went to its thread."""
    fake = fake_discord
    bot = await activity_bot(fake, connect_bot, db_file)
    fake.enable_activities()
    alice = fake.user("alice")
    general, games = fake.channel("general"), fake.channel("games")
    guild = general.guild_id
    await bot.service.change_settings(guild, allow_channel=games.id, threads=True)
    async with aiohttp.ClientSession() as http:
        answer, _, _ = await sign_in(http, fake, bot, alice, general)
        refused = await http.post(
            f"{base(bot)}/api/open", json={"session": (await answer.json())["session"], "kind": "skyjo"}
        )
        reason = (await refused.json())["reason"]
        assert (refused.status, reason) == (409, t("settings.error.channel", "en", channels="#games"))
        answer, _, _ = await sign_in(http, fake, bot, alice, games)
        session = (await answer.json())["session"]
        assert (
            await http.post(f"{base(bot)}/api/open", json={"session": session, "kind": "skyjo"})
        ).status == 200
        lobby = await fake.wait_until(lambda: next(iter(lobby_messages(fake, games)), None), what="the lobby")
        await bot.presenter.flush()
        shown = lobby.revision
        await (await fake.click(alice, lobby, lobby_button(lobby, "ai"))).response()
        await fake.wait_until(lambda: lobby.revision > shown, what="the computer in the lobby")
        await (await fake.click(alice, lobby, lobby_button(lobby, "st"))).response()
        await fake.wait_until(
            lambda: any(not tb.finished for tb in bot.service.tables.values()), what="the game"
        )
        waiting = await http.post(f"{base(bot)}/api/channel", json={"session": session})
        assert await waiting.json() == {"table": False, "lobby": None, "thread": True}
