"""Fair use (issue 23): tables per host and per server, and the cool-down between two tables of a host.

``/skyjo new``, ``/skipbo new`` and Rematch all open a table; a table counts from its lobby until its
game ends or the lobby closes. A refusal is a private answer in the asker's language, and it stores
nothing. The cool-down runs on the service's clock (a manual one here: ``clock.advance``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.client import SkyboBot, create_bot
from bot.clock import ManualClock
from bot.config import Limits
from fakecord import FakeChannel, FakeMessage, FakeUser

from .conftest import FAST, act_of, bot_on, button, end_game, play_turns, private_answer, start_table

COOLDOWN = Limits().cooldown_seconds  # 10 s, the default every test here keeps

USER_CAP_EN = (
    "You already host 3 tables, the most one player may: end one (`/skyjo end` or `/skipbo end` in its "
    "channel) or let it finish before opening another."
)
USER_CAP_FR = (
    "Tu héberges déjà 3 tables, le maximum pour un joueur : termine-en une (`/skyjo fin` ou `/skipbo fin` "
    "dans son salon) ou laisse-la finir avant d'en ouvrir une autre."
)


def server_cap_en(count: int) -> str:
    return (
        f"This server already has {count} tables running, the most it may have: wait for one of them to "
        "end before opening another."
    )


def server_cap_fr(count: int) -> str:
    return (
        f"Ce serveur a déjà {count} tables en cours, son maximum : attends que l'une d'elles se termine "
        "avant d'en ouvrir une autre."
    )


def wait_en(seconds: int) -> str:
    return f"You opened a table a moment ago: wait {seconds} s before opening another."


def wait_fr(seconds: int) -> str:
    return f"Tu viens d'ouvrir une table : attends {seconds} s avant d'en ouvrir une autre."


@pytest.fixture
async def capped(
    connect_bot: Callable[..., Awaitable[Any]], db_file: Path
) -> Callable[..., Awaitable[SkyboBot]]:
    """``await capped(limits=..., clock=...)``: the real bot with these limits (default: the defaults)."""

    async def start(*, limits: Limits | None = None, clock: ManualClock | None = None) -> SkyboBot:
        tuning = dataclasses.replace(FAST, clock=clock)
        bot = create_bot(database_path=db_file, tuning=tuning, limits=limits)
        started: SkyboBot = await connect_bot(bot, sync_commands=True)
        return started

    return start


def channels(fake: Any, count: int) -> list[FakeChannel]:
    """#general, #games and more channels up to ``count`` (added before the bot connects)."""
    extra = [fake.add_channel(f"table-{i}") for i in range(3, count + 1)]
    return [fake.channel("general"), fake.channel("games"), *extra]


async def new(
    fake: Any, user: FakeUser, channel: FakeChannel, game: str = "skyjo", **options: Any
) -> FakeMessage:
    """``/<game> new`` in ``channel``: the answer, a public lobby or a private refusal."""
    message: FakeMessage = await (
        await fake.run_command(user, game, "new", options=options, channel=channel)
    ).original()
    return message


async def opened(
    fake: Any, user: FakeUser, channel: FakeChannel, game: str = "skyjo", **options: Any
) -> FakeMessage:
    lobby = await new(fake, user, channel, game, **options)
    assert not lobby.ephemeral, f"{user.username} could not open a table in #{channel.name}: {lobby.text}"
    return lobby


async def refused(fake: Any, user: FakeUser, channel: FakeChannel, game: str = "skyjo") -> str:
    """``/<game> new`` refused: the private answer's text (checked to be for ``user`` only)."""
    answer = await private_answer(await fake.run_command(user, game, "new", channel=channel))
    return answer.text


async def stored_lobbies(bot: SkyboBot) -> int:
    row = await bot.service.storage.db.run(lambda c: c.execute("SELECT count(*) FROM lobbies").fetchone())
    return int(row[0])


def public_messages(fake: Any, channel: FakeChannel) -> list[FakeMessage]:
    return [m for m in fake.messages.values() if m.channel_id == channel.id and not m.ephemeral]


