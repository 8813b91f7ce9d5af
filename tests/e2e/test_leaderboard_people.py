"""/leaderboard with and without computer players, through the fake Discord with the real bot.

Rated games mix people and computer players. The global board hides the computers by default and a
server's board shows them; ``computers: show | hide`` overrides either. Without computers, people
rank 1, 2, 3... among people, the pages and the player count hold people only, the footer says the
computers are hidden, and the paging buttons keep the choice; a button without it (the shape posted
before the choice existed) still pages the board with its computers. In English and French.
"""

from __future__ import annotations

import random
import re
from typing import Any

from bot.storage import Seat, Storage
from fakecord import FakeMessage, FakeUser

from .conftest import finish_random_game, forged_click

ROW = re.compile(r"^(?:(🥇|🥈|🥉)|\*\*(\d+)\.\*\*) (.+?) — \*\*")
MEDALS = {"🥇": 1, "🥈": 2, "🥉": 3}


async def command(fake: Any, who: FakeUser, name: str, **options: Any) -> FakeMessage:
    inter = await fake.run_command(who, name, options=options)
    message: FakeMessage = await inter.original()
    return message


def ranked(message: FakeMessage) -> list[tuple[int, str]]:
    """(rank, name) of each line of a board page."""
    rows = []
    for line in message.embeds[0]["description"].splitlines():
        match = ROW.match(line)
        assert match is not None, line
        rows.append((MEDALS[match[1]] if match[1] else int(match[2]), match[3]))
    return rows


async def rate_mixed(storage: Storage, guild_id: int, first_user: int, games: int) -> None:
    """Rated six-seat games: four people (new ones each game) and two computer players."""
    rng = random.Random(first_user)
    for number in range(games):
        base = first_user + 4 * number
        seats = [Seat(i, f"Person {base + i}", user_id=base + i) for i in range(4)]
        seats += [Seat(4, "Computer (hard)", ai_level="hard"), Seat(5, "Computer (easy)", ai_level="easy")]
        await finish_random_game(
            storage, rng, guild_id=guild_id, channel_id=7_000_000 + base, seats=seats, seed=base
        )


async def people_ranks(storage: Storage) -> list[tuple[int, str]]:
    """The global board's people with their competition ranks among people, from the full board."""
    everyone = await storage.ratings.leaderboard("skyjo", None, per_page=100)
    people = [row for row in everyone.rows if not row.player.startswith("ai:")]
    ranks: list[tuple[int, str]] = []
    for at, row in enumerate(people):
        tied = at > 0 and people[at - 1].conservative == row.conservative
        ranks.append((ranks[-1][0] if tied else at + 1, row.display_name))
    return ranks


