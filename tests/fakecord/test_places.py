"""Places as Discord has them (fakecord/places.py), driven by a plain discord.py bot: group DMs and DMs
between users the bot is not in, a server where only users installed the app, the bot's DM; what each
interaction carries there (context, authorizing_integration_owners, app_permissions, a partial channel);
commands offered only where they are declared; and the routes the bot may not use there."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from fakecord import FakeDiscord, FakeDiscordError, InteractionRefused
from tests.fakecord.places_bot import PlacesBot, delivered, interactions_sent

pytestmark = pytest.mark.fake_discord(integration_types=(0, 1))

P = discord.Permissions


@pytest.fixture
async def bot(connect_bot: Any) -> PlacesBot:
    connected: PlacesBot = await connect_bot(PlacesBot())
    return connected


async def test_a_group_dm_holds_2_to_10_people_and_never_the_bot(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    people = [fake.user(n) for n in ("alice", "bob", "carol")]
    people += [fake.add_user(f"user{i}") for i in range(8)]
    assert fake.add_group_dm(*people[:10]).type == 3
    for wrong in ([people[0]], people[:11], [people[0], people[0]], [people[0], fake.bot_user]):
        with pytest.raises(FakeDiscordError):
            fake.add_group_dm(*wrong)
    with pytest.raises(FakeDiscordError):
        fake.add_user_dm(people[0], fake.bot_user)
    assert fake.add_user_dm(people[0], people[1]) is fake.add_user_dm(people[1], people[0])


async def test_a_user_installs_only_a_user_installable_app(fake_discord: FakeDiscord) -> None:
    alice = fake_discord.user("alice")
    fake_discord.install_for_user(alice)
    assert fake_discord.user_installs == {alice.id}
    guild_only = FakeDiscord()  # integration_types=(0,): an app only servers install
    with pytest.raises(FakeDiscordError, match="cannot be installed to users"):
        guild_only.install_for_user(guild_only.user("alice"))


async def test_the_bot_reaches_nothing_of_a_place_it_is_not_in(
    fake_discord: FakeDiscord, bot: PlacesBot
) -> None:
    """Channel routes of a group DM, a DM between users and a server without the bot answer 403 50001;
    the gateway gives it none of their events, and READY / GUILD_CREATE do not show that server."""
    fake = fake_discord
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    away = await fake.add_guild("Away", channels=["away"], members=[alice, bob], bot=False)
    places = [
        fake.add_group_dm(alice, bob, carol, name="trio"),
        fake.add_user_dm(alice, bob),
        fake.channel("away"),
    ]
    for place in places:
        with pytest.raises(discord.Forbidden) as sent:
            await bot.http.send_message(place.id, params=discord.http.handle_message_parameters(content="hi"))
        assert sent.value.code == 50001
        with pytest.raises(discord.Forbidden):
            await bot.http.get_channel(place.id)
        assert len(fake.take_rejections(50001)) == 2
        await fake.send_user_message(alice, place, "anyone there?")
    assert bot.get_guild(away.id) is None
    events = [e for s in fake.sessions.values() for e in s.events]
    assert not [e for e in events if e["t"] == "MESSAGE_CREATE"]
    assert [e["d"]["id"] for e in events if e["t"] == "GUILD_CREATE"] == [str(fake.guild.id)]


async def test_a_user_installed_command_in_a_group_dm(fake_discord: FakeDiscord, bot: PlacesBot) -> None:
    fake = fake_discord
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    trio = fake.add_group_dm(alice, bob, carol, name="trio")
    fake.install_for_user(alice)
    inter = await fake.run_command(alice, "table", channel=trio)
    table = await inter.answer()
    payload = delivered(fake, inter)
    assert payload["context"] == 2
    assert payload["authorizing_integration_owners"] == {"1": str(alice.id)}
    assert payload["app_permissions"] == str(
        P(attach_files=True, embed_links=True, mention_everyone=True).value
    )
    assert payload["channel"] == {
        "id": str(trio.id),
        "type": 3,
        "last_message_id": None,
        "flags": 0,
        "name": "trio",
        "icon": None,
        "owner_id": str(alice.id),
    }
    assert "guild_id" not in payload and "member" not in payload and payload["user"]["id"] == str(alice.id)
    [seen] = bot.seen
    assert seen.context.private_channel and seen.is_user_integration() and not seen.is_guild_integration()
    assert isinstance(seen.channel, discord.GroupChannel)
    assert table.channel_id == trio.id and table.visible_to is None
    assert fake.visible_messages(carol, trio) == [table]
    assert table.payload()["interaction_metadata"]["authorizing_integration_owners"] == {"1": str(alice.id)}

    # bob has not installed the app: his click still reaches it, authorized by alice's install
    click = await fake.click(bob, table, "join")
    joined = await click.answer()
    clicked = delivered(fake, click)
    assert clicked["authorizing_integration_owners"] == {"1": str(alice.id)}
    assert clicked["user"]["id"] == str(bob.id) and clicked["context"] == 2
    assert joined.content == "bob joins"


async def test_a_user_installed_command_in_a_server_without_the_bot(
    fake_discord: FakeDiscord, bot: PlacesBot
) -> None:
    """A server the bot is not in: context 0 with the guild's id, only the user's install, the bot's
    app_permissions those of @everyone an answer uses (Attach Files and Embed Links always)."""
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    away = await fake.add_guild("Away", channels=["away"], members=[alice, bob], bot=False)
    room = fake.channel("away")
    await fake.set_overwrite(room, away, deny=P(attach_files=True, embed_links=True, mention_everyone=True))
    fake.install_for_user(alice)
    inter = await fake.run_command(alice, "table", channel=room)
    table = await inter.answer()
    payload = delivered(fake, inter)
    assert payload["context"] == 0 and payload["guild_id"] == str(away.id)
    assert payload["authorizing_integration_owners"] == {"1": str(alice.id)}
    assert (
        int(payload["app_permissions"])
        == P(attach_files=True, embed_links=True, use_external_emojis=True).value
    )
    assert payload["member"]["user"]["id"] == str(alice.id)
    assert bot.seen[0].guild_id == away.id and not bot.seen[0].is_guild_integration()
    assert table.guild_id == away.id and table.visible_to is None  # @everyone may use external apps
    with pytest.raises(InteractionRefused, match="no installation"):
        await fake.run_command(bob, "table", channel=room)  # bob has not installed it


async def test_who_authorized_an_interaction_in_each_place(fake_discord: FakeDiscord, bot: PlacesBot) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    general, dm = fake.channel("general"), fake.dm_channel(alice)
    fake.install_for_user(alice)

    async def owners(name: str, user: Any, channel: Any) -> tuple[int, dict[str, str]]:
        inter = await fake.run_command(user, name, channel=channel)
        await inter.response()
        payload = delivered(fake, inter)
        return payload["context"], payload["authorizing_integration_owners"]

    gid, aid = str(fake.guild.id), str(alice.id)
    assert await owners("table", alice, general) == (0, {"0": gid, "1": aid})
    assert await owners("table", bob, general) == (0, {"0": gid})
    assert await owners("guildapp", alice, general) == (0, {"0": gid})
    assert await owners("table", alice, dm) == (1, {"0": "0", "1": aid})
    assert await owners("guildapp", alice, dm) == (1, {"0": "0"})
    assert await owners("table", alice, fake.add_user_dm(alice, bob)) == (2, {"1": aid})
    seen = bot.seen[0]
    assert seen.is_guild_integration() and seen.is_user_integration()


async def test_a_command_is_offered_only_where_it_is_declared(
    fake_discord: FakeDiscord, bot: PlacesBot
) -> None:
    """Where a command's contexts or installations do not reach, the client never shows it: the user
    action is refused and nothing reaches the bot."""
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    trio = fake.add_group_dm(alice, bob)
    await fake.add_guild("Away", channels=["away"], members=[alice], bot=False)
    fake.install_for_user(alice)
    before = interactions_sent(fake)
    refusals = [
        ("servers", alice, trio, "not offered in a private channel"),  # contexts [0]
        ("guildapp", alice, trio, "no installation"),  # integration_types [0]: no server install here
        ("guildapp", alice, fake.channel("away"), "no installation"),
        ("table", bob, trio, "no installation"),  # bob has not installed the app
    ]
    for name, user, channel, reason in refusals:
        with pytest.raises(InteractionRefused, match=reason):
            await fake.run_command(user, name, channel=channel)
    carol = fake.user("carol")
    fake.install_for_user(carol)
    with pytest.raises(InteractionRefused, match="not in channel"):
        await fake.run_command(carol, "table", channel=trio)  # not one of its users
    fake.uninstall_for_user(alice)
    with pytest.raises(InteractionRefused, match="no installation"):
        await fake.run_command(alice, "table", channel=trio)
    assert interactions_sent(fake) == before
    assert (await (await fake.run_command(alice, "servers")).answer()).content == "server"


async def test_a_sync_is_checked_against_the_applications_installation_contexts(
    fake_discord: FakeDiscord, bot: PlacesBot
) -> None:
    fake, app_id = fake_discord, fake_discord.application_id
    fake.integration_types = frozenset({0})  # the Developer Portal: no more user installs
    command = {"name": "solo", "description": "Play", "integration_types": [0, 1], "contexts": [0, 1, 2]}
    with pytest.raises(discord.HTTPException) as refused:
        await bot.http.bulk_upsert_global_commands(app_id, [command])
    assert (refused.value.status, refused.value.code) == (400, 50035)
    [rejection] = fake.take_rejections(50035)
    assert rejection.errors is not None
    assert rejection.errors["0"]["integration_types"]["1"]["_errors"][0]["code"] == "BASE_TYPE_CHOICES"
    with pytest.raises(discord.HTTPException):  # a context Discord does not have: its description says so
        await bot.http.bulk_upsert_global_commands(
            app_id, [{**command, "integration_types": [0], "contexts": [3]}]
        )
    assert fake.take_rejections(50035) and fake.description_violations
    fake.description_violations.clear()
    assert "table" in fake.global_commands  # what was synced before stays

    stored = await bot.http.bulk_upsert_global_commands(app_id, [{"name": "solo", "description": "Play"}])
    assert stored[0]["integration_types"] == [0] and stored[0]["contexts"] == [0, 1, 2]


async def test_the_command_list_of_a_place_is_what_the_client_offers_there(
    fake_discord: FakeDiscord, bot: PlacesBot
) -> None:
    """``offered_commands`` (the list a client shows, the sandbox page's command box) follows the rule
    that lets a command run: its contexts and an installation that reaches the place; user commands
    apart (``kind=2``)."""
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    trio = fake.add_group_dm(alice, bob)
    await fake.add_guild("Away", channels=["away"], members=[alice, bob], bot=False)
    away = fake.channel("away")
    fake.install_for_user(alice)
    everywhere = {"chatter", "park", "table", "think"}  # both installs, every context

    def offered(user: Any, channel: Any, kind: int = 1) -> set[str]:
        return {command["name"] for command in fake.offered_commands(user, channel, kind)}

    assert offered(alice, fake.channel("general")) == everywhere | {"servers", "guildapp"}
    assert offered(alice, trio) == everywhere  # a user install only: no server-only command
    assert offered(alice, away) == everywhere | {"servers"}  # guildapp needs the server install
    assert offered(bob, trio) == offered(bob, away) == set()  # Bob has not installed the app
    assert offered(bob, fake.channel("general")) == everywhere | {"servers", "guildapp"}
    assert offered(alice, trio, kind=2) == {"Challenge"}
    followups = {"think": 2, "park": 1}  # what each sends after its answer (awaited: nothing left running)
    for name in sorted(offered(alice, trio)):  # each listed command runs there
        options = {"times": 0} if name == "chatter" else {}
        inter = await fake.run_command(alice, name, options=options, channel=trio)
        assert (await inter.response()).type in (4, 5)
        if name in followups:
            await inter.followup(followups[name] - 1)
    fake.uninstall_for_user(alice)
    assert offered(alice, trio) == offered(alice, away) == set()
