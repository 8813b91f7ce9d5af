"""The read-only snapshot of a committed table that an event carries: its facts, and what each seat may see.

A :class:`TableSnapshot` is made right after a write is stored (under the channel lock) by
:meth:`TableSnapshot.of`. Making one copies only scalars, the meta, the seats and the few recent events
(a few microseconds); what a seat may see is computed when it is first asked for, and kept.

THE RULE: a snapshot answers for its own version, never for a newer one, whenever it is asked. Its
views come from the live table while that table is still at this version and no action is being
applied to it (``Table.committing``: the engine changes the state in place before storage has the
action, so in that window the state runs ahead of its version). Otherwise they come from the
committed canonical JSON storage wrote for this version (``StoredGame.snapshot``, computed at every
commit anyway): the state is rebuilt from it once, privately, and every later question reads that.

It exposes no engine state (no ``state`` attribute, no seed, no hidden card): a surface asks
``view(seat)`` for what that seat may see, ``view(None)`` for a spectator, so no surface rebuilds the
hiding of cards itself. Privately it keeps a reference to its live table, the committed JSON and what it
computed (``_table``, ``_json``, ``_memo``), none of them in its ``repr``. A view it returns is shared by
every reader of the snapshot: read it, never change it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from bot.engine.base import JSON, GameState
from bot.service.types import PanelState, Table, TableFacts
from bot.storage import Seat
from bot.storage.game_types import FinishedGame

T = TypeVar("T")

_STATE = "state"  # the memo's key of the state rebuilt from the committed JSON
_RESULTS = "results"


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class TableSnapshot(TableFacts):
    """A table as committed at ``version``: its public facts, and ``view(seat)`` (see the module doc).

    The derived reads (``names()``, ``turn_seat()``, ``turn_user()``, ``timer()``, ``replaced()``,
    ``idle()``, ``ai_level()``, ``human_seats()``, ``waited_for()``, ``seat_of()``, ``round_waiting()``,
    ``turn_limit``, ``long_game``, ``turns``, ``votes``, ``hinted``, ``missed()``, ``finished``,
    ``game``) are :class:`~bot.service.types.TableFacts`', the same code as the live table's."""

    table_id: int
    kind: str  # the game's name
    guild_id: int | None
    channel_id: int
    message_id: int | None  # the public table message, as stored when the snapshot was made
    host_id: int | None
    version: int  # the committed version: the length of the action log
    seats: tuple[Seat, ...]
    meta: Mapping[str, Any]  # a read-only copy: timer, turns, votes, missed, replaced, idle, hints...
    options: Mapping[str, Any]  # the game's options as stored (JSON form), read-only
    status: str  # active, finished, cancelled or quarantined
    rated: bool
    phase: str
    round: int
    turn: int | None
    to_act: tuple[int, ...]  # the seats the game waits for
    is_over: bool
    recent: tuple[tuple[int, tuple[JSON, ...]], ...]  # (seat, its action's events), oldest first
    resumed: bool  # loaded at start after a restart, nothing played since
    ended_by: int | None  # the user who ended it by hand
    gone: bool  # cancelled because its channel or server is gone
    needs_reload: bool  # the database did not answer: this is the last committed state, moves wait
    finished_game: FinishedGame | None  # what the game's end wrote (results rows, rating changes)
    _table: Table = field(repr=False)
    _json: str = field(repr=False)
    _memo: dict[object, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def of(cls, table: Table) -> TableSnapshot:
        """The snapshot of ``table`` as it is committed now (the channel lock held, no action being
        applied: a snapshot made then would copy a state that runs ahead of its version)."""
        if table.committing:
            raise RuntimeError("a table being committed has no snapshot yet")
        stored = table.stored
        state = table.state
        return cls(
            table_id=stored.id,
            kind=stored.kind,
            guild_id=stored.guild_id,
            channel_id=stored.channel_id,
            message_id=stored.message_id,
            host_id=stored.host_id,
            version=stored.version,
            seats=tuple(stored.seats),
            meta=MappingProxyType(dict(stored.meta)),
            options=MappingProxyType(dict(stored.options)),
            status=stored.status,
            rated=stored.rated,
            phase=state.phase,
            round=state.round,
            turn=state.turn,
            to_act=tuple(state.seats_to_act()),
            is_over=state.is_over,
            recent=tuple((seat, tuple(events)) for seat, events in table.recent),
            resumed=table.resumed,
            ended_by=table.ended_by,
            gone=table.gone,
            needs_reload=table.needs_reload,
            finished_game=stored.finished,
            _table=table,
            _json=stored.snapshot,
        )

    # ------------------------------------------------------------------ what each seat may see

    def view(self, seat: int | None) -> JSON:
        """What ``seat`` may see of the table at this version; ``None``: a spectator. Computed once."""
        if seat is not None and not 0 <= seat < len(self.seats):
            raise ValueError(f"no seat {seat} at this table")
        key = ("view", seat)
        memo = self._memo
        if key not in memo:
            memo[key] = self._read(lambda state: state.view(seat))
        view: JSON = memo[key]
        return view

    def results(self) -> JSON:
        """The engine's public results at this version (scores, totals; ranks once the game is over)."""
        memo = self._memo
        if _RESULTS not in memo:
            memo[_RESULTS] = self._read(lambda state: state.results())
        results: JSON = memo[_RESULTS]
        return results

    def panel(self, seat: int, mode: int = 0) -> PanelState:
        """The seat's private panel at this version, in ``mode`` (the two-click moves' step)."""
        return PanelState(
            self.table_id, self.version, seat, self.view(seat), self.names(), mode, kind=self.kind
        )

    def _read(self, ask: Callable[[GameState], T]) -> T:
        """``ask`` the committed state of this version: the live one while the table is still there,
        else the one rebuilt (once) from the committed JSON."""
        rebuilt: GameState | None = self._memo.get(_STATE)
        if rebuilt is None:
            table = self._table
            live = table.stored
            if live.version == self.version and not table.committing and live.snapshot is self._json:
                return ask(table.state)
            rebuilt = self.game.engine.State.from_dict(json.loads(self._json))
            self._memo[_STATE] = rebuilt
        return ask(rebuilt)

    # ------------------------------------------------------------------ the raw reads of TableFacts

    @property
    def _kind(self) -> str:
        return self.kind

    @property
    def _seats(self) -> Sequence[Seat]:
        return self.seats

    @property
    def _meta(self) -> Mapping[str, Any]:
        return self.meta

    @property
    def _status(self) -> str:
        return self.status

    @property
    def _phase(self) -> str:
        return self.phase

    @property
    def _turn(self) -> int | None:
        return self.turn

    def _to_act(self) -> Sequence[int]:
        return self.to_act

    @property
    def _ended_by(self) -> int | None:
        return self.ended_by
