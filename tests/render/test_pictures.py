"""Table pictures drawn in a worker process (bot.render.pictures): the same bytes as drawn in the bot's
process, and a dead worker costs no picture."""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import subprocess
import sys
import time

import pytest

from bench.render import mid_game
from bot.games.skyjo import image as skyjo_image
from bot.render.pictures import Pictures

NAMES = ["Alice", "Bérénice", "Chen", "Dmitri"]


async def test_a_worker_draws_the_same_picture_and_a_dead_worker_costs_no_picture() -> None:
    view = mid_game(4, seed=4, turns=12).view(None)
    here = skyjo_image.render_table(view, NAMES, "dark")
    pictures = Pictures(1)
    try:
        drawn = await pictures.draw(skyjo_image.render_table, view, NAMES, "dark")
        assert drawn == here, "the worker draws byte for byte what the bot's process draws"
        processes = getattr(pictures._pool, "_processes", None) or {}
        (pid,) = list(processes)
        assert pid != os.getpid()
        assert pictures.worker_cpu() > 0, "the worker's CPU is counted"

        os.kill(pid, signal.SIGKILL)  # killed (out of memory, an operator): the pool is broken
        assert await pictures.draw(skyjo_image.render_table, view, NAMES, "dark") == here
        again = await pictures.draw(skyjo_image.render_table, view, NAMES, "dark")  # a new worker
        assert again == here
        assert list(getattr(pictures._pool, "_processes", None) or {}) not in ([], [pid])
    finally:
        pictures.close()
    assert pictures._pool is None
    # Once closed, pictures are still drawn (on a thread), e.g. the last edits of a stopping bot.
    assert await pictures.draw(skyjo_image.render_table, view, NAMES, "dark") == here


async def test_no_process_is_started_when_threads_are_asked() -> None:
    pictures = Pictures(0)
    view = mid_game(4, seed=5, turns=8).view(None)
    assert await pictures.draw(skyjo_image.render_table, view, NAMES) == skyjo_image.render_table(view, NAMES)
    assert pictures._pool is None and pictures.worker_cpu() == 0.0


def _dies_in_a_worker(*_: object) -> bytes:
    """A picture no worker survives (the worker exits at once); drawn in the bot's process, it works."""
    if multiprocessing.parent_process() is not None:
        os._exit(3)
    return b"drawn on a thread"


async def test_workers_that_keep_dying_leave_pictures_on_threads(caplog: pytest.LogCaptureFixture) -> None:
    pictures = Pictures(1)
    try:
        with caplog.at_level(logging.WARNING, logger="bot.render.pictures"):
            for _ in range(3):
                assert await pictures.draw(_dies_in_a_worker) == b"drawn on a thread"
        assert pictures.processes == 0 and pictures._pool is None
        assert [r.levelname for r in caplog.records] == ["WARNING", "WARNING", "ERROR"]
        caplog.clear()
        assert await pictures.draw(_dies_in_a_worker) == b"drawn on a thread"
        assert pictures._pool is None and not caplog.records  # no new worker tried
    finally:
        pictures.close()


WORKER_OWNER = """
import asyncio, sys, time
from bench.render import mid_game
from bot.games.skyjo import image
from bot.render.pictures import Pictures

async def main():
    pictures = Pictures(1)
    await pictures.draw(image.render_table, mid_game(4, seed=4, turns=8).view(None), ["a"] * 4)
    print(*pictures._pool._processes, flush=True)
    time.sleep(60)

asyncio.run(main())
"""


def test_a_worker_leaves_with_a_killed_bot() -> None:
    """SIGKILL of the bot (no chance to stop its pool) must not leave a worker behind."""
    owner = subprocess.Popen([sys.executable, "-c", WORKER_OWNER], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        worker = int(owner.stdout.readline())
        os.kill(worker, 0)  # alive while the bot is
    finally:
        owner.kill()
        owner.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(worker, signal.SIGKILL)
    raise AssertionError("the picture worker outlived the killed bot")
