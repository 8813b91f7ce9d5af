"""/leaderboard and /stats through the fake Discord with the real bot: a finished game moves the board.

Two people play a whole (short) Skyjo game by clicking; the board then shows both with their new
ratings, pages with Previous / Next once more players are rated, refuses forged paging ids privately
in the clicker's language, and /stats shows a player's games, in French for a French reader.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bot.render.names import escape_name
from bot.service.ledger import GameLedger
from bot.storage import Seat, Storage, user_key
from bot.ui import boards
from fakecord import FakeMessage, FakeUser
from tests.e2e.reading import fields_of

from .conftest import act_of, finish_random_game, forged_click, play_turns, start_table

# Discord's rule for command and option names (any language): lowercase letters, digits, - and _.
NAME = re.compile(r"^[-_\w]{1,32}$")


async def command(fake: Any, who: FakeUser, name: str, **options: Any) -> FakeMessage:
    inter = await fake.run_command(who, name, options=options)
    message: FakeMessage = await inter.original()
    return message


def line_of(message: FakeMessage, needle: str) -> str:
    description: str = message.embeds[0]["description"]
    return next(line for line in description.splitlines() if needle in line)


async def rate_strangers(storage: Storage, guild_id: int, first_user: int, games: int) -> None:
    """Rated six-player games between users who are not in the fake server, through storage."""
    rng = random.Random(first_user)
    for number in range(games):
        base = first_user + 6 * number
        seats = [Seat(i, f"Stranger {base + i}", user_id=base + i) for i in range(6)]
        await finish_random_game(
            storage, rng, guild_id=guild_id, channel_id=9_000_000 + base, seats=seats, seed=base
        )


async def test_a_finished_game_moves_the_board_and_the_stats(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    skybo_bot = await skybo()
    storage = skybo_bot.storage
    assert storage is not None
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")

    # Before any game: the board says it is empty, publicly, without buttons.
    empty = await command(fake, alice, "leaderboard")
    assert not empty.ephemeral and "No rated Skyjo game" in empty.text and empty.custom_ids == []

    # Alice and Bob play a whole game by clicking their panels.
    table_message, game_id = await start_table(fake, skybo_bot, alice, [bob], score_limit=10)
    await play_turns(fake, skybo_bot, game_id, table_message, [alice, bob], random.Random(3))
    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="Rematch")
    changes = await storage.ratings.changes_for_game(game_id)
    mine = {c.player: c for c in changes if c.scope == fake.guild.id}
    assert set(mine) == {user_key(alice.id), user_key(bob.id)}
    for change in mine.values():  # both estimates moved (sigma shrinks, mu moves)
        assert change.conservative_after != pytest.approx(change.conservative_before)
    # Under the final standings, each newcomer's rating is provisional (fewer than five games: no
    # figure, tests/e2e/test_provisional.py), though it moved: the winner's up, the loser's down.
    await skybo_bot.presenter.flush()
    fields = fields_of(table_message)
    lines = fields["Rating changes"].split("\n")
    assert len(lines) == 2
    for line, change in zip(lines, sorted(mine.values(), key=lambda c: c.rank), strict=True):
        name = alice.global_name if change.player == user_key(alice.id) else bob.global_name
        assert line == f"{name}: provisional rating (1 of 5 games)"
        assert (change.rating_after > change.rating_before) == (change.rank == 1)

    # The board shows both, ranked, with their new ratings, games and wins.
    board = await command(fake, bob, "leaderboard", game="skyjo", scope="server")
    assert not board.ephemeral and board.custom_ids == []  # one page
    assert board.embeds[0]["title"] == "Skyjo leaderboard — this server"
    winner = min(mine.values(), key=lambda c: c.rank)
    loser = max(mine.values(), key=lambda c: c.rank)
    assert winner.rank == 1 and loser.rank == 2
    ranked = board.embeds[0]["description"].splitlines()
    assert winner.rating_after > loser.rating_after
    assert ranked[0].startswith(f"🥇 <@{winner.player[5:]}> — ")
    assert ranked[1].startswith(f"🥈 <@{loser.player[5:]}> — ")
    for change in mine.values():
        line = line_of(board, f"<@{change.player[5:]}>")
        assert "**provisional**" in line
        assert "1 game" in line and ("1 win" in line) == (change.rank == 1)

    # /stats: private, the asker's own games by default.
    stats = await command(fake, alice, "stats")
    assert stats.ephemeral and stats.visible_to == alice.id
    assert stats.embeds[0]["title"] == "Stats — Alice"
    (skyjo,) = stats.embeds[0]["fields"]
    assert skyjo["name"] == "Skyjo" and "Games: **1**" in skyjo["value"]
    assert "Rating: provisional — shown after 5 rated games (1 so far)" in skyjo["value"]
    assert "Last rated game: " in skyjo["value"] and "Rounds: " in skyjo["value"]

    # A French reader gets French, about whoever they ask for; a player without games is told so.
    french = await command(fake, carol, "stats", user=bob)
    assert french.ephemeral and french.visible_to == carol.id
    assert french.embeds[0]["title"] == "Statistiques — Bob"
    assert "Parties : **1**" in french.text and "Cote : provisoire" in french.text
    nothing = await command(fake, carol, "stats")
    assert "Aucune partie classée" in nothing.text and nothing.embeds[0]["fields"] == []
    world = await command(fake, alice, "stats", scope="global")
    assert "Rated games on every server." in world.text and "Games: **1**" in world.text

    # Twelve more rated players: the server's board has two pages.
    await rate_strangers(storage, fake.guild.id, 1_000, games=2)
    board = await command(fake, carol, "leaderboard")
    assert not board.ephemeral and "Skyjo leaderboard" in board.text  # the server's language, not Carol's
    assert len(board.embeds[0]["description"].splitlines()) == boards.PER_PAGE
    assert "Page 1 of 2 · players: 14" in board.text
    assert board.custom_ids == ["lb:skyjo:server:1", "lb:skyjo:server:2"]
    assert [c.get("disabled") for c in board.all_components() if c.get("type") == 2] == [True, False]
    first_page = board.embeds[0]["description"]

    # Next: the same message now shows page 2 (edited in place), then Previous brings page 1 back.
    click = await fake.click(bob, board, "lb:skyjo:server:2")
    assert (await click.response()).type == 7
    await fake.wait_until(lambda: "Page 2 of 2" in board.text, what="page 2")
    assert len(board.embeds[0]["description"].splitlines()) == 4
    assert board.embeds[0]["description"].splitlines()[0].startswith("**11.**")
    assert board.custom_ids == ["lb:skyjo:server:1", "lb:skyjo:server:2"]
    assert [c.get("disabled") for c in board.all_components() if c.get("type") == 2] == [False, True]
    shown = first_page + board.embeds[0]["description"]
    assert f"<@{alice.id}>" in shown and f"<@{bob.id}>" in shown
    click = await fake.click(alice, board, "lb:skyjo:server:1")
    assert (await click.response()).type == 7
    await fake.wait_until(lambda: "Page 1 of 2" in board.text, what="page 1")
    assert board.embeds[0]["description"] == first_page

    # A page past the end shows the last one; the global board shows stored names, not mentions.
    last = await command(fake, alice, "leaderboard", page=99)
    assert "Page 2 of 2" in last.text
    world_board = await command(fake, alice, "leaderboard", scope="global")
    assert "every server" in world_board.embeds[0]["title"]
    assert world_board.embeds[0]["description"].count("Stranger ") >= 8  # 12 of the 14 are strangers
    assert "<@" not in world_board.embeds[0]["description"]
    skipbo = await command(fake, alice, "leaderboard", game="skipbo")
    assert "No rated Skip-Bo game" in skipbo.text


async def test_forged_ids_french_server_and_localized_commands(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    skybo_bot = await skybo()
    storage = skybo_bot.storage
    assert storage is not None
    alice, carol = fake.user("alice"), fake.user("carol")
    await rate_strangers(storage, fake.guild.id, 2_000, games=2)

    # A French server: the public board speaks French whoever asks or clicks.
    fake.guild.preferred_locale = "fr"
    board = await command(fake, alice, "leaderboard")
    assert board.embeds[0]["title"] == "Classement Skyjo — ce serveur"
    assert "Page 1 sur 2 · joueurs : 12" in board.text
    assert board.button_labels == ["◀ Précédent", "Suivant ▶"]
    click = await fake.click(alice, board, "lb:skyjo:server:2")
    assert (await click.response()).type == 7
    await fake.wait_until(lambda: "Page 2 sur 2" in board.text, what="page 2 in French")

    # Forged or malformed ids change nothing and get a private refusal in the clicker's language.
    edits = len(board.history)
    for user, custom_id, refusal in (
        (carol, "lb:skyjo:server:0", "Ce bouton n'est pas valide."),
        (carol, "lb:skyjo:server:2:x", "Ce bouton n'est pas valide."),
        (alice, "lb:chess:server:1", "This button is not valid."),
        (alice, "lb:skyjo:global:2", "This button is not valid."),  # well formed, not on the message
        (alice, "lb:", "This button is not valid."),
    ):
        answer = await (await forged_click(fake, user, board, custom_id)).original()
        assert answer.ephemeral and answer.visible_to == user.id and answer.text == refusal
    assert len(board.history) == edits and "Page 2 sur 2" in board.text

    # The commands are registered with valid French names, options and choices.
    for name, french, options in (
        (
            "leaderboard",
            "classement",
            {
                "game": "jeu",
                "scope": "portée",
                "page": "page",
                "computers": "ordinateurs",
                "season": "saison",
            },
        ),
        ("stats", "statistiques", {"user": "joueur", "scope": "portée"}),
    ):
        registered = fake.registered_command(name, fake.guild.id)
        assert registered is not None
        assert registered["name_localizations"]["fr"] == french
        assert registered["description_localizations"]["fr"]
        for option in registered["options"]:
            localized = option["name_localizations"]["fr"]
            assert localized == options[option["name"]]
            assert NAME.match(localized) and localized == localized.lower()
            assert 1 <= len(option["description_localizations"]["fr"]) <= 100
            for choice in option.get("choices") or []:
                assert choice["name_localizations"]["fr"]
        assert NAME.match(french)
    scope = next(o for o in fake.registered_command("leaderboard")["options"] if o["name"] == "scope")
    assert [c["name_localizations"]["fr"] for c in scope["choices"]] == [
        "ce serveur",
        "global (tous les serveurs)",
    ]


async def rate_skipbo(storage: Storage, guild_id: int, seats: list[Seat], seed: int) -> list[int]:
    """One rated one-round Skip-Bo game (short stocks) played with random legal moves; its ranks."""
    rng = random.Random(seed)
    stored = await GameLedger(storage).create_game(
        guild_id=guild_id,
        channel_id=8_000_000 + seed,
        kind="skipbo",
        seats=seats,
        seed=seed,
        options={"stock_size": 5},
    )
    while not stored.state.is_over:
        seat = rng.choice(stored.state.seats_to_act())
        await GameLedger(storage).apply_action(stored, seat, rng.choice(stored.state.legal_actions(seat)))
    assert stored.status == "finished" and stored.finished is not None
    return [r.rank for r in stored.finished.results]


def assert_inert(text: str) -> None:
    """No live mention, link, heading or spoiler syntax, and no right-to-left override, in ``text``."""
    assert "\u202e" not in text
    for at, char in enumerate(text):
        if char in "@[]|#":
            assert at > 0 and text[at - 1] == "\\", (char, text)


async def test_hostile_names_stay_text_and_skipbo_stats_mean_something(fake_discord: Any, skybo: Any) -> None:
    """A display name full of Discord syntax is shown as text in the end-of-game rating lines, on the
    global board and on /stats; a Skip-Bo card shows no meaningless round figures."""
    fake = fake_discord
    skybo_bot = await skybo()
    storage = skybo_bot.storage
    assert storage is not None
    alice, bob = fake.user("alice"), fake.user("bob")
    # Discord allows 32 characters: a heading, a mass mention, a link, a spoiler, a role, an override.
    alice.global_name = "# @everyone [a](b) ||x|| <@&1>\u202e"
    escaped = escape_name(alice.global_name)
    assert escaped.startswith(r"\# \@everyone")

    # A whole Skyjo game by clicks: Alice's line under the standings is her escaped name.
    table_message, game_id = await start_table(fake, skybo_bot, alice, [bob], score_limit=10)
    await play_turns(fake, skybo_bot, game_id, table_message, [alice, bob], random.Random(5))
    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="Rematch")
    await skybo_bot.presenter.flush()
    fields = fields_of(table_message)
    (line,) = [ln for ln in fields["Rating changes"].split("\n") if not ln.startswith("Bob: ")]
    assert line.startswith(escaped + ": ")
    assert_inert(line)

    # A one-round Skip-Bo game: wins and the stock left, no "best 0 · mean 0.0".
    ranks = await rate_skipbo(
        storage,
        fake.guild.id,
        [Seat(0, alice.global_name, user_id=alice.id), Seat(1, "Bob", user_id=bob.id)],
        7,
    )
    stats = await command(fake, alice, "stats")
    assert stats.embeds[0]["title"] == f"Stats — {escaped}"
    assert_inert(stats.embeds[0]["title"])
    fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
    assert set(fields) == {"Skyjo", "Skip-Bo"}
    skipbo = fields["Skip-Bo"]
    wins = 1 if ranks[0] == 1 else 0
    assert f"Games: **1** · wins: **{wins}**" in skipbo
    assert "Stock cards left at the end of a round: " in skipbo
    for meaningless in ("Rounds", "Final totals", "best", "mean"):
        assert meaningless not in skipbo, skipbo
    assert "Rounds: " in fields["Skyjo"] and "Final totals: " in fields["Skyjo"]
    french = await command(fake, fake.user("carol"), "stats", user=alice)
    skipbo_fr = next(f["value"] for f in french.embeds[0]["fields"] if f["name"] == "Skip-Bo")
    assert "Cartes restées dans le stock en fin de manche : " in skipbo_fr and "Manches" not in skipbo_fr

    # The global board shows stored names: Alice's as text.
    world = await command(fake, bob, "leaderboard", game="skipbo", scope="global")
    description = world.embeds[0]["description"]
    assert escaped in description
    assert_inert(description.replace(f"<@{bob.id}>", ""))
