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
  computers), computer players filling the table up to ``seats`` only with ``computers:on`` (then
  nobody has a bye: the player it would go to plays the computers). Its first turn has
  :data:`FIRST_TURN_GRACE_S` more than the limit, then each table plays as today: its timers cover and
  replace absent players. Once dealt, the hall is given it to tell its players (:class:`SeatedTable`:
  a mention in its room, a direct message to those whose ``/skybo notify`` is on, in their language);
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
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Protocol, Unpack

from bot.games.places import places
from bot.games.registry import BY_KIND
from bot.render.names import computer_name
from bot.service.core import ServiceCore, ServiceOptions
from bot.service.events import TournamentCause
from bot.service.events import TournamentChanged as TournamentStep  # storage's TournamentChanged: a race lost
from bot.service.tournament_view import TournamentView, ending, knocked_out, records, still_in
from bot.service.types import (
    DEFAULT_TURN_LIMIT,
    ENDED_BY_HAND,
    FIRST_TURN_GRACE,
    THREAD_PARENT,
    TURN_LIMITS,
    Refused,
    Table,
    log,
)
from bot.storage import ChannelBusy, Seat, Storage, StorageError
from bot.storage.prefs import DEFAULT_PREFS
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
    TournamentTable,
)
from bot.tournament import pairing

COMPUTER_LEVEL = "normal"
# A tournament table's first turn has this much more than the turn limit (its players must first find
# their thread: the notices say where); every later turn has the limit alone.
FIRST_TURN_GRACE_S = 120


@dataclass(frozen=True)
class SeatedTable:
    """A table just dealt, for the hall to tell its players (:meth:`TournamentHall.table_seated`):
    where it plays, when its first turn ends, and who gets a direct message (those whose
    ``/skybo notify`` is on), each with their language (None: the server's)."""

    tournament: Tournament
    round_no: int
    table_no: int
    room: int  # the table's channel (its thread)
    game_id: int
    players: tuple[int, ...]  # the people seated (computers are not told)
    first_turn_due_ms: int | None  # None: no turn limit
    letters: tuple[tuple[int, str | None], ...]  # (user id, language) of those to tell in private


class TournamentHall(Protocol):
    """What the service asks of the bot for tournaments (the bot's is in ``bot/ui/tournaments.py``)."""

    async def open_room(
        self, tournament: Tournament, round_no: int, table_no: int, players: list[int]
    ) -> int:
        """A room for a table's ``players`` (a thread of the tournament's channel): its channel id."""

    def tournament_changed(self, tournament_id: int) -> None:
        """Something players see changed (sign-ups, standings, the end): redraw its messages."""

    def table_seated(self, seated: SeatedTable) -> None:
        """A table was dealt: tell its players where and by when (in its room, and in private)."""


class QuietHall:
    """A service nobody watches: its rooms are numbered from its channel (tests, tools)."""

    async def open_room(
        self, tournament: Tournament, round_no: int, table_no: int, players: list[int]
    ) -> int:
        return tournament.channel_id * 1000 + round_no * 100 + table_no

    def tournament_changed(self, tournament_id: int) -> None:
        pass

    def table_seated(self, seated: SeatedTable) -> None:
        pass


@dataclass
class Desk:
    """The tournaments' own state: one lock per tournament (its changes go one at a time, a table's end
    recorded by :mod:`~bot.service.tournament_ends` too), and the hall."""

    hall: TournamentHall = field(default_factory=QuietHall)
    locks: dict[int, asyncio.Lock] = field(default_factory=dict)

    def lock(self, tournament_id: int) -> asyncio.Lock:
        return self.locks.setdefault(tournament_id, asyncio.Lock())


