"""The shape every engine's state shares, written once: the base of the state's dataclass, the action
that deals the next round, the phases every game has, and the reader of serialised actions.

Pure like the rest of :mod:`bot.engine`: no discord, no I/O, no global random (every shuffle draws from
:meth:`StateSkeleton._rng`, derived from the game's seed). The skeleton does not care what the state
class is called, nor which game it plays. A state dataclass derives from :class:`StateSkeleton` and
says its game in its class line (``kind=KIND, seats=(MIN_PLAYERS, MAX_PLAYERS), options=Options``,
read back as ``KIND``, ``MIN_PLAYERS``, ``MAX_PLAYERS`` and ``OPTIONS``), its ``TURN_ACTIONS`` (and,
for actions taken outside the turns, ``OTHER_ACTIONS``) as class attributes; it then has:

- the first fields: ``players``, ``seed``, ``options``, ``round`` and ``phase`` (in this order, so
  a state's fields, its equality and its stored form are what they were); its own come after, a
  ``turn`` and ``totals`` among them;

- ``new(players, seed, options)``: the seating checked (:func:`~bot.engine.base.check_seating`), the
  options validated, the state made with a zero total per seat, the first round dealt (``_deal``);
- ``replay(players, seed, options, actions)``: a new game with its log applied (GAME-RNG-1);
- ``_rng(purpose, n)``: the round's generator for one purpose (:func:`~bot.engine.base.derived_rng`);
- ``apply(seat, action)``'s checks and dispatch: a seat of the table, a game not over;
  :class:`NextRound` deals (``_deal``) between rounds only; a turn action is a known one
  (:class:`~bot.engine.errors.MalformedAction`), in the ``play`` phase, by the seat whose turn it is,
  then its handler runs; an ``OTHER_ACTIONS`` handler checks its own phase and seat; the
  ``_after_action`` hook ends every action;
- ``seats_to_act()`` for the shared phases (``_seats_to_act_in`` for a game's own) and ``is_over``;
- the head of ``view`` (``_view_head``), of ``to_dict`` (``_dict_head``) and of ``from_dict``
  (``_head_from``: it refuses another game's state).

What stays each game's own, in its engine: its options and their checks; its actions (their fields
and rules), its events and its round results; the deal (``_deal``: what a round starts with, who plays
first, the first events); each action's handler (what it checks, what it changes, how a turn ends,
how a round is scored and the game won); the phases of its own (a phase of initial reveals, say) and
the actions taken in them; what runs after every action (a draw pile rebuilt, say); the legal actions
(each engine's hot path, written for speed); the body of its view (what each seat may see: the hiding
of cards is the game's, GAME-INFO-1) and of its stored state; its results, ranks and standing.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import MISSING, dataclass, fields
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Final,
    Generic,
    Protocol,
    Self,
    TypeAlias,
    TypeVar,
    get_type_hints,
)

from bot.engine.base import JSON, Action, Event, check_seating, derived_rng
from bot.engine.errors import GameOver, MalformedAction, NotAPlayer, NotYourTurn, WrongPhase

# The phases every game has: its turns, between two rounds (waiting for NextRound), and its end.
PLAY: Final = "play"
ROUND_OVER: Final = "round_over"
GAME_OVER: Final = "game_over"


@dataclass(frozen=True, slots=True)
class NextRound(Action):
    """Deal the next round once a round has been scored (any seat may ask)."""

    type: ClassVar[str] = "next_round"


# What ``apply`` does with one kind of action once it has passed the shared checks: (state, seat,
# action, events), the events appended as they happen; an illegal action raises before it changes
# anything.
Handler: TypeAlias = Callable[[Any, int, Any, list[Event]], None]


class GameOptions(Protocol):
    """What the skeleton asks of a game's options (an :class:`~bot.engine.base.OptionsBase` dataclass)."""

    def to_dict(self) -> JSON: ...

    def validate(self, players: int) -> None: ...


Opts = TypeVar("Opts", bound=GameOptions)


