"""The custom_id of an in-game button, as a game's panel writes it: ``<game>:<id>:<version>:<act>:<arg>``.

For example ``sk:42:17:tk:5``, at most 100 characters (Discord's limit). The version lets the service
refuse a stale or replayed click with a friendly message and a fresh panel. Reading one back, and
refusing the ids of games nobody registered, is :mod:`bot.ui.ids` (it knows the registry; a game's
panel only writes, so this module imports nothing of the bot).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_CUSTOM_ID = 100
MAX_LABEL = 80
MAX_ROWS = 5
MAX_PER_ROW = 5

PATTERN = re.compile(
    r"^(?P<prefix>[a-z]{2}):(?P<game_id>\d{1,18}):(?P<version>\d{1,9}):(?P<act>[a-z]{2}):(?P<arg>-?\d{1,4})$"
)


@dataclass(frozen=True, slots=True)
class ButtonId:
    """A parsed in-game custom_id."""

    prefix: str
    game_id: int
    version: int
    act: str
    arg: int

    def encode(self) -> str:
        return f"{self.prefix}:{self.game_id}:{self.version}:{self.act}:{self.arg}"


def encode(prefix: str, game_id: int, version: int, act: str, arg: int = 0) -> str:
    custom_id = f"{prefix}:{game_id}:{version}:{act}:{arg}"  # ButtonId.encode, without building one
    if PATTERN.match(custom_id) is None:
        raise ValueError(f"bad custom_id parts: {custom_id!r}")
    return custom_id
