"""Turn timers and reminders: the game deadlines of the sweeper, acted on under the channel lock.

The timer a state calls for is the turn clock's (:mod:`bot.service.turn_clock`), stored in the game's
meta by the one writer of tables with each commit. This part indexes it in the service's sweeper
(:mod:`bot.service.sweeper`) whenever it hears that a table was dealt or changed on the bus (the game
deadline forgotten when it hears the game ended), and is the sweeper's handler of game deadlines
(``_fire``): the reminder at half time, the turn played for a player out of time, the next round."""

from __future__ import annotations

import contextlib
import random
from typing import Any, Unpack

from bot.engine.errors import GameError
from bot.service.computer_moves import computer_move
from bot.service.core import ServiceCore, ServiceOptions
from bot.service.events import TableChanged, TableDealt, TableEvent
from bot.service.types import (
    MAX_COVER_ACTIONS,
    MISSES_BEFORE_REPLACE,
    REVEAL,
    Refused,
    Table,
    log,
    token_of,
)
from bot.storage import Storage

# A timer whose write was not saved (the database busy or away) looks again after a pause as long as
# its deadline has waited so far, within these bounds (ms).
RETRY_FIRST_PAUSE_MS = 500
RETRY_LONGEST_PAUSE_MS = 10_000


class TimerPart(ServiceCore):
    """The game deadlines: indexed as tables change, acted on when they come."""

    def __init__(self, storage: Storage, **options: Unpack[ServiceOptions]) -> None:
        super().__init__(storage, **options)
        self.sweeper.handle("game", self._fire)
        self.bus.subscribe(TableDealt, self._index_on, name="timers")
        self.bus.subscribe(TableChanged, self._index_on, name="timers")

    def _index_on(self, event: TableEvent) -> None:
        """A table dealt, changed, resumed or ended: its next deadline (none once it ended)."""
        table = self.writer.table_of(event)
        if table is None:
            self.sweeper.forget(("game", event.table_id))
        else:
            self._index(table)

    def _index(self, table: Table) -> None:
        """Tell the sweeper when to look at this table next."""
        timer = table.timer()
        key = ("game", table.id)
        if timer is None or table.finished or table.asleep:  # asleep: paused until a click wakes it
            self.sweeper.forget(key)
            return
        due = int(timer["due"])
        if timer.get("what") == "turn" and not timer.get("reminded"):
            due = min(due, int(timer.get("half", due)))
        if not self._closed:
            self.sweeper.schedule(key, due)

    async def _fire(self, game_id: int) -> None:
        table = self.tables.get(game_id)
        if table is None:
            return
        async with self.lock(table.channel_id):
            if self.tables.get(game_id) is not table or table.finished:
                return
            if table.needs_reload:  # waiting for the database (the reloader runs): its reload indexes it
                return
            if table.asleep:  # paused: its wake indexes it again
                return
            timer = table.timer()
            if timer is None or timer.get("token") != token_of(table.state):
                # The state moved on without a commit's meta (old data): the timer it calls for is stored, a
                # change (TableChanged "timer": indexed, and a long game's letters sent, by what hears it).
                await self.writer.sync_timer(table, cause="timer")
                return
            try:
                await self._act_on(table, timer)
            except Refused:
                # A write the timer made was not saved (the database busy or away): nothing of it is
                # lost, the deadline is looked at again (see _retry_timer).
                self._retry_timer(table, timer)

    async def _act_on(self, table: Table, timer: dict[str, Any]) -> None:
        """What the timer calls for now (the channel lock held, its token the state's); Refused when a
        write it made was not saved."""
        now = self.clock.now_ms()
        if timer.get("what") == "round":
            if now >= timer["due"]:
                with contextlib.suppress(GameError):
                    await self.writer.commit(table, 0, table.game.engine.NextRound(), cause="next_round")
            else:
                self._index(table)
            return
        seats = table.waited_for()
        if now < timer["due"]:
            if not timer.get("reminded") and now >= timer.get("half", timer["due"]):
                left = max(1, (int(timer["due"]) - now + 999) // 1000)
                await self.writer.remind(table, timer, seats, left)  # TurnReminder, if anyone is waited for
            self._index(table)
            return
        await self._cover(table, timer, seats)

    async def sleep_table(self, game_id: int) -> bool:
        """Put a table where the bot is not a member to sleep (asked by its surface when no token will
        be left to show it, :mod:`bot.ui.token_tables`): its timers paused with the time they had left,
        its computers waiting, stored, then ``TableChanged(sleep)``. False: not running, or asleep."""
        table = self.tables.get(game_id)
        if table is None or not table.stored.off_server:
            return False
        async with self.lock(table.channel_id):
            if self.tables.get(game_id) is not table or table.finished or table.asleep:
                return False
            await self.writer.write_meta(table, self.turn_clock.asleep_meta(table.stored.meta), cause="sleep")
        log.info("table asleep", extra={"game_id": game_id})
        return True

    async def wake_table(self, game_id: int) -> bool:
        """A click on a sleeping table: its timers run again with the time they had left (a turn at
        least :data:`bot.service.types.WAKE_FLOOR_MS`), then ``TableChanged(wake)`` (the computers
        arm, the timers index it, its surface draws it). False: it was not asleep."""
        table = self.tables.get(game_id)
        if table is None or not table.asleep:
            return False
        async with self.lock(table.channel_id):
            if self.tables.get(game_id) is not table or table.finished or not table.asleep:
                return False
            await self.writer.write_meta(table, self.turn_clock.woken_meta(table.stored.meta), cause="wake")
        log.info("table woken", extra={"game_id": game_id})
        return True

    def _retry_timer(self, table: Table, timer: dict[str, Any]) -> None:
        """A timer's write (its forced move, the next round, the reminder or the missed count) was not
        saved: look at the table again after a pause, without writing anything now. The pause is as
        long as the deadline has waited so far (so it about doubles with each try), from
        :data:`RETRY_FIRST_PAUSE_MS` to :data:`RETRY_LONGEST_PAUSE_MS`. A table waiting for the database
        is left to its reload, which indexes its timer again (:mod:`bot.service.reloads`)."""
        if self._closed or table.finished or self.tables.get(table.id) is not table or table.needs_reload:
            return
        now = self.clock.now_ms()
        since = int(timer["due"]) if now >= int(timer["due"]) else int(timer.get("half", timer["due"]))
        pause = min(RETRY_LONGEST_PAUSE_MS, max(RETRY_FIRST_PAUSE_MS, now - since))
        log.warning(
            "timer action not saved, trying again",
            extra={"game_id": table.id, "what": timer.get("what"), "pause_s": pause / 1000},
        )
        self.sweeper.schedule(("game", table.id), now + pause)

    async def _cover(self, table: Table, timer: dict[str, Any], seats: list[int]) -> None:
        """The limit is reached: play for every human the game waits for; count the miss once."""
        # The table says it once per covered turn, not again when the cover is tried again (its move
        # not saved) or looked at again; after a restart it says it again.
        announce = not timer.get("fired") or table.resumed
        if not timer.get("fired"):
            missed = dict(table.stored.meta.get("missed") or {})
            for seat in seats:
                missed[str(seat)] = table.missed(seat) + 1
            meta = {
                **table.stored.meta,
                "missed": missed,
                "timer": {**timer, "fired": True, "reminded": True},
            }
            await self.writer.write_meta(table, meta)  # no event: the cover's own publishes tell
        token = timer["token"]
        for seat in seats:
            if announce:
                self.writer.note(table, seat, [{"type": "turn_timed_out", "seat": seat}])
                log.debug(  # one per turn, like a move
                    "turn timed out", extra={"game_id": table.id, "seat": seat, "missed": table.missed(seat)}
                )
            for step in range(MAX_COVER_ACTIONS):
                game = table.state
                if table.finished or token_of(game) != token or seat not in game.seats_to_act():
                    break
                if game.phase == REVEAL:  # initial reveals left undone: picked at random
                    rng = random.Random(f"{table.stored.seed}:{table.version}:{seat}:reveal")
                    action = rng.choice(game.legal_actions(seat))
                else:
                    action = computer_move(table, seat, level="normal")
                try:
                    # Refused (not saved: the database busy or away) goes up to _fire, which tries
                    # again; the miss is counted once (``fired``).
                    await self.writer.commit(table, seat, action, cause="timer")
                except GameError:
                    log.warning(
                        "timed-out move refused", extra={"game_id": table.id, "seat": seat, "step": step}
                    )
                    break
        for seat in seats:
            if (
                not table.finished
                and table.missed(seat) >= MISSES_BEFORE_REPLACE
                and seat not in table.replaced()
            ):
                await self.writer.replace_seat(table, seat, reason="idle")  # SeatReplaced(idle)
        if not table.finished:
            still = table.timer()
            covered_turn_on = still is not None and still.get("token") == token == token_of(table.state)
            if still is not None and covered_turn_on and table.waited_for():
                # The covered turn itself is still on (nothing could be played for them, which should
                # not happen): look again in 5 s, no new miss. Compared with the covered turn's token,
                # never the state's alone: the next player's fresh timer must keep its whole limit.
                retry = {**still, "due": self.clock.now_ms() + 5000}
                await self.writer.write_meta(table, {**table.stored.meta, "timer": retry})
            await self.writer.sync_timer(table, cause="timer")