@dataclass(eq=True, slots=True)
class StateSkeleton(Generic[Opts]):
    """The base of an engine's state dataclass (``@dataclass(eq=True, slots=True)`` too): its first
    fields, and what the module docstring lists. The class says its game in its bases:
    ``class State(StateSkeleton[Options], kind=KIND, seats=(MIN_PLAYERS, MAX_PLAYERS), options=Options)``."""

    KIND: ClassVar[str]
    MIN_PLAYERS: ClassVar[int]
    MAX_PLAYERS: ClassVar[int]
    OPTIONS: ClassVar[type[Any]]  # its ``Options``: ``Options()``, ``from_dict``, ``validate(players)``
    # The actions of a turn: allowed in the ``play`` phase, to the seat whose turn it is.
    TURN_ACTIONS: ClassVar[Mapping[type[Action], Handler]] = {}
    # Actions outside the turns (an initial reveal by any seat, say): the handler checks phase and seat.
    OTHER_ACTIONS: ClassVar[Mapping[type[Action], Handler]] = {}

    # The first fields of every state (a game may give ``phase`` another default: its first phase).
    players: list[str]
    seed: int
    options: Opts
    round: int = 0
    phase: str = PLAY

    if TYPE_CHECKING:  # two fields every game has, where its dataclass puts them (with a default)

        @property
        def turn(self) -> int | None: ...

        @property
        def totals(self) -> list[int]: ...

        @totals.setter
        def totals(self, value: list[int]) -> None: ...

    def __init_subclass__(
        cls, kind: str | None = None, seats: tuple[int, int] | None = None, options: type[Opts] | None = None
    ) -> None:
        # ``@dataclass(slots=True)`` makes the class anew, without these: they are kept from the first.
        super(StateSkeleton, cls).__init_subclass__()  # not super(): the class was made anew
        if kind is not None:
            cls.KIND = kind
        if seats is not None:
            cls.MIN_PLAYERS, cls.MAX_PLAYERS = seats
        if options is not None:
            cls.OPTIONS = options

    # ---------------------------------------------------------------- creation

    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Opts | None = None) -> Self:
        """A new game with the first round dealt (see :meth:`_deal`)."""
        chosen = options or cls.OPTIONS()
        check_seating(players, seed, cls.MIN_PLAYERS, cls.MAX_PLAYERS)
        chosen.validate(len(players))
        game = cls(players=list(players), seed=seed, options=chosen)
        game.totals = [0] * len(players)
        game._deal()
        return game

    @classmethod
    def replay(
        cls, players: Sequence[str], seed: int, options: Any, actions: Iterable[tuple[int, Action]]
    ) -> Self:
        """Rebuild a game from its seed, options, players and action log (GAME-RNG-1)."""
        game = cls.new(players, seed, options)
        for seat, action in actions:
            game.apply(seat, action)
        return game

    def _rng(self, purpose: str, n: int = 0) -> random.Random:
        return derived_rng(self.KIND, self.seed, self.round, purpose, n)

    def _deal(self) -> list[Event]:
        """Deal the next round (the first one too): the round number goes up, its events are returned."""
        raise NotImplementedError

    # ---------------------------------------------------------------- queries

    @property
    def is_over(self) -> bool:
        return self.phase == GAME_OVER

    def seats_to_act(self) -> list[int]:
        """The seat whose turn it is; every seat between rounds (any may deal); none once over; in a
        phase of the game's own, :meth:`_seats_to_act_in`'s."""
        phase = self.phase
        if phase == PLAY:
            assert self.turn is not None
            return [self.turn]
        if phase == ROUND_OVER:
            return list(range(len(self.players)))
        if phase == GAME_OVER:
            return []
        return self._seats_to_act_in(phase)

    def _seats_to_act_in(self, phase: str) -> list[int]:
        """The seats that may act in a phase of the game's own (none in any other)."""
        return []

    # ---------------------------------------------------------------- applying

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply one action of ``seat``; an illegal one raises GameError and changes nothing."""
        if type(seat) is not int or not 0 <= seat < len(self.players):
            raise NotAPlayer()
        phase = self.phase
        if phase == GAME_OVER:
            raise GameOver()
        kind = type(action)
        if kind is NextRound:
            if phase != ROUND_OVER:
                raise WrongPhase("error.round_not_over")
            events = self._deal()
        else:
            events = []
            handler = self.TURN_ACTIONS.get(kind)
            if handler is not None:
                if phase != PLAY:
                    raise WrongPhase("error.not_playing_phase")
                if seat != self.turn:
                    raise NotYourTurn()
            else:
                handler = self.OTHER_ACTIONS.get(kind)
                if handler is None:
                    raise MalformedAction()
            handler(self, seat, action, events)
        self._after_action(events)
        return events

    def _after_action(self, events: list[Event]) -> None:
        """What the game does after every action that was applied (nothing here)."""

    # ---------------------------------------------------------------- views and storage

    def _view_head(self, viewer: int | None) -> JSON:
        """The first keys of every view: the game, who looks, the table, the round and whose turn."""
        return {
            "kind": self.KIND,
            "viewer": viewer,
            "players": list(self.players),
            "options": self.options.to_dict(),
            "round": self.round,
            "phase": self.phase,
            "turn": self.turn,
        }

    def _dict_head(self) -> JSON:
        """The first keys of every stored state."""
        return {
            "kind": self.KIND,
            "players": list(self.players),
            "seed": self.seed,
            "options": self.options.to_dict(),
            "round": self.round,
            "phase": self.phase,
        }

    @classmethod
    def _head_from(cls, data: JSON) -> JSON:
        """The fields of :meth:`_dict_head` read back, for the class's constructor; another game's
        state is refused."""
        if data.get("kind") != cls.KIND:
            raise MalformedAction("error.wrong_game_kind")
        return {
            "players": list(data["players"]),
            "seed": data["seed"],
            "options": cls.OPTIONS.from_dict(data["options"]),
            "round": data["round"],
            "phase": data["phase"],
        }


# --------------------------------------------------------------------------------------------------
# Reading serialised actions

_FIELD_TYPES: Final = (int, str)


def action_reader(*kinds: type[Action]) -> Callable[[Any], Action]:
    """An engine's ``action_from_dict`` for these action classes (frozen dataclasses of ``int`` and
    ``str`` fields): a dict with their ``type``, every field without a default and no other key, each
    of its type (an ``int`` exactly: not a bool, not a float); anything else raises MalformedAction.
    An action without fields reads as one shared instance."""
    readers: dict[str, tuple[type[Action], tuple[tuple[str, type, bool], ...], Action | None]] = {}
    for cls in kinds:
        hints = get_type_hints(cls)
        spec = []
        for f in fields(cls):  # type: ignore[arg-type]
            kind = hints[f.name]
            if kind not in _FIELD_TYPES:
                raise TypeError(f"{cls.__name__}.{f.name}: an action's field is an int or a str")
            spec.append((f.name, kind, f.default is MISSING and f.default_factory is MISSING))
        readers[cls.type] = (cls, tuple(spec), None if spec else cls())

    def action_from_dict(data: Any) -> Action:
        """Parse a serialised action; anything malformed raises MalformedAction."""
        if not isinstance(data, dict):
            raise MalformedAction()
        kind = data.get("type")
        reader = readers.get(kind) if isinstance(kind, str) else None
        if reader is None:
            raise MalformedAction()
        cls, spec, shared = reader
        if shared is not None:
            if len(data) != 1:
                raise MalformedAction()
            return shared
        values: dict[str, Any] = {}
        for name, field_type, required in spec:
            if name in data:
                value = data[name]
                if (type(value) is not int) if field_type is int else not isinstance(value, str):
                    raise MalformedAction()
                values[name] = value
            elif required:
                raise MalformedAction()
        if len(values) + 1 != len(data):  # a key that is no field
            raise MalformedAction()
        return cls(**values)

    return action_from_dict
