"""The table manager: lobbies and games per channel, load -> engine.apply -> commit -> one event; no discord.

ONE COMMIT, ONE EVENT (docs/architecture.md). Every write to a game goes through the one writer of
tables, :class:`~bot.service.writer.TableWriter`, under the channel's ``asyncio.Lock``: for a move the
engine applies the action to the cached state, storage commits it (the action log is the truth:
:meth:`GameLedger.apply_action <bot.service.ledger.GameLedger.apply_action>`, which calls storage's
``GameRepository.commit_action``), and only then is one typed event published on the service's
:class:`~bot.service.bus.EventBus` (:mod:`~bot.service.events`). What a commit sets off is whatever
listens: the timers index the next deadline, the computer players arm, a tournament's table is recorded,
the reloader starts, the surfaces draw. So nothing is ever shown to a player before it is in the
database. An event carries a read-only :class:`~bot.service.snapshots.TableSnapshot` of the committed
table (its version, its public facts, ``view(seat)``: what each seat may see), so no listener rebuilds
the hiding of cards. The cache (:class:`Table`) holds the state storage returned; when a commit fails
storage reloads it, so the cache never runs ahead of the log (and when the database cannot be read
either, the table keeps its last committed state and waits for it, ``TableWaiting``:
:mod:`~bot.service.reloads`). Events are delivered in commit order per table, inline listeners before
the call that made the change returns (so before a click is answered), each listener's error or
slowness kept from the others (:mod:`~bot.service.bus`); at start :meth:`TableService.resume` publishes
``TableResumed`` for every table loaded, to listeners subscribed before it.

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
computed by the turn clock (:mod:`~bot.service.turn_clock`) and written in the same transaction as the
action that started it (the ``meta_after`` of ``GameLedger.apply_action``), and a lobby's deadline is
its creation time plus :data:`LOBBY_TTL_MS`. One sweeper task (:mod:`~bot.service.sweeper`) sleeps
until the earliest deadline (:mod:`bot.clock`, a manual clock in tests) and hands it to its owner, who
acts under the channel lock: at half time a reminder, at the limit the ``normal`` computer player plays
the turn for the player (initial reveals are picked at random), after :data:`MISSES_BEFORE_REPLACE`
missed turns in a row a computer player takes the seat; between rounds the next round starts.
Every turn gets the whole limit, the one after a covered turn included. A player replaced for missed
turns (meta ``idle``), and only such a player, may take the seat back (:meth:`TableService.reclaim_seat`).
A timer fires only while the state still has its token, and marks itself ``fired`` (with the missed
count) before covering, so a restart fires none twice and loses none. Computer players are plain
asyncio tasks armed from what they hear (a table dealt, changed or resumed: whose turn it is).

The spine, made by the core (:class:`~bot.service.core.ServiceCore`) and handed to every part:
:mod:`~bot.service.events` (the typed events and the rule), :mod:`~bot.service.snapshots` (the
read-only table an event carries), :mod:`~bot.service.bus` (delivery: inline and queued listeners),
:mod:`~bot.service.writer` (the one writer of tables and the publisher of their events),
:mod:`~bot.service.turn_clock` (the timer a state calls for, pure), :mod:`~bot.service.sweeper` (the
one task of deadlines, with a handler per kind registered by its owner), and the caches of what parts
read of one another's: :mod:`~bot.service.settings_book` (each server's settings, and the check of a
new table's channel) and :mod:`~bot.service.prefs_cache` (users' own choices). Every surface (the
channel's table messages, the followed panels, mentions: :class:`bot.ui.presenter.Presenter`) is one
listener of the bus, attached where the bot builds the service; nothing outside the service tells it.
The start is composed here, in order (:meth:`TableService.resume`: the tables, the tournaments, then
``TableResumed`` for each table), the one place that calls several parts.

The parts, one job each: :mod:`~bot.service.types` (the shared types, refusals and settings),
:mod:`~bot.service.core` (the shared state and plumbing), :mod:`~bot.service.resume` (the start of the
process), :mod:`~bot.service.lobbies` (lobbies, seating, the set-up form, start, rematch, expiry; the
checks of a lobby's options, shared with ``/<game> new``: :mod:`~bot.service.lobby_options`),
:mod:`~bot.service.clicks` (the click path and the round votes),
:mod:`~bot.service.timers` (the game deadlines), :mod:`~bot.service.computers` (computer players) and
:mod:`~bot.service.seats` (leave, kick, replacement, seat back, end), :mod:`~bot.service.settings` (a
server's ``/skybo settings``), :mod:`~bot.service.seasons` (a server's seasons),
:mod:`~bot.service.prefs` (a user's ``/skybo notify`` and ``/skybo display``), :mod:`~bot.service.letters`
(a long game's direct messages), :mod:`~bot.service.reloads`
(tables whose database did not answer: served from their last committed state, reloaded when it answers),
:mod:`~bot.service.tournaments` (tournaments: sign-ups, rounds of tables it deals),
:mod:`~bot.service.tournament_ends` (a tournament table's end: its places recorded, tried again).
They are mixins of one :class:`TableService` over a small core, which holds only what they share: the
tables and their channel locks, storage (and the rules over it), the clock, whether the
service is closing, the configuration it was made with (delays, limits, shards, observer, seeds) and
the owned services above. State that one part alone keeps is that part's own, made in its
``__init__`` (each part's ``__init__`` passes the options on, :class:`~bot.service.core.ServiceOptions`,
and subscribes the part's listeners to the bus) and, where it is more than a field, a plain object of
its module that knows nothing of the service: the users' languages being stored, the letters
(:class:`~bot.service.letters.Outbox`: the postman, the letters on their way, their tasks), the reloader
task (:mod:`~bot.service.reloads`), the fair-use marks and the expired lobbies
(:mod:`~bot.service.lobbies`), the tournaments' desk (:class:`~bot.service.tournaments.Desk`: their
locks and hall) and the tasks recording a table's end (:mod:`~bot.service.tournament_ends`). A part
that runs tasks adds them to what :meth:`ServiceCore.close` stops (``_stop_background``, after
``super()``'s).

Why mixins still: callers (cogs, the UI, tests) use one object with one API. What one part needs of
another is an event it listens to or an owned service it is handed; the few calls left between parts are
declared once, abstract, in the core, each implemented by exactly one part, and go with the next
pieces of issue 48 (the core names which). Every module of the service imports only the shared modules
below the parts (``types``, ``core``, ``events``, ``snapshots``, ``computer_moves``), never another part
(``tests/service/test_parts.py``); mypy sees a part's ``self`` as that part over the core, so a part
cannot reach another part's state (``tests/service/test_core.py``).
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
    log,
    token_of,
)
from bot.storage import StorageError

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
    "TableService",
    "token_of",
]


class TableService(
    ResumePart,
    LobbyPart,
    ClickPart,
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

    async def resume(self) -> list[Table]:
        """The start of the process, in order (this composition is the one place that calls several
        parts): every stored game and open lobby loaded (:mod:`~bot.service.resume`), the tournaments
        going on (their tables are loaded: a round due may be seated, :mod:`~bot.service.tournaments`),
        then each table published as ``TableResumed``. Returns the tables, with the ended games of
        threads whose result is owed in their channel."""
        tables = await self._load_tables()
        try:
            await self.resume_tournaments()
        except StorageError:
            log.warning("tournaments not resumed: the database did not answer")
        return await self._tables_back(tables)
