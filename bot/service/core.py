"""The table service's shared state and plumbing (the tables, their locks, the owned services), and what
its parts still ask of one another."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, TypedDict, Unpack

from bot.clock import Clock, SystemClock
from bot.config import Limits
from bot.games.registry import BY_KIND
from bot.service.bus import EventBus
from bot.service.ledger import GameLedger
from bot.service.prefs_cache import PrefsCache
from bot.service.settings_book import SettingsBook
from bot.service.sweeper import Sweeper
from bot.service.turn_clock import TurnClock
from bot.service.types import (
    PanelState,
    Refused,
    SeatTaken,
    ServiceObserver,
    Table,
)
from bot.service.writer import META_RETRY_WITHIN_S as META_RETRY_WITHIN_S
from bot.service.writer import TableWriter
from bot.storage import GameNotFound, Storage, StorageError
from bot.storage.tournaments import Tournament, TournamentTable


class ServiceOptions(TypedDict, total=False):
    """What a :class:`bot.service.TableService` is made with besides its storage (each part's
    ``__init__`` passes them on to :class:`ServiceCore`, the one that reads them)."""

    ai_delay: float
    round_delay: float
    seed_source: Callable[[], int] | None
    clock: Clock | None
    limits: Limits | None
    owns: Callable[[int | None], bool] | None
    observer: ServiceObserver | None


class ServiceCore(ABC):
    """What every part shares, and only that: the tables and their channel locks, storage (and the
    rules that run over it), the clock, whether the service is closing, the configuration
    it was made with (delays, limits, shards, observer, seeds), and the services it owns and hands every
    part: the event bus (``bus``), the one writer of tables (``writer``), the turn clock
    (``turn_clock``) and the sweeper of deadlines (``sweeper``). State that one part alone keeps is that
    part's own, made in its ``__init__`` (the settings and preferences caches, the letters on their way,
    the reloader, the lobby fair-use marks): ``tests/service/test_core.py`` checks both. What one part
    still asks of another is declared here as abstract methods, each implemented by exactly one part
    (named in its docstring), grouped by the piece of issue 48 that replaces it."""

    def __init__(self, storage: Storage, **options: Unpack[ServiceOptions]) -> None:
        self.storage = storage
        # The rules run here (deal, apply, replay, results, ratings); storage stores what they give.
        self.ledger = GameLedger(storage)
        self.lobbies = storage.lobbies
        self.clock: Clock = options.get("clock") or SystemClock()
        self.tables: dict[int, Table] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._closed = False
        # Configuration, read by the parts that need it.
        self.ai_delay = options.get("ai_delay", 1.2)
        self.round_delay = options.get("round_delay", 30.0)
        self.limits = options.get("limits") or Limits()
        self.observer = options.get("observer")
        # A fleet (bot.config.Shards): this process resumes, times and plays only the games and lobbies
        # of the guilds on its shards; the others belong to the processes that receive their clicks.
        self.owns: Callable[[int | None], bool] = options.get("owns") or (lambda _guild_id: True)
        # Where each new game's and tournament's seed comes from; read at each deal (the writer asks
        # through this attribute), so a test or a reproduction may set it after the service is made.
        self.seed_source: Callable[[], int] = options.get("seed_source") or (lambda: secrets.randbits(62))
        # The owned services: every stored change is published on the bus (one commit, one event), every
        # write of a table goes through the writer, every deadline through the sweeper; the servers'
        # settings and the users' choices are read through their caches by whichever part needs them.
        self.bus = EventBus()
        self.turn_clock = TurnClock(self.clock, round_delay=self.round_delay, ai_delay=self.ai_delay)
        self.sweeper = Sweeper(self.clock, self.observer)
        self.settings_book = SettingsBook(storage)
        self.user_prefs = PrefsCache(storage, self.clock)
        self.writer = TableWriter(
            storage=storage,
            ledger=self.ledger,
            tables=self.tables,
            bus=self.bus,
            turn_clock=self.turn_clock,
            observer=self.observer,
            seed=lambda: self.seed_source(),
        )

    # ------------------------------------------------------------------ plumbing

    def lock(self, channel_id: int) -> asyncio.Lock:
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = self._locks[channel_id] = asyncio.Lock()
        return lock

    async def close(self) -> None:
        """Stop every timer, computer player and background task (the state is in the database already),
        then let the bus's queued listeners hear what they were given (within its grace)."""
        self._closed = True
        tasks = [task for task in self._stop_background() if not task.done()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.bus.close()

    def _stop_background(self) -> list[asyncio.Task[None]]:
        """The tasks :meth:`close` cancels. A part that runs tasks of its own adds them, after
        ``super()``'s (and stops starting new ones): the reloader, the letters..."""
        ai_tasks = [table.ai_task for table in self.tables.values() if table.ai_task is not None]
        return [*ai_tasks, *self.sweeper.stop()]

    def table_in_channel(self, channel_id: int) -> Table | None:
        return next((tb for tb in self.tables.values() if tb.channel_id == channel_id), None)

    async def _table(self, game_id: int) -> Table:
        table = self.tables.get(game_id)
        if table is not None:
            return table
        try:
            stored = await self.ledger.get_game(game_id)
        except GameNotFound:
            raise Refused("table.error.unknown_table") from None
        except StorageError:
            raise Refused("table.error.unavailable") from None
        if stored.status != "active" or stored.kind not in BY_KIND:
            raise Refused("table.error.game_finished")
        return self.writer.cache(stored)

    def _panel(self, table: Table, seat: int, mode: int = 0) -> PanelState:
        return PanelState(
            table.id, table.version, seat, table.state.view(seat), table.names(), mode, kind=table.stored.kind
        )

    def panel_of(self, table: Table, seat: int) -> PanelState:
        """The seat's panel as the game stands (the presenter's edits of open panels)."""
        return self._panel(table, seat)

    def _seat(self, table: Table, user_id: int) -> int:
        seat = table.seat_of(user_id)
        if seat is None:
            raise Refused("error.not_a_player")
        if seat in table.replaced():
            raise SeatTaken(seat in table.idle())
        return seat

    async def remember_messages(self, table: Table, **messages: Any) -> bool:
        """Keep the presenter's turn mention and reminder (None: gone) in the stored meta, so that after
        a restart a turn is not mentioned twice and an old mention still gets deleted (that a game's
        thread result was posted: ``keep_result_posted``, bot.service.reloads). Bookkeeping: no event.
        True once the meta holds them; the database not answering (after the writer's tries) leaves the
        meta as it was: False, and a message it still names must not be deleted yet (the next pass, or
        the next process, deletes it, once)."""
        async with self.lock(table.channel_id):
            meta = {k: v for k, v in table.stored.meta.items() if k not in messages}
            meta.update({k: v for k, v in messages.items() if v is not None})
            if meta != table.stored.meta:
                try:
                    await self.writer.write_meta(table, meta)
                except Refused:
                    return False
            return True

    # ------------------------------------------------------------------ what the parts ask of one another
    # Issue 48: a commit's aftermath, the writes of tables, the deadlines, the timers' meta, the server
    # settings and the users' choices are the owned services' and the bus's (TableWriter, Sweeper,
    # TurnClock, SettingsBook, PrefsCache, the events); a vote is a click, the letters hear the events, a
    # computer's move is a pure function (computer_moves), the start is composed by TableService.resume.
    # What is left goes with piece C2: the tournaments' rounds as one service hearing TableEnded (today
    # the tournament ends part still calls the tournaments part: these three, one way).

    @abstractmethod
    async def _record(self, row: TournamentTable) -> None:
        """Store a tournament table's places from its game (:mod:`bot.service.tournaments`)."""

    @abstractmethod
    def _tournament_lock(self, tournament_id: int) -> asyncio.Lock:
        """The lock a tournament's changes take one at a time (:mod:`bot.service.tournaments`)."""

    @abstractmethod
    async def _go_on(self, held: Tournament) -> Tournament:
        """After a table's end: the next round seated, or the end (:mod:`bot.service.tournaments`)."""
