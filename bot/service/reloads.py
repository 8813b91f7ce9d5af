"""Tables whose database blinked: served from their last committed state, reloaded when it answers.

When a move's commit fails and the game cannot be read again either (the database away: a restart, a
dropped connection, a busy disk), storage puts the state back as last committed and marks the game
(``StoredGame.needs_reload``, see :meth:`bot.storage.games.GameRepository.apply_action`). Such a table
keeps serving what is safe to read from that state (the private panels, "Open my panel", the table
message and its picture) and refuses what would write, privately, in the clicker's language: "the
table is reconnecting, try again in a moment". It reloads itself as soon as the database answers: a
move first tries a reload (the click was acknowledged, so it may wait a little), and a reloader task
tries every such table with a growing pause. A reload reads the game as its log has it (the failed
commit may have landed after all), makes every open panel stale, re-arms its timer and computer
players and redraws the table. ``/healthz`` says 503 while any table waits (:meth:`tables_waiting`).

A computer's or a timer's move refused while storage could read the game again (a busy lock, say) is
tried again by its own task after a growing pause (:mod:`bot.service.computers`,
:mod:`bot.service.timers`); once a table waits here they leave it to its reload, which arms them again
(one computer task per table: ``Table.ai_task``).

The reloads themselves are the one writer's of tables (:meth:`~bot.service.writer.TableWriter.reload`,
``ready_for_move`` before a move); this part runs the reloader, started whenever it hears
``TableWaiting`` on the service's bus (a write that left a table waiting, or found it so).

A table message posted while the database is away (the presenter's first post, or a new one for a
deleted message) keeps its id in memory (``Table.message_unsaved``: every later edit goes to it) and
the reloader stores it as soon as the database answers, before any reload could read the old id back:
a restart before that would post a second table message (the first one's buttons still work).

So is the fact that a game's thread result was posted in its channel (``RESULT_POSTED`` in its meta,
``keep_result_posted``): in memory at once (this process never posts it again), and stored by the
reloader once the database answers, so that no start posts it again.
"""

from __future__ import annotations

import asyncio
from typing import Unpack

from bot.service.core import ServiceCore, ServiceOptions
from bot.service.events import TableWaiting
from bot.service.types import RESULT_POSTED, Table, log
from bot.storage import Storage, StorageError

# The reloader's first pause, and its longest: it doubles after each round that left a table waiting.
RELOAD_FIRST_PAUSE_S = 0.5
RELOAD_LONGEST_PAUSE_S = 30.0


class ReloadPart(ServiceCore):
    """Tables waiting for the database, and their reload."""

    def __init__(self, storage: Storage, **options: Unpack[ServiceOptions]) -> None:
        super().__init__(storage, **options)
        # Reloads the tables whose database did not answer, while there are any.
        self._reloader: asyncio.Task[None] | None = None
        # Ended games whose thread result was posted, that fact not stored yet (keep_result_posted).
        self._results_unsaved: dict[int, Table] = {}
        self.bus.subscribe(TableWaiting, self._on_waiting, name="reloader")

    def _stop_background(self) -> list[asyncio.Task[None]]:
        return [*super()._stop_background(), *([self._reloader] if self._reloader is not None else [])]

    def tables_waiting(self) -> int:
        """How many tables of this process cannot be served now (their database did not answer)."""
        return sum(1 for table in list(self.tables.values()) if table.needs_reload and not table.finished)

    def _on_waiting(self, event: TableWaiting) -> None:
        self._reload_later()

    async def keep_message_id(self, table: Table, message_id: int) -> None:
        """The table's public message was just posted (the presenter): store its id. The database
        away, the id serves from memory and the reloader stores it once the database answers (under
        the channel's lock, as here: one write of the id at a time)."""
        async with self.lock(table.channel_id):
            table.stored.message_id = message_id
            try:
                await self.storage.games.set_message_id(table.id, message_id)
            except StorageError:
                log.warning("table message id not stored: tried again later", extra={"game_id": table.id})
                table.message_unsaved = True
                self._reload_later(table)
                return
            table.message_unsaved = False

    async def keep_result_posted(self, table: Table) -> None:
        """A game's thread result was just posted in its channel (bot.ui.threads): store that with the
        game (``RESULT_POSTED``), so no start posts it again. The fact holds in memory at once; the
        database away, the reloader stores it as soon as it answers (tried with the tables' reloads,
        until the process stops: a start then reads the channel before posting)."""
        async with self.lock(table.channel_id):
            table.stored.meta = {**table.stored.meta, RESULT_POSTED: True}
            if await self._store_result_posted(table):
                return
            log.warning("thread result not stored as posted: tried again later", extra={"game_id": table.id})
            self._results_unsaved[table.id] = table
            self._reload_later(table)

    async def _store_result_posted(self, table: Table) -> bool:
        """Write a finished game's meta, which holds RESULT_POSTED (the channel lock held)."""
        try:
            await self.storage.games.set_meta(table.id, table.stored.meta)
        except StorageError:
            return False
        if self._results_unsaved.pop(table.id, None) is not None:
            log.info("thread result stored as posted", extra={"game_id": table.id})
        return True

    def _reload_later(self, table: Table | None = None) -> None:
        """Make sure the reloader runs: it reloads every waiting table once the database answers."""
        if self._closed:
            return
        if self._reloader is None or self._reloader.done():
            self._reloader = asyncio.create_task(self._reload_loop(), name="table-reloader")

    async def _reload_loop(self) -> None:
        pause = RELOAD_FIRST_PAUSE_S
        while not self._closed:
            await asyncio.sleep(pause)
            waiting = [table for table in list(self.tables.values()) if _waits(table)]
            for table in waiting:
                async with self.lock(table.channel_id):
                    if self.tables.get(table.id) is table and table.needs_reload:
                        await self.writer.reload(table)
                    elif self.tables.get(table.id) is table and table.message_unsaved:
                        await self.writer.store_message_id(table)
            for table in list(self._results_unsaved.values()):
                async with self.lock(table.channel_id):
                    await self._store_result_posted(table)
            if not self._results_unsaved and not any(_waits(table) for table in list(self.tables.values())):
                return
            pause = min(pause * 2, RELOAD_LONGEST_PAUSE_S)


def _waits(table: Table) -> bool:
    """The reloader has something to do for this table: reload it, or store its message's id."""
    return table.needs_reload or table.message_unsaved
