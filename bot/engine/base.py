"""What every engine's options, actions and events share: their JSON form."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, ClassVar, Self

from bot.engine.errors import InvalidOptions

JSON = dict[str, Any]


class OptionsBase:
    """Mixin for an engine's frozen ``Options`` dataclass: to and from a JSON dict."""

    __slots__ = ()

    def to_dict(self) -> JSON:
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls, data: JSON) -> Self:
        known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        unknown = set(data) - known
        if unknown:
            raise InvalidOptions("error.invalid_option", option=sorted(unknown)[0])
        return cls(**data)


class Action:
    """A move by one seat. Subclasses are frozen dataclasses with a stable ``type`` name."""

    __slots__ = ()
    type: ClassVar[str]

    def to_dict(self) -> JSON:
        raise NotImplementedError


class Event:
    """Something that happened, for the log and the renderer. Events are public (GAME-INFO-1):
    none names a hidden card. Subclasses are slotted dataclasses with a stable ``kind``."""

    __slots__ = ()
    kind: ClassVar[str]

    def to_dict(self) -> JSON:
        out: JSON = {"kind": self.kind}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out
