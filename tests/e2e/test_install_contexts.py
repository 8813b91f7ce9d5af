"""Install contexts (issue 49) through the fake Discord: where each command is offered, and what it
answers where the bot is not a member.

The application may be installed to users (``integration_types=(0, 1)``, the Developer Portal's "User
Install" ticked). Alice (English) and Carol (French) installed Skybo to their account; Bob did not. The
places: a group DM of the three, and a server Skybo is not in ("Elsewhere"). There the fake offers
``/<game> new`` and the commands that only answer (``/help``, ``/leaderboard``...), never ``/skybo``;
``/<game> new`` opens its lobby as the command's own public answer (the bot cannot post there: the
table lives in the interaction's message, tests/e2e/test_token_tables.py plays it), and no request of the
bot touches the channel. In the bot's DM, a channel it may post in, the lobby is a message like a
server's. A ``/skybo settings`` reached there anyway (a crafted payload) is refused in one line too,
nothing stored. With User Install off, ``python -m bot sync`` declares the commands for servers only and
says so. The server-install experience is the rest of the suite, unchanged.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.client import SkyboBot
from bot.config import load_settings
from bot.i18n import translate as t
from bot.run import _sync
from bot.service.settings_book import DEFAULTS
from fakecord import FakeChannel, FakeDiscord, FakeInteraction, FakeMessage, FakeUser, InteractionRefused

from .conftest import private_answer

pytestmark = pytest.mark.fake_discord(integration_types=(0, 1))

Skybo = Callable[..., Awaitable[SkyboBot]]
EVERYWHERE = ([0, 1], [0, 1, 2])
SERVERS = ([0], [0, 1])  # /skybo: a server's own
# The right-click challenges (cogs/challenges.py): the server install, servers' channels, for now.
CHALLENGES = {"Play Skyjo with …": ([0], [0]), "Play Skip-Bo with …": ([0], [0])}


async def places(fake: FakeDiscord) -> tuple[FakeChannel, FakeChannel]:
    """Alice and Carol install Skybo; a group DM of the three and a server without the bot."""
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    for user in (alice, carol, fake.owner):
        fake.install_for_user(user)
    trio = fake.add_group_dm(alice, bob, carol, name="trio")
    await fake.add_guild("Elsewhere", channels=["elsewhere"], members=[alice, bob, carol], bot=False)
    return trio, fake.channel("elsewhere")


def channel_requests(fake: FakeDiscord, channel: FakeChannel) -> list[str]:
    """The bot's requests on ``channel``'s own routes (it may only answer interactions there)."""
    return [f"{r.method} {r.path}" for r in fake.requests if f"/channels/{channel.id}" in r.path]


async def test_a_user_install_is_offered_the_games_where_the_bot_is_not(
    fake_discord: FakeDiscord, skybo: Skybo
) -> None:
    fake = fake_discord
    bot = await skybo()
    synced = {name: (c["integration_types"], c["contexts"]) for name, c in fake.global_commands.items()}
    places_of = {"skybo": SERVERS, **CHALLENGES}
    assert synced == {name: places_of.get(name, EVERYWHERE) for name in synced}
    trio, elsewhere = await places(fake)
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    for place, (user, game) in ((trio, (alice, "skyjo")), (elsewhere, (carol, "skipbo"))):
        lobby = await (await fake.run_command(user, game, "new", channel=place)).original()
        assert not lobby.ephemeral and lobby.custom_ids  # the lobby is the command's own public answer
        assert await bot.service.kind_in_channel(place.id) == game
        with pytest.raises(InteractionRefused, match="skybo"):  # not offered there: no server install
            await fake.run_command(user, "skybo", "settings", channel=place)
        assert channel_requests(fake, place) == []
    with pytest.raises(InteractionRefused, match="no installation"):  # Bob did not install Skybo
        await fake.run_command(bob, "skyjo", "new", channel=trio)
    # The bot's DM: a channel it may post in: the lobby is a message there, as in a server.
    dm = fake.dm_channel(fake.owner)  # (Alice and Carol opened a table a moment ago: their cool-down)
    in_dm = await (await fake.run_command(fake.owner, "skyjo", "new", channel=dm)).original()
    assert not in_dm.ephemeral and in_dm.custom_ids, in_dm.content
    assert await bot.service.kind_in_channel(dm.id) == "skyjo"


async def read(
    fake: FakeDiscord, user: FakeUser, name: str, place: FakeChannel, **options: Any
) -> FakeMessage:
    inter: FakeInteraction = await fake.run_command(user, *name.split(), options=options, channel=place)
    message: FakeMessage = await inter.answer()
    return message


async def test_what_only_answers_works_where_the_bot_is_not(fake_discord: FakeDiscord, skybo: Skybo) -> None:
    """``/help``, ``/leaderboard`` (public), ``/stats``, ``/history`` and ``/<game> rules`` answer the
    interaction in a group DM and in a server without the bot, in the reader's language, and the bot
    sends nothing to those channels' own routes."""
    fake = fake_discord
    await skybo()
    trio, elsewhere = await places(fake)
    alice, carol = fake.user("alice"), fake.user("carol")
    for user, place in ((alice, trio), (carol, elsewhere)):
        help_answer = await read(fake, user, "help", place)
        assert help_answer.ephemeral and t("help.title", user.locale) in help_answer.text
        board = await read(fake, user, "leaderboard", place)
        assert not board.ephemeral and board.embeds, "a board is for the whole conversation"
        assert (await read(fake, user, "stats", place)).ephemeral
        assert (await read(fake, user, "history", place)).ephemeral
        rules = await read(fake, user, "skyjo rules", place)
        assert rules.ephemeral and rules.content
        assert (await read(fake, user, "skipbo end", place)).ephemeral  # no table here: refused privately
        assert channel_requests(fake, place) == []


