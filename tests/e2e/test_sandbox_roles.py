"""The sandbox's server has an owner and ordinary members, as on Discord (issue 38 item 6).

Alice owns the sandbox's server: Discord gives the owner every permission, so she may change
``/skybo settings`` and end anyone's game. Bob and Chloé are members with @everyone's default
permissions (no Manage Server, no Manage Channels): the bot refuses them both, with its reason, in their
language. Nothing in the bot knows it is in a sandbox: the fake computes each interaction's
``member.permissions`` as Discord does. The page lists each user with that role and counts the bot's
direct messages to them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.client import BotTuning, create_bot
from bot.i18n import translate as t
from bot.sandbox.server import Sandbox

from .conftest import button, private_answer, start_table

pytestmark = pytest.mark.timeout(60)

TUNING = BotTuning(ai_delay=0.0, round_delay=30.0, edit_interval=0.0)
MANAGE = discord.Permissions(manage_guild=True, manage_channels=True)


@pytest.fixture
async def sandbox(tmp_path: Path) -> AsyncIterator[Sandbox]:
    database = tmp_path / "sandbox.sqlite3"
    running = Sandbox(lambda: create_bot(database_path=database, tuning=TUNING), port=0)
    await running.start()
    try:
        yield running
    finally:
        await running.stop()


async def test_the_sandbox_has_an_owner_and_members_with_discords_permissions(sandbox: Sandbox) -> None:
    fake = sandbox.fake
    alice, bob, chloe = fake.user("alice"), fake.user("bob"), fake.user("chloe")
    general = fake.channel("general")
    assert fake.owner is alice and fake.guild.owner_id == alice.id
    perms = {
        u.username: discord.Permissions(fake.guild.permissions_of(u.id, general)) for u in (alice, bob, chloe)
    }
    assert perms["alice"] == discord.Permissions.all()
    for member in ("bob", "chloe"):
        assert not perms[member].manage_guild and not perms[member].manage_channels, member
        assert perms[member].send_messages and perms[member].use_application_commands, member
    # What the bot receives: the interaction's member.permissions, computed so.
    inter = await fake.run_command(bob, "skybo", "notify", options={"state": "on"}, channel=general)
    await inter.answer()
    payload = fake._interaction_payload(inter)
    assert not int(payload["member"]["permissions"]) & MANAGE.value
    # The page shows who is who.
    roles = {u["username"]: u["role"] for u in sandbox.world()["users"]}
    assert roles == {"alice": "owner", "bob": "member", "chloe": "member", "Skybo": "bot"}


async def test_the_owner_changes_the_settings_a_member_is_told_why_not(sandbox: Sandbox) -> None:
    fake, bot = sandbox.fake, sandbox.bot
    alice, bob, chloe = fake.user("alice"), fake.user("bob"), fake.user("chloe")

    async def settings(user: Any, **options: Any) -> str:
        answer = await private_answer(await fake.run_command(user, "skybo", "settings", options=options))
        return str(answer.text)

    shown = await settings(alice, turn_limit=30)
    assert shown.startswith("**Server settings**") and "30 s" in shown
    assert (await bot.service.storage.settings.get(fake.guild.id)).turn_limit == 30
    assert (
        await settings(bob, turn_limit=60)
        == "Only someone who can manage this server may change its settings."
    )
    assert await settings(chloe, turn_limit=60) == t("settings.error.not_admin", "fr")
    assert t("settings.error.not_admin", "fr") != t("settings.error.not_admin", "en-US")
    assert (await bot.service.storage.settings.get(fake.guild.id)).turn_limit == 30


async def test_a_member_cannot_end_someone_elses_game_the_owner_can(sandbox: Sandbox) -> None:
    fake, bot = sandbox.fake, sandbox.bot
    alice, bob, chloe = fake.user("alice"), fake.user("bob"), fake.user("chloe")
    _, game_id = await start_table(fake, bot, bob, [chloe], turn_limit=0)

    # Chloé plays at Bob's table but is no host and cannot manage the channel: refused, in French.
    refused = await private_answer(await fake.run_command(chloe, "skyjo", "end"))
    assert refused.text == t("table.error.end_not_allowed", "fr") and not refused.custom_ids
    assert game_id in bot.service.tables

    # Alice, the owner, sits at no seat but holds every permission: asked, then Yes ends the game.
    question = await private_answer(await fake.run_command(alice, "skyjo", "end"))
    assert question.text == "End this game for everyone? It will not be rated."
    answer = await (await fake.click(alice, question, button(question, "ey"))).followup()
    assert not answer.ephemeral and "not rated" in answer.text
    await fake.wait_until(lambda: game_id not in bot.service.tables, what="the game to end")
    assert (await bot.service.storage.games.status_of(game_id))[0] == "cancelled"