async def test_people_only_boards_rank_page_and_default_per_scope(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    skybo_bot = await skybo()
    storage = skybo_bot.storage
    assert storage is not None
    alice, bob = fake.user("alice"), fake.user("bob")
    await rate_mixed(storage, fake.guild.id, 3_000, games=3)  # 12 people, 2 computer rows
    expected = await people_ranks(storage)
    assert len(expected) == 12

    # This server's board shows the computers by default: 14 players, nothing said about hiding.
    server = await command(fake, alice, "leaderboard")
    assert "players: 14" in server.text and "hidden" not in server.text
    assert server.custom_ids == ["lb:skyjo:server:1", "lb:skyjo:server:2"]
    first_page = server.text
    click = await fake.click(bob, server, "lb:skyjo:server:2")
    assert (await click.response()).type == 7
    await fake.wait_until(lambda: "Page 2 of 2" in server.text, what="page 2 with computers")
    assert len(ranked(server)) == 4
    both = first_page + server.text
    assert "Computer (hard)" in both and "Computer (easy)" in both

    # The global board hides them by default: people ranked among people, over two pages of people.
    world = await command(fake, alice, "leaderboard", scope="global")
    footer = world.embeds[0]["footer"]["text"]
    assert footer.startswith("Computer players hidden: people are ranked among people.")
    assert "Page 1 of 2 · players: 12" in footer and "Computer (" not in world.text
    assert world.custom_ids == ["lb:skyjo:global:1:h", "lb:skyjo:global:2:h"]
    first = ranked(world)
    assert len(first) == 10 and first[0][0] == 1
    click = await fake.click(bob, world, "lb:skyjo:global:2:h")
    assert (await click.response()).type == 7
    await fake.wait_until(lambda: "Page 2 of 2" in world.text, what="page 2 of people")
    assert "Computer (" not in world.text and world.embeds[0]["footer"]["text"].startswith("Computer players")
    assert world.custom_ids == ["lb:skyjo:global:1:h", "lb:skyjo:global:2:h"]
    assert first + ranked(world) == expected

    # Either default can be overridden.
    shown = await command(fake, alice, "leaderboard", scope="global", computers="show")
    assert "players: 14" in shown.text and "hidden" not in shown.text
    assert shown.custom_ids == ["lb:skyjo:global:1", "lb:skyjo:global:2"]
    hidden = await command(fake, alice, "leaderboard", computers="hide")
    assert "Computer players hidden" in hidden.text and "players: 12" in hidden.text
    assert hidden.custom_ids == ["lb:skyjo:server:1:h", "lb:skyjo:server:2:h"]
    assert "Computer (" not in hidden.text

    # A button without the choice (as posted before it existed) pages the board with its computers.
    first_page = shown.text
    click = await fake.click(bob, shown, "lb:skyjo:global:2")
    assert (await click.response()).type == 7
    await fake.wait_until(lambda: "Page 2 of 2" in shown.text, what="an old button's page 2")
    assert "players: 14" in shown.text and "hidden" not in shown.text
    assert len(ranked(shown)) == 4
    both = first_page + shown.text
    assert "Computer (hard)" in both and "Computer (easy)" in both

    # A forged choice changes nothing and is refused privately.
    edits = len(world.history)
    for custom_id in ("lb:skyjo:global:2:x", "lb:skyjo:global:2:hh", "lb:skyjo:global:1:H"):
        answer = await (await forged_click(fake, alice, world, custom_id)).original()
        assert answer.ephemeral and answer.text == "This button is not valid."
    assert len(world.history) == edits


async def test_people_only_boards_in_french(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    skybo_bot = await skybo()
    storage = skybo_bot.storage
    assert storage is not None
    alice, carol = fake.user("alice"), fake.user("carol")
    await rate_mixed(storage, fake.guild.id, 4_000, games=3)
    expected = await people_ranks(storage)
    fake.guild.preferred_locale = "fr"

    world = await command(fake, alice, "leaderboard", scope="global")
    assert world.embeds[0]["title"] == "Classement Skyjo — tous les serveurs"
    footer = world.embeds[0]["footer"]["text"]
    assert footer.startswith("Joueurs ordinateurs masqués : les personnes sont classées entre elles.")
    assert "Page 1 sur 2 · joueurs : 12" in footer and "Ordinateur (" not in world.text
    click = await fake.click(carol, world, "lb:skyjo:global:2:h")
    assert (await click.response()).type == 7
    await fake.wait_until(lambda: "Page 2 sur 2" in world.text, what="page 2 in French")
    assert "Joueurs ordinateurs masqués" in world.text and ranked(world) == expected[10:]

    server = await command(fake, carol, "leaderboard")
    assert "joueurs : 14" in server.text and "masqués" not in server.text
    second = await command(fake, carol, "leaderboard", page=2)
    both = server.text + second.text
    assert "Ordinateur (difficile)" in both and "Ordinateur (facile)" in both

    answer = await (await forged_click(fake, carol, world, "lb:skyjo:global:2:x")).original()
    assert answer.ephemeral and answer.text == "Ce bouton n'est pas valide."

    # The option and its choices have French names.
    registered = fake.registered_command("leaderboard", fake.guild.id)
    assert registered is not None
    option = next(o for o in registered["options"] if o["name"] == "computers")
    assert option["name_localizations"]["fr"] == "ordinateurs"
    assert [c["value"] for c in option["choices"]] == ["show", "hide"]
    assert [c["name_localizations"]["fr"] for c in option["choices"]] == ["afficher", "masquer"]
