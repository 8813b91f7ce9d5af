"""The table manager: lobbies and games per channel, load -> engine.apply -> commit -> events; no discord.

Every change to a game goes through :meth:`TableService._commit` under the channel's ``asyncio.Lock``:
the engine applies the action to the cached state, storage commits it (the action log is the truth),
and only then are the events recorded, computer players scheduled and the listener told, so nothing
is ever shown to a player before it is in the database. The cache (:class:`Table`) holds the state
storage returned; when a commit fails storage reloads it, so the cache never runs ahead of the log.

Staleness: every in-game button carries the version it was drawn at. A click is stale when
something that could change what that panel means happened since: an action of the clicker's own
seat, or any change of phase, round, turn or drawn card (``Table.marks``). Other players' initial
reveals do not make a panel stale (they change nothing the clicker sees on it), so a human is not
refused while computer players turn their cards at the same time.

Timers live in the database: the deadline of the pause between rounds is stored in the game's meta
and re-armed by :meth:`resume` at start. Computer players are plain asyncio tasks re-created at start
from the stored state (whose turn it is), so a restart loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.ai import skyjo as skyjo_ai
from bot.engine import skyjo
from bot.engine.errors import GameError
from bot.i18n import translate as t
from bot.storage import ChannelBusy, GameNotFound, Seat, Storage, StorageError, StoredGame
from bot.storage.lobbies import (
    CANCELLED,
    STARTED,
    Lobby,
    LobbyChanged,
    LobbyNotFound,
    LobbyRepository,
    LobbySeat,
)
from bot.ui import skyjo_panel as panel

log = logging.getLogger(__name__)

KIND = "skyjo"
MAX_SEATS = skyjo.MAX_PLAYERS
MIN_SEATS = skyjo.MIN_PLAYERS
AI_LEVELS = tuple(skyjo_ai.LEVELS)
RECENT_EVENTS = 6  # actions whose events the table message keeps in words


class Refused(Exception):
    """A request the table refuses; ``key`` (and ``params``) is the message the clicker reads."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


class ChannelTaken(Refused):
    """The channel already has a lobby or a game: where it is, so the reply can link to it."""

    def __init__(self, guild_id: int | None, channel_id: int, message_id: int | None) -> None:
        super().__init__("table.error.channel_busy")
        self.guild_id = guild_id
        self.channel_id = channel_id
        self.message_id = message_id


class Stale(Refused):
    """The clicked panel is out of date; ``panel`` is the fresh one."""

    def __init__(self, fresh: PanelState) -> None:
        super().__init__("table.error.stale_panel")
        self.panel = fresh


class TableListener(Protocol):
    """What the Discord layer does when a table changed without an interaction to answer."""

    def table_changed(self, table: Table) -> None: ...


@dataclass
class Table:
    """A game being played: the stored game (state included) and what the service keeps beside it."""

    stored: StoredGame
    marks: list[int]
    recent: deque[tuple[int, list[dict[str, Any]]]] = field(
        default_factory=lambda: deque(maxlen=RECENT_EVENTS)
    )
    votes: set[int] = field(default_factory=set)  # seats that asked for the next round
    turns: int = 0  # turns started since this process loaded the game (the mention's key)
    resumed: bool = False  # loaded at start after a restart, nothing played since
    ended_by: int | None = None  # the user who ended it with /skyjo end (cancelled, unrated)
    ai_task: asyncio.Task[None] | None = None
    round_task: asyncio.Task[None] | None = None

    @property
    def id(self) -> int:
        return self.stored.id

    @property
    def game(self) -> skyjo.Game:
        game: skyjo.Game = self.stored.game
        return game

    @property
    def version(self) -> int:
        return self.stored.version

    @property
    def channel_id(self) -> int:
        return self.stored.channel_id

    @property
    def finished(self) -> bool:
        return self.stored.status != "active"

    def replaced(self) -> dict[int, str]:
        """Human seats a computer player took over (left or kicked): seat -> level."""
        raw = self.stored.meta.get("replaced") or {}
        return {int(k): str(v) for k, v in raw.items()}

    def ai_level(self, seat: int) -> str | None:
        level = self.stored.seats[seat].ai_level
        return level if level is not None else self.replaced().get(seat)

    def human_seats(self) -> list[int]:
        return [s.seat for s in self.stored.seats if self.ai_level(s.seat) is None]

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.stored.seats if s.user_id == user_id), None)

    def names(self) -> list[str]:
        return [s.display_name for s in self.stored.seats]

    def turn_user(self) -> int | None:
        """The human whose turn it is (to mention), or None."""
        game = self.game
        if self.finished or game.phase != skyjo.PLAY or game.turn is None:
            return None
        if self.ai_level(game.turn) is not None:
            return None
        return self.stored.seats[game.turn].user_id

    def round_waiting(self) -> list[int]:
        """Human seats that have not asked for the next round yet."""
        return [s for s in self.human_seats() if s not in self.votes]


