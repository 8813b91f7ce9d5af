"""User commands (type 2, "USER": a right-click on a user, then Apps), through a plain discord.py bot: the
sync checks them as Discord's docs say, ``fake.run_user_command`` sends what Discord sends (the target
resolved), and refuses what the client would not let the user do."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from fakecord import FakeDiscord, FakeDiscordError, InteractionRefused
from tests.fakecord.places_bot import PlacesBot, delivered

pytestmark = pytest.mark.fake_discord(integration_types=(0, 1))


@pytest.fixture
async def bot(connect_bot: Any) -> PlacesBot:
    connected: PlacesBot = await connect_bot(PlacesBot())
    return connected


async def test_a_user_command_runs_on_the_user_right_clicked(
    fake_discord: FakeDiscord, bot: PlacesBot
) -> None:
    fake = fake_discord
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    inter = await fake.run_user_command(alice, "Challenge", bob)
    answer = await inter.answer()
    payload = delivered(fake, inter)
    command = fake.registered_command("Challenge", kind=2)
    assert command is not None and command["description"] == "" and command["type"] == 2
    assert payload["type"] == 2 and payload["data"]["type"] == 2 and payload["data"]["id"] == command["id"]
    assert payload["data"]["target_id"] == str(bob.id)
    assert payload["data"]["resolved"]["users"][str(bob.id)]["username"] == "bob"
    assert str(bob.id) in payload["data"]["resolved"]["members"]
    [target] = bot.targets
    assert isinstance(target, discord.Member) and target.id == bob.id
    assert answer.content == "alice challenges bob"
    assert answer.type == 23  # CONTEXT_MENU_COMMAND
    assert answer.payload()["interaction_metadata"]["target_user"]["id"] == str(bob.id)

    # in a group DM, through alice's own install, on one of its users
    fake.install_for_user(alice)
    trio = fake.add_group_dm(alice, bob, carol)
    in_trio = await fake.run_user_command(alice, "Challenge", carol, channel=trio)
    assert (await in_trio.answer()).content == "alice challenges carol"
    assert delivered(fake, in_trio)["context"] == 2 and "members" not in in_trio.data["resolved"]
    assert isinstance(bot.targets[1], discord.User)


async def test_a_user_command_is_refused_where_the_client_would_not_offer_it(
    fake_discord: FakeDiscord, bot: PlacesBot
) -> None:
    fake = fake_discord
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    await fake.add_guild("Away", channels=["away"], members=[alice], bot=False)
    duo = fake.add_group_dm(alice, bob)
    fake.install_for_user(alice)
    with pytest.raises(InteractionRefused, match="not a member"):
        await fake.run_user_command(alice, "Challenge", bob, channel=fake.channel("away"))
    with pytest.raises(InteractionRefused, match="not in channel"):
        await fake.run_user_command(alice, "Challenge", carol, channel=duo)
    with pytest.raises(InteractionRefused, match="no installation"):
        await fake.run_user_command(bob, "Challenge", alice, channel=duo)  # bob has not installed it
    await fake.set_overwrite(fake.channel("general"), alice, deny=discord.Permissions(send_messages=True))
    with pytest.raises(InteractionRefused, match="may not send messages"):  # the docs' "Permission Denied"
        await fake.run_user_command(alice, "Challenge", bob)
    with pytest.raises(FakeDiscordError, match="never synced"):
        await fake.run_user_command(bob, "table", alice, timeout=0.05)  # a slash command, not a user one
    assert bot.seen == []


async def test_the_sync_checks_user_commands_as_discords_docs_say(
    fake_discord: FakeDiscord, bot: PlacesBot
) -> None:
    """A user command takes no description and no options; names are unique per type (a slash and a user
    command may share one); a scope holds at most 15 user commands."""
    fake, app_id = fake_discord, fake_discord.application_id

    async def refused(commands: list[dict[str, Any]]) -> dict[str, Any]:
        with pytest.raises(discord.HTTPException) as info:
            await bot.http.bulk_upsert_global_commands(app_id, commands)
        assert (info.value.status, info.value.code) == (400, 50035)
        [rejection] = fake.take_rejections(50035)
        assert rejection.errors is not None
        return rejection.errors

    errors = await refused([{"name": "Stats", "type": 2, "description": "the user's stats"}])
    assert errors["0"]["description"]["_errors"][0]["code"] == "APPLICATION_COMMAND_DESCRIPTION_NOT_ALLOWED"
    option = {"type": 3, "name": "what", "description": "what"}
    errors = await refused([{"name": "Stats", "type": 2, "options": [option]}])
    assert errors["0"]["options"]["_errors"][0]["code"] == "APPLICATION_COMMAND_OPTIONS_NOT_ALLOWED"
    errors = await refused([{"name": "Stats", "type": 2}, {"name": "Stats", "type": 2}])
    assert errors["_errors"][0]["code"] == "APPLICATION_COMMANDS_DUPLICATE_NAME"
    errors = await refused([{"name": f"User {i}", "type": 2} for i in range(16)])
    assert errors["_errors"][0]["code"] == "BASE_TYPE_MAX_LENGTH"
    assert fake.registered_command("Challenge", kind=2) is not None  # nothing of those was stored

    both: list[dict[str, Any]] = [
        {"name": "stats", "description": "Your stats"},
        {"name": "stats", "type": 2},
    ]
    both += [{"name": f"User {i}", "type": 2} for i in range(14)]
    stored = await bot.http.bulk_upsert_global_commands(app_id, both)
    assert len(stored) == 16
    slash, user = fake.registered_command("stats"), fake.registered_command("stats", kind=2)
    assert slash is not None and user is not None and slash["id"] != user["id"]
    assert fake.global_commands["stats"] is slash  # the by-name view: the slash command
    assert set(fake.commands[None]) == {(1, "stats"), (2, "stats")} | {(2, f"User {i}") for i in range(14)}
