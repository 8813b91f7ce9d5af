"""The fake's Activities (fakecord/routes_activities.py, activity_actions.py): instances launched in a
channel and their route, the Entry Point command's rules on command sync (Discord's 50240 when a bulk
overwrite drops it), running it from the App Launcher with either handler, and the LAUNCH_ACTIVITY
callback where Discord takes it; every refusal shown, every answer judged by the description."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands

from fakecord import FakeActivityInstance, FakeDiscord, FakeInteraction, InteractionRefused
from fakecord.routes_activities import ENTRY_POINT_KEPT
from fakecord.state import FakeChannel
from tests.fakecord.test_answers import Api, buttons

CHAT = {"name": "table", "description": "Open the table"}
LAUNCH_REFUSED = ("ACTIVITY_LAUNCH_INVALID_CONFIGURATION_NOT_EMBEDDED",)


@pytest.fixture
async def client(connect_bot: Any) -> discord.Client:
    # a client that answers nothing: the test answers every interaction over raw HTTP
    connected: discord.Client = await connect_bot(discord.Client(intents=discord.Intents.default()))
    return connected


@pytest.fixture
async def api(fake_discord: FakeDiscord, client: discord.Client) -> AsyncIterator[Api]:
    async with aiohttp.ClientSession() as session:
        yield Api(fake_discord, session)
    assert fake_discord.answer_violations == []


def callback(inter: FakeInteraction) -> str:
    return f"/interactions/{inter.id}/{inter.token}/callback?with_response=true"


def field_errors(answer: dict[str, Any]) -> list[str]:
    return [e["code"] for e in answer["errors"]["type"]["_errors"]]


# ---------------------------------------------------------------------------------- instances


async def test_an_instance_is_launched_joined_and_ended(fake_discord: FakeDiscord, api: Api) -> None:
    fake = fake_discord
    voice = fake.add_voice_channel("Table talk")
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    route = f"/applications/{fake.application_id}/activity-instances"
    fake.enable_activities()
    instance = fake.launch_activity(alice, voice, bob)
    assert instance.instance_id == f"i-{instance.launch_id}-gc-{fake.guild.id}-{voice.id}"
    answer = await api.ok("GET", f"{route}/{instance.instance_id}")
    assert answer == {
        "application_id": str(fake.application_id),
        "instance_id": instance.instance_id,
        "launch_id": str(instance.launch_id),
        "location": {
            "id": f"gc-{fake.guild.id}-{voice.id}",
            "kind": "gc",
            "channel_id": str(voice.id),
            "guild_id": str(fake.guild.id),
        },
        "users": [str(alice.id), str(bob.id)],
    }
    # a second launch in the channel joins the running instance
    assert fake.launch_activity(carol, voice) is instance and fake.activity_in(voice) is instance
    query = instance.frame_query()
    assert (query["instance_id"], query["channel_id"], query["guild_id"]) == (
        instance.instance_id,
        str(voice.id),
        str(fake.guild.id),
    )
    for user in (alice, bob, carol):
        fake.leave_activity(user, instance)
    assert instance.ended and fake.activity_in(voice) is None
    await api.error(404, 0, "GET", f"{route}/{instance.instance_id}")  # ended: never used again
    again = fake.launch_activity(bob, voice)
    assert again.instance_id != instance.instance_id
    await api.error(404, 0, "GET", f"{route}/i-1-gc-1-1")
    await api.error(404, 0, "GET", f"/applications/1/activity-instances/{again.instance_id}")
    await api.error(401, 0, "GET", f"{route}/{again.instance_id}", token="not-the-token")
    # the voice channel as Discord sends it
    channel = await api.ok("GET", f"/channels/{voice.id}")
    assert channel["type"] == 2 and channel["bitrate"] == 64000 and "topic" not in channel


async def test_an_instance_in_a_dm_or_group_dm_is_a_private_channels(
    fake_discord: FakeDiscord, api: Api
) -> None:
    fake = fake_discord
    fake.enable_activities()
    alice, bob = fake.user("alice"), fake.user("bob")
    dm = fake.dm_channel(alice)
    group = fake.add_group_dm(alice, bob, name="friends")
    for channel, users in ((dm, (alice,)), (group, (alice, bob))):
        instance = fake.launch_activity(users[0], channel, *users[1:])
        answer = await api.ok(
            "GET", f"/applications/{fake.application_id}/activity-instances/{instance.instance_id}"
        )
        assert answer["instance_id"] == f"i-{instance.launch_id}-pc-{channel.id}"
        assert answer["location"] == {"id": f"pc-{channel.id}", "kind": "pc", "channel_id": str(channel.id)}
        assert "guild_id" not in instance.frame_query()


async def test_an_activity_is_launched_only_where_discord_launches_one(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    alice, general = fake.user("alice"), fake.channel("general")
    with pytest.raises(InteractionRefused, match="Activities enabled"):
        fake.launch_activity(alice, general)
    fake.enable_activities()
    announcements = FakeChannel(fake.new_id(), "news", 5, guild_id=fake.guild.id)
    with pytest.raises(InteractionRefused, match="type 5"):
        fake.launch_activity(alice, announcements)
    await fake.set_overwrite(general, alice, deny=discord.Permissions(use_embedded_activities=True))
    with pytest.raises(InteractionRefused, match="Use Activities"):
        fake.launch_activity(alice, general)
    thread = FakeChannel(
        fake.new_id(), "thread", 11, guild_id=fake.guild.id, parent_id=fake.channel("games").id
    )
    fake.channels[thread.id] = thread
    assert fake.launch_activity(alice, thread).location_id == f"gc-{fake.guild.id}-{thread.id}"


async def test_a_planted_wrong_instance_is_caught(
    fake_discord: FakeDiscord, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = FakeActivityInstance.payload

    def careless(self: FakeActivityInstance) -> dict[str, Any]:
        data = copy.deepcopy(real(self))
        del data["location"]["kind"]
        return data

    monkeypatch.setattr(FakeActivityInstance, "payload", careless)
    fake_discord.enable_activities()
    instance = fake_discord.launch_activity(fake_discord.user("alice"), fake_discord.channel("general"))
    await api.ok(
        "GET", f"/applications/{fake_discord.application_id}/activity-instances/{instance.instance_id}"
    )
    assert len(fake_discord.answer_violations) == 1
    assert "location" in fake_discord.answer_violations[0]
    fake_discord.answer_violations.clear()


# ---------------------------------------------------------------------------------- the Entry Point command


async def test_enabling_activities_makes_the_entry_point_that_a_bulk_overwrite_must_keep(
    fake_discord: FakeDiscord, api: Api
) -> None:
    fake = fake_discord
    base = f"/applications/{fake.application_id}/commands"
    await api.ok("PUT", base, [CHAT])  # no Activities: nothing to keep
    fake.enable_activities()
    launch = next(c for c in await api.ok("GET", base) if c["type"] == 4)
    assert (launch["name"], launch["handler"]) == ("Launch", 2)
    answer = await api.error(400, 50240, "PUT", base, [CHAT])
    assert answer == {"message": ENTRY_POINT_KEPT, "code": 50240}
    assert {c["name"] for c in fake.global_commands.values()} == {"table", "Launch"}  # nothing changed
    # carried along (as GET gave it), the overwrite passes and keeps its id
    kept = {key: launch[key] for key in ("name", "type", "handler", "description")}
    synced = await api.ok("PUT", base, [CHAT, kept])
    assert next(c for c in synced if c["type"] == 4)["id"] == launch["id"]
    # deleted alone, as Discord allows; then there is nothing to keep
    await api.ok("DELETE", f"{base}/{launch['id']}")
    await api.ok("PUT", base, [CHAT])


async def test_the_entry_points_shape_is_checked(fake_discord: FakeDiscord, api: Api) -> None:
    fake = fake_discord
    base = f"/applications/{fake.application_id}/commands"
    entry = {"name": "Play", "type": 4, "handler": 1, "description": "Open the table in the call"}
    answer = await api.error(400, 50035, "PUT", base, [entry])  # a handler needs Activities
    assert "handler" in answer["errors"]["0"]
    fake.enable_activities()
    answer = await api.error(400, 50035, "PUT", base, [{**CHAT, "handler": 2}, entry])
    assert answer["errors"]["0"]["handler"]["_errors"][0]["code"] == "APPLICATION_COMMAND_HANDLER_INVALID"
    answer = await api.error(400, 50035, "PUT", base, [entry, {**entry, "name": "Other"}])
    assert answer["errors"]["1"]["type"]["_errors"][0]["code"] == "APPLICATION_COMMAND_TOO_MANY_ENTRY_POINTS"
    option = {"type": 3, "name": "game", "description": "Which game"}
    answer = await api.error(400, 50035, "PUT", base, [{**entry, "options": [option]}])
    assert "options" in answer["errors"]["0"]
    guild = f"/applications/{fake.application_id}/guilds/{fake.guild.id}/commands"
    answer = await api.error(400, 50035, "PUT", guild, [entry])
    assert answer["errors"]["0"]["type"]["_errors"][0]["code"] == "APPLICATION_COMMAND_TYPE_INVALID"
    answer = await api.error(400, 50035, "POST", base, entry)  # a second one beside "Launch"
    assert "type" in answer["errors"]
    replaced = await api.ok("PUT", base, [CHAT, entry])  # a bulk overwrite may replace it
    assert [c["name"] for c in replaced if c["type"] == 4] == ["Play"]
    assert fake.entry_point_command() == next(c for c in replaced if c["type"] == 4)
    assert (await api.ok("POST", base, {**entry, "handler": 2}))["handler"] == 2  # the same one overwritten


async def test_discord_py_meets_the_entry_point_when_it_syncs(
    fake_discord: FakeDiscord, connect_bot: Any
) -> None:
    """discord.py's ``tree.sync()`` (a bulk overwrite of its own commands) on an app with Activities:
    Discord's 50240, until the bot carries the Entry Point command itself."""
    client = discord.Client(intents=discord.Intents.default())
    tree = app_commands.CommandTree(client)

    @tree.command(name="table", description="Open the table")
    async def table(interaction: discord.Interaction) -> None:  # pragma: no cover - never run
        await interaction.response.send_message("table")

    await connect_bot(client)
    fake_discord.enable_activities()
    with pytest.raises(discord.HTTPException) as refused:
        await tree.sync()
    assert refused.value.code == 50240 and refused.value.status == 400
    assert fake_discord.take_rejections(50240)