async def test_a_fourth_table_is_refused_privately_in_the_hosts_language_and_nothing_is_stored(
    fake_discord: Any, capped: Any
) -> None:
    fake = fake_discord
    general, games, c3, c4, c5, c6, c7 = channels(fake, 7)
    clock = ManualClock()
    bot = await capped(clock=clock)
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")

    # Alice hosts a game in play, a Skyjo lobby and a Skip-Bo lobby: three tables, the default cap.
    table_message, game_id = await start_table(fake, bot, alice, [bob], general, turn_limit=0)
    clock.advance(COOLDOWN)
    await opened(fake, alice, games)
    clock.advance(COOLDOWN)
    await opened(fake, alice, c3, "skipbo")
    clock.advance(COOLDOWN)
    before = await stored_lobbies(bot)
    assert await refused(fake, alice, c4) == USER_CAP_EN
    assert await refused(fake, alice, c4, "skipbo") == USER_CAP_EN
    assert await stored_lobbies(bot) == before and not public_messages(fake, c4), "nothing stored or posted"

    # Carol (French) hosts three lobbies; her fourth is refused in French. Alice's tables are not hers.
    for channel in (c4, c5, c6):
        await opened(fake, carol, channel)
        clock.advance(COOLDOWN)
    before = await stored_lobbies(bot)
    assert await refused(fake, carol, c7) == USER_CAP_FR
    assert await stored_lobbies(bot) == before and not public_messages(fake, c7)

    # Closing a lobby frees a place: Alice opens another, and is at the cap again.
    closed = await (await fake.run_command(alice, "skyjo", "end", channel=games)).original()
    assert not closed.ephemeral
    await opened(fake, alice, c7)
    clock.advance(COOLDOWN)
    assert await refused(fake, alice, games) == USER_CAP_EN
    # Ending the game in play frees one too (its channel is free again as well).
    await end_game(fake, bot, alice, general, game_id)
    await opened(fake, alice, general)
    # the ended table's last edit comes from the channel's surface hearing TableEnded: waited for
    await fake.wait_until(lambda: "ended by" in table_message.text, what="the ended table's last edit")


async def test_the_server_cap_holds_across_users_and_counts_games_in_play(
    fake_discord: Any, capped: Any
) -> None:
    fake = fake_discord
    general, games, c3 = channels(fake, 3)
    bot = await capped(limits=Limits(per_server=2))
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")

    lobby = await opened(fake, alice, general, computers=1)
    await opened(fake, bob, games)
    # Two tables on the server: nobody opens a third, whoever they are (each hosts fewer than 3).
    before = await stored_lobbies(bot)
    assert await refused(fake, carol, c3) == server_cap_fr(2)
    assert await refused(fake, bob, c3) == server_cap_en(2)
    assert await stored_lobbies(bot) == before and not public_messages(fake, c3)

    # Alice's lobby becomes a game: still a table of the server.
    await (await fake.click(alice, lobby, next(c for c in lobby.custom_ids if c.endswith(":st")))).response()
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table")
    game_id = next(t.id for t in bot.service.tables.values() if t.stored.message_id == lobby.id)
    assert await refused(fake, carol, c3) == server_cap_fr(2)

    # Once it ends, Carol opens hers, and the server is full again.
    await end_game(fake, bot, alice, general, game_id)
    await opened(fake, carol, c3)
    assert await refused(fake, alice, general) == server_cap_en(2)


async def test_the_cool_down_refuses_then_accepts_once_the_clock_moves(
    fake_discord: Any, capped: Any
) -> None:
    fake = fake_discord
    general, games, c3, c4 = channels(fake, 4)
    clock = ManualClock()
    bot = await capped(clock=clock)
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")

    await opened(fake, alice, general)
    before = await stored_lobbies(bot)
    assert await refused(fake, alice, games) == wait_en(10)
    clock.advance(3)
    assert await refused(fake, alice, games, "skipbo") == wait_en(7)
    clock.advance(6.5)
    assert await refused(fake, alice, games) == wait_en(1)  # half a second left: rounded up
    assert await stored_lobbies(bot) == before and not public_messages(fake, games)
    # The refusals started no cool-down of their own: ten seconds after her table, Alice opens another.
    clock.advance(0.5)
    await opened(fake, alice, games)

    # One host's cool-down is not another's. Carol reads hers in French.
    await opened(fake, carol, c3)
    assert await refused(fake, carol, c4) == wait_fr(10)
    # A /skyjo new refused for another reason (the channel is taken) opens nothing: no cool-down.
    busy = await private_answer(await fake.run_command(bob, "skyjo", "new", channel=general))
    assert busy.text.startswith("This channel already has a Skyjo table")
    await opened(fake, bob, c4)


