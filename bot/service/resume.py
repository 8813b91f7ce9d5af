"""The start of the process: every stored game and open lobby loaded back, timers re-armed, and the
results owed in the channels of games played in threads.

A game played in a thread (docs/discord.md, "Threads") ends with its result posted in its lobby's
channel and the thread archived, by the presenter after the table's last edit (``bot.ui.threads``). A
bot stopped between the game's end being committed and that post (a crash, a deploy, the presenter's
tasks cancelled at close) would skip it for ever: the fact that the post was tried is therefore stored
with the game, as the key :data:`RESULT_POSTED` of its meta (written by ``close_thread`` through
``remember_messages``, as the turn mention's id is). The meta, not a column: the service already
writes it after a game's end (the last mention, the reminder), it travels with the game on both
backends with no migration, and only the few games played in threads ever carry it. At start, the
games of this process's shards that ended in a thread within :data:`RESULT_OWED_WITHIN_MS` (a day: a
bot down for longer leaves stale results unposted) without that key are loaded and handed back with
the live tables: the presenter renders their table's final state, posts the result, writes the key,
and archives the thread, so a second start finds nothing owed. The key written once the database
answers (a blink after the post: :meth:`bot.service.reloads.ReloadPart.keep_result_posted`), and the
channel read first for a result posted without it (a stop before the database answered, or during the
post's own request: ``bot.ui.threads``), a restart never posts a result twice."""

from __future__ import annotations

from bot.games.registry import BY_KIND
from bot.service.core import ServiceCore
from bot.service.types import (
    ENDED_BY_HAND,
    RESULT_OWED_WITHIN_MS,
    RESULT_POSTED,
    THREAD_PARENT,
    Table,
    _together,
    lobby_due,
    log,
)
from bot.storage import StorageError
from bot.storage.games import FINISHED
from bot.storage.lobbies import STARTED


class ResumePart(ServiceCore):
    """What :class:`bot.service.TableService` does once, at start."""

    async def _load_tables(self) -> list[Table]:
        """Load every active game and open lobby (the first step of :meth:`TableService.resume
        <bot.service.TableService.resume>`, which then resumes the tournaments and ends with
        :meth:`_tables_back`); returns the tables loaded, told to nobody yet.

        The start's writes go out together rather than one durable commit each (10,000 timers took
        seconds): the closings at once, so the group commit packs them (each still in its savepoint),
        and every timer in one transaction. A write that fails leaves its table as the one-by-one
        writes did: not finished, the lobby open, the timer as stored."""
        loaded = await self.ledger.load_active(owns=self.owns)
        tables: list[Table] = []
        for stored in loaded.games:
            if stored.kind not in BY_KIND:
                continue
            table = self.writer.cache(stored)
            table.resumed = True
            tables.append(table)
        # Ended by its last action but not closed (an old crash): finish it now.
        over = [table.stored for table in tables if table.stored.state.is_over]
        done = await _together([self.ledger.finish_game(stored) for stored in over])
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
                self.sweeper.schedule(("lobby", lobby.id), lobby_due(lobby))
        await _together(closing)
        live = []
        for table in tables:
            if table.finished:
                self.tables.pop(table.id, None)
            else:
                live.append(table)
        clock = self.turn_clock
        synced = [(table, meta) for table in live if (meta := clock.synced_meta(table)) is not None]
        # A table where the bot is not a member sleeps after a restart: no token survived the process,
        # so nothing can show it until a click brings one (bot.ui.token_tables), and its timers wait.
        metas = dict((table.id, meta) for table, meta in synced)
        synced = [
            (table, clock.asleep_meta(metas.get(table.id, table.stored.meta)))
            if table.stored.off_server and not table.asleep
            else (table, meta)
            for table, meta in synced
        ] + [
            (table, clock.asleep_meta(table.stored.meta))
            for table in live
            if table.stored.off_server and not table.asleep and table.id not in metas
        ]
        try:
            missing = await self.storage.games.set_metas([(table.id, meta) for table, meta in synced])
        except StorageError:
            missing = {table.id for table, _ in synced}  # nothing written: the stored timers stay
        for table, meta in synced:
            if table.id not in missing:
                table.stored.meta = meta
        log.info("tables resumed", extra={"games": len(tables), "quarantined": len(loaded.quarantined)})
        return tables

    async def _tables_back(self, tables: list[Table]) -> list[Table]:
        """The last step of the start: the tables loaded, with the ended games of threads whose result is
        owed in their channel (:meth:`_results_owed`), each published as ``TableResumed``
        (``owed_result`` for the owed ones): the listeners, subscribed before, start from what is stored
        (the timers index it, the computer players arm, the surfaces draw it "live again")."""
        resumed = {table.id for table in tables}
        back = tables + [table for table in await self._results_owed() if table.id not in resumed]
        for table in back:
            self.writer.resumed(table, owed_result=table.result_owed)
        return back

    async def _results_owed(self) -> list[Table]:
        """The games of this process's shards that ended in a thread lately (within
        :data:`RESULT_OWED_WITHIN_MS`) and whose result was never posted in its channel (no
        :data:`RESULT_POSTED` in their meta: the bot stopped first), as finished tables not cached
        with the live ones. A cancelled game counts when it was ended by hand (``/<game> end``, its
        note names who); one cancelled because its place is gone does not. What the database cannot
        give is logged and left for the next start."""
        try:
            ids = await self.storage.games.ended_lately(
                RESULT_OWED_WITHIN_MS, meta_has=THREAD_PARENT, meta_lacks=RESULT_POSTED, owns=self.owns
            )
        except StorageError:
            log.warning("thread results not looked for: the database did not answer")
            return []
        owed: list[Table] = []
        for game_id in ids:
            try:
                stored = await self.ledger.get_game(game_id)
                if stored.status == FINISHED:  # its results and rating changes, for its final table
                    _, stored.finished = await self.storage.games.read_logged(
                        game_id, stored.version, finished=True
                    )
            except StorageError as error:  # GameQuarantined included: nothing to show
                why = type(error).__name__
                log.warning("thread result not posted", extra={"game_id": game_id, "error": why})
                continue
            note = stored.note or ""
            if stored.kind not in BY_KIND or stored.meta.get(RESULT_POSTED) is not None:
                continue
            table = Table(stored, [stored.version] * len(stored.seats), result_owed=True)
            if stored.status != FINISHED:
                user = note[len(ENDED_BY_HAND) :] if note.startswith(ENDED_BY_HAND) else ""
                if not user.isdigit():
                    continue  # cancelled otherwise (its thread or channel gone): nothing is posted
                table.ended_by = int(user)
            owed.append(table)
        if owed:
            log.info("thread results owed", extra={"games": [table.id for table in owed]})
        return owed
