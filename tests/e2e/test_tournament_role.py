"""The tournament role (issue 41: "Manage Server, or a role the admins name") through the fake Discord:
``/skybo settings tournament_role:<role>`` names it (and ``clear_tournament_role`` takes it back), the
settings answer shows it, it survives a restart, a member with it creates and runs a tournament as a
server manager does, and one without it is refused privately with the reason, in English and French,
nothing changed."""

from __future__ import annotations

from typing import Any

from bot.storage.settings import DEFAULTS, ServerSettings
from bot.ui.tournaments import button_id

from .conftest import private_answer

NOT_ORGANISER_EN = (
    "Only someone who can manage this server, or has the role its admins named for tournaments,"
    " may create a tournament."
)
NOT_ORGANISER_FR = (
    "Seule une personne qui peut gérer ce serveur, ou qui a le rôle choisi pour les tournois,"
    " peut créer un tournoi."
)
NEW = {"game": "skyjo", "format": "swiss", "seats": 2, "rounds": 1}


async def _run(fake: Any, user: Any, command: str, **options: Any) -> Any:
    return await fake.run_command(user, "skybo", command, options=options, channel=fake.channel("games"))


async def _private(fake: Any, user: Any, command: str, **options: Any) -> str:
    return str((await private_answer(await _run(fake, user, command, **options))).text)


async def test_a_member_with_the_tournament_role_organises_across_a_restart(
    fake_discord: Any, skybo: Any, database: Any
) -> None:
    fake = fake_discord
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")  # carol reads French
    role = fake.add_role("Tournament crew", members=(bob,))
    first = database.bot()
    async with fake.running(first, sync_commands=True):
        # Without the role named, bob is no organiser.
        assert await _private(fake, bob, "tournament new", **NEW) == NOT_ORGANISER_EN
        # Only a server manager names it; @everyone is no role to name.
        refused = await _private(fake, alice, "settings", tournament_role=role)
        assert refused == "Only someone who can manage this server may change its settings."
        everyone = next(r for r in fake.guild.roles if r.id == fake.guild.id)
        refused = await _private(fake, fake.owner, "settings", tournament_role=everyone)
        assert refused == "Pick a role of this server (not @everyone) to organise tournaments."
        assert await first.service.storage.settings.get(fake.guild.id) == DEFAULTS
        shown = await _private(fake, fake.owner, "settings", tournament_role=role)
        assert f"🏆 Tournaments are organised by: server managers and <@&{role.id}>" in shown
        # Without the role: refused privately with the reason, in each one's language; nothing made.
        assert await _private(fake, alice, "tournament new", **NEW) == NOT_ORGANISER_EN
        assert await _private(fake, carol, "tournament new", **NEW) == NOT_ORGANISER_FR
        assert await first.service.storage.tournaments.open() == []

    # A new process reads the role from the database.
    bot = await skybo()
    assert await bot.service.storage.settings.get(fake.guild.id) == ServerSettings(tournament_role=role.id)
    signup = await (await _run(fake, bob, "tournament new", **NEW)).original()
    assert not signup.ephemeral and f"<@{bob.id}>" in signup.text  # bob is its organiser
    (held,) = await bot.service.storage.tournaments.open()
    for user in (alice, carol):
        await private_answer(await fake.click(user, signup, button_id(held.id, "join")))
    # A player without the role may not start it; bob may.
    early = await private_answer(await fake.click(carol, signup, button_id(held.id, "start")))
    assert early.text == (
        "Seule la personne qui organise le tournoi (ou qui gère le serveur, ou qui a le rôle des tournois)"
        " peut faire ça."
    )
    assert (await bot.service.tournament_view(held.id)).tournament.status == "signup"
    started = await private_answer(await fake.click(bob, signup, button_id(held.id, "start")))
    assert started.text.startswith("The tournament has started")
    # bob runs the tournament as its organiser: pause, resume, drop; alice (no role) may not.
    refused = await _private(fake, alice, "tournament pause")
    assert refused.startswith("Only the tournament's organiser")
    paused = await _private(fake, bob, "tournament pause")
    assert paused == "The tournament is paused: no new round until /skybo tournament resume."
    assert (await bot.service.tournament_view(held.id)).tournament.status == "paused"
    # The role cleared: bob is a player again, and may not open another tournament.
    shown = await _private(fake, fake.owner, "settings", clear_tournament_role=True)
    assert "🏆 Tournaments are organised by: server managers\n" in shown
    assert await bot.service.storage.settings.get(fake.guild.id) == DEFAULTS
    other = fake.channel("general")
    refused_new = await private_answer(
        await fake.run_command(bob, "skybo", "tournament new", options=NEW, channel=other)
    )
    assert refused_new.text == NOT_ORGANISER_EN
    fake.assert_clean()
