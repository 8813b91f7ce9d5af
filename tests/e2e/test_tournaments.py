"""Tournaments end to end through the fake Discord (issue 41): ``/skybo tournament new``, the sign-up
buttons, a thread per table, a restart in the middle of a round (the swiss on PostgreSQL, the knockout
on SQLite), the standings checked against points computed by hand from the games' stored results, the
final message, and the bad inputs refused privately without changing anything.

The tables are played by the turn timers on a manual clock: nobody clicks, each absent player's turns
are covered, then a computer takes the seat (as for any table) and the game runs to its end; so the
test waits for no real time."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import discord
import pytest

from bot.clock import ManualClock
from bot.service.tournaments import records
from bot.storage.tournaments import BYE, FINISHED, PLAYING
from bot.tournament import pairing
from bot.ui.tournaments import button_id
from fakecord import FakeMessage
from fakecord.constants import FLAG_COMPONENTS_V2

from .conftest import FAST, BotDatabase

LIMIT = 30
EDITS = 0.5  # the table messages coalesced (as in production, one edit a second): nobody reads them here
PLAYERS = ("alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank")


def _players(fake: Any, count: int) -> list[Any]:
    for name in PLAYERS[3:count]:
        fake.add_user(name)
    return [fake.user(name) for name in PLAYERS[:count]]


async def _command(fake: Any, user: Any, sub: str, channel: Any, **options: Any) -> FakeMessage:
    inter = await fake.run_command(user, "skybo", f"tournament {sub}", options=options, channel=channel)
    answer: FakeMessage = await inter.original()
    return answer


async def _click(fake: Any, user: Any, message: FakeMessage, custom_id: str) -> FakeMessage:
    answer: FakeMessage = await (await fake.click(user, message, custom_id)).answer()
    assert answer.ephemeral and answer.visible_to == user.id
    return answer


async def _play_until(
    bot: Any, clock: ManualClock, tournament_id: int, done: Any, seconds: float = 60
) -> Any:
    """Advance the turn timers until ``done(view)``; the view."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        view = await bot.service.tournament_view(tournament_id)
        if done(view):
            return view
        assert loop.time() < deadline, f"the tournament did not get there: {view.tournament}"
        clock.advance(LIMIT + 1)
        await asyncio.sleep(0.05)


async def _expected_points(bot: Any, view: Any) -> dict[int, int]:
    """Points by hand: 2 for each seat finished ahead of, 1 for each shared place, 2 for a bye."""
    points = {p.user_id: 0 for p in view.players}
    for row in view.tables:
        if row.status == BYE:
            points[row.players[0]] += 2
            continue
        results = await bot.service.storage.results.for_game(row.game_id)
        stored = await bot.service.ledger.get_game(row.game_id)
        assert results, "every table's game finished with results"
        for mine in results:
            user = stored.seats[mine.seat].user_id
            if user in points:
                points[user] += sum(
                    2 if mine.rank < other.rank else 1 if mine.rank == other.rank else 0
                    for other in results
                    if other.seat != mine.seat
                )
    return points


async def _new_and_sign_up(fake: Any, bot: Any, users: list[Any], **options: Any) -> tuple[int, FakeMessage]:
    games = fake.channel("games")
    signup = await _command(fake, fake.owner, "new", games, game="skyjo", turn_limit=LIMIT, **options)
    assert not signup.ephemeral and "🏆" in signup.text
    tournament_id = (await bot.service.storage.tournaments.open())[0].id
    for user in users:
        answer = await _click(fake, user, signup, button_id(tournament_id, "join"))
        assert answer.text in ("You are in the tournament.", "C'est noté : tu fais partie du tournoi.")
    await fake.wait_until(lambda: f"({len(users)}/" in signup.text, what="the sign-up list")
    return tournament_id, signup


ON_POSTGRES = pytest.mark.parametrize("database", ["postgres"], indirect=True)


