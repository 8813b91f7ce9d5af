"""A fleet: two bot processes (shards 0 and 1 of 2) against the fake Discord and one PostgreSQL.

Each process runs in its own subprocess (tests/e2e/bot_worker.py, holding its shard as
``python -m bot run`` does) on the test's PostgreSQL database. A Skyjo table in a guild of each shard:
Alice and Bob play in the first, Carol and Bob in the second, a computer player at each. The process of
the second guild is SIGKILLed in the middle of its game (a process asking for that shard while it lived
was refused), and while it is down the game of the first goes on as if nothing happened. Restarted, it
resumes its game, Carol's old panel works, and both games are played to their end; ``/leaderboard``
global, answered by the first process, shows the players of both games.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import random
import signal
import time
from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest

from bot.client import SkyboBot, create_bot
from bot.config import shard_of, shards_from
from bot.service.ledger import GameLedger
from bot.storage import Storage
from bot.storage.postgres.leases import SHARD_LOCK, LeaseTiming
from fakecord import FakeDiscord, FakeMessage, FakeUser

from .bot_worker import spawn
from .conftest import (
    FAST,
    GAME_ACTS,
    act_of,
    button,
    choose,
    enabled_buttons,
    open_panel,
    play_turns,
    start_table,
    until_turn,
)
from .test_metrics import get

pytestmark = pytest.mark.timeout(240)

SHARDS = 2


class Process:
    """One bot process of the fleet, running ``shard`` of ``SHARDS``."""

    def __init__(self, fake: FakeDiscord, dsn: str, shard: int, *, sync: bool = False) -> None:
        self.fake = fake
        self.dsn = dsn
        self.shard = shard
        self.flags = [
            "--seed",
            str(40 + shard),
            "--no-limits",
            "--shard-count",
            str(SHARDS),
            "--shard-ids",
            str(shard),
        ]
        if sync:
            self.flags.append("--sync")
        self.proc: asyncio.subprocess.Process | None = None
        self.err = b""
        self._err_task: asyncio.Task[None] | None = None

    async def start(self) -> str:
        """Start it; its first line: READY, or why it refused."""
        self.proc = await spawn(self.fake, self.dsn, *self.flags)
        self._err_task = asyncio.create_task(self._read_err())
        assert self.proc.stdout is not None
        line = (await asyncio.wait_for(self.proc.stdout.readline(), 60)).decode().strip()
        return line

    async def _read_err(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        self.err = await self.proc.stderr.read()

    def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            os.kill(self.proc.pid, signal.SIGKILL)

    async def stop(self) -> int:
        assert self.proc is not None
        if self.proc.returncode is None and self.proc.stdin is not None:
            self.proc.stdin.close()
        code = await asyncio.wait_for(self.proc.wait(), 30)
        if self._err_task is not None:
            await self._err_task
        return code

    def check_log(self) -> None:
        text = self.err.decode(errors="replace")
        bad = [
            line
            for line in text.splitlines()
            if line.startswith(("ERROR", "CRITICAL")) or "Traceback" in line
        ]
        assert not bad, f"shard {self.shard} logged errors:\n{text[-4000:]}"


def status(dsn: str, game_id: int) -> str:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT status FROM games WHERE id = %s", (game_id,)).fetchone()
    assert row is not None
    return str(row[0])


def game_in(dsn: str, channel_id: int) -> int | None:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT id FROM games WHERE channel_id = %s AND status = 'active'", (channel_id,)
        ).fetchone()
    return None if row is None else int(row[0])


async def open_table(
    fake: FakeDiscord, dsn: str, channel: Any, host: FakeUser, guest: FakeUser
) -> tuple[FakeMessage, int]:
    inter = await fake.run_command(
        host, "skyjo", "new", options={"computers": 1, "turn_limit": 0, "score_limit": 100}, channel=channel
    )
    lobby = await inter.original(20)
    await (await fake.click(guest, lobby, next(c for c in lobby.custom_ids if c.endswith(":jn")))).response(
        20
    )
    await fake.wait_until(lambda: str(guest.global_name) in lobby.text, 20, what="the guest seated")
    await (await fake.click(host, lobby, next(c for c in lobby.custom_ids if c.endswith(":st")))).response(20)
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), 20, what="the table")
    return lobby, await fake.wait_until(lambda: game_in(dsn, channel.id), 20, what="the game")


def over(table_message: FakeMessage) -> bool:
    return any(act_of(c) == "rm" for c in table_message.custom_ids)


async def play(
    fake: FakeDiscord,
    table_message: FakeMessage,
    humans: list[FakeUser],
    rng: random.Random,
    clicks: int = 10_000,
) -> int:
    """The humans open their panels and click what they may, until the game is over or ``clicks``."""
    made = 0
    deadline = time.monotonic() + 150
    while not over(table_message) and made < clicks:
        assert time.monotonic() < deadline, "the game did not end"
        progressed = False
        for user in humans:
            if over(table_message):
                break
            panel = await open_panel(fake, user, table_message)
            for _ in range(4):
                custom_id = choose(panel, rng)
                if custom_id is None or made >= clicks:
                    break
                shown = await (await fake.click(user, panel, custom_id)).answer()
                assert shown.id == panel.id, f"{user.username}'s move was not shown in place: {shown.text}"
                made += 1
                progressed = True
                if act_of(custom_id) in GAME_ACTS and act_of(custom_id) != "rv":
                    break
        if not progressed:
            await asyncio.sleep(0.05)  # the computer player's move
    return made


async def test_two_processes_share_the_shards_and_one_survives_the_others_kill(
    fake_discord: FakeDiscord, pg_dsn: str
) -> None:
    fake = fake_discord
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    first_guild = fake.guild
    home = shard_of(first_guild.id, SHARDS)
    other = 1 - home
    second_guild = await fake.add_guild(
        "Second", shard=(other, SHARDS), channels=["second"], members=[bob, carol]
    )
    assert shard_of(second_guild.id, SHARDS) == other
    rng = random.Random(9)

    processes = {home: Process(fake, pg_dsn, home, sync=True), other: Process(fake, pg_dsn, other)}
    played = False
    try:
        assert await processes[home].start() == "READY", processes[home].err
        assert await processes[other].start() == "READY", processes[other].err
        # Each guild's events go to its own process only.
        assert fake.session_on(home, SHARDS) is not fake.session_on(other, SHARDS)

        table_a, game_a = await open_table(fake, pg_dsn, fake.channel("general"), alice, bob)
        table_b, game_b = await open_table(fake, pg_dsn, fake.channel("second"), carol, bob)
        await play(fake, table_a, [alice, bob], rng, clicks=8)
        await play(fake, table_b, [carol, bob], rng, clicks=8)
        old_panel = await open_panel(fake, carol, table_b)

        # Shard `other` dies mid-game. A second process for the same shard while it lived was refused;
        # now its lock is gone with its connection.
        taken = Process(fake, pg_dsn, other)
        line = await taken.start()
        assert line.startswith("SHARDS TAKEN:") and f"shard {other} of {SHARDS}" in line, line
        assert await taken.stop() == 3
        processes[other].kill()
        assert await processes[other].stop() == -signal.SIGKILL
        assert status(pg_dsn, game_b) == "active"

        # Meanwhile the other game never notices.
        assert await play(fake, table_a, [alice, bob], rng, clicks=12) == 12

        restarted = Process(fake, pg_dsn, other)
        deadline = time.monotonic() + 20
        while (line := await restarted.start()) != "READY":
            assert line.startswith("SHARDS TAKEN:") and time.monotonic() < deadline, line
            await restarted.stop()
            await asyncio.sleep(0.2)
            restarted = Process(fake, pg_dsn, other)
        processes[other] = restarted
        await fake.wait_until(lambda: "live again" in table_b.text, 20, what="the table live again")
        # Carol's panel from before the kill still works: it answers in place (the move, or the
        # refreshed panel when her turn is not now).
        refresh = next(c["custom_id"] for c in enabled_buttons(old_panel) if act_of(c["custom_id"]) == "rf")
        shown = await (await fake.click(carol, old_panel, refresh)).answer()
        assert shown.id == old_panel.id

        clicks = await asyncio.gather(
            play(fake, table_a, [alice, bob], rng), play(fake, table_b, [carol, bob], rng)
        )
        assert min(clicks) > 0, clicks  # both games were still on after the restart
        assert status(pg_dsn, game_a) == "finished" and status(pg_dsn, game_b) == "finished"

        # Ratings are global: shard `home` answers /leaderboard with the players of both games.
        inter = await fake.run_command(alice, "leaderboard", options={"game": "skyjo", "scope": "global"})
        board = await inter.original(20)
        for name in ("Alice", "Bob", "Carol"):
            assert name in board.text, board.text
        played = True
    finally:
        codes = {}
        for shard, process in processes.items():
            if process.proc is not None and process.proc.returncode is None:
                try:
                    codes[shard] = await process.stop()  # a clean stop (stdin closed)
                except TimeoutError:
                    process.kill()
                    raise
        if not played:  # what each process logged, shown with the failure
            for shard, process in processes.items():
                print(f"--- shard {shard}'s log:\n{process.err.decode(errors='replace')[-6000:]}")
    assert codes == {home: 0, other: 0}, codes
    for process in processes.values():
        process.check_log()


# ---------------------------------------------------------------------------- the lease's connection blinks
# One process of a fleet (shard 0 of 1: every guild), in the test's process, its shard held on the test's
# PostgreSQL database with a short lease clock (a round trip every 50 ms, trusted 300 ms).
LEASE = LeaseTiming(check_s=0.05, valid_s=0.3, retake_s=5.0, retry_s=0.05)


def end_lease_session(pg_server: Any) -> None:
    """The connection holding the shard locks is gone (the server restarted, the network was cut),
    once it is."""
    assert pg_server.end_sessions_holding(SHARD_LOCK) == 1


@contextlib.asynccontextmanager
async def leased_bot(
    pg_dsn: str, connect_bot: Any, retake_s: float, timing: LeaseTiming = LEASE, **options: Any
) -> AsyncIterator[SkyboBot]:
    storage = await Storage.open(url=pg_dsn)
    try:
        lease = await storage.hold_shards(1, (0,), timing=dataclasses.replace(timing, retake_s=retake_s))
        assert lease is not None
        bot = create_bot(storage=storage, tuning=FAST, shards=shards_from("1", "0"), **options)
        bot.shard_lease = lease
        try:
            yield await connect_bot(bot, sync_commands=True)
        finally:
            await bot.close()
            await lease.release()
    finally:
        await storage.close()


def version_in_db(conn: psycopg.Connection[Any], game_id: int) -> int:
    row = conn.execute("SELECT version FROM games WHERE id = %s", (game_id,)).fetchone()
    assert row is not None
    return int(row[0])


async def test_a_process_takes_its_shards_back_after_a_blink_and_serves_on_without_a_restart(
    fake_discord: FakeDiscord,
    connect_bot: Any,
    pg_server: Any,
    pg_database: Any,
    pg_dsn: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The connection holding the shard's lock drops and the database refuses new ones for a while: the
    process answers no click meanwhile (a click is left unanswered, unstored); another process that ran
    the shard in between moved the game on. The database back, the process takes its shard back, loads
    the game as the database has it, and plays on: same process, same gateway session."""
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    # Production's trust window (3 s), not LEASE's 300 ms: this test is about the blink it makes, and
    # with 300 ms a test process kept off a core for a quarter of a second (a loaded machine) stopped
    # serving on its own, dropping a click of the game the test plays.
    timing = dataclasses.replace(LEASE, valid_s=LeaseTiming().valid_s)
    async with leased_bot(pg_dsn, connect_bot, retake_s=30.0, timing=timing) as bot:
        lease = bot.shard_lease
        assert await lease.wait_serving()  # a new holder serves valid_s after it took its shards
        assert bot.may_serve() and lease.epoch == 1
        session = fake.session
        table_message, game_id = await start_table(fake, bot, alice, [bob], score_limit=10)
        table = await until_turn(fake, bot, game_id, table_message, alice, random.Random(3))
        panel = await open_panel(fake, alice, table_message)
        version = table.version
        other = await Storage.open(url=pg_dsn)  # the process that runs the shard in between
        peek = psycopg.connect(pg_dsn, autocommit=True)
        try:
            stored = await GameLedger(other).get_game(game_id)  # its connections, open before the blink
            with pg_server.connections_refused(pg_database.name):
                await asyncio.to_thread(end_lease_session, pg_server)
                # At the latest valid_s after the last round trip (the lease's clock, no thread needed)
                await fake.wait_until(
                    lambda: not bot.may_serve(), timing.valid_s + 1, what="the process to stop serving"
                )
                # The keeper's next round trip fails at once (its backend is gone) or, hung, after answer_s
                await fake.wait_until(
                    lambda: lease.state == "retaking", timing.valid_s + 1, what="the lease taking it back"
                )
                draw = await fake.click(alice, panel, button(panel, "dr"))
                await asyncio.sleep(0.5)
                assert not draw.acknowledged and draw.callback is None  # dropped: left for the holder
                assert version_in_db(peek, game_id) == version
                # Meanwhile another process runs the shard: Alice's draw, played there.
                assert stored.version == version
                seat = stored.state.turn
                draw_action = next(a for a in stored.state.legal_actions(seat) if a.type == "draw")
                await GameLedger(other).apply_action(stored, seat, draw_action)
                assert version_in_db(peek, game_id) == version + 1
                await asyncio.sleep(0.3)
                assert lease.state == "retaking" and not bot.may_serve() and not bot.is_closed()
        finally:
            await other.close()
        # Taken back within retake_s (or lost for good), then served valid_s later.
        await fake.wait_until(
            bot.may_serve, timing.retake_s + timing.valid_s, what="the shard taken back and served"
        )
        assert lease.epoch == 2 and not bot.is_closed()
        assert fake.session is session and len(fake.sessions) == 1  # no new gateway session
        reloaded = bot.service.tables[game_id]
        assert reloaded.version == version + 1  # as the database has it, not as this process left it
        said = [r for r in caplog.records if r.getMessage() == "shards taken back: serving again"]
        assert len(said) == 1 and getattr(said[0], "changed", None) == 1
        # Alice clicks her old panel's Draw again: the bot knows the draw was played (the panel is
        # stale: refreshed in place), and nothing is applied twice.
        again = await fake.click(alice, panel, button(panel, "dr"))
        assert (await again.answer()).id == panel.id
        assert version_in_db(peek, game_id) == version + 1
        assert any(act_of(c) == "rp" for c in panel.custom_ids), panel.custom_ids  # her drawn card
        await play_turns(fake, bot, game_id, table_message, [alice, bob], random.Random(4))
        assert status(pg_dsn, game_id) == "finished"
        assert version_in_db(peek, game_id) > version + 1
        peek.close()


