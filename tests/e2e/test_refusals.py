"""What a newcomer trips on (issue 38, items 4 and 10): refusals that say what is wrong and what to do,
a lobby that says what it needs, and a rematch that asks. Through the fake Discord with the real bot,
in English and in French where words are involved (the server's language for public messages, the
clicker's own for private ones: Alice and Bob read English, Carol French)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.i18n import translate as t
from bot.storage import Seat
from fakecord import FakeMessage, FakeUser
from tests.e2e.reading import description_of, title_of

from .conftest import (
    BotDatabase,
    act_of,
    button,
    finish_random_game,
    open_lobby,
    open_panel,
    play_turns,
    start_table,
)
from .skipbo_helpers import open_skipbo_lobby, start_skipbo

# (the server's language, a user reading that language)
LANGUAGES = [("en-US", "alice"), ("fr", "carol")]


def lobby_button(lobby: FakeMessage, act: str) -> str:
    return next(c for c in lobby.custom_ids if c.endswith(f":{act}"))


async def private(inter: Any, user: FakeUser) -> FakeMessage:
    answer: FakeMessage = await inter.answer()
    assert answer.ephemeral and answer.visible_to == user.id, "a refusal is for the asker only"
    return answer


@pytest.mark.parametrize(("language", "username"), LANGUAGES)
async def test_a_teams_lobby_says_4_or_6_and_start_says_how_many_there_are(
    fake_discord: Any, skybo: Any, language: str, username: str
) -> None:
    """4a, SB-VAR-TEAM-1: teams of two at 4 or 6 players, said by the lobby up front and by Start."""
    fake = fake_discord
    fake.guild.preferred_locale = language
    bot = await skybo()
    host = fake.user(username)
    lobby = await open_skipbo_lobby(fake, host, teams=True, computers=2)
    assert not lobby.ephemeral
    four_or_six = t("table.lobby.counts_or", language, first="4", last="6")
    assert t("table.lobby.how_counts", language, counts=four_or_six) in lobby.text
    assert t("table.lobby.how", language, min=2, max=6) not in lobby.text, "not the plain 2-to-6 range"

    refused = await private(await fake.click(host, lobby, lobby_button(lobby, "st")), host)
    assert refused.text == t("skipbo.error.teams_players", host.locale, players=3)
    assert (
        "Teams of two need 4 or 6 players; there are 3."
        if host.locale == "en-US"
        else "cette table en compte 3"
    ) in (refused.text)
    assert await bot.service.lobbies.open_in_channel(lobby.channel_id) is not None, "the lobby stays open"
    # One computer more: four seats, and the game starts.
    await (await fake.click(host, lobby, lobby_button(lobby, "ai"))).response()
    await fake.wait_until(lambda: lobby.text.count("🤖") == 3, what="a third computer")
    await (await fake.click(host, lobby, lobby_button(lobby, "st"))).response()
    await fake.wait_until(lambda: bot.service.table_in_channel(lobby.channel_id) is not None, what="the game")


@pytest.mark.parametrize("username", ["alice", "carol"])
async def test_replaying_a_skyjo_game_with_skipbo_replay_names_the_right_command(
    fake_discord: Any, skybo: Any, username: str
) -> None:
    """4b: /skipbo replay of a Skyjo game says it is a Skyjo game and names /skyjo replay."""
    fake = fake_discord
    bot = await skybo()
    user, bob = fake.user(username), fake.user("bob")
    channel = fake.channel("general")
    seats = [Seat(0, user.global_name, user_id=user.id), Seat(1, "Bob", user_id=bob.id)]
    await finish_random_game(
        bot.storage, random.Random(1), guild_id=fake.guild.id, channel_id=channel.id, seats=seats, seed=1
    )
    (game_id,) = [
        row[0] for row in await bot.storage.db.run(lambda c: c.execute("SELECT id FROM games").fetchall())
    ]
    inter = await fake.run_command(user, "skipbo", "replay", options={"game": str(game_id)})
    answer = await inter.original()
    assert answer.ephemeral and answer.visible_to == user.id and not answer.custom_ids
    assert answer.text == t("replay.error.other_game", user.locale, id=game_id, game="Skyjo", kind="skyjo")
    replay_command = f"/skyjo {t('cmd.replay.name', user.locale)}"  # its name in the reader's language
    assert replay_command in answer.text and f"#{game_id}" in answer.text
    assert replay_command == ("/skyjo replay" if user.locale == "en-US" else "/skyjo revoir")
    # The right command replays it.
    inter = await fake.run_command(user, "skyjo", "replay", options={"game": str(game_id)})
    shown = await inter.original()
    assert shown.attachments and shown.custom_ids


@pytest.mark.parametrize("username", ["alice", "carol"])
async def test_the_other_games_end_and_kick_refuse_and_name_the_tables_command(
    fake_discord: Any, skybo: Any, username: str
) -> None:
    """4c: /skipbo end or kick at a Skyjo table (lobby or game) refuses and points to /skyjo end; and
    the reverse at a Skip-Bo table."""
    fake = fake_discord
    bot = await skybo()
    host, bob = fake.user(username), fake.user("bob")
    locale = host.locale
    end_word, kick_word = t("cmd.end.name", locale), t("cmd.kick.name", locale)

    # A Skyjo lobby: /skipbo end closes nothing.
    lobby = await open_lobby(fake, host)
    answer = await private(await fake.run_command(host, "skipbo", "end"), host)
    assert answer.text == t("table.error.other_game_end", locale, game="Skyjo", kind="skyjo")
    assert f"/skyjo {end_word}" in answer.text
    assert await bot.service.lobbies.open_in_channel(lobby.channel_id) is not None, "the lobby stays open"
    assert "🔒" not in lobby.text and lobby.custom_ids, "the lobby message is untouched"
    await (await fake.run_command(host, "skyjo", "end")).original()  # the right command closes it
    await fake.wait_until(lambda: not lobby.custom_ids, what="the lobby closed")

    # A Skip-Bo game: /skyjo end and /skyjo kick refuse, naming /skipbo end and /skipbo kick.
    # (Bob hosts it: Alice's cool-down after opening a table is still running.)
    table_message, game_id = await start_skipbo(fake, bot, bob, [host])
    answer = await private(await fake.run_command(host, "skyjo", "end"), host)
    assert answer.text == t("table.error.other_game_end", locale, game="Skip-Bo", kind="skipbo")
    assert f"/skipbo {end_word}" in answer.text and not answer.custom_ids, "no Yes to end it"
    answer = await private(await fake.run_command(host, "skyjo", "kick", options={"player": bob}), host)
    assert answer.text == t("table.error.other_game_kick", locale, game="Skip-Bo", kind="skipbo")
    assert f"/skipbo {kick_word}" in answer.text
    table = bot.service.tables[game_id]
    assert not table.finished and not table.replaced(), "nothing ended, nobody replaced"
    assert any(act_of(c) == "op" for c in table_message.custom_ids)
    # The table's own command still asks to end it.
    question = await private(await fake.run_command(bob, "skipbo", "end"), bob)
    assert any(act_of(c) == "ey" for c in question.custom_ids)


@pytest.mark.parametrize("language", ["en-US", "fr"])
async def test_a_page_past_the_end_of_the_board_says_how_many_pages_there_are(
    fake_discord: Any, skybo: Any, language: str
) -> None:
    """4d: /leaderboard page:5 with one page shows the last page (the only one) under a line saying
    there is only one page; the first page says nothing of the kind."""
    fake = fake_discord
    fake.guild.preferred_locale = language
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    seats = [Seat(0, "Alice", user_id=alice.id), Seat(1, "Bob", user_id=bob.id)]
    await finish_random_game(
        bot.storage, random.Random(2), guild_id=fake.guild.id, channel_id=fake.channel("general").id,
        seats=seats, seed=2,
    )  # fmt: skip
    only_one = t("lb.only_pages.one", language, count=1)
    first = await (await fake.run_command(alice, "leaderboard")).original()
    assert alice.mention in first.text and only_one not in first.text
    past = await (await fake.run_command(alice, "leaderboard", options={"page": 5})).original()
    assert not past.ephemeral
    description = past.embeds[0]["description"]
    assert description.startswith(only_one), description
    assert alice.mention in description and bob.mention in description, "the last page is shown"
    assert t("lb.footer", language, page=1, pages=1, players=2) in past.text
    assert only_one == (  # one page said in words, not "Il n'y a que 1 page" (issue 47 item 10)
        "There is only one page: here it is." if language == "en-US" else "Il n'y a qu'une page : la voici."
    )


@pytest.mark.parametrize("language", ["en-US", "fr"])
async def test_a_cancelled_lobby_is_titled_cancelled(fake_discord: Any, skybo: Any, language: str) -> None:
    """4e: the title of a cancelled lobby says it was cancelled, not that a table is open."""
    fake = fake_discord
    fake.guild.preferred_locale = language
    await skybo()
    alice = fake.user("alice")
    lobby = await open_lobby(fake, alice)
    open_title = t("table.lobby.title", language, game="Skyjo")
    assert title_of(lobby) == open_title
    await (await fake.click(alice, lobby, lobby_button(lobby, "cx"))).response()
    await fake.wait_until(lambda: not lobby.custom_ids, what="the lobby cancelled")
    assert description_of(lobby) == t("table.lobby.cancelled", language)
    assert title_of(lobby) == t("table.lobby.title_cancelled", language, game="Skyjo")
    assert title_of(lobby) != open_title
    # Said once (issue 47 item 10): the title says it was cancelled, the text what that means.
    said = "cancel" if language == "en-US" else "annul"
    assert said in title_of(lobby).lower() and said not in description_of(lobby).lower()
    assert description_of(lobby) == (
        "It closed before the start: nothing was played. A new table may be opened in this channel."
        if language == "en-US"
        else "Elle s'est fermée avant de commencer : rien n'a été joué. Une nouvelle table peut s'ouvrir "
        "dans ce salon."
    )


async def test_remove_a_computer_is_offered_only_while_one_sits(fake_discord: Any, skybo: Any) -> None:
    """10f: no "Remove a computer" in a lobby without a computer player."""
    fake = fake_discord
    await skybo()
    alice = fake.user("alice")
    lobby = await open_lobby(fake, alice)
    assert not any(c.endswith(":ar") for c in lobby.custom_ids)
    assert t("table.button.remove_computer", "en-US") not in lobby.button_labels
    await (await fake.click(alice, lobby, lobby_button(lobby, "ai"))).response()
    await fake.wait_until(lambda: any(c.endswith(":ar") for c in lobby.custom_ids), what="Remove offered")
    await (await fake.click(alice, lobby, lobby_button(lobby, "ar"))).response()
    await fake.wait_until(lambda: "🤖" not in lobby.text, what="the computer gone")
    assert not any(c.endswith(":ar") for c in lobby.custom_ids)
    # A lobby opened with computers offers it at once.
    await (await fake.run_command(alice, "skyjo", "end")).original()
    lobby = await open_lobby(fake, fake.user("bob"), computers=1)  # (Alice's cool-down runs)
    assert not lobby.ephemeral and any(c.endswith(":ar") for c in lobby.custom_ids)


@pytest.mark.parametrize("username", ["bob", "carol"])
async def test_a_player_reads_who_stopped_the_game_early(
    fake_discord: Any, skybo: Any, username: str
) -> None:
    """10g: an open panel, when the host ends the game with /skyjo end, says it was stopped early,
    by whom and with which command (not "ended before its end")."""
    fake = fake_discord
    bot = await skybo()
    alice, guest = fake.user("alice"), fake.user(username)
    table_message, _ = await start_table(fake, bot, alice, [guest])
    panel = await open_panel(fake, guest, table_message)
    question = await private(await fake.run_command(alice, "skyjo", "end"), alice)
    await (await fake.click(alice, question, button(question, "ey"))).answer()
    said = t("table.panel.final_ended_by", guest.locale, user=alice.mention, kind="skyjo")
    await fake.wait_until(lambda: said in panel.text, what="the panel's last words")
    assert f"(/skyjo {t('cmd.end.name', guest.locale)})" in panel.text
    assert "before its end" not in panel.text


@pytest.mark.parametrize("language", ["en-US", "fr"])
async def test_a_rematch_invites_the_other_players_who_join_by_clicking(
    fake_discord: Any, skybo: Any, database: BotDatabase, language: str
) -> None:
    """10h: Rematch opens a lobby where the clicker and the computer players sit; the other people of
    the game are named and take a seat with "Join the rematch". The invitation is stored with the
    lobby: a new process after a restart still shows it, and Alice joins on the old message."""
    fake = fake_discord
    fake.guild.preferred_locale = language
    alice, bob = fake.user("alice"), fake.user("bob")
    invited = t("table.lobby.rematch_invited", language, players=alice.global_name)

    first = database.bot()
    async with fake.running(first, sync_commands=True):
        table_message, game_id = await start_table(
            fake,
            first,
            alice,
            [bob],
            score_limit=10,
            computers=1,
            columns=2,
            rows=2,  # small grids: a short game
        )
        await play_turns(fake, first, game_id, table_message, [alice, bob], random.Random(11))
        await fake.wait_until(
            lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="Rematch"
        )
        lobby = await (await fake.click(bob, table_message, button(table_message, "rm"))).answer()
        assert not lobby.ephemeral and lobby.id != table_message.id
        stored = await first.service.lobbies.open_in_channel(lobby.channel_id)
        assert stored is not None and stored.host_id == bob.id
        humans = [s.user_id for s in stored.seats if s.ai_level is None]
        assert humans == [bob.id], "only the clicker is seated, Alice is asked"
        assert sum(s.ai_level is not None for s in stored.seats) == 1, "the computer player sits again"
        assert invited in lobby.text
        join = lobby_button(lobby, "jn")
        assert lobby.component(join)["label"] == t("table.button.join_rematch", language)
    assert first.is_closed()

    # A new process: Bob adds a computer, the lobby is drawn again from storage, still asking Alice.
    bot = await skybo()
    before = lobby.revision
    await (await fake.click(bob, lobby, lobby_button(lobby, "ai"))).response()
    await fake.wait_until(lambda: lobby.revision > before and lobby.text.count("🤖") == 2, what="redrawn")
    assert invited in lobby.text
    assert lobby.component(join)["label"] == t("table.button.join_rematch", language)

    # Alice clicks it: she is seated, and the invitation is done.
    await (await fake.click(alice, lobby, join)).response()
    await fake.wait_until(lambda: invited not in lobby.text, what="Alice seated")
    stored = await bot.service.lobbies.get(stored.id)
    assert [s.user_id for s in stored.seats if s.ai_level is None] == [bob.id, alice.id]
    assert lobby.component(join)["label"] == t("table.button.join", language)
    await (await fake.click(bob, lobby, lobby_button(lobby, "st"))).response()
    await fake.wait_until(lambda: bot.service.table_in_channel(lobby.channel_id) is not None, what="the game")
