"""Seats after the start: leave, kick, a computer taking a seat, the seat taken back, ending."""

from __future__ import annotations

from collections.abc import Callable

from bot.service.core import ServiceCore
from bot.service.events import LobbyClosed, lobby_copy
from bot.service.types import PanelState, Refused, Table, log
from bot.storage import StorageError
from bot.storage.lobbies import CANCELLED, Lobby, LobbyChanged


class SeatPart(ServiceCore):
    """Who sits where once the game runs, and how it ends early."""

    async def check_leave(self, game_id: int, user_id: int) -> None:
        """Refuse now what :meth:`leave` would refuse, so nobody is asked to confirm an impossible leave."""
        table = await self._table(game_id)
        if table.finished:
            raise Refused("table.error.game_finished")
        self._seat(table, user_id)

    async def leave(self, game_id: int, user_id: int, locale: object = None) -> Table:
        """The player leaves; a computer player takes the seat."""
        table = await self._table(game_id)
        async with self.lock(table.channel_id):
            if table.finished:
                raise Refused("table.error.game_finished")
            seat = self._seat(table, user_id)
            await self.writer.replace_seat(table, seat, "left")
        return table

    async def kick(self, channel_id: int, host_id: int, target_id: int) -> tuple[Table, int]:
        async with self.lock(channel_id):
            table = self.table_in_channel(channel_id)
            if table is None:
                raise Refused("table.error.no_game_here")
            if host_id != table.stored.host_id:
                raise Refused("table.error.host_only")
            if target_id == host_id:
                raise Refused("table.error.kick_self")
            seat = table.seat_of(target_id)
            if seat is None or seat in table.replaced():
                raise Refused("table.error.kick_not_player")
            await self.writer.replace_seat(table, seat, "kicked")
        return table, seat

    async def reclaim_seat(self, game_id: int, user_id: int) -> PanelState:
        """A human whose seat a computer player took for missed turns takes it back; returns their panel.

        The seat is theirs again at once, even in the middle of a turn the computer began for it (a
        card drawn, a turn half played): the computer's moves stay, the computer loop
        plays only computer seats so it stops there, and the turn gets a fresh timer with the whole
        limit. Their missed count starts again from zero, and as their seat is no longer in meta
        ``replaced`` the game is rated for them as for anyone who played it to the end.
        """
        table = await self._table(game_id)
        async with self.lock(table.channel_id):
            if table.finished or self.tables.get(game_id) is not table:
                raise Refused("table.error.game_finished")
            seat = table.seat_of(user_id)
            if seat is None:
                raise Refused("error.not_a_player")
            if seat not in table.replaced():
                return self._panel(table, seat)  # already theirs (a second click on the offer)
            if seat not in table.idle():
                raise Refused("seats.error.not_idle")
            await self.writer.take_back_seat(table, seat)
            return self._panel(table, seat)

    def game_to_end(self, channel_id: int, user_id: int, *, can_manage: bool) -> Table | None:
        """The game :meth:`end` would end (to confirm first), None when there is none (a lobby or
        nothing: :meth:`end` answers those at once); refused now if this user may not end it."""
        table = self.table_in_channel(channel_id)
        if table is not None and user_id != table.stored.host_id and not can_manage:
            raise Refused("table.error.end_not_allowed")
        return table

    async def end(
        self, channel_id: int, user_id: int, *, can_manage: bool, game_id: int | None = None
    ) -> Table | Lobby:
        """``/<game> end``: the host (or a channel manager) ends the game or closes the lobby, unrated.

        With ``game_id`` (a confirmation's Yes) only that game: a second Yes, or one clicked after the
        game ended and a new lobby opened, ends nothing else."""
        async with self.lock(channel_id):
            table = self.table_in_channel(channel_id)
            if game_id is not None and (table is None or table.id != game_id):
                raise Refused("table.error.already_ended")
            if table is None:
                lobby = await self.lobbies.open_in_channel(channel_id)
                if lobby is None:
                    raise Refused("table.error.no_game_here")
                if user_id != lobby.host_id and not can_manage:
                    raise Refused("table.error.end_not_allowed")
                await self.lobbies.close(lobby, CANCELLED)
                self.sweeper.forget(("lobby", lobby.id))
                self.bus.publish(LobbyClosed(lobby=lobby_copy(lobby), how="cancelled"))
                return lobby
            if user_id != table.stored.host_id and not can_manage:
                raise Refused("table.error.end_not_allowed")
            await self.writer.end(table, user_id)  # TableEnded(ended_by_hand)
        return table

    async def cancel_gone(self, gone: Callable[[int | None, int], bool], why: str) -> list[Table | Lobby]:
        """End every game and open lobby whose place is gone: ``gone(guild_id, channel_id)`` is true
        (the channel was deleted, the bot was removed from the server, or Discord answered 10003/10004
        for it). Each ends as ``/<game> end`` would, cancelled and unrated (note ``gone: <why>``), its
        timer and computer players stop, and it is not resumed at the next start; nothing is posted
        (``TableEnded(gone)``, ``LobbyClosed(gone)``); a tournament's table is recorded as a draw
        (its rounds hear the end). One INFO line per ended table. A table the
        database could not close now stays as it is (the next 10003 or start tries again)."""
        ended: list[Table | Lobby] = []
        for table in [tb for tb in self.tables.values() if gone(tb.stored.guild_id, tb.channel_id)]:
            async with self.lock(table.channel_id):
                if self.tables.get(table.id) is not table or table.finished:
                    continue
                if not await self.writer.cancel_gone(table, why):  # TableEnded(gone)
                    continue
            ended.append(table)
        try:
            lobbies = [
                lb
                for lb in await self.lobbies.list_open()
                if self.owns(lb.guild_id) and gone(lb.guild_id, lb.channel_id)
            ]
        except StorageError:
            lobbies = []
        for lobby in lobbies:
            async with self.lock(lobby.channel_id):
                try:
                    await self.lobbies.close(lobby, CANCELLED)
                except (LobbyChanged, StorageError):
                    continue  # started or closed meanwhile (a started one is a game: see above)
                self.sweeper.forget(("lobby", lobby.id))
                log.info("lobby cancelled: its place is gone", extra={"lobby_id": lobby.id, "why": why})
                self.bus.publish(LobbyClosed(lobby=lobby_copy(lobby), how="gone"))
            ended.append(lobby)
        return ended
