"""The click path: a private panel's click decoded, applied by the engine, committed, answered."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from bot.engine.errors import GameError
from bot.service.core import ServiceCore
from bot.service.table import (
    HINT_ACT,
    MODE_ACT,
    PLAY,
    REFRESH_ACT,
    PanelState,
    Refused,
    Stale,
    Table,
    log,
    token_of,
)
from bot.storage import StorageError


class ClickPart(ServiceCore):
    """Panels and moves: the only place an action reaches the engine and the log."""

    async def open_panel(self, game_id: int, user_id: int) -> PanelState:
        table = await self._table(game_id)
        async with self.lock(table.channel_id):
            if table.finished:
                raise Refused("table.error.game_finished")
            return self._panel(table, self._seat(table, user_id))

    def options_of(self, table: Table) -> Any:
        return table.game.options

    async def options_for(self, game_id: int) -> Any:
        table = await self._table(game_id)
        return table.game.options

    # ------------------------------------------------------------------ games: clicks

    async def click(self, game_id: int, version: int, user_id: int, act: str, arg: int) -> PanelState:
        """A click on a private panel (or Next round on the table); returns the panel to show now.

        Raises :class:`Refused` (nothing changed) or :class:`Stale` (with a fresh panel).
        """
        table = await self._table(game_id)
        async with self.lock(table.channel_id):
            if table.finished or self.tables.get(game_id) is not table:
                raise Refused("table.error.game_finished")
            seat = self._seat(table, user_id)
            if act == REFRESH_ACT:
                return self._panel(table, seat)
            if version > table.version or version < table.marks[seat]:
                raise Stale(self._panel(table, seat))
            panel = table.kind.panel
            if act == MODE_ACT:
                if arg not in panel.MODES:
                    raise Refused("table.error.forged")
                return self._panel(table, seat, arg)
            if act == HINT_ACT:
                return await self._hint(table, seat)
            action = panel.action_for(act, arg)
            if action is None:
                raise Refused("table.error.forged")
            if isinstance(action, table.kind.engine.NextRound):
                return await self._vote_next_round(table, seat)
            try:
                await self._commit(table, seat, action, by_player=True)
            except GameError as error:
                raise Refused(error.key, **error.params) from None
            return self._panel(table, seat)

    async def _hint(self, table: Table, seat: int) -> PanelState:
        """The normal computer player's move for the seat, as a notice on its panel (the channel lock is
        held). It sees the seat's own view, nothing more, and changes no game state; the seat is kept in
        meta ``hints`` first, so the game finishes unrated (said on the button before the click)."""
        describe = getattr(table.kind.panel, "suggestion", None)
        game = table.game
        if describe is None:
            raise Refused("table.error.forged")
        if game.phase != PLAY or game.turn != seat:
            raise Refused("hints.error.not_your_turn")
        view = game.view(seat)
        rng = random.Random(f"{table.stored.seed}:{table.version}:{seat}:hint")
        try:
            action = table.kind.levels["normal"](view, rng)
            notice = describe(view, seat, action) if action in game.legal_actions(seat) else None
        except Exception:
            log.exception("hint failed", extra={"game_id": table.id, "seat": seat})
            notice = None
        if notice is None:
            raise Refused("hints.error.none")
        hints = sorted({*(table.stored.meta.get("hints") or []), seat})
        if hints != table.stored.meta.get("hints"):
            await self._set_meta(table, {**table.stored.meta, "hints": hints})
            self._notify(table)  # the table message says the game is unrated from now on
        state = self._panel(table, seat)
        state.notice = notice
        return state

    async def _commit(
        self, table: Table, seat: int, action: Any, *, by_player: bool = False
    ) -> list[dict[str, Any]]:
        """Apply and commit one action (the channel lock is held); GameError leaves everything as it was.

        ``by_player``: the seat's human made this move (not a computer, not a timer), which clears
        their missed-turn count. The game's timer follows the new state in the same transaction.
        """
        stored = table.stored
        spec = table.kind
        before = spec.stale_key(table.game)
        turn_before = token_of(table.game)

        def meta_after(game: Any) -> dict[str, Any] | None:
            return self._meta_after(table, game, seat if by_player else None, token_of(game) != turn_before)

        began = time.perf_counter()
        try:
            events = await self.storage.games.apply_action(stored, seat, action, meta_after)
        except StorageError:
            if self.observer is not None:
                self.observer.commit_failed(stored.kind)
            # storage reloaded ``stored`` from the log: every open panel is now suspect
            table.marks = [stored.version] * len(stored.seats)
            log.warning("commit failed", extra={"game_id": table.id, "seat": seat}, exc_info=True)
            raise Refused("table.error.unavailable") from None
        if self.observer is not None:
            self.observer.committed(stored.kind, time.perf_counter() - began)
        game = table.game
        table.resumed = False
        version = stored.version
        if spec.stale_key(game) != before:
            table.marks = [version] * len(stored.seats)
        else:
            table.marks[seat] = version
        dicts = [e.to_dict() for e in events]
        table.recent.append((seat, dicts))
        log.info(
            "move committed",
            extra={
                "game_id": table.id,
                "kind": stored.kind,
                "seat": seat,
                "action": action.type,
                "version": version,
            },
        )
        if table.finished:
            self._finish(table)
        else:
            self._index(table)
            self._arm(table)
        self._notify(table)
        return dicts

    def _finish(self, table: Table) -> None:
        self.tables.pop(table.id, None)
        self._due.pop(("game", table.id), None)
        if table.ai_task is not None and table.ai_task is not asyncio.current_task():
            table.ai_task.cancel()
        finished = table.stored.finished
        log.info(
            "game finished",
            extra={
                "game_id": table.id,
                "rated": table.stored.rated,
                "ratings": len(finished.rating_changes) if finished else 0,
            },
        )
