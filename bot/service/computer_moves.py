"""The move a computer player makes for a seat: its level's policy on what that seat sees (pure)."""

from __future__ import annotations

import random
from typing import Any

from bot.service.types import Table, log


def computer_move(table: Table, seat: int, level: str | None = None) -> Any:
    """The action the seat's computer player (``level``, else the seat's own, else ``normal``: a timed-out
    turn) takes now: its level's policy on the seat's view, drawn from a random source seeded by the
    game's seed, its version and the seat, so a replay makes the same move. A policy that fails or
    answers an illegal move is logged, and the first legal action is taken."""
    game = table.state
    level = level or table.ai_level(seat) or "normal"
    levels = table.game.levels
    policy = levels.get(level, levels["normal"])
    rng = random.Random(f"{table.stored.seed}:{table.version}:{seat}")
    try:
        action = policy(game.view(seat), rng)
        if action in game.legal_actions(seat):
            return action
    except Exception:
        log.exception("computer player failed", extra={"game_id": table.id, "seat": seat, "level": level})
    return game.legal_actions(seat)[0]
