"""The Activity's pages as a listener of the table service's events, and their moves as clicks.

:class:`Hub` is attached once to each service the bot builds (:meth:`Hub.attach`, beside the
presenter's): it hears every :class:`~bot.service.events.TableEvent` inline (it only queues: never
awaits), and each page connected to that table gets its own seat's ``table`` frame, built from the
event's snapshot (``snapshot.view(seat)``, ``view(None)`` for a spectator) by :mod:`bot.activity.frames`.
Nothing tells it anything but the bus (tests/unit/test_one_way.py).

Each page has its own outbox and its own writer task, so a slow page delays no other page and no
commit. Table frames coalesce in the outbox: a queued table frame is replaced by a newer one, which
takes over the key of the move it answered (a newer table answers that move too), so a page gets its
frames in version order and never waits for a frame dropped. Other frames (``ended``, ``refused``,
``hint``...) are never dropped nor reordered.

A page's move is the panel's click (:meth:`bot.service.TableService.click`, versioned, idempotent with
``frames.service_key(user, page key)``, the same refusals); the table frame that answers it comes from
the move's own event (its ``key``), or, for a move that stores no action (a Next-round vote), from the
latest snapshot once the click returned.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.activity import frames
from bot.activity.sessions import Session
from bot.engine.errors import GameError
from bot.i18n import translate as t
from bot.service import HINT_ACT, Refused, Stale, TableService
from bot.service.bus import EventBus
from bot.service.events import TableChanged, TableEnded, TableEvent, TableWaiting
from bot.service.snapshots import TableSnapshot
from bot.storage import StorageError

log = logging.getLogger(__name__)

ANSWERED_KEYS = 64  # the last moves' keys remembered per user and table (a retry is answered, not redone)
MAX_BAD_FRAMES = 20  # a page sending more malformed frames than this is told bye("protocol")
ENDED_KEPT = 256  # ended tables remembered, for a page that reconnects to see the end


class Socket(Protocol):
    """What the hub needs of a websocket (aiohttp's ``WebSocketResponse``)."""

    @property
    def closed(self) -> bool: ...
    async def send_str(self, data: str) -> None: ...
    async def close(self, *, code: int = ..., message: bytes = ...) -> bool: ...


@dataclass(eq=False)
class Page:
    """One connected page: its socket, its session and seat, its outbox and the moves it waits for."""

    socket: Socket
    session: Session
    table_id: int
    seat: int | None
    cards: str
    outbox: deque[tuple[str, Any, str | None]] = field(default_factory=deque)  # (what, payload, key)
    waiting: dict[int, str] = field(default_factory=dict)  # service key -> page key, of moves in flight
    bad_frames: int = 0
    sent: int = 0  # frames sent (the bench's frames per move)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    writer: asyncio.Task[None] | None = None
    closing: bool = False


class Hub:
    """The connected pages of every table, fed by the service's events (see the module doc)."""

    def __init__(self, service: Callable[[], TableService], now_ms: Callable[[], int]) -> None:
        self._service = service  # the bot's current service (a fleet's process builds a new one on reload)
        self._now_ms = now_ms
        self.pages: dict[int, list[Page]] = {}  # by table id
        self.latest: dict[int, TableSnapshot] = {}  # each followed table's latest snapshot
        self.ended: OrderedDict[int, TableEnded] = OrderedDict()  # table id -> its end
        self._answered: dict[tuple[int, int], deque[str]] = {}  # (user, table) -> page keys answered
        self.sent_hook: Callable[[Page, dict[str, Any]], None] | None = None

    @property
    def service(self) -> TableService:
        return self._service()

    # ------------------------------------------------------------------ the service's events

    def attach(self, bus: EventBus) -> None:
        """Hear every table event of a service's bus, inline (only queues frames)."""
        bus.subscribe(TableEvent, self._hear, name="activity")

    def _hear(self, event: TableEvent) -> None:
        table_id = event.table_id
        if isinstance(event, TableEnded):
            self.ended[table_id] = event
            while len(self.ended) > ENDED_KEPT:
                self.ended.popitem(last=False)
            for done in [k for k in self._answered if k[1] == table_id]:  # no move of it is retried now
                del self._answered[done]
        pages = self.pages.get(table_id)
        if not pages:
            return
        self.latest[table_id] = event.snapshot
        for page in pages:
            if isinstance(event, TableWaiting):
                self._queue(page, "frame", frames.sleep("waiting"))
                continue
            key = None
            if isinstance(event, TableChanged) and event.key is not None:
                key = page.waiting.pop(event.key, None)
            self._queue(page, "table", event.snapshot, key)
            if isinstance(event, TableEnded):
                self._queue(page, "frame", frames.ended(event.snapshot.results(), how=event.how))
                if event.how == "gone":
                    self._queue(page, "frame", frames.bye("gone"))

    # ------------------------------------------------------------------ pages

    async def join(self, page: Page, snapshot: TableSnapshot) -> None:
        """A page connected to its table (``snapshot``: its latest): ``hello``, its ``table``, and
        ``ended`` for an ended table; from now on it hears the table's events."""
        self.latest.setdefault(page.table_id, snapshot)
        hello = frames.hello(
            user_id=page.session.user,
            user_name=page.session.name,
            seat=page.seat,
            language=page.session.language,
            cards=page.cards,
            kind=snapshot.kind,
            table_id=page.table_id,
        )
        self._queue(page, "frame", hello)
        self._queue(page, "table", snapshot)
        ended = self.ended.get(page.table_id)
        if ended is not None:
            self._queue(page, "frame", frames.ended(ended.snapshot.results(), how=ended.how))
        self.pages.setdefault(page.table_id, []).append(page)
        page.writer = asyncio.create_task(self._write(page), name="activity-page")

    async def leave(self, page: Page) -> None:
        """The page's socket closed: forget it (what was queued is dropped)."""
        pages = self.pages.get(page.table_id, [])
        if page in pages:
            pages.remove(page)
        if not pages:
            self.pages.pop(page.table_id, None)
            self.latest.pop(page.table_id, None)
        page.closing = True
        page.wake.set()
        if page.writer is not None and page.writer is not asyncio.current_task():
            page.writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await page.writer

    async def close_all(self, frame: dict[str, Any], code: int) -> None:
        """Send ``frame`` to every page (after what was queued) and close its socket with ``code``."""
        everyone = [page for pages in self.pages.values() for page in pages]
        for page in everyone:
            self._queue(page, "frame", frame)
        for page in everyone:
            await self._flush(page)
            with contextlib.suppress(Exception):
                await page.socket.close(code=code, message=b"restart")

    def _queue(self, page: Page, what: str, payload: Any, key: str | None = None) -> None:
        outbox = page.outbox
        if what == "table" and outbox and outbox[-1][0] == "table":
            _, older, older_key = outbox[-1]
            if older.version <= payload.version:  # a newer table answers the older's move too
                outbox[-1] = ("table", payload, key or older_key)
                page.wake.set()
                return
        outbox.append((what, payload, key))
        page.wake.set()

    async def _write(self, page: Page) -> None:
        while not page.closing:
            await page.wake.wait()
            page.wake.clear()
            await self._flush(page)

    async def _flush(self, page: Page) -> None:
        while page.outbox and not page.socket.closed:
            what, payload, key = page.outbox.popleft()
            frame = self.table_frame(page, payload, key) if what == "table" else payload
            try:
                await page.socket.send_str(frames.encode(frame))
            except (ConnectionError, RuntimeError):
                return
            page.sent += 1
            if self.sent_hook is not None:
                self.sent_hook(page, frame)

    def table_frame(self, page: Page, snapshot: TableSnapshot, key: str | None = None) -> dict[str, Any]:
        """The page's seat's ``table`` frame at ``snapshot``'s version."""
        language = page.session.language
        timer = snapshot.timer()
        left = None
        if timer is not None and not snapshot.is_over and not timer.get("fired"):
            left = (float(timer.get("due", 0)) - self._now_ms()) / 1000
        return frames.table(
            snapshot.game,  # type: ignore[arg-type]  # GameRules: the engine, panel and words frames read
            snapshot.view(page.seat),
            version=snapshot.version,
            seat=page.seat,
            names=snapshot.names(language),
            locale=language,
            recent=[(seat, list(events)) for seat, events in snapshot.recent],
            computers=[s for s in range(len(snapshot.seats)) if snapshot.ai_level(s) is not None],
            turn_ends_in=left,
            key=key,
        )

    # ------------------------------------------------------------------ a page's frames

    async def heard(self, page: Page, text: str) -> None:
        """One frame from ``page``: a move, a hint asked, a ping, or something refused."""
        language = page.session.language
        try:
            frame = frames.read(text)
        except frames.BadFrame:
            page.bad_frames += 1
            if page.bad_frames > MAX_BAD_FRAMES:
                self._queue(page, "frame", frames.bye("protocol"))
                await self._flush(page)
                await page.socket.close(code=1008, message=b"protocol")
                return
            self._queue(page, "frame", frames.refused(t("error.malformed_action", language)))
            return
        if isinstance(frame, frames.Ping):
            self._queue(page, "frame", frames.pong())
            return
        move_key = frame.key if isinstance(frame, frames.Move) else None
        if page.seat is None:
            self._queue(page, "frame", frames.refused(t("error.not_a_player", language), key=move_key))
            return
        if isinstance(frame, frames.HintAsk):
            await self._click(page, frame.version, HINT_ACT, 0, None)
            return
        assert isinstance(frame, frames.Move)
        answered = self._answered.setdefault((page.session.user, page.table_id), deque(maxlen=ANSWERED_KEYS))
        latest = self.latest.get(page.table_id)
        if frame.key in answered and latest is not None:  # the same move again: answered, not redone
            self._queue(page, "table", latest, frame.key)
            return
        await self._click(page, frame.version, frame.act, frame.arg, frame.key)

    async def _click(self, page: Page, version: int, act: str, arg: int, key: str | None) -> None:
        language = page.session.language
        user = page.session.user
        service_key = frames.service_key(user, key) if key is not None else None
        still: str | None = None
        if service_key is not None and key is not None:
            page.waiting[service_key] = key
        try:
            state = await self.service.click(page.table_id, version, user, act, arg, key=service_key)
        except Stale as stale:
            reason = "activity.refused.already_done" if stale.own else "activity.refused.moved_on"
            self._queue(page, "frame", frames.refused(t(reason, language), key=key))
            self._fresh(page)
            return
        except (Refused, GameError) as refusal:
            self._queue(page, "frame", frames.refused(t(refusal.key, language, **refusal.params), key=key))
            return
        except StorageError:
            self._queue(page, "frame", frames.refused(t("table.error.unavailable", language), key=key))
            return
        finally:
            if service_key is not None:
                still = page.waiting.pop(service_key, None)
        if key is None:  # a hint
            if state.notice is not None:
                notice_key, params = state.notice
                self._queue(page, "frame", frames.hint(t(notice_key, language, **params)))
            return
        self._answered.setdefault((user, page.table_id), deque(maxlen=ANSWERED_KEYS)).append(key)
        if still is not None:  # no event carried this move (a vote): the table as it is now
            self._fresh(page, key)

    def _fresh(self, page: Page, key: str | None = None) -> None:
        latest = self.latest.get(page.table_id)
        table = self.service.tables.get(page.table_id)
        if table is not None and not table.committing and (latest is None or latest.version < table.version):
            latest = self.latest[page.table_id] = TableSnapshot.of(table)
        if latest is not None:
            self._queue(page, "table", latest, key)

    def frames_per_page(self) -> dict[int, int]:
        """Frames sent so far, per connected page (id of the page)."""
        return {id(page): page.sent for pages in self.pages.values() for page in pages}
