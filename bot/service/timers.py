"""Turn timers and reminders: deadlines stored in meta, and the one sweeper that wakes every deadline.

The sweeper (:class:`Sweeper`) is this part's own: its index (what to look at next, and when), its
wake-up event and its task. The other parts tell it about a deadline through ``_schedule`` and take
one back through ``_forget`` (both here); a lobby's deadline is acted on by the lobby part
(``_expire_lobby``), a game's here (``_fire``)."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import Any, Unpack

from bot.clock import Clock
from bot.engine.errors import GameError
from bot.service.core import ServiceCore, ServiceOptions
from bot.service.types import (
    FIRST_TURN_GRACE,
    MAX_COVER_ACTIONS,
    MISSES_BEFORE_REPLACE,
    REVEAL,
    ROUND_OVER,
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
# A deadline whose action raised is looked at again this much later (ms), unless it was scheduled anew.
FAILED_AGAIN_MS = 5000

Key = tuple[str, int]  # ("game" | "lobby" | "tournament", id)


class Sweeper:
    """One task that sleeps until the earliest deadline of its index and hands each due key to
    ``act`` (one at a time, in the order they came due); ``act`` raising is logged and the key looked at
    again :data:`FAILED_AGAIN_MS` later, unless ``act`` scheduled it anew."""

    def __init__(self, clock: Clock, act: Callable[[Key], Awaitable[None]]) -> None:
        self._clock = clock
        self._act = act
        self._due: dict[Key, int] = {}  # key -> when to look at it next (ms)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopped = False

    @property
    def due(self) -> Mapping[Key, int]:
        """The index, read-only (what tests and metrics look at)."""
        return MappingProxyType(self._due)

    def schedule(self, key: Key, due: int) -> None:
        """Look at ``key`` at ``due`` (ms), instead of whenever it was due before."""
        if self._stopped:
            return
        old = self._due.get(key)
        self._due[key] = due
        if old is None or due < old:
            self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._sweep(), name="timer-sweeper")

    def forget(self, key: Key) -> None:
        """``key`` has no deadline any more (its game ended, its lobby closed)."""
        self._due.pop(key, None)

    def stop(self) -> list[asyncio.Task[None]]:
        """Schedule nothing more; the task to cancel, if it runs."""
        self._stopped = True
        return [self._task] if self._task is not None else []

    async def _sweep(self) -> None:
        """Sleep until the earliest deadline, act on every one that is due, repeat."""
        while not self._stopped:
            self._wake.clear()
            if not self._due:
                await self._wake.wait()
                continue
            now = self._clock.now_ms()
            due = [key for key, when in self._due.items() if when <= now]
            if not due:
                await self._clock.sleep_until(min(self._due.values()), self._wake)
                continue
            for key in due:
                self._due.pop(key, None)
                try:
                    await self._act(key)
                except Exception:
                    log.exception("timer failed", extra={"what": key[0], "id": key[1]})
                    if key not in self._due:  # try again soon (a busy database, say)
                        self._due[key] = self._clock.now_ms() + FAILED_AGAIN_MS


class TimerPart(ServiceCore):
    """The timer a state calls for, and the sweeper that acts on every deadline."""

    def __init__(self, storage: Storage, **options: Unpack[ServiceOptions]) -> None:
        super().__init__(storage, **options)
        self.sweeper = Sweeper(self.clock, self._on_due)

    def _stop_background(self) -> list[asyncio.Task[None]]:
        return [*super()._stop_background(), *self.sweeper.stop()]

    def _timer_for(self, table: Table, game: Any, old: dict[str, Any] | None) -> dict[str, Any] | None:
        """The timer the state calls for: kept while its token holds, a new one when the turn moved."""
        if game.is_over:
            return None
        token = token_of(game)
        now = self.clock.now_ms()
        if game.phase == ROUND_OVER:
            if old is not None and old.get("token") == token:
                return old
            delay = self.round_delay if table.human_seats() else min(self.round_delay, self.ai_delay)
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

    def _meta_after(
        self, table: Table, game: Any, player_seat: int | None, turn_moved: bool
    ) -> dict[str, Any] | None:
        """New meta for the commit of an action (None: unchanged): the timer, the missed counts, the
        count of turns started (``turn_moved``: a turn or a round ended) and the next-round votes,
        which last only while the round is over."""
        meta = table.stored.meta
        timer = self._timer_for(table, game, table.timer())
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

    async def _sync_timer(self, table: Table) -> None:
        """Make the stored timer match the state (at start, after a seat changed hands...; the resume
        of every game writes them all at once, see :meth:`resume`)."""
        meta = self._synced_meta(table)
        if meta is not None:
            with contextlib.suppress(Refused):
                await self._set_meta(table, meta)
        self._index(table)

    def _synced_meta(self, table: Table) -> dict[str, Any] | None:
        """The meta with the timer the state calls for; None if the stored timer already is that."""
        timer = self._timer_for(table, table.state, table.timer())
        return None if timer == table.timer() else {**table.stored.meta, "timer": timer}

    def _index(self, table: Table) -> None:
        """Tell the sweeper when to look at this table next."""
        timer = table.timer()
        key = ("game", table.id)
        if timer is None or table.finished:
            self._forget(key)
            return
        due = int(timer["due"])
        if timer.get("what") == "turn" and not timer.get("reminded"):
            due = min(due, int(timer.get("half", due)))
        self._schedule(key, due)
        self._letters(table)  # a long game's direct messages owed by this turn (bot.service.letters)

    def _schedule(self, key: Key, due: int) -> None:
        if not self._closed:
            self.sweeper.schedule(key, due)

    def _forget(self, key: Key) -> None:
        self.sweeper.forget(key)

    async def _on_due(self, key: Key) -> None:
        if self.observer is not None:
            self.observer.timer_fired("lobby" if key[0] == "lobby" else "turn")
        if key[0] == "lobby":
            await self._expire_lobby(key[1])
        elif key[0] == "tournament":
            await self._tournament_due(key[1])
        else:
            await self._fire(key[1])

    async def _fire(self, game_id: int) -> None:
        table = self.tables.get(game_id)
        if table is None:
            return
        async with self.lock(table.channel_id):
            if self.tables.get(game_id) is not table or table.finished:
                return
            if table.needs_reload:  # waiting for the database: its reload indexes the timer again
                self._reload_later(table)
                return
            timer = table.timer()
            if timer is None or timer.get("token") != token_of(table.state):
                await self._sync_timer(table)  # the state moved on without a commit's meta (old data)
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
                    await self._commit(table, 0, table.game.engine.NextRound())
            else:
                self._index(table)
            return
        seats = self._waited_for(table)
        if now < timer["due"]:
            if not timer.get("reminded") and now >= timer.get("half", timer["due"]):
                await self._set_meta(table, {**table.stored.meta, "timer": {**timer, "reminded": True}})
                if seats:
                    left = max(1, (int(timer["due"]) - now + 999) // 1000)
                    self._tell(self.listener.remind, table, seats, left)
            self._index(table)
            return
        await self._cover(table, timer, seats)

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
        self._schedule(("game", table.id), now + pause)

    def _waited_for(self, table: Table) -> list[int]:
        return [s for s in table.state.seats_to_act() if table.ai_level(s) is None]

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
            await self._set_meta(table, meta)
        token = timer["token"]
        for seat in seats:
            if announce:
                table.recent.append((seat, [{"kind": "turn_timed_out", "seat": seat}]))
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
                    action = self._ai_decide(table, seat, level="normal")
                try:
                    # Refused (not saved: the database busy or away) goes up to _fire, which tries
                    # again; the miss is counted once (``fired``).
                    await self._commit(table, seat, action)
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
                await self._replace(table, seat, reason="idle")
                self._tell(self.listener.seat_taken_over, table, seat)
        if not table.finished:
            still = table.timer()
            covered_turn_on = still is not None and still.get("token") == token == token_of(table.state)
            if still is not None and covered_turn_on and self._waited_for(table):
                # The covered turn itself is still on (nothing could be played for them, which should
                # not happen): look again in 5 s, no new miss. Compared with the covered turn's token,
                # never the state's alone: the next player's fresh timer must keep its whole limit.
                retry = {**still, "due": self.clock.now_ms() + 5000}
                await self._set_meta(table, {**table.stored.meta, "timer": retry})
            await self._sync_timer(table)
            self._notify(table)
