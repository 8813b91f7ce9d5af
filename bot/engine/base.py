"""What every engine's options, actions and events share: their JSON form."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import fields
from typing import Any, ClassVar, Protocol, Self

from bot.engine.errors import InvalidOptions

JSON = dict[str, Any]

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """The dataclass field names of ``cls``, in order (cached: ``dataclasses.fields`` is slow and
    every view serialises the options)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


class OptionsBase:
    """Mixin for an engine's frozen ``Options`` dataclass: to and from a JSON dict."""

    __slots__ = ()

    def to_dict(self) -> JSON:
        return {name: getattr(self, name) for name in _field_names(type(self))}

    @classmethod
    def from_dict(cls, data: JSON) -> Self:
        known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        unknown = set(data) - known
        if unknown:
            raise InvalidOptions("error.invalid_option", option=sorted(unknown)[0])
        return cls(**data)


class Action:
    """A move by one seat. Subclasses are frozen dataclasses with a stable ``type`` name; their JSON
    is that ``type`` and their fields, in order (read back by :func:`bot.engine.skeleton.action_reader`)."""

    __slots__ = ()
    type: ClassVar[str]

    def to_dict(self) -> JSON:
        out: JSON = {"type": self.type}
        for name in _field_names(type(self)):
            out[name] = getattr(self, name)
        return out


class GameState(Protocol):
    """An engine's ``State`` as the shared machinery holds it (storage, the table service, the UI): what
    every engine's game offers (see :mod:`bot.engine`). A stored game always has one: storage never
    hands out a game without its state, so no caller has to ask whether it is there."""

    @property
    def phase(self) -> str: ...
    @property
    def round(self) -> int: ...
    @property
    def turn(self) -> int | None: ...
    @property
    def options(self) -> Any: ...
    @property
    def is_over(self) -> bool: ...

    def seats_to_act(self) -> list[int]: ...

    def legal_actions(self, seat: int) -> Sequence[Any]: ...

    def apply(self, seat: int, action: Any) -> Sequence[Event]: ...

    def view(self, viewer: int | None = None) -> JSON: ...

    def results(self) -> JSON: ...

    def to_dict(self) -> JSON: ...


class Event:
    """Something that happened, for the log and the renderer. Events are public (GAME-INFO-1):
    none names a hidden card. Subclasses are slotted dataclasses with a stable ``type`` (their wire name,
    as an action's; a game's name is its ``kind``)."""

    __slots__ = ()
    type: ClassVar[str]

    def to_dict(self) -> JSON:
        out: JSON = {"type": self.type}
        for name in _field_names(type(self)):
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        return out


def check_seating(players: Sequence[str], seed: object, min_players: int, max_players: int) -> None:
    """Refuse a table with too few or too many players, a player seated twice, or a non-integer seed."""
    if not min_players <= len(players) <= max_players:
        raise InvalidOptions("error.player_count", min=min_players, max=max_players)
    if len(set(players)) != len(players):
        raise InvalidOptions("error.duplicate_player")
    if type(seed) is not int:
        raise InvalidOptions("error.invalid_option", option="seed")


def derived_rng(kind: str, seed: int, round_number: int, purpose: str, n: int = 0) -> random.Random:
    """GAME-RNG-1: every shuffle has its own generator derived from the game's seed, so the state
    never has to carry a generator and replay is exact."""
    return random.Random(f"{kind}:{seed}:{round_number}:{purpose}:{n}")
