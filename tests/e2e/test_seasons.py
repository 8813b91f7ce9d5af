"""Seasons (issue 41 item 1) through the fake Discord with the real bot, in English and French.

A server's admin starts a season; rated games count for it and for all time; ``/leaderboard`` shows the
season by default; a restart in the middle keeps it; its end posts the podium (a picture) in the
channel; the next season's board starts empty while the all-time board is unchanged; the ended season's
board is still shown by name, its podium again on demand, and ``/stats`` lists the player's seasons.
Bad input is refused privately, in the asker's language, and changes nothing.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from bot.storage import Seat, user_key
from bot.storage.seasons import season_scope
from bot.ui import boards
from fakecord import FakeMessage, FakeUser

from .conftest import (
    BOTH_BACKENDS,
    BotDatabase,
    finish_random_game,
    forged_click,
    play_turns,
    private_answer,
    start_table,
)
from .reading import (
    containers_of,
    description_of,
    fields_of,
    footer_of,
    gallery_urls,
    is_v2,
    text_of,
    title_of,
)

PODIUM = "podium.png"
DOCS = Path(__file__).resolve().parents[2] / "docs"


async def public(fake: Any, who: FakeUser, name: str, sub: str | None = None, **options: Any) -> FakeMessage:
    message: FakeMessage = await (await fake.run_command(who, name, sub, options=options)).original()
    return message


async def refused(fake: Any, who: FakeUser, command: str, sub: str | None = None, **options: Any) -> str:
    """The private reason a command is refused with."""
    return str((await private_answer(await fake.run_command(who, command, sub, options=options))).text)


def board_text(message: FakeMessage) -> tuple[str, str]:
    embed = message.embeds[0]
    return str(embed["title"]), str(embed["description"])


@BOTH_BACKENDS
async def test_a_season_counts_ends_with_its_podium_and_stays_readable(
    fake_discord: Any, skybo: Any, database: BotDatabase
) -> None:
    fake = fake_discord
    owner, alice, bob, carol = fake.owner, fake.user("alice"), fake.user("bob"), fake.user("carol")
    guild = fake.guild.id
    seats = [Seat(0, "Alice", user_id=alice.id), Seat(1, "Bob", user_id=bob.id)]
    rng = random.Random(5)

    first = database.bot()
    async with fake.running(first, sync_commands=True):
        storage = first.storage
        assert storage is not None
        await finish_random_game(storage, rng, guild_id=guild, channel_id=7_000_001, seats=seats, seed=1)
        # Started by an admin, said privately.
        started = await private_answer(
            await fake.run_command(owner, "skybo", "season start", options={"name": " Spring "})
        )
        assert started.text.startswith("Season **Spring** has started")
        # A game played by clicking (Alice and a computer player): its end-of-game lines are the server's.
        table_message, game_id = await start_table(fake, first, alice, [], score_limit=10, computers=1)
        await play_turns(fake, first, game_id, table_message, [alice], rng)
        changes = await storage.ratings.changes_for_game(game_id)
        season = await storage.seasons.running(guild)
        assert season is not None and {c.scope for c in changes} == {0, guild, season_scope(season.id)}
        server = next(c for c in changes if c.scope == guild and c.player == user_key(alice.id))
        fresh = next(c for c in changes if c.scope == season.scope and c.player == user_key(alice.id))
        assert fresh.games == 1 and server.games == 2  # the season starts fresh, the server's goes on
        await first.presenter.flush()
        await fake.wait_until(lambda: "Rating changes" in fields_of(table_message), what="the rating lines")
        lines = fields_of(table_message)["Rating changes"]
        assert "provisional rating (2 of 5 games)" in lines, lines  # the server's count, not the season's

    # A restart in the middle of the season: it is still running, its board the default.
    bot = await skybo()
    storage = bot.storage
    assert storage is not None
    await finish_random_game(storage, rng, guild_id=guild, channel_id=7_000_002, seats=seats, seed=2)
    title, during = board_text(await public(fake, alice, "leaderboard"))
    assert title == "Skyjo leaderboard — season Spring", title
    assert len(during.splitlines()) == 3  # Alice, Bob and the computer player of the clicked game
    all_time = await public(fake, alice, "leaderboard", season="all")
    assert board_text(all_time)[0] == "Skyjo leaderboard — this server"

    # The end: the podium posted in the channel, publicly, with its picture, mentioning nobody.
    ended = await public(fake, owner, "skybo", "season end")
    assert not ended.ephemeral
    assert [a.filename for a in ended.attachments] == [PODIUM]
    assert ended.attachments[0].data.startswith(b"\x89PNG")
    if os.environ.get("UPDATE_DOCS") == "1" and database.kind == "sqlite":  # the picture of docs/discord.md
        (DOCS / "season-podium.png").write_bytes(ended.attachments[0].data)
    assert is_v2(ended) and len(containers_of(ended)) == 1 and not ended.embeds  # one V2 container
    assert title_of(ended) == "Season Spring is over: the podium"
    [url] = gallery_urls(ended)
    assert url.endswith(f"/{PODIUM}")  # Discord's address of the attached picture
    lines = description_of(ended)
    assert lines.startswith("**Skyjo**: ") and f"<@{alice.id}>" in lines and f"<@{bob.id}>" in lines, lines
    assert "Computer" not in text_of(ended)  # a podium of people
    assert footer_of(ended)
    kept = await storage.seasons.named(guild, "spring")
    assert kept is not None and not kept.running and kept.podium is not None
    assert [p.player for p in kept.podium["skyjo"]][:2] == sorted(
        [user_key(alice.id), user_key(bob.id)],
        key=lambda k: -next(p.rating for p in kept.podium["skyjo"] if p.player == k),  # type: ignore[index]
    )

    # No season runs: the default board is the server's, all time, and unchanged by the end.
    assert board_text(await public(fake, alice, "leaderboard")) == board_text(all_time)

    # A new season: its board is empty; the all-time board unchanged; the earlier one shown by name.
    await private_answer(await fake.run_command(owner, "skybo", "season start", options={"name": "Summer"}))
    title, empty = board_text(await public(fake, alice, "leaderboard"))
    assert title == "Skyjo leaderboard — season Summer" and empty.startswith("No rated Skyjo game"), empty
    assert board_text(await public(fake, alice, "leaderboard", season="all")) == board_text(all_time)
    title, spring = board_text(await public(fake, carol, "leaderboard", season="SPRING"))
    assert title == "Skyjo leaderboard — season Spring (ended)" and spring == during
    # The global board is all time only, whatever runs on the server.
    title, _ = board_text(await public(fake, alice, "leaderboard", scope="global"))
    assert title == "Skyjo leaderboard — every server"
    # The names are offered as one types.
    typing = await fake.autocomplete(alice, "leaderboard", focused="season", options={"season": "s"})
    choices = (await typing.response()).data["choices"]
    assert [c["value"] for c in choices] == ["Summer", "Spring"]

    # The podium again, for the asker alone, in their language (Carol reads French).
    again = await private_answer(await fake.run_command(carol, "skybo", "season podium"))
    assert is_v2(again) and title_of(again) == "Saison Spring : le podium"
    assert description_of(again).startswith("**Skyjo** : "), description_of(again)
    assert [a.filename for a in again.attachments] == [PODIUM]
    # /stats: Alice's place and rating in each season of this server (Summer: none yet).
    card = await private_answer(await fake.run_command(alice, "stats"))
    (field,) = [f for f in card.embeds[0]["fields"] if f["name"] == "Seasons on this server"]
    row = next(r for r in await storage.ratings.player_stats(user_key(alice.id)) if r.scope == kept.scope)
    assert field["value"] == f"**Spring**: Skyjo {boards.place(row.rank)} provisional", field["value"]
    french = await private_answer(await fake.run_command(carol, "stats", options={"user": alice}))
    assert any(f["name"] == "Saisons sur ce serveur" for f in french.embeds[0]["fields"])


async def test_bad_season_input_is_refused_privately_and_changes_nothing(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo()
    storage = bot.storage
    assert storage is not None
    owner, alice, carol = fake.owner, fake.user("alice"), fake.user("carol")
    guild = fake.guild.id

    # The name's length is Discord's to hold too: the command declares it.
    skybo_command = next(c for c in fake.global_commands.values() if c["name"] == "skybo")
    season_group = next(o for o in skybo_command["options"] if o["name"] == "season")
    start = next(o for o in season_group["options"] if o["name"] == "start")
    assert start["options"][0]["max_length"] == 50 and start["options"][0]["required"]
    assert season_group["name_localizations"]["fr"] == "saison"

    # Not an admin (English, French); nothing to end; an earlier podium that does not exist.
    assert await refused(fake, alice, "skybo", "season start", name="Mine") == (
        "Only someone who can manage this server may start or end its seasons."
    )
    assert await refused(fake, carol, "skybo", "season end") == (
        "Seule une personne qui peut gérer ce serveur peut commencer ou terminer ses saisons."
    )
    assert await refused(fake, owner, "skybo", "season end") == (
        "No season is running on this server: start one with `/skybo season start`."
    )
    assert await refused(fake, owner, "skybo", "season podium") == "This server has no ended season yet."
    # Names: blank, the word for all time, a hidden character.
    assert await refused(fake, owner, "skybo", "season start", name="   ") == "Give the season a name."
    assert "choose another name" in await refused(fake, owner, "skybo", "season start", name="ALL")
    assert "visible characters" in await refused(fake, owner, "skybo", "season start", name="a\u200bb")
    assert await storage.seasons.of_guild(guild) == []

    await private_answer(await fake.run_command(owner, "skybo", "season start", options={"name": "Autumn"}))
    before = await storage.seasons.of_guild(guild)
    # One at a time: end it first; a name taken (compared case-folded), after it ended too.
    assert await refused(fake, owner, "skybo", "season start", name="Winter") == (
        "Season **Autumn** is running: end it first with `/skybo season end`."
    )
    assert await refused(fake, owner, "skybo", "season podium", name="autumn") == (
        "Season **Autumn** is still running: its podium comes at its end."
    )
    # Boards: an unknown season; a season named with the global board.
    assert (
        await refused(fake, alice, "leaderboard", season="Spring")
        == "This server has no season named **Spring**."
    )
    assert (
        await refused(fake, carol, "leaderboard", season="Spring")
        == "Ce serveur n'a aucune saison nommée **Spring**."
    )
    assert "all time only" in await refused(fake, alice, "leaderboard", scope="global", season="Autumn")
    assert await storage.seasons.of_guild(guild) == before

    # A server whose public messages are French: the podium is posted in French; none was played.
    await private_answer(await fake.run_command(owner, "skybo", "settings", options={"language": "fr"}))
    podium = await public(fake, owner, "skybo", "season end")
    assert is_v2(podium) and title_of(podium) == "La saison Autumn est finie : le podium"
    assert description_of(podium) == "Aucune partie classée cette saison."
    assert gallery_urls(podium)[0].endswith(f"/{PODIUM}")
    assert [a.filename for a in podium.attachments] == [PODIUM]
    assert await refused(fake, owner, "skybo", "season start", name="autumn") == (
        "This server already had a season named **autumn**: choose another name."
    )
    # The empty podium says so.
    (ended,) = await storage.seasons.of_guild(guild)
    assert ended.podium == {} and not ended.running
    in_dm = await fake.run_command(
        owner, "skybo", "season start", channel=fake.dm_channel(owner), options={"name": "X"}
    )
    assert (
        await private_answer(in_dm)
    ).text == "Seasons belong to a server: use this in one of its channels."
    assert len(await storage.seasons.of_guild(guild)) == 1


def test_a_season_boards_paging_id() -> None:
    parsed = boards.parse_board_id("lb:skyjo:s12:2:h")
    assert parsed is not None and (parsed.scope, parsed.page, parsed.computers) == ("s12", 2, False)
    assert parsed.encode() == "lb:skyjo:s12:2:h"
    for forged in ("lb:skyjo:s0:1", "lb:skyjo:s-1:1", "lb:skyjo:sx:1", "lb:skyjo:s1234567890123456789:1"):
        assert boards.parse_board_id(forged) is None, forged


@pytest.mark.parametrize("locale", ["en", "fr"])
def test_the_podium_picture_draws_empty_and_full(locale: str) -> None:
    from bot.storage.seasons import PodiumPlace, Season
    from bot.ui import seasons as seasons_ui

    empty = Season(1, 2, "Spring", 0, 3, 10, 3, {})
    full = Season(
        1, 2, "Spring 🌸", 0, 3, 10, 3,
        {"skyjo": [PodiumPlace(1, "user:1", "A very long display name indeed", 12.5, 9, 5),
                   PodiumPlace(2, "user:2", "Bob", 3.0, 6, 1)]},
    )  # fmt: skip
    assert seasons_ui.podium_picture(empty, locale).startswith(b"\x89PNG")
    assert seasons_ui.podium_picture(full, locale) != seasons_ui.podium_picture(empty, locale)
    words = "No rated games this season." if locale == "en" else "Aucune partie classée cette saison."
    assert description_of({"components": seasons_ui.podium_layout(empty, locale, just_ended=True)}) == words


async def test_a_season_board_pages_and_refuses_another_servers_season(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    storage = bot.storage
    assert storage is not None
    alice, bob = fake.user("alice"), fake.user("bob")
    guild = fake.guild.id
    elsewhere = await storage.seasons.start(guild + 1, "Theirs", 1)  # another server's season
    await private_answer(
        await fake.run_command(fake.owner, "skybo", "season start", options={"name": "Spring"})
    )
    season = await storage.seasons.running(guild)
    assert season is not None
    rng = random.Random(9)
    for number in range(2):  # twelve people: two pages
        seats = [Seat(i, f"Player {6 * number + i}", user_id=5_000 + 6 * number + i) for i in range(6)]
        await finish_random_game(
            storage, rng, guild_id=guild, channel_id=6_000 + number, seats=seats, seed=number
        )
    board = await public(fake, alice, "leaderboard")
    assert "Page 1 of 2" in board.text and "season Spring" in board.text
    next_page = f"lb:skyjo:s{season.id}:2"
    assert next_page in board.custom_ids
    click = await fake.click(bob, board, next_page)
    assert (await click.response()).type == 7
    await fake.wait_until(lambda: "Page 2 of 2" in board.text, what="page 2 of the season")
    assert "season Spring" in board.embeds[0]["title"]
    # A season of another server named by a forged id: refused privately, the board unchanged.
    edits = len(board.history)
    forged = await forged_click(fake, alice, board, f"lb:skyjo:s{elsewhere.id}:1")
    answer = await forged.original()
    assert answer.ephemeral and answer.text == "This button is not valid."
    assert len(board.history) == edits


async def test_a_seasons_start_is_announced_in_the_channel_in_the_servers_language(
    fake_discord: Any, skybo: Any
) -> None:
    """Issue 47 item 10: the start was told only to the organiser; everyone now reads it in the channel,
    in the server's language (French here), the organiser's own answer staying private in theirs."""
    fake = fake_discord
    fake.guild.preferred_locale = "fr"
    await skybo()
    owner, general = fake.owner, fake.channel("general")
    assert owner.locale == "en-US"
    inter = await fake.run_command(owner, "skybo", "season start", options={"name": "Spring *1*"})
    started = await private_answer(inter)
    assert started.text.startswith("Season **Spring \\*1\\*** has started")
    assert started.text.endswith("`/leaderboard` shows its board.")  # the asker's words for it
    announced = await fake.wait_until(
        lambda: next(
            (m for m in fake.messages.values() if m.channel_id == general.id and not m.ephemeral), None
        ),
        what="the announcement",
    )
    assert announced.text == (
        "📅 La saison **Spring \\*1\\*** commence sur ce serveur : dès maintenant ses parties classées "
        "comptent pour elle, sur des classements qui partent de zéro (et pour toujours, comme avant). "
        "`/classement` montre le classement de la saison."
    )
    assert announced.payload()["mentions"] == []
    # A refused start announces nothing.
    await private_answer(await fake.run_command(owner, "skybo", "season start", options={"name": "Summer"}))
    public = [m for m in fake.messages.values() if m.channel_id == general.id and not m.ephemeral]
    assert public == [announced]
