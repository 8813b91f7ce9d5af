"""The typed events the table service publishes: one for every change it stores, and the rule they keep.

THE RULE: one change, one event. Every write that changes what a player or a part could see of a
table, a lobby, a server's settings or a tournament publishes exactly one event, on the service's
:class:`~bot.service.bus.EventBus`, right after the write is stored and under the lock it was written
under (a table's channel lock, a tournament's lock), so a table's events come in commit order. A
write the database refused publishes nothing, except :class:`TableWaiting` when it leaves the table
waiting for the database. Starting a lobby publishes one event, :class:`TableDealt`, which also closes
the lobby for whoever shows it (there is no "lobby closed because started").

Writes that are not changes publish nothing: a surface's own bookkeeping, such as the ids of the
messages it posted (``remember_messages``, ``keep_message_id``, ``set_lobby_message``,
``set_tournament_messages``), that a long game's letter was sent, or a user's language. These are what a
listener writes after hearing an event: if they published, the presenter would post, store the id, hear
of it, and post again.

Every event is a frozen, slotted dataclass built with keywords. ``type`` is its wire name (one per
class, for frames sent outside the process). ``seq`` is set by the bus when it is published: one
counter per service, strictly increasing, so it orders every event of a process. A table's events
carry a :class:`~bot.service.snapshots.TableSnapshot` of the table as committed, with what each seat
may see: no listener reads the engine's state.

``stream`` groups the events whose order matters to one another (a table's, a lobby's, a server's
settings, a tournament's). ``coalescable`` (a class fact) marks an event that a newer one of its stream
makes useless, because the newer one carries everything it did: a queued listener that asked for it
keeps only the newest of a run of them (:meth:`~bot.service.bus.EventBus.subscribe_queued`). An event
that says something happened once (a deal, an end, a seat taken, a reminder) is never coalescable.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from typing import ClassVar, Literal

from bot.engine.base import JSON
from bot.service.snapshots import TableSnapshot
from bot.storage import ServerSettings
from bot.storage.lobbies import Lobby

# Why a table changed (TableChanged.cause).
Cause = Literal[
    "move",  # a player's click
    "computer",  # a computer player's move
    "timer",  # a turn played for a player out of time, or a timer's meta (a covered turn)
    "next_round",  # the round pause ended, or the last vote dealt the next round
    "vote",  # a Next-round vote, not the last
    "hint",  # a first hint: the game finishes unrated
    "seat_replaced",  # a computer player took a seat (SeatReplaced)
    "seat_back",  # a player took back the seat a computer played for them
    "reloaded",  # a table waiting for the database was read again
    "resumed",  # loaded at start (TableResumed)
    "ended",  # ended by hand, cancelled, gone or set aside (TableEnded; a commit's end keeps its cause)
    "sleep",  # a table where the bot is not a member went to sleep: no token left to show it, timers paused
    "wake",  # a click woke a sleeping table: its timers run again with the time they had left
]
ReplaceReason = Literal["left", "kicked", "idle"]
EndHow = Literal["finished", "ended_by_hand", "gone", "quarantined", "cancelled"]
LobbyCause = Literal[
    "join",
    "leave",
    "computer_added",
    "computer_removed",
    "hold_released",
    "options",  # the host's set-up form (bot.service.lobby_setup)
]
LobbyHow = Literal["cancelled", "expired", "gone"]
TournamentCause = Literal[
    "signup",
    "started",
    "round",
    "dropped",
    "paused",
    "resumed",
    "cancelled",
    "finished",
    "table_ended",
    "restarted",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Something the service stored (see the module doc). Never made for itself: its subclasses are."""

    type: ClassVar[str]
    coalescable: ClassVar[bool] = False
    seq: int = field(default=0, compare=False)  # set by the bus when published

    @property
    def stream(self) -> Hashable:
        """The events whose order matters to this one share this key."""
        return (self.type,)