async def crafted_settings(fake: FakeDiscord, user: FakeUser, place: FakeChannel) -> FakeInteraction:
    """``/skybo settings turn_limit:30`` where Discord would not offer it (a stale or modified client):
    the interaction built by hand, placed by the fake as the user's install reaches there."""
    command = fake.registered_command("skybo")
    assert command is not None
    option = {"name": "settings", "type": 1, "options": [{"name": "turn_limit", "type": 4, "value": 30}]}
    data = {"id": command["id"], "name": "skybo", "type": 1, "options": [option]}
    inter = FakeInteraction(fake, type=2, user=user, channel=place, data=data, command_name="skybo")
    sent: FakeInteraction = await fake._send_interaction(inter)
    return sent


async def test_a_server_command_reached_where_the_bot_is_not_changes_nothing(
    fake_discord: FakeDiscord, skybo: Skybo
) -> None:
    fake = fake_discord
    bot = await skybo()
    trio, elsewhere = await places(fake)
    owner, carol = fake.owner, fake.user("carol")  # the owner manages Elsewhere
    answer = await private_answer(await crafted_settings(fake, owner, elsewhere))
    assert answer.content == t("venue.refused.server_without_bot", owner.locale)
    assert await bot.service.read_settings(elsewhere.guild_id) == DEFAULTS
    answer = await private_answer(await crafted_settings(fake, carol, trio))
    assert answer.content == t("venue.refused.group_dm", carol.locale)
    assert answer.content.startswith("Je ne suis pas membre de cette conversation")
    for place in (trio, elsewhere):
        assert channel_requests(fake, place) == []


@pytest.mark.fake_discord()  # an application made before user installs: User Install off
async def test_sync_without_user_install_declares_the_commands_for_servers(
    fake_discord: FakeDiscord, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = fake_discord
    assert await _sync(load_settings({"DISCORD_TOKEN": fake.token}, dotenv=False), None) == 0
    synced = {name: (c["integration_types"], c["contexts"]) for name, c in fake.global_commands.items()}
    assert synced == {name: CHALLENGES.get(name, ([0], [0, 1])) for name in synced} and "skyjo" in synced
    out = capsys.readouterr().out
    assert "User Install is off for this application" in out and "/skyjo, /skipbo" in out
    assert (
        "/skybo" not in out.split("User Install is off", 1)[1].splitlines()[0]
    )  # /skybo was servers' already
