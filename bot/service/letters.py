"""Long games (correspondence mode, issue 28): who is owed a direct message about their turn, and when.

A table whose turn limit is :data:`~bot.service.types.LONG_GAME` or more is a long game. Each human the
game waits for gets one direct message when their turn starts (a link to the table, the deadline) and,
once half of the limit is gone, one reminder; at the deadline the computer plays the turn as at any
table (:mod:`bot.service.timers`). Nobody gets one who chose ``/skybo notify off``, nor a computer
player (a replaced seat included).

What was sent is recorded in the turn's timer, in the game's stored meta (``dm``: the seats told
their turn came, ``dm_reminded``: the seats reminded), written after the send: a restart sends what
was owed and not sent, and a reminder whose time came while the bot was stopped once, if the deadline
has not passed; it sends nothing twice (only a stop between a send and its record could). A reminder
owed before the turn's first message went out (a long stop) is sent alone: it says the same and more.

The sending itself is Discord's business (:class:`~bot.service.types.Postman`, bot.ui.letters); a
user whose direct messages are closed counts as told (the game goes on); any other failure is tried
again at the next look at the timer (half time, the bot's next start).

This part's own state is its :class:`Outbox`: the postman (set by the bot; None: nothing is sent), the
letters on their way and their tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Unpack

from bot.service.core import ServiceCore, ServiceOptions
from bot.service.events import TableChanged, TableDealt, TableEvent, TurnReminder
from bot.service.types import Letter, Postman, Refused, Table, log
from bot.storage import Storage

SENT = {"turn": "dm", "reminder": "dm_reminded"}  # the timer's record of each letter: the seats told


LetterKey = tuple[int, int, int, str]  # (game, deadline, seat, "turn" | "reminder")


class Outbox:
    """Who sends the letters, and the letters on their way (each once: by its key) with their tasks."""

    def __init__(self) -> None:
        self.postman: Postman | None = None
        self._going: set[LetterKey] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def busy(self) -> bool:
        """A letter is on its way."""
        return bool(self._going)

    def going(self, key: LetterKey) -> bool:
        return key in self._going

    def send(self, key: LetterKey, post: Callable[[], Awaitable[None]]) -> None:
        """Run ``post()`` (the sending and its record) in a task; the key is on its way until it ends."""
        self._going.add(key)
        task = asyncio.create_task(self._carry(key, post), name="letter")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _carry(self, key: LetterKey, post: Callable[[], Awaitable[None]]) -> None:
        try:
            await post()
        finally:
            self._going.discard(key)

    def tasks(self) -> list[asyncio.Task[None]]:
        return list(self._tasks)


class LettersPart(ServiceCore):
    """The direct messages of long games: owed when a timer is indexed, recorded once sent."""

    def __init__(self, storage: Storage, **options: Unpack[ServiceOptions]) -> None:
        super().__init__(storage, **options)
        self.outbox = Outbox()
        for heard in (TableDealt, TableChanged, TurnReminder):
            self.bus.subscribe(heard, self._letters_on, name="letters")

    def _stop_background(self) -> list[asyncio.Task[None]]:
        return [*super()._stop_background(), *self.outbox.tasks()]

    def _letters_on(self, event: TableEvent) -> None:
        """A table dealt, changed (resumed included) or its turn half gone: the letters its turn owes."""
        table = self.writer.table_of(event)
        if table is not None:
            self._letters(table)

    def _letters(self, table: Table) -> None:
        """Send what this table's running turn owes its players and has not sent (nor is sending)."""
        postman = self.outbox.postman
        if postman is None or self._closed or table.finished or table.gone or not table.long_game:
            return
        timer = table.timer()
        if timer is None or timer.get("what") != "turn" or timer.get("fired"):
            return
        now = self.clock.now_ms()
        due = int(timer["due"])
        if now >= due:
            return  # too late: the computer plays the turn now
        what = "reminder" if now >= int(timer.get("half", due)) else "turn"
        told = timer.get(SENT[what]) or []
        for seat in table.waited_for():
            user_id = table.stored.seats[seat].user_id
            key = (table.id, due, seat, what)
            if user_id is None or seat in told or self.outbox.going(key):
                continue
            post = functools.partial(self._post_letter, postman, table, seat, user_id, what, due)
            self.outbox.send(key, post)

    async def _post_letter(
        self, postman: Postman, table: Table, seat: int, user_id: int, what: str, due: int
    ) -> None:
        try:
            prefs = (await self.user_prefs.of([user_id]))[user_id]
            if not prefs.notify:
                return  # their choice; not recorded, so turning it back on tells them of this turn too
            stored = table.stored
            letter = Letter(
                what=what,
                user_id=user_id,
                game_id=table.id,
                game=table.game.title,
                guild_id=stored.guild_id,
                channel_id=stored.channel_id,
                message_id=stored.message_id,
                due_ms=due,
                locale=prefs.locale,
            )
            sent = await postman.send_letter(letter)
            log.log(  # one per turn of a long game, like a move; one not delivered is worth a look
                logging.DEBUG if sent else logging.INFO,
                "long game letter sent" if sent else "long game letter not delivered: direct messages closed",
                extra={"game_id": table.id, "seat": seat, "what": what},
            )
            await self._letter_sent(table, seat, what, due)
        except Exception:
            log.exception("long game letter failed", extra={"game_id": table.id, "seat": seat, "what": what})

    async def _letter_sent(self, table: Table, seat: int, what: str, due: int) -> None:
        """Record the letter in the turn's timer, if that turn is still the one running."""
        async with self.lock(table.channel_id):
            timer = table.timer()
            if table.finished or timer is None or timer.get("what") != "turn" or int(timer["due"]) != due:
                return
            new: dict[str, Any] = dict(timer)
            names = [SENT[what]] if what == "turn" else [SENT["turn"], SENT[what]]  # a reminder says it all
            for name in names:
                seats = [s for s in new.get(name) or [] if isinstance(s, int)]
                if seat not in seats:
                    new[name] = sorted([*seats, seat])
            if new != timer:
                with contextlib.suppress(Refused):  # bookkeeping: no event
                    await self.writer.write_meta(table, {**table.stored.meta, "timer": new})
