"""The gateway's hard paths, played through with the real bot: a Skyjo game goes on across a RECONNECT
(op 7), a close with 4007 (Invalid seq) or 4009 (Session timed out), and a zombie connection.

Each test starts a table for Alice and Bob, plays to Alice's turn, sends her Draw click and triggers the
path while the bot handles it (the click is in flight: received, not yet answered), then plays her
Replace (dispatched while the bot is away when the path replays: op 7, zombie), and the game to its end.
Every test checks the same things (:func:`check_clean_play`): the path the session took (``gateway_log``:
resumed, or refused and identified anew), every interaction delivered to the bot exactly once and
answered exactly once (a replay of an event the bot already had would deliver a click twice: the bot
would answer it again, a 40060 rejection, and apply or refuse it a second time), the game's version
exactly the moves made, and the finished game's action log matching it.

The last test speaks the gateway protocol itself: Discord's own 4007, for a RESUME past the last event.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import aiohttp
import pytest

from bot.client import SkyboBot
from bot.service.ledger import GameLedger
from fakecord import FakeDiscord, FakeInteraction, FakeMessage, GatewaySession

from .conftest import FAST, BotDatabase, button, open_panel, play_turns, start_table, until_turn

# A zombie shows after this much silence (discord.py's heartbeat_timeout, 60 s by default); the fake's
# heartbeats every 250 ms keep a quiet connection alive below it.
HEARTBEAT_TIMEOUT = 2.0
HEARTBEAT_INTERVAL_MS = 250
IDENTIFY_WAIT = 0.2


async def bot_for(database: BotDatabase, connect_bot: Any, **connection: Any) -> SkyboBot:
    """The real bot on the test's database, connected (commands synced), with discord.py's
    ``ConnectionState`` options ``connection`` (e.g. ``heartbeat_timeout``) set before it connects."""
    bot = database.bot(FAST)
    for name, value in connection.items():
        setattr(bot._connection, name, value)
    started: SkyboBot = await connect_bot(bot, sync_commands=True)
    return started


async def alices_turn(fake: FakeDiscord, bot: SkyboBot) -> tuple[FakeMessage, int, Any, FakeMessage]:
    """A table for Alice and Bob played to Alice's draw; returns the table message, the game id, the
    table and Alice's panel."""
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], score_limit=10)
    table = await until_turn(fake, bot, game_id, table_message, alice, random.Random(2))
    panel = await open_panel(fake, alice, table_message)
    return table_message, game_id, table, panel


def log_since(fake: FakeDiscord, mark: int) -> list[tuple[str, str]]:
    return fake.gateway_log[mark:]


async def check_clean_play(
    fake: FakeDiscord, bot: SkyboBot, game_id: int, table_message: FakeMessage, version: int
) -> None:
    """Alice's Draw and Replace were each applied once (``version`` before them, plus two); then the game
    is played to its end; every interaction of the test reached the bot once and was answered once, and
    the stored game is exactly its action log."""
    table = bot.service.tables[game_id]
    assert table.version == version + 2, "Draw and Replace applied once each"
    alice, bob = fake.user("alice"), fake.user("bob")
    await play_turns(fake, bot, game_id, table_message, [alice, bob], random.Random(9))
    stored = await GameLedger(bot.service.storage).get_game(game_id, verify=True)
    assert stored.status == "finished" and stored.verified
    assert len(await bot.service.storage.games.actions(game_id)) == stored.version
    for inter in fake.interactions.values():
        statuses = [r.status for r in inter.callback_attempts]
        assert len(statuses) == 1 and statuses[0] < 300, f"{inter!r} answered {statuses}"
        assert len(fake.deliveries(inter)) == 1, f"{inter!r} delivered {len(fake.deliveries(inter))} times"


async def draw_in_flight(fake: FakeDiscord, panel: FakeMessage) -> FakeInteraction:
    """Alice clicks Draw: the click is sent, not yet answered (the caller triggers the path at once)."""
    inter: FakeInteraction = await fake.click(fake.user("alice"), panel, button(panel, "dr"))
    return inter


