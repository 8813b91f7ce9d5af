"""The turn clock: the timer a game's state calls for, and the meta a commit writes with it (pure, no I/O).

A game's meta holds its one running timer, ``{"what": "turn" | "round", "token": [phase, round, turn],
"due": ms, "half": ms, "reminded", "fired"}`` (see :mod:`bot.service`). This module only computes it,
from the table's stored meta, the state and the service's clock; what writes it is the one writer of
tables (:class:`~bot.service.writer.TableWriter`: with an action's commit, or a meta write of its own),
and what acts on it is the sweeper's game handler (:mod:`bot.service.timers`).
"""

from __future__ import annotations

from typing import Any

from bot.clock import Clock
from bot.service.types import (
    ASLEEP,
    FIRST_TURN_GRACE,
    PAUSED_HALF,
    PAUSED_LEFT,
    ROUND_OVER,
    WAKE_FLOOR_MS,
    Table,
    token_of,
)


class TurnClock:
    """The timers a table's state calls for, on the service's clock and delays."""

    def __init__(self, clock: Clock, *, round_delay: float, ai_delay: float) -> None:
        self._clock = clock
        self._round_delay = round_delay
        self._ai_delay = ai_delay

    def timer_for(self, table: Table, game: Any, old: dict[str, Any] | None) -> dict[str, Any] | None:
        """The timer ``game`` (the table's state, or the one an action is making) calls for: kept while
        its token holds, a new one when the turn moved."""
        if game.is_over:
            return None
        token = token_of(game)
        now = self._clock.now_ms()
        if game.phase == ROUND_OVER:
            if old is not None and old.get("token") == token:
                return old
            delay = self._round_delay if table.human_seats() else min(self._round_delay, self._ai_delay)
            return {"what": "round", "token": token, "due": now + int(delay * 1000)}
        limit = table.turn_limit
        if not limit or not [s for s in game.seats_to_act() if table.ai_level(s) is None]:
            return None  # nobody to wait for (a computer took the last human's seat, say)
        if old is not None and old.get("token") == token and old.get("what") == "turn":
            return old
        grace = table.stored.meta.get(FIRST_TURN_GRACE)
        if old is None and table.turns == 0 and isinstance(grace, int) and grace > 0:
            # The game's first timer (made at its deal; the next turn's replaces a timer, and its
            # commit counts the turn only after this is computed): see FIRST_TURN_GRACE.
            limit += grace
        return {
            "what": "turn",
            "token": token,
            "due": now + limit * 1000,
            "half": now + limit * 500,
            "reminded": False,
            "fired": False,
        }

    def meta_after(
        self, table: Table, game: Any, player_seat: int | None, turn_moved: bool
    ) -> dict[str, Any] | None:
        """New meta for the commit of an action (None: unchanged): the timer, the missed counts, the
        count of turns started (``turn_moved``: a turn or a round ended) and the next-round votes,
        which last only while the round is over."""
        meta = table.stored.meta
        timer = self.timer_for(table, game, table.timer())
        missed = dict(meta.get("missed") or {})
        if player_seat is not None:
            missed.pop(str(player_seat), None)
        votes_end = game.phase != ROUND_OVER and "votes" in meta
        unchanged = timer == meta.get("timer") and missed == dict(meta.get("missed") or {})
        if unchanged and not votes_end and not turn_moved:
            return None
        new = {**meta, "timer": timer, "missed": missed}
        if turn_moved:
            new["turns"] = table.turns + 1
        if votes_end:
            del new["votes"]
        return new

    def synced_meta(self, table: Table) -> dict[str, Any] | None:
        """The meta with the timer the state calls for; None if the stored timer already is that (at
        start, after a seat changed hands, after a deal)."""
        timer = self.timer_for(table, table.state, table.timer())
        return None if timer == table.timer() else {**table.stored.meta, "timer": timer}

    def asleep_meta(self, meta: dict[str, Any]) -> dict[str, Any]:
        """``meta`` asleep (a table where the bot is not a member, that no token can show): since now,
        its running timer paused with the time it had left (see :data:`bot.service.types.ASLEEP`)."""
        now = self._clock.now_ms()
        new = {**meta, ASLEEP: now}
        timer = meta.get("timer")
        if isinstance(timer, dict) and PAUSED_LEFT not in timer:
            paused = {**timer, PAUSED_LEFT: max(0, int(timer["due"]) - now)}
            if "half" in timer:
                paused[PAUSED_HALF] = max(0, int(timer["half"]) - now)
            new["timer"] = paused
        return new

    def woken_meta(self, meta: dict[str, Any]) -> dict[str, Any]:
        """``meta`` awake again: its paused timer runs from now with the time it had left (a turn at
        least :data:`WAKE_FLOOR_MS`; the reminder where it was, or at once if it was due)."""
        now = self._clock.now_ms()
        new = {k: v for k, v in meta.items() if k != ASLEEP}
        timer = meta.get("timer")
        if isinstance(timer, dict) and PAUSED_LEFT in timer:
            left = int(timer[PAUSED_LEFT])
            resumed = {k: v for k, v in timer.items() if k not in (PAUSED_LEFT, PAUSED_HALF)}
            resumed["due"] = now + (max(left, WAKE_FLOOR_MS) if timer.get("what") == "turn" else left)
            if PAUSED_HALF in timer:
                resumed["half"] = now + min(int(timer[PAUSED_HALF]), left)
            new["timer"] = resumed
        return new