async def test_rematch_is_held_to_the_same_caps_and_cool_down(fake_discord: Any, capped: Any) -> None:
    fake = fake_discord
    general, games, c3, c4, c5 = channels(fake, 5)
    clock = ManualClock()
    bot = await capped(clock=clock)
    alice = fake.user("alice")

    # A whole game, Alice against a computer player, to get its Rematch button.
    table_message, game_id = await start_table(
        fake, bot, alice, [], general, computers=1, score_limit=10, turn_limit=0
    )
    await play_turns(fake, bot, game_id, table_message, [alice], random.Random(4))
    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="Rematch")
    rematch = button(table_message, "rm")

    # The finished game counts no more: Alice opens three lobbies elsewhere, the cap.
    for channel in (games, c3, c4):
        clock.advance(COOLDOWN)
        await opened(fake, alice, channel)
    before, posted = await stored_lobbies(bot), len(public_messages(fake, general))
    answer = await private_answer(await fake.click(alice, table_message, rematch))
    assert answer.text == USER_CAP_EN
    # One lobby closed: under the cap, but Alice opened her last table a moment ago.
    await (await fake.run_command(alice, "skyjo", "end", channel=c4)).original()
    answer = await private_answer(await fake.click(alice, table_message, rematch))
    assert answer.text == wait_en(10)
    assert await stored_lobbies(bot) == before and len(public_messages(fake, general)) == posted
    assert [act_of(c) for c in table_message.custom_ids] == ["rm"], "the Rematch button stays"

    clock.advance(COOLDOWN)
    await fake.click(alice, table_message, rematch)
    # The new lobby is posted in the game's channel (as the answer or a follow-up of the click).
    await fake.wait_until(lambda: len(public_messages(fake, general)) > posted, what="the rematch lobby")
    lobby = public_messages(fake, general)[-1]
    assert any(c.endswith(":st") for c in lobby.custom_ids) and "Alice" in lobby.text
    assert await stored_lobbies(bot) == before + 1
    # The Rematch was a table opened: Alice is at the cap again, and its cool-down runs.
    assert await refused(fake, alice, c5) == USER_CAP_EN
    await (await fake.run_command(alice, "skyjo", "end", channel=c3)).original()
    assert await refused(fake, alice, c5) == wait_en(10)
    clock.advance(COOLDOWN)
    await opened(fake, alice, c5)


async def test_the_caps_hold_after_a_restart(fake_discord: Any, capped: Any, db_file: Path) -> None:
    """The tables are counted from what is stored: the games the new process resumed, the open lobbies."""
    fake = fake_discord
    general, games, c3, c4, c5 = channels(fake, 5)
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    clock = ManualClock()

    first = bot_on(db_file, clock)
    async with fake.running(first, sync_commands=True):
        _, game_id = await start_table(fake, first, alice, [bob], general, turn_limit=0)
        clock.advance(COOLDOWN)
        await opened(fake, alice, games)
        clock.advance(COOLDOWN)
        await opened(fake, alice, c3, "skipbo")
    assert first.is_closed()

    second = await capped(limits=Limits(per_server=4), clock=ManualClock())
    assert game_id in second.service.tables
    before = await stored_lobbies(second)
    assert await refused(fake, alice, c4) == USER_CAP_EN
    await opened(fake, bob, c4)  # the server's fourth table
    assert await refused(fake, carol, c5) == server_cap_fr(4)
    assert await stored_lobbies(second) == before + 1

    # Alice's game ends: a place for her, and one on the server.
    await end_game(fake, second, alice, general, game_id)
    await opened(fake, carol, c5)
    assert await refused(fake, alice, general) == server_cap_en(4)


async def test_requests_at_the_same_time_cannot_both_pass_the_cap(fake_discord: Any, capped: Any) -> None:
    """Two /skyjo new sent together by a host one table under the cap: exactly one opens."""
    fake = fake_discord
    general, games, c3, c4 = channels(fake, 4)
    bot = await capped(limits=Limits(cooldown_seconds=0))  # only the cap is at work here
    alice = fake.user("alice")
    await opened(fake, alice, general)
    await opened(fake, alice, games)
    for _ in range(2):
        sent = [await fake.run_command(alice, "skyjo", "new", channel=channel) for channel in (c3, c4)]
        answers = await asyncio.gather(*(inter.original() for inter in sent))
        assert sorted(a.ephemeral for a in answers) == [False, True]
        assert next(a for a in answers if a.ephemeral).text == USER_CAP_EN
        assert len(await bot.service.lobbies.open_ids(host_id=alice.id)) == 3
        # Close the one that opened, and try again (the other channel may win this time).
        opened_in = next(a for a in answers if not a.ephemeral).channel_id
        await (await fake.run_command(alice, "skyjo", "end", channel=fake.channels[opened_in])).original()