async def test_reconnect_op7_resumes_and_replays_the_click_sent_meanwhile(
    fake_discord: FakeDiscord, database: BotDatabase, connect_bot: Any
) -> None:
    fake = fake_discord
    bot = await bot_for(database, connect_bot)
    table_message, game_id, table, panel = await alices_turn(fake, bot)
    session = fake.session
    assert session is not None
    version, mark = table.version, len(fake.gateway_log)

    draw = await draw_in_flight(fake, panel)
    async with fake.gateway_outage(reconnect=True):
        assert not session.live and not draw.acknowledged  # op 7 sent, the click in flight
        # The Draw click reached the bot before op 7; its answer goes over REST, gateway or not.
        assert (await draw.answer()).id == panel.id
        replace = await fake.click(fake.user("alice"), panel, button(panel, "rp"))
        assert replace.sessions == [session] and not replace.acknowledged  # queued for the RESUME
    assert (await replace.answer()).id == panel.id

    assert log_since(fake, mark) == [("RECONNECT", session.session_id), ("RESUME", session.session_id)]
    assert len(fake.sessions) == 1 and session.resumes == 1 and fake.session is session
    (socket,) = fake.deliveries(replace)
    assert socket is session.connection  # replayed on the resumed socket, never on the old one
    (socket,) = fake.deliveries(draw)
    assert socket is not session.connection  # had before op 7: not replayed
    await check_clean_play(fake, bot, game_id, table_message, version)


@pytest.mark.parametrize("code", [4007, 4009], ids=["invalid-seq", "session-timed-out"])
async def test_a_close_ending_the_session_makes_the_bot_identify_anew(
    fake_discord: FakeDiscord, database: BotDatabase, connect_bot: Any, code: int
) -> None:
    fake = fake_discord
    bot = await bot_for(database, connect_bot)
    # discord.py waits 5 s before any IDENTIFY but the first (Client.before_identify_hook, for Discord's
    # identify rate limit); the bot keeps that default, this test waits 0.2 s to keep the suite short
    waits: list[bool] = []

    async def before_identify_hook(shard_id: int | None, *, initial: bool = False) -> None:
        waits.append(initial)
        if not initial:
            await asyncio.sleep(IDENTIFY_WAIT)

    bot.before_identify_hook = before_identify_hook  # type: ignore[method-assign]
    table_message, game_id, table, panel = await alices_turn(fake, bot)
    old = fake.session
    assert old is not None
    version, mark = table.version, len(fake.gateway_log)

    loop = asyncio.get_running_loop()
    draw = await draw_in_flight(fake, panel)
    async with fake.gateway_outage(code):
        started = loop.time()
        assert old.retired and not old.handles(fake.guild.id)  # its events go to no one now
        assert (await draw.answer()).id == panel.id  # the click it had is answered all the same
    # back within discord.py's time for a new session: its wait before the IDENTIFY, and 2 s more
    assert loop.time() - started < IDENTIFY_WAIT + 2.0
    assert waits == [False]  # the hook ran for the new IDENTIFY only (the bot's first one came before it)

    new = fake.session
    assert isinstance(new, GatewaySession) and new is not old and new.live
    # discord.py tried to RESUME (it gives up only on 4004 and 4010-4014), was refused, identified anew.
    assert log_since(fake, mark) == [
        (f"CLOSE {code}", old.session_id),
        ("INVALID_SESSION", old.session_id),
        ("IDENTIFY", new.session_id),
    ]
    assert old.resumes == 0 and old.refused_resumes == 1 and new.resumes == 0
    assert new.shard == old.shard == (0, 1)
    await fake.wait_until(bot.is_ready, what="the bot ready again")

    # Alice's Replace goes to the new session and is applied once.
    replace = await fake.click(fake.user("alice"), panel, button(panel, "rp"))
    assert replace.sessions == [new]
    assert (await replace.answer()).id == panel.id
    await check_clean_play(fake, bot, game_id, table_message, version)


