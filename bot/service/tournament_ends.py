"""A tournament table's end (issue 41): its places recorded, tried again until the database takes them.

Every game's end is heard on the service's bus (``TableEnded``, published by the one writer of tables:
a game finished, ended by hand, or whose place vanished) and passes by ``_game_over``; a tournament's
table (meta ``tournament_id``) is recorded in a task of this part (the end is published under the
channel's lock): its places (``_record`` of :mod:`~bot.service.tournaments`: a game played to its end
by its results; ended by hand by its standing then, ``Game.standing``; one whose channel vanished: a
draw), then the tournament goes on (``_go_on`` of :mod:`~bot.service.tournaments`: the next round
seated when every table of the round has ended, or the tournament finished), and ``TournamentChanged``
is published.

A table's end the database did not take is tried again with growing pauses until it is recorded
(``_table_over``); a try holds the tournament's lock, never a pause, and is idempotent. A restart loses
nothing: ``resume_tournaments`` records the tables whose game ended while the process was away or
closing.

This part's own state is ``table_ends``, the tasks recording a table's end (stopped at close). What it
asks of the tournaments part (the tournament's lock, ``_record``, ``_go_on``) is declared in
:class:`~bot.service.core.ServiceCore`; the tournaments part asks nothing of it (it hears the bus).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Unpack

from bot.service.core import ServiceCore, ServiceOptions
from bot.service.events import TableEnded, TournamentCause, TournamentChanged
from bot.service.snapshots import TableSnapshot
from bot.service.types import Refused, log
from bot.storage import GameNotFound, GameQuarantined, Storage, StorageError
from bot.storage.tournaments import ENDED, FINISHED, Tournament, TournamentNotFound

# The pauses before a table's end the database did not take is tried again, doubling (``_table_over``).
RECORD_FIRST_PAUSE_S = 1.0
RECORD_LONGEST_PAUSE_S = 60.0


class TournamentEndPart(ServiceCore):
    """Learn a tournament table's end: record its places, and let the tournament go on."""

    def __init__(self, storage: Storage, **options: Unpack[ServiceOptions]) -> None:
        super().__init__(storage, **options)
        self.table_ends: set[asyncio.Task[None]] = set()
        self.bus.subscribe(TableEnded, self._on_ended, name="tournament ends")

    def _stop_background(self) -> list[asyncio.Task[None]]:
        return [*super()._stop_background(), *self.table_ends]

    def _on_ended(self, event: TableEnded) -> None:
        self._game_over(event.snapshot)

    def _game_over(self, table: TableSnapshot) -> None:
        """A game ended: if it is a tournament's table, record it (in a task: the channel's lock is held
        here)."""
        tournament_id = table.meta.get("tournament_id")
        if isinstance(tournament_id, int) and not self._closed:
            self._run(self._table_over(tournament_id, table.table_id))

    def _run(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self.table_ends.add(task)
        task.add_done_callback(self.table_ends.discard)

    async def _table_over(self, tournament_id: int, game_id: int) -> None:
        """Record a table's end and go on; a database that does not answer is tried again after a pause
        doubling from :data:`RECORD_FIRST_PAUSE_S` to :data:`RECORD_LONGEST_PAUSE_S` until it is recorded
        or the service closes (the next round comes on a running bot). Each try holds the lock, never a
        pause, and is idempotent: a table ended is not recorded again, ``_go_on`` seats a round once."""
        pause = RECORD_FIRST_PAUSE_S
        while True:
            try:
                held = await self._record_and_go_on(tournament_id, game_id)
            except (TournamentNotFound, GameNotFound, GameQuarantined):  # no try would do better
                log.warning("tournament table end not recorded", extra={"game_id": game_id})
                return
            except (StorageError, Refused) as error:
                if self._closed:
                    return  # recorded by the next start's resume_tournaments
                about = {"tournament_id": tournament_id, "game_id": game_id, "pause_s": pause}
                log.warning(
                    "tournament table end not recorded; trying again", extra=about | {"error": repr(error)}
                )
                await asyncio.sleep(pause)
                pause = min(pause * 2, RECORD_LONGEST_PAUSE_S)
                continue
            if held is not None:  # its places, and maybe a new round or the end: the hall draws it
                cause: TournamentCause = "finished" if held.status == FINISHED else "table_ended"
                self.bus.publish(TournamentChanged(tournament_id=held.id, cause=cause))
            return

    async def _record_and_go_on(self, tournament_id: int, game_id: int) -> Tournament | None:
        """One try of :meth:`_table_over` (None: no tournament's table); a try whose record landed but
        whose round was not seated goes on at the next."""
        async with self._tournament_lock(tournament_id):
            held = await self.storage.tournaments.get(tournament_id)
            row = await self.storage.tournaments.table_of_game(game_id)
            if row is None:
                return None
            if row.status != ENDED:
                await self._record(row)
            return await self._go_on(held)
