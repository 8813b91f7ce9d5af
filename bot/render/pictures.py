"""Where table pictures are drawn: a worker process by default, threads when asked.

A table picture is composed in Python (Pillow's paste and text calls, which hold the GIL) and then
encoded (zlib, which releases it). Drawn on a thread of the bot's process, its Python part competes
with the event loop for the GIL: issue 26's profile found the picture threads busy for a fifth of
the process's samples, each of them a moment the loop could not answer a click. A worker process
(``processes`` >= 1, ``PICTURE_PROCESSES``) takes all of it off the bot's process and onto another
core; what crosses is the game's public view and the names (pickled, a few kB) one way and the PNG
the other. ``processes=0`` draws on threads (the tests' default: no process to start per test).

The pool starts on the first picture (a ``spawn`` context: nothing of the bot's threads or sockets is
copied into it; a spawned worker imports the program's main module again, which ``python -m bot``
and the test runners allow). A worker that dies (killed, out of memory) breaks the pool: the picture
in hand is drawn on a thread instead, and the next one starts a new pool. After
:data:`GIVE_UP_AFTER` broken pools in a row (workers that cannot start), pictures stay on threads for
the rest of the process, said once in an error line.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import multiprocessing.connection
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_PROCESSES = 1
GIVE_UP_AFTER = 3  # broken pools in a row before drawing on threads for good


def _start_worker() -> None:
    """A worker's first job: leave with the bot (a worker outlives a killed parent otherwise, blocked
    on its queue), then load what drawing needs before the first picture waits for it."""
    parent = multiprocessing.parent_process()
    if parent is not None:

        def leave_with_parent() -> None:
            multiprocessing.connection.wait([parent.sentinel])
            os._exit(0)

        threading.Thread(target=leave_with_parent, name="leave-with-parent", daemon=True).start()
    from bot.render import images

    images.font(16)


class Pictures:
    """Draw pictures off the event loop (see the module docstring)."""

    def __init__(self, processes: int = DEFAULT_PROCESSES) -> None:
        self.processes = max(0, processes)
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False
        self._broken = 0  # broken pools since the last picture a worker drew

    def _executor(self) -> Executor | None:
        if self.processes == 0 or self._closed:
            return None  # the loop's default executor: threads
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(self.processes, mp_context=context, initializer=_start_worker)
        return self._pool

    async def draw(self, render: Callable[..., bytes], *args: Any) -> bytes:
        """``render(*args)``, in a worker process or a thread. ``render`` must be a module-level
        function and ``args`` picklable (plain dicts, lists and strings)."""
        loop = asyncio.get_running_loop()
        call = functools.partial(render, *args)
        executor = self._executor()
        if executor is not None:
            try:
                png = await loop.run_in_executor(executor, call)
            except BrokenProcessPool:
                self._broken += 1
                if self._pool is executor:
                    self._pool = None
                executor.shutdown(wait=False, cancel_futures=True)
                if self._broken >= GIVE_UP_AFTER:
                    self.processes = 0
                    log.error("picture workers keep dying: drawing on threads from now on")
                else:
                    log.warning("picture worker died: drawing on a thread, a new worker next time")
            else:
                self._broken = 0
                return png
        return await loop.run_in_executor(None, call)

    def worker_cpu(self) -> float:
        """CPU seconds used so far by the live workers (Linux; 0 elsewhere): the benches add it to the
        bot's own, so a picture drawn in a worker is not a picture drawn for free."""
        processes = getattr(self._pool, "_processes", None) or {}
        total = 0.0
        for pid in list(processes):
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
        return total

    def close(self) -> None:
        """Stop the workers (pictures being drawn are dropped: their edits are dropped too)."""
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
