"""The channel's surfaces composed: table messages, followed panels and mentions, over shared slots.

:class:`Presenter` is one listener of the table service's events (:mod:`bot.service.events`), attached
to a service's bus once, where the bot builds the service (:meth:`Presenter.attach`); nothing else
tells it anything (tests/unit/test_one_way.py). It hands each event to the surfaces that show it, each
one idea in its own module, and none of them knowing the others but through what it is handed:

- :mod:`bot.ui.table_messages`: the public table and lobby messages, one coalesced edit each;
- :mod:`bot.ui.followed_panels`: the players' private panels, followed between their clicks;
- :mod:`bot.ui.mentions`: the turn's mention, the half-time reminder, the replaced player's word;
- over :mod:`bot.ui.slots` (the coalesced renders and sends, their flush and stop) and
  :mod:`bot.ui.posting` (what Discord's refusals in a channel mean).

A click's own answer is not the presenter's: :mod:`bot.ui.answers` owns it, and tells the followed
panels what it showed.

A table or lobby where the bot is not a member (``off_server``: a group DM, a server only a user
installed Skybo in) is not the presenter's either: no channel route may be used there, so it hears
nothing of them; their own listener, :mod:`bot.ui.token_tables`, shows them through interaction tokens.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.render.pictures import Pictures
from bot.service import Table
from bot.service.bus import EventBus
from bot.service.events import (
    Event,
    LobbyChanged,
    LobbyClosed,
    LobbyEvent,
    LobbyOpened,
    SeatReplaced,
    SettingsChanged,
    TableChanged,
    TableDealt,
    TableEnded,
    TableEvent,
    TurnReminder,
)
from bot.ui.followed_panels import FollowedPanels
from bot.ui.host import Host
from bot.ui.mentions import Mentions
from bot.ui.posting import Posting
from bot.ui.slots import Slots
from bot.ui.table_messages import TableMessages


class Presenter:
    """The surfaces of the channel: one listener of a table service's events (see the module doc)."""

    def __init__(
        self,
        bot: Host,
        *,
        interval: float = 1.0,
        retries: int = 3,
        images: bool = True,
        pictures: Pictures | None = None,
    ) -> None:
        self._table_of: Callable[[TableEvent], Table | None] = lambda event: None  # until attached
        self.slots = Slots(interval=interval, retries=retries)
        self.posting = Posting(bot)
        self.followed = FollowedPanels(bot, self.slots)
        self.mentions = Mentions(bot, self.slots, self.posting, self.followed)
        self.messages = TableMessages(
            bot, self.slots, self.posting, self.mentions, pictures=pictures or Pictures(0), images=images
        )

    @property
    def pictures(self) -> Pictures:
        """Where pictures are drawn (bot.render.pictures): the table's, and a replay's."""
        return self.messages.pictures

    @property
    def images(self) -> bool:
        """Whether table messages carry the table's picture."""
        return self.messages.images

    # ------------------------------------------------------------------ the service's events

    def attach(self, bus: EventBus, table_of: Callable[[TableEvent], Table | None]) -> None:
        """Hear every event of a service's bus, inline (before the click that made the change is
        answered; each handler only schedules work in the slots, it never awaits). ``table_of`` gives
        the live table an event is about (the surfaces still draw from it; the event's snapshot is what
        a new surface reads). Called once per service the bot builds, before its ``resume()``, whose
        ``TableResumed`` events draw every table loaded as live again."""
        self._table_of = table_of
        bus.subscribe(Event, self._hear, name="presenter")

    def _hear(self, event: Event) -> None:
        """One event, to the surfaces that show it:

        =================================================  ================================================
        event                                              what the surfaces do
        =================================================  ================================================
        ``TableDealt``                                     a lobby dealt in a thread: its message says
                                                           where; then the table is drawn
        ``TableChanged`` (a move, a vote, a reload,        the table's edit, the turn's mention, followed
        ``TableResumed``, ``TableEnded`` …)                panels, a thread's result once over
        ``SeatReplaced`` (idle)                            also the word to the player replaced
        ``TableEnded`` (gone)                              nothing more is drawn for that table
        ``TurnReminder``                                   the half-time reminder
        ``LobbyChanged``, ``LobbyClosed`` (cancelled,      the lobby's message edited (gone: forgotten)
        expired, gone)
        ``SettingsChanged``                                every open lobby's message (its words follow)
        ``LobbyOpened`` not ``answered`` (the Activity)     the lobby's message posted in its channel
        ``LobbyOpened``, ``TableWaiting``                  nothing (the ui posts a lobby with its answer; a
                                                           waiting table keeps its message)
        =================================================  ================================================
        """
        if isinstance(event, TableEvent):
            table = self._table_of(event)
            if table is not None and not table.stored.off_server:  # off server: bot.ui.token_tables
                self._hear_table(event, table)
        elif isinstance(event, LobbyEvent):
            if event.lobby.off_server:
                return
            if isinstance(event, LobbyOpened) and not event.answered:
                self.messages.lobby_opened(event.lobby_id)
            elif isinstance(event, LobbyClosed) and event.how == "gone":
                self.messages.lobby_gone(event.lobby_id)
            elif isinstance(event, LobbyChanged | LobbyClosed):
                self.messages.lobby_changed(event.lobby_id)
        elif isinstance(event, SettingsChanged):
            for lobby_id in event.open_lobbies:
                self.messages.lobby_changed(lobby_id)

    def _hear_table(self, event: TableEvent, table: Table) -> None:
        if isinstance(event, TableEnded) and event.how == "gone":
            self._gone(table)
        elif isinstance(event, TableDealt):
            if event.moved and event.lobby_message_id is not None:
                self.messages.lobby_moved(table, event.lobby_message_id)  # the game went to its thread
            self._changed(table)
        elif isinstance(event, TableChanged):
            self._changed(table)
            if isinstance(event, SeatReplaced) and event.reason == "idle" and event.seat is not None:
                self.mentions.seat_taken_over(table, event.seat)
        elif isinstance(event, TurnReminder):
            self.mentions.remind(table, list(event.seats), event.seconds_left)

    def _changed(self, table: Table) -> None:
        """A committed change: the table's edit, the turn's mention, the followed panels whose text no
        longer holds, and a thread's close once its game is over."""
        if table.gone:
            return
        self.messages.table_changed(table)
        self.mentions.table_changed(table)
        self.followed.table_changed(table)
        self.messages.thread_over(table)

    def _gone(self, table: Table) -> None:
        """Its channel or server is gone: no edit of its message, its mention or its players' panels
        (those live in the same channel) is made any more, pending or not."""
        self.messages.table_gone(table)
        self.mentions.table_gone(table)
        self.followed.table_gone(table)

    # ------------------------------------------------------------------ asked by the ui, tests and the stop

    def cannot_post(self, channel_id: int | None) -> bool:
        """True while Discord refuses the bot's posts in this channel (see :class:`Posting`)."""
        return self.posting.cannot_post(channel_id)

    async def flush(self) -> None:
        """Wait until every pending edit and send is done (tests and shutdown)."""
        await self.slots.flush()

    async def close(self) -> None:
        """Stop: what is under way gets its grace, then the rest is cancelled (:meth:`Slots.close`)."""
        await self.slots.close()