# ---------------------------------------------------------------------------------- launching


async def test_the_entry_point_with_discords_handler_launches_without_the_bot(
    fake_discord: FakeDiscord, api: Api
) -> None:
    fake = fake_discord
    voice = fake.add_voice_channel("Table talk")
    alice = fake.user("alice")
    with pytest.raises(InteractionRefused):
        await fake.run_entry_point(alice, voice)  # no Activities: no Entry Point in the App Launcher
    fake.enable_activities()
    inter = await fake.run_entry_point(alice, voice)
    instance = fake.activity_launched_by(inter)
    assert instance is not None and instance.users == [alice] and instance.channel is voice
    assert inter.id not in fake.interactions and not inter.sessions  # never sent to the bot
    message = inter.original_message
    assert message is not None and message.channel_id == voice.id and message.type == 20
    fetched = await api.ok("GET", f"/channels/{voice.id}/messages/{message.id}")  # judged as Discord's
    assert fetched["interaction_metadata"]["user"]["id"] == str(alice.id)
    assert fake.session is not None
    assert "INTERACTION_CREATE" not in [e["t"] for e in fake.session.events]


async def test_the_entry_point_with_the_apps_handler_is_answered_with_launch_activity(
    fake_discord: FakeDiscord, connect_bot: Any
) -> None:
    """Handler 1: the bot receives the command (``data.type`` 4) and launches the Activity with
    discord.py's own ``launch_activity``; the callback's answer names the instance."""
    launched: list[discord.InteractionCallbackResponse[discord.Client]] = []

    class Launcher(discord.Client):
        async def on_interaction(self, interaction: discord.Interaction) -> None:
            launched.append(await interaction.response.launch_activity())

    await connect_bot(Launcher(intents=discord.Intents.default()))
    fake = fake_discord
    fake.enable_activities()
    launch = fake.entry_point_command()
    assert launch is not None
    launch["handler"] = 1  # as a PATCH or overwrite with handler 1 would leave it
    voice = fake.add_voice_channel("Table talk")
    inter = await fake.run_entry_point(fake.user("bob"), voice)
    assert inter.data == {"id": launch["id"], "name": "Launch", "type": 4}
    record = await inter.response()
    instance = fake.activity_launched_by(inter)
    assert record.type == 12 and instance is not None and instance.users == [fake.user("bob")]
    await fake.wait_until(lambda: launched, what="the callback's answer")
    [answer] = launched
    assert answer.activity_id == instance.instance_id
    assert isinstance(answer.resource, discord.InteractionCallbackActivityInstance)
    assert answer.resource.id == instance.instance_id
    assert all(r.answer_judged for r in inter.requests) and fake.answer_violations == []


