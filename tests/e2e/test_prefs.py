"""``/skybo notify`` and ``/skybo display`` (issue 28 items 3 and 7) through the fake Discord: anyone
changes their own choices, privately, in their language; they are stored and the same on every server;
a value the command does not offer changes nothing and gets a private reason."""

from __future__ import annotations

from typing import Any

from bot.storage.prefs import DEFAULT_PREFS, UserPrefs

from .conftest import private_answer
from .test_crafted_options import crafted, option


async def skybo_command(fake: Any, user: Any, sub: str, **options: Any) -> Any:
    return await private_answer(await fake.run_command(user, "skybo", sub, options=options))


async def test_each_player_sets_their_own_choices_in_their_language(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    command = next(c for c in fake.global_commands.values() if c["name"] == "skybo")
    assert command.get("default_member_permissions") is None  # notify and display are for everyone
    alice, carol = fake.user("alice"), fake.user("carol")

    answer = await skybo_command(fake, alice, "notify", state="off")
    assert answer.ephemeral and answer.visible_to == alice.id
    assert answer.text.splitlines() == [
        "**Your choices** (on every server)",
        "✉️ A direct message when your turn comes in a long game or your tournament table is seated: off",
        "🎨 Cards: classic colours",
        "🖼 Table: a picture",
        "Change them with /skybo notify and /skybo display.",
    ]
    answer = await skybo_command(fake, carol, "display", cards="colourblind", table="text")
    assert answer.text.splitlines()[:4] == [
        "**Tes choix** (sur tous les serveurs)",
        "✉️ Un message privé quand ton tour arrive dans une partie longue (1 heure ou plus par tour)"
        " ou qu'une table de tournoi t'attend : activé",
        "🎨 Cartes : daltonien (une forme par couleur)",
        "📝 Table : en mots, dans ton panneau privé",
    ]
    stored = await bot.service.storage.prefs.many([alice.id, carol.id])
    assert stored == {
        alice.id: UserPrefs(notify=False),
        carol.id: UserPrefs(cards="colourblind", table="text"),
    }

    shown = await skybo_command(fake, carol, "display")  # no option: shown, unchanged
    assert "🎨 Cartes : daltonien (une forme par couleur)" in shown.text
    await skybo_command(fake, alice, "notify", state="on")
    assert await bot.service.storage.prefs.get(alice.id) == DEFAULT_PREFS


async def test_a_value_not_offered_changes_nothing(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, carol = fake.user("alice"), fake.user("carol")
    for user, sub, name, value, reason in (
        (
            alice,
            "display",
            "cards",
            "neon",
            "The option 'cards' must be one of: classic, colour-blind (shapes and colours).",
        ),
        (
            carol,
            "notify",
            "state",
            "maybe",
            "L'option « état » doit être l'une de ces valeurs : activés, désactivés.",
        ),
    ):
        path = ("skybo", sub)
        answer = await (await crafted(fake, user, path, [option(fake, path, name, value)])).original()
        assert answer.ephemeral and answer.visible_to == user.id
        assert answer.text == reason, answer.text
    assert await bot.service.storage.prefs.many([alice.id, carol.id]) == {
        alice.id: DEFAULT_PREFS,
        carol.id: DEFAULT_PREFS,
    }
