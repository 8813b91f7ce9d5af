"""Issue 28, item 1: every Skyjo engine option in ``/skyjo new``, through the fake Discord.

The grid (columns x rows), the initial reveals and the edition (classic, or Voyage: seed 002, the same
game for 2 to 4 players, SKY-PLAYERS-1) reach the lobby in words, the game is dealt with them and
played to the end; a Voyage lobby refuses a 5th seat (joining or adding a computer) with its reason,
also after a restart; an invalid combination gets one private reason in the user's language and no lobby.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.i18n import translate as t
from bot.service.ledger import GameLedger
from bot.ui.views import table_message as render_table
from fakecord import FakeDiscord, FakeInteraction, FakeUser

from .conftest import BotDatabase, act_of, open_lobby, open_panel, play_turns

VOYAGE_EN = "Skyjo Voyage, the travel edition, is played by 2 to 4 players"
VOYAGE_FR = "Skyjo Voyage, l'édition de voyage, se joue de 2 à 4 joueurs"


@pytest.mark.parametrize(
    ("columns", "rows", "reveals", "edition"),
    [(2, 2, 1, "voyage"), (5, 4, 0, "classic"), (3, 2, 5, "classic")],
)
async def test_a_game_with_another_grid_is_played_to_the_end(
    fake_discord: Any, skybo: Any, columns: int, rows: int, reveals: int, edition: str
) -> None:
    """SKY-SETUP-1 and SKY-SETUP-3 options: the lobby says them, every grid is dealt and shown with
    them (the panel within Discord's 5 rows of 5), and the game ends as any other."""
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    options = {"columns": columns, "rows": rows, "initial_reveals": reveals, "edition": edition}
    lobby = await open_lobby(fake, alice, score_limit=10, computers=1, **options)
    assert not lobby.ephemeral, lobby.text
    assert f"Grids of {columns} × {rows} cards ({columns * rows} each)." in lobby.text
    if reveals == 0:
        assert "Nobody turns a card face up before the first turn." in lobby.text
    elif reveals == 1:
        assert "Each player turns 1 card face up before the first turn." in lobby.text
    else:
        assert f"Each player turns {reveals} cards face up before the first turn." in lobby.text
    if edition == "voyage":
        assert "Edition: Skyjo Voyage, the travel edition, 2 to 4 players." in lobby.text
    else:
        assert "Edition: classic, 2 to 8 players." in lobby.text
    most = 4 if edition == "voyage" else 7 if (columns, rows) == (5, 4) else 8
    assert f"2 to {most} seats." in lobby.text
    # The options survive in the stored lobby (JSON), as the game will be dealt from them.
    stored_lobby = await bot.service.lobbies.open_in_channel(fake.channel("general").id)
    assert stored_lobby is not None and stored_lobby.options["edition"] == edition
    await fake.click(bob, lobby, lobby.custom_ids[0])
    await fake.wait_until(lambda: "Bob" in lobby.text, what="Bob in the lobby")
    start = next(c for c in lobby.custom_ids if c.endswith(":st"))
    await (await fake.click(alice, lobby, start)).response()
    game_id = await fake.wait_until(
        lambda: next((g.id for g in bot.service.tables.values() if g.stored.message_id == lobby.id), None),
        what="the game",
    )
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table")
    table = bot.service.tables[game_id]
    game = table.state
    assert (game.options.columns, game.options.rows) == (columns, rows)
    assert game.options.initial_reveals == reveals and game.options.edition == edition
    assert all(len(grid) == columns * rows for grid in game.grids)
    if reveals == 0:
        assert game.phase == "play"  # nobody has a card to turn: the first turn is dealt at once
    # The panel shows the grid as it lies: one row of buttons per grid row, one row of actions.
    panel = await open_panel(fake, alice, lobby)
    assert len(panel.components) == rows + 1
    assert all(len(row["components"]) == columns for row in panel.components[:rows])
    # The table's full text (without its picture, or read in words) shows the grid's rows.
    full = render_table(table, "en-US").embed or {}
    grid_text = next(f["value"] for f in full["fields"] if "Alice" in f["name"])
    assert len(grid_text.strip("`\n").split("\n")) == rows

    clicks = await play_turns(fake, bot, game_id, lobby, [alice, bob], random.Random(11))
    assert clicks > 0
    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in lobby.custom_ids), what="Rematch")
    stored = await GameLedger(bot.service.storage).get_game(game_id)
    assert stored.status == "finished" and stored.state.is_over and max(stored.state.totals) >= 10
    assert stored.options["edition"] == edition and stored.options["columns"] == columns
    assert "Final standings" in lobby.text