# One backend each (test time): the swiss's restart on PostgreSQL, the knockout on SQLite; both
# backends store tournaments through the same tests of tests/storage.
@ON_POSTGRES
async def test_a_swiss_tournament_of_five_plays_three_rounds_across_a_restart(
    fake_discord: Any, skybo: Any, database: BotDatabase
) -> None:
    fake = fake_discord
    users = _players(fake, 5)
    clock = ManualClock()
    first = database.bot(dataclasses.replace(FAST, clock=clock, edit_interval=EDITS))
    async with fake.running(first, sync_commands=True):
        tournament_id, signup = await _new_and_sign_up(fake, first, users, format="swiss", seats=2, rounds=3)
        assert all(u.global_name in signup.text for u in users)
        assert signup.flags & FLAG_COMPONENTS_V2 and signup.content == "" and not signup.embeds  # V2 look
        # Bad input: refused privately, nothing changes.
        before = await first.service.tournament_view(tournament_id)
        again = await _click(fake, users[0], signup, button_id(tournament_id, "join"))
        assert again.text == "You are already in this tournament."
        early = await _click(fake, users[1], signup, button_id(tournament_id, "start"))
        assert early.text == (
            "Only the tournament's organiser (or a server manager, or a member with the tournament role)"
            " may do that."
        )
        assert await first.service.tournament_view(tournament_id) == before
        started = await _click(fake, fake.owner, signup, button_id(tournament_id, "start"))
        assert started.text.startswith("The tournament has started")
        view = await _play_until(
            first,
            clock,
            tournament_id,
            lambda v: sum(t.status == PLAYING for t in v.round_tables(1)) == 2,
            10,
        )
        byes = [t for t in view.round_tables(1) if t.status == BYE]
        assert len(byes) == 1  # five players at tables of two: one bye a round
        thread = fake.channels[view.round_tables(1)[0].channel_id]
        assert thread.parent_id == fake.channel("games").id  # a table is a thread of the channel
        await fake.wait_until(lambda: len(fake.channel_messages(thread)) >= 2, what="the table in its thread")
        clock.advance(LIMIT + 1)  # the first turns are covered: in the middle of round 1
        await asyncio.sleep(0.1)
    assert first.is_closed()

    second = await skybo(clock=ManualClock(clock.now_ms()), edit_interval=EDITS)
    again_clock = second.service.clock
    view = await _play_until(
        second, again_clock, tournament_id, lambda v: v.tournament.status == FINISHED, 120
    )
    await second.service.tournament_desk.hall.settled()
    # Every round seated every player once; three different byes.
    for number in (1, 2, 3):
        assert sorted(p for t in view.round_tables(number) for p in t.players) == sorted(u.id for u in users)
    assert len({t.players[0] for t in view.tables if t.status == BYE}) == 3
    # The standings are the points computed by hand from the games' results.
    expected = await _expected_points(second, view)
    assert {line.player: line.points for line in view.standings} == expected
    assert view.standings == pairing.standings(
        [p.user_id for p in view.players], records(view.tables), view.tournament.seed
    )
    assert view.tournament.winner_id == view.standings[0].player
    games = fake.channel("games")
    final = await fake.wait_until(
        lambda: next((m for m in fake.channel_messages(games) if "is over. Winner" in m.text), None),
        what="the final message",
    )
    winner = next(u for u in users if u.id == view.tournament.winner_id)
    assert f"Winner: **{winner.global_name}**" in final.text
    assert all(f"game #{t.game_id}" in final.text for t in view.tables if t.game_id)
    standings = next(m for m in fake.channel_messages(games) if "**Standings**" in m.text)
    # Each table's thread is archived once its game ends, its result posted back in the channel.
    rooms = [fake.channels[t.channel_id] for t in view.tables if t.channel_id is not None]
    await fake.wait_until(lambda: all(room.archived for room in rooms), what="the tables' threads archived")
    top = view.standings[0]
    assert f"1. {winner.global_name}: {top.points} pts" in standings.text
    fake.assert_clean()


async def test_a_knockout_of_eight_plays_two_rounds_to_its_winner(
    fake_discord: Any, skybo: Any, database: BotDatabase
) -> None:
    fake = fake_discord
    users = _players(fake, 8)
    clock = ManualClock()
    first = database.bot(dataclasses.replace(FAST, clock=clock, edit_interval=EDITS))
    async with fake.running(first, sync_commands=True):
        tournament_id, signup = await _new_and_sign_up(
            fake, first, users, format="knockout", seats=4, rounds=2, starts="5"
        )
        assert "Starts <t:" in signup.text
        clock.advance(5 * 60 + 1)  # the start time: the sweeper seats round 1
        view = await _play_until(
            first,
            clock,
            tournament_id,
            lambda v: sum(t.status == PLAYING for t in v.round_tables(1)) == 4,
            10,
        )
        assert sorted(len(t.players) for t in view.round_tables(1)) == [2, 2, 2, 2]
        clock.advance(LIMIT + 1)
        await asyncio.sleep(0.1)
    second = await skybo(clock=ManualClock(clock.now_ms()), edit_interval=EDITS)
    view = await _play_until(
        second, second.service.clock, tournament_id, lambda v: v.tournament.status == FINISHED, 120
    )
    await second.service.tournament_desk.hall.settled()
    final_table = view.round_tables(2)
    assert len(final_table) == 1 and len(final_table[0].players) == 4
    winners = set()
    for row in view.round_tables(1):  # exactly each table's best goes on
        best = min(place for _, place in row.result or ())
        winners.add(next(p for p, place in row.result or () if place == best and p > 0))
    assert set(final_table[0].players) == winners
    assert view.tournament.winner_id == min(final_table[0].result or (), key=lambda r: r[1])[0]
    expected = await _expected_points(second, view)
    assert {line.player: line.points for line in view.standings} == expected
    games = fake.channel("games")
    standings = next(m for m in fake.channel_messages(games) if "**Standings**" in m.text)
    assert [a.filename for a in standings.attachments] == ["bracket.png"]  # the bracket picture
    fake.assert_clean()