async def test_a_zombie_connection_is_noticed_and_resumed_with_the_click_sent_meanwhile(
    fake_discord: FakeDiscord, database: BotDatabase, connect_bot: Any
) -> None:
    fake = fake_discord
    fake.heartbeat_interval_ms = HEARTBEAT_INTERVAL_MS
    bot = await bot_for(database, connect_bot, heartbeat_timeout=HEARTBEAT_TIMEOUT)
    table_message, game_id, table, panel = await alices_turn(fake, bot)
    session = fake.session
    assert session is not None and session.connection is not None
    socket = session.connection
    await fake.wait_until(lambda: socket.acks >= 3, what="heartbeats acknowledged at the short interval")
    version, mark = table.version, len(fake.gateway_log)

    loop = asyncio.get_running_loop()
    draw = await draw_in_flight(fake, panel)
    async with fake.zombie() as zombie:
        started, acks = loop.time(), zombie.acks
        assert not draw.acknowledged  # the click in flight
        assert (await draw.answer()).id == panel.id  # REST still works: the click is answered
        replace = await fake.click(fake.user("alice"), panel, button(panel, "rp"))
        assert replace.sessions == [session] and not replace.acknowledged  # withheld by the zombie
    # noticed after heartbeat_timeout of silence (and a heartbeat interval for the check), not later
    assert loop.time() - started < HEARTBEAT_TIMEOUT + 1.5
    assert (await replace.answer()).id == panel.id

    assert log_since(fake, mark) == [("ZOMBIE", session.session_id), ("RESUME", session.session_id)]
    assert len(fake.sessions) == 1 and session.resumes == 1
    # discord.py kept heartbeating into the silence, got no ACK, and closed the socket itself.
    assert zombie.heartbeats > 0 and zombie.acks == acks and zombie.close_code is None and zombie.ws.closed
    (socket,) = fake.deliveries(replace)
    assert socket is session.connection and socket is not zombie
    await check_clean_play(fake, bot, game_id, table_message, version)


async def test_a_resume_past_the_last_event_sent_is_closed_with_4007_and_ends_the_session(
    fake_discord: FakeDiscord,
) -> None:
    """Discord's own 4007: a RESUME claiming a sequence number the session never sent (a client bug, so a
    protocol violation here) is closed with Invalid seq, and the session can no longer be resumed."""
    fake = fake_discord
    query = "?v=10&encoding=json"

    async def hello(url: str) -> aiohttp.ClientWebSocketResponse:
        ws = await http.ws_connect(url + query)
        assert (await ws.receive_json())["op"] == 10
        return ws

    async with aiohttp.ClientSession() as http:
        first = await hello(fake.gateway_url)
        await first.send_json({"op": 2, "d": {"token": fake.token, "intents": 1, "properties": {}}})
        ready = await first.receive_json()
        assert ready["t"] == "READY"
        session_id = ready["d"]["session_id"]
        session = fake.sessions[session_id]
        await fake.wait_until(lambda: session.seq >= 2, what="READY and GUILD_CREATE")
        await first.close(code=4000)

        resume = {"token": fake.token, "session_id": session_id}
        second = await hello(fake.resume_gateway_url)
        await second.send_json({"op": 6, "d": {**resume, "seq": session.seq + 5}})
        assert (await second.receive()).type is aiohttp.WSMsgType.CLOSE
        assert second.close_code == 4007 and session.retired
        (violation,) = fake.take_protocol_violations("RESUME with seq")
        assert f"past the last event sent: {session.seq}" in violation

        third = await hello(fake.resume_gateway_url)
        await third.send_json({"op": 6, "d": {**resume, "seq": session.seq}})
        assert await third.receive_json() == {"op": 9, "d": False, "s": None, "t": None}
        await third.close()
    assert fake.gateway_log == [
        ("IDENTIFY", session_id),
        ("CLOSE 4007", session_id),
        ("INVALID_SESSION", session_id),
    ]
    assert fake.gateway_closes == [(4007, "Invalid seq.")]
    assert session.resumes == 0 and session.refused_resumes == 1
