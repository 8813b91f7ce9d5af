"""TEMPORARY (issue 48, removed by piece D2): the old table listener (the presenter) hears the event bus.

Until the surfaces subscribe to the bus themselves, :class:`ListenerBridge` is the one subscriber that
turns each event back into the :class:`~bot.service.types.TableListener` call the parts used to make
by hand, so the presenter works unchanged. Each change is told exactly as often as before the bus:

=================================================  =============================================
event                                              listener call
=================================================  =============================================
``TableChanged`` (every cause), ``TableResumed``   ``table_changed(table)``
``SeatReplaced``                                   ``table_changed``, then ``seat_taken_over``
                                                   when ``reason`` is ``idle``
``TableEnded``                                     ``table_changed`` (``gone``: ``table_gone`` alone)
``TableDealt`` (a tournament's, or a game found    ``table_changed``
dealt: no ``lobby_channel_id``)
``TurnReminder``                                   ``remind(table, seats, seconds_left)``
``LobbyClosed`` ``expired`` / ``gone``             ``lobby_changed`` / ``lobby_gone``
``LobbyChanged`` ``hold_released``                 ``lobby_changed``
``SettingsChanged``                                ``lobby_changed`` for each open lobby
=================================================  =============================================

Told by hand by the ui until D2, so not here (telling them again would double them): the deal of a
lobby's Start (``TableDealt`` with its ``lobby_channel_id``: bot/ui/clicks.py calls ``lobby_moved`` and
``table_changed``), a lobby's join, leave, computer added or removed and cancel (``LobbyChanged``,
``LobbyClosed(cancelled)``: bot/ui/clicks.py and cogs/games.py call ``lobby_changed``), a lobby opened
(the ui posts it). ``TableWaiting`` was never told (a waiting table's message is not redrawn).
``TableEnded(ended_by_hand)`` is told here and by hand, as it was told twice before the bus.

The listener reads the live :class:`~bot.service.types.Table` (the presenter is not on snapshots yet):
the writer gives the one an event was made from (:meth:`~bot.service.writer.TableWriter.table_of`).
What the listener raises is logged as before (``table listener failed``), never the bus's failure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec

from bot.service.bus import EventBus
from bot.service.events import (
    Event,
    LobbyChanged,
    LobbyClosed,
    SeatReplaced,
    SettingsChanged,
    TableChanged,
    TableDealt,
    TableEnded,
    TableEvent,
    TurnReminder,
)
from bot.service.types import Table, TableListener, log

P = ParamSpec("P")


class ListenerBridge:
    """The old listener as one inline subscriber of the bus (see the module doc)."""

    def __init__(self, listener: TableListener, table_of: Callable[[TableEvent], Table | None]) -> None:
        self.listener = listener
        self._table_of = table_of

    def attach(self, bus: EventBus) -> None:
        bus.subscribe(Event, self.hear, name="listener bridge")

    def hear(self, event: Event) -> None:
        if isinstance(event, TableEvent):
            self._hear_table(event)
        elif isinstance(event, LobbyClosed):
            if event.how == "expired":
                self._tell(self.listener.lobby_changed, event.lobby_id)
            elif event.how == "gone":
                self._tell(self.listener.lobby_gone, event.lobby_id)
        elif isinstance(event, LobbyChanged):
            if event.cause == "hold_released":
                self._tell(self.listener.lobby_changed, event.lobby_id)
        elif isinstance(event, SettingsChanged):
            for lobby_id in event.open_lobbies:
                self._tell(self.listener.lobby_changed, lobby_id)

    def _hear_table(self, event: TableEvent) -> None:
        table = self._table_of(event)
        if table is None:
            return
        if isinstance(event, TableEnded) and event.how == "gone":
            self._tell(self.listener.table_gone, table)
        elif isinstance(event, TableChanged):
            self._tell(self.listener.table_changed, table)
            if isinstance(event, SeatReplaced) and event.reason == "idle" and event.seat is not None:
                self._tell(self.listener.seat_taken_over, table, event.seat)
        elif isinstance(event, TableDealt):
            if event.tournament_id is not None or event.lobby_channel_id is None:
                self._tell(self.listener.table_changed, table)
        elif isinstance(event, TurnReminder):
            self._tell(self.listener.remind, table, list(event.seats), event.seconds_left)

    def _tell(self, hear: Callable[P, object], *args: P.args, **kwargs: P.kwargs) -> None:
        """Call one of the listener's methods (checked by mypy like a direct call): whatever it raises
        is logged, never the service's failure (the state is committed already)."""
        try:
            hear(*args, **kwargs)
        except Exception:
            log.exception("table listener failed", extra={"what": getattr(hear, "__name__", repr(hear))})
