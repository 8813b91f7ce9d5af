"""Round votes: the Next round button, the round dealt when the last human asked for it."""

from __future__ import annotations

from bot.render.names import escape_name
from bot.service.core import ServiceCore
from bot.service.types import ROUND_OVER, PanelState, Refused, Table


class VotePart(ServiceCore):
    """Who asked for the next round (kept in the stored meta)."""

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