async def test_healthz_is_503_while_a_process_that_took_its_shards_back_waits_before_serving(
    fake_discord: FakeDiscord, connect_bot: Any, pg_server: Any, pg_dsn: str
) -> None:
    """After a blink the process takes its shard back at once, then waits ``valid_s`` before it serves
    (whoever held it meanwhile must have stopped trusting its lease) and loads its games again: every
    click is dropped all that time, so ``/healthz`` must say 503 all that time, not only while the
    locks are lost (before: 200 "shards": "ok" during the wait, 0 of 6 polls 503 after a short blink).
    Each poll is compared with what a click met at the same moment (``may_serve``, the gate of every
    interaction, and the lease's state, both read before and after the poll: a poll during which either
    changed says nothing)."""
    timing = dataclasses.replace(LEASE, valid_s=1.0)  # a wait long enough to poll many times
    async with leased_bot(pg_dsn, connect_bot, retake_s=5.0, timing=timing, metrics_port=0) as bot:
        lease = bot.shard_lease
        assert bot.may_serve() and bot.metrics_server is not None
        port = bot.metrics_server.port
        assert (await get(port, "/healthz"))[0] == 200
        await asyncio.to_thread(end_lease_session, pg_server)
        await fake_discord.wait_until(lambda: not bot.may_serve(), 2, what="the process to stop serving")
        polls: list[tuple[bool, int, dict[str, Any], str]] = []  # (serving, status, body, lease state)
        deadline = time.monotonic() + 15
        while not (polls and polls[-1][0] and lease.epoch == 2):
            assert time.monotonic() < deadline, f"not serving again: {polls[-3:]}"
            before, state = bot.may_serve(), lease.state
            status, body = await get(port, "/healthz")
            if (bot.may_serve(), lease.state) == (before, state):  # nothing changed during the poll
                polls.append((before, status, json.loads(body), state))
            await asyncio.sleep(0.01)
        dropping = [poll for poll in polls if not poll[0]]
        waiting = [poll for poll in dropping if poll[3] == "held"]  # taken back, not serving yet
        assert len(waiting) >= 5, polls  # the wait (1 s) was polled
        assert all(status == 503 for _, status, _, _ in dropping), [p for p in dropping if p[1] != 503]
        assert {body["shards"] for _, _, body, _ in waiting} == {"not serving yet (shards just taken)"}
        assert all(status == 200 and body["shards"] == "ok" for ok, status, body, _ in polls if ok)


