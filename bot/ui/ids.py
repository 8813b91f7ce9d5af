"""custom_id templates of in-game buttons: they carry the game id and the state version.

A button's custom_id is ``<game>:<id>:<version>:<act>:<arg>`` (for example ``sk:42:17:tk:5``), at most
100 characters (Discord's limit). The version lets the service refuse a stale or replayed click with
a friendly message and a fresh panel. Anything that does not parse is a forged id and is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.games import registry

MAX_CUSTOM_ID = 100
MAX_LABEL = 80
MAX_ROWS = 5
MAX_PER_ROW = 5

PATTERN = re.compile(
    r"^(?P<prefix>[a-z]{2}):(?P<game>\d{1,18}):(?P<version>\d{1,9}):(?P<act>[a-z]{2}):(?P<arg>-?\d{1,4})$"
)


@dataclass(frozen=True, slots=True)
class ButtonId:
    """A parsed in-game custom_id."""

    prefix: str
    game: int
    version: int
    act: str
    arg: int

    def encode(self) -> str:
        return f"{self.prefix}:{self.game}:{self.version}:{self.act}:{self.arg}"


def encode(prefix: str, game: int, version: int, act: str, arg: int = 0) -> str:
    custom_id = ButtonId(prefix, game, version, act, arg).encode()
    if PATTERN.match(custom_id) is None:
        raise ValueError(f"bad custom_id parts: {custom_id!r}")
    return custom_id


def decode(custom_id: str) -> ButtonId | None:
    """The parts of an in-game custom_id, or None when it is not one of ours (forged or foreign)."""
    if not isinstance(custom_id, str) or len(custom_id) > MAX_CUSTOM_ID:
        return None
    match = PATTERN.match(custom_id)
    if match is None or match["prefix"] not in registry.BY_PREFIX:  # the prefix of a game we know
        return None
    return ButtonId(
        match["prefix"], int(match["game"]), int(match["version"]), match["act"], int(match["arg"])
    )


def loggable(custom_id: object) -> str:
    """What a log line may say of a clicked custom_id: everything but the argument, which on a private
    panel may name a card of the clicker's hand (a Skip-Bo hand button carries its card)."""
    bid = decode(custom_id) if isinstance(custom_id, str) else None
    if bid is not None:
        return f"{bid.prefix}:{bid.game}:{bid.version}:{bid.act}"
    return str(custom_id)[:40]
