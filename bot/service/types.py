"""What every part of the table service shares: the :class:`Table`, the panel state, the refusals,
the observer protocol, the settings, and the one logger.

The logger keeps the name ``bot.service`` for every part: operators and tests read log lines by it.
It imports no other part of the service (the parts import it), so there is no circle."""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from bot.engine.base import GameState
from bot.games.base import GameRules
from bot.games.registry import BY_KIND
from bot.render.names import ComputerName, computer_name
from bot.storage import Seat, StorageError, StoredGame
from bot.storage.lobbies import CHALLENGE, HELD_UNTIL, INVITED, Lobby

log = logging.getLogger("bot.service")  # one name for every part
T = TypeVar("T")

RECENT_EVENTS = 6  # actions whose events the table message keeps in words
DEFAULT_TURN_LIMIT = 120  # seconds; a lobby option, stored with the game (0: no limit)
# What each /<game> new accepts, exactly what the command declares to Discord (the cogs build their
# choices and ranges from these): a modified client that sends anything else is refused the same way.
TURN_LIMITS = (0, 30, 45, 60, 90, 120, 180, 300, 600, 900, 3600, 7200, 14400, 28800, 43200, 86400)
# A turn limit of an hour or more makes a long game (correspondence mode, issue 28): the player whose
# turn it is gets a direct message, then a reminder at half time (bot.service.letters).
LONG_GAME = 3600  # seconds
MISSES_BEFORE_REPLACE = 3
# A game's meta key: seconds its first turn has on top of the turn limit (a tournament's table, whose
# players must first find its thread: bot.service.tournaments). Every later turn has the limit alone.
FIRST_TURN_GRACE = "first_turn_grace"
# How the note of a game ended by hand begins (``/<game> end``, the End vote: ``ended by <user id>``);
# a tournament's table so ended is placed by its standing (bot/service/tournament_ends.py ``_record``).
ENDED_BY_HAND = "ended by "
LOBBY_TTL_MS = 15 * 60 * 1000  # a lobby nobody starts closes after 15 minutes
# A rematch holds the seats of the players it invites this long (bot.service.lobbies, ``rematch``).
REMATCH_HOLD_MS = 2 * 60 * 1000


def challenge_options(challenged: tuple[int, str] | None, now_ms: int) -> dict[str, Any]:
    """A right-click challenge's table options (bot.ui.challenges; none for ``challenged`` None): that
    person (user id, name) invited, their seat held as long as the lobby may stay open."""
    if challenged is None:
        return {}
    user_id, name = challenged
    return {CHALLENGE: True, INVITED: [{"user_id": user_id, "name": name}], HELD_UNTIL: now_ms + LOBBY_TTL_MS}


def lobby_due(lobby: Lobby) -> int:
    """When the sweeper looks at a lobby next: the end of its held seats' hold (a rematch's, a
    challenge's), else its expiry."""
    expiry = lobby.created_at + LOBBY_TTL_MS
    until = lobby.options.get(HELD_UNTIL)
    return min(until, expiry) if isinstance(until, int) else expiry


def _title(kind: str | None) -> str | None:
    """A game's title as players write it, None for a kind no game has (or none)."""
    game = BY_KIND.get(kind) if kind is not None else None
    return None if game is None else game.title


# A game dealt in a thread (docs/discord.md, "Threads"): its meta's key for the channel of its lobby,
# where its result is posted at the end, and the key set once that post was tried (bot.ui.threads).
THREAD_PARENT = "parent_channel_id"
RESULT_POSTED = "result_posted"
# A thread's result not posted when the bot stopped is posted at the next start if the game ended
# within this (bot.service.resume): a bot down longer would post stale results, and leaves them.
RESULT_OWED_WITHIN_MS = 24 * 60 * 60 * 1000
# A table where the bot is not a member (docs/discord.md, "Tables where the bot is not a member") sleeps
# while no interaction token can show it: its meta's ASLEEP (since when, ms), its timers paused (their
# time left kept in the timer, PAUSED_LEFT / PAUSED_HALF), its computers waiting. A turn woken gets at
# least WAKE_FLOOR_MS (a restart may have eaten its time).
ASLEEP, PAUSED_LEFT, PAUSED_HALF = "asleep", "paused_left", "paused_half"
WAKE_FLOOR_MS = 30_000
MAX_COVER_ACTIONS = 60  # actions one timer may play for a seat (the longest turn of our games is ~30)
PLAY, ROUND_OVER, REVEAL = "play", "round_over", "reveal"  # phase names shared by the engines
# Panel acts shared by every kind (the kinds' panel modules use the same two letters).
MODE_ACT, REFRESH_ACT = "md", "rf"
HINT_ACT = "hn"  # ask the normal computer player what it would do (the game becomes unrated)


