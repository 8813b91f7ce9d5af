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
import os
import random
import signal
import time
from typing import Any

import psycopg
import pytest

from bot.config import shard_of
from bot.sandbox.discord import FakeDiscord, FakeMessage, FakeUser

from .bot_worker import spawn
from .conftest import GAME_ACTS, act_of, choose, enabled_buttons, open_panel

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
    finally:
        codes = {}
        for shard, process in processes.items():
            if process.proc is not None and process.proc.returncode is None:
                try:
                    codes[shard] = await process.stop()  # a clean stop (stdin closed)
                except TimeoutError:
                    process.kill()
                    raise
    assert codes == {home: 0, other: 0}, codes
    for process in processes.values():
        process.check_log()


async def test_a_process_that_loses_its_shard_lease_stops(
    fake_discord: FakeDiscord,
    connect_bot: Any,
    pg_server: Any,
    pg_dsn: str,
    monkeypatch: pytest.MonkeyPatch,
    discord_error_log: Any,
) -> None:
    """The connection holding the shard locks is gone (the server restarted, the network was cut):
    another process may take the shards now, so this one stops by itself, saying why."""
    from bot import client
    from bot.config import shards_from
    from bot.storage import Storage
    from bot.storage.postgres.leases import SHARD_LOCK
    from bot.testing.pgserver import SUPERUSER

    from .conftest import FAST

    monkeypatch.setattr(client, "LEASE_CHECK_S", 0.05)
    storage = await Storage.open(url=pg_dsn)
    try:
        lease = await storage.hold_shards(1, (0,))
        assert lease is not None
        bot = client.create_bot(storage=storage, tuning=FAST, shards=shards_from("1", "0"))
        bot.shard_lease = lease
        await connect_bot(bot)
        assert not bot.is_closed() and await lease.alive()
        with psycopg.connect(pg_server.dsn("postgres", user=SUPERUSER), autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s",
                (SHARD_LOCK,),
            )
        await fake_discord.wait_until(bot.is_closed, 10, what="the bot stopped")
        assert bot.lease_lost
        said = [r.getMessage() for r in discord_error_log.records]
        assert said == ["shard lease lost: stopping"], said
        discord_error_log.records.clear()  # the one ERROR this test expects
    finally:
        await storage.close()
