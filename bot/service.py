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

Every game kind plugs in through :mod:`bot.games.registry` (engine, computer players, panel); nothing here
names a game.

Timers live in the database. A game's meta holds its one running timer, ``{"what": "turn" |
"round", "token": [phase, round, turn], "due": ms, "half": ms, "reminded", "fired"}``, written in
the same transaction as the action that started it (see ``GameRepository.apply_action``'s
``meta_after``), and a lobby's deadline is its creation time plus :data:`LOBBY_TTL_MS`. One sweeper
task sleeps until the earliest deadline (:mod:`bot.clock`, a manual clock in tests) and acts under
the channel lock: at half time a reminder, at the limit the ``normal`` computer player plays the
turn for the player (initial reveals are picked at random), after :data:`MISSES_BEFORE_REPLACE`
missed turns in a row a computer player takes the seat; between rounds the next round starts.
Every turn gets the whole limit, the one after a covered turn included. A player replaced for missed
turns (meta ``idle``), and only such a player, may take the seat back (:meth:`TableService.reclaim_seat`).
A timer fires only while the state still has its token, and marks itself ``fired`` (with the missed
count) before covering, so a restart fires none twice and loses none. Computer players are plain
asyncio tasks re-created at start from the stored state (whose turn it is).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from bot.clock import Clock, SystemClock
from bot.config import Limits
from bot.engine.errors import GameError
from bot.games.registry import AI_LEVELS, KINDS, GameKind
from bot.render.names import ComputerName, computer_name, escape_name
from bot.storage import ChannelBusy, GameNotFound, Seat, Storage, StorageError, StoredGame
from bot.storage.lobbies import (
    CANCELLED,
    STARTED,
    Lobby,
    LobbyChanged,
    LobbyNotFound,
    LobbySeat,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

RECENT_EVENTS = 6  # actions whose events the table message keeps in words
DEFAULT_TURN_LIMIT = 120  # seconds; a lobby option, stored with the game (0: no limit)
# What each /<game> new accepts, exactly what the command declares to Discord (the cogs build their
# choices and ranges from these): a modified client that sends anything else is refused the same way.
TURN_LIMITS = (0, 30, 45, 60, 90, 120, 180, 300, 600, 900)  # seconds, 0: no limit
MISSES_BEFORE_REPLACE = 3
LOBBY_TTL_MS = 15 * 60 * 1000  # a lobby nobody starts closes after 15 minutes
MAX_COVER_ACTIONS = 60  # actions one timer may play for a seat (a Skip-Bo turn is at most ~30)
PLAY, ROUND_OVER, REVEAL = "play", "round_over", "reveal"  # phase names shared by the engines
# Panel acts shared by every kind (the kinds' panel modules use the same two letters).
MODE_ACT, REFRESH_ACT = "md", "rf"


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


class SeatTaken(Refused):
    """The clicker's seat is played by a computer player. ``idle``: it was taken because they missed
    too many turns, so :meth:`TableService.reclaim_seat` can give it back (not after Leave or a kick)."""

    def __init__(self, idle: bool) -> None:
        super().__init__("table.error.seat_replaced")
        self.idle = idle


class TableListener(Protocol):
    """What the Discord layer does when a table changed without an interaction to answer."""

    def table_changed(self, table: Table) -> None: ...

    def lobby_changed(self, lobby_id: int) -> None: ...

    def remind(self, table: Table, seats: list[int], seconds_left: int) -> None:
        """Half of a turn's time is gone: tell these seats' players."""

    def seat_taken_over(self, table: Table, seat: int) -> None:
        """The player of ``seat`` missed too many turns and a computer player took the seat."""

    def table_gone(self, table: Table) -> None:
        """The game was cancelled because its channel or server is gone: post and edit nothing more."""

    def lobby_gone(self, lobby_id: int) -> None:
        """The same for an open lobby."""


@dataclass
class Table:
    """A game being played: the stored game (state included) and what the service keeps beside it."""

    stored: StoredGame
    marks: list[int]
    recent: deque[tuple[int, list[dict[str, Any]]]] = field(
        default_factory=lambda: deque(maxlen=RECENT_EVENTS)
    )
    resumed: bool = False  # loaded at start after a restart, nothing played since
    ended_by: int | None = None  # the user who ended it with /skyjo end (cancelled, unrated)
    gone: bool = False  # cancelled because its channel or server is gone: nothing is posted for it
    ai_task: asyncio.Task[None] | None = None

    @property
    def id(self) -> int:
        return self.stored.id

    @property
    def game(self) -> Any:
        return self.stored.game

    @property
    def kind(self) -> GameKind:
        return KINDS[self.stored.kind]

    @property
    def turn_limit(self) -> int:
        """Seconds a human has for a turn (0: no limit)."""
        limit = self.stored.meta.get("turn_limit", DEFAULT_TURN_LIMIT)
        return limit if isinstance(limit, int) and limit >= 0 else DEFAULT_TURN_LIMIT

    def timer(self) -> dict[str, Any] | None:
        timer = self.stored.meta.get("timer")
        return timer if isinstance(timer, dict) else None

    @property
    def turns(self) -> int:
        """Turns started so far (kept in the stored meta): with the player, the key of a turn mention,
        so a restart does not mention the same turn twice."""
        value = self.stored.meta.get("turns", 0)
        return value if isinstance(value, int) else 0

    @property
    def votes(self) -> frozenset[int]:
        """Seats that asked for the next round: kept in the stored meta, so a restart keeps them."""
        raw = self.stored.meta.get("votes") or []
        return frozenset(s for s in raw if isinstance(s, int))

    def missed(self, seat: int) -> int:
        value = (self.stored.meta.get("missed") or {}).get(str(seat), 0)
        return value if isinstance(value, int) else 0

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
        """Human seats a computer player took over (left, kicked or missed turns): seat -> level."""
        raw = self.stored.meta.get("replaced") or {}
        return {int(k): str(v) for k, v in raw.items()}

    def idle(self) -> frozenset[int]:
        """Replaced seats whose human missed too many turns (meta ``idle``), as opposed to one who left
        or was kicked: only these may be taken back."""
        raw = self.stored.meta.get("idle") or []
        replaced = self.replaced()
        return frozenset(s for s in raw if isinstance(s, int) and s in replaced)

    def ai_level(self, seat: int) -> str | None:
        level = self.stored.seats[seat].ai_level
        return level if level is not None else self.replaced().get(seat)

    def human_seats(self) -> list[int]:
        return [s.seat for s in self.stored.seats if self.ai_level(s.seat) is None]

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.stored.seats if s.user_id == user_id), None)

    def names(self, locale: object = None) -> list[str]:
        """Seat names. A computer seat's is a :class:`ComputerName` (a ``str``), which renderers say in
        their message's language; given ``locale``, its text is already in that language."""
        names: list[str] = []
        computers = 0
        for s in self.stored.seats:
            if s.ai_level is None:
                names.append(s.display_name)
                continue
            computers += 1
            text = s.display_name if locale is None else computer_name(computers, s.ai_level, locale)
            names.append(ComputerName(computers, s.ai_level, text))
        return names

    def turn_user(self) -> int | None:
        """The human whose turn it is (to mention), or None."""
        game = self.game
        if self.finished or game.phase != PLAY or game.turn is None:
            return None
        seat: int = game.turn
        if self.ai_level(seat) is not None:
            return None
        return self.stored.seats[seat].user_id

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
    mode: int = 0
    notice: tuple[str, dict[str, Any]] | None = None  # a message to show above the panel
    kind: str = "skyjo"


