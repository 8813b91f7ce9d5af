"""The table service's shared state and plumbing, and what its parts ask of one another."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import Any, ParamSpec, TypedDict, Unpack

from bot.clock import Clock, SystemClock
from bot.config import Limits
from bot.games.registry import BY_KIND
from bot.service.rules import GameRules
from bot.service.types import (
    PanelState,
    Refused,
    SeatTaken,
    ServiceObserver,
    Table,
    TableListener,
    log,
)
from bot.storage import GameNotFound, ServerSettings, Storage, StorageError, StoredGame, UserPrefs
from bot.storage.game_commit import RELOAD_WITHIN_S, SETTLE_PAUSES_S, SETTLE_WITHIN_S
from bot.storage.tournaments import Tournament, TournamentTable

P = ParamSpec("P")

# A meta write that meets a transient fault (:meth:`ServiceCore._set_meta`) is tried again after a
# first short pause (the backend reconnects meanwhile), then as a move's read-back is
# (bot/storage/game_commit.py), while within a move's settling time of its first try.
META_RETRY_PAUSES_S = (0.2, *SETTLE_PAUSES_S)
META_RETRY_WITHIN_S = SETTLE_WITHIN_S


class ServiceOptions(TypedDict, total=False):
    """What a :class:`bot.service.TableService` is made with besides its storage (each part's
    ``__init__`` passes them on to :class:`ServiceCore`, the one that reads them)."""

    ai_delay: float
    round_delay: float
    listener: TableListener | None
    seed_source: Callable[[], int] | None
    clock: Clock | None
    limits: Limits | None
    owns: Callable[[int | None], bool] | None
    observer: ServiceObserver | None


class QuietListener:
    """The listener of a service nobody watches (tests, benches, tools): hears everything, does nothing."""

    def table_changed(self, table: Table) -> None:
        pass

    def lobby_changed(self, lobby_id: int) -> None:
        pass

    def remind(self, table: Table, seats: list[int], seconds_left: int) -> None:
        pass

    def seat_taken_over(self, table: Table, seat: int) -> None:
        pass

    def table_gone(self, table: Table) -> None:
        pass

    def lobby_gone(self, lobby_id: int) -> None:
        pass


class ServiceCore(ABC):
    """What every part shares, and only that: the tables and their channel locks, storage (and the
    rules that run over it), the clock, the listener, whether the service is closing, and the
    configuration it was made with (delays, limits, shards, observer, seeds). State that one part
    alone keeps is that part's own, made in its ``__init__`` (the sweeper's index, the settings and
    preferences caches, the letters on their way, the reloader, the lobby fair-use marks):
    ``tests/service/test_core.py`` checks both. What one part asks of another is declared here as
    abstract methods, each implemented by exactly one part (named in its docstring)."""

    def __init__(self, storage: Storage, **options: Unpack[ServiceOptions]) -> None:
        self.storage = storage
        # The rules run here (deal, apply, replay, results, ratings); storage stores what they give.
        self.rules = GameRules(storage)
        self.lobbies = storage.lobbies
        self.clock: Clock = options.get("clock") or SystemClock()
        self.listener: TableListener = options.get("listener") or QuietListener()
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
        self._seed: Callable[[], int] = options.get("seed_source") or (lambda: secrets.randbits(62))

    # ------------------------------------------------------------------ plumbing

    def lock(self, channel_id: int) -> asyncio.Lock:
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = self._locks[channel_id] = asyncio.Lock()
        return lock

    def _moved_on(self, table: Table) -> None:
        """The table's committed state changed (a commit, a reload that found one): a finished game is
        forgotten, a live one gets its next deadline and its computer players; the listener is told."""
        if table.finished:
            self._finish(table)
        else:
            self._index(table)
            self._arm(table)
        self._notify(table)

    def _notify(self, table: Table) -> None:
        self._tell(self.listener.table_changed, table)

    def _tell(self, hear: Callable[P, object], *args: P.args, **kwargs: P.kwargs) -> None:
        """Call one of the listener's methods (``self._tell(self.listener.remind, table, seats, left)``,
        checked by mypy like a direct call): whatever the listener raises is logged, never the
        service's failure (the state is committed already)."""
        try:
            hear(*args, **kwargs)
        except Exception:
            log.exception("table listener failed", extra={"what": getattr(hear, "__name__", repr(hear))})

    async def close(self) -> None:
        """Stop every timer, computer player and background task (the state is in the database already)."""
        self._closed = True
        tasks = [task for task in self._stop_background() if not task.done()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def _stop_background(self) -> list[asyncio.Task[None]]:
        """The tasks :meth:`close` cancels. A part that runs tasks of its own adds them, after
        ``super()``'s (and stops starting new ones): the sweeper, the reloader, the letters..."""
        return [table.ai_task for table in self.tables.values() if table.ai_task is not None]

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
        if stored.status != "active" or stored.kind not in BY_KIND:
            raise Refused("table.error.game_finished")
        return self._cache(stored)

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

    async def remember_messages(self, table: Table, **messages: Any) -> None:
        """Keep the presenter's turn mention and reminder (None: gone) in the stored meta, so that after
        a restart a turn is not mentioned twice and an old mention still gets deleted (that a game's
        thread result was posted: ``keep_result_posted``, bot.service.reloads). The database not
        answering (after :meth:`_set_meta`'s tries) leaves the meta as it was."""
        async with self.lock(table.channel_id):
            meta = {k: v for k, v in table.stored.meta.items() if k not in messages}
            meta.update({k: v for k, v in messages.items() if v is not None})
            if meta != table.stored.meta:
                with contextlib.suppress(Refused):
                    await self._set_meta(table, meta)

    async def _set_meta(self, table: Table, meta: dict[str, Any]) -> None:
        """Store the table's meta (the channel lock held): a vote, a hint, a seat given or taken back,
        a timer, the presenter's message ids. The one write of those, retried like a move's commit
        (docs/faults.md, "Database faults"): a transient fault (a blink) is tried again after each of
        :data:`META_RETRY_PAUSES_S` while within :data:`META_RETRY_WITHIN_S`; the write replaces the
        whole meta, so a try whose answer was lost and the next one write the same thing. Still not
        written, the meta is read back: found as written, done; as before, Refused "could not be saved"
        (nothing changed); unreadable, the live table waits for the database (``needs_reload``: its
        reload reads the meta as stored) and Refused "reconnecting"."""
        if table.needs_reload:  # its stored meta may have moved with a commit that landed after all
            self._reload_later(table)
            raise Refused("table.error.reconnecting")
        began = time.monotonic()
        pauses = iter(META_RETRY_PAUSES_S)
        tries = 0
        while True:
            try:
                await self.storage.games.set_meta(table.id, meta)
            except StorageError as error:
                if not error.transient:
                    raise Refused("table.error.unavailable") from None
                tries += 1
                if tries == 1:
                    log.warning(
                        "meta not saved: trying again",
                        extra={"game_id": table.id, "error": type(error).__name__},
                    )
                pause = next(pauses, META_RETRY_PAUSES_S[-1])
                if time.monotonic() + pause - began > META_RETRY_WITHIN_S:
                    break
                await asyncio.sleep(pause)
                continue
            table.stored.meta = meta
            if tries:
                log.info("meta saved after a retry", extra={"game_id": table.id, "tries": tries + 1})
            return
        await self._meta_read_back(table, meta)

    async def _meta_read_back(self, table: Table, meta: dict[str, Any]) -> None:
        """The meta's write failed for good (:meth:`_set_meta`): what does the database hold?"""
        try:
            fresh = await asyncio.wait_for(self.rules.get_game(table.id), RELOAD_WITHIN_S)
        except (StorageError, TimeoutError):
            if not table.finished:
                table.stored.needs_reload = True  # the last try may have landed: read it all again
                self._reload_later(table)
            log.warning("meta not saved, table waiting for the database", extra={"game_id": table.id})
            raise Refused("table.error.reconnecting") from None
        table.stored.meta = fresh.meta
        if fresh.meta == meta:
            log.info("meta saved (found by its read-back)", extra={"game_id": table.id})
            return
        log.warning("meta not saved", extra={"game_id": table.id})
        raise Refused("table.error.unavailable")

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
    def _forget(self, key: tuple[str, int]) -> None:
        """Tell the sweeper a game or lobby has no deadline any more (:mod:`bot.service.timers`)."""

    @abstractmethod
    async def _expire_lobby(self, lobby_id: int) -> None:
        """Close a lobby nobody started in time, when its deadline comes (:mod:`bot.service.lobbies`)."""

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
    def _game_over(self, table: Table) -> None:
        """A game ended: a tournament's table is recorded (:mod:`bot.service.tournament_ends`)."""

    @abstractmethod
    async def _record(self, row: TournamentTable) -> None:
        """Store a tournament table's places from its game (:mod:`bot.service.tournament_ends`)."""

    @abstractmethod
    def _tournament_lock(self, tournament_id: int) -> asyncio.Lock:
        """The lock a tournament's changes take one at a time (:mod:`bot.service.tournaments`)."""

    @abstractmethod
    async def _go_on(self, held: Tournament) -> Tournament:
        """After a table's end: the next round seated, or the end (:mod:`bot.service.tournaments`)."""

    @abstractmethod
    def _hail(self, tournament_id: int) -> None:
        """Tell the hall a tournament changed (:mod:`bot.service.tournaments`)."""

    @abstractmethod
    async def resume_tournaments(self) -> None:
        """At start, the tournaments go on (:mod:`bot.service.tournaments`)."""

    @abstractmethod
    async def _tournament_due(self, tournament_id: int) -> None:
        """A tournament's start time came (:mod:`bot.service.tournaments`)."""

    @abstractmethod
    async def _replace(self, table: Table, seat: int, reason: str = "left") -> None:
        """A computer player takes a human's seat (:mod:`bot.service.seats`)."""