async def test_launch_activity_answers_a_click_or_a_modal_where_an_activity_runs(
    fake_discord: FakeDiscord, api: Api
) -> None:
    fake = fake_discord
    alice, general = fake.user("alice"), fake.channel("general")
    posted = await api.ok(
        "POST", f"/channels/{general.id}/messages", {"content": "t", "components": buttons("open")}
    )
    board = fake.messages[int(posted["id"])]
    # no Activities
    click = await fake.click(alice, board, "open")
    answer = await api.error(400, 50035, "POST", callback(click), {"type": 12})
    assert field_errors(answer) == list(LAUNCH_REFUSED)
    fake.enable_activities()
    click = await fake.click(alice, board, "open")
    answer = await api.ok("POST", callback(click), {"type": 12})
    instance = fake.activity_in(general)
    assert instance is not None and instance.users == [alice]
    assert answer == {
        "interaction": {"id": str(click.id), "type": 3, "activity_instance_id": instance.instance_id},
        "resource": {"type": 12, "activity_instance": {"id": instance.instance_id}},
    }
    await api.error(400, 40060, "POST", callback(click), {"type": 12})
    # a modal's submit may launch it too, and joins the running instance
    click = await fake.click(fake.user("bob"), board, "open")
    modal = {
        "custom_id": "m",
        "title": "Seat",
        "components": [
            {"type": 1, "components": [{"type": 4, "custom_id": "n", "label": "Name", "style": 1}]}
        ],
    }
    await api.ok("POST", callback(click), {"type": 9, "data": modal})
    submit = await fake.submit_modal(fake.user("bob"), click, {"n": "Bob"})
    answer = await api.ok("POST", callback(submit), {"type": 12})
    assert answer["interaction"]["activity_instance_id"] == instance.instance_id
    assert instance.users == [alice, fake.user("bob")]