@dataclass
class PanelState:
    """What a private panel shows: the seat's view at a version, and the mode of the two-click moves."""

    game_id: int
    version: int
    seat: int
    view: dict[str, Any]
    names: list[str]
    mode: int = panel.MODE_MAIN
    notice: tuple[str, dict[str, Any]] | None = None  # a message to show above the panel


def _now_ms() -> int:
    return int(time.time() * 1000)


class TableService:
    """Lobbies and games of every channel; the only writer of game state."""

    def __init__(
        self,
        storage: Storage,
        *,
        ai_delay: float = 1.2,
        round_delay: float = 30.0,
        listener: TableListener | None = None,
        seed_source: Callable[[], int] | None = None,
    ) -> None:
        self.storage = storage
        self.lobbies = LobbyRepository(storage.db)
        self.ai_delay = ai_delay
        self.round_delay = round_delay
        self.listener = listener
        self.tables: dict[int, Table] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._seed = seed_source or (lambda: secrets.randbits(62))
        self._closed = False

    # ------------------------------------------------------------------ plumbing

    def lock(self, channel_id: int) -> asyncio.Lock:
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = self._locks[channel_id] = asyncio.Lock()
        return lock

    def _notify(self, table: Table) -> None:
        if self.listener is not None:
            try:
                self.listener.table_changed(table)
            except Exception:
                log.exception("table listener failed", extra={"game_id": table.id})

    async def close(self) -> None:
        """Stop every timer and computer player (the state is in the database already)."""
        self._closed = True
        tasks = [
            task
            for table in self.tables.values()
            for task in (table.ai_task, table.round_task)
            if task is not None and not task.done()
        ]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def table_in_channel(self, channel_id: int) -> Table | None:
        return next((tb for tb in self.tables.values() if tb.channel_id == channel_id), None)

    # ------------------------------------------------------------------ start of the process

    async def resume(self) -> list[Table]:
        """Load every active game, re-arm its timers and computer players; returns the tables."""
        loaded = await self.storage.games.load_active()
        tables: list[Table] = []
        for stored in loaded.games:
            if stored.kind != KIND:
                continue
            table = self._cache(stored)
            table.resumed = True
            tables.append(table)
            if stored.game.is_over:  # ended by its last action but not closed (an old crash)
                with contextlib.suppress(StorageError):
                    stored.finished = await self.storage.games.finish_game(stored.id)
                    stored.status = "finished"
        for lobby in await self.lobbies.list_open():
            # A crash between "deal the game" and "close the lobby" leaves both: the game wins.
            busy = next((tb for tb in tables if tb.channel_id == lobby.channel_id), None)
            if busy is not None:
                with contextlib.suppress(StorageError):
                    await self.lobbies.close(lobby, STARTED, busy.id)
        for table in tables:
            if table.finished:
                self.tables.pop(table.id, None)
            else:
                self._arm(table)
        log.info("tables resumed", extra={"games": len(tables), "quarantined": len(loaded.quarantined)})
        return tables

    def _cache(self, stored: StoredGame) -> Table:
        table = Table(stored, [stored.version] * len(stored.seats))
        self.tables[stored.id] = table
        return table

    # ------------------------------------------------------------------ lobbies

    async def open_lobby(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        host_name: str,
        options: Mapping[str, Any],
        computers: int = 0,
        level: str = "normal",
        locale: object = None,
    ) -> Lobby:
        if level not in AI_LEVELS:
            raise Refused("table.error.bad_level")
        try:
            opts = skyjo.Options.from_dict(dict(options))
            opts.validate(MIN_SEATS)
        except GameError as error:
            raise Refused(error.key, **error.params) from None
        if not 0 <= computers < MAX_SEATS:
            raise Refused("error.player_count", min=MIN_SEATS, max=MAX_SEATS)
        seats = [LobbySeat(host_name, user_id=host_id)]
        seats += [LobbySeat(self._ai_name(i + 1, level, locale), ai_level=level) for i in range(computers)]
        async with self.lock(channel_id):
            await self._check_channel_free(guild_id, channel_id)
            try:
                lobby = await self.lobbies.create(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    kind=KIND,
                    host_id=host_id,
                    options=opts.to_dict(),
                    seats=seats,
                )
            except ChannelBusy:
                await self._check_channel_free(guild_id, channel_id)
                raise Refused("table.error.channel_busy") from None
        log.info("lobby opened", extra={"lobby_id": lobby.id, "channel_id": channel_id, "host_id": host_id})
        return lobby

    @staticmethod
    def _ai_name(number: int, level: str, locale: object) -> str:
        return t("table.ai.name", locale, number=number, level=t(f"table.ai.level.{level}", locale))

    async def _check_channel_free(self, guild_id: int | None, channel_id: int) -> None:
        game_id = await self.storage.games.active_in_channel(channel_id)
        if game_id is not None:
            table = self.tables.get(game_id)
            message_id = table.stored.message_id if table else None
            if table is None:
                with contextlib.suppress(StorageError):
                    message_id = (await self.storage.games.get_game(game_id)).message_id
            raise ChannelTaken(guild_id, channel_id, message_id)
        lobby = await self.lobbies.open_in_channel(channel_id)
        if lobby is not None:
            raise ChannelTaken(guild_id, channel_id, lobby.message_id)

    async def set_lobby_message(self, lobby: Lobby, message_id: int) -> None:
        """Remember the lobby's message; a click may already have started the lobby, so no version check."""
        await self.lobbies.set_message_id(lobby.id, message_id)
        lobby.message_id = message_id

    async def _open_lobby(self, lobby_id: int) -> Lobby:
        try:
            lobby = await self.lobbies.get(lobby_id)
        except LobbyNotFound:
            raise Refused("table.error.unknown_table") from None
        if lobby.status == STARTED:
            raise Refused("table.error.lobby_started")
        if lobby.status == CANCELLED:
            raise Refused("table.error.lobby_cancelled")
        return lobby

    async def _lobby_change(
        self, lobby_id: int, channel_id: int, change: Callable[[Lobby], list[LobbySeat]]
    ) -> Lobby:
        async with self.lock(channel_id):
            lobby = await self._open_lobby(lobby_id)
            seats = change(lobby)
            try:
                return await self.lobbies.set_seats(lobby, seats)
            except LobbyChanged:
                raise Refused("table.error.lobby_changed") from None

    async def lobby_join(self, lobby_id: int, channel_id: int, user_id: int, name: str) -> Lobby:
        def change(lobby: Lobby) -> list[LobbySeat]:
            if lobby.seat_of(user_id) is not None:
                raise Refused("table.error.already_seated")
            if len(lobby.seats) >= MAX_SEATS:
                raise Refused("table.error.lobby_full", max=MAX_SEATS)
            return [*lobby.seats, LobbySeat(name, user_id=user_id)]

        return await self._lobby_change(lobby_id, channel_id, change)

    async def lobby_leave(self, lobby_id: int, channel_id: int, user_id: int) -> Lobby:
        def change(lobby: Lobby) -> list[LobbySeat]:
            seat = lobby.seat_of(user_id)
            if seat is None:
                raise Refused("table.error.not_seated")
            if user_id == lobby.host_id:
                raise Refused("table.error.host_cannot_leave")
            return [s for i, s in enumerate(lobby.seats) if i != seat]

        return await self._lobby_change(lobby_id, channel_id, change)

    async def lobby_add_computer(self, lobby_id: int, channel_id: int, user_id: int, locale: object) -> Lobby:
        def change(lobby: Lobby) -> list[LobbySeat]:
            if lobby.seat_of(user_id) is None:
                raise Refused("table.error.not_seated")
            if len(lobby.seats) >= MAX_SEATS:
                raise Refused("table.error.lobby_full", max=MAX_SEATS)
            levels = [s.ai_level for s in lobby.seats if s.ai_level]
            level = levels[-1] if levels else "normal"
            number = len(levels) + 1
            return [*lobby.seats, LobbySeat(self._ai_name(number, level, locale), ai_level=level)]

        return await self._lobby_change(lobby_id, channel_id, change)

    async def lobby_cancel(
        self, lobby_id: int, channel_id: int, user_id: int, *, can_manage: bool = False
    ) -> Lobby:
        async with self.lock(channel_id):
            lobby = await self._open_lobby(lobby_id)
            if user_id != lobby.host_id and not can_manage:
                raise Refused("table.error.host_only")
            try:
                await self.lobbies.close(lobby, CANCELLED)
            except LobbyChanged:
                raise Refused("table.error.lobby_changed") from None
        log.info("lobby cancelled", extra={"lobby_id": lobby_id, "by": user_id})
        return lobby

    async def lobby_start(
        self, lobby_id: int, channel_id: int, user_id: int, message_id: int | None = None
    ) -> Table:
        """Deal the game; ``message_id`` is the clicked lobby message (it becomes the table message)."""
        async with self.lock(channel_id):
            lobby = await self._open_lobby(lobby_id)
            if message_id is not None:
                lobby.message_id = message_id
            if user_id != lobby.host_id:
                raise Refused("table.error.host_only")
            if len(lobby.seats) < MIN_SEATS:
                raise Refused("table.error.need_players", min=MIN_SEATS)
            seats = [Seat(i, s.name, s.user_id, s.ai_level) for i, s in enumerate(lobby.seats)]
            try:
                stored = await self.storage.games.create_game(
                    guild_id=lobby.guild_id,
                    channel_id=lobby.channel_id,
                    kind=KIND,
                    seats=seats,
                    seed=self._seed(),
                    options=lobby.options,
                    host_id=lobby.host_id,
                    message_id=lobby.message_id,
                    meta={"lobby_id": lobby.id},
                )
            except ChannelBusy:
                raise Refused("table.error.channel_busy") from None
            except GameError as error:
                raise Refused(error.key, **error.params) from None
            with contextlib.suppress(LobbyChanged):
                await self.lobbies.close(lobby, STARTED, stored.id)
            table = self._cache(stored)
            table.recent.append(
                (-1, [{"kind": "round_started", "round": 1, "discard_top": stored.game.discard_pile[-1]}])
            )
            self._arm(table)
        log.info("game started", extra={"game_id": stored.id, "lobby_id": lobby_id, "seats": len(seats)})
        return table

    # ------------------------------------------------------------------ games: reading

    async def _table(self, game_id: int) -> Table:
        table = self.tables.get(game_id)
        if table is not None:
            return table
        try:
            stored = await self.storage.games.get_game(game_id)
        except GameNotFound:
            raise Refused("table.error.unknown_table") from None
        except StorageError:
            raise Refused("table.error.unavailable") from None
        if stored.status != "active" or stored.kind != KIND:
            raise Refused("table.error.game_finished")
        return self._cache(stored)

    def _panel(self, table: Table, seat: int, mode: int = panel.MODE_MAIN) -> PanelState:
        return PanelState(table.id, table.version, seat, table.game.view(seat), table.names(), mode)

    def _seat(self, table: Table, user_id: int) -> int:
        seat = table.seat_of(user_id)
        if seat is None:
            raise Refused("error.not_a_player")
        if seat in table.replaced():
            raise Refused("table.error.seat_replaced")
        return seat

    async def open_panel(self, game_id: int, user_id: int) -> PanelState:
        table = await self._table(game_id)
        async with self.lock(table.channel_id):
            if table.finished:
                raise Refused("table.error.game_finished")
            return self._panel(table, self._seat(table, user_id))

    def options_of(self, table: Table) -> skyjo.Options:
        return table.game.options

    async def options_for(self, game_id: int) -> skyjo.Options:
        table = await self._table(game_id)
        return table.game.options

    # ------------------------------------------------------------------ games: clicks

    async def click(self, game_id: int, version: int, user_id: int, act: str, arg: int) -> PanelState:
        """A click on a private panel (or Next round on the table); returns the panel to show now.

        Raises :class:`Refused` (nothing changed) or :class:`Stale` (with a fresh panel).
        """
        table = await self._table(game_id)
        async with self.lock(table.channel_id):
            if table.finished or self.tables.get(game_id) is not table:
                raise Refused("table.error.game_finished")
            seat = self._seat(table, user_id)
            if act == panel.REFRESH:
                return self._panel(table, seat)
            if version > table.version or version < table.marks[seat]:
                raise Stale(self._panel(table, seat))
            if act == panel.MODE:
                if arg not in (panel.MODE_MAIN, panel.MODE_TAKE, panel.MODE_DISCARD):
                    raise Refused("table.error.forged")
                return self._panel(table, seat, arg)
            action = panel.action_for(act, arg)
            if action is None:
                raise Refused("table.error.forged")
            if isinstance(action, skyjo.NextRound):
                return await self._vote_next_round(table, seat)
            try:
                await self._commit(table, seat, action)
            except GameError as error:
                raise Refused(error.key, **error.params) from None
            return self._panel(table, seat)

    async def _vote_next_round(self, table: Table, seat: int) -> PanelState:
        if table.game.phase != skyjo.ROUND_OVER:
            raise Refused("error.round_not_over")
        if seat in table.votes:
            state = self._panel(table, seat)
            state.notice = ("table.round.already_ready", {"count": len(table.round_waiting())})
            return state
        table.votes.add(seat)
        if not table.round_waiting():
            await self._commit(table, seat, skyjo.NextRound())
            return self._panel(table, seat)
        self._notify(table)
        state = self._panel(table, seat)
        names = table.names()
        state.notice = (
            "table.round.waiting",
            {"players": ", ".join(names[s] for s in table.round_waiting())},
        )
        return state

    async def _commit(self, table: Table, seat: int, action: skyjo.Action) -> list[dict[str, Any]]:
        """Apply and commit one action (the channel lock is held); GameError leaves everything as it was."""
        stored = table.stored
        game = table.game
        before = (game.phase, game.turn, game.round, game.drawn)
        try:
            events = await self.storage.games.apply_action(stored, seat, action)
        except StorageError:
            # storage reloaded ``stored`` from the log: every open panel is now suspect
            table.marks = [stored.version] * len(stored.seats)
            log.warning("commit failed", extra={"game_id": table.id, "seat": seat}, exc_info=True)
            raise Refused("table.error.unavailable") from None
        game = table.game
        table.resumed = False
        version = stored.version
        if before[0] == skyjo.ROUND_OVER and table.round_task is not None:
            if table.round_task is not asyncio.current_task():
                table.round_task.cancel()
            table.round_task = None
        if (game.phase, game.turn, game.round, game.drawn) != before:
            table.marks = [version] * len(stored.seats)
        else:
            table.marks[seat] = version
        dicts = [e.to_dict() for e in events]
        table.recent.append((seat, dicts))
        table.turns += sum(1 for e in dicts if e["kind"] in ("turn_started", "round_ended"))
        log.info(
            "move committed",
            extra={"game_id": table.id, "seat": seat, "action": action.type, "version": version},
        )
        if game.phase != skyjo.ROUND_OVER:
            table.votes.clear()
        if any(e["kind"] == "round_ended" for e in dicts) and not game.is_over:
            await self._start_round_pause(table)
        if table.finished:
            self._finish(table)
        else:
            self._arm(table)
        self._notify(table)
        return dicts

    def _finish(self, table: Table) -> None:
        self.tables.pop(table.id, None)
        for task in (table.ai_task, table.round_task):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        finished = table.stored.finished
        log.info(
            "game finished",
            extra={
                "game_id": table.id,
                "rated": table.stored.rated,
                "ratings": len(finished.rating_changes) if finished else 0,
            },
        )

    # ------------------------------------------------------------------ the pause between rounds

    async def _start_round_pause(self, table: Table) -> None:
        table.votes.clear()
        meta = dict(table.stored.meta)
        meta["round_deadline"] = _now_ms() + int(self.round_delay * 1000)
        try:
            await self.storage.games.set_meta(table.id, meta)
            table.stored.meta = meta
        except StorageError:
            log.warning("round deadline not stored", extra={"game_id": table.id}, exc_info=True)

    def _arm_round_timer(self, table: Table) -> None:
        if table.round_task is not None and not table.round_task.done():
            return
        deadline = table.stored.meta.get("round_deadline")
        delay = self.round_delay if not isinstance(deadline, int) else max(0.0, (deadline - _now_ms()) / 1000)
        if not table.human_seats():
            delay = min(delay, self.ai_delay)
        table.round_task = asyncio.create_task(
            self._round_timer(table, delay), name=f"round-timer-{table.id}"
        )

    async def _round_timer(self, table: Table, delay: float) -> None:
        await asyncio.sleep(delay)
        async with self.lock(table.channel_id):
            if self.tables.get(table.id) is not table or table.game.phase != skyjo.ROUND_OVER:
                return
            table.round_task = None
            with contextlib.suppress(Refused, GameError):
                await self._commit(table, 0, skyjo.NextRound())

    # ------------------------------------------------------------------ computer players

    def _arm(self, table: Table) -> None:
        """Schedule what must happen without a human: computer moves, the next round's timer."""
        if self._closed or table.finished:
            return
        game = table.game
        if game.phase == skyjo.ROUND_OVER:
            self._arm_round_timer(table)
            return
        ai_to_act = any(table.ai_level(s) is not None for s in game.seats_to_act())
        if ai_to_act and (table.ai_task is None or table.ai_task.done()):
            table.ai_task = asyncio.create_task(self._ai_loop(table), name=f"ai-{table.id}")

    async def _ai_loop(self, table: Table) -> None:
        while True:
            await asyncio.sleep(self.ai_delay)
            async with self.lock(table.channel_id):
                if self.tables.get(table.id) is not table or table.finished:
                    return
                game = table.game
                seats = [s for s in game.seats_to_act() if table.ai_level(s) is not None]
                if game.phase == skyjo.ROUND_OVER or not seats:
                    table.ai_task = None
                    return
                seat = seats[0]
                action = self._ai_decide(table, seat)
                try:
                    await self._commit(table, seat, action)
                except (Refused, GameError):
                    log.warning("computer move refused", extra={"game_id": table.id, "seat": seat})
                    table.ai_task = None
                    return
                if table.ai_task is not asyncio.current_task():
                    return  # _commit armed another loop (cannot happen while we run, but be safe)

    def _ai_decide(self, table: Table, seat: int) -> skyjo.Action:
        game = table.game
        level = table.ai_level(seat) or "normal"
        policy = skyjo_ai.LEVELS.get(level, skyjo_ai.LEVELS["normal"])
        rng = random.Random(f"{table.stored.seed}:{table.version}:{seat}")
        try:
            action = policy(game.view(seat), rng)
            if action in game.legal_actions(seat):
                return action
        except Exception:
            log.exception("computer player failed", extra={"game_id": table.id, "seat": seat, "level": level})
        return game.legal_actions(seat)[0]

    # ------------------------------------------------------------------ leaving, kicking, ending

    async def leave(self, game_id: int, user_id: int, locale: object = None) -> Table:
        """The player leaves; a computer player takes the seat."""
        table = await self._table(game_id)
        async with self.lock(table.channel_id):
            if table.finished:
                raise Refused("table.error.game_finished")
            seat = self._seat(table, user_id)
            await self._replace(table, seat)
        return table

    async def kick(self, channel_id: int, host_id: int, target_id: int) -> tuple[Table, int]:
        async with self.lock(channel_id):
            table = self.table_in_channel(channel_id)
            if table is None:
                raise Refused("table.error.no_game_here")
            if host_id != table.stored.host_id:
                raise Refused("table.error.host_only")
            if target_id == host_id:
                raise Refused("table.error.kick_self")
            seat = table.seat_of(target_id)
            if seat is None or seat in table.replaced():
                raise Refused("table.error.kick_not_player")
            await self._replace(table, seat)
        return table, seat

    async def _replace(self, table: Table, seat: int) -> None:
        meta = dict(table.stored.meta)
        replaced = dict(meta.get("replaced") or {})
        replaced[str(seat)] = "normal"
        meta["replaced"] = replaced
        try:
            await self.storage.games.set_meta(table.id, meta)
        except StorageError:
            raise Refused("table.error.unavailable") from None
        table.stored.meta = meta
        table.votes.discard(seat)
        table.recent.append((seat, [{"kind": "seat_replaced", "seat": seat}]))
        log.info("seat taken by a computer", extra={"game_id": table.id, "seat": seat})
        if table.game.phase == skyjo.ROUND_OVER and not table.round_waiting():
            with contextlib.suppress(Refused, GameError):
                await self._commit(table, seat, skyjo.NextRound())
                return
        self._arm(table)
        self._notify(table)

    async def end(self, channel_id: int, user_id: int, *, can_manage: bool) -> Table | Lobby:
        """``/skyjo end``: the host (or a channel manager) ends the game or closes the lobby, unrated."""
        async with self.lock(channel_id):
            table = self.table_in_channel(channel_id)
            if table is None:
                lobby = await self.lobbies.open_in_channel(channel_id)
                if lobby is None:
                    raise Refused("table.error.no_game_here")
                if user_id != lobby.host_id and not can_manage:
                    raise Refused("table.error.end_not_allowed")
                await self.lobbies.close(lobby, CANCELLED)
                return lobby
            if user_id != table.stored.host_id and not can_manage:
                raise Refused("table.error.end_not_allowed")
            try:
                await self.storage.games.cancel_game(table.id, note=f"ended by {user_id}")
            except StorageError:
                raise Refused("table.error.unavailable") from None
            table.stored.status = "cancelled"
            table.ended_by = user_id
            self._finish(table)
        log.info("game ended by hand", extra={"game_id": table.id, "by": user_id})
        self._notify(table)
        return table

    async def rematch(self, game_id: int, user_id: int) -> Lobby:
        """A new lobby with the same seats (the clicker hosts it)."""
        try:
            stored = await self.storage.games.get_game(game_id)
        except StorageError:
            raise Refused("table.error.unknown_table") from None
        if stored.status == "active":
            raise Refused("table.error.game_running")
        me = next((s for s in stored.seats if s.user_id == user_id), None)
        if me is None:
            raise Refused("error.not_a_player")
        seats = [me] + [s for s in stored.seats if s is not me]
        replaced = {int(k) for k in (stored.meta.get("replaced") or {})}
        lobby_seats = [
            LobbySeat(s.display_name, user_id=s.user_id, ai_level=s.ai_level)
            for s in seats
            if s.seat not in replaced or s is me
        ]
        async with self.lock(stored.channel_id):
            await self._check_channel_free(stored.guild_id, stored.channel_id)
            try:
                lobby = await self.lobbies.create(
                    guild_id=stored.guild_id,
                    channel_id=stored.channel_id,
                    kind=KIND,
                    host_id=user_id,
                    options=stored.options,
                    seats=lobby_seats,
                )
            except ChannelBusy:
                raise Refused("table.error.channel_busy") from None
        return lobby
