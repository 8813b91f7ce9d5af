"""A database blink's last edges (issue 47): the writes a click makes besides a move's commit, through
the real bot against the fake Discord, on both backends (the blinks of ``test_db_blink.py``).

- A Next round vote that is not the last one stores the votes in the game's meta (the one write shared
  by hints, seat changes and timers, ``ServiceCore._set_meta``). Met by a blink it is tried again, as a
  move's commit is, and counted (before: refused at once, "could not be saved", no retry, no log line).
- A lobby's Start deals the game (one write). Met by a blink it is tried again and read back (the
  lobby id is the deal's key): the table is dealt once (before: "click failed: the database did not
  answer").
- A Start whose deal landed but whose answer was lost, the database then away longer than the retries,
  is refused "reconnecting"; once the database is back, the channel is never stuck with a table nobody
  sees: Start again, or ``/skyjo new``, shows that game's table with its buttons (before: ``/skyjo
  new`` said "This channel already has a Skyjo table" and linked a lobby whose Start was refused).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from typing import Any

import pytest

from bot.i18n import translate as t
from bot.storage.errors import ConnectionLost, DiskIOError
from fakecord import FakeDiscord, FakeMessage, FakeUser

from . import test_db_blink
from .conftest import (
    BOTH_BACKENDS,
    BotDatabase,
    act_of,
    button,
    open_lobby,
    open_panel,
    play_turns,
    private_answer,
)
from .test_db_blink import Blackout, SqliteBlackout

blackout_for = test_db_blink.blackout_for


async def quiet(fake: FakeDiscord, bot: Any) -> None:
    """Nothing else about to write (a turn's mention kept in meta, a language noted): the next write is
    the one the test's click makes."""
    await bot.presenter.flush()
    await fake.wait_until(lambda: not bot.service.locale_writes, what="the background writes")


def said(caplog: pytest.LogCaptureFixture, message: str) -> int:
    return sum(1 for r in caplog.records if r.getMessage() == message)


async def games_in(bot: Any, channel_id: int) -> list[int]:
    found = await bot.storage.games.active_in_channel(channel_id)
    return [] if found is None else [found]


@BOTH_BACKENDS
async def test_a_next_round_vote_met_by_a_blink_is_tried_again_and_counted(
    fake_discord: FakeDiscord,
    skybo: Any,
    blackout_for: Callable[[Any], Blackout],
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = fake_discord
    bot = await skybo()
    blackout = blackout_for(bot)
    alice, bob = fake.user("alice"), fake.user("bob")
    lobby = await open_lobby(fake, alice, score_limit=200, columns=2, rows=2, turn_limit=0)
    await (await fake.click(bob, lobby, lobby.custom_ids[0])).response()
    await fake.wait_until(lambda: "Bob" in lobby.text, what="Bob seated")
    await (await fake.click(alice, lobby, next(c for c in lobby.custom_ids if c.endswith(":st")))).response()
    table = await fake.wait_until(lambda: next(iter(bot.service.tables.values()), None), what="the game")
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table")
    over = lambda: table.state.phase == "round_over"  # noqa: E731
    await play_turns(fake, bot, table.id, lobby, [alice, bob], random.Random(3), until=over)
    await fake.wait_until(lambda: any(act_of(c) == "nx" for c in lobby.custom_ids), what="Next round")
    await quiet(fake, bot)
    caplog.set_level(logging.INFO, logger="bot")

    blackout.blink()
    vote = await fake.click(alice, lobby, button(lobby, "nx"))
    answer = await private_answer(vote)
    assert answer.text == t("table.round.waiting", alice.locale, players="Bob"), answer.text
    seat = table.seat_of(alice.id)
    assert table.votes == {seat} and table.state.phase == "round_over"
    stored = await bot.service.ledger.get_game(table.id)
    assert stored.meta.get("votes") == [seat]  # stored, not only in memory
    assert said(caplog, "meta not saved: trying again") == 1 and said(caplog, "meta saved after a retry") == 1
    assert not table.needs_reload
    if isinstance(blackout, SqliteBlackout):
        assert blackout.refused == 1
    # Bob's vote, the last one, deals the next round as usual.
    await (await fake.click(bob, lobby, button(lobby, "nx"))).response()
    await fake.wait_until(lambda: table.state.phase != "round_over", what="the next round")


async def lobby_of_two(fake: FakeDiscord, alice: FakeUser, bob: FakeUser, **options: Any) -> FakeMessage:
    lobby = await open_lobby(fake, alice, **options)
    await (await fake.click(bob, lobby, lobby.custom_ids[0])).response()
    await fake.wait_until(lambda: "Bob" in lobby.text, what="Bob seated")
    return lobby


@BOTH_BACKENDS
async def test_a_start_met_by_a_blink_deals_its_game_once(
    fake_discord: FakeDiscord,
    skybo: Any,
    blackout_for: Callable[[Any], Blackout],
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = fake_discord
    bot = await skybo()
    blackout = blackout_for(bot)
    alice, bob = fake.user("alice"), fake.user("bob")
    lobby = await lobby_of_two(fake, alice, bob)
    await quiet(fake, bot)
    caplog.set_level(logging.INFO, logger="bot")

    blackout.blink()
    start = await fake.click(alice, lobby, next(c for c in lobby.custom_ids if c.endswith(":st")))
    await start.response()
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table")
    assert not [m for m in fake.messages.values() if m.visible_to == alice.id], "no refusal"
    assert sum(r.getMessage().startswith("storage.deal_retry") for r in caplog.records) == 1
    game_ids = await games_in(bot, lobby.channel_id)
    assert len(game_ids) == 1 and list(bot.service.tables) == game_ids
    panel = await open_panel(fake, bob, lobby)
    assert panel.custom_ids


@BOTH_BACKENDS
@pytest.mark.parametrize("then", ["start again", "new"])
async def test_a_start_whose_deal_landed_unanswered_never_leaves_an_invisible_table(
    fake_discord: FakeDiscord,
    skybo: Any,
    blackout_for: Callable[[Any], Blackout],
    database: BotDatabase,
    monkeypatch: pytest.MonkeyPatch,
    then: str,
) -> None:
    """The deal's COMMIT lands, its answer is lost and the database stays away longer than the Start's
    retries (4 s): the Start is refused "reconnecting", with the game stored that this process does not
    hold. The database back, the channel's next Start or ``/skyjo new`` shows that very game's table."""
    fake = fake_discord
    bot = await skybo()
    blackout = blackout_for(bot)
    alice, bob = fake.user("alice"), fake.user("bob")
    lobby = await lobby_of_two(fake, alice, bob)
    await quiet(fake, bot)
    games = bot.storage.games
    real = games.create_game

    async def landed_unanswered(**fields: Any) -> Any:
        monkeypatch.setattr(games, "create_game", real)
        await real(**fields)  # committed
        blackout.begin()
        if database.kind == "sqlite":
            raise DiskIOError(str(database.path), "the answer lost (injected by the test)")
        raise ConnectionLost("the test's server", "the answer lost (injected by the test)")

    monkeypatch.setattr(games, "create_game", landed_unanswered)
    start = next(c for c in lobby.custom_ids if c.endswith(":st"))
    refused = await private_answer(await fake.click(alice, lobby, start))
    assert refused.text == t("table.error.reconnecting", alice.locale), refused.text
    blackout.end()
    assert not bot.service.tables and len(await games_in(bot, lobby.channel_id)) == 1
    assert any(c.endswith(":st") for c in lobby.custom_ids)  # the lobby still shows its Start

    if then == "start again":
        await (await fake.click(alice, lobby, start)).response()
    else:
        busy = await private_answer(await fake.run_command(bob, "skyjo", "new"))
        assert busy.text.startswith("This channel already has a Skyjo table"), busy.text
        assert busy.text.endswith(f"/{lobby.channel_id}/{lobby.id}"), busy.text  # the link: that message
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table shown")
    game_ids = await games_in(bot, lobby.channel_id)
    assert len(game_ids) == 1 and list(bot.service.tables) == game_ids  # that game, held now
    stored = await bot.service.ledger.get_game(game_ids[0])
    assert stored.meta.get("lobby_id") is not None
    panel = await open_panel(fake, alice, lobby)
    assert any(act_of(c) == "rv" for c in panel.custom_ids)  # her grid, to play


async def test_a_start_again_after_an_unanswered_deal_in_a_thread_finds_that_game(
    fake_discord: FakeDiscord,
    skybo: Any,
    blackout_for: Callable[[Any], Blackout],
    database: BotDatabase,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same with a game played in its own thread (docs/discord.md, "Threads"): the first Start
    started the thread and dealt the game there, unanswered. Start again finds that game in that thread
    (the thread has the lobby message's id): no second game in the channel, no second thread, no
    "I may not start a thread" line (Discord refuses a second thread from one message)."""
    fake = fake_discord
    bot = await skybo()
    blackout = blackout_for(bot)
    alice, bob = fake.user("alice"), fake.user("bob")
    general = fake.channel("general")
    lobby = await lobby_of_two(fake, alice, bob, thread=True)
    await quiet(fake, bot)
    games = bot.storage.games
    real = games.create_game

    async def landed_unanswered(**fields: Any) -> Any:
        monkeypatch.setattr(games, "create_game", real)
        await real(**fields)
        blackout.begin()
        raise DiskIOError(str(database.path), "the answer lost (injected by the test)")

    monkeypatch.setattr(games, "create_game", landed_unanswered)
    start = next(c for c in lobby.custom_ids if c.endswith(":st"))
    refused = await private_answer(await fake.click(alice, lobby, start))
    assert refused.text == t("table.error.reconnecting", alice.locale), refused.text
    blackout.end()
    [thread] = fake.threads_of(general)
    assert thread.id == lobby.id and len(await games_in(bot, thread.id)) == 1

    await (await fake.click(alice, lobby, start)).response()
    table = await fake.wait_until(lambda: next(iter(bot.service.tables.values()), None), what="the game")
    assert table.channel_id == thread.id and fake.threads_of(general) == [thread]
    assert await games_in(bot, general.id) == [] and await games_in(bot, thread.id) == [table.id]
    assert not any("Create Public Threads" in m.text for m in fake.messages.values())
    await fake.wait_until(lambda: table.stored.message_id is not None, what="the table in the thread")
    assert fake.messages[table.stored.message_id].channel_id == thread.id


@pytest.mark.parametrize("away", ["writes", "everything"])
async def test_a_vote_the_database_never_took_is_answered_honestly(
    fake_discord: FakeDiscord,
    skybo: Any,
    blackout_for: Callable[[Any], Blackout],
    away: str,
) -> None:
    """The writes fail for longer than the retries (4 s): the meta is read back. Readable and without
    the vote, "could not be saved; nothing changed" (true: the read shows it); unreadable, the write
    may have landed: "reconnecting", and the table waits for the database (``/healthz``'s tables) and
    reloads itself once it answers, the vote then as stored (here: not), and voting again works."""
    fake = fake_discord
    bot = await skybo()
    blackout = blackout_for(bot)
    assert isinstance(blackout, SqliteBlackout)
    alice, bob = fake.user("alice"), fake.user("bob")
    lobby = await lobby_of_two(fake, alice, bob, score_limit=200, columns=2, rows=2, turn_limit=0)
    await (await fake.click(alice, lobby, next(c for c in lobby.custom_ids if c.endswith(":st")))).response()
    table = await fake.wait_until(lambda: next(iter(bot.service.tables.values()), None), what="the game")
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table")
    over = lambda: table.state.phase == "round_over"  # noqa: E731
    await play_turns(fake, bot, table.id, lobby, [alice, bob], random.Random(3), until=over)
    await fake.wait_until(lambda: any(act_of(c) == "nx" for c in lobby.custom_ids), what="Next round")
    await quiet(fake, bot)

    if away == "writes":
        blackout.failing_writes = 1000
    else:
        blackout.begin()
    answer = await private_answer(await fake.click(alice, lobby, button(lobby, "nx")))
    blackout.failing_writes = 0
    if away == "writes":
        assert answer.text == t("table.error.unavailable", alice.locale), answer.text
        assert not table.needs_reload and table.votes == set()
    else:
        assert answer.text == t("table.error.reconnecting", alice.locale), answer.text
        assert table.needs_reload and bot.service.tables_waiting() == 1
        blackout.end()
        await fake.wait_until(lambda: not table.needs_reload, timeout=15, what="the table reloaded")
        assert table.votes == set()
    vote = await private_answer(await fake.click(alice, lobby, button(lobby, "nx")))
    assert vote.text == t("table.round.waiting", alice.locale, players="Bob"), vote.text
    assert table.votes == {table.seat_of(alice.id)}
