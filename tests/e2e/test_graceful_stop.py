"""SIGTERM during a burst of clicks: every click was answered and is stored, or got no answer and is not
stored; none is half-done; the process exits on its own within the bound (bot.lifecycle).

The real bot runs in a process of its own (tests/e2e/bot_worker.py, which stops on SIGTERM exactly as
``python -m bot run`` does) against the fake Discord of this test, on a SQLite file. Four Skyjo tables,
Alice and Bob at each. A first wave of clicks (each human turns a card at each table) is being handled;
the callback that answers one of them meets a 429 of 1.5 s, which the bot waits out: that click is
still in flight when SIGTERM arrives. A second wave sent while
the bot is stopping must be dropped: never acknowledged, never stored (the players click again once
the bot is back; their buttons survive restarts).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

from bot.ui import ids
from fakecord import FakeDiscord, FakeInteraction, FakeMessage, FakeUser

from .bot_worker import spawn
from .conftest import act_of, open_panel
from .test_kills import result_of

TABLES = 4
GRACE = 8.0  # the worker's bound: SIGTERM to exit
CALLBACK = "/interactions/{interaction_id}/{token}/callback"


class Worker:
    def __init__(self, fake: FakeDiscord, db_path: Path) -> None:
        self.fake = fake
        self.db_path = db_path
        self.flags = ["--sync", "--seed", "5", "--no-limits", "--grace", str(GRACE)]
        self.proc: asyncio.subprocess.Process | None = None
        self.out = b""
        self.err = b""

    async def start(self) -> None:
        self.proc = await spawn(self.fake, self.db_path, *self.flags)
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), 60)
        assert line.strip() == b"READY", line + await self.proc.stderr.read()  # type: ignore[union-attr]

    async def wait(self, timeout: float) -> int:
        assert self.proc is not None
        out, err = await asyncio.wait_for(self.proc.communicate(), timeout)
        self.out, self.err = out, err
        assert self.proc.returncode is not None
        return self.proc.returncode

    def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()


def seat_of(db_path: Path, game_id: int, user: FakeUser) -> int:
    with contextlib.closing(sqlite3.connect(db_path)) as conn:
        row = conn.execute(
            "SELECT seat FROM game_seats WHERE game_id = ? AND user_id = ?", (game_id, user.id)
        ).fetchone()
    return int(row[0])


def reveals(db_path: Path, game_id: int) -> set[tuple[int, int]]:
    """(seat, position) of every stored "reveal" action of the game."""
    with contextlib.closing(sqlite3.connect(db_path)) as conn:
        rows = conn.execute("SELECT seat, action FROM game_actions WHERE game_id = ?", (game_id,)).fetchall()
    out = set()
    for seat, text in rows:
        action = json.loads(text)
        if action.get("type") == "reveal":
            out.add((int(seat), int(action["pos"])))
    return out


async def open_table(
    fake: FakeDiscord, db_path: Path, channel: Any, alice: FakeUser, bob: FakeUser
) -> tuple[FakeMessage, int]:
    inter = await fake.run_command(
        alice, "skyjo", "new", options={"computers": 1, "turn_limit": 0}, channel=channel
    )
    lobby = await inter.original(20)
    await (await fake.click(bob, lobby, next(c for c in lobby.custom_ids if c.endswith(":jn")))).response(20)
    await fake.wait_until(lambda: str(bob.global_name) in lobby.text, 20, what="Bob seated")
    await (await fake.click(alice, lobby, next(c for c in lobby.custom_ids if c.endswith(":st")))).response(
        20
    )
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), 20, what="the table")

    def game_id() -> int | None:
        with contextlib.closing(sqlite3.connect(db_path)) as conn:
            row = conn.execute(
                "SELECT id FROM games WHERE channel_id = ? AND status = 'active'", (channel.id,)
            ).fetchone()
        return None if row is None else int(row[0])

    return lobby, await fake.wait_until(game_id, 20, what="the game")


async def test_sigterm_during_a_burst_of_clicks_leaves_nothing_half_done(
    fake_discord: FakeDiscord, db_file: Path
) -> None:
    fake = fake_discord
    channels = [fake.channel("general"), fake.channel("games")]
    channels += [fake.add_channel(f"table-{n}") for n in range(TABLES - len(channels))]
    alice, bob = fake.user("alice"), fake.user("bob")
    worker = Worker(fake, db_file)
    await worker.start()
    try:
        tables = [await open_table(fake, db_file, channel, alice, bob) for channel in channels]
        # Each human's panel at each table, and the seat it plays.
        panels: list[tuple[FakeUser, FakeMessage, int, int]] = []
        for message, game_id in tables:
            for user in (alice, bob):
                panel = await open_panel(fake, user, message)
                seat = seat_of(db_file, game_id, user)
                panels.append((user, panel, game_id, seat))

        def reveal(user: FakeUser, panel: FakeMessage, index: int) -> tuple[str, int]:
            hidden = [c for c in panel.custom_ids if act_of(c) == "rv"]
            custom_id = hidden[index]
            return custom_id, int(ids.decode(custom_id).arg)  # type: ignore[union-attr,arg-type]

        # Wave 1: everyone turns a card at once; one answer is slowed down: a move is answered by its
        # callback carrying the new panel (issue 40), and one callback meets a 429 of 1.5 s, which
        # the bot waits out (it still lands within the click's 3 s).
        fake.rate_limit("POST", CALLBACK, retry_after=1.5)
        first: list[tuple[FakeInteraction, int, int, int]] = []
        for user, panel, game_id, seat in panels:
            custom_id, pos = reveal(user, panel, 0)
            first.append((await fake.click(user, panel.snapshot(), custom_id), game_id, seat, pos))
        await fake.wait_until(
            lambda: sum(inter.callback is None for inter, *_ in first) == 1 and bool(fake.rate_limited),
            20,
            what="every click of the first wave answered but one, whose answer waits out a 429",
        )
        assert any(result_of(inter) is None for inter, *_ in first), "the slowed answer is still due"
        assert worker.proc is not None
        stopped_at = time.monotonic()
        worker.proc.send_signal(signal.SIGTERM)
        await asyncio.sleep(0.3)  # the bot is stopping: it waits for the slowed click, still connected

        # Wave 2, while it stops: the other card of each panel.
        second: list[tuple[FakeInteraction, int, int, int]] = []
        for user, panel, game_id, seat in panels:
            custom_id, pos = reveal(user, panel.snapshot(), 1)
            second.append((await fake.click(user, panel.snapshot(), custom_id), game_id, seat, pos))

        code = await worker.wait(GRACE + 10)
        took = time.monotonic() - stopped_at
        logs = worker.err.decode(errors="replace")
        assert code == 0 and worker.out.strip().endswith(b"STOPPED"), (code, worker.out, logs[-3000:])
        assert took < GRACE + 2.0, f"stopped in {took:.1f} s"
        assert "Traceback" not in logs and "ERROR" not in logs, logs[-3000:]
    finally:
        worker.kill()
    await asyncio.sleep(0.2)  # requests sent just before the exit reach the fake

    answered_stored = dropped = 0
    for wave, clicks in (("first", first), ("second", second)):
        for inter, game_id, seat, pos in clicks:
            result = result_of(inter)
            stored = (seat, pos) in reveals(db_file, game_id)
            answered = result is not None and result.shown == "panel"
            assert answered == stored, (
                f"{wave} wave, game {game_id} seat {seat} card {pos}: {result}, {stored=}"
            )
            assert not (result is not None and result.shown == "message"), f"a refusal: {result}"
            answered_stored += answered
            dropped += inter.callback is None and not stored
    # Every click of the first wave was being handled: all answered and stored, the slowed one too.
    assert all(result_of(inter) is not None for inter, *_ in first)
    # The second wave came while stopping: dropped before anything was done with it.
    assert all(inter.callback is None and result_of(inter) is None for inter, *_ in second)
    assert answered_stored == len(first) and dropped == len(second) == TABLES * 2
