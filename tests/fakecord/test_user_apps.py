"""What Discord does to the answers of a user-installed app where it is not installed (fakecord/places.py,
routes_interactions.py), through a plain discord.py bot: at most 5 follow-ups when only a user install
authorized the interaction (then 400 40094), answers forced ephemeral where the server does not let the
user use external apps (or post), and the 15-minute token on every webhook call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord
import pytest

from fakecord import FakeDiscord
from tests.fakecord.places_bot import PlacesBot

pytestmark = pytest.mark.fake_discord(integration_types=(0, 1))


@pytest.fixture
async def bot(connect_bot: Any) -> PlacesBot:
    connected: PlacesBot = await connect_bot(PlacesBot())
    return connected


async def test_five_follow_ups_then_40094_where_only_a_user_install_authorized(
    fake_discord: FakeDiscord, bot: PlacesBot
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    trio = fake.add_group_dm(alice, bob)
    fake.install_for_user(alice)
    capped = await fake.run_command(alice, "chatter", channel=trio, options={"times": 6})
    await fake.wait_until(lambda: bot.refused, what="the sixth follow-up refused")
    [refused] = bot.refused
    assert (refused.status, refused.code) == (400, 40094)
    assert [m.content for m in capped.followups] == [f"more {i}" for i in range(5)]
    [rejection] = fake.take_rejections(40094)
    assert rejection.message == "This interaction has hit the maximum number of follow up messages"

    # in the server the bot is in, the guild install authorizes it too: no cap
    free = await fake.run_command(alice, "chatter", options={"times": 6})
    await fake.wait_until(lambda: len(free.followups) == 6, what="six follow-ups")
    assert free.integration_owners() == {"0": str(fake.guild.id), "1": str(alice.id)}
    assert len(bot.refused) == 1


async def test_answers_are_ephemeral_where_the_server_forbids_external_apps(
    fake_discord: FakeDiscord, bot: PlacesBot
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    away = await fake.add_guild("Away", channels=["away"], members=[alice, bob], bot=False)
    room = fake.channel("away")
    fake.install_for_user(alice)
    fake.install_for_user(bob)
    await fake.set_external_apps(away, False)
    table = await (await fake.run_command(alice, "table", channel=room)).answer()
    assert table.ephemeral and table.visible_to == alice.id  # the bot asked for a public message
    assert fake.visible_messages(bob, room) == []
    thinking = await fake.run_command(alice, "think", channel=room)
    await fake.wait_until(lambda: len(thinking.followups) == 2, what="two follow-ups")
    assert all(m.visible_to == alice.id for m in thinking.messages)

    # the server allows it again; bob may not post in the channel: only his answers are forced
    await fake.set_external_apps(away, True)
    await fake.set_overwrite(room, bob, deny=discord.Permissions(send_messages=True))
    assert (await (await fake.run_command(alice, "table", channel=room)).answer()).visible_to is None
    assert (await (await fake.run_command(bob, "table", channel=room)).answer()).visible_to == bob.id

    # the server where the app is installed: its answers are never forced
    await fake.set_external_apps(fake.guild, False)
    assert (await (await fake.run_command(alice, "table")).answer()).visible_to is None


async def test_an_expired_token_refuses_every_webhook_call(fake_discord: FakeDiscord, bot: PlacesBot) -> None:
    """After 15 minutes on the fake's clock, the interaction's webhook answers 401 50027 to a follow-up,
    to an edit, a fetch or a delete of @original, and to an edit of a follow-up."""
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    fake.install_for_user(alice)
    inter = await fake.run_command(alice, "park", channel=fake.add_group_dm(alice, bob))
    parked = await fake.wait_until(lambda: bot.parked, what="the parked interaction")
    [followup] = inter.followups
    fake.clock.advance(15 * 60 + 1)
    calls: list[Callable[[], Awaitable[Any]]] = [
        lambda: parked.followup.send("late"),
        lambda: parked.edit_original_response(content="late"),
        lambda: parked.followup.fetch_message(followup.id),
        lambda: parked.followup.edit_message(followup.id, content="late"),
        lambda: parked.delete_original_response(),
    ]
    for call in calls:
        with pytest.raises(discord.HTTPException) as refused:
            await call()
        assert (refused.value.status, refused.value.code) == (401, 50027)
    assert len(fake.take_rejections(50027)) == len(calls)
    assert [m.content for m in inter.messages] == ["parked", "a follow-up"]  # nothing changed
