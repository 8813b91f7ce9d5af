"""Reading in-game custom_ids back (their format: :mod:`bot.games.buttons`, which the panels write).

Anything that does not parse, or names a game nobody registered, is a forged id and is refused.
"""

from __future__ import annotations

from bot.games import registry
from bot.games.buttons import MAX_CUSTOM_ID, MAX_LABEL, MAX_PER_ROW, MAX_ROWS, PATTERN, ButtonId, encode

__all__ = [
    "MAX_CUSTOM_ID",
    "MAX_LABEL",
    "MAX_PER_ROW",
    "MAX_ROWS",
    "ButtonId",
    "decode",
    "encode",
    "loggable",
]


def decode(custom_id: str) -> ButtonId | None:
    """The parts of an in-game custom_id, or None when it is not one of ours (forged or foreign)."""
    if not isinstance(custom_id, str) or len(custom_id) > MAX_CUSTOM_ID:
        return None
    match = PATTERN.match(custom_id)
    if match is None or match["prefix"] not in registry.BY_PREFIX:  # the prefix of a game we know
        return None
    return ButtonId(
        match["prefix"], int(match["game_id"]), int(match["version"]), match["act"], int(match["arg"])
    )


def loggable(custom_id: object) -> str:
    """What a log line may say of a clicked custom_id: everything but the argument, which on a private
    panel may name a card of the clicker's hand (a hand button may carry its card)."""
    bid = decode(custom_id) if isinstance(custom_id, str) else None
    if bid is not None:
        return f"{bid.prefix}:{bid.game_id}:{bid.version}:{bid.act}"
    return str(custom_id)[:40]