async def test_launch_activity_is_refused_where_discord_refuses_it(
    fake_discord: FakeDiscord, api: Api
) -> None:
    fake = fake_discord
    fake.enable_activities()
    alice, general = fake.user("alice"), fake.channel("general")
    await api.ok(
        "PUT",
        f"/applications/{fake.application_id}/commands",
        [
            {**CHAT, "options": [{"type": 3, "name": "game", "description": "g", "autocomplete": True}]},
            {"name": "Launch", "type": 4, "handler": 2},
        ],
    )
    # an autocomplete never takes it
    typing = await fake.autocomplete(alice, "table", focused="game")
    answer = await api.error(400, 50035, "POST", callback(typing), {"type": 12})
    assert field_errors(answer) == ["INTERACTION_RESPONSE_TYPE_INVALID"]
    # a user without Use Activities
    await fake.set_overwrite(general, alice, deny=discord.Permissions(use_embedded_activities=True))
    command = await fake.run_command(alice, "table")
    answer = await api.error(400, 50035, "POST", callback(command), {"type": 12})
    assert field_errors(answer) == ["ACTIVITY_LAUNCH_INVALID_USER_PERMISSIONS"]
    await fake.set_overwrite(general, alice)
    # a channel where no Activity runs (an announcement channel)
    news = FakeChannel(fake.new_id(), "news", 5, guild_id=fake.guild.id)
    fake.guild.channels.append(news)
    fake.channels[news.id] = news
    command = await fake.run_command(alice, "table", channel=news)
    answer = await api.error(400, 50035, "POST", callback(command), {"type": 12})
    assert field_errors(answer) == ["ACTIVITY_LAUNCH_INVALID_CHANNEL_TYPE"]
    assert fake.activity_instances == {}
    # the same command in a DM with the bot does launch one
    command = await fake.run_command(alice, "table", channel=fake.dm_channel(alice))
    assert (await api.ok("POST", callback(command), {"type": 12}))["resource"]["type"] == 12
