"""Issue 38 item 10 (the rating part): a new player's rating is provisional until
``PROVISIONAL_GAMES`` rated games, so one loss never reads as a penalty.

Alice and Bob play a whole Skyjo game by clicking; whoever lost sees no figure (no negative number)
in the end-of-game lines, on the board and on ``/stats``, which says why, in English and French. After
four more rated games (finished through storage, as the boards' tests do) the figure appears.
"""

from __future__ import annotations

import random
import re
from typing import Any

from bot.storage import Seat, user_key
from bot.ui import boards
from fakecord import FakeMessage, FakeUser
from tests.e2e.reading import fields_of

from .conftest import act_of, finish_random_game, play_turns, start_table

PROVISIONAL_GAMES = 5  # bot.storage.ratings.PROVISIONAL_GAMES, the rule under test
NUMBER = re.compile(r"-?\d+[.,]\d")  # a rating figure (one decimal)


async def command(fake: Any, who: FakeUser, name: str, **options: Any) -> FakeMessage:
    message: FakeMessage = await (await fake.run_command(who, name, options=options)).original()
    return message


def skyjo_field(stats: FakeMessage) -> str:
    (field,) = [f for f in stats.embeds[0]["fields"] if f["name"] == "Skyjo"]
    return str(field["value"])


async def test_a_new_players_rating_is_provisional_until_five_games(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    storage = bot.storage
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")

    table_message, game_id = await start_table(fake, bot, alice, [bob], score_limit=10)
    await play_turns(fake, bot, game_id, table_message, [alice, bob], random.Random(3))
    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="Rematch")
    changes = {
        c.player: c for c in await storage.ratings.changes_for_game(game_id) if c.scope == fake.guild.id
    }
    loser_key = max(changes.values(), key=lambda c: c.rank).player
    loser = alice if loser_key == user_key(alice.id) else bob
    assert changes[loser_key].rating_after < 0  # the figure a loss gives: never shown while provisional

    # Under the final standings: no figure, the word "provisional".
    await bot.presenter.flush()
    fields = fields_of(table_message)
    lines = fields["Rating changes"].split("\n")
    assert f"{loser.global_name}: provisional rating (1 of 5 games)" in lines, lines
    assert not any(NUMBER.search(line) for line in lines), lines

    # /stats in English (the loser) and in French (Carol asking): provisional, the rule said, no figure.
    english = skyjo_field(await command(fake, loser, "stats"))
    assert "Rating: provisional — shown after 5 rated games (1 so far)" in english, english
    assert not any(NUMBER.search(line) for line in english.splitlines() if line.startswith("Rating"))
    assert "Last game: " not in english, english  # no trend (it would show the loss as a figure)
    french = skyjo_field(await command(fake, carol, "stats", user=loser))
    assert "Cote : provisoire — affichée après 5 parties classées (1 pour l'instant)" in french, french
    assert not any(NUMBER.search(line) for line in french.splitlines() if line.startswith("Cote"))
    assert "Dernière partie : " not in french, french

    # The board lists both, in their places, with "provisional" instead of a figure.
    board = await command(fake, alice, "leaderboard", game="skyjo", scope="server")
    rows = board.embeds[0]["description"].splitlines()
    assert len(rows) == 2 and all("— **provisional** ·" in row for row in rows), rows

    # Four more rated games: five in all, and the figure appears everywhere.
    rng = random.Random(7)
    seats = [Seat(0, "Alice", user_id=alice.id), Seat(1, "Bob", user_id=bob.id)]
    for number in range(PROVISIONAL_GAMES - 1):
        channel = 8_000_000 + number
        await finish_random_game(
            storage, rng, guild_id=fake.guild.id, channel_id=channel, seats=seats, seed=number
        )
    (row,) = await storage.ratings.player_stats(user_key(loser.id), kind="skyjo", guild_id=fake.guild.id)
    assert row.games == PROVISIONAL_GAMES
    figure = boards.number(row.conservative, "en")
    english = skyjo_field(await command(fake, loser, "stats"))
    assert f"Rating: **{figure}** · rank " in english and "provisional" not in english, english
    french = skyjo_field(await command(fake, carol, "stats", user=loser))
    assert f"Cote : **{boards.number(row.conservative, 'fr')}**" in french and "provisoire" not in french
    board = await command(fake, alice, "leaderboard", game="skyjo", scope="server")
    assert f"**{figure}**" in board.embeds[0]["description"] and "provisional" not in board.text