async def test_a_voyage_lobby_refuses_a_fifth_seat_in_french_and_english(
    fake_discord: Any, skybo: Any, database: BotDatabase
) -> None:
    """SKY-PLAYERS-1: Skyjo Voyage seats 2 to 4; the lobby says so, and refuses a 5th seat, joining or
    a computer, with the reason in the clicker's language, also after a restart (the edition is stored
    with the lobby)."""
    fake = fake_discord
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")

    async def refused(user: Any, lobby: Any, custom_id: str, reason: str) -> None:
        answer = await (await fake.click(user, lobby, custom_id)).answer()
        assert answer.ephemeral and answer.visible_to == user.id, answer.text
        assert reason in answer.text, answer.text

    first = database.bot()
    async with fake.running(first, sync_commands=True):
        lobby = await open_lobby(fake, alice, edition="voyage", computers=2)
        assert not lobby.ephemeral and "Edition: Skyjo Voyage" in lobby.text
        assert "2 to 4 seats." in lobby.text  # the lobby's own line says the edition's table size
        join = next(c for c in lobby.custom_ids if c.endswith(":jn"))
        add_ai = next(c for c in lobby.custom_ids if c.endswith(":ai"))
        await (await fake.click(carol, lobby, join)).response()
        await fake.wait_until(lambda: "Carol" in lobby.text, what="Carol seated")  # the 4th seat
        before = lobby.text
        await refused(bob, lobby, join, VOYAGE_EN)
        await refused(carol, lobby, add_ai, VOYAGE_FR)
        await refused(alice, lobby, add_ai, VOYAGE_EN)
        stored = await first.service.lobbies.open_in_channel(fake.channel("general").id)
        assert stored is not None and len(stored.seats) == 4 and lobby.text == before

    # A new process on the same database: the stored edition still limits the table.
    second = await skybo()
    await refused(bob, lobby, join, VOYAGE_EN)
    await refused(carol, lobby, add_ai, VOYAGE_FR)
    stored = await second.service.lobbies.open_in_channel(fake.channel("general").id)
    assert stored is not None and len(stored.seats) == 4 and stored.options["edition"] == "voyage"


@pytest.mark.parametrize(
    ("options", "english", "french"),
    [
        ({"edition": "voyage", "computers": 4}, VOYAGE_EN, VOYAGE_FR),
        (
            {"columns": 2, "rows": 2, "initial_reveals": 4},
            "A 2 × 2 grid lets each player turn at most 3 cards face up before the first turn",
            "Une grille de 2 × 2 permet à chacun de retourner au plus 3 cartes avant le premier tour",
        ),
        (
            {"columns": 5, "rows": 4, "computers": 7},
            "With grids of 5 × 4, the 150 cards are enough for 7 players at most",
            "Avec des grilles de 5 × 4, les 150 cartes suffisent pour 7 joueurs au plus",
        ),
    ],
)
async def test_an_invalid_combination_gets_one_reason_and_no_lobby(
    fake_discord: Any, skybo: Any, options: dict[str, Any], english: str, french: str
) -> None:
    fake = fake_discord
    bot = await skybo()
    for user, reason in ((fake.user("alice"), english), (fake.user("carol"), french)):
        answer = await open_lobby(fake, user, **options)
        assert answer.ephemeral and answer.visible_to == user.id, answer.text
        assert reason in answer.text, answer.text
        assert answer.text != t("table.error.internal", user.locale)
    assert await bot.service.lobbies.open_in_channel(fake.channel("general").id) is None


async def crafted_new(fake: FakeDiscord, user: FakeUser, options: list[dict[str, Any]]) -> FakeInteraction:
    """``/skyjo new`` with exactly ``options``, as a modified client sends it (not checked by the fake)."""
    command = fake.registered_command("skyjo", fake.guild.id)
    data: dict[str, Any] = {
        "id": command["id"],
        "name": "skyjo",
        "type": 1,
        "options": [{"name": "new", "type": 1, "options": options}],
    }
    if command.get("guild_id"):
        data["guild_id"] = command["guild_id"]
    inter = FakeInteraction(
        fake, type=2, user=user, channel=fake.channel("general"), data=data, command_name="skyjo"
    )
    sent: FakeInteraction = await fake._send_interaction(inter)
    return sent


async def test_a_crafted_edition_or_grid_is_refused(fake_discord: Any, skybo: Any) -> None:
    """A modified client: an edition that is not one of the choices, a grid outside the declared range."""
    fake = fake_discord
    bot = await skybo()
    alice, carol = fake.user("alice"), fake.user("carol")
    command = fake.registered_command("skyjo", fake.guild.id)
    new = next(o for o in command["options"] if o["name"] == "new")
    by_name = {o["name"]: o for o in new["options"]}
    assert [c["value"] for c in by_name["edition"]["choices"]] == ["classic", "voyage"]
    assert by_name["edition"]["choices"][1]["name_localizations"]["fr"] == "voyage (2 à 4 joueurs)"
    assert (by_name["columns"]["min_value"], by_name["columns"]["max_value"]) == (2, 5)
    assert (by_name["rows"]["min_value"], by_name["rows"]["max_value"]) == (2, 4)
    cases = [
        ({"name": "edition", "type": 3, "value": "deluxe"}, "choose one of classic, voyage", "choisis parmi"),
        ({"name": "columns", "type": 4, "value": 6}, "'columns' must be between 2 and 5", "entre 2 et 5"),
        ({"name": "rows", "type": 4, "value": 1}, "'rows' must be between 2 and 4", "entre 2 et 4"),
        ({"name": "initial_reveals", "type": 4, "value": 12}, "between 0 and 11", "entre 0 et 11"),
    ]
    for option, english, french in cases:
        for user, text in ((alice, english), (carol, french)):
            answer = await (await crafted_new(fake, user, [option])).original()
            assert answer.ephemeral and answer.visible_to == user.id, answer.text
            assert text in answer.text, answer.text
    assert await bot.service.lobbies.open_in_channel(fake.channel("general").id) is None
