"""The start of the process: every stored game and open lobby loaded back, timers re-armed."""

from __future__ import annotations

from bot.games.registry import BY_KIND
from bot.service.core import ServiceCore
from bot.service.types import LOBBY_TTL_MS, Table, _together, log
from bot.storage import StorageError
from bot.storage.lobbies import STARTED


class ResumePart(ServiceCore):
    """What :class:`bot.service.TableService` does once, at start."""

    async def resume(self) -> list[Table]:
        """Load every active game and open lobby, re-arm timers and computer players; returns the tables.

        The start's writes go out together rather than one durable commit each (10,000 timers took
        seconds): the closings at once, so the group commit packs them (each still in its savepoint),
        and every timer in one transaction. A write that fails leaves its table as the one-by-one
        writes did: not finished, the lobby open, the timer as stored."""
        loaded = await self.rules.load_active(owns=self.owns)
        tables: list[Table] = []
        for stored in loaded.games:
            if stored.kind not in BY_KIND:
                continue
            table = self._cache(stored)
            table.resumed = True
            tables.append(table)
        # Ended by its last action but not closed (an old crash): finish it now.
        over = [table.stored for table in tables if table.stored.state.is_over]
        done = await _together([self.rules.finish_game(stored) for stored in over])
        for stored, finished in zip(over, done, strict=True):
            if finished is not None:
                stored.finished = finished
                stored.status = "finished"
        closing = []
        for lobby in await self.lobbies.list_open():
            if not self.owns(lobby.guild_id):
                continue
            # A crash between "deal the game" and "close the lobby" leaves both: the game wins.
            busy = next((tb for tb in tables if tb.channel_id == lobby.channel_id), None)
            if busy is not None:
                closing.append(self.lobbies.close(lobby, STARTED, busy.id))
            else:
                self._schedule(("lobby", lobby.id), lobby.created_at + LOBBY_TTL_MS)
        await _together(closing)
        live = []
        for table in tables:
            if table.finished:
                self.tables.pop(table.id, None)
            else:
                live.append(table)
        synced = [(table, meta) for table in live if (meta := self._synced_meta(table)) is not None]
        try:
            missing = await self.storage.games.set_metas([(table.id, meta) for table, meta in synced])
        except StorageError:
            missing = {table.id for table, _ in synced}  # nothing written: the stored timers stay
        for table, meta in synced:
            if table.id not in missing:
                table.stored.meta = meta
        for table in live:
            self._index(table)
            self._arm(table)
        log.info("tables resumed", extra={"games": len(tables), "quarantined": len(loaded.quarantined)})
        try:
            await self.resume_tournaments()  # their tables are loaded: a round due may be seated
        except StorageError:
            log.warning("tournaments not resumed: the database did not answer")
        return tables
