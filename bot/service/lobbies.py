"""Lobbies, seating, the host's set-up form (issue 49: its checks are :mod:`bot.service.lobby_options`'s,
shared with ``/<game> new``) and the start of a game (and Rematch, a new lobby from an old game), and
the close of a lobby nobody started in time (the sweeper's lobby handler); each stored change published.
Its own state: the fair-use marks (one table opening at a time, when each host last opened one) and
the lobbies that expired (so a late click hears "expired", not "cancelled").

A thread per game (issue 40, docs/discord.md "Threads"): a lobby whose ``thread`` option is on (from
``/<game> new thread:``, else the server's ``/skybo settings threads``) stays in its channel, and at the
start :meth:`LobbyPart.lobby_start` asks the caller's ``room`` (the ui: :func:`bot.ui.threads.room_for`
starts a thread from the lobby message) for the channel of the game: the game is then dealt in that
thread (its ``channel_id`` is the thread's id, its table message a new one there) and remembers the
lobby's channel in its meta (:data:`THREAD_PARENT`), where its result is posted at the end. The lobby's
channel is then free for a new lobby. ``room`` answering None (no permission to start a thread) deals
the game in the channel, as without the option.

A rematch, and a right-click challenge (``open_lobby(challenged=)``: its ``challenge`` option, the whole
lobby's life), hold seats (docs/discord.md: At the table, Commands): the players invited (the ``invited``
option) have their seats kept until its ``held_until`` option (a rematch: :data:`REMATCH_HOLD_MS` after
its click, on the service's clock; stored with the lobby, so a restart keeps it). While the hold lasts,
anyone else's Join, or a computer player added, is refused when only held seats are free; an invited
player's Join always finds their seat, their Leave declines (seated or not: the invitation ends, the
seat is free). When the hold is over the sweeper takes ``held_until`` out of the lobby and has it drawn
again; the invited may still join a free seat. The host's Start while someone invited has not sat down
asks the host first (:class:`SeatsHeld`, naming them); confirmed, it deals whoever sits."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Unpack

from bot.engine.errors import GameError
from bot.games.base import seat_limit
from bot.games.new_table import TableOptions
from bot.render.names import computer_name
from bot.service.core import META_RETRY_WITHIN_S as DEAL_RETRY_WITHIN_S
from bot.service.core import ServiceCore, ServiceOptions
from bot.service.events import LobbyCause, LobbyClosed, LobbyOpened, lobby_copy
from bot.service.events import LobbyChanged as LobbyChangedEvent  # storage's LobbyChanged: a race lost
from bot.service.lobby_options import (
    check_fit,
    check_lobby,
    game_rules,
    held_refusal,
    held_seats,
    lobby_table_options,
    set_up,
)
from bot.service.types import (
    DEFAULT_TURN_LIMIT,
    LOBBY_TTL_MS,
    REMATCH_HOLD_MS,
    THREAD_PARENT,
    ChannelTaken,
    Refused,
    SeatsHeld,
    Table,
    _counted,
    _title,
    challenge_options,
    lobby_due,
    log,
)
from bot.storage import ChannelBusy, Seat, Storage, StorageError
from bot.storage.lobbies import (
    CANCELLED,
    HELD_UNTIL,
    INVITED,
    LANGUAGE,
    STARTED,
    THREAD,
    TURN_LIMIT,
    Lobby,
    LobbyChanged,
    LobbyNotFound,
    LobbySeat,
    engine_options,
)

# Where a game is dealt (see the module docstring): the thread's id, or None for the lobby's channel.
RoomChooser = Callable[[Lobby], Awaitable[int | None]]


class LobbyPart(ServiceCore):
    """Open, join, leave, fill with computers, cancel, start and expire a lobby."""

    def __init__(self, storage: Storage, **options: Unpack[ServiceOptions]) -> None:
        super().__init__(storage, **options)
        # Fair use (see _create_lobby): one table opening at a time, and when each host last opened one.
        self._opening = asyncio.Lock()
        self._opened_at: dict[int, int] = {}
        # Lobbies closed by their deadline (by this process, since its start).
        self.expired_lobbies: set[int] = set()
        self.sweeper.handle("lobby", self._expire_lobby)

    _game = staticmethod(game_rules)
    # The check of a new table's options (``/<game> new`` and the set-up form): bot.service.lobby_checks.
    check_lobby = staticmethod(check_lobby)

    def _check_seat_free(self, lobby: Lobby, user_id: int | None = None) -> None:
        """Refused when the lobby has no seat left for ``user_id`` (None: a computer player): the
        game's own limit, or the one its options set (a smaller edition, a large grid), with the
        engine's reason; and a rematch's seats held for the others (see the module docstring)."""
        options = engine_options(lobby.options)
        limit, _ = seat_limit(self._game(lobby.kind), options)
        held = [p for p in held_seats(lobby, self.clock.now_ms()) if p.get("user_id") != user_id]
        if len(lobby.seats) < limit and len(lobby.seats) + len(held) >= limit:
            raise held_refusal(held, int(lobby.options[HELD_UNTIL]), computer=user_id is None)
        check_fit(self._game(lobby.kind), options, len(lobby.seats) + 1)

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
        kind: str,
        turn_limit: int | None = None,
        thread: bool | None = None,
        off_server: bool = False,
        challenged: tuple[int, str] | None = None,
        answered: bool = True,
    ) -> Lobby:
        """Open a lobby; ``turn_limit`` None: the server's default (``/skybo settings``), else the bot's;
        ``thread`` None: the server's setting (a game in a thread of its own, or in the channel).
        ``off_server``: where the bot is not a member (no thread; ``locale`` kept as its language);
        ``challenged`` (user id, name): a challenge's, that seat held (:func:`challenge_options`);
        ``answered`` False: no command answers with its message (the Activity's offer), the channel's
        surface posts it (:class:`LobbyOpened`)."""
        settings = await self.settings_book.for_new_table(guild_id, channel_id)
        if turn_limit is None:
            turn_limit = DEFAULT_TURN_LIMIT if settings.turn_limit is None else settings.turn_limit
        if thread is None:
            thread = settings.threads and not off_server
        if type(thread) is not bool:
            raise Refused("table.error.forged")
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
                    options={
                        **opts.to_dict(),
                        "turn_limit": turn_limit,
                        **({THREAD: True} if thread else {}),
                        **challenge_options(challenged, self.clock.now_ms()),
                        **({LANGUAGE: str(locale)} if off_server and locale is not None else {}),
                    },
                    seats=seats,
                    off_server=off_server,
                )
            except ChannelBusy:
                await self._check_channel_free(guild_id, channel_id)
                raise Refused("table.error.channel_busy") from None
            self.bus.publish(LobbyOpened(lobby=lobby_copy(lobby), answered=answered))
        self.sweeper.schedule(("lobby", lobby.id), lobby_due(lobby))
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
            lobby = await self.lobbies.create(**fields, now_ms=now)  # its expiry is on this clock
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
        """ChannelTaken (with the link to its message and its game) if the channel has a game or an
        open lobby. A game of this process's shards that it does not hold (a Start whose deal landed after
        it was refused) is held and shown now, so the link leads to a table with its buttons; the lobby of
        a game dealt meanwhile is closed (its close met the database away)."""
        game_id = await self.storage.games.active_in_channel(channel_id)
        if game_id is not None:
            table = self.tables.get(game_id)
            if table is None and self.owns(guild_id):
                with contextlib.suppress(Refused):
                    table = await self._dealt(await self._table(game_id), None)  # TableDealt: shown now
                    log.warning("dealt game found: shown now", extra={"game_id": game_id})
            message_id = table.stored.message_id if table else None
            kind = table.stored.kind if table else None
            if table is None:
                with contextlib.suppress(StorageError):
                    stored = await self.ledger.get_game(game_id)
                    message_id, kind = stored.message_id, stored.kind
            raise ChannelTaken(guild_id, channel_id, message_id, _title(kind))
        lobby = await self.lobbies.open_in_channel(channel_id)
        dealt = next(
            (t for t in self.tables.values() if lobby and t.stored.meta.get("lobby_id") == lobby.id), None
        )
        if lobby is not None and dealt is not None:  # its game went to a thread: the channel is free
            with contextlib.suppress(LobbyChanged):
                await self.lobbies.close(lobby, STARTED, dealt.id)
        elif lobby is not None:
            raise ChannelTaken(guild_id, channel_id, lobby.message_id, _title(lobby.kind))

    async def kind_in_channel(self, channel_id: int) -> str | None:
        """The game (its kind's name) of this channel's running table or open lobby, or None."""
        table = self.table_in_channel(channel_id)
        if table is not None:
            return table.stored.kind
        lobby = await self.lobbies.open_in_channel(channel_id)
        return None if lobby is None else lobby.kind

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
        self,
        lobby_id: int,
        channel_id: int,
        cause: LobbyCause,
        change: Callable[[Lobby], list[LobbySeat]],
        options: Callable[[Lobby], dict[str, Any] | None] | None = None,
    ) -> Lobby:
        """Apply ``change`` (the new seats) and ``options`` (new options, or None: unchanged) to the
        open lobby, under its channel's lock (then ``LobbyChanged(cause)``); both may refuse."""
        async with self.lock(channel_id):
            lobby = await self._open_lobby(lobby_id)
            seats = change(lobby)
            new_options = options(lobby) if options is not None else None
            try:
                lobby = await self.lobbies.set_seats(lobby, seats, new_options)
            except LobbyChanged:
                raise Refused("table.error.lobby_changed") from None
            self.bus.publish(LobbyChangedEvent(lobby=lobby_copy(lobby), cause=cause))
            return lobby

    async def lobby_join(self, lobby_id: int, channel_id: int, user_id: int, name: str) -> Lobby:
        def change(lobby: Lobby) -> list[LobbySeat]:
            if lobby.seat_of(user_id) is not None:
                raise Refused("table.error.already_seated")
            self._check_seat_free(lobby, user_id)
            return [*lobby.seats, LobbySeat(name, user_id=user_id)]

        return await self._lobby_change(lobby_id, channel_id, "join", change)

    async def lobby_leave(self, lobby_id: int, channel_id: int, user_id: int) -> Lobby:
        """Leave the lobby; a player a rematch invited declines by it, seated or not (their invitation
        ends and their held seat is free: see the module docstring)."""

        def invited(lobby: Lobby) -> list[dict[str, Any]]:
            return list(lobby.options.get(INVITED) or [])

        def change(lobby: Lobby) -> list[LobbySeat]:
            seat = lobby.seat_of(user_id)
            if seat is None and not any(p.get("user_id") == user_id for p in invited(lobby)):
                raise Refused("table.error.not_seated")
            if user_id == lobby.host_id:
                raise Refused("table.error.host_cannot_leave")
            return [s for i, s in enumerate(lobby.seats) if i != seat]

        def options(lobby: Lobby) -> dict[str, Any] | None:
            left = [p for p in invited(lobby) if p.get("user_id") != user_id]
            if len(left) == len(invited(lobby)):
                return None
            return {**lobby.options, INVITED: left}

        return await self._lobby_change(lobby_id, channel_id, "leave", change, options)

    async def lobby_add_computer(self, lobby_id: int, channel_id: int, user_id: int, locale: object) -> Lobby:
        def change(lobby: Lobby) -> list[LobbySeat]:
            if lobby.seat_of(user_id) is None:
                raise Refused("table.error.not_seated")
            self._check_seat_free(lobby, None)
            levels = [s.ai_level for s in lobby.seats if s.ai_level]
            level = levels[-1] if levels else "normal"
            number = len(levels) + 1
            return [*lobby.seats, LobbySeat(self._ai_name(number, level, locale), ai_level=level)]

        return await self._lobby_change(lobby_id, channel_id, "computer_added", change)

    async def lobby_remove_computer(self, lobby_id: int, channel_id: int, user_id: int) -> Lobby:
        """The host takes the last computer player out of the lobby."""

        def change(lobby: Lobby) -> list[LobbySeat]:
            if user_id != lobby.host_id:
                raise Refused("table.error.host_only")
            last = max((i for i, s in enumerate(lobby.seats) if s.ai_level), default=None)
            if last is None:
                raise Refused("table.error.no_computer")
            return [s for i, s in enumerate(lobby.seats) if i != last]

        return await self._lobby_change(lobby_id, channel_id, "computer_removed", change)

    async def lobby_setup(self, lobby_id: int, user_id: int) -> tuple[Lobby, TableOptions]:
        """The open lobby and its options, for its host's set-up form; anyone else is refused."""
        lobby = await self._open_lobby(lobby_id)
        if user_id != lobby.host_id:
            raise Refused("table.error.host_only")
        return lobby, lobby_table_options(lobby)

    async def lobby_set_options(
        self, lobby_id: int, channel_id: int, user_id: int, given: Mapping[str, Any], locale: object
    ) -> Lobby:
        """The host's set-up form changes the lobby's options by what it ``given`` (option name ->
        value, as to ``/<game> new``; the others keep the lobby's), checked as ``/<game> new`` checks
        them (:func:`bot.service.lobby_options.set_up`). A form that changes nothing stores and
        publishes nothing."""
        async with self.lock(channel_id):
            lobby = await self._open_lobby(lobby_id)
            if user_id != lobby.host_id:
                raise Refused("table.error.host_only")
            seats, options = set_up(
                lobby, given, self.clock.now_ms(), lambda n, level: self._ai_name(n, level, locale)
            )
            if options == lobby.options and seats == lobby.seats:
                return lobby
            try:
                lobby = await self.lobbies.set_seats(lobby, seats, options)
            except LobbyChanged:
                raise Refused("table.error.lobby_changed") from None
            self.bus.publish(LobbyChangedEvent(lobby=lobby_copy(lobby), cause="options"))
        log.info("lobby set up", extra={"lobby_id": lobby_id, "kind": lobby.kind})
        return lobby

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
            self.sweeper.forget(("lobby", lobby_id))
            self.bus.publish(LobbyClosed(lobby=lobby_copy(lobby), how="cancelled"))
        log.info("lobby cancelled", extra={"lobby_id": lobby_id, "by": user_id})
        return lobby

    async def lobby_start(
        self,
        lobby_id: int,
        channel_id: int,
        user_id: int,
        message_id: int | None = None,
        *,
        room: RoomChooser | None = None,
        confirmed: bool = False,
    ) -> Table:
        """Deal the game; ``message_id`` is the clicked lobby message (it becomes the table message).
        A lobby with the ``thread`` option asks ``room`` for the thread to deal it in, once everything
        else is checked (see the module docstring). While a rematch holds seats for players not seated
        yet, :class:`SeatsHeld` asks the host first; ``confirmed`` (their Yes) deals without them."""
        async with self.lock(channel_id):
            lobby = await self._open_lobby(lobby_id)
            spec = self._game(lobby.kind)
            if message_id is not None:
                lobby.message_id = message_id
            if user_id != lobby.host_id:
                raise Refused("table.error.host_only")
            if len(lobby.seats) < spec.min_players:
                raise Refused("table.error.need_players", min=spec.min_players)
            seats = [Seat(i, s.name, s.user_id, s.ai_level) for i, s in enumerate(lobby.seats)]
            options = engine_options(lobby.options)
            turn_limit = lobby.options.get(TURN_LIMIT, DEFAULT_TURN_LIMIT)
            # The options' own reason for this count (teams of two need 4 or 6), said before the deal.
            try:
                spec.engine.Options.from_dict(dict(options)).validate(len(seats))
            except GameError as error:
                raise Refused(error.key, **error.params) from None
            held = held_seats(lobby, self.clock.now_ms())
            if held and not confirmed:  # their seats would go without a word: the host is asked
                names = [str(p.get("name") or "") for p in held]
                raise SeatsHeld(names, int(lobby.options[HELD_UNTIL]))
            # /skybo settings: a server may not rate games with computer players (dealt unrated).
            computers = any(s.ai_level is not None for s in seats)
            rated = not computers or self.settings_book.of(lobby.guild_id).rate_computers
            meta: dict[str, Any] = {"lobby_id": lobby.id, "turn_limit": turn_limit}
            if LANGUAGE in lobby.options:  # where the bot is not a member: the table's language
                meta[LANGUAGE] = lobby.options[LANGUAGE]
            table_channel, table_message = lobby.channel_id, lobby.message_id
            # A Start whose deal landed but whose answer was lost, in the thread started from the lobby
            # message (same id): that game, not a second one (the thread exists: room would refuse).
            wanted, thread = lobby.options.get(THREAD), lobby.message_id
            dealt = await self.ledger.dealt(thread, lobby.id) if wanted and thread is not None else None
            thread_id = await room(lobby) if room is not None and wanted and dealt is None else None
            if thread_id is not None:
                table_channel, table_message = thread_id, None
                meta[THREAD_PARENT] = lobby.channel_id
            try:
                stored = dealt or await self.writer.create_game(
                    guild_id=lobby.guild_id,
                    channel_id=table_channel,
                    kind=lobby.kind,
                    seats=seats,
                    options=options,
                    host_id=lobby.host_id,
                    message_id=table_message,
                    meta=meta,
                    rated=rated,
                    off_server=lobby.off_server,
                    retry_within=DEAL_RETRY_WITHIN_S,  # a blink: tried again, read back
                )
            except ChannelBusy:
                raise Refused("table.error.channel_busy") from None
            except GameError as error:
                raise Refused(error.key, **error.params) from None
            except StorageError as error:  # a try may have landed: Start again deals it, or finds it
                if not error.transient:
                    raise
                log.warning("game not dealt: the database did not answer", extra={"lobby_id": lobby_id})
                raise Refused("table.error.reconnecting") from None
            table = await self._dealt(self.writer.cache(stored), lobby)
        log.info(
            "game started",
            extra={"game_id": stored.id, "kind": lobby.kind, "lobby_id": lobby_id, "seats": len(seats)},
        )
        return table

    async def _dealt(self, table: Table, started: Lobby | None) -> Table:
        """A game just dealt (by ``started``'s Start; None: found dealt), held before its lobby closes (the
        table caps, _create_lobby, never miss it), its lobby closed, then ``TableDealt``. What fails now
        (the database away) is left for the next look at its channel or the next start, never a failure."""
        lobby_id = table.stored.meta.get("lobby_id")
        if isinstance(lobby_id, int):
            with contextlib.suppress(LobbyChanged, LobbyNotFound, StorageError):
                lobby = started or await self.lobbies.get(lobby_id)
                if lobby.status == "open":
                    await self.lobbies.close(lobby, STARTED, table.id)
            self.sweeper.forget(("lobby", lobby_id))
        await self.writer.deal(table, started=started)
        return table

    async def _expire_lobby(self, lobby_id: int) -> None:
        try:
            lobby = await self.lobbies.get(lobby_id)
        except LobbyNotFound:
            return
        async with self.lock(lobby.channel_id):
            lobby = await self.lobbies.get(lobby_id)
            if lobby.status != "open":
                return
            now = self.clock.now_ms()
            if HELD_UNTIL in lobby.options and now >= int(lobby.options[HELD_UNTIL]):
                await self._release_held(lobby)  # the hold is over; the lobby may still run
                return
            if now < lobby.created_at + LOBBY_TTL_MS:
                self.sweeper.schedule(("lobby", lobby_id), lobby_due(lobby))
                return
            try:
                await self.lobbies.close(lobby, CANCELLED)
            except (LobbyChanged, StorageError):
                self.sweeper.schedule(("lobby", lobby_id), self.clock.now_ms() + 5000)
                return
            self.expired_lobbies.add(lobby_id)
            self.bus.publish(LobbyClosed(lobby=lobby_copy(lobby), how="expired"))
        log.info("lobby expired", extra={"lobby_id": lobby_id})

    async def _release_held(self, lobby: Lobby) -> None:
        """A rematch's hold is over (under the lobby's channel lock): ``held_until`` leaves the lobby,
        which is drawn again (its held line gone), and its deadline is its expiry again."""
        options = {k: v for k, v in lobby.options.items() if k != HELD_UNTIL}
        try:
            lobby = await self.lobbies.set_seats(lobby, lobby.seats, options)  # now without the hold
        except (LobbyChanged, StorageError):
            self.sweeper.schedule(("lobby", lobby.id), self.clock.now_ms() + 5000)
            return
        self.sweeper.schedule(("lobby", lobby.id), lobby_due(lobby))
        log.info("rematch seats released", extra={"lobby_id": lobby.id})
        self.bus.publish(LobbyChangedEvent(lobby=lobby_copy(lobby), cause="hold_released"))

    async def rematch(self, game_id: int, user_id: int) -> Lobby:
        """A new lobby with the same settings, hosted and first seated by the clicker.

        A rematch asks: the other people of the game are not seated but invited (the lobby's
        ``invited`` option, stored with it, so a restart keeps it); the lobby names them and its Join
        button reads "Join the rematch", and each takes a seat by clicking it. Their seats are held
        for :data:`REMATCH_HOLD_MS` (the ``held_until`` option: see the module docstring). The
        computer players of the game sit again at once (nobody needs asking), at their level. A seat a
        computer took over from a person (who left or missed turns) is neither: that person is not
        invited, nor is the computer that replaced them seated."""
        try:
            stored = await self.ledger.get_game(game_id)
        except StorageError:
            raise Refused("table.error.unknown_table") from None
        if stored.status == "active":
            raise Refused("table.error.game_running")
        if stored.meta.get("tournament_id") is not None:  # the tournament seats its next round itself
            raise Refused("tournament.error.rematch")
        me = next((s for s in stored.seats if s.user_id == user_id), None)
        if me is None:
            raise Refused("error.not_a_player")
        replaced = {int(k) for k in (stored.meta.get("replaced") or {})}
        others = [s for s in stored.seats if s is not me and s.seat not in replaced]
        lobby_seats = [LobbySeat(me.display_name, user_id=user_id)] + [
            LobbySeat(s.display_name, ai_level=s.ai_level) for s in others if s.ai_level is not None
        ]
        invited = [{"user_id": s.user_id, "name": s.display_name} for s in others if s.ai_level is None]
        turn_limit = stored.meta.get("turn_limit", DEFAULT_TURN_LIMIT)
        # The server may have taken this channel off its list since the game was opened (a game played
        # in a thread: its lobby's channel; the rematch's lobby is opened in the thread, which it
        # unarchives, and its game stays there).
        listed = stored.meta.get(THREAD_PARENT)
        await self.settings_book.for_new_table(
            stored.guild_id, listed if isinstance(listed, int) else stored.channel_id
        )
        async with self.lock(stored.channel_id):
            await self._check_channel_free(stored.guild_id, stored.channel_id)
            try:
                lobby = await self._create_lobby(
                    guild_id=stored.guild_id,
                    channel_id=stored.channel_id,
                    kind=stored.kind,
                    host_id=user_id,
                    options={
                        **stored.options,
                        TURN_LIMIT: turn_limit,
                        INVITED: invited,
                        **({HELD_UNTIL: self.clock.now_ms() + REMATCH_HOLD_MS} if invited else {}),
                        **({LANGUAGE: stored.meta[LANGUAGE]} if LANGUAGE in stored.meta else {}),
                    },
                    seats=lobby_seats,
                    off_server=stored.off_server,
                )
            except ChannelBusy:
                raise Refused("table.error.channel_busy") from None
            self.bus.publish(LobbyOpened(lobby=lobby_copy(lobby), rematch_of=game_id))
        self.sweeper.schedule(("lobby", lobby.id), lobby_due(lobby))
        return lobby
