"""Computer players: one asyncio task per table that plays the computer seats in turn."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from bot.engine.errors import GameError
from bot.service.core import ServiceCore
from bot.service.table import ROUND_OVER, Refused, Table, log


class ComputerPart(ServiceCore):
    """When and how a computer seat plays."""

    def _arm(self, table: Table) -> None:
        """Schedule the computer players' moves (the round pause is a timer, see :meth:`_timer_for`)."""
        if self._closed or table.finished:
            return
        game = table.game
        if game.phase == ROUND_OVER:
            return
        ai_to_act = any(table.ai_level(s) is not None for s in game.seats_to_act())
        if ai_to_act and (table.ai_task is None or table.ai_task.done()):
            table.ai_task = asyncio.create_task(self._ai_loop(table), name=f"ai-{table.id}")

    async def _ai_loop(self, table: Table) -> None:
        while True:
            await asyncio.sleep(self.ai_delay)
            async with self.lock(table.channel_id):
                if self.tables.get(table.id) is not table or table.finished:
                    return
                if table.needs_reload:  # waiting for the database: its reload arms us again
                    table.ai_task = None
                    return
                game = table.game
                seats = [s for s in game.seats_to_act() if table.ai_level(s) is not None]
                if game.phase == ROUND_OVER or not seats:
                    table.ai_task = None
                    return
                seat = seats[0]
                action = self._ai_decide(table, seat)
                try:
                    await self._commit(table, seat, action)
                except (Refused, GameError):
                    log.warning("computer move refused", extra={"game_id": table.id, "seat": seat})
                    table.ai_task = None
                    return
                if table.ai_task is not asyncio.current_task():
                    return  # _commit armed another loop (cannot happen while we run, but be safe)

    def _ai_decide(self, table: Table, seat: int, level: str | None = None) -> Any:
        game = table.game
        level = level or table.ai_level(seat) or "normal"
        levels = table.kind.levels
        policy = levels.get(level, levels["normal"])
        rng = random.Random(f"{table.stored.seed}:{table.version}:{seat}")
        try:
            action = policy(game.view(seat), rng)
            if action in game.legal_actions(seat):
                return action
        except Exception:
            log.exception("computer player failed", extra={"game_id": table.id, "seat": seat, "level": level})
        return game.legal_actions(seat)[0]