async def test_bad_options_are_refused_privately_and_change_nothing(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    games = fake.channel("games")
    alice = fake.user("alice")
    not_understood = (
        "The start time is not understood: minutes from now (30), hours (2h), days (1d, at most 30)"
        " or a Unix time."
    )
    for user, options, reason in [
        (alice, {"seats": 2, "rounds": 3},
         "Only someone who can manage this server, or has the role its admins named for tournaments,"
         " may create a tournament."),
        (fake.owner, {"seats": 1, "rounds": 3}, "A table seats 2 to 8 players."),
        (fake.owner, {"seats": 9, "rounds": 3}, "A table seats 2 to 8 players."),
        (fake.owner, {"seats": 2, "rounds": 0}, "A tournament has 1 to 12 rounds."),
        (fake.owner, {"seats": 2, "rounds": 7, "format": "knockout"},
         "A knockout of that many rounds would need more than 64 players: choose fewer rounds."),
        (fake.owner, {"seats": 2, "rounds": 2, "starts": "1600000000"},
         "That start time has passed: give one to come."),
        (fake.owner, {"seats": 2, "rounds": 2, "starts": "tomorrowish"}, not_understood),
    ]:  # fmt: skip
        options.setdefault("format", "swiss")
        answer = await _command(fake, user, "new", games, game="skyjo", **options)
        assert answer.ephemeral and answer.text == reason
    assert await bot.service.storage.tournaments.open() == []
    # A full tournament, a stranger dropping, a drop where there is none.
    signup = await _command(
        fake, fake.owner, "new", games, game="skyjo", format="knockout", seats=2, rounds=1
    )
    tournament_id = (await bot.service.storage.tournaments.open())[0].id
    bob, carol = fake.user("bob"), fake.user("carol")
    await _click(fake, alice, signup, button_id(tournament_id, "join"))
    await _click(fake, bob, signup, button_id(tournament_id, "join"))
    full = await _click(fake, carol, signup, button_id(tournament_id, "join"))
    assert full.text == "Ce tournoi est complet (2 places)."  # Carol reads French
    before = await bot.service.tournament_view(tournament_id)
    stranger = await _command(fake, carol, "drop", games, player=alice)
    assert stranger.ephemeral and stranger.text.startswith("Seule la personne qui organise le tournoi")
    elsewhere = await _command(fake, fake.owner, "drop", fake.channel("general"), player=alice)
    assert elsewhere.text == "There is no tournament running in this channel."
    assert await bot.service.tournament_view(tournament_id) == before
    cancelled = await _command(fake, fake.owner, "cancel", games)
    assert cancelled.text == "The tournament is cancelled."
    await bot.service.tournament_desk.hall.settled()
    await fake.wait_until(lambda: "This tournament was cancelled." in signup.text, what="the sign-up closed")
    assert signup.custom_ids == []


async def test_the_organiser_drops_pauses_and_resumes(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    users = _players(fake, 3)
    clock = ManualClock()
    bot = await skybo(clock=clock, edit_interval=EDITS)
    tournament_id, signup = await _new_and_sign_up(fake, bot, users, format="swiss", seats=2, rounds=2)
    await _click(fake, fake.owner, signup, button_id(tournament_id, "start"))
    view = await _play_until(
        bot, clock, tournament_id, lambda v: any(t.status == PLAYING for t in v.tables), 10
    )
    games = fake.channel("games")
    paused = await _command(fake, fake.owner, "pause", games)
    assert paused.ephemeral and paused.text.startswith("The tournament is paused")
    table = next(t for t in view.round_tables(1) if t.status == PLAYING)
    dropped = next(u for u in users if u.id == table.players[0])
    # In the table's thread too: the tournament of the thread's channel.
    answer = await _command(fake, fake.owner, "drop", fake.channels[table.channel_id], player=dropped)
    assert answer.text == f"<@{dropped.id}> is dropped from the tournament."
    game = bot.service.tables[table.game_id]
    assert game.seat_of(dropped.id) in game.replaced()  # a computer plays their seat on
    # Round 1 ends; paused, round 2 waits for resume.
    view = await _play_until(
        bot, clock, tournament_id, lambda v: all(t.status != PLAYING for t in v.tables), 60
    )
    assert view.tournament.round == 1
    resumed = await _command(fake, fake.owner, "resume", games)
    assert resumed.text == "The tournament goes on."
    view = await bot.service.tournament_view(tournament_id)
    assert view.tournament.round == 2
    assert dropped.id not in [p for t in view.round_tables(2) for p in t.players]
    await bot.service.tournament_desk.hall.settled()
    standings = next(m for m in fake.channel_messages(games) if "**Standings**" in m.text)
    assert f"{dropped.global_name}" in standings.text and "(dropped)" in standings.text
    fake.assert_clean()


async def test_without_threads_the_tables_wait_and_resume_deals_them(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    users = _players(fake, 2)
    bot = await skybo(edit_interval=EDITS)
    games = fake.channel("games")
    await fake.set_overwrite(games, fake.bot_user, deny=discord.Permissions(create_public_threads=True))
    tournament_id, signup = await _new_and_sign_up(fake, bot, users, format="swiss", seats=2, rounds=1)
    await _click(fake, fake.owner, signup, button_id(tournament_id, "start"))
    warning = await fake.wait_until(
        lambda: next((m for m in fake.channel_messages(games) if "Create Public Threads" in m.content), None),
        what="the line saying threads are refused",
    )
    assert "/skybo tournament resume" in warning.content
    view = await bot.service.tournament_view(tournament_id)
    assert [t.status for t in view.round_tables(1)] == ["seated"]  # no game dealt in the channel itself
    await fake.set_overwrite(games, fake.bot_user)  # the permission given back
    resumed = await _command(fake, fake.owner, "resume", games)
    assert resumed.text == "The tournament goes on."
    view = await bot.service.tournament_view(tournament_id)
    (table,) = view.round_tables(1)
    assert table.status == PLAYING and fake.channels[table.channel_id].parent_id == games.id
    fake.take_rejections(50013)  # the refused thread, as Discord answers it
    fake.assert_clean()


async def test_a_sign_up_posted_as_text_takes_the_tables_look_at_its_next_redraw(
    fake_discord: Any, skybo: Any
) -> None:
    """A sign-up posted before the V2 look (text and a row of buttons, no flag) keeps its buttons, and
    the next redraw turns it into one container (Discord lets an edit set IS_COMPONENTS_V2 when it
    empties the content; the fake refuses it otherwise)."""
    fake = fake_discord
    bot = await skybo(edit_interval=EDITS)
    alice, bob = fake.user("alice"), fake.user("bob")
    tournament_id, signup = await _new_and_sign_up(fake, bot, [alice], format="swiss", seats=2, rounds=1)
    buttons = [c for c in signup.all_components() if c.get("custom_id")]
    signup.flags &= ~FLAG_COMPONENTS_V2
    signup.content = "🏆 Skyjo tournament (the old look)"
    row = [{k: v for k, v in b.items() if k != "id"} for b in buttons]
    signup.components = [{"type": 1, "components": row}]
    await _click(fake, bob, signup, button_id(tournament_id, "join"))
    await fake.wait_until(
        lambda: signup.flags & FLAG_COMPONENTS_V2 and "(2/" in signup.text, what="the sign-up's new look"
    )
    assert signup.content == "" and "old look" not in signup.text
    assert sorted(signup.custom_ids) == sorted(b["custom_id"] for b in buttons)
    fake.assert_clean()


async def test_a_join_before_the_sign_up_is_known_shows_on_it(fake_discord: Any, skybo: Any) -> None:
    """The sign-up is the command's answer, its id read back after it is posted: Alice joins while the
    bot waits to read it (Discord answers that read 429 for 3 s, as long as the join may take to be
    answered, so the join falls in that wait on a loaded machine too), and the sign-up still shows her
    (her join's redraw had no message to edit: the list stayed "(0/...)")."""
    fake = fake_discord
    bot = await skybo(edit_interval=EDITS)
    alice = fake.user("alice")
    games = fake.channel("games")
    fake.rate_limit("GET", "/webhooks/{application_id}/{token}/messages/{message_id}", retry_after=3.0)
    signup = await _command(
        fake, fake.owner, "new", games, game="skyjo", format="swiss", seats=2, rounds=1, turn_limit=LIMIT
    )
    (held,) = await bot.service.storage.tournaments.open()
    assert held.signup_message_id is None  # the bot is still waiting to read its answer back
    answer = await _click(fake, alice, signup, button_id(held.id, "join"))
    assert answer.text == "You are in the tournament."
    await fake.wait_until(lambda: "(1/" in signup.text and alice.global_name in signup.text, 10, what="Alice")
    (held,) = await bot.service.storage.tournaments.open()
    assert held.signup_message_id == signup.id
    fake.assert_clean()