class TournamentPart(ServiceCore):
    """Create, join, start, seat, go on after a table's end, drop, pause, resume, cancel a tournament."""

    def __init__(self, storage: Storage, **options: Unpack[ServiceOptions]) -> None:
        super().__init__(storage, **options)
        self.tournament_desk = Desk()
        self.sweeper.handle("tournament", self._tournament_due)
        self.bus.subscribe(TournamentStep, self._tell_hall, name="tournament hall")

    def _tournament_lock(self, tournament_id: int) -> asyncio.Lock:
        return self.tournament_desk.lock(tournament_id)

    def set_tournament_hall(self, hall: TournamentHall) -> None:
        self.tournament_desk.hall = hall

    def _hail(self, tournament_id: int, cause: TournamentCause) -> None:
        """A tournament's change is stored: ``TournamentChanged`` on the service's bus."""
        self.bus.publish(TournamentStep(tournament_id=tournament_id, cause=cause))

    def _tell_hall(self, event: TournamentStep) -> None:
        """TEMPORARY (issue 48: the hall subscribes itself in piece C2): the hall hears the bus; what it
        raises is logged, never the service's failure."""
        try:
            self.tournament_desk.hall.tournament_changed(event.tournament_id)
        except Exception:
            log.exception("tournament hall failed", extra={"tournament_id": event.tournament_id})

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

    async def tournament_shown_in(self, channel_id: int) -> Tournament:
        """The tournament whose standings a channel shows: the one not over of this channel or of one
        of its tables' threads, else the channel's latest (over); Refused if none."""
        try:
            return await self.tournament_in_channel(channel_id)
        except Refused:
            latest = await self.storage.tournaments.latest_in(channel_id)
            if latest is None:
                raise
            return latest

    async def tournament_view(self, tournament_id: int) -> TournamentView:
        held = await self.tournament(tournament_id)
        players = await self.storage.tournaments.players(held.id)
        tables = await self.storage.tournaments.tables(held.id)
        lines = pairing.standings([p.user_id for p in players], records(tables), held.seed)
        ended = {t.game_id for t in tables if t.status == ENDED}
        endings = {
            game: ending(status, note)
            for game, (status, note) in (await self.storage.tournaments.game_endings(held.id)).items()
            if game in ended
        }
        beaten = knocked_out(held, players, tables)
        left = [p.user_id for p in players if not p.dropped and p.user_id not in beaten]
        return TournamentView(held, players, tables, lines, left, endings, beaten)

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
        await self.settings_book.for_new_table(guild_id, channel_id)  # the server's list of channels
        if any(held.channel_id == channel_id for held in await self.storage.tournaments.open()):
            raise Refused("tournament.error.channel_busy")
        made = await self.storage.tournaments.create(
            guild_id=guild_id, channel_id=channel_id, organiser_id=organiser_id, kind=kind, format=form,
            seats=seats, rounds=rounds, turn_limit=turn_limit, starts_at=starts_at, seed=self.seed_source(),
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
        self._hail(held.id, "signup")
        return held

    async def tournament_leave(self, tournament_id: int, user_id: int) -> Tournament:
        async with self.tournament_desk.lock(tournament_id):
            held = await self.tournament(tournament_id)
            if held.status != SIGNUP:
                raise Refused("tournament.error.not_signing_up")
            if not any(p.user_id == user_id for p in await self.storage.tournaments.players(held.id)):
                raise Refused("tournament.error.not_joined")
            held = await self._write(self.storage.tournaments.leave(held, user_id))
        self._hail(held.id, "signup")
        return held

    async def set_tournament_messages(self, tournament: Tournament, **message_ids: int) -> Tournament:
        """Remember the sign-up or standings message (``signup_message_id=``, ``standings_message_id=``).

        A sign-up message is posted (the command's answer) before its id is known here: a Join clicked in
        between is stored, but its redraw had no message to edit. So once the sign-up's id is stored the
        sign-up is drawn again as it stands (one edit per tournament)."""
        async with self.tournament_desk.lock(tournament.id):
            held = await self.tournament(tournament.id)
            held = await self._write(self.storage.tournaments.update(held, **message_ids))
        if "signup_message_id" in message_ids:
            self._hail(held.id, "signup")
        return held

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
        self._hail(held.id, "started")
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
        self._hail(held.id, "dropped")
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
                await self.writer.replace_seat(table, seat, "left")

    async def tournament_pause(self, tournament_id: int, by: int, *, can_manage: bool = False) -> Tournament:
        async with self.tournament_desk.lock(tournament_id):
            held = await self.tournament(tournament_id)
            self._organiser(held, by, can_manage)
            if held.status != RUNNING:
                raise Refused("tournament.error.not_running")
            held = await self._write(self.storage.tournaments.update(held, status=PAUSED))
        self._hail(held.id, "paused")
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
        self._hail(held.id, "resumed")
        return held

    async def tournament_cancel(self, tournament_id: int, by: int, *, can_manage: bool = False) -> Tournament:
        async with self.tournament_desk.lock(tournament_id):
            held = await self.tournament(tournament_id)
            self._organiser(held, by, can_manage)
            if held.status not in OPEN_STATUSES:
                raise Refused("tournament.error.over")
            held = await self._write(self.storage.tournaments.update(held, status=CANCELLED))
        self.sweeper.forget(("tournament", held.id))
        log.info("tournament cancelled", extra={"tournament_id": held.id, "by": by})
        self._hail(held.id, "cancelled")
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
            alone = pairing.byes_had(history) + pairing.alone_had(history)
            seating = pairing.swiss_round(active, held.seats, pairing.met(history), alone)
        if held.computers:  # computers fill every seat: a player left alone plays them, no bye
            seating = pairing.Seating(seating.tables + tuple((bye,) for bye in seating.byes))
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
        settings = self.settings_book.of(held.guild_id)
        with_computers = len(seats) > len(row.players)
        rated = held.rated and (not with_computers or settings.rate_computers)
        turn_limit = held.turn_limit
        if turn_limit is None:
            turn_limit = DEFAULT_TURN_LIMIT if settings.turn_limit is None else settings.turn_limit
        async with self.lock(room):
            try:
                stored = await self.writer.create_game(
                    guild_id=held.guild_id, channel_id=room, kind=held.kind, seats=seats,
                    options=game.engine.Options.from_dict({}).to_dict(), host_id=held.organiser_id,
                    meta={
                        "turn_limit": turn_limit, "tournament_id": held.id, THREAD_PARENT: held.channel_id,
                        FIRST_TURN_GRACE: FIRST_TURN_GRACE_S,
                    },
                    rated=rated,
                )  # fmt: skip
            except ChannelBusy:
                raise Refused("table.error.channel_busy") from None
            table = self.writer.cache(stored)
            await self.storage.tournaments.table_playing(row, room, stored.id)
            await self.writer.deal(table)  # TableDealt (its tournament's id in its meta)
        log.info(
            "tournament table dealt",
            extra={"tournament_id": held.id, "game_id": stored.id, "round": row.round},
        )
        await self._tell_seated(held, row, table)

    async def _tell_seated(self, held: Tournament, row: TournamentTable, table: Table) -> None:
        """Give the hall a table just dealt to tell its players: in its room, and by direct message
        to those whose ``/skybo notify`` is on, in their language (a database that does not answer:
        the defaults, everyone told in the server's language)."""
        players = tuple(row.players)
        try:
            prefs = await self.user_prefs.of(players)
        except StorageError:
            prefs = {}
        timer = table.timer()
        due = int(timer["due"]) if timer is not None and timer.get("what") == "turn" else None
        chosen = [(user, prefs.get(user, DEFAULT_PREFS)) for user in players]
        seated = SeatedTable(
            held, row.round, row.table_no, table.channel_id, table.id, players, due,
            tuple((user, choice.locale) for user, choice in chosen if choice.notify),
        )  # fmt: skip
        try:
            self.tournament_desk.hall.table_seated(seated)
        except Exception:
            log.exception("tournament hall failed", extra={"tournament_id": held.id})

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
        self.sweeper.schedule(("tournament", held.id), held.starts_at)

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
            self._hail(held.id, "restarted")  # its messages drawn again: what changed while the bot was away

    async def _record(self, row: TournamentTable) -> None:
        """Store how a table's game ended: each seat's place (a computer's id is minus its seat).

        A game played to its end: by its results. A game ended by hand (``/<game> end``, the End vote;
        unrated, without results): by its standing then (``Game.standing``: the order the game would
        give if scored then, ties shared, nothing hidden deciding), its ratings unchanged. A game whose
        place vanished (note ``gone: ...``) was stopped by nobody at the table: a draw, every seat first."""
        assert row.game_id is not None
        results = sorted(await self.storage.results.for_game(row.game_id), key=lambda r: r.seat)
        stored = await self.ledger.get_game(row.game_id)
        ids = [seat.user_id if seat.user_id is not None else -seat.seat for seat in stored.seats]
        game = BY_KIND[stored.kind]
        ranks = [r.rank for r in results]
        if not results and (stored.note or "").startswith(ENDED_BY_HAND):
            ranks = game.standing(stored.state)
        if len(ranks) != len(ids):  # its channel gone: a draw
            ranks = [1] * len(ids)
        placed = places(ranks, game.sides(stored.options, len(ids)))
        await self.storage.tournaments.table_ended(row, [(ids[s], placed[s].place) for s in range(len(ids))])

    async def _write(self, change: Awaitable[Tournament]) -> Tournament:
        """One write of a tournament's row; a race lost, or a database away, is a refusal."""
        try:
            return await change
        except TournamentChanged:
            raise Refused("tournament.error.changed") from None
        except StorageError:
            raise Refused("table.error.unavailable") from None
