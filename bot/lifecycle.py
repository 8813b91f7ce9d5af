"""A graceful stop: on SIGTERM or SIGINT the bot takes no new interaction, finishes the ones in flight
(committed and answered), gives its shards back and exits, all within a bounded time.

Why it is safe: an interaction is either taken (its handler runs to its end: the move is committed, then
answered) or dropped before anything is done with it (never acknowledged, so the player sees "This
interaction failed" exactly as when the bot is down, and clicks again once it is back: the buttons
survive restarts). Nothing is half-done: the stop never cuts a handler between its commit and its
answer unless the bound runs out, and even then the commit stands and the next process shows it.

:class:`InFlight` sits in front of discord.py's parser of ``INTERACTION_CREATE`` (the one place every
interaction enters: component clicks, slash commands, modals): while the bot runs, it notes the tasks
that parsing one interaction creates (the command tree's invoker, the ``on_interaction`` handlers);
once stopping, it drops new interactions before discord.py sees them. :func:`run_until_stopped` runs a
bot until it stops by itself or a signal asks it to, then stops it gracefully.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import Callable
from typing import Any, Protocol

from bot import discord_patches

log = logging.getLogger(__name__)

STOP_GRACE = 10.0  # seconds from the signal to the exit, by default
CLOSE_SHARE = 0.3  # of the grace kept for closing (timers, table edits, the gateway, the database)


class InFlight:
    """The interactions being handled, and the switch that stops taking new ones."""

    def __init__(self, observer: Callable[[int | None, str], None] | None = None) -> None:
        self.tasks: set[asyncio.Task[Any]] = set()
        self.stopping = False
        self.dropped = 0  # interactions that arrived while stopping, or while ``admit()`` said no
        # Asked for every interaction while the bot runs: False drops it, unanswered (a fleet's process
        # whose shards are not held at that instant: bot.client.SkyboBot.may_serve).
        self.admit: Callable[[], bool] | None = None
        # Told of each interaction once its handling is over: (type, "handled" | "error" | "dropped").
        self.observer = observer

    def install(self, parsers: dict[str, Callable[[Any], Any]]) -> None:
        """Stand in front of discord.py's ``INTERACTION_CREATE`` parser (``client._connection.parsers``:
        a patch of discord.py, :func:`bot.discord_patches.watch_interactions`)."""
        discord_patches.watch_interactions(parsers, self._admit, self._started)

    def _admit(self, data: Any) -> bool:
        """False drops the interaction, unanswered: the bot is stopping, or may not serve now."""
        if not self.stopping and (self.admit is None or self.admit()):
            return True
        kind = data.get("type")
        self.dropped += 1
        if self.stopping:
            log.info("interaction dropped: the bot is stopping", extra={"type": kind})
        else:
            log.info("interaction dropped: its shards are not held now", extra={"type": kind})
        if self.observer is not None:
            self.observer(kind, "dropped")
        return False

    def _started(self, kind: int | None, created: list[asyncio.Task[Any]]) -> None:
        """Note the tasks that parsing one interaction created, until they are done."""
        left = len(created)
        failed = False

        def done(task: asyncio.Task[Any]) -> None:
            nonlocal left, failed
            self.tasks.discard(task)
            failed = failed or (not task.cancelled() and task.exception() is not None)
            left -= 1
            if left == 0 and self.observer is not None:
                self.observer(kind, "error" if failed else "handled")

        for task in created:
            self.tasks.add(task)
            task.add_done_callback(done)
        if not created and self.observer is not None:
            self.observer(kind, "handled")

    async def drain(self, timeout: float) -> int:
        """Stop taking interactions and wait (at most ``timeout`` s) for those in flight; returns how
        many were still running when the time ran out."""
        self.stopping = True
        pending = {task for task in self.tasks if not task.done()}
        if pending and timeout > 0:
            _, pending = await asyncio.wait(pending, timeout=timeout)
        return len(pending)


class Stoppable(Protocol):
    in_flight: InFlight

    async def start(self, token: str) -> None: ...

    async def close(self) -> None: ...


async def stop_gracefully(bot: Stoppable, grace: float = STOP_GRACE) -> None:
    """Finish the interactions in flight, then close the bot (its service, presenter, gateway and
    storage: leases are released with it), within ``grace`` seconds."""
    began = time.monotonic()
    left = await bot.in_flight.drain(grace * (1 - CLOSE_SHARE))
    log.info(
        "stopping: interactions finished",
        extra={
            "unfinished": left,
            "dropped": bot.in_flight.dropped,
            "seconds": round(time.monotonic() - began, 2),
        },
    )
    remaining = max(0.5, grace - (time.monotonic() - began))
    try:
        await asyncio.wait_for(bot.close(), timeout=remaining)
    except TimeoutError:
        log.warning("stopping: the bot did not close in time", extra={"grace": grace})


async def run_until_stopped(bot: Stoppable, token: str, *, grace: float = STOP_GRACE) -> bool:
    """Run ``bot`` until it stops by itself (its error is raised) or SIGTERM / SIGINT asks it to stop
    (then :func:`stop_gracefully`); True if a signal stopped it."""
    loop = asyncio.get_running_loop()
    asked = asyncio.Event()
    handled: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, asked.set)
            handled.append(sig)
    runner = asyncio.create_task(bot.start(token), name="bot")
    waiter = asyncio.create_task(asked.wait(), name="stop-signal")
    try:
        done, _ = await asyncio.wait({runner, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if runner in done:
            runner.result()
            return False
        log.info("stop asked: no new interaction, finishing those in flight", extra={"grace": grace})
        await stop_gracefully(bot, grace)
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(runner, timeout=2.0)
        return True
    finally:
        waiter.cancel()
        if not runner.done():
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await runner
        for sig in handled:
            loop.remove_signal_handler(sig)
