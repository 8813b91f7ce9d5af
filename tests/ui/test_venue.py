"""Where an interaction happens (bot/ui/venue.py) and where each command works (bot/ui/installs.py),
read from real discord.py interactions built from the payloads Discord sends in each place (its docs,
Receiving and Responding: ``context``, ``authorizing_integration_owners``, the partial ``channel``).
The same places are played end to end through the fake Discord in tests/e2e/test_install_contexts.py."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.i18n import LANGUAGES, template
from bot.service import Refused
from bot.ui import installs
from bot.ui.venue import BOT_DM, GROUP_DM, KINDS, SERVER, SERVER_WITHOUT_BOT, Venue

BOT, ALICE, BOB, GUILD = "100", "11", "12", "500"
GROUP_DM_CHANNEL, DM_CHANNEL, TEXT_CHANNEL = 3, 1, 0


def _user(user_id: str) -> dict[str, Any]:
    return {"id": user_id, "username": f"u{user_id}", "discriminator": "0", "avatar": None}


@pytest.fixture
def state() -> Iterator[Any]:
    """A discord.py connection state, its bot user known (as after READY); nothing connects."""
    client = discord.Client(intents=discord.Intents(guilds=True))
    bot: Any = {**_user(BOT), "bot": True}
    client._connection.user = discord.ClientUser(state=client._connection, data=bot)
    yield client._connection


def interaction(
    state: Any,
    context: int | None,
    owners: dict[str, str],
    *,
    channel_type: int = TEXT_CHANNEL,
    user: str = ALICE,
) -> discord.Interaction[Any]:
    """``/help`` run by ``user`` with Discord's payload for that place (``context`` None: not sent)."""
    channel: dict[str, Any] = {"id": "700", "type": channel_type}
    if channel_type == GROUP_DM_CHANNEL:
        channel |= {"name": "trio", "owner_id": ALICE, "flags": 0}
    elif channel_type == DM_CHANNEL:
        channel["recipients"] = [_user(BOB if user == ALICE else ALICE)]
    payload: dict[str, Any] = {
        "id": "900",
        "application_id": BOT,
        "type": 2,
        "token": "token",
        "version": 1,
        "data": {"id": "800", "name": "help", "type": 1},
        "channel_id": "700",
        "channel": channel,
        "locale": "en-US",
        "entitlements": [],
        "authorizing_integration_owners": owners,
        "app_permissions": "0",
        "attachment_size_limit": 10 * 1024 * 1024,
    }
    if context is not None:
        payload["context"] = context
    if channel_type == TEXT_CHANNEL:
        channel |= {"guild_id": GUILD, "name": "general", "position": 0, "permission_overwrites": []}
        member = {"user": _user(user), "roles": [], "joined_at": "2024-01-01T00:00:00+00:00", "deaf": False,
                  "mute": False, "flags": 0, "permissions": "0"}  # fmt: skip
        payload |= {
            "guild_id": GUILD,
            "guild": {"id": GUILD, "locale": "en-US", "features": []},
            "member": member,
        }
    else:
        payload["user"] = _user(user)
    data: Any = payload
    return discord.Interaction(data=data, state=state)


# (context, owners, channel type, who) -> the place, whether the bot may post there
PLACES = [
    ((0, {"0": GUILD}, TEXT_CHANNEL, ALICE), SERVER, True),
    ((0, {"0": GUILD, "1": ALICE}, TEXT_CHANNEL, ALICE), SERVER, True),  # both installs
    ((0, {"1": ALICE}, TEXT_CHANNEL, ALICE), SERVER_WITHOUT_BOT, False),
    ((0, {"1": ALICE}, TEXT_CHANNEL, BOB), SERVER_WITHOUT_BOT, False),  # Bob clicks Alice's message
    ((1, {"0": "0"}, DM_CHANNEL, ALICE), BOT_DM, True),  # the guild install: a server shared with the bot
    ((1, {"1": ALICE}, DM_CHANNEL, ALICE), BOT_DM, True),
    ((2, {"1": ALICE}, GROUP_DM_CHANNEL, ALICE), GROUP_DM, False),
    ((2, {"1": ALICE}, GROUP_DM_CHANNEL, BOB), GROUP_DM, False),
    ((2, {"1": ALICE}, DM_CHANNEL, ALICE), GROUP_DM, False),  # a DM between two users
    ((None, {"0": GUILD}, TEXT_CHANNEL, ALICE), SERVER, True),  # no context sent: placed by the rest
    ((None, {"1": ALICE}, GROUP_DM_CHANNEL, ALICE), GROUP_DM, False),
]


@pytest.mark.parametrize(("sent", "kind", "can_post"), PLACES)
def test_the_place_is_read_from_the_interaction(state: Any, sent: Any, kind: str, can_post: bool) -> None:
    context, owners, channel_type, user = sent
    venue = Venue.of(interaction(state, context, owners, channel_type=channel_type, user=user))
    assert venue == Venue(kind, can_post)  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        venue.bot_can_post = True  # type: ignore[misc]


def _declared(declaration: dict[str, Any]) -> app_commands.Group:
    return app_commands.Group(name="probe", description="A probe", **declaration)


def test_each_declaration_reaches_its_places() -> None:
    """``everywhere`` reaches every kind of place; ``servers`` a server with the bot and the bot's DM."""
    everywhere, servers = _declared(installs.everywhere()), _declared(installs.servers())
    for kind in KINDS:
        venue = Venue(kind, kind in (SERVER, BOT_DM))
        assert installs.reaches(everywhere.allowed_installs, everywhere.allowed_contexts, venue)
        reached = installs.reaches(servers.allowed_installs, servers.allowed_contexts, venue)
        assert reached == (kind in (SERVER, BOT_DM)), kind
    assert installs.reaches(None, None, Venue(GROUP_DM, False))  # undeclared: Discord's default


def test_a_command_reached_where_it_is_not_declared_is_refused(state: Any) -> None:
    servers, everywhere = _declared(installs.servers()), _declared(installs.everywhere())
    away = interaction(state, 0, {"1": ALICE})
    with pytest.raises(installs.PlaceRefused) as refused:
        installs.check_place(servers, away)
    assert isinstance(refused.value.original, Refused)
    assert refused.value.original.key == "venue.refused.server_without_bot"
    installs.check_place(everywhere, away)  # declared there: nothing raised
    installs.check_place(servers, interaction(state, 0, {"0": GUILD}))


def test_an_application_without_user_install_gets_server_commands() -> None:
    """``fit``: no user install, no private channel; left as declared when users may install the app."""
    everywhere, servers = _declared(installs.everywhere()), _declared(installs.servers())
    assert installs.fit([everywhere, servers], users=True) == []
    assert everywhere.allowed_installs is not None and everywhere.allowed_installs.to_array() == [0, 1]
    assert installs.fit([everywhere, servers], users=False) == ["probe"]
    assert everywhere.allowed_installs.to_array() == [0]
    assert everywhere.allowed_contexts.to_array() == [0, 1]  # type: ignore[union-attr]
    assert servers.allowed_installs.to_array() == [0]  # type: ignore[union-attr]
    assert installs.fit([everywhere, servers], users=False) == []  # once is enough


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_place_has_its_one_line(language: str) -> None:
    """A refusal for each kind of place, in both languages, each one line."""
    keys = [installs.REFUSED.format(kind=kind) for kind in KINDS]
    for key in keys:
        text = template(key, language)
        assert text != key and "\n" not in text and len(text) < 200, (language, key)
