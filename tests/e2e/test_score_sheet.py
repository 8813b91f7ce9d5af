"""The score sheet and /history through the fake Discord with the real bot (issue 28, item 6).

Two people play a Skyjo game by clicking: between rounds the table message shows every round's
scores per player; at the end the whole sheet with the winner and the game's id. ``/history`` then
lists the game with that id, privately, in English and in French; a user without games is told so;
another server's games are not listed, and outside a server the command says why.
"""

from __future__ import annotations

import random
from typing import Any

from bot.service.ledger import GameLedger
from bot.storage import Seat, Storage
from fakecord import FakeMessage, FakeUser
from tests.e2e.reading import fields_of, footer_of

from .conftest import act_of, play_turns, start_table


async def command(fake: Any, who: FakeUser, name: str, channel: Any = None, **options: Any) -> FakeMessage:
    inter = await fake.run_command(who, name, options=options, channel=channel)
    message: FakeMessage = await inter.original()
    return message


def sheet_fields(message: FakeMessage) -> list[dict[str, str]]:
    fields = [{"name": n, "value": v} for n, v in fields_of(message).items()]
    return [f for f in fields if f["name"].startswith(("Score sheet", "Feuille de marque"))]


def block_rows(field: dict[str, str]) -> list[list[str]]:
    block = field["value"].split("```")[1].strip("\n")
    return [line.split() for line in block.splitlines()]


async def finish_elsewhere(storage: Storage, guild_id: int, user: FakeUser, channel: int) -> int:
    """A finished game of ``user`` on another server (written through storage, as the bot would)."""
    seats = [Seat(0, user.global_name or user.username, user_id=user.id), Seat(1, "C", ai_level="easy")]
    stored = await GameLedger(storage).create_game(
        guild_id=guild_id,
        channel_id=channel,
        kind="skyjo",
        seats=seats,
        seed=channel,
        options={"score_limit": 10},
    )
    rng = random.Random(channel)
    while not stored.state.is_over:
        seat = rng.choice(stored.state.seats_to_act())
        await GameLedger(storage).apply_action(stored, seat, rng.choice(stored.state.legal_actions(seat)))
    return stored.id


