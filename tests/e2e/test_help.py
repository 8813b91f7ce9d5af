"""``/help`` (issue 38 item 10a) through the fake Discord: a newcomer's first steps, privately, in their
own language, with the commands named as their Discord shows them; every lobby points to it."""

from __future__ import annotations

from typing import Any

from tests.e2e.reading import description_of

from .conftest import open_lobby, private_answer


async def test_help_is_a_localized_command(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    await skybo()
    command = next(c for c in fake.global_commands.values() if c["name"] == "help")
    assert command["name_localizations"]["fr"] == "aide"
    assert command["description"].startswith("First steps")
    assert command["description_localizations"]["fr"].startswith("Premiers pas")
    assert command.get("default_member_permissions") is None and not command.get("options")


async def test_help_shows_the_first_steps_privately_in_english_and_french(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    await skybo()
    alice, carol = fake.user("alice"), fake.user("carol")

    english = (await private_answer(await fake.run_command(alice, "help"))).text
    lines = english.splitlines()
    assert lines[0] == "## Skybo: first steps"  # a Components V2 heading
    assert "`/skyjo new` or `/skipbo new`" in lines[1] and "**Join**" in lines[1] and "**Start**" in lines[1]
    assert "**My grid**" in lines[2] and "**My hand**" in lines[2] and "private panel" in lines[2]
    assert "`/skybo display`" in lines[3]
    assert "`/skybo notify`" in lines[4]
    assert "**Rules**" in lines[5] and "`/skyjo rules`" in lines[5] and "`/skipbo rules`" in lines[5]
    assert "{" not in english  # every placeholder filled

    french = (await private_answer(await fake.run_command(carol, "help"))).text
    lines = french.splitlines()
    assert lines[0] == "## Skybo : premiers pas"
    assert "`/skyjo nouvelle` ou `/skipbo nouvelle`" in lines[1] and "**Rejoindre**" in lines[1]
    assert "**Ma grille**" in lines[2] and "**Ma main**" in lines[2] and "panneau privé" in lines[2]
    assert "`/skybo affichage`" in lines[3]
    assert "`/skybo notifications`" in lines[4]
    assert "`/skyjo règles`" in lines[5]
    assert "{" not in french and "vous" not in french.lower()  # the player is "tu"

    # In a direct message too: nothing there needs a server.
    in_dm = await private_answer(await fake.run_command(alice, "help", channel=fake.dm_channel(alice)))
    assert in_dm.text == english


async def test_the_lobby_points_to_help_in_the_servers_language(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    await skybo()
    lobby = await open_lobby(fake, fake.user("alice"))
    last = description_of(lobby).splitlines()[-1]
    assert last == "New here? `/help` shows the first steps, to you alone."
    fake.guild.preferred_locale = "fr"
    lobby = await open_lobby(fake, fake.user("bob"), fake.channel("games"))
    last = description_of(lobby).splitlines()[-1]
    assert last == "Première partie ? `/aide` montre les premiers pas, à toi seulement."