class Refused(Exception):
    """A request the table refuses; ``key`` (and ``params``) is the message the clicker reads."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


class ChannelTaken(Refused):
    """The channel already has a lobby or a game: where it is, so the reply can link to it, and its
    game's title (``game``: None when it could not be read), which may not be the one being opened."""

    def __init__(
        self, guild_id: int | None, channel_id: int, message_id: int | None, game: str | None = None
    ) -> None:
        if game is None:
            super().__init__("table.error.channel_busy")
        else:
            super().__init__("table.error.channel_taken", game=game)
        self.guild_id = guild_id
        self.channel_id = channel_id
        self.message_id = message_id


class SeatsHeld(Refused):
    """The host's Start while a rematch still holds seats for players who have not sat down: the host
    is asked first (``players``: their names; ``until``: when the hold ends, in ms), and Start again
    with ``confirmed`` deals without them (issue 47 item 10)."""

    def __init__(self, players: list[str], until: int) -> None:
        super().__init__(_counted("table.confirm.start_held", len(players)))
        self.players = players
        self.until = until


class Stale(Refused):
    """The clicked panel is out of date; ``panel`` is the fresh one. Not an error to the player, who
    gets that panel with a gentle word (issue 47 item 10): ``own``, they played since that panel was
    drawn (a double click: the first click did it), else the game moved on without them."""

    def __init__(self, fresh: PanelState, *, own: bool = False) -> None:
        super().__init__("table.notice.already_done" if own else "table.notice.moved_on")
        self.panel = fresh
        self.own = own


class SeatTaken(Refused):
    """The clicker's seat is played by a computer player. ``idle``: it was taken because they missed
    too many turns, so :meth:`TableService.reclaim_seat` can give it back (not after Leave or a kick)."""

    def __init__(self, idle: bool) -> None:
        super().__init__("table.error.seat_replaced")
        self.idle = idle