@dataclass(frozen=True, slots=True, kw_only=True)
class TableEvent(Event):
    """A table's event: its snapshot as committed (``snapshot.version``, ``snapshot.view(seat)``)."""

    snapshot: TableSnapshot

    @property
    def table_id(self) -> int:
        return self.snapshot.table_id

    @property
    def stream(self) -> Hashable:
        return ("table", self.snapshot.table_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class TableDealt(TableEvent):
    """A game was dealt, from a lobby or for a tournament; a lobby it came from is closed by it.
    ``moved``: dealt in a thread of its own, the lobby's message stays in ``lobby_channel_id``."""

    type: ClassVar[str] = "table_dealt"
    lobby_id: int | None = None
    lobby_channel_id: int | None = None
    lobby_message_id: int | None = None
    moved: bool = False
    tournament_id: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TableChanged(TableEvent):
    """A table's stored state or meta changed. ``seat``: who moved (or whose seat changed);
    ``events``: the engine's events of the action, if one was committed; ``key``: the idempotency key
    the action was committed with (the click's interaction id), so a surface that answers clicks itself
    knows its own change."""

    type: ClassVar[str] = "table_changed"
    coalescable: ClassVar[bool] = True
    cause: Cause
    seat: int | None = None
    events: tuple[JSON, ...] = ()
    key: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatReplaced(TableChanged):
    """A computer player took ``seat``: the player left, was kicked, or missed too many turns (``idle``,
    the only one that may take it back)."""

    type: ClassVar[str] = "seat_replaced"
    coalescable: ClassVar[bool] = False
    reason: ReplaceReason


@dataclass(frozen=True, slots=True, kw_only=True)
class TableResumed(TableChanged):
    """The table as loaded at start: listeners start from the stored state. ``owed_result``: a game
    that ended in a thread while the bot was stopped, whose result is still to be posted."""

    type: ClassVar[str] = "table_resumed"
    coalescable: ClassVar[bool] = False
    owed_result: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class TableEnded(TableChanged):
    """The game is over: ``finished`` by the rules (the commit that ended it: its cause, seat and
    events), ``ended_by_hand`` (``by``: who), ``gone`` (its channel or server), ``quarantined`` or
    ``cancelled`` (a reload found its data gone). The table is no longer among the service's tables."""

    type: ClassVar[str] = "table_ended"
    coalescable: ClassVar[bool] = False
    how: EndHow
    by: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TableWaiting(TableEvent):
    """A write found the database away: the table serves its last committed state (the snapshot) and
    refuses moves until it is read again (then :class:`TableChanged` ``reloaded``)."""

    type: ClassVar[str] = "table_waiting"


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnReminder(TableEvent):
    """Half of a turn's time is gone ("reminded" is stored): ``seats`` have ``seconds_left``."""

    type: ClassVar[str] = "turn_reminder"
    seats: tuple[int, ...]
    seconds_left: int


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyEvent(Event):
    """A lobby's event: the lobby as stored then (a copy: :func:`lobby_copy`)."""

    lobby: Lobby

    @property
    def lobby_id(self) -> int:
        return self.lobby.id

    @property
    def stream(self) -> Hashable:
        return ("lobby", self.lobby.id)


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyOpened(LobbyEvent):
    """A lobby was opened (``rematch_of``: the game it is the rematch of). ``answered``: its message is
    the answer of the command or click that opened it; False (opened from the Activity, no interaction
    to answer), the channel's surface posts it (``bot.ui.table_messages``)."""

    type: ClassVar[str] = "lobby_opened"
    rematch_of: int | None = None
    answered: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyChanged(LobbyEvent):
    """Someone sat down or left, a computer was added or removed, a rematch's hold ended, or the
    host changed the table's options (the set-up form)."""

    type: ClassVar[str] = "lobby_changed"
    coalescable: ClassVar[bool] = True
    cause: LobbyCause


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyClosed(LobbyEvent):
    """A lobby closed without a game: cancelled, expired, or its channel or server gone."""

    type: ClassVar[str] = "lobby_closed"
    how: LobbyHow


@dataclass(frozen=True, slots=True, kw_only=True)
class SettingsChanged(Event):
    """A server's settings changed (``open_lobbies``: its lobbies, whose messages show them)."""

    type: ClassVar[str] = "settings_changed"
    coalescable: ClassVar[bool] = True
    guild_id: int
    settings: ServerSettings
    open_lobbies: tuple[int, ...] = ()

    @property
    def stream(self) -> Hashable:
        return ("settings", self.guild_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentChanged(Event):
    """A tournament changed: a sign-up, a round, a table's end, its start, pause or end."""

    type: ClassVar[str] = "tournament_changed"
    coalescable: ClassVar[bool] = True
    tournament_id: int
    cause: TournamentCause

    @property
    def stream(self) -> Hashable:
        return ("tournament", self.tournament_id)


# Every event a listener may hear, by wire name.
EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        TableDealt,
        TableChanged,
        SeatReplaced,
        TableResumed,
        TableEnded,
        TableWaiting,
        TurnReminder,
        LobbyOpened,
        LobbyChanged,
        LobbyClosed,
        SettingsChanged,
        TournamentChanged,
    )
}


def lobby_copy(lobby: Lobby) -> Lobby:
    """A copy of a lobby for an event: the service goes on changing its own (seats, options)."""
    return replace(lobby, options=dict(lobby.options), seats=list(lobby.seats), extra=dict(lobby.extra))
