"""French says "tu" and genders no player (issue 38 item 3), through the fake Discord with the real bot.

Carol reads French, Alice English. The private answers of ``/skybo affichage`` and ``/skybo
notifications`` say "tu"; a Skip-Bo panel says "Ton équipe : Alice joue"; a seat the host gave to a
computer is said as such (never "est parti", never "left"); the words table says what the number is
(the cards showing add up to it); ``/skybo réglages`` and its ``état`` option are synced with their
accents, and every French name and description Discord received passes the catalogue's check
(``tests/i18n/test_french.py``).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from bot.command_check import name_problem
from tests.i18n.test_french import ONE_READER, french_problems

from .conftest import button, open_lobby, private_answer, reveal_own_cards, start_table
from .skipbo_helpers import Clicker, start_skipbo
from .test_display import words_of
from .test_prefs import skybo_command
from .test_settings import grant_manage_guild, settings
from .test_timers import leave_table


async def test_display_notify_and_settings_answer_with_tu(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    await skybo()
    carol = fake.user("carol")
    assert carol.locale == "fr"
    answer = await skybo_command(fake, carol, "notify", state="off")
    assert answer.text.splitlines() == [
        "**Tes choix** (sur tous les serveurs)",
        "✉️ Un message privé quand ton tour arrive dans une partie longue"
        " ou qu'une table de tournoi t'attend : désactivé",
        "🎨 Cartes : couleurs classiques",
        "🖼 Table : une image",
        "Change-les avec /skybo notifications et /skybo affichage.",
    ]
    answer = await skybo_command(fake, carol, "display", table="text")
    assert "📝 Table : en mots, dans ton panneau privé" in answer.text.splitlines()
    assert french_problems(answer.text) == []
    grant_manage_guild(fake)
    shown = await settings(fake, carol)
    assert "Change-les avec les options de /skybo réglages." in shown and french_problems(shown) == []


def _localized(command: dict[str, Any]) -> list[tuple[str, str]]:
    """Every French (name, description) Discord holds for a command, its options and choices."""
    found = [("name", command["name_localizations"]["fr"])] if command.get("name_localizations") else []
    if (command.get("description_localizations") or {}).get("fr"):
        found.append(("description", command["description_localizations"]["fr"]))
    for choice in command.get("choices") or []:
        found.append(("choice", (choice.get("name_localizations") or {}).get("fr", choice["name"])))
    for option in command.get("options") or []:
        found.extend(_localized(option))
    return found


async def test_synced_french_commands_have_their_accents_and_say_tu(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    await skybo()
    commands = {c["name"]: c for c in fake.global_commands.values()}
    subs = {o["name"]: o for o in commands["skybo"]["options"]}
    assert subs["settings"]["name_localizations"]["fr"] == "réglages"
    (state,) = subs["notify"]["options"]
    assert state["name_localizations"]["fr"] == "état"
    texts = [text for command in commands.values() for text in _localized(command)]
    assert len(texts) > 50  # the walk really reaches the options
    assert [(kind, text) for kind, text in texts if french_problems(text)] == []
    # A slash command's name is one lowercase word; a user command's ("Jouer au … avec …") may be words.
    slash = [_localized(c) for c in commands.values() if c.get("type", 1) == 1]
    assert [text for found in slash for kind, text in found if kind == "name" and name_problem(text)] == []


async def test_the_skipbo_panel_says_ton_equipe(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo(images=False)
    alice, carol = fake.user("alice"), fake.user("carol")
    # Seats: Alice, Computer 1, Carol, Computer 2: Alice & Carol against the two computers.
    table_message, game_id = await start_skipbo(
        fake, bot, alice, [carol], add_computers=1, stock_size=5, teams=True, computers=1, turn_limit=0
    )
    table = bot.service.tables[game_id]
    assert table.state.partner(0) == 2
    clicker = Clicker(fake, bot, game_id, table_message, [alice, carol], random.Random(5))
    await clicker.play(until=lambda: table.state.turn == 0)
    panel = await private_answer(await fake.click(carol, table_message, button(table_message, "op")))
    assert (
        "Ton équipe : Alice joue (Alice peut jouer ton stock et tes piles de défausse)."
        " Clique sur Actualiser pour suivre." in panel.text
    ), panel.text
    assert "coéquipier" not in panel.text and " il " not in panel.text
    assert any(str(label).startswith("Stock allié : ") for label in panel.button_labels), panel.button_labels
    # The English counterpart is unchanged.
    await clicker.play(until=lambda: table.state.turn == 2)
    panel = await private_answer(await fake.click(alice, table_message, button(table_message, "op")))
    assert "Your partner Carol is playing (they may play your stock and discard piles)." in panel.text


LEFT = {
    "en-US": "Bob 🤖 left: a computer player takes the seat.",
    "fr": "Bob 🤖 a quitté la table : un joueur ordinateur prend sa place.",
}
KICKED = {
    "en-US": "The host gave Carol 🤖's seat to a computer player.",
    "fr": "Carol 🤖 : l'hôte a confié cette place à un joueur ordinateur.",
}


@pytest.mark.parametrize("language", ["en-US", "fr"])
async def test_a_kicked_player_is_not_said_to_have_left(fake_discord: Any, skybo: Any, language: str) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    if language == "fr":  # the public table in French
        await settings(fake, fake.owner, language="fr")
    table_message, game_id = await start_table(fake, bot, alice, [bob, carol], turn_limit=0)
    table = bot.service.tables[game_id]
    await leave_table(fake, bob, table_message)
    await bot.presenter.flush()
    await fake.wait_until(lambda: LEFT[language] in table_message.text, what="Bob's leave said")
    await (await fake.run_command(alice, "skyjo", "kick", options={"player": carol})).original()
    carol_seat = table.seat_of(carol.id)
    await fake.wait_until(lambda: carol_seat in table.replaced(), what="Carol replaced")
    await bot.presenter.flush()

    def said() -> str:
        """Every version the table message had: the table shows its last three moves only, and the
        computers now in Bob's and Carol's seats play on at once, so the kick can scroll away."""
        return "\n".join(
            [json.dumps(shown, ensure_ascii=False) for shown in table_message.history] + [table_message.text]
        )

    await fake.wait_until(lambda: KICKED[language] in said(), what="the kick said")
    assert "Carol 🤖 left" not in said() and "Carol 🤖 a quitté" not in said()
    assert " est parti" not in said()


@pytest.mark.parametrize("username", ["alice", "carol"])
async def test_the_words_table_says_the_cards_showing_add_up(
    fake_discord: Any, skybo: Any, username: str
) -> None:
    fake = fake_discord
    bot = await skybo()
    user, bob = fake.user(username), fake.user("bob")
    await skybo_command(fake, user, "display", table="text")
    table_message, game_id = await start_table(fake, bot, user, [bob], turn_limit=0)
    table = bot.service.tables[game_id]
    panel = await reveal_own_cards(fake, user, table_message, table)
    await bot.presenter.flush()
    seat = table.seat_of(user.id)
    assert seat is not None
    showing = sum(
        v or 0 for v, up in zip(table.state.grids[seat], table.state.face_up[seat], strict=True) if up
    )
    said = (
        f"**{user.global_name}** — 0 points, showing {showing}"
        if username == "alice"
        else f"**{user.global_name}** — 0 point, total visible : {showing}"
    )
    words = words_of(panel, user.locale)
    assert any(line.endswith(said) for line in words), words
    assert not any(re.search(r"\d visibles", line) for line in words)


async def test_a_public_lobby_addresses_no_one_reader(fake_discord: Any, skybo: Any) -> None:
    """Issue 47 item 10: the French lobby said "puis l'ordinateur joue à ta place" to everyone in the
    channel; a lobby (its turn limit, a long game's, the pointer to /aide) now says "tu" to nobody."""
    fake = fake_discord
    fake.guild.preferred_locale = "fr"
    await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    short = await open_lobby(fake, alice, turn_limit=30)
    long = await open_lobby(fake, bob, fake.channel("games"), turn_limit=3600)
    assert "⏱ 30 s par tour ; au-delà, l'ordinateur joue le tour" in short.text
    assert "⏱ 1 heure par tour ; au-delà, l'ordinateur joue le tour" in long.text
    for lobby in (short, long):
        assert not ONE_READER.search(lobby.text), lobby.text
