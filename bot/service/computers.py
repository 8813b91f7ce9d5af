"""Computer players: one asyncio task per table that plays the computer seats in turn.

A computer's move whose commit fails on a transient storage fault (a busy lock, an I/O error, a dropped
connection: :attr:`bot.storage.StorageError.transient`), after storage's own one retry, is not lost: the
table's task tries again after a pause that doubles from :data:`RETRY_FIRST_PAUSE_S` to
:data:`RETRY_LONGEST_PAUSE_S`, until a move is committed. Each try decides the move from the game as it
stands then (storage read it back after the failure; a human may have moved, a reload may have
happened), so an old move is never replayed onto a newer state. A table that went into "waiting for
the database" (:mod:`bot.service.reloads`) is left to its reload, which arms the computers again; a
table has at most one such task (``Table.ai_task``, see :meth:`ComputerPart._arm`).

The task is armed by what the part hears on the service's bus: a table dealt, changed or resumed
(``TableDealt``, ``TableChanged`` and its kinds) arms it when a computer is to act, a game's end
(``TableEnded``) cancels it.
"""

from __future__ import annotations

import asyncio
from typing import Unpack

from bot.engine.errors import GameError
from bot.service.computer_moves import computer_move
from bot.service.core import ServiceCore, ServiceOptions
from bot.service.events import TableChanged, TableDealt, TableEnded, TableEvent
from bot.service.types import ROUND_OVER, Refused, Table, log
from bot.storage import Storage, StorageError

# The pause before a computer's move is tried again after a transient storage fault: doubled after
# each failed try, up to the longest.
RETRY_FIRST_PAUSE_S = 0.5
RETRY_LONGEST_PAUSE_S = 10.0


def transient_fault(error: BaseException) -> StorageError | None:
    """The transient storage fault behind a refused commit (the writer refuses with the storage error
    as its context), or None: a rule refusal, a stale version, a full disk..."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, StorageError):
            return cause if cause.transient else None
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


def retry_pause(failures: int) -> float:
    """Seconds to wait before the next try, after ``failures`` tries in a row met a transient fault."""
    return min(RETRY_FIRST_PAUSE_S * 2.0 ** min(failures - 1, 16), RETRY_LONGEST_PAUSE_S)


class ComputerPart(ServiceCore):
    """When and how a computer seat plays."""

    def __init__(self, storage: Storage, **options: Unpack[ServiceOptions]) -> None:
        super().__init__(storage, **options)
        self.bus.subscribe(TableDealt, self._arm_on, name="computers")
        self.bus.subscribe(TableChanged, self._arm_on, name="computers")

    def _arm_on(self, event: TableEvent) -> None:
        """A table dealt or changed: its computers armed; a game ended: its task cancelled (unless the
        end is that task's own move)."""
        table = self.writer.table_of(event)
        if table is None:
            return
        if isinstance(event, TableEnded) or table.finished:
            task = table.ai_task
            if task is not None and task is not asyncio.current_task():
                task.cancel()
            return
        self._arm(table)

    def _arm(self, table: Table) -> None:
        """Schedule the computer players' moves (the round pause is a timer, see :meth:`_timer_for`).

        One task per table: while it lives (waiting for its delay, or for a retry after a storage
        fault) it plays whatever computer seat the game waits for, so arming again does nothing."""
        if self._closed or table.finished or table.asleep:  # asleep: its wake arms them
            return
        game = table.state
        if game.phase == ROUND_OVER:
            return
        ai_to_act = any(table.ai_level(s) is not None for s in game.seats_to_act())
        if ai_to_act and (table.ai_task is None or table.ai_task.done()):
            table.ai_task = asyncio.create_task(self._ai_loop(table), name=f"ai-{table.id}")

    async def _ai_loop(self, table: Table) -> None:
        failures = 0  # tries in a row whose commit met a transient storage fault
        while True:
            await asyncio.sleep(retry_pause(failures) if failures else self.ai_delay)
            async with self.lock(table.channel_id):
                if self.tables.get(table.id) is not table or table.finished:
                    return
                if table.needs_reload or table.asleep:  # its reload, or its wake, arms us again
                    table.ai_task = None
                    return
                # Decided from the state as it is now: after a failed try, storage read the game back
                # (the move may have landed after all, a human may have moved since).
                game = table.state
                seats = [s for s in game.seats_to_act() if table.ai_level(s) is not None]
                if game.phase == ROUND_OVER or not seats:
                    table.ai_task = None
                    return
                seat = seats[0]
                action = computer_move(table, seat)
                try:
                    await self.writer.commit(table, seat, action, cause="computer")
                except (Refused, GameError) as error:
                    fault = transient_fault(error)
                    if fault is None:
                        log.warning("computer move refused", extra={"game_id": table.id, "seat": seat})
                        table.ai_task = None
                        return
                    if table.needs_reload:  # its reload arms the computers again (one task only)
                        log.warning(
                            "computer move not saved, waiting for the database",
                            extra={"game_id": table.id, "error": type(fault).__name__},
                        )
                        table.ai_task = None
                        return
                    failures += 1
                    log.warning(
                        "computer move not saved, trying again",
                        extra={
                            "game_id": table.id,
                            "error": type(fault).__name__,
                            "tries": failures,
                            "pause_s": retry_pause(failures),
                        },
                    )
                    continue
                failures = 0
                if table.ai_task is not asyncio.current_task():
                    return  # the commit armed another loop (cannot happen while we run, but be safe)