class TableFacts(ABC):
    """What is read from a table's seats, meta and turn, written once for the two that have them: the
    live :class:`Table` and the :class:`~bot.service.snapshots.TableSnapshot` an event carries. Each
    gives the few raw reads below (``_kind``, ``_seats``, ``_meta``, ``_status``, ``_phase``, ``_turn``,
    ``_to_act``, ``_ended_by``); every derived read is here."""

    __slots__ = ()

    @property
    @abstractmethod
    def _kind(self) -> str:
        """The game's name, its key in the registry."""

    @property
    @abstractmethod
    def _seats(self) -> Sequence[Seat]: ...

    @property
    @abstractmethod
    def _meta(self) -> Mapping[str, Any]: ...

    @property
    @abstractmethod
    def _status(self) -> str:
        """``active``, ``finished``, ``cancelled`` or ``quarantined``."""

    @property
    @abstractmethod
    def _phase(self) -> str: ...

    @property
    @abstractmethod
    def _turn(self) -> int | None: ...

    @abstractmethod
    def _to_act(self) -> Sequence[int]:
        """The seats the game waits for now."""

    @property
    @abstractmethod
    def _ended_by(self) -> int | None: ...

    @property
    def game(self) -> GameRules:
        """The game played here (its rules, panel, messages, picture), from its ``kind``."""
        return BY_KIND[self._kind]

    @property
    def turn_limit(self) -> int:
        """Seconds a human has for a turn (0: no limit)."""
        limit = self._meta.get("turn_limit", DEFAULT_TURN_LIMIT)
        return limit if isinstance(limit, int) and limit >= 0 else DEFAULT_TURN_LIMIT

    @property
    def long_game(self) -> bool:
        """A turn limit of an hour or more: players are told of their turn by direct message."""
        return self.turn_limit >= LONG_GAME

    def timer(self) -> dict[str, Any] | None:
        timer = self._meta.get("timer")
        return timer if isinstance(timer, dict) else None

    @property
    def turns(self) -> int:
        """Turns started so far (kept in the stored meta): with the player, the key of a turn mention,
        so a restart does not mention the same turn twice."""
        value = self._meta.get("turns", 0)
        return value if isinstance(value, int) else 0

    @property
    def votes(self) -> frozenset[int]:
        """Seats that asked for the next round: kept in the stored meta, so a restart keeps them."""
        raw = self._meta.get("votes") or []
        return frozenset(s for s in raw if isinstance(s, int))

    @property
    def asleep(self) -> bool:
        """A table where the bot is not a member, asleep: no token shows it, its timers are paused."""
        return self._meta.get(ASLEEP) is not None

    @property
    def hinted(self) -> bool:
        """Someone took a hint (meta ``hints``: their seats): the game finishes unrated."""
        return bool(self._meta.get("hints"))

    def missed(self, seat: int) -> int:
        value = (self._meta.get("missed") or {}).get(str(seat), 0)
        return value if isinstance(value, int) else 0

    @property
    def finished(self) -> bool:
        return self._status != "active"

    def replaced(self) -> dict[int, str]:
        """Human seats a computer player took over (left, kicked or missed turns): seat -> level."""
        raw = self._meta.get("replaced") or {}
        return {int(k): str(v) for k, v in raw.items()}

    def idle(self) -> frozenset[int]:
        """Replaced seats whose human missed too many turns (meta ``idle``), as opposed to one who left
        or was kicked: only these may be taken back."""
        raw = self._meta.get("idle") or []
        replaced = self.replaced()
        return frozenset(s for s in raw if isinstance(s, int) and s in replaced)

    def ai_level(self, seat: int) -> str | None:
        level = self._seats[seat].ai_level
        return level if level is not None else self.replaced().get(seat)

    def human_seats(self) -> list[int]:
        return [s.seat for s in self._seats if self.ai_level(s.seat) is None]

    def waited_for(self) -> list[int]:
        """The human seats the game waits for now."""
        return [s for s in self._to_act() if self.ai_level(s) is None]

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self._seats if s.user_id == user_id), None)

    def names(self, locale: object = None) -> list[str]:
        """Seat names. A computer seat's is a :class:`ComputerName` (a ``str``), which renderers say in
        their message's language; given ``locale``, its text is already in that language."""
        names: list[str] = []
        computers = 0
        for s in self._seats:
            if s.ai_level is None:
                names.append(s.display_name)
                continue
            computers += 1
            text = s.display_name if locale is None else computer_name(computers, s.ai_level, locale)
            names.append(ComputerName(computers, s.ai_level, text))
        return names

    def turn_seat(self) -> int | None:
        """The seat whose turn it is, or None: nobody's (everyone reveals, a round is over) or no more
        turns (the game is over, or stopped by ``/<game> end`` before the stop is stored)."""
        turn = self._turn
        if self.finished or self._ended_by is not None or self._phase != PLAY or turn is None:
            return None
        return turn

    def turn_user(self) -> int | None:
        """The human whose turn it is (to mention), or None (nobody's turn, or a computer's)."""
        seat = self.turn_seat()
        if seat is None or self.ai_level(seat) is not None:
            return None
        return self._seats[seat].user_id

    def round_waiting(self) -> list[int]:
        """Human seats that have not asked for the next round yet."""
        return [s for s in self.human_seats() if s not in self.votes]


