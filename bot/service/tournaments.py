"""Tournaments (issue 41): sign-ups, rounds of ordinary tables dealt by the service, standings, the end.

A tournament is stored (``bot/storage/tournaments.py``) as its options, seed, players and tables; the
standings and the next round are computed from them by the pure rules of ``bot/tournament/pairing.py``
(read there: points, tie-breaks, Swiss and knockout). This part only does what happens:

- **create** (the organiser, with Manage Server: the cog checks it), **join / leave** while signing up
  (at most ``pairing.capacity`` players), **start** by the organiser (or a manager) or by the sweeper at
  ``starts_at`` (a start that cannot be made then, too few players say, leaves it signing up);
- **a round**: one table per group of the pairing, each an ordinary game dealt by the service for the
  seated players in a room of its own (a thread of the tournament's channel, opened by the
  :class:`TournamentHall` the bot gives: ``set_tournament_hall``), with the tournament's turn limit,
  rated unless the organiser said ``rated:off`` (and as the server's settings rate games with
  computers), computer players filling the table up to ``seats`` only with ``computers:on``. Each table
  then plays as today: its timers cover and replace absent players;
- **a table's end**: recorded by :mod:`~bot.service.tournament_ends` (its places; a database that does
  not take it is tried again until it does), which then calls ``_go_on``: when every table of the round
  has ended the next round is seated (or the tournament finishes: Swiss after ``rounds`` rounds, the
  first of the standings wins; knockout when the bracket is played, its last player left wins);
- **drop** a player (the organiser): they are seated no more; at a table still playing a computer
  takes their seat, as when a player leaves (their results so far still count in the standings);
  **pause** (tables playing go on, no new round is seated until **resume**, which also deals any table
  a failure left undealt) and **cancel** (tables playing go on as ordinary games, counting for nothing).

A restart loses nothing: ``resume_tournaments`` schedules the starts, records the tables whose game
ended while the process was away or closing (``_record``, of the ends part), and seats the round that
was due.

This part's own state is :class:`Desk` (the tournaments' locks, the hall).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, Unpack

from bot.games.registry import BY_KIND
from bot.render.names import computer_name
from bot.service.core import ServiceCore, ServiceOptions
from bot.service.types import DEFAULT_TURN_LIMIT, THREAD_PARENT, TURN_LIMITS, Refused, log
from bot.storage import ChannelBusy, Seat, Storage, StorageError
from bot.storage.tournaments import (
    BYE,
    CANCELLED,
    ENDED,
    FINISHED,
    OPEN_STATUSES,
    PAUSED,
    PLAYING,
    RUNNING,
    SEATED,
    SIGNUP,
    Tournament,
    TournamentChanged,
    TournamentNotFound,
    TournamentPlayer,
    TournamentTable,
)
from bot.tournament import pairing

COMPUTER_LEVEL = "normal"


class TournamentHall(Protocol):
    """What the service asks of the bot for tournaments (the bot's is in ``bot/ui/tournaments.py``)."""

    async def open_room(
        self, tournament: Tournament, round_no: int, table_no: int, players: list[int]
    ) -> int:
        """A room for a table's ``players`` (a thread of the tournament's channel): its channel id."""

    def tournament_changed(self, tournament_id: int) -> None:
        """Something players see changed (sign-ups, standings, the end): redraw its messages."""


class QuietHall:
    """A service nobody watches: its rooms are numbered from its channel (tests, tools)."""

    async def open_room(
        self, tournament: Tournament, round_no: int, table_no: int, players: list[int]
    ) -> int:
        return tournament.channel_id * 1000 + round_no * 100 + table_no

    def tournament_changed(self, tournament_id: int) -> None:
        pass


@dataclass
class Desk:
    """The tournaments' own state: one lock per tournament (its changes go one at a time, a table's end
    recorded by :mod:`~bot.service.tournament_ends` too), and the hall."""

    hall: TournamentHall = field(default_factory=QuietHall)
    locks: dict[int, asyncio.Lock] = field(default_factory=dict)

    def lock(self, tournament_id: int) -> asyncio.Lock:
        return self.locks.setdefault(tournament_id, asyncio.Lock())


@dataclass(frozen=True)
class TournamentView:
    """All a message about a tournament shows."""

    tournament: Tournament
    players: list[TournamentPlayer]
    tables: list[TournamentTable]
    standings: list[pairing.Standing]
    still_in: list[int]  # knockout: the players not out (Swiss: every player not dropped)

    def names(self) -> dict[int, str]:
        return {p.user_id: p.name for p in self.players}

    def round_tables(self, round_no: int) -> list[TournamentTable]:
        return [t for t in self.tables if t.round == round_no]


def records(tables: Sequence[TournamentTable]) -> list[pairing.RoundRecord]:
    """The finished rounds' records (tables ended, and byes), round by round, for the pure rules."""
    rounds: dict[int, list[TournamentTable]] = {}
    for table in tables:
        rounds.setdefault(table.round, []).append(table)
    return [
        pairing.RoundRecord(
            tuple(pairing.TableResult(t.result) for t in held if t.status == ENDED and t.result),
            tuple(t.players[0] for t in held if t.status == BYE),
        )
        for _, held in sorted(rounds.items())
    ]


def still_in(
    tournament: Tournament, players: Sequence[TournamentPlayer], tables: Sequence[TournamentTable]
) -> list[int]:
    """Who may still be seated: not dropped, and in a knockout not beaten (by each ended round)."""
    left = [p.user_id for p in players if not p.dropped]
    if tournament.format != pairing.KNOCKOUT:
        return left
    history = records(tables)
    for number, record in enumerate(history, start=1):
        if any(t.round == number and t.status not in (ENDED, BYE) for t in tables):
            break  # a round still playing: its tables have not decided yet
        ranked = [
            s.player
            for s in pairing.standings([p.user_id for p in players], history[: number - 1], tournament.seed)
        ]
        # Out of this round's tables: who was dropped by then (a win before the drop stands, so a
        # later drop never brings back a player that winner beat).
        out = {p.user_id for p in players if p.dropped_round is not None and p.dropped_round <= number}
        winners = {pairing.advancing(table, ranked, out) for table in record.tables} | set(record.byes)
        left = [player for player in left if player in winners]
    return left


class TournamentPart(ServiceCore):
    """Create, join, start, seat, go on after a table's end, drop, pause, resume, cancel a tournament."""

    def __init__(self, storage: Storage, **options: Unpack[ServiceOptions]) -> None:
        super().__init__(storage, **options)
        self.tournament_desk = Desk()

    def _tournament_lock(self, tournament_id: int) -> asyncio.Lock:
        return self.tournament_desk.lock(tournament_id)

    def set_tournament_hall(self, hall: TournamentHall) -> None:
        self.tournament_desk.hall = hall

    def _hail(self, tournament_id: int) -> None:
        """Tell the hall a tournament changed; what it raises is logged, never the service's failure."""
        try:
            self.tournament_desk.hall.tournament_changed(tournament_id)
        except Exception:
            log.exception("tournament hall failed", extra={"tournament_id": tournament_id})

    # ------------------------------------------------------------------ reading

    async def tournament(self, tournament_id: int) -> Tournament:
        try:
            return await self.storage.tournaments.get(tournament_id)
        except TournamentNotFound:
            raise Refused("tournament.error.unknown") from None

    async def tournament_in_channel(self, channel_id: int) -> Tournament:
        """The tournament not over whose channel (or one of whose tables' rooms) this is, or Refused."""
        for held in await self.storage.tournaments.open():
            if held.channel_id == channel_id:
                return held
        for held in await self.storage.tournaments.open():
            if any(t.channel_id == channel_id for t in await self.storage.tournaments.tables(held.id)):
                return held
        raise Refused("tournament.error.none_here")

    async def tournament_view(self, tournament_id: int) -> TournamentView:
        held = await self.tournament(tournament_id)
        players = await self.storage.tournaments.players(held.id)
        tables = await self.storage.tournaments.tables(held.id)
        lines = pairing.standings([p.user_id for p in players], records(tables), held.seed)
        return TournamentView(held, players, tables, lines, still_in(held, players, tables))

    # ------------------------------------------------------------------ sign-ups

    async def tournament_new(
        self,
        *,
        guild_id: int,
        channel_id: int,
        organiser_id: int,
        kind: str,
        form: str,
        seats: int,
        rounds: int,
        turn_limit: int | None = None,
        starts_at: int | None = None,
        rated: bool = True,
        computers: bool = False,
    ) -> Tournament:
        """A new tournament signing up in ``channel_id``; Refused with the reason for absurd options."""
        game = BY_KIND.get(kind)
        if game is None:
            raise Refused("table.error.forged")
        problem = pairing.option_problem(form, seats, rounds)
        if problem is not None:
            raise Refused(f"tournament.bad.{problem}", min=pairing.MIN_SEATS, max=pairing.MAX_SEATS)
        if not game.min_players <= seats <= game.max_players:
            raise Refused("tournament.bad.seats", min=max(2, game.min_players), max=game.max_players)
        if turn_limit is not None and (type(turn_limit) is not int or turn_limit not in TURN_LIMITS):
            raise Refused("table.error.bad_turn_limit")
        if starts_at is not None and starts_at <= self.clock.now_ms():
            raise Refused("tournament.bad.past")
        await self._new_table_settings(guild_id, channel_id)  # the server's list of channels
        if any(held.channel_id == channel_id for held in await self.storage.tournaments.open()):
            raise Refused("tournament.error.channel_busy")
        made = await self.storage.tournaments.create(
            guild_id=guild_id, channel_id=channel_id, organiser_id=organiser_id, kind=kind, format=form,
            seats=seats, rounds=rounds, turn_limit=turn_limit, starts_at=starts_at, seed=self._seed(),
            rated=rated, computers=computers,
        )  # fmt: skip
        if starts_at is not None:
            self._start_at(made)
        log.info("tournament created", extra={"tournament_id": made.id, "kind": kind, "format": form})
        return made

    async def tournament_join(self, tournament_id: int, user_id: int, name: str) -> Tournament:
        async with self.tournament_desk.lock(tournament_id):
            held = await self.tournament(tournament_id)
            if held.status != SIGNUP:
                raise Refused("tournament.error.not_signing_up")
            players = await self.storage.tournaments.players(held.id)
            if any(p.user_id == user_id for p in players):
                raise Refused("tournament.error.already_joined")
            most = pairing.capacity(held.format, held.seats, held.rounds)
            if len(players) >= most:
                raise Refused("tournament.error.full", max=most)
            held = await self._write(self.storage.tournaments.join(held, user_id, name))
        self._hail(held.id)
        return held

    async def tournament_leave(self, tournament_id: int, user_id: int) -> Tournament:
        async with self.tournament_desk.lock(tournament_id):
            held = await self.tournament(tournament_id)
            if held.status != SIGNUP:
                raise Refused("tournament.error.not_signing_up")
            if not any(p.user_id == user_id for p in await self.storage.tournaments.players(held.id)):
                raise Refused("tournament.error.not_joined")
            held = await self._write(self.storage.tournaments.leave(held, user_id))
        self._hail(held.id)
        return held

    async def set_tournament_messages(self, tournament: Tournament, **message_ids: int) -> Tournament:
        """Remember the sign-up or standings message (``signup_message_id=``, ``standings_message_id=``)."""
        async with self.tournament_desk.lock(tournament.id):
            held = await self.tournament(tournament.id)
            return await self._write(self.storage.tournaments.update(held, **message_ids))

    # ------------------------------------------------------------------ the organiser

    def _organiser(self, held: Tournament, user_id: int, can_manage: bool) -> None:
        if user_id != held.organiser_id and not can_manage:
            raise Refused("tournament.error.organiser_only")

    async def tournament_start(
        self, tournament_id: int, user_id: int | None, *, can_manage: bool = False
    ) -> Tournament:
        """Seat the first round (``user_id`` None: the sweeper, at ``starts_at``)."""
        async with self.tournament_desk.lock(tournament_id):
            held = await self.tournament(tournament_id)
            if user_id is not None:
                self._organiser(held, user_id, can_manage)
            if held.status != SIGNUP:
                raise Refused("tournament.error.started")
            players = [p.user_id for p in await self.storage.tournaments.players(held.id)]
            problem = pairing.start_problem(held.format, held.seats, held.rounds, len(players))
            if problem is not None:
                low = held.seats ** (held.rounds - 1) + 1
                raise Refused(
                    f"tournament.bad.{problem}", min=low, max=held.seats**held.rounds, rounds=held.rounds
                )
            held = await self._seat_next(held)
        log.info("tournament started", extra={"tournament_id": held.id, "players": len(players)})
        self._hail(held.id)
        return held

    async def tournament_drop(
        self, tournament_id: int, by: int, player: int, *, can_manage: bool = False
    ) -> Tournament:
        """The organiser drops a player: never seated again; at a table still playing a computer takes
        their seat (the game goes on)."""
        async with self.tournament_desk.lock(tournament_id):
            held = await self.tournament(tournament_id)
            self._organiser(held, by, can_manage)
            if held.status not in OPEN_STATUSES:
                raise Refused("tournament.error.over")
            found = next(
                (p for p in await self.storage.tournaments.players(held.id) if p.user_id == player), None
            )
            if found is None:
                raise Refused("tournament.error.not_a_player")
            if found.dropped:
                raise Refused("tournament.error.already_dropped")
            if held.status == SIGNUP:
                held = await self._write(self.storage.tournaments.leave(held, player))
            else:
                held = await self._write(self.storage.tournaments.drop(held, player))
                for table in await self.storage.tournaments.tables(held.id):
                    if table.round == held.round and table.status == PLAYING and player in table.players:
                        await self._computer_for(table, player)
        log.info("tournament player dropped", extra={"tournament_id": held.id, "player": player})
        self._hail(held.id)
        return held

    async def _computer_for(self, row: TournamentTable, player: int) -> None:
        table = self.tables.get(row.game_id or 0)
        if table is None:
            return
        async with self.lock(table.channel_id):
            seat = table.seat_of(player)
            if table.finished or seat is None or seat in table.replaced():
                return
            with contextlib.suppress(Refused):
                await self._replace(table, seat)

    async def tournament_pause(self, tournament_id: int, by: int, *, can_manage: bool = False) -> Tournament:
        async with self.tournament_desk.lock(tournament_id):
            held = await self.tournament(tournament_id)
            self._organiser(held, by, can_manage)
            if held.status != RUNNING:
                raise Refused("tournament.error.not_running")
            held = await self._write(self.storage.tournaments.update(held, status=PAUSED))
        self._hail(held.id)
        return held

    async def tournament_resume(self, tournament_id: int, by: int, *, can_manage: bool = False) -> Tournament:
        """Go on after a pause: the round due is seated, a table left undealt is dealt."""
        async with self.tournament_desk.lock(tournament_id):
            held = await self.tournament(tournament_id)
            self._organiser(held, by, can_manage)
            if held.status not in (PAUSED, RUNNING):
                raise Refused("tournament.error.not_paused")
            if held.status == PAUSED:
                held = await self._write(self.storage.tournaments.update(held, status=RUNNING))
            held = await self._go_on(held)
        self._hail(held.id)
        return held

    async def tournament_cancel(self, tournament_id: int, by: int, *, can_manage: bool = False) -> Tournament:
        async with self.tournament_desk.lock(tournament_id):
            held = await self.tournament(tournament_id)
            self._organiser(held, by, can_manage)
            if held.status not in OPEN_STATUSES:
                raise Refused("tournament.error.over")
            held = await self._write(self.storage.tournaments.update(held, status=CANCELLED))
        self._forget(("tournament", held.id))
        log.info("tournament cancelled", extra={"tournament_id": held.id, "by": by})
        self._hail(held.id)
        return held

    # ------------------------------------------------------------------ rounds

    async def _seat_next(self, held: Tournament) -> Tournament:
        """Seat the round after ``held.round`` (the lock held), and deal its tables."""
        players = await self.storage.tournaments.players(held.id)
        tables = await self.storage.tournaments.tables(held.id)
        history = records(tables)
        ranked = [s.player for s in pairing.standings([p.user_id for p in players], history, held.seed)]
        left = set(still_in(held, players, tables))
        active = [player for player in ranked if player in left]
        number = held.round + 1
        if held.format == pairing.KNOCKOUT:
            seating = pairing.knockout_round(active, held.seats, held.rounds - held.round)
        else:
            seating = pairing.swiss_round(active, held.seats, pairing.met(history), pairing.byes_had(history))
        held = await self._write(
            self.storage.tournaments.seat_round(held, number, seating.tables, seating.byes)
        )
        log.info("tournament round seated", extra={"tournament_id": held.id, "round": number})
        return await self._deal_seated(held)

    async def _deal_seated(self, held: Tournament) -> Tournament:
        names = {p.user_id: p.name for p in await self.storage.tournaments.players(held.id)}
        for row in await self.storage.tournaments.tables(held.id):
            if row.round == held.round and row.status == SEATED:
                try:
                    await self._deal(held, row, names)
                except (Refused, StorageError) as error:  # dealt by the next resume or restart
                    log.warning(
                        "tournament table not dealt", extra={"tournament_id": held.id, "error": repr(error)}
                    )
        return held

    async def _deal(self, held: Tournament, row: TournamentTable, names: dict[int, str]) -> None:
        game = BY_KIND[held.kind]
        if row.channel_id is None:
            opened = await self.tournament_desk.hall.open_room(
                held, row.round, row.table_no, list(row.players)
            )
            row = await self.storage.tournaments.table_room(row, opened)
        room = row.channel_id
        assert room is not None
        existing = await self.storage.games.active_in_channel(room)
        if existing is not None:  # dealt before a restart, not yet linked
            await self.storage.tournaments.table_playing(row, room, existing)
            return
        seats = [Seat(i, names.get(user, str(user)), user_id=user) for i, user in enumerate(row.players)]
        if held.computers:
            while len(seats) < held.seats:
                number = len(seats) - len(row.players) + 1
                seats.append(
                    Seat(len(seats), computer_name(number, COMPUTER_LEVEL, None), ai_level=COMPUTER_LEVEL)
                )
        settings = self.settings_of(held.guild_id)
        with_computers = len(seats) > len(row.players)
        rated = held.rated and (not with_computers or settings.rate_computers)
        turn_limit = held.turn_limit
        if turn_limit is None:
            turn_limit = DEFAULT_TURN_LIMIT if settings.turn_limit is None else settings.turn_limit
        async with self.lock(room):
            try:
                stored = await self.rules.create_game(
                    guild_id=held.guild_id, channel_id=room, kind=held.kind, seats=seats, seed=self._seed(),
                    options=game.engine.Options.from_dict({}).to_dict(), host_id=held.organiser_id,
                    meta={"turn_limit": turn_limit, "tournament_id": held.id, THREAD_PARENT: held.channel_id},
                    rated=rated,
                )  # fmt: skip
            except ChannelBusy:
                raise Refused("table.error.channel_busy") from None
            table = self._cache(stored)
            table.recent.append((-1, [game.opening_event(stored.state)]))
            await self.storage.tournaments.table_playing(row, room, stored.id)
            await self._sync_timer(table)
            self._arm(table)
        log.info(
            "tournament table dealt",
            extra={"tournament_id": held.id, "game_id": stored.id, "round": row.round},
        )
        self._notify(table)

    async def _go_on(self, held: Tournament) -> Tournament:
        """After a table's end (or a resume): deal what is undealt, and when the round is over, seat the
        next one or finish (the lock held; nothing while paused)."""
        if held.status != RUNNING:
            return held
        held = await self._deal_seated(held)
        tables = [t for t in await self.storage.tournaments.tables(held.id) if t.round == held.round]
        if any(t.status not in (ENDED, BYE) for t in tables):
            return held
        players = await self.storage.tournaments.players(held.id)
        every = await self.storage.tournaments.tables(held.id)
        left = still_in(held, players, every)
        if held.round >= held.rounds or len(left) <= 1:
            lines = pairing.standings([p.user_id for p in players], records(every), held.seed)
            # The best of the standings still in it (a dropped player wins nothing; a knockout's last
            # player left is the only one still in).
            winner = next((line.player for line in lines if line.player in left), None)
            held = await self._write(self.storage.tournaments.update(held, status=FINISHED, winner_id=winner))
            log.info("tournament finished", extra={"tournament_id": held.id, "winner": winner})
            return held
        return await self._seat_next(held)

    # ------------------------------------------------------------------ start-up and the clock

    def _start_at(self, held: Tournament) -> None:
        assert held.starts_at is not None
        self._schedule(("tournament", held.id), held.starts_at)

    async def _tournament_due(self, tournament_id: int) -> None:
        """The sweeper: a tournament's start time came."""
        with contextlib.suppress(Refused):
            await self.tournament_start(tournament_id, None)

    async def resume_tournaments(self) -> None:
        """At start: schedule the starts, record the tables whose game ended meanwhile, go on."""
        for held in await self.storage.tournaments.open():
            if not self.owns(held.guild_id):
                continue
            if held.status == SIGNUP:
                if held.starts_at is not None:
                    self._start_at(held)
                continue
            async with self.tournament_desk.lock(held.id):
                for row in await self.storage.tournaments.tables(held.id):
                    if row.round == held.round and row.status == PLAYING and row.game_id is not None:
                        status, _ = await self.storage.games.status_of(row.game_id)
                        if status != "active":
                            await self._record(row)
                with contextlib.suppress(Refused):
                    held = await self._go_on(held)
            self._hail(held.id)  # its messages drawn again: what changed while the bot was away

    async def _write(self, change: Awaitable[Tournament]) -> Tournament:
        """One write of a tournament's row; a race lost, or a database away, is a refusal."""
        try:
            return await change
        except TournamentChanged:
            raise Refused("tournament.error.changed") from None
        except StorageError:
            raise Refused("table.error.unavailable") from None
