"""What a stored game is (seats, actions, the game, what a load found, what its end writes) and the
canonical JSON and hashes its snapshots are kept in: shared by the repository, the log's statements,
exports and migrations. The state (``StoredGame.state``) is typed by the engines' neutral
:class:`bot.engine.base.GameState`: storage keeps it, the service makes it (bot/service/ledger.py)."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from bot.engine.base import GameState
from bot.engine.errors import GameError
from bot.storage.ratings import RatingChange, RatingPlan, ai_key, user_key
from bot.storage.results import SeatResult
from bot.storage.venues import Venue

log = logging.getLogger(__name__)


ACTIVE = "active"
FINISHED = "finished"
CANCELLED = "cancelled"
QUARANTINED = "quarantined"
Verify = Literal["auto", "full"]
# storage_state key prefix of each engine's fingerprint ("engine:<game>").
_ENGINE_KEY = "engine:"


def now_ms() -> int:
    return int(time.time() * 1000)


def canonical_json(data: Any) -> str:
    """One text per value (sorted keys, no spaces), so equal states have equal snapshots and hashes."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)


def snapshot_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Parsing thousands of games makes millions of small objects; the cyclic GC would rescan them
    over and over (a third of the load time) while none of them forms a cycle worth collecting."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def error_name(error: BaseException) -> str:
    # Only the class and the message key: an exception's text could quote a hidden card.
    if isinstance(error, GameError):
        return f"{type(error).__name__}({error.key})"
    return type(error).__name__


@dataclass(frozen=True)
class Seat:
    """A seat at the table: a Discord user, or a computer player of some level."""

    seat: int
    display_name: str
    user_id: int | None = None
    ai_level: str | None = None

    @property
    def player_key(self) -> str:
        """The ratings key: ``user:<id>``, or ``ai:<level>`` shared by every computer of that level."""
        return ai_key(self.ai_level) if self.ai_level is not None else user_key(self.user_id or 0)

    @property
    def engine_name(self) -> str:
        """The name the engine knows this seat by (unique within a game, stable across replays)."""
        return f"ai{self.seat}:{self.ai_level}" if self.ai_level is not None else f"u{self.user_id}"


@dataclass(frozen=True)
class StoredAction:
    seq: int
    seat: int
    action: dict[str, Any]
    created_at: int
    # The idempotency key the action was committed with: the Discord interaction (the click) that made
    # it; None for an action without one (a computer player, a timer, a tool).
    key: int | None = None


@dataclass
class GameHead:
    """A game's stored columns, parsed, without its state: what a replay needs, and the first part of a
    :class:`StoredGame`."""

    id: int
    guild_id: int | None
    channel_id: int
    kind: str
    seed: int
    options: dict[str, Any]
    seats: tuple[Seat, ...]
    status: str
    rated: bool
    host_id: int | None
    message_id: int | None
    version: int
    meta: dict[str, Any]
    note: str | None
    created_at: int
    updated_at: int
    finished_at: int | None
    # 1: played where the bot has no server (a group DM, a DM, a server only a user installed Skybo in):
    # rated on its channel's board only (bot.storage.venues). Keyword-only, so a head built by hand
    # (tests) needs not name it; a game without a guild is always off server.
    off_server: bool = field(default=False, kw_only=True)

    @property
    def venue(self) -> Venue:
        """Where the game is played: the server where the bot is, or the channel where it has none."""
        return Venue.of(self.guild_id, self.channel_id, self.off_server)

    def with_state(self, state: GameState, snapshot: str, *, verified: bool = False) -> StoredGame:
        """The stored game, its ``state`` (whose canonical JSON is ``snapshot``)."""
        columns = {name: getattr(self, name) for name in _HEAD_FIELDS}
        return StoredGame(**columns, state=state, snapshot=snapshot, verified=verified)


# A game's columns, named once (``fields()`` walks the class at every call: 10,000 games load at start).
_HEAD_FIELDS = tuple(f.name for f in fields(GameHead))


@dataclass
class StoredGame(GameHead):
    """A stored game with its engine state. ``version`` = actions logged.

    ``state`` is never missing: a game whose data cannot give a state is quarantined, not handed out.
    ``snapshot`` is the canonical JSON of ``state`` as last committed (or read), from which the state is
    restored when a commit fails and the database cannot be read again; ``needs_reload`` is then set:
    the state is the last committed one, and the log may have passed it (the failed commit may have
    landed), so nothing may be applied to it until :meth:`GameRepository.reload` succeeds.
    """

    state: GameState
    snapshot: str
    verified: bool = False  # True once the state was compared with a full replay of the log
    finished: FinishedGame | None = None  # set by apply_action when its action ended the game
    needs_reload: bool = False


@dataclass(frozen=True)
class LoadResult:
    """What ``load_active`` found: the playable games, and the ids it rebuilt or set aside."""

    games: list[StoredGame]
    rebuilt: list[int] = field(default_factory=list)
    quarantined: list[int] = field(default_factory=list)
    reasons: dict[int, str] = field(default_factory=dict)  # why each unplayable game was set aside


@dataclass(frozen=True)
class GameEnd:
    """What the service computed when a game ended, for storage to write with it in one transaction:
    the final state (``snapshot``, its canonical JSON), the results per seat, and the ratings
    (``rating``: None when the game is not rated; ``unrate``: it was dealt rated but finishes unrated,
    someone took a hint). Storage computes none of it: it runs no game's rules."""

    snapshot: str
    results: list[SeatResult]
    rating: RatingPlan | None = None
    unrate: bool = False


@dataclass(frozen=True)
class FinishedGame:
    game_id: int
    results: list[SeatResult]
    rating_changes: list[RatingChange]