@pytest.mark.parametrize("why", ["taken", "expired"])
async def test_a_process_stops_when_another_took_its_shards_or_its_retake_time_passed(
    fake_discord: FakeDiscord,
    connect_bot: Any,
    pg_server: Any,
    pg_database: Any,
    pg_dsn: str,
    discord_error_log: Any,
    why: str,
) -> None:
    """As before the blinks were survived: the process stops by itself, saying why, when another
    process holds its shard now (it must not take it back), or when it could not take it back within
    its retake time."""
    fake = fake_discord
    # Production's trust window (3 s), not LEASE's 300 ms: a round trip slower than 250 ms while the
    # bot connected (the fresh-clone run's own four workers) gave the connection up before the test began.
    timing = dataclasses.replace(LEASE, valid_s=LeaseTiming().valid_s)
    async with leased_bot(pg_dsn, connect_bot, retake_s=1.0, timing=timing) as bot:
        lease = bot.shard_lease
        assert await lease.wait_serving()  # a new holder serves valid_s after it took its shards
        assert bot.may_serve() and lease.epoch == 1
        if why == "taken":
            other = await asyncio.to_thread(psycopg.connect, pg_dsn, autocommit=True)
            try:

                def take() -> None:  # another process, trying as fast as it can
                    deadline = time.monotonic() + 5
                    while time.monotonic() < deadline:
                        row = other.execute("SELECT pg_try_advisory_lock(%s, 0)", (SHARD_LOCK,)).fetchone()
                        if row and row[0]:
                            return
                    raise AssertionError("the other process never got the shard")

                taking = asyncio.create_task(asyncio.to_thread(take))
                await asyncio.sleep(0.05)
                await asyncio.to_thread(end_lease_session, pg_server)
                await taking
                await fake.wait_until(bot.is_closed, 10, what="the bot stopped")
            finally:
                await asyncio.to_thread(other.close)
        else:
            with pg_server.connections_refused(pg_database.name):
                await asyncio.to_thread(end_lease_session, pg_server)
                await fake.wait_until(lambda: lease.state == "retaking", 2, what="the lease taking it back")
                await asyncio.sleep(0.5)
                assert not bot.is_closed() and not bot.may_serve()  # still trying
                await fake.wait_until(bot.is_closed, 10, what="the bot stopped")
                assert lease.lost_at is not None and time.monotonic() - lease.lost_at >= 1.0
        assert bot.lease_lost and lease.state == "lost" and lease.lost_reason == why
        said = [r.getMessage() for r in discord_error_log.records]
        assert said == ["shard lease lost: stopping"], said
        discord_error_log.records.clear()  # the one ERROR this test expects
