"""French and English side by side: each player reads their own language, the table the server's."""

from __future__ import annotations

from typing import Any

from .conftest import button, open_panel, start_table


async def test_a_french_and_an_english_player_each_read_their_own_language(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, carol = fake.user("alice"), fake.user("carol")
    assert carol.locale == "fr" and alice.locale == "en-US"
    table_message, _ = await start_table(fake, bot, alice, [carol])

    english = await open_panel(fake, alice, table_message)
    french = await open_panel(fake, carol, table_message)
    assert "Your grid" in english.text and "Ta grille" not in english.text
    assert "Ta grille" in french.text and "Your grid" not in french.text
    # The public table follows the server's locale (English here) whoever clicked last.
    assert "My grid" in table_message.button_labels

    # A private answer is in the clicker's language too: Carol asks for the rules.
    rules = await (await fake.click(carol, table_message, button(table_message, "ru"))).original()
    assert rules.ephemeral and rules.visible_to == carol.id
    assert "manche" in rules.text.lower() and "round" not in rules.text.lower()


async def test_commands_and_their_options_have_french_names(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    await skybo()
    commands = {c["name"]: c for c in fake.global_commands.values()}
    for group in ("skyjo", "skipbo"):
        command = commands[group]
        assert command["description_localizations"]["fr"]
        new = next(o for o in command["options"] if o["name"] == "new")
        assert new["name_localizations"]["fr"] == "nouvelle"
        for option in new["options"]:
            assert option["name_localizations"]["fr"], option["name"]
            assert option["description_localizations"]["fr"], option["name"]
            for choice in option.get("choices", []):
                assert choice["name_localizations"]["fr"], choice["name"]
    level = next(o for o in next(o for o in commands["skyjo"]["options"] if o["name"] == "new")["options"]
                 if o["name"] == "level")  # fmt: skip
    assert level["name_localizations"]["fr"] == "niveau"
    assert {c["name_localizations"]["fr"] for c in level["choices"]} == {"facile", "normal", "difficile"}
