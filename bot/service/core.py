"""The table service's shared state and plumbing, and what its parts ask of one another."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import Any

from bot.clock import Clock, SystemClock
from bot.config import Limits
from bot.games.registry import KINDS
from bot.service.rules import GameRules
from bot.service.table import (
    PanelState,
    Postman,
    Refused,
    SeatTaken,
    ServiceObserver,
    Table,
    TableListener,
    log,
)
from bot.storage import GameNotFound, ServerSettings, Storage, StorageError, StoredGame, UserPrefs


class ServiceCore(ABC):
    """The state every part reads and writes (one instance: the tables, the channel locks, the
    sweeper's index...), the plumbing they all use, and, as abstract methods, what one part asks of
    another: each is implemented by exactly one part (named in its docstring)."""

    def __init__(
        self,
        storage: Storage,
        *,
        ai_delay: float = 1.2,
        round_delay: float = 30.0,
        listener: TableListener | None = None,
        seed_source: Callable[[], int] | None = None,
        clock: Clock | None = None,
        limits: Limits | None = None,
        owns: Callable[[int | None], bool] | None = None,
        observer: ServiceObserver | None = None,
    ) -> None:
        self.storage = storage
        # The rules run here (deal, apply, replay, results, ratings); storage stores what they give.
        self.rules = GameRules(storage)
        self.observer = observer
        # A fleet (bot.config.Shards): this process resumes, times and plays only the games and lobbies
        # of the guilds on its shards; the others belong to the processes that receive their clicks.
        self.owns: Callable[[int | None], bool] = owns or (lambda _guild_id: True)
        self.clock: Clock = clock or SystemClock()
        self.limits = limits or Limits()
        # Fair use (see _create_lobby): one table opening at a time, and when each host last opened one.
        self._opening = asyncio.Lock()
        self._opened_at: dict[int, int] = {}
        self.lobbies = storage.lobbies
        self.ai_delay = ai_delay
        self.round_delay = round_delay
        self.listener = listener
        self.tables: dict[int, Table] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._seed = seed_source or (lambda: secrets.randbits(62))
        self._closed = False
        # The sweeper's index: ("game" | "lobby", id) -> when to look at it next (ms).
        self._due: dict[tuple[str, int], int] = {}
        self._wake = asyncio.Event()
        self._sweeper: asyncio.Task[None] | None = None
        self.expired_lobbies: set[int] = set()
        # Each server's settings (/skybo settings), the defaults left out: see bot.service.settings.
        self._settings: dict[int, ServerSettings] = {}
        # Users' own choices (/skybo notify, /skybo display): user -> (when read, ms; them). See
        # bot.service.prefs.
        self._prefs: dict[int, tuple[int, UserPrefs]] = {}
        # Changes made here per user: a read that a change overtook does not overwrite the cache with it.
        self._prefs_changes: dict[int, int] = {}
        # Long games' direct messages (bot.service.letters): who sends them (set by the bot), the
        # letters on their way ((game, deadline, seat, what)) and their tasks (languages being stored too).
        self.postman: Postman | None = None
        self._letters_going: set[tuple[int, int, int, str]] = set()
        self._letter_tasks: set[asyncio.Task[None]] = set()
        # Reloads the tables whose database did not answer (bot.service.reloads), while there are any.
        self._reloader: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ plumbing

    def lock(self, channel_id: int) -> asyncio.Lock:
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = self._locks[channel_id] = asyncio.Lock()
        return lock

    def _notify(self, table: Table) -> None:
        self._tell("table_changed", table)

    def _tell(self, what: str, *args: Any) -> None:
        if self.listener is not None:
            try:
                getattr(self.listener, what)(*args)
            except Exception:
                log.exception("table listener failed", extra={"what": what})

    async def close(self) -> None:
        """Stop every timer and computer player (the state is in the database already)."""
        self._closed = True
        tasks = [
            task
            for table in self.tables.values()
            for task in (table.ai_task,)
            if task is not None and not task.done()
        ]
        if self._sweeper is not None:
            tasks.append(self._sweeper)
        if self._reloader is not None:
            tasks.append(self._reloader)
        tasks += [task for task in self._letter_tasks if not task.done()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def table_in_channel(self, channel_id: int) -> Table | None:
        return next((tb for tb in self.tables.values() if tb.channel_id == channel_id), None)

    def _cache(self, stored: StoredGame) -> Table:
        table = Table(stored, [stored.version] * len(stored.seats))
        self.tables[stored.id] = table
        return table

    async def _table(self, game_id: int) -> Table:
        table = self.tables.get(game_id)
        if table is not None:
            return table
        try:
            stored = await self.rules.get_game(game_id)
        except GameNotFound:
            raise Refused("table.error.unknown_table") from None
        except StorageError:
            raise Refused("table.error.unavailable") from None
        if stored.status != "active" or stored.kind not in KINDS:
            raise Refused("table.error.game_finished")
        return self._cache(stored)

    def _panel(self, table: Table, seat: int, mode: int = 0) -> PanelState:
        return PanelState(
            table.id, table.version, seat, table.game.view(seat), table.names(), mode, kind=table.stored.kind
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

    async def remember_messages(self, table: Table, **messages: Any) -> None:
        """Keep the presenter's turn mention and reminder (None: gone) in the stored meta, so that after
        a restart a turn is not mentioned twice and an old mention still gets deleted."""
        async with self.lock(table.channel_id):
            meta = {k: v for k, v in table.stored.meta.items() if k not in messages}
            meta.update({k: v for k, v in messages.items() if v is not None})
            if meta != table.stored.meta:
                with contextlib.suppress(Refused):
                    await self._set_meta(table, meta)

    async def _set_meta(self, table: Table, meta: dict[str, Any]) -> None:
        if table.needs_reload:  # its stored meta may have moved with a commit that landed after all
            self._reload_later(table)
            raise Refused("table.error.reconnecting")
        try:
            await self.storage.games.set_meta(table.id, meta)
        except StorageError:
            raise Refused("table.error.unavailable") from None
        table.stored.meta = meta

    # ------------------------------------------------------------------ what the parts ask of one another

    @abstractmethod
    async def _commit(
        self, table: Table, seat: int, action: Any, *, by_player: bool = False, key: int | None = None
    ) -> list[dict[str, Any]]:
        """Apply and commit one action under the channel lock (:mod:`bot.service.clicks`)."""

    @abstractmethod
    async def _fresh_for_move(self, table: Table) -> None:
        """A table waiting for the database reloaded before a move, or Refused
        (:mod:`bot.service.reloads`)."""

    @abstractmethod
    def _reload_later(self, table: Table) -> None:
        """Have a table waiting for the database reloaded once it answers (:mod:`bot.service.reloads`)."""

    @abstractmethod
    async def _new_table_settings(self, guild_id: int | None, channel_id: int) -> ServerSettings:
        """The server's settings for a table opening in ``channel_id``, or Refused
        (:mod:`bot.service.settings`)."""

    @abstractmethod
    def settings_of(self, guild_id: int | None) -> ServerSettings:
        """A server's settings, from the cache (:mod:`bot.service.settings`)."""

    @abstractmethod
    def _finish(self, table: Table) -> None:
        """Forget a game that ended (:mod:`bot.service.clicks`)."""

    @abstractmethod
    async def _vote_next_round(self, table: Table, seat: int, key: int | None = None) -> PanelState:
        """A seat asks for the next round (:mod:`bot.service.votes`)."""

    @abstractmethod
    def _meta_after(
        self, table: Table, game: Any, player_seat: int | None, turn_moved: bool
    ) -> dict[str, Any] | None:
        """The meta an action's commit writes (:mod:`bot.service.timers`)."""

    @abstractmethod
    async def _sync_timer(self, table: Table) -> None:
        """Make the stored timer match the state (:mod:`bot.service.timers`)."""

    @abstractmethod
    def _synced_meta(self, table: Table) -> dict[str, Any] | None:
        """The meta with the timer the state calls for (:mod:`bot.service.timers`)."""

    @abstractmethod
    def _index(self, table: Table) -> None:
        """Tell the sweeper when to look at this table next (:mod:`bot.service.timers`)."""

    @abstractmethod
    def _schedule(self, key: tuple[str, int], due: int) -> None:
        """Tell the sweeper about a deadline (:mod:`bot.service.timers`)."""

    @abstractmethod
    def _waited_for(self, table: Table) -> list[int]:
        """The human seats the game waits for now (:mod:`bot.service.timers`)."""

    @abstractmethod
    def _letters(self, table: Table) -> None:
        """Send the direct messages a long game's turn owes (:mod:`bot.service.letters`)."""

    @abstractmethod
    async def prefs_of(self, user_ids: Iterable[int | None]) -> dict[int, UserPrefs]:
        """Users' own choices, through a short cache (:mod:`bot.service.prefs`)."""

    @abstractmethod
    def _arm(self, table: Table) -> None:
        """Schedule the computer players' moves (:mod:`bot.service.computers`)."""

    @abstractmethod
    def _ai_decide(self, table: Table, seat: int, level: str | None = None) -> Any:
        """The move a computer player makes for a seat (:mod:`bot.service.computers`)."""

    @abstractmethod
    async def _replace(self, table: Table, seat: int, reason: str = "left") -> None:
        """A computer player takes a human's seat (:mod:`bot.service.seats`)."""
