"""The click path: a private panel's click decoded, applied by the engine, committed, answered."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from bot.engine.errors import GameError
from bot.service.core import ServiceCore
from bot.service.types import (
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
        return table.state.options

    async def options_for(self, game_id: int) -> Any:
        table = await self._table(game_id)
        return table.state.options

    # ------------------------------------------------------------------ games: clicks

    async def click(
        self, game_id: int, version: int, user_id: int, act: str, arg: int, *, key: int | None = None
    ) -> PanelState:
        """A click on a private panel (or Next round on the table); returns the panel to show now.

        ``key``: the click's interaction id, the idempotency key its action is committed with. Raises
        :class:`Refused` (nothing changed) or :class:`Stale` (with a fresh panel). On a table waiting
        for the database (:mod:`bot.service.reloads`) a move first reloads it (the click was
        acknowledged, so it may wait); the panel-only clicks are served from its last committed state.
        """
        table = await self._table(game_id)
        async with self.lock(table.channel_id):
            if table.finished or self.tables.get(game_id) is not table:
                raise Refused("table.error.game_finished")
            if table.needs_reload and act in table.game.panel.GAME_ACTS:
                await self._fresh_for_move(table)
                if table.finished or self.tables.get(game_id) is not table:
                    raise Refused("table.error.game_finished")  # the failed commit had ended it
            seat = self._seat(table, user_id)
            if act == REFRESH_ACT:
                return self._panel(table, seat)
            if version > table.version or version < table.marks[seat]:
                raise Stale(self._panel(table, seat), own=table.played.get(seat, -1) > version)
            panel = table.game.panel
            if act == MODE_ACT:
                if arg not in panel.MODES:
                    raise Refused("table.error.forged")
                return self._panel(table, seat, arg)
            if act == HINT_ACT:
                return await self._hint(table, seat)
            action = panel.action_for(act, arg)
            if action is None:
                raise Refused("table.error.forged")
            if isinstance(action, table.game.engine.NextRound):
                return await self._vote_next_round(table, seat, key)
            try:
                await self._commit(table, seat, action, by_player=True, key=key)
            except GameError as error:
                raise Refused(error.key, **error.params) from None
            return self._panel(table, seat)

    async def _hint(self, table: Table, seat: int) -> PanelState:
        """The normal computer player's move for the seat, as a notice on its panel (the channel lock is
        held). It sees the seat's own view, nothing more, and changes no game state; the seat is kept in
        meta ``hints`` first, so the game finishes unrated (said on the button before the click)."""
        describe = table.game.suggestion
        game = table.state
        if describe is None:
            raise Refused("table.error.forged")
        if game.phase != PLAY or game.turn != seat:
            raise Refused("hints.error.not_your_turn")
        view = game.view(seat)
        rng = random.Random(f"{table.stored.seed}:{table.version}:{seat}:hint")
        try:
            action = table.game.levels["normal"](view, rng)
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
        self, table: Table, seat: int, action: Any, *, by_player: bool = False, key: int | None = None
    ) -> list[dict[str, Any]]:
        """Apply and commit one action (the channel lock is held); GameError leaves everything as it was.

        ``by_player``: the seat's human made this move (not a computer, not a timer), which clears
        their missed-turn count. The game's timer follows the new state in the same transaction.
        ``key``: the idempotency key of the action (the click's interaction id; None for a computer
        player or a timer): a commit retried after its connection dropped is never applied twice.

        A commit that fails for good is refused: "could not be saved; nothing changed" when storage
        could read the game again (the cache is the log's), "the table is reconnecting" when it could
        not (the table then serves its last committed state and waits for the database:
        :mod:`bot.service.reloads`), as a table already waiting refuses every action.
        """
        if table.needs_reload:
            self._reload_later(table)
            raise Refused("table.error.reconnecting")
        stored = table.stored
        spec = table.game
        before = spec.stale_key(table.state)
        turn_before = token_of(table.state)

        def meta_after(game: Any) -> dict[str, Any] | None:
            return self._meta_after(table, game, seat if by_player else None, token_of(game) != turn_before)

        def on_retry(outcome: str) -> None:
            if self.observer is not None:
                self.observer.commit_retried(stored.kind, outcome)

        began = time.perf_counter()
        try:
            events = await self.rules.apply_action(
                stored, seat, action, meta_after, key=key, on_retry=on_retry
            )
        except StorageError:
            if self.observer is not None:
                self.observer.commit_failed(stored.kind)
            if stored.needs_reload:
                # Neither committed nor read again: the last committed state stays, moves wait.
                log.warning(
                    "commit failed, table waiting for the database",
                    extra={"game_id": table.id, "seat": seat},
                    exc_info=True,
                )
                self._reload_later(table)
                raise Refused("table.error.reconnecting") from None
            # storage reloaded ``stored`` from the log: every open panel is now suspect
            table.marks = [stored.version] * len(stored.seats)
            log.warning("commit failed", extra={"game_id": table.id, "seat": seat}, exc_info=True)
            raise Refused("table.error.unavailable") from None
        if self.observer is not None:
            self.observer.committed(stored.kind, time.perf_counter() - began)
        game = table.state
        table.resumed = False
        version = stored.version
        if spec.stale_key(game) != before:
            table.marks = [version] * len(stored.seats)
        else:
            table.marks[seat] = version
        if by_player:
            table.played[seat] = version
        dicts = [e.to_dict() for e in events]
        table.recent.append((seat, dicts))
        log.debug(  # one per move: DEBUG (an operator's INFO is one line per table event, bot/logs.py)
            "move committed",
            extra={
                "game_id": table.id,
                "kind": stored.kind,
                "seat": seat,
                "action": action.type,
                "version": version,
            },
        )
        self._moved_on(table)
        return dicts

    def _finish(self, table: Table) -> None:
        self.tables.pop(table.id, None)
        self._forget(("game", table.id))
        self._game_over(table)
        if table.ai_task is not None and table.ai_task is not asyncio.current_task():
            table.ai_task.cancel()
        finished = table.stored.finished
        # Rated: finished by the rules with rating changes written. A game ended by hand or cancelled
        # (no results), or finished unrated (a hint taken), is not, whatever it was dealt as.
        ratings = len(finished.rating_changes) if finished and table.stored.status == "finished" else 0
        log.info("game finished", extra={"game_id": table.id, "rated": ratings > 0, "ratings": ratings})
