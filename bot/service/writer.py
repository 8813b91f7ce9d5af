"""The one writer of tables: every write to a game goes through it, and each one stored publishes one event.

THE RULE (docs/architecture.md, "One commit, one event"): a method of :class:`TableWriter` stores one
change of a table (an action's commit, a meta write, a seat given to a computer or taken back, a deal,
an end, a reload) and, once it is stored, publishes exactly one event on the service's bus, under the
channel lock its caller holds: :class:`~bot.service.events.TableChanged` (or a subclass: ``SeatReplaced``,
``TableEnded``, ``TableResumed``), :class:`~bot.service.events.TableDealt`,
:class:`~bot.service.events.TurnReminder`. What follows a commit (the timer indexed, the computer
players armed, a tournament's table recorded, the surfaces told) is whatever listens to that event. A
write refused publishes nothing, except :class:`~bot.service.events.TableWaiting` when it leaves the table
waiting for its database (or finds it waiting): the reloader hears it. A write that is a surface's or a
timer's own bookkeeping (``write_meta`` without a cause: message ids, a letter sent, a timer marked
fired or reminded before what it calls for) publishes nothing of its own: the change it prepares
publishes.

The event's :class:`~bot.service.snapshots.TableSnapshot` is made after everything the change wrote
(the commit, the recent events, the marks, the meta, the end), never while an action is being applied:
:attr:`~bot.service.types.Table.committing` is set here around the engine's apply and storage's commit
(and its read-back), so a snapshot asked meanwhile answers from its committed JSON.

A finished game leaves :attr:`tables` before its ``TableEnded`` is published.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from bot.engine.errors import GameError
from bot.service.bus import EventBus
from bot.service.events import (
    Cause,
    EndHow,
    ReplaceReason,
    SeatReplaced,
    TableChanged,
    TableDealt,
    TableEnded,
    TableEvent,
    TableResumed,
    TableWaiting,
    TurnReminder,
)
from bot.service.ledger import GameLedger
from bot.service.snapshots import TableSnapshot
from bot.service.turn_clock import TurnClock
from bot.service.types import ENDED_BY_HAND, ROUND_OVER, Refused, ServiceObserver, Table, log, token_of
from bot.storage import GameNotFound, GameQuarantined, Storage, StorageError, StoredGame
from bot.storage.game_commit import RELOAD_WITHIN_S, SETTLE_PAUSES_S, SETTLE_WITHIN_S
from bot.storage.lobbies import Lobby

# A meta write that meets a transient fault (:meth:`TableWriter.write_meta`) is tried again after a
# first short pause (the backend reconnects meanwhile), then as a move's read-back is
# (bot/storage/game_commit.py), while within a move's settling time of its first try.
META_RETRY_PAUSES_S = (0.2, *SETTLE_PAUSES_S)
META_RETRY_WITHIN_S = SETTLE_WITHIN_S
# How long one reload of a table waiting for the database may take before it counts as failed.
TABLE_RELOAD_WITHIN_S = 2.0


class TableWriter:
    """Writes tables and publishes what each write changed (see the module doc). Made by the service's
    core, which hands it the tables it caches, storage and the ledger over it, the bus, the turn clock,
    the observer and the seed source."""

    def __init__(
        self,
        *,
        storage: Storage,
        ledger: GameLedger,
        tables: dict[int, Table],
        bus: EventBus,
        turn_clock: TurnClock,
        observer: ServiceObserver | None,
        seed: Callable[[], int],
    ) -> None:
        self._storage = storage
        self._ledger = ledger
        self._tables = tables
        self._bus = bus
        self._turn_clock = turn_clock
        self._observer = observer
        self._seed = seed
        self._told: Table | None = None  # the table whose event is being published (table_of)

    # ------------------------------------------------------------------ the cache and the publish

    def cache(self, stored: StoredGame) -> Table:
        """Hold a stored game as a live table (loaded, resumed or just dealt)."""
        table = Table(stored, [stored.version] * len(stored.seats))
        self._tables[stored.id] = table
        return table

    def table_of(self, event: TableEvent) -> Table | None:
        """The live table an event is about: while it is published, the one it was made from (a
        finished game included, which has left the tables); else the table held under its id.

        Temporary (issue 48): for the listeners that still keep state on the live table (the computer
        players' task, the timers' letters) and the channel's surfaces (:mod:`bot.ui.presenter`), which
        still draw from the live table; a new surface reads the event's snapshot instead."""
        told = self._told
        if told is not None and told.id == event.table_id:
            return told
        return self._tables.get(event.table_id)

    def _publish(self, table: Table, event: TableEvent) -> None:
        outer, self._told = self._told, table
        try:
            self._bus.publish(event)
        finally:
            self._told = outer

    def _waiting(self, table: Table) -> None:
        """A write found the table waiting for its database, or left it so: the reloader hears it."""
        self._publish(table, TableWaiting(snapshot=TableSnapshot.of(table)))

    def resumed(self, table: Table, *, owed_result: bool = False) -> None:
        """A table loaded at start (or a game ended in a thread whose result is owed): listeners start
        from what is stored."""
        event = TableResumed(snapshot=TableSnapshot.of(table), cause="resumed", owed_result=owed_result)
        self._publish(table, event)

    def _changed(self, table: Table, cause: Cause, **change: Any) -> None:
        """The table's change is stored: ``TableChanged``, or ``TableEnded`` for a game it finished
        (the game then leaves the tables first)."""
        if table.finished:
            self._drop(table)
            how = _end_how(table.stored.status)
            self._publish(table, TableEnded(snapshot=TableSnapshot.of(table), cause=cause, how=how, **change))
        else:
            self._publish(table, TableChanged(snapshot=TableSnapshot.of(table), cause=cause, **change))

    def _drop(self, table: Table) -> None:
        """A game ended (by the rules, by hand, or its data gone at a reload): it leaves the tables."""
        self._tables.pop(table.id, None)
        finished = table.stored.finished
        # Rated: finished by the rules with rating changes written. A game ended by hand or cancelled
        # (no results), or finished unrated (a hint taken), is not, whatever it was dealt as.
        ratings = len(finished.rating_changes) if finished and table.stored.status == "finished" else 0
        log.info("game finished", extra={"game_id": table.id, "rated": ratings > 0, "ratings": ratings})

    # ------------------------------------------------------------------ actions

    async def commit(
        self,
        table: Table,
        seat: int,
        action: Any,
        *,
        cause: Cause,
        by_player: bool = False,
        key: int | None = None,
    ) -> list[dict[str, Any]]:
        """Apply and commit one action (the channel lock is held), then publish ``TableChanged``
        (``TableEnded`` if it ended the game); GameError leaves everything as it was.

        ``by_player``: the seat's human made this move (not a computer, not a timer), which clears
        their missed-turn count. The game's timer follows the new state in the same transaction.
        ``key``: the idempotency key of the action (the click's interaction id; None for a computer
        player or a timer): a commit retried after its connection dropped is never applied twice.

        A commit that fails for good is refused: "could not be saved; nothing changed" when storage
        could read the game again (the cache is the log's), "the table is reconnecting" when it could
        not (the table then serves its last committed state and waits for the database:
        :mod:`bot.service.reloads`), as a table already waiting refuses every action.
        """
        dicts = await self._apply(table, seat, action, by_player=by_player, key=key)
        self._changed(table, cause, seat=seat, events=tuple(dicts), key=key)
        return dicts

    async def _apply(
        self, table: Table, seat: int, action: Any, *, by_player: bool = False, key: int | None = None
    ) -> list[dict[str, Any]]:
        """:meth:`commit` without its event: the action stored, the table's marks and recent events."""
        if table.needs_reload:
            self._waiting(table)
            raise Refused("table.error.reconnecting")
        stored = table.stored
        spec = table.game
        before = spec.stale_key(table.state)
        turn_before = token_of(table.state)
        clock = self._turn_clock
        observer = self._observer

        def meta_after(game: Any) -> dict[str, Any] | None:
            return clock.meta_after(table, game, seat if by_player else None, token_of(game) != turn_before)

        def on_retry(outcome: str) -> None:
            if observer is not None:
                observer.commit_retried(stored.kind, outcome)

        began = time.perf_counter()
        table.committing = True  # the state runs ahead of its version until this is over
        try:
            events = await self._ledger.apply_action(
                stored, seat, action, meta_after, key=key, on_retry=on_retry
            )
        except StorageError:
            # (Refused raised here keeps the storage error as its context: bot.service.computers reads it.)
            table.committing = False
            if observer is not None:
                observer.commit_failed(stored.kind)
            if stored.needs_reload:
                # Neither committed nor read again: the last committed state stays, moves wait.
                log.warning(
                    "commit failed, table waiting for the database",
                    extra={"game_id": table.id, "seat": seat},
                    exc_info=True,
                )
                self._waiting(table)
                raise Refused("table.error.reconnecting") from None
            # storage reloaded ``stored`` from the log: every open panel is now suspect
            table.marks = [stored.version] * len(stored.seats)
            log.warning("commit failed", extra={"game_id": table.id, "seat": seat}, exc_info=True)
            raise Refused("table.error.unavailable") from None
        finally:
            table.committing = False
        if observer is not None:
            observer.committed(stored.kind, time.perf_counter() - began)
        game = table.state
        table.resumed = False
        version = stored.version
        if spec.stale_key(game) != before:
            table.marks = [version] * len(stored.seats)
        else:
            table.marks[seat] = version
        if by_player:
            table.played[seat] = version
        dicts = [e.to_dict() for e in events]
        table.recent.append((seat, dicts))
        log.debug(  # one per move: DEBUG (an operator's INFO is one line per table event, bot/logs.py)
            "move committed",
            extra={
                "game_id": table.id,
                "kind": stored.kind,
                "seat": seat,
                "action": action.type,
                "version": version,
            },
        )
        return dicts

    def note(self, table: Table, seat: int, events: list[dict[str, Any]]) -> None:
        """A line of the table's recent events that no write of its own stores (a turn timed out): the
        next event's snapshot carries it."""
        table.recent.append((seat, events))

    # ------------------------------------------------------------------ meta

    async def write_meta(
        self, table: Table, meta: dict[str, Any], *, cause: Cause | None = None, seat: int | None = None
    ) -> None:
        """Store the table's meta (the channel lock held), then publish ``TableChanged(cause)``; with no
        ``cause``, nothing: a surface's or a timer's bookkeeping (see the module doc).

        The one write of those, retried like a move's commit (docs/faults.md, "Database faults"): a
        transient fault (a blink) is tried again after each of :data:`META_RETRY_PAUSES_S` while within
        :data:`META_RETRY_WITHIN_S`; the write replaces the whole meta, so a try whose answer was lost
        and the next one write the same thing. Still not written, the meta is read back: found as
        written, done; as before, Refused "could not be saved" (nothing changed); unreadable, the live
        table waits for the database (``needs_reload``: its reload reads the meta as stored,
        ``TableWaiting``) and Refused "reconnecting"."""
        if table.needs_reload:  # its stored meta may have moved with a commit that landed after all
            self._waiting(table)
            raise Refused("table.error.reconnecting")
        await self._store_meta(table, meta)
        if cause is not None:
            self._publish(table, TableChanged(snapshot=TableSnapshot.of(table), cause=cause, seat=seat))

    async def _store_meta(self, table: Table, meta: dict[str, Any]) -> None:
        began = time.monotonic()
        pauses = iter(META_RETRY_PAUSES_S)
        tries = 0
        while True:
            try:
                await self._storage.games.set_meta(table.id, meta)
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
        """The meta's write failed for good (:meth:`write_meta`): what does the database hold?"""
        try:
            fresh = await asyncio.wait_for(self._ledger.get_game(table.id), RELOAD_WITHIN_S)
        except (StorageError, TimeoutError):
            if not table.finished:
                table.stored.needs_reload = True  # the last try may have landed: read it all again
                self._waiting(table)
            log.warning("meta not saved, table waiting for the database", extra={"game_id": table.id})
            raise Refused("table.error.reconnecting") from None
        table.stored.meta = fresh.meta
        if fresh.meta == meta:
            log.info("meta saved (found by its read-back)", extra={"game_id": table.id})
            return
        log.warning("meta not saved", extra={"game_id": table.id})
        raise Refused("table.error.unavailable")

    async def sync_timer(self, table: Table, *, cause: Cause | None = None, seat: int | None = None) -> None:
        """Make the stored timer match the state (a seat changed hands, a deal, a covered turn, old
        data), a database away leaving it as it was; then, with a ``cause``, ``TableChanged``."""
        meta = self._turn_clock.synced_meta(table)
        if meta is not None:
            with contextlib.suppress(Refused):
                await self.write_meta(table, meta)
        if cause is not None:
            self._publish(table, TableChanged(snapshot=TableSnapshot.of(table), cause=cause, seat=seat))

    async def remind(self, table: Table, timer: dict[str, Any], seats: list[int], seconds_left: int) -> None:
        """Half of the turn's time is gone: "reminded" stored in its timer, then ``TurnReminder`` for
        the human ``seats`` the game waits for (none: nothing to publish)."""
        await self.write_meta(table, {**table.stored.meta, "timer": {**timer, "reminded": True}})
        if seats:
            reminder = TurnReminder(
                snapshot=TableSnapshot.of(table), seats=tuple(seats), seconds_left=seconds_left
            )
            self._publish(table, reminder)

    # ------------------------------------------------------------------ seats

    async def replace_seat(self, table: Table, seat: int, reason: ReplaceReason = "left") -> None:
        """A computer player takes ``seat``: ``SeatReplaced``. ``reason`` is what the table says:
        ``left`` (Leave, or a tournament's drop), ``kicked`` (the host's kick: the table says the host
        gave the seat, never that the player left) or ``idle`` (missed turns; only that seat may be
        taken back). A round over that waited only for this seat's vote is dealt now, in the same
        event (its snapshot after the deal)."""
        meta = dict(table.stored.meta)
        replaced = dict(meta.get("replaced") or {})
        replaced[str(seat)] = "normal"
        meta["replaced"] = replaced
        # Only a seat taken for missed turns may be taken back; Leave and a kick are for good.
        idle = {s for s in meta.get("idle") or [] if isinstance(s, int)}
        meta["idle"] = sorted(idle | {seat} if reason == "idle" else idle - {seat})
        if seat in table.votes:
            meta["votes"] = sorted(table.votes - {seat})
        await self.write_meta(table, meta)
        table.recent.append((seat, [{"type": "seat_replaced", "seat": seat, "reason": reason}]))
        log.info("seat taken by a computer", extra={"game_id": table.id, "seat": seat, "reason": reason})
        dealt: tuple[dict[str, Any], ...] | None = None  # the next round's events, if it was dealt
        if table.state.phase == ROUND_OVER and not table.round_waiting():
            with contextlib.suppress(Refused, GameError):
                dealt = tuple(await self._apply(table, seat, table.game.engine.NextRound()))
        if dealt is None:
            await self.sync_timer(table)
            dealt = ()
        if table.finished:
            self._changed(table, "seat_replaced", seat=seat, events=dealt)
            return
        event = SeatReplaced(
            snapshot=TableSnapshot.of(table), cause="seat_replaced", seat=seat, events=dealt, reason=reason
        )
        self._publish(table, event)

    async def take_back_seat(self, table: Table, seat: int) -> None:
        """The human of an ``idle`` seat takes it back: no longer replaced, their missed count from
        zero, the turn's timer fresh; ``TableChanged(seat_back)``."""
        meta = dict(table.stored.meta)
        meta["replaced"] = {k: v for k, v in (meta.get("replaced") or {}).items() if k != str(seat)}
        meta["missed"] = {k: v for k, v in (meta.get("missed") or {}).items() if k != str(seat)}
        meta["idle"] = sorted(table.idle() - {seat})
        await self.write_meta(table, meta)
        table.recent.append((seat, [{"type": "seat_back", "seat": seat}]))
        log.info("seat taken back", extra={"game_id": table.id, "seat": seat})
        await self.sync_timer(table, cause="seat_back", seat=seat)

    # ------------------------------------------------------------------ deal and end

    async def create_game(self, **fields: Any) -> StoredGame:
        """Deal and store a new game (``GameLedger.create_game``'s fields, the seed from the service's
        source). Its caller holds it (:meth:`cache`) and makes it known (:meth:`deal`)."""
        return await self._ledger.create_game(seed=self._seed(), **fields)

    async def deal(self, table: Table, *, started: Lobby | None = None) -> None:
        """A game just dealt and held (:meth:`create_game`, or found dealt): its opening among the recent
        events, its first timer stored, then ``TableDealt`` (its lobby's or tournament's id from its
        meta). ``started``: the lobby whose Start dealt it (closed first, by its caller; the game may
        be in a thread of its own: ``moved``); None: a tournament's, or a game found dealt whose
        Start's answer was lost."""
        table.recent.append((-1, [table.game.opening_event(table.state)]))
        await self.sync_timer(table)
        meta = table.stored.meta
        lobby_id, tournament_id = meta.get("lobby_id"), meta.get("tournament_id")
        event = TableDealt(
            snapshot=TableSnapshot.of(table),
            lobby_id=lobby_id if isinstance(lobby_id, int) else None,
            lobby_channel_id=started.channel_id if started is not None else None,
            lobby_message_id=started.message_id if started is not None else None,
            moved=started is not None and table.channel_id != started.channel_id,
            tournament_id=tournament_id if isinstance(tournament_id, int) else None,
        )
        self._publish(table, event)

    async def end(self, table: Table, by: int) -> None:
        """``/<game> end`` (or End's Yes): the game cancelled, unrated, noted as ended by ``by``;
        ``TableEnded(ended_by_hand)``. Refused (nothing changed) if the database does not take it."""
        try:
            await self._storage.games.cancel_game(table.id, note=f"{ENDED_BY_HAND}{by}")
        except StorageError:
            raise Refused("table.error.unavailable") from None
        table.stored.status = "cancelled"
        table.ended_by = by
        self._drop(table)
        log.info("game ended by hand", extra={"game_id": table.id, "by": by})
        ended = TableEnded(snapshot=TableSnapshot.of(table), cause="ended", how="ended_by_hand", by=by)
        self._publish(table, ended)

    async def cancel_gone(self, table: Table, why: str) -> bool:
        """The game's place is gone (its channel, its server): cancelled, unrated, noted ``gone: why``;
        ``TableEnded(gone)``. False (nothing changed) if the database did not take it."""
        try:
            await self._storage.games.cancel_game(table.id, note=f"gone: {why}")
        except StorageError:
            log.warning("could not cancel a vanished game", extra={"game_id": table.id})
            return False
        table.stored.status = "cancelled"
        table.gone = True
        self._tables.pop(table.id, None)
        log.info("game cancelled: its place is gone", extra={"game_id": table.id, "why": why})
        self._publish(table, TableEnded(snapshot=TableSnapshot.of(table), cause="ended", how="gone"))
        return True

    # ------------------------------------------------------------------ reloads

    async def ready_for_move(self, table: Table) -> None:
        """Before a move (the channel lock held): a table waiting for the database is reloaded first,
        or the move is refused (``table.error.reconnecting``)."""
        if table.needs_reload and not await self.reload(table):
            self._waiting(table)
            raise Refused("table.error.reconnecting")

    async def reload(self, table: Table) -> bool:
        """Read a waiting table's game again (the channel lock held); True once it is the log's again:
        ``TableChanged(reloaded)``, or ``TableEnded`` (the commit that failed had landed and ended the
        game; or its data no longer gives a game: quarantined or cancelled)."""
        if table.message_unsaved:
            await self.store_message_id(table)  # else the reload would read the old id back
            if table.message_unsaved:
                return False
        try:
            await asyncio.wait_for(self._ledger.reload(table.stored), TABLE_RELOAD_WITHIN_S)
        except (GameQuarantined, GameNotFound) as error:
            # Its data no longer gives a game: nothing left to serve; the table ends here.
            log.warning(
                "table gone while reloading", extra={"game_id": table.id, "error": type(error).__name__}
            )
            table.stored.needs_reload = False
            table.stored.status = "quarantined" if isinstance(error, GameQuarantined) else "cancelled"
            self._changed(table, "ended")
            return True
        except (StorageError, TimeoutError) as error:
            if self._observer is not None:
                self._observer.table_reloaded("failed")
            log.info(
                "table still waiting for the database",
                extra={"game_id": table.id, "error": type(error).__name__},
            )
            return False
        if self._observer is not None:
            self._observer.table_reloaded("ok")
        table.marks = [table.version] * len(table.stored.seats)  # every open panel is suspect
        log.info("table reloaded", extra={"game_id": table.id, "version": table.version})
        self._changed(table, "reloaded")
        return True

    async def store_message_id(self, table: Table) -> None:
        """Store a table message's id kept in memory (``message_unsaved``: the database was away when
        it was posted). Bookkeeping: publishes nothing."""
        message_id = table.stored.message_id
        if message_id is None:
            table.message_unsaved = False
            return
        with contextlib.suppress(StorageError):
            await self._storage.games.set_message_id(table.id, message_id)
            table.message_unsaved = False
            log.info("table message id stored", extra={"game_id": table.id})


def _end_how(status: str) -> EndHow:
    """How a game whose stored status is no longer ``active`` ended, as a ``TableEnded`` says it."""
    if status == "quarantined":
        return "quarantined"
    if status == "cancelled":
        return "cancelled"
    return "finished"