def _counted(key: str, count: int) -> str:
    """``key.one`` or ``key.other`` for a count of at least 1 (English and French agree there; the
    refusal is translated later, in the clicker's language)."""
    return f"{key}.one" if count == 1 else f"{key}.other"


def token_of(game: Any) -> list[Any]:
    """What a timer belongs to: a phase, a round and a turn (JSON-shaped, as stored in meta)."""
    return [game.phase, game.round, game.turn]


async def _together(writes: Sequence[Awaitable[T]]) -> list[T | None]:
    """Await writes at once, so the group commit packs them into few transactions (each write in its
    own savepoint); a write that failed with a StorageError gives None (the start goes on without it),
    any other error is raised once all are over."""
    outcomes = await asyncio.gather(*writes, return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, BaseException) and not isinstance(outcome, StorageError):
            raise outcome
    return [None if isinstance(outcome, BaseException) else outcome for outcome in outcomes]


class ServiceObserver(Protocol):
    """What the service reports as it works (bot.metrics.Metrics implements it)."""

    def committed(self, kind: str, seconds: float) -> None: ...

    def commit_failed(self, kind: str) -> None: ...

    def timer_fired(self, what: str) -> None: ...


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
        clock: Clock | None = None,
        limits: Limits | None = None,
        owns: Callable[[int | None], bool] | None = None,
        observer: ServiceObserver | None = None,
    ) -> None:
        self.storage = storage
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
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def table_in_channel(self, channel_id: int) -> Table | None:
        return next((tb for tb in self.tables.values() if tb.channel_id == channel_id), None)

    # ------------------------------------------------------------------ start of the process

    async def resume(self) -> list[Table]:
        """Load every active game and open lobby, re-arm timers and computer players; returns the tables.

        The start's writes go out together rather than one durable commit each (10,000 timers took
        seconds): the closings at once, so the group commit packs them (each still in its savepoint),
        and every timer in one transaction. A write that fails leaves its table as the one-by-one
        writes did: not finished, the lobby open, the timer as stored."""
        loaded = await self.storage.games.load_active(owns=self.owns)
        tables: list[Table] = []
        for stored in loaded.games:
            if stored.kind not in KINDS:
                continue
            table = self._cache(stored)
            table.resumed = True
            tables.append(table)
        # Ended by its last action but not closed (an old crash): finish it now.
        over = [table.stored for table in tables if table.stored.game.is_over]
        done = await _together([self.storage.games.finish_game(stored.id) for stored in over])
        for stored, finished in zip(over, done, strict=True):
            if finished is not None:
                stored.finished = finished
                stored.status = "finished"
        closing = []
        for lobby in await self.lobbies.list_open():
            if not self.owns(lobby.guild_id):
                continue
            # A crash between "deal the game" and "close the lobby" leaves both: the game wins.
            busy = next((tb for tb in tables if tb.channel_id == lobby.channel_id), None)
            if busy is not None:
                closing.append(self.lobbies.close(lobby, STARTED, busy.id))
            else:
                self._schedule(("lobby", lobby.id), lobby.created_at + LOBBY_TTL_MS)
        await _together(closing)
        live = []
        for table in tables:
            if table.finished:
                self.tables.pop(table.id, None)
            else:
                live.append(table)
        synced = [(table, meta) for table in live if (meta := self._synced_meta(table)) is not None]
        try:
            missing = await self.storage.games.set_metas([(table.id, meta) for table, meta in synced])
        except StorageError:
            missing = {table.id for table, _ in synced}  # nothing written: the stored timers stay
        for table, meta in synced:
            if table.id not in missing:
                table.stored.meta = meta
        for table in live:
            self._index(table)
            self._arm(table)
        log.info("tables resumed", extra={"games": len(tables), "quarantined": len(loaded.quarantined)})
        return tables

    def _cache(self, stored: StoredGame) -> Table:
        table = Table(stored, [stored.version] * len(stored.seats))
        self.tables[stored.id] = table
        return table

    # ------------------------------------------------------------------ lobbies

    @staticmethod
    def _kind(name: str) -> GameKind:
        kind = KINDS.get(name)
        if kind is None:
            raise Refused("table.error.forged")
        return kind

    @classmethod
    def check_lobby(
        cls, kind: str, options: Mapping[str, Any], *, computers: int, level: str, turn_limit: int
    ) -> Any:
        """The engine options of a new lobby, or Refused: the settings of ``/<game> new``, checked
        against exactly what the command declares (whatever a client sends) and then by the engine."""
        spec = cls._kind(kind)
        if level not in AI_LEVELS:
            raise Refused("table.error.bad_level")
        if type(turn_limit) is not int or turn_limit not in TURN_LIMITS:
            raise Refused("table.error.bad_turn_limit")
        for name, (low, high) in spec.option_ranges.items():
            value = options.get(name)
            if name in options and (type(value) is not int or not low <= value <= high):
                raise Refused("table.error.option_range", option=name, min=low, max=high)
        try:
            opts = spec.engine.Options.from_dict(dict(options))
        except GameError as error:
            raise Refused(error.key, **error.params) from None
        # Settings valid for some table size (Skip-Bo teams need 4 or 6); the deal checks the real one.
        problems: list[GameError] = []
        for players in range(spec.min_players, spec.max_players + 1):
            try:
                opts.validate(players)
                break
            except GameError as error:
                problems.append(error)
        else:
            raise Refused(problems[0].key, **problems[0].params)
        if type(computers) is not int or not 0 <= computers < spec.max_players:
            raise Refused("error.player_count", min=spec.min_players, max=spec.max_players)
        return opts

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
        kind: str = "skyjo",
        turn_limit: int = DEFAULT_TURN_LIMIT,
    ) -> Lobby:
        opts = self.check_lobby(kind, options, computers=computers, level=level, turn_limit=turn_limit)
        seats = [LobbySeat(host_name, user_id=host_id)]
        seats += [LobbySeat(self._ai_name(i + 1, level, locale), ai_level=level) for i in range(computers)]
        async with self.lock(channel_id):
            await self._check_channel_free(guild_id, channel_id)
            try:
                lobby = await self._create_lobby(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    kind=kind,
                    host_id=host_id,
                    options={**opts.to_dict(), "turn_limit": turn_limit},
                    seats=seats,
                )
            except ChannelBusy:
                await self._check_channel_free(guild_id, channel_id)
                raise Refused("table.error.channel_busy") from None
        self._schedule(("lobby", lobby.id), lobby.created_at + LOBBY_TTL_MS)
        log.info(
            "lobby opened",
            extra={"lobby_id": lobby.id, "kind": kind, "channel_id": channel_id, "host_id": host_id},
        )
        return lobby

    async def _create_lobby(self, **fields: Any) -> Lobby:
        """Store a new lobby (``/<game> new`` or Rematch) if its host and server are within the
        fair-use limits (:class:`bot.config.Limits`), else :class:`Refused` with the limit and what to do.

        A table counts from its lobby until its game ends or the lobby is cancelled or expires (its
        channel may be anywhere: the user cap counts every server). The cool-down runs from the last
        table the host actually opened, on the service's clock; a refused request starts none. It is
        kept in memory: a restart forgets it (at most one cool-down early), while the caps are
        counted from what is stored, so they hold across a restart."""
        host_id, guild_id = int(fields["host_id"]), fields["guild_id"]
        limits = self.limits
        # The caps count tables in every channel: one opening at a time, so two cannot both pass.
        async with self._opening:
            mine = await self.lobbies.open_ids(host_id=host_id) if limits.per_user else set()
            server = (
                await self.lobbies.open_ids(guild_id=guild_id)
                if limits.per_server and guild_id is not None
                else set()
            )
            # Games are read after the lobbies: a lobby dealt meanwhile is then seen as its game
            # (lobby_start caches the game before it closes the lobby), counted once by its lobby id.
            games = [t for t in self.tables.values() if not t.finished]
            dealt = {t.stored.meta.get("lobby_id") for t in games}
            if limits.per_user:
                count = len(mine - dealt) + sum(1 for t in games if t.stored.host_id == host_id)
                if count >= limits.per_user:
                    raise Refused(_counted("caps.error.user_limit", limits.per_user), count=limits.per_user)
            if limits.per_server and guild_id is not None:
                count = len(server - dealt) + sum(1 for t in games if t.stored.guild_id == guild_id)
                if count >= limits.per_server:
                    raise Refused(
                        _counted("caps.error.server_limit", limits.per_server), count=limits.per_server
                    )
            now = self.clock.now_ms()
            cooldown_ms = limits.cooldown_seconds * 1000
            last = self._opened_at.get(host_id)
            if last is not None and now - last < cooldown_ms:
                seconds = -(-(last + cooldown_ms - now) // 1000)  # rounded up: never "wait 0 s"
                raise Refused("caps.error.cooldown", seconds=seconds)
            lobby = await self.lobbies.create(**fields)
            if cooldown_ms:
                # Forget hosts whose cool-down is over, so the map holds only the last few seconds.
                for user, when in list(self._opened_at.items()):
                    if now - when >= cooldown_ms:
                        del self._opened_at[user]
                self._opened_at[host_id] = now
        return lobby

    @staticmethod
    def _ai_name(number: int, level: str, locale: object) -> str:
        # Stored for the record; every message says the name again in its own language.
        return computer_name(number, level, locale)

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
            if lobby.id in self.expired_lobbies:
                raise Refused("table.error.lobby_expired")
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
            limit = self._kind(lobby.kind).max_players
            if len(lobby.seats) >= limit:
                raise Refused("table.error.lobby_full", max=limit)
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
            limit = self._kind(lobby.kind).max_players
            if len(lobby.seats) >= limit:
                raise Refused("table.error.lobby_full", max=limit)
            levels = [s.ai_level for s in lobby.seats if s.ai_level]
            level = levels[-1] if levels else "normal"
            number = len(levels) + 1
            return [*lobby.seats, LobbySeat(self._ai_name(number, level, locale), ai_level=level)]

        return await self._lobby_change(lobby_id, channel_id, change)

    async def lobby_remove_computer(self, lobby_id: int, channel_id: int, user_id: int) -> Lobby:
        """The host takes the last computer player out of the lobby."""

        def change(lobby: Lobby) -> list[LobbySeat]:
            if user_id != lobby.host_id:
                raise Refused("table.error.host_only")
            last = max((i for i, s in enumerate(lobby.seats) if s.ai_level), default=None)
            if last is None:
                raise Refused("table.error.no_computer")
            return [s for i, s in enumerate(lobby.seats) if i != last]

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
        self._due.pop(("lobby", lobby_id), None)
        log.info("lobby cancelled", extra={"lobby_id": lobby_id, "by": user_id})
        return lobby

    async def lobby_start(
        self, lobby_id: int, channel_id: int, user_id: int, message_id: int | None = None
    ) -> Table:
        """Deal the game; ``message_id`` is the clicked lobby message (it becomes the table message)."""
        async with self.lock(channel_id):
            lobby = await self._open_lobby(lobby_id)
            spec = self._kind(lobby.kind)
            if message_id is not None:
                lobby.message_id = message_id
            if user_id != lobby.host_id:
                raise Refused("table.error.host_only")
            if len(lobby.seats) < spec.min_players:
                raise Refused("table.error.need_players", min=spec.min_players)
            seats = [Seat(i, s.name, s.user_id, s.ai_level) for i, s in enumerate(lobby.seats)]
            options = dict(lobby.options)
            turn_limit = options.pop("turn_limit", DEFAULT_TURN_LIMIT)
            try:
                stored = await self.storage.games.create_game(
                    guild_id=lobby.guild_id,
                    channel_id=lobby.channel_id,
                    kind=lobby.kind,
                    seats=seats,
                    seed=self._seed(),
                    options=options,
                    host_id=lobby.host_id,
                    message_id=lobby.message_id,
                    meta={"lobby_id": lobby.id, "turn_limit": turn_limit},
                )
            except ChannelBusy:
                raise Refused("table.error.channel_busy") from None
            except GameError as error:
                raise Refused(error.key, **error.params) from None
            # Cached before the lobby closes: the table caps (_create_lobby) never miss this table.
            table = self._cache(stored)
            with contextlib.suppress(LobbyChanged):
                await self.lobbies.close(lobby, STARTED, stored.id)
            self._due.pop(("lobby", lobby_id), None)
            table.recent.append((-1, [spec.opening_event(stored.game)]))
            await self._sync_timer(table)
            self._arm(table)
        log.info(
            "game started",
            extra={"game_id": stored.id, "kind": lobby.kind, "lobby_id": lobby_id, "seats": len(seats)},
        )
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

    async def open_panel(self, game_id: int, user_id: int) -> PanelState:
        table = await self._table(game_id)
        async with self.lock(table.channel_id):
            if table.finished:
                raise Refused("table.error.game_finished")
            return self._panel(table, self._seat(table, user_id))

    def options_of(self, table: Table) -> Any:
        return table.game.options

    async def options_for(self, game_id: int) -> Any:
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
            if act == REFRESH_ACT:
                return self._panel(table, seat)
            if version > table.version or version < table.marks[seat]:
                raise Stale(self._panel(table, seat))
            panel = table.kind.panel
            if act == MODE_ACT:
                if arg not in panel.MODES:
                    raise Refused("table.error.forged")
                return self._panel(table, seat, arg)
            action = panel.action_for(act, arg)
            if action is None:
                raise Refused("table.error.forged")
            if isinstance(action, table.kind.engine.NextRound):
                return await self._vote_next_round(table, seat)
            try:
                await self._commit(table, seat, action, by_player=True)
            except GameError as error:
                raise Refused(error.key, **error.params) from None
            return self._panel(table, seat)

    async def vote_next_round(self, game_id: int, user_id: int, round_number: int) -> PanelState:
        """The table's Next round button (one id for the whole round): a vote for ``round_number``'s end."""
        table = await self._table(game_id)
        async with self.lock(table.channel_id):
            if table.finished or self.tables.get(game_id) is not table:
                raise Refused("table.error.game_finished")
            seat = self._seat(table, user_id)
            if table.game.phase != ROUND_OVER or table.game.round != round_number:
                raise Refused("table.error.round_already_dealt")
            return await self._vote_next_round(table, seat)

    async def _vote_next_round(self, table: Table, seat: int) -> PanelState:
        if table.game.phase != ROUND_OVER:
            raise Refused("error.round_not_over")
        if seat in table.votes:
            state = self._panel(table, seat)
            state.notice = ("table.round.already_ready", {"count": len(table.round_waiting())})
            return state
        if table.round_waiting() == [seat]:  # the last vote: deal (the stored votes go with it)
            await self._commit(table, seat, table.kind.engine.NextRound())
            return self._panel(table, seat)
        await self._set_meta(table, {**table.stored.meta, "votes": sorted(table.votes | {seat})})
        self._notify(table)
        state = self._panel(table, seat)
        names = table.names()
        state.notice = (
            "table.round.waiting",
            {"players": ", ".join(escape_name(names[s]) for s in table.round_waiting())},  # humans only
        )
        return state

    async def _commit(
        self, table: Table, seat: int, action: Any, *, by_player: bool = False
    ) -> list[dict[str, Any]]:
        """Apply and commit one action (the channel lock is held); GameError leaves everything as it was.

        ``by_player``: the seat's human made this move (not a computer, not a timer), which clears
        their missed-turn count. The game's timer follows the new state in the same transaction.
        """
        stored = table.stored
        spec = table.kind
        before = spec.stale_key(table.game)
        turn_before = token_of(table.game)

        def meta_after(game: Any) -> dict[str, Any] | None:
            return self._meta_after(table, game, seat if by_player else None, token_of(game) != turn_before)

        began = time.perf_counter()
        try:
            events = await self.storage.games.apply_action(stored, seat, action, meta_after)
        except StorageError:
            if self.observer is not None:
                self.observer.commit_failed(stored.kind)
            # storage reloaded ``stored`` from the log: every open panel is now suspect
            table.marks = [stored.version] * len(stored.seats)
            log.warning("commit failed", extra={"game_id": table.id, "seat": seat}, exc_info=True)
            raise Refused("table.error.unavailable") from None
        if self.observer is not None:
            self.observer.committed(stored.kind, time.perf_counter() - began)
        game = table.game
        table.resumed = False
        version = stored.version
        if spec.stale_key(game) != before:
            table.marks = [version] * len(stored.seats)
        else:
            table.marks[seat] = version
        dicts = [e.to_dict() for e in events]
        table.recent.append((seat, dicts))
        log.info(
            "move committed",
            extra={
                "game_id": table.id,
                "kind": stored.kind,
                "seat": seat,
                "action": action.type,
                "version": version,
            },
        )
        if table.finished:
            self._finish(table)
        else:
            self._index(table)
            self._arm(table)
        self._notify(table)
        return dicts

    def _finish(self, table: Table) -> None:
        self.tables.pop(table.id, None)
        self._due.pop(("game", table.id), None)
        if table.ai_task is not None and table.ai_task is not asyncio.current_task():
            table.ai_task.cancel()
        finished = table.stored.finished
        log.info(
            "game finished",
            extra={
                "game_id": table.id,
                "rated": table.stored.rated,
                "ratings": len(finished.rating_changes) if finished else 0,
            },
        )

    # ------------------------------------------------------------------ timers (stored in meta)

    def _timer_for(self, table: Table, game: Any, old: dict[str, Any] | None) -> dict[str, Any] | None:
        """The timer the state calls for: kept while its token holds, a new one when the turn moved."""
        if game.is_over:
            return None
        token = token_of(game)
        now = self.clock.now_ms()
        if game.phase == ROUND_OVER:
            if old is not None and old.get("token") == token:
                return old
            delay = self.round_delay if table.human_seats() else min(self.round_delay, self.ai_delay)
            return {"what": "round", "token": token, "due": now + int(delay * 1000)}
        limit = table.turn_limit
        if not limit or not [s for s in game.seats_to_act() if table.ai_level(s) is None]:
            return None  # nobody to wait for (a computer took the last human's seat, say)
        if old is not None and old.get("token") == token and old.get("what") == "turn":
            return old
        return {
            "what": "turn",
            "token": token,
            "due": now + limit * 1000,
            "half": now + limit * 500,
            "reminded": False,
            "fired": False,
        }

    def _meta_after(
        self, table: Table, game: Any, player_seat: int | None, turn_moved: bool
    ) -> dict[str, Any] | None:
        """New meta for the commit of an action (None: unchanged): the timer, the missed counts, the
        count of turns started (``turn_moved``: a turn or a round ended) and the next-round votes,
        which last only while the round is over."""
        meta = table.stored.meta
        timer = self._timer_for(table, game, table.timer())
        missed = dict(meta.get("missed") or {})
        if player_seat is not None:
            missed.pop(str(player_seat), None)
        votes_end = game.phase != ROUND_OVER and "votes" in meta
        unchanged = timer == meta.get("timer") and missed == dict(meta.get("missed") or {})
        if unchanged and not votes_end and not turn_moved:
            return None
        new = {**meta, "timer": timer, "missed": missed}
        if turn_moved:
            new["turns"] = table.turns + 1
        if votes_end:
            del new["votes"]
        return new

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
        try:
            await self.storage.games.set_meta(table.id, meta)
        except StorageError:
            raise Refused("table.error.unavailable") from None
        table.stored.meta = meta

    async def _sync_timer(self, table: Table) -> None:
        """Make the stored timer match the state (at start, after a seat changed hands...; the resume
        of every game writes them all at once, see :meth:`resume`)."""
        meta = self._synced_meta(table)
        if meta is not None:
            with contextlib.suppress(Refused):
                await self._set_meta(table, meta)
        self._index(table)

    def _synced_meta(self, table: Table) -> dict[str, Any] | None:
        """The meta with the timer the state calls for; None if the stored timer already is that."""
        timer = self._timer_for(table, table.game, table.timer())
        return None if timer == table.timer() else {**table.stored.meta, "timer": timer}

    def _index(self, table: Table) -> None:
        """Tell the sweeper when to look at this table next."""
        timer = table.timer()
        key = ("game", table.id)
        if timer is None or table.finished:
            self._due.pop(key, None)
            return
        due = int(timer["due"])
        if timer.get("what") == "turn" and not timer.get("reminded"):
            due = min(due, int(timer.get("half", due)))
        self._schedule(key, due)

    def _schedule(self, key: tuple[str, int], due: int) -> None:
        if self._closed:
            return
        old = self._due.get(key)
        self._due[key] = due
        if old is None or due < old:
            self._wake.set()
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.create_task(self._sweep(), name="timer-sweeper")

    async def _sweep(self) -> None:
        """Sleep until the earliest deadline, act on every one that is due, repeat."""
        while not self._closed:
            self._wake.clear()
            if not self._due:
                await self._wake.wait()
                continue
            now = self.clock.now_ms()
            due = [key for key, when in self._due.items() if when <= now]
            if not due:
                await self.clock.sleep_until(min(self._due.values()), self._wake)
                continue
            for key in due:
                self._due.pop(key, None)
                if self.observer is not None:
                    self.observer.timer_fired("lobby" if key[0] == "lobby" else "turn")
                try:
                    if key[0] == "lobby":
                        await self._expire_lobby(key[1])
                    else:
                        await self._fire(key[1])
                except Exception:
                    log.exception("timer failed", extra={"what": key[0], "id": key[1]})
                    if key not in self._due:  # try again soon (a busy database, say)
                        self._due[key] = self.clock.now_ms() + 5000

    async def _expire_lobby(self, lobby_id: int) -> None:
        try:
            lobby = await self.lobbies.get(lobby_id)
        except LobbyNotFound:
            return
        async with self.lock(lobby.channel_id):
            lobby = await self.lobbies.get(lobby_id)
            if lobby.status != "open":
                return
            if self.clock.now_ms() < lobby.created_at + LOBBY_TTL_MS:
                self._schedule(("lobby", lobby_id), lobby.created_at + LOBBY_TTL_MS)
                return
            try:
                await self.lobbies.close(lobby, CANCELLED)
            except (LobbyChanged, StorageError):
                self._schedule(("lobby", lobby_id), self.clock.now_ms() + 5000)
                return
            self.expired_lobbies.add(lobby_id)
        log.info("lobby expired", extra={"lobby_id": lobby_id})
        self._tell("lobby_changed", lobby_id)

    async def _fire(self, game_id: int) -> None:
        table = self.tables.get(game_id)
        if table is None:
            return
        async with self.lock(table.channel_id):
            if self.tables.get(game_id) is not table or table.finished:
                return
            timer = table.timer()
            if timer is None or timer.get("token") != token_of(table.game):
                await self._sync_timer(table)  # the state moved on without a commit's meta (old data)
                return
            now = self.clock.now_ms()
            if timer.get("what") == "round":
                if now >= timer["due"]:
                    with contextlib.suppress(Refused, GameError):
                        await self._commit(table, 0, table.kind.engine.NextRound())
                else:
                    self._index(table)
                return
            seats = self._waited_for(table)
            if now < timer["due"]:
                if not timer.get("reminded") and now >= timer.get("half", timer["due"]):
                    await self._set_meta(table, {**table.stored.meta, "timer": {**timer, "reminded": True}})
                    if seats:
                        left = max(1, (int(timer["due"]) - now + 999) // 1000)
                        self._tell("remind", table, seats, left)
                self._index(table)
                return
            await self._cover(table, timer, seats)

    def _waited_for(self, table: Table) -> list[int]:
        return [s for s in table.game.seats_to_act() if table.ai_level(s) is None]

    async def _cover(self, table: Table, timer: dict[str, Any], seats: list[int]) -> None:
        """The limit is reached: play for every human the game waits for; count the miss once."""
        if not timer.get("fired"):
            missed = dict(table.stored.meta.get("missed") or {})
            for seat in seats:
                missed[str(seat)] = table.missed(seat) + 1
            meta = {
                **table.stored.meta,
                "missed": missed,
                "timer": {**timer, "fired": True, "reminded": True},
            }
            await self._set_meta(table, meta)
        token = timer["token"]
        for seat in seats:
            table.recent.append((seat, [{"kind": "turn_timed_out", "seat": seat}]))
            log.info(
                "turn timed out", extra={"game_id": table.id, "seat": seat, "missed": table.missed(seat)}
            )
            for step in range(MAX_COVER_ACTIONS):
                game = table.game
                if table.finished or token_of(game) != token or seat not in game.seats_to_act():
                    break
                if game.phase == REVEAL:  # initial reveals left undone: picked at random
                    rng = random.Random(f"{table.stored.seed}:{table.version}:{seat}:reveal")
                    action = rng.choice(game.legal_actions(seat))
                else:
                    action = self._ai_decide(table, seat, level="normal")
                try:
                    await self._commit(table, seat, action)
                except (Refused, GameError):
                    log.warning(
                        "timed-out move refused", extra={"game_id": table.id, "seat": seat, "step": step}
                    )
                    break
        for seat in seats:
            if (
                not table.finished
                and table.missed(seat) >= MISSES_BEFORE_REPLACE
                and seat not in table.replaced()
            ):
                await self._replace(table, seat, reason="idle")
                self._tell("seat_taken_over", table, seat)
        if not table.finished:
            still = table.timer()
            covered_turn_on = still is not None and still.get("token") == token == token_of(table.game)
            if still is not None and covered_turn_on and self._waited_for(table):
                # The covered turn itself is still on (nothing could be played for them, which should
                # not happen): look again in 5 s, no new miss. Compared with the covered turn's token,
                # never the state's alone: the next player's fresh timer must keep its whole limit.
                retry = {**still, "due": self.clock.now_ms() + 5000}
                await self._set_meta(table, {**table.stored.meta, "timer": retry})
            await self._sync_timer(table)
            self._notify(table)

    # ------------------------------------------------------------------ computer players

    def _arm(self, table: Table) -> None:
        """Schedule the computer players' moves (the round pause is a timer, see :meth:`_timer_for`)."""
        if self._closed or table.finished:
            return
        game = table.game
        if game.phase == ROUND_OVER:
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
                if game.phase == ROUND_OVER or not seats:
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

    def _ai_decide(self, table: Table, seat: int, level: str | None = None) -> Any:
        game = table.game
        level = level or table.ai_level(seat) or "normal"
        levels = table.kind.levels
        policy = levels.get(level, levels["normal"])
        rng = random.Random(f"{table.stored.seed}:{table.version}:{seat}")
        try:
            action = policy(game.view(seat), rng)
            if action in game.legal_actions(seat):
                return action
        except Exception:
            log.exception("computer player failed", extra={"game_id": table.id, "seat": seat, "level": level})
        return game.legal_actions(seat)[0]

    # ------------------------------------------------------------------ leaving, kicking, ending

    async def check_leave(self, game_id: int, user_id: int) -> None:
        """Refuse now what :meth:`leave` would refuse, so nobody is asked to confirm an impossible leave."""
        table = await self._table(game_id)
        if table.finished:
            raise Refused("table.error.game_finished")
        self._seat(table, user_id)

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

    async def _replace(self, table: Table, seat: int, reason: str = "left") -> None:
        meta = dict(table.stored.meta)
        replaced = dict(meta.get("replaced") or {})
        replaced[str(seat)] = "normal"
        meta["replaced"] = replaced
        # Only a seat taken for missed turns may be taken back; Leave and a kick are for good.
        idle = {s for s in meta.get("idle") or [] if isinstance(s, int)}
        meta["idle"] = sorted(idle | {seat} if reason == "idle" else idle - {seat})
        if seat in table.votes:
            meta["votes"] = sorted(table.votes - {seat})
        await self._set_meta(table, meta)
        table.recent.append((seat, [{"kind": "seat_replaced", "seat": seat, "reason": reason}]))
        log.info("seat taken by a computer", extra={"game_id": table.id, "seat": seat, "reason": reason})
        if table.game.phase == ROUND_OVER and not table.round_waiting():
            with contextlib.suppress(Refused, GameError):
                await self._commit(table, seat, table.kind.engine.NextRound())
                return
        await self._sync_timer(table)
        self._arm(table)
        self._notify(table)

    async def reclaim_seat(self, game_id: int, user_id: int) -> PanelState:
        """A human whose seat a computer player took for missed turns takes it back; returns their panel.

        The seat is theirs again at once, even in the middle of a turn the computer began for it (a
        Skyjo card drawn, a Skip-Bo turn half played): the computer's moves stay, the computer loop
        plays only computer seats so it stops there, and the turn gets a fresh timer with the whole
        limit. Their missed count starts again from zero, and as their seat is no longer in meta
        ``replaced`` the game is rated for them as for anyone who played it to the end.
        """
        table = await self._table(game_id)
        async with self.lock(table.channel_id):
            if table.finished or self.tables.get(game_id) is not table:
                raise Refused("table.error.game_finished")
            seat = table.seat_of(user_id)
            if seat is None:
                raise Refused("error.not_a_player")
            if seat not in table.replaced():
                return self._panel(table, seat)  # already theirs (a second click on the offer)
            if seat not in table.idle():
                raise Refused("seats.error.not_idle")
            meta = dict(table.stored.meta)
            meta["replaced"] = {k: v for k, v in (meta.get("replaced") or {}).items() if k != str(seat)}
            meta["missed"] = {k: v for k, v in (meta.get("missed") or {}).items() if k != str(seat)}
            meta["idle"] = sorted(table.idle() - {seat})
            await self._set_meta(table, meta)
            table.recent.append((seat, [{"kind": "seat_back", "seat": seat}]))
            log.info("seat taken back", extra={"game_id": table.id, "seat": seat})
            await self._sync_timer(table)
            self._notify(table)
            return self._panel(table, seat)

    def game_to_end(self, channel_id: int, user_id: int, *, can_manage: bool) -> Table | None:
        """The game :meth:`end` would end (to confirm first), None when there is none (a lobby or
        nothing: :meth:`end` answers those at once); refused now if this user may not end it."""
        table = self.table_in_channel(channel_id)
        if table is not None and user_id != table.stored.host_id and not can_manage:
            raise Refused("table.error.end_not_allowed")
        return table

    async def end(
        self, channel_id: int, user_id: int, *, can_manage: bool, game_id: int | None = None
    ) -> Table | Lobby:
        """``/skyjo end``: the host (or a channel manager) ends the game or closes the lobby, unrated.

        With ``game_id`` (a confirmation's Yes) only that game: a second Yes, or one clicked after the
        game ended and a new lobby opened, ends nothing else."""
        async with self.lock(channel_id):
            table = self.table_in_channel(channel_id)
            if game_id is not None and (table is None or table.id != game_id):
                raise Refused("table.error.already_ended")
            if table is None:
                lobby = await self.lobbies.open_in_channel(channel_id)
                if lobby is None:
                    raise Refused("table.error.no_game_here")
                if user_id != lobby.host_id and not can_manage:
                    raise Refused("table.error.end_not_allowed")
                await self.lobbies.close(lobby, CANCELLED)
                self._due.pop(("lobby", lobby.id), None)
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

    async def cancel_gone(self, gone: Callable[[int | None, int], bool], why: str) -> list[Table | Lobby]:
        """End every game and open lobby whose place is gone: ``gone(guild_id, channel_id)`` is true
        (the channel was deleted, the bot was removed from the server, or Discord answered 10003/10004
        for it). Each ends as ``/<game> end`` would, cancelled and unrated (note ``gone: <why>``), its
        timer and computer players stop, and it is not resumed at the next start; nothing is posted
        (the listener's ``table_gone`` / ``lobby_gone``). One INFO line per ended table. A table the
        database could not close now stays as it is (the next 10003 or start tries again)."""
        ended: list[Table | Lobby] = []
        for table in [tb for tb in self.tables.values() if gone(tb.stored.guild_id, tb.channel_id)]:
            async with self.lock(table.channel_id):
                if self.tables.get(table.id) is not table or table.finished:
                    continue
                try:
                    await self.storage.games.cancel_game(table.id, note=f"gone: {why}")
                except StorageError:
                    log.warning("could not cancel a vanished game", extra={"game_id": table.id})
                    continue
                table.stored.status = "cancelled"
                table.gone = True
                self.tables.pop(table.id, None)
                self._due.pop(("game", table.id), None)
                if table.ai_task is not None and table.ai_task is not asyncio.current_task():
                    table.ai_task.cancel()
            log.info("game cancelled: its place is gone", extra={"game_id": table.id, "why": why})
            self._tell("table_gone", table)
            ended.append(table)
        try:
            lobbies = [
                lb
                for lb in await self.lobbies.list_open()
                if self.owns(lb.guild_id) and gone(lb.guild_id, lb.channel_id)
            ]
        except StorageError:
            lobbies = []
        for lobby in lobbies:
            async with self.lock(lobby.channel_id):
                try:
                    await self.lobbies.close(lobby, CANCELLED)
                except (LobbyChanged, StorageError):
                    continue  # started or closed meanwhile (a started one is a game: see above)
            self._due.pop(("lobby", lobby.id), None)
            log.info("lobby cancelled: its place is gone", extra={"lobby_id": lobby.id, "why": why})
            self._tell("lobby_gone", lobby.id)
            ended.append(lobby)
        return ended

    async def rematch(self, game_id: int, user_id: int) -> Lobby:
        """A new lobby with the same seats and settings (the clicker hosts it)."""
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
        turn_limit = stored.meta.get("turn_limit", DEFAULT_TURN_LIMIT)
        async with self.lock(stored.channel_id):
            await self._check_channel_free(stored.guild_id, stored.channel_id)
            try:
                lobby = await self._create_lobby(
                    guild_id=stored.guild_id,
                    channel_id=stored.channel_id,
                    kind=stored.kind,
                    host_id=user_id,
                    options={**stored.options, "turn_limit": turn_limit},
                    seats=lobby_seats,
                )
            except ChannelBusy:
                raise Refused("table.error.channel_busy") from None
        self._schedule(("lobby", lobby.id), lobby.created_at + LOBBY_TTL_MS)
        return lobby