@dataclass
class Table(TableFacts):
    """A game being played: the stored game (state included) and what the service keeps beside it."""

    stored: StoredGame
    marks: list[int]
    recent: deque[tuple[int, list[dict[str, Any]]]] = field(
        default_factory=lambda: deque(maxlen=RECENT_EVENTS)
    )
    resumed: bool = False  # loaded at start after a restart, nothing played since
    ended_by: int | None = None  # the user who ended it with /<game> end (cancelled, unrated)
    gone: bool = False  # cancelled because its channel or server is gone: nothing is posted for it
    # Its public message was posted while the database was away: the id serves from memory until the
    # reloader stores it (bot.service.reloads ``keep_message_id``).
    message_unsaved: bool = False
    # Ended in a thread while the bot was stopped (bot.service.resume): its result is owed in the
    # channel, unless the last process posted it without storing that (bot.ui.threads looks first).
    result_owed: bool = False
    ai_task: asyncio.Task[None] | None = None
    # The version each seat's own last move (a click) made: a click on a panel older than it comes
    # after the player's own move (a double click), told "already done" rather than "out of date".
    played: dict[int, int] = field(default_factory=dict)
    # An action is being applied and committed (set around it by the one writer of tables): the state
    # runs ahead of ``version`` meanwhile, so a snapshot's view reads the committed JSON instead
    # (bot.service.snapshots).
    committing: bool = False

    @property
    def id(self) -> int:
        return self.stored.id

    @property
    def state(self) -> GameState:
        """The game's state: the last committed one (never missing; see ``needs_reload``)."""
        return self.stored.state

    @property
    def needs_reload(self) -> bool:
        """The last commit failed and the database could not be read again: the table serves its last
        committed state (panels, the table message) and refuses moves until it is reloaded."""
        return self.stored.needs_reload

    @property
    def version(self) -> int:
        return self.stored.version

    @property
    def channel_id(self) -> int:
        return self.stored.channel_id

    # The raw reads of TableFacts, from the stored game.

    @property
    def _kind(self) -> str:
        return self.stored.kind

    @property
    def _seats(self) -> Sequence[Seat]:
        return self.stored.seats

    @property
    def _meta(self) -> Mapping[str, Any]:
        return self.stored.meta

    @property
    def _status(self) -> str:
        return self.stored.status

    @property
    def _phase(self) -> str:
        return self.state.phase

    @property
    def _turn(self) -> int | None:
        return self.state.turn

    def _to_act(self) -> Sequence[int]:
        return self.state.seats_to_act()

    @property
    def _ended_by(self) -> int | None:
        return self.ended_by


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
    kind: str = field(kw_only=True)  # the game's name


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


@dataclass(frozen=True)
class Letter:
    """A direct message a long game owes a player (bot.service.letters): nothing hidden in it, only
    which game, where, and by when."""

    what: str  # "turn": their turn has come; "reminder": half of its time is gone
    user_id: int
    game_id: int
    game: str  # the game's title
    guild_id: int | None
    channel_id: int
    message_id: int | None  # the public table message, for the link
    due_ms: int  # the deadline, after which the computer plays the turn for them
    locale: str | None  # the user's Discord language as last seen (None: the server's public one)


class Postman(Protocol):
    """What sends a long game's direct messages (bot.ui.letters, through Discord)."""

    async def send_letter(self, letter: Letter) -> bool:
        """Send it; True once sent, False if the user's direct messages are closed (not an error);
        any other failure raises (the letter is tried again later)."""


class ServiceObserver(Protocol):
    """What the service reports as it works (bot.metrics.Metrics implements it)."""

    def committed(self, kind: str, seconds: float) -> None: ...

    def commit_failed(self, kind: str) -> None: ...

    def commit_retried(self, kind: str, outcome: str) -> None:
        """A commit that met a transient fault was made once more: ``applied``, ``already_applied``
        (the first had landed) or ``failed``."""

    def table_reloaded(self, outcome: str) -> None:
        """A table waiting for the database was read again: ``ok`` or ``failed``."""

    def timer_fired(self, what: str) -> None: ...
