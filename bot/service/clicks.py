"""The click path: a private panel's click (or the table's Next round vote) decoded, handed to the one
writer of tables, answered."""

from __future__ import annotations

import random
from typing import Any

from bot.engine.errors import GameError
from bot.render.names import escape_name
from bot.service.core import ServiceCore
from bot.service.types import (
    HINT_ACT,
    MODE_ACT,
    PLAY,
    REFRESH_ACT,
    ROUND_OVER,
    PanelState,
    Refused,
    Stale,
    Table,
    log,
)


class ClickPart(ServiceCore):
    """Panels, moves and round votes: a player's click decoded into the action the writer commits
    (a Next-round vote is stored in the meta until the last human's deals the round)."""

    async def open_panel(self, game_id: int, user_id: int) -> PanelState:
        table = await self._table(game_id)
        async with self.lock(table.channel_id):
            if table.finished:
                raise Refused("table.error.game_finished")
            return self._panel(table, self._seat(table, user_id))

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
            if table.needs_reload and act in table.game.moves.GAME_ACTS:
                await self.writer.ready_for_move(table)
                if table.finished or self.tables.get(game_id) is not table:
                    raise Refused("table.error.game_finished")  # the failed commit had ended it
            seat = self._seat(table, user_id)
            if act == REFRESH_ACT:
                return self._panel(table, seat)
            if table.asleep and act != MODE_ACT:  # a click on its table wakes it (bot.ui.token_tables)
                raise Refused("table.error.asleep")
            if version > table.version or version < table.marks[seat]:
                raise Stale(self._panel(table, seat), own=table.played.get(seat, -1) > version)
            panel = table.game.moves
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
                await self.writer.commit(table, seat, action, cause="move", by_player=True, key=key)
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
            # The table message says the game is unrated from now on (TableChanged "hint").
            meta = {**table.stored.meta, "hints": hints}
            await self.writer.write_meta(table, meta, cause="hint", seat=seat)
        state = self._panel(table, seat)
        state.notice = notice
        return state

    async def vote_next_round(
        self, game_id: int, user_id: int, round_number: int, *, key: int | None = None
    ) -> PanelState:
        """The table's Next round button (one id for the whole round): a vote for ``round_number``'s end.
        ``key``: the click's interaction id (the deal's idempotency key, when this vote deals)."""
        table = await self._table(game_id)
        async with self.lock(table.channel_id):
            if table.finished or self.tables.get(game_id) is not table:
                raise Refused("table.error.game_finished")
            if table.needs_reload:  # acknowledged first: it may wait for a reload
                await self.writer.ready_for_move(table)
                if table.finished or self.tables.get(game_id) is not table:
                    raise Refused("table.error.game_finished")
            seat = self._seat(table, user_id)
            if table.state.phase != ROUND_OVER or table.state.round != round_number:
                raise Refused("table.error.round_already_dealt")
            return await self._vote_next_round(table, seat, key)

    async def _vote_next_round(self, table: Table, seat: int, key: int | None = None) -> PanelState:
        if table.state.phase != ROUND_OVER:
            raise Refused("error.round_not_over")
        if seat in table.votes:
            state = self._panel(table, seat)
            state.notice = ("table.round.already_ready", {"count": len(table.round_waiting())})
            return state
        if table.round_waiting() == [seat]:  # the last vote: deal (the stored votes go with it)
            await self.writer.commit(table, seat, table.game.engine.NextRound(), cause="next_round", key=key)
            return self._panel(table, seat)
        votes = sorted(table.votes | {seat})
        await self.writer.write_meta(table, {**table.stored.meta, "votes": votes}, cause="vote", seat=seat)
        state = self._panel(table, seat)
        names = table.names()
        state.notice = (
            "table.round.waiting",
            {"players": ", ".join(escape_name(names[s]) for s in table.round_waiting())},  # humans only
        )
        return state
