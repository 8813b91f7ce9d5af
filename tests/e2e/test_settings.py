"""``/skybo settings`` (issue 28 item 2) through the fake Discord: only a server manager changes the
settings, privately; a new table gets the server's turn limit and may open only in its channels; the
public messages may be in a fixed language. In English and French."""

from __future__ import annotations

import random
from typing import Any

import discord
import pytest

from bot.service import Refused
from bot.service.ledger import GameLedger
from bot.storage import Seat
from bot.storage.settings import DEFAULTS, ServerSettings

from .conftest import finish_random_game, open_lobby, private_answer, start_table

REFUSED_EN = "Only someone who can manage this server may change its settings."
REFUSED_FR = "Seule une personne qui peut gérer ce serveur peut changer ses réglages."


def grant_manage_guild(fake: Any) -> None:
    # In the fake guild only the owner may manage the server; here @everyone may.
    everyone = next(r for r in fake.guild.roles if r.name == "@everyone")
    everyone.permissions |= discord.Permissions(manage_guild=True).value


async def settings(fake: Any, user: Any, **options: Any) -> str:
    """Run ``/skybo settings`` with ``options``; the private answer's text."""
    answer = await private_answer(await fake.run_command(user, "skybo", "settings", options=options))
    return str(answer.text)


async def test_only_a_server_manager_changes_the_settings(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    command = next(c for c in fake.global_commands.values() if c["name"] == "skybo")
    assert command.get("default_member_permissions") is None  # /skybo notify and display are for all
    # Everyone sees the command: the bot checks the permission, and that it is used in a server.
    alice, carol = fake.user("alice"), fake.user("carol")
    assert await settings(fake, alice, turn_limit=30) == REFUSED_EN
    assert await settings(fake, carol, language="fr") == REFUSED_FR
    assert await bot.service.storage.settings.get(fake.guild.id) == DEFAULTS
    in_dm = await fake.run_command(fake.owner, "skybo", "settings", channel=fake.dm_channel(fake.owner),
                                   options={"turn_limit": 30})  # fmt: skip
    assert (await private_answer(in_dm)).text.endswith("not in a direct message.")
    assert await bot.service.storage.settings.get(fake.guild.id) == DEFAULTS

    shown = await settings(fake, fake.owner)  # no options: the settings as they are
    assert shown.splitlines()[:4] == [
        "**Server settings**",
        "⏱ Turn limit of a new table: 2 min (the bot's default)",
        "📍 Games may be opened in: every channel",
        "🗣 Public messages in: the server's language",
    ]
    grant_manage_guild(fake)
    french = await settings(fake, carol, turn_limit=0)
    assert french.splitlines()[:2] == [
        "**Réglages du serveur**",
        "⏱ Temps par tour d'une nouvelle table : sans limite",
    ]
    assert await bot.service.storage.settings.get(fake.guild.id) == ServerSettings(turn_limit=0)


async def test_a_member_reads_the_settings_and_who_may_change_them(fake_discord: Any, skybo: Any) -> None:
    """Issue 47 item 9: a member who runs /skybo settings to look is shown them, read-only, with who may
    change them (was: only the refusal); an option given is still refused and changes nothing."""
    fake = fake_discord
    bot = await skybo()
    alice, carol = fake.user("alice"), fake.user("carol")
    games = fake.channel("games")
    await settings(fake, fake.owner, turn_limit=30, allow_channel=games, threads="on")
    stored = await bot.service.storage.settings.get(fake.guild.id)

    shown = (await settings(fake, alice)).splitlines()
    assert shown[:3] == [
        "**Server settings**",
        "⏱ Turn limit of a new table: 30 s",
        f"📍 Games may be opened in: <#{games.id}>",
    ]
    assert "🧵 Each game is played in a thread of its own" in shown
    assert shown[-1] == (
        "Only someone who can manage this server (the Manage Server permission) may change them."
    )
    assert "Change them with" not in "\n".join(shown)  # no way to change them is offered to a member
    french = (await settings(fake, carol)).splitlines()
    assert french[:2] == ["**Réglages du serveur**", "⏱ Temps par tour d'une nouvelle table : 30 s"]
    assert french[-1].startswith("Seule une personne qui peut gérer ce serveur")

    assert await settings(fake, alice, threads="off") == REFUSED_EN
    assert await bot.service.storage.settings.get(fake.guild.id) == stored
    owner_view = (await settings(fake, fake.owner)).splitlines()
    assert owner_view[-1] == "Change them with the options of /skybo settings."


async def test_the_turn_limit_and_channels_apply_to_new_tables(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    general, games = fake.channel("general"), fake.channel("games")
    shown = await settings(fake, fake.owner, turn_limit=30, allow_channel=games)
    assert "⏱ Turn limit of a new table: 30 s" in shown
    assert f"📍 Games may be opened in: <#{games.id}>" in shown

    # Elsewhere: refused privately, naming where tables may be opened, in the opener's language.
    refused = await private_answer(await fake.run_command(alice, "skyjo", "new", channel=general))
    assert (
        refused.text == f"Games cannot be opened in this channel on this server. Open one in: <#{games.id}>"
    )
    refused = await private_answer(await fake.run_command(carol, "skipbo", "new", channel=general))
    assert (
        refused.text.startswith("On ne peut pas ouvrir de partie dans ce salon")
        and f"<#{games.id}>" in refused.text
    )
    assert await bot.service.lobbies.open_in_channel(general.id) is None

    # In an allowed channel the table gets the server's turn limit, and the lobby says where games open.
    lobby = await open_lobby(fake, alice, games)
    stored = await bot.service.lobbies.open_in_channel(games.id)
    assert stored is not None and stored.options["turn_limit"] == 30
    assert "30 s per turn" in lobby.text
    assert f"On this server, games are opened in: <#{games.id}>" in lobby.text

    # A table's own turn limit wins over the server's.
    await settings(fake, fake.owner, allow_channel=general)
    await open_lobby(fake, bob, general, turn_limit=60)
    stored = await bot.service.lobbies.open_in_channel(general.id)
    assert stored is not None and stored.options["turn_limit"] == 60

    # Back to every channel (the bot's cache follows the database).
    await settings(fake, fake.owner, remove_channel=games, all_channels=True)
    assert await bot.service.storage.settings.get(fake.guild.id) == ServerSettings(turn_limit=30)
    assert bot.service.settings_of(fake.guild.id) == ServerSettings(turn_limit=30)


async def test_public_messages_in_a_fixed_language_across_a_restart(
    fake_discord: Any, skybo: Any, database: Any
) -> None:
    fake = fake_discord
    alice = fake.user("alice")
    assert fake.guild.preferred_locale == "en-US"
    first = database.bot()
    async with fake.running(first, sync_commands=True):
        shown = await settings(fake, fake.owner, language="fr")
        assert "🗣 Public messages in: French" in shown  # the answer is in the asker's language
        lobby = await open_lobby(fake, alice, computers=1)
        assert "par tour" in lobby.text and "per turn" not in lobby.text
        assert "Ordi 1 🤖 · normal" in lobby.text  # the computer's name and level too
        board = await (await fake.run_command(alice, "leaderboard")).original()
        assert not board.ephemeral and "Classement" in board.text, board.text
        assert "Les messages publics de ce serveur sont en français" in lobby.text
        ended = await (await fake.run_command(alice, "skyjo", "end")).original()
        assert not ended.ephemeral and "arrêtée par" in ended.text, ended.text  # public: in French

    # A new process reads the settings from the database before its first public message.
    bot = await skybo()
    assert bot.service.public_locale(fake.guild.id, "en-US") == "fr"
    await settings(fake, fake.owner, language="server")  # back to the server's own language
    lobby = await open_lobby(fake, fake.user("bob"))
    assert "per turn" in lobby.text and "🗣" not in lobby.text
    assert await bot.service.storage.settings.get(fake.guild.id) == DEFAULTS


async def test_games_with_computers_dealt_unrated_when_the_server_says_so(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    general, games = fake.channel("general"), fake.channel("games")
    shown = await settings(fake, fake.owner, rate_computers=False)
    assert "🤖 Games with computer players: not rated" in shown

    # The lobby says so before the start; with a computer seated at the deal the game is unrated.
    lobby = await open_lobby(fake, alice, general, computers=1)
    assert "🤖 On this server, a game with computer players is not rated" in lobby.text
    await (await fake.click(alice, lobby, next(c for c in lobby.custom_ids if c.endswith(":st")))).response()
    with_computer = await fake.wait_until(
        lambda: next((t.id for t in bot.service.tables.values() if t.stored.message_id == lobby.id), None),
        what="the game",
    )
    assert not (await GameLedger(bot.service.storage).get_game(with_computer)).rated
    # People only: rated as always.
    _, people_only = await start_table(fake, bot, bob, [carol], games)
    assert (await GameLedger(bot.service.storage).get_game(people_only)).rated

    grant_manage_guild(fake)
    french = await settings(fake, carol, rate_computers=True)
    assert "🤖 Parties avec des ordinateurs : classées" in french
    assert await bot.service.storage.settings.get(fake.guild.id) == DEFAULTS


async def test_an_open_lobby_follows_the_settings_and_a_rematch_their_channels(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, carol = fake.user("alice"), fake.user("carol")
    general, games = fake.channel("general"), fake.channel("games")
    lobby = await open_lobby(fake, alice, general, computers=1)
    assert "not rated" not in lobby.text
    await settings(fake, fake.owner, rate_computers=False)
    await fake.wait_until(
        lambda: "🤖 On this server, a game with computer players is not rated" in lobby.text,
        what="the open lobby redrawn with the new setting",
    )

    # A finished game in #general, then the server allows only #games: its rematch is refused there.
    rng = random.Random(7)
    seats = [Seat(0, "Carol", user_id=carol.id), Seat(1, "Bob", user_id=fake.user("bob").id)]
    await finish_random_game(
        bot.service.storage, rng, guild_id=fake.guild.id, channel_id=general.id, seats=seats, seed=3
    )
    [played] = await bot.service.storage.results.played(carol.id, fake.guild.id)
    game_id = played.game_id
    await settings(fake, fake.owner, allow_channel=games)
    with pytest.raises(Refused) as refused:
        await bot.service.rematch(game_id, carol.id)
    assert refused.value.key == "settings.error.channel"
    assert [lob.channel_id for lob in await bot.service.lobbies.list_open()] == [general.id]  # Alice's
