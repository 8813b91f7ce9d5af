"""The table manager: lobbies and games per channel, load -> engine.apply -> commit -> events; no discord.

Every change to a game goes through :meth:`TableService._commit` under the channel's ``asyncio.Lock``:
the engine applies the action to the cached state, storage commits it (the action log is the truth),
and only then are the events recorded, computer players scheduled and the listener told, so nothing
is ever shown to a player before it is in the database. The cache (:class:`Table`) holds the state
storage returned; when a commit fails storage reloads it, so the cache never runs ahead of the log (and
when the database cannot be read either, the table keeps its last committed state and waits for it:
:mod:`~bot.service.reloads`).

Staleness: every in-game button carries the version it was drawn at. A click is stale when
something that could change what that panel means happened since: an action of the clicker's own
seat, or any change of phase, round, turn or drawn card (``Table.marks``). Other players' initial
reveals do not make a panel stale (they change nothing the clicker sees on it), so a human is not
refused while computer players turn their cards at the same time.

Every game kind plugs in through :mod:`bot.games.registry` (engine, computer players, panel); nothing here
names a game.

Timers live in the database. A game's meta holds its one running timer, ``{"what": "turn" |
"round", "token": [phase, round, turn], "due": ms, "half": ms, "reminded", "fired"}`` (a long game's
turn adds ``"dm"`` and ``"dm_reminded"``, the seats sent a direct message: :mod:`bot.service.letters`),
written in the same transaction as the action that started it (see ``GameRepository.apply_action``'s
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

The parts, one job each: :mod:`~bot.service.types` (the shared types, refusals and settings),
:mod:`~bot.service.core` (the shared state and plumbing), :mod:`~bot.service.resume` (the start of the
process), :mod:`~bot.service.lobbies` (lobbies, seating, start, rematch, expiry),
:mod:`~bot.service.clicks` (the click path and the commit), :mod:`~bot.service.votes` (round votes),
:mod:`~bot.service.timers` (timers and the sweeper), :mod:`~bot.service.computers` (computer players) and
:mod:`~bot.service.seats` (leave, kick, replacement, seat back, end), :mod:`~bot.service.settings` (a
server's ``/skybo settings``), :mod:`~bot.service.seasons` (a server's seasons),
:mod:`~bot.service.prefs` (a user's ``/skybo notify`` and ``/skybo display``), :mod:`~bot.service.letters`
(a long game's direct messages), :mod:`~bot.service.reloads`
(tables whose database did not answer: served from their last committed state, reloaded when it answers),
:mod:`~bot.service.tournaments` (tournaments: sign-ups, rounds of tables it deals),
:mod:`~bot.service.tournament_ends` (a tournament table's end: its places recorded, tried again).
They are mixins of one :class:`TableService` over a small core, :class:`~bot.service.core.ServiceCore`,
which holds only what they share: the tables and their channel locks, storage (and the rules over it), the
clock, the listener, whether the service is closing, and the configuration it was made with (delays,
limits, shards, observer, seeds). State that one part alone keeps is that part's own, made in its
``__init__`` (each part's ``__init__`` passes the options on, :class:`~bot.service.core.ServiceOptions`)
and, where it is more than a field, a plain object of its module that knows nothing of the service: the
sweeper (:class:`~bot.service.timers.Sweeper`: the timer index, its wake-up event, its task), the server
settings cache (:class:`~bot.service.settings.SettingsCache`), the user preferences cache
(:class:`~bot.service.prefs.PrefsCache`) and the users' languages being stored, the letters
(:class:`~bot.service.letters.Outbox`: the postman, the letters on their way, their tasks), the reloader
task (:mod:`~bot.service.reloads`), the fair-use marks and the expired lobbies
(:mod:`~bot.service.lobbies`), the tournaments' desk (:class:`~bot.service.tournaments.Desk`: their
locks and hall) and the tasks recording a table's end (:mod:`~bot.service.tournament_ends`). A part
that runs tasks adds them to what :meth:`ServiceCore.close` stops (``_stop_background``, after
``super()``'s).

Why mixins still, and not collaborator objects: every part works on the same tables under the same channel
lock, one calling another mid-action (a commit indexes the timer and arms the computers, a timer commits
and replaces a seat), and callers (cogs, the UI, tests) use one object with one API (the owner objects'
own methods stay behind it: ``settings_of``, ``prefs_of``...). Why the owner objects: mypy sees a part's
``self`` as that part over the core, so a part cannot reach another part's state (it is not declared where
the part looks), and the core cannot grow it again unnoticed (``tests/service/test_core.py`` lists
the core's state and each part's, and checks that no module touches another's). What one part asks of
another (``_schedule``/``_forget`` of the sweeper, ``prefs_of``, ``_commit``...) is declared once,
abstract, in the core, implemented by exactly one part; the parts import ``table`` and ``core`` only,
never each other.

The listener (:class:`~bot.service.types.TableListener`, the presenter in the bot; a quiet one by
default) is called by its typed methods, ``self._tell(self.listener.remind, table, seats, left)``, so
mypy checks every call; ``_tell`` only keeps a listener's exception from failing the service (it is
logged: the state is committed already).
"""

from __future__ import annotations

from bot.service.clicks import ClickPart
from bot.service.computers import ComputerPart
from bot.service.letters import LettersPart
from bot.service.lobbies import LobbyPart
from bot.service.prefs import PrefsPart
from bot.service.reloads import ReloadPart
from bot.service.resume import ResumePart
from bot.service.seasons import SeasonPart
from bot.service.seats import SeatPart
from bot.service.settings import SettingsPart
from bot.service.timers import TimerPart
from bot.service.tournament_ends import TournamentEndPart
from bot.service.tournaments import TournamentPart
from bot.service.types import (
    DEFAULT_TURN_LIMIT,
    HINT_ACT,
    LOBBY_TTL_MS,
    LONG_GAME,
    MAX_COVER_ACTIONS,
    MISSES_BEFORE_REPLACE,
    MODE_ACT,
    PLAY,
    RECENT_EVENTS,
    REFRESH_ACT,
    REVEAL,
    ROUND_OVER,
    TURN_LIMITS,
    ChannelTaken,
    Letter,
    PanelState,
    Postman,
    Refused,
    SeatsHeld,
    SeatTaken,
    ServiceObserver,
    Stale,
    Table,
    TableListener,
    token_of,
)
from bot.service.votes import VotePart

__all__ = [
    "DEFAULT_TURN_LIMIT",
    "HINT_ACT",
    "LOBBY_TTL_MS",
    "LONG_GAME",
    "MAX_COVER_ACTIONS",
    "MISSES_BEFORE_REPLACE",
    "MODE_ACT",
    "PLAY",
    "RECENT_EVENTS",
    "REFRESH_ACT",
    "REVEAL",
    "ROUND_OVER",
    "TURN_LIMITS",
    "ChannelTaken",
    "Letter",
    "PanelState",
    "Postman",
    "Refused",
    "SeatTaken",
    "SeatsHeld",
    "ServiceObserver",
    "Stale",
    "Table",
    "TableListener",
    "TableService",
    "token_of",
]


class TableService(
    ResumePart,
    LobbyPart,
    ClickPart,
    VotePart,
    TimerPart,
    ComputerPart,
    SeatPart,
    SettingsPart,
    SeasonPart,
    PrefsPart,
    LettersPart,
    ReloadPart,
    TournamentPart,
    TournamentEndPart,
):
    """Lobbies and games of every channel; the only writer of game state (its parts: see the module)."""