async def test_the_sheet_between_rounds_and_at_the_end_then_history(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    storage = bot.storage
    assert storage is not None
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")  # carol reads French
    table_message, game_id = await start_table(
        fake, bot, alice, [bob], score_limit=300
    )  # a round scores at most 288: round 1 never ends it
    await bot.presenter.flush()
    assert sheet_fields(table_message) == []  # no round is over yet: nothing new on the table

    def between_rounds() -> bool:
        table = bot.service.tables.get(game_id)
        return table is not None and table.state.phase == "round_over"

    rng = random.Random(5)
    await play_turns(fake, bot, game_id, table_message, [alice, bob], rng, until=between_rounds)
    live = bot.service.tables.get(game_id)
    if live is not None:  # the first round did not end the game: the sheet shows it, no winner yet
        await bot.presenter.flush()
        (sheet,) = sheet_fields(table_message)
        assert sheet["name"] == "Score sheet" and "🏆" not in sheet["value"]
        head, *lines = block_rows(sheet)
        rounds = live.state.rounds
        assert head == [f"R{n}" for n in range(1, len(rounds) + 1)] + ["|", "Total"]
        for seat, (user, line) in enumerate(zip((alice, bob), lines, strict=True)):
            assert line == [
                user.global_name,
                *(str(r.scores[seat]) for r in rounds),
                "|",
                str(live.state.totals[seat]),
            ]
        await play_turns(fake, bot, game_id, table_message, [alice, bob], rng)

    # The end: the whole sheet, the winner marked and named, the game's id in the footer.
    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="Rematch")
    await bot.presenter.flush()
    stored = await GameLedger(storage).get_game(game_id)
    game = stored.state
    sheets = sheet_fields(table_message)  # eight rounds a field, every round shown
    assert len(sheets) == -(-len(game.rounds) // 8)
    # One winner, or two on a tie (the moves depend on what each panel showed when clicked: a loaded
    # run's game ended level).
    winners = game.winners()
    named = ", ".join((alice, bob)[seat].global_name for seat in winners)
    assert sheets[-1]["name"].endswith(f"winner: {named}" if len(winners) == 1 else f"winners: {named}")
    heads = [block_rows(sheet)[0] for sheet in sheets]
    assert [cell for head in heads for cell in head] == [f"R{n}" for n in range(1, len(game.rounds) + 1)] + [
        "|",
        "Total",
    ]
    for seat in range(2):
        cells = [cell for sheet in sheets for cell in block_rows(sheet)[1 + seat][1:]]
        expected = [str(r.scores[seat]) for r in game.rounds] + ["|", str(game.totals[seat])]
        assert cells == expected + (["🏆"] if seat in winners else [])
    assert footer_of(table_message) == f"Game #{game_id} · /history lists your games"
    assert "Final standings" in table_message.text and "Rating changes" in table_message.text

    # Another server's game of Alice's is stored, and one more game on this server.
    elsewhere = await finish_elsewhere(storage, fake.guild.id + 1, alice, 9_100)
    here = await finish_elsewhere(storage, fake.guild.id, alice, 9_200)

    # /history: private, the asker's language, newest first, with the ids; not the other server's.
    mine = await command(fake, alice, "history")
    assert mine.ephemeral and mine.visible_to == alice.id
    assert mine.embeds[0]["title"] == "Recent games — Alice"
    lines = mine.embeds[0]["description"].splitlines()
    assert [line.split(" · ")[0] for line in lines] == [f"**#{here}**", f"**#{game_id}**"]
    assert f"#{elsewhere}**" not in mine.text
    place = "1st of 2" if 0 in winners else "2nd of 2"
    assert lines[1].startswith(f"**#{game_id}** · <t:{stored.finished_at // 1000}:d> · Skyjo · {place} · ")
    assert lines[1].endswith(f" · {game.totals[0]} points")
    assert "newest first" in mine.embeds[0]["footer"]["text"]

    # In French, about Bob; Carol herself has no game here.
    french = await command(fake, carol, "history", user=bob)
    assert french.ephemeral and french.visible_to == carol.id
    assert french.embeds[0]["title"] == "Parties récentes — Bob"
    place = "1er sur 2" if 1 in winners else "2e sur 2"
    (line,) = french.embeds[0]["description"].splitlines()
    assert line.startswith(f"**#{game_id}** · <t:") and f" · Skyjo · {place} · " in line
    nothing = await command(fake, carol, "history")
    assert nothing.ephemeral
    assert nothing.embeds[0]["description"] == "Carol n'a encore aucune partie terminée sur ce serveur."
    english_nothing = await command(fake, bob, "history", user=carol)
    assert english_nothing.embeds[0]["description"] == "Carol has no finished game on this server yet."


async def test_a_french_server_final_sheet_and_history_outside_a_server(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    fake.guild.preferred_locale = "fr"
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], score_limit=10)
    await play_turns(fake, bot, game_id, table_message, [alice, bob], random.Random(3))
    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="Rematch")
    await bot.presenter.flush()
    stored = await GameLedger(bot.service.storage).get_game(game_id)
    (sheet,) = sheet_fields(table_message)
    winners = stored.state.winners()
    said = ", ".join((alice, bob)[s].global_name for s in winners)
    assert sheet["name"].startswith("Feuille de marque — manche")
    assert sheet["name"].endswith(
        f"victoire : {said}" if len(winners) == 1 else f"victoire partagée : {said}"
    )
    assert block_rows(sheet)[0][-1] == "Total" and block_rows(sheet)[0][0] == "M1"
    assert footer_of(table_message) == f"Partie #{game_id} · /historique liste les parties de chaque joueur"

    # The command is registered with its French name; outside a server it says why, privately.
    registered = fake.registered_command("history", fake.guild.id)
    assert registered is not None and registered["name_localizations"]["fr"] == "historique"
    (option,) = registered["options"]
    assert option["name"] == "user" and option["name_localizations"]["fr"] == "joueur"
    dm = await command(fake, alice, "history", channel=fake.dm_channel(alice))
    assert dm.ephemeral and dm.text == "/history lists the games of a server: use it in a server."
