"""The single writer of the public lobby and table messages (:class:`Presenter`): coalesced edits with
the table picture attached, turn mentions, half-time reminders, and the private panels it keeps in
step with the game (its part in :mod:`bot.ui.panels`).

A click on a public lobby or table message is acknowledged without an edit (or answered privately)
and the presenter edits the message with the latest state. Two racing clicks therefore never leave an
older state on screen, and a burst of computer moves becomes one edit (at most one edit in flight per
message, the next one rendering whatever is newest). A 429 is retried by discord.py; a failed edit is
retried with a backoff.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import io
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import discord

from bot import discord_patches
from bot.games.registry import BY_KIND
from bot.i18n import translate as t
from bot.render import messages
from bot.render.images import picture_labels
from bot.render.pictures import Pictures
from bot.service import MISSES_BEFORE_REPLACE, Table
from bot.storage.lobbies import Lobby
from bot.ui import display, threads
from bot.ui.host import Host
from bot.ui.panels import PanelFollower, PanelWatch, panel_key
from bot.ui.views import (
    TABLE_IMAGE,
    add_rating_changes,
    closed_lobby_layout,
    lobby_layout,
    message_link,
    spectator_view,
    table_frame,
    table_layout,
    table_message,
)

log = logging.getLogger(__name__)

# Discord's answers meaning the place of a table is gone (the table is cancelled), or that the message
# only is (it is posted again), or that the bot may no longer post there (the next clicker is told).
PLACE_GONE = {10003, 10004}  # Unknown Channel, Unknown Guild
UNKNOWN_MESSAGE = 10008
CANNOT_POST = {50001, 50013}  # Missing Access, Missing Permissions
NO_MENTIONS = discord.AllowedMentions.none()
# A table edit held for a run of moves (Presenter.table_changed) waits at most this many pauses.
HOLD_INTERVALS = 3
CLOSE_GRACE_S = 2.0  # at a stop, what is under way may end within this before it is cancelled (close)


@dataclass
class _Slot:
    """One public message the presenter keeps up to date."""

    render: Callable[[], Awaitable[None]]
    dirty: bool = True
    task: asyncio.Task[None] | None = None
    interval: float | None = None  # the pause between two renders (None: the presenter's)
    # A run of moves is under way (see Presenter.table_changed): the render waits until
    # this is set (the run ended) or HOLD_INTERVALS pauses have passed.
    held: asyncio.Event | None = None
    # Set when the slot's task ends with nothing left to render (the slot is then forgotten):
    # Presenter._idle waits on it.
    ended: asyncio.Event = field(default_factory=asyncio.Event)


class Presenter(PanelFollower):
    """The single writer of public lobby and table messages; also posts and deletes turn mentions."""

    def __init__(
        self,
        bot: Host,
        *,
        interval: float = 1.0,
        retries: int = 3,
        images: bool = True,
        pictures: Pictures | None = None,
    ) -> None:
        self.bot = bot
        self.pictures = pictures or Pictures(0)  # where pictures are drawn (bot.render.pictures)
        self.interval = interval
        self.retries = retries
        self.images = images  # attach the rendered table picture to table messages
        self._slots: dict[tuple[Any, ...], _Slot] = {}
        # Open private panels the bot keeps in step with the game: game id -> user id -> watch.
        self._panels: dict[int, dict[int, PanelWatch]] = {}
        self._sends: set[asyncio.Task[None]] = set()
        self._deleting: set[int] = set()  # mentions and reminders being deleted
        self._deleted: collections.deque[int] = collections.deque(maxlen=256)  # ... and lately deleted
        self._gone_lobbies: collections.deque[int] = collections.deque(maxlen=256)  # never to edit again
        self._cannot_post: set[int] = set()  # channels where the last post or edit was refused (403)
        # Games played in a thread whose end is posted (bot.ui.threads): the last few, never twice.
        self._threads_closed: collections.deque[int] = collections.deque(maxlen=1024)
        self._closing: set[int] = set()  # ... the threads of those whose post is still to come
        self._closed = False
        self._stopping = False  # no new render or send: Presenter.close

    # the service calls this (TableListener)
    def table_changed(self, table: Table) -> None:
        """Schedule what follows a committed change: the table's edit, the turn's mention, the
        followed panels whose text no longer holds.

        A run of moves is one edit of the table, not one per move (issue 40): a change after which
        only the same seat (the rest of its turn) or computers are to act holds the table's edit
        (:meth:`_run_goes_on`) until the change that hands the game to another human (or ends the
        round), or :data:`HOLD_INTERVALS` pauses between edits (3 s) so that a long run still shows.
        Against computers, a human's last move of a turn and the computers' answer are then one edit,
        shown when it is the human's turn again. The players' own panels are answered at once and the
        turn's mention has its own slot: only spectators of the public table see a move up to 3 s
        later."""
        if table.gone:
            return
        self._schedule(
            ("game", table.id),
            functools.partial(self._render_table_in, table),
            hold=self._run_goes_on(table),
        )
        if self._mention_due(table):
            # Its own slot, without the pause between edits: the mention does not wait for the table's
            # edit (its picture, its upload, the pause since the last edit of that message).
            self._schedule(("mention", table.id), functools.partial(self._mention_in, table), interval=0.0)
        for user_id, watch in list(self._panels.get(table.id, {}).items()):
            if watch.webhook is None or (panel_key(table, watch.seat) == watch.key and not watch.recheck):
                continue  # nothing their panel says has changed (or no panel yet)
            self._follow(table, user_id)
        if (
            table.finished
            and threads.parent_of(table) is not None
            and not threads.result_posted(table)  # stored with the game: posted before a restart
            and table.id not in self._threads_closed
        ):
            self._threads_closed.append(table.id)  # the result in the channel, the thread archived: once
            self._closing.add(table.channel_id)
            self._schedule(("thread", table.id), functools.partial(self._close_thread, table), interval=0.0)

    def lobby_moved(self, table: Table, lobby_message_id: int) -> None:
        """The lobby's game is dealt in a thread: its message in the channel says where (bot.ui.threads)."""
        self._schedule(
            ("moved", table.id), functools.partial(self._edit_moved_lobby, table, lobby_message_id)
        )

    async def _edit_moved_lobby(self, table: Table, lobby_message_id: int) -> None:
        parent = threads.parent_of(table)
        if parent is None:
            return
        locale = self._locale(table.stored.guild_id)
        channel = self.bot.get_partial_messageable(parent, guild_id=table.stored.guild_id)
        moved = threads.in_a_container(threads.lobby_moved_text(table, locale), messages.COLOUR_PLAYING)
        async with self._in_channel(parent):
            await channel.get_partial_message(lobby_message_id).edit(
                content=None, embed=None, view=moved, allowed_mentions=NO_MENTIONS
            )

    async def _close_thread(self, table: Table) -> None:
        """After the last edit of the table and its mentions (an archived thread refuses edits)."""
        try:
            await self._idle(("game", table.id))
            await self._idle(("mention", table.id))
            if not table.gone:
                await threads.close_thread(self.bot, table, self._locale(table.stored.guild_id))
        finally:
            self._closing.discard(table.channel_id)

    @staticmethod
    def _run_goes_on(table: Table) -> bool:
        """True when the last change was a move and the same run of moves goes on at once: only its
        own seat (the rest of a turn: a card drawn, then placed; a turn of several cards)
        and computers (who move after their short pause) are to act next. A human other than the
        last mover to act, a round or game over, ends it."""
        if table.finished or not table.recent:
            return False
        seat = table.recent[-1][0]
        to_act = table.state.seats_to_act()
        if seat < 0 or not to_act:
            return False
        return all(s == seat or table.ai_level(s) is not None for s in to_act)

    def lobby_changed(self, lobby_id: int) -> None:
        self._schedule(("lobby", lobby_id), lambda: self._render_lobby(lobby_id))

    def table_gone(self, table: Table) -> None:
        """Its channel or server is gone: no edit of its message or of its players' panels (those live
        in the same channel) is made any more, pending or not."""
        self._stop(("game", table.id))
        self._stop(("mention", table.id))
        for user_id in list(self._panels.get(table.id, {})):
            self._stop(("panel", table.id, user_id))
        self._panels.pop(table.id, None)

    def lobby_gone(self, lobby_id: int) -> None:
        self._gone_lobbies.append(lobby_id)
        self._stop(("lobby", lobby_id))

    def _stop(self, key: tuple[Any, ...]) -> None:
        slot = self._slots.get(key)
        if slot is not None:
            slot.dirty = False  # a render in flight ends by itself (and is ignored if it fails)
            if slot.held is not None:
                slot.held.set()

    def cannot_post(self, channel_id: int | None) -> bool:
        """True while Discord refuses the bot's posts (or edits) in this channel, since its last refusal
        and until a post there succeeds: the players are told when they click (:class:`TableUI`)."""
        return channel_id in self._cannot_post

    @contextlib.asynccontextmanager
    async def _in_channel(self, channel_id: int) -> AsyncIterator[None]:
        """Around every post or edit of a table or lobby message (and reminder) in ``channel_id``.

        10003 / 10004 (the channel or server is gone, e.g. deleted while the bot was stopped): every
        table there is cancelled (:meth:`TableService.cancel_gone`) and the failure ends here. 403
        50001 / 50013 (the bot may no longer see or post in the channel): the table goes on, the next
        clickers are told (:meth:`cannot_post`), and the error goes on to the caller (logged once,
        not retried: only a later change tries again). 400 50083 (a game's thread archived under it, or
        archived while the bot was stopped before the game's result was posted there): the thread is
        unarchived and the error goes on (the edit is retried; the close archives it again)."""
        try:
            yield
        except discord.NotFound as error:
            if error.code not in PLACE_GONE:
                raise
            why = "unknown channel" if error.code == 10003 else "unknown guild"
            await self.bot.service.cancel_gone(lambda _guild, channel: channel == channel_id, why)
        except discord.Forbidden as error:
            if error.code in CANNOT_POST:
                self._cannot_post.add(channel_id)
            raise
        except discord.HTTPException as error:
            # 50083: a game's thread was archived under it (a week without a message, or a moderator):
            # unarchive it and let the edit be tried again (bot.ui.threads).
            if error.code == threads.ARCHIVED and (
                self.bot.service.table_in_channel(channel_id) is not None or channel_id in self._closing
            ):
                await threads.unarchive(self.bot, channel_id)
            raise

    async def _post(self, channel: discord.PartialMessageable, *args: Any, **kwargs: Any) -> discord.Message:
        """``channel.send``; a post that succeeds ends the "I can no longer post here" warning."""
        message = await channel.send(*args, **kwargs)
        self._cannot_post.discard(channel.id)
        return message

    def remind(self, table: Table, seats: list[int], seconds_left: int) -> None:
        users = [u for u in (table.stored.seats[s].user_id for s in seats) if u is not None]
        if users and not table.gone:
            self._spawn(self._send_reminder(table, users, seconds_left), f"remind-{table.id}")

    def seat_taken_over(self, table: Table, seat: int) -> None:
        user_id = table.stored.seats[seat].user_id
        if user_id is not None:
            self._spawn(self._tell_replaced(table, user_id), f"replaced-{table.id}")

    def _spawn(self, work: Awaitable[None], name: str) -> None:
        async def run() -> None:
            try:
                await work
            except discord.HTTPException as error:
                log.warning("message send failed", extra={"what": name, "status": error.status})
            except Exception:
                log.exception("message send failed", extra={"what": name})

        if self._stopping:
            return
        task = asyncio.create_task(run(), name=name)
        self._sends.add(task)
        task.add_done_callback(self._sends.discard)

    async def _send_reminder(self, table: Table, users: list[int], seconds_left: int) -> None:
        stored = table.stored
        locale = self._locale(stored.guild_id)
        channel = self.bot.get_partial_messageable(stored.channel_id, guild_id=stored.guild_id)
        text = t(
            "long_games.reminder" if table.long_game else "table.turn.reminder",  # hours: a timestamp
            locale,
            players=" ".join(f"<@{u}>" for u in users),
            seconds=seconds_left,
            deadline=f"<t:{self.bot.service.clock.now_ms() // 1000 + seconds_left}:R>",
        )
        mentions = discord.AllowedMentions(
            users=[discord.Object(u) for u in users], everyone=False, roles=False
        )
        async with self._in_channel(stored.channel_id):
            message = await self._post(channel, text, allowed_mentions=mentions)
        if table.gone:
            return
        old = table.stored.meta.get("reminder")
        await self.bot.service.remember_messages(table, reminder=message.id)
        if isinstance(old, int):
            await self._delete(channel, old)

    async def _delete(self, channel: discord.PartialMessageable, message_id: int) -> None:
        """Delete a mention or reminder once: the turn's mention and a new reminder may both find the
        same old reminder to delete (a second delete would only get a 404)."""
        if message_id in self._deleting or message_id in self._deleted:
            return
        self._deleting.add(message_id)
        try:
            with contextlib.suppress(discord.NotFound):
                await channel.get_partial_message(message_id).delete()
        finally:
            self._deleting.discard(message_id)
            self._deleted.append(message_id)

    async def _tell_replaced(self, table: Table, user_id: int) -> None:
        """A private word to the player a computer player replaced after too many missed turns."""
        stored = table.stored
        locale = self.bot.service.cached_prefs(user_id).locale or self._locale(stored.guild_id)  # theirs
        link = message_link(stored.guild_id, stored.channel_id, stored.message_id)
        text = t(
            "table.turn.replaced_dm",
            locale,
            missed=MISSES_BEFORE_REPLACE,
            button=t(table.game.panel_button, locale),
            take_back=t("seats.button.take_back", locale),
            link=link,
        )
        dm = await self.bot.create_dm(discord.Object(user_id))
        await dm.send(text)

    def _schedule(
        self,
        key: tuple[Any, ...],
        render: Callable[[], Awaitable[None]],
        *,
        interval: float | None = None,
        hold: bool = False,
    ) -> None:
        """Render ``key``'s message again (at most one render in flight, one per pause). ``hold``: this
        change is in a run of moves, the render waits for the run's end (table_changed)."""
        if self._stopping:
            return
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = _Slot(render, interval=interval)
        slot.render, slot.dirty = render, True
        if hold and self.interval > 0:
            if slot.held is None:
                slot.held = asyncio.Event()
        elif slot.held is not None:
            slot.held.set()  # the run ended: render now (within the pause)
        if slot.task is None or slot.task.done():
            slot.task = asyncio.create_task(self._run(key, slot), name=f"presenter-{key[0]}-{key[1]}")

    async def _idle(self, key: tuple[Any, ...]) -> None:
        """Wait, without polling, until ``key``'s message has nothing left to render: no slot, or its
        task ended with nothing dirty (:attr:`_Slot.ended`); a slot made again meanwhile is waited
        for too. Never returns once the presenter is closed (its tasks are cancelled)."""
        while (slot := self._slots.get(key)) is not None:
            await slot.ended.wait()

    async def _run(self, key: tuple[Any, ...], slot: _Slot) -> None:
        try:
            await self._render_while_dirty(key, slot)
        finally:
            if self._slots.get(key) is slot and not slot.dirty:
                del self._slots[key]
                slot.ended.set()

    async def _render_while_dirty(self, key: tuple[Any, ...], slot: _Slot) -> None:
        failures = 0
        while slot.dirty and not self._closed:
            held = slot.held
            if held is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(held.wait(), HOLD_INTERVALS * self.interval)
                if slot.held is held:
                    slot.held = None
                if not slot.dirty or self._closed:  # stopped meanwhile (_stop)
                    break
            slot.dirty = False
            started = time.monotonic()
            try:
                await slot.render()
                failures = 0
            except discord.HTTPException as error:
                failures += 1
                log.warning(
                    "message edit failed",
                    extra={"what": key[0], "id": key[1], "status": error.status, "attempt": failures},
                )
                if failures <= self.retries and error.status != 403:  # a refusal stays one
                    slot.dirty = True
                    await asyncio.sleep(0.5 * failures)
            except Exception:
                log.exception("message render failed", extra={"what": key[0], "id": key[1]})
            interval = self.interval if slot.interval is None else slot.interval
            wait = interval - (time.monotonic() - started)
            if slot.dirty and wait > 0 and not self._stopping:
                await asyncio.sleep(wait)  # coalesce: whatever changed meanwhile becomes one edit

    def _under_way(self) -> list[asyncio.Task[None]]:
        """The renders and sends not done yet."""
        tasks = [s.task for s in self._slots.values() if s.task is not None and not s.task.done()]
        return tasks + [task for task in self._sends if not task.done()]

    async def flush(self) -> None:
        """Wait until every pending edit is done (tests and shutdown)."""
        while True:
            if not (tasks := self._under_way()):
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Stop: nothing new starts, what is under way (an edit, a held one made now, a mention posted
        and its id being stored for the next process to delete) gets :data:`CLOSE_GRACE_S`, then the
        rest is cancelled. Cancelled at once, a mention posted just before a deploy stayed for good."""
        self._stopping = True
        for slot in list(self._slots.values()):
            if slot.held is not None:
                slot.held.set()
        if pending := self._under_way():
            await asyncio.wait(pending, timeout=CLOSE_GRACE_S)
        self._closed = True
        tasks = self._under_way()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def _locale(self, guild_id: int | None) -> object:
        """The language of public messages: the server's fixed one (``/skybo settings``), else its own."""
        guild = self.bot.get_guild(guild_id) if guild_id else None
        return self.bot.service.public_locale(guild_id, guild.preferred_locale if guild is not None else None)

    async def _picture(
        self, table: Table, image: Any, view: dict[str, Any], names: list[str], locale: object, cards: str
    ) -> discord.File | None:
        """The table as a picture (drawn off the event loop: bot.render.pictures), or None when it fails."""
        labels = picture_labels(table.stored.kind, image.DEFAULT_LABELS, locale)
        try:
            png = await self.pictures.draw(image.render_table, view, names, "dark", labels, cards)
        except Exception:
            log.exception("table picture failed", extra={"game_id": table.id})
            return None
        return discord.File(io.BytesIO(png), filename=TABLE_IMAGE)

    async def _render_table_in(self, table: Table) -> None:
        async with self._in_channel(table.channel_id):
            await self._render_table(table)

    async def _render_table(self, table: Table) -> None:
        """Post or edit the table message, in Components V2 (issue 40; see :func:`table_layout`).

        A table message posted before (an embed) is edited into the new look: Discord lets an edit
        set the IS_COMPONENTS_V2 flag (never unset it) when the edit also empties ``content`` (null)
        and ``embeds`` (``[]``), which this edit does (``content=None``, ``embed=None``)."""
        stored = table.stored
        locale = self._locale(stored.guild_id)
        image = table.game.image if self.images else None  # a game stopped by hand too: how it stood
        # Read the table under the channel lock: the service holds it while an action is being
        # committed, so nothing shown here can run ahead of the database.
        async with self.bot.service.lock(stored.channel_id):
            spectator, names = spectator_view(table), table.names()
            body = table_message(table, locale, f"attachment://{TABLE_IMAGE}" if image else None)
            add_rating_changes(table, body, locale)
            frame = table_frame(table, locale)
        if table.gone:  # cancelled while this render waited for the lock
            return
        cards = await display.table_cards(self.bot.service, table) if image else display.CLASSIC
        picture = await self._picture(table, image, spectator, names, locale, cards) if image else None
        if picture is None and body.embed is not None:
            body.embed.pop("image", None)
        # The players' lines beside the picture; the full text (the grids) without it, or when a
        # player at the table reads it in words (``/skybo display table:text``, read into the cache
        # by table_cards above).
        words = any(display.wants_words(self.bot.service, seat.user_id) for seat in stored.seats)
        view = table_layout(body, frame, compact=picture is not None and not words)
        files = [picture] if picture else []
        channel = self.bot.get_partial_messageable(stored.channel_id, guild_id=stored.guild_id)
        if stored.message_id is not None:
            try:
                await discord_patches.edit_channel_message(
                    self.bot,
                    stored.channel_id,
                    stored.message_id,
                    content=None,
                    embed=None,
                    view=view,
                    attachments=files,
                )
            except discord.NotFound as error:
                if error.code != UNKNOWN_MESSAGE:
                    raise  # the channel itself is gone: see _in_channel
                stored.message_id = None
                if picture is not None:
                    picture.reset()
        if stored.message_id is None:  # the table message was deleted: post a new one
            message = await self._post(channel, view=view, files=files)
            await self.bot.service.keep_message_id(table, message.id)

    @staticmethod
    def _mention_due(table: Table) -> bool:
        """True when the turn's mention is not the one stored (a new turn of a human to mention, or an
        old mention or reminder to delete): checked at every change, it costs no request."""
        meta = table.stored.meta
        user = table.turn_user()
        stored = meta.get("mention")
        old = stored if isinstance(stored, list) and len(stored) == 3 else None
        if user is None:
            return old is not None or meta.get("reminder") is not None
        return old is None or old[:2] != [user, table.turns]

    async def _mention_in(self, table: Table) -> None:
        async with self.bot.service.lock(table.channel_id):
            turn = (table.turn_user(), table.turns)
        if table.gone:
            return
        stored = table.stored
        channel = self.bot.get_partial_messageable(stored.channel_id, guild_id=stored.guild_id)
        async with self._in_channel(stored.channel_id):
            await self._mention(table, channel, self._locale(stored.guild_id), *turn)

    async def _mention(
        self, table: Table, channel: discord.PartialMessageable, locale: object, user: int | None, turns: int
    ) -> None:
        """Mention the human whose turn it is, once per turn, and delete the mention (and the turn's
        reminder) when the turn moves on. The last mention is kept in the game's stored meta as
        ``[user, turns, message id]``: a restart neither mentions the same turn again nor forgets the
        message to delete.

        The mention goes out as soon as the turn is committed (:meth:`table_changed` gives it its own
        slot, with no pause between posts): it never waits for the table message's edit, which is
        coalesced to one per second and carries a picture to draw and upload (issue 38: the mention
        came about 5 s after the turn began). The old messages are deleted after the new mention is
        posted, off the new turn's path; the requests per turn are the same (one post, the deletes).

        Not posted to a player looking at their followed panel (:meth:`PanelFollower.looking`: they
        clicked it within the last minute), whose panel's edit says it is their turn: the mention
        and its delete were two of the requests of every turn (issue 40)."""
        meta = table.stored.meta
        key = [user, turns] if user is not None else None
        stored = meta.get("mention")
        old = stored if isinstance(stored, list) and len(stored) == 3 else None
        if old is not None and old[:2] == key:
            return
        # Forget the old messages before deleting them: a stop in between leaves a stale mention in
        # the channel rather than a message deleted twice.
        stale = [None if old is None else old[2], meta.get("reminder")]
        # Looking at their followed panel: its edit tells them, no mention (PanelFollower.looking).
        # Stored as this turn's mention without a message, so this turn is not looked at again.
        looking = key is not None and user is not None and self.looking(table, user)
        await self.bot.service.remember_messages(
            table, mention=[*key, None] if looking and key is not None else None, reminder=None
        )
        try:
            if key is None or user is None or looking:
                return
            text = table.game.message.turn_mention(user, locale)
            if not self.panel_fresh(table.id, user):  # their panel can no longer be edited for them
                text += "\n" + t("table.turn.open_panel", locale)
            try:
                message = await self._post(
                    channel,
                    text,
                    allowed_mentions=discord.AllowedMentions(
                        users=[discord.Object(user)], everyone=False, roles=False
                    ),
                )
            except discord.Forbidden:
                # Not allowed to post here: try again at the next turn, not at every change of this one.
                await self.bot.service.remember_messages(table, mention=[*key, None], reminder=None)
                raise
            await self.bot.service.remember_messages(table, mention=[*key, message.id], reminder=None)
        finally:
            for message_id in stale:
                if isinstance(message_id, int):
                    await self._delete(channel, message_id)

    async def _render_lobby(self, lobby_id: int) -> None:
        lobby = await self.bot.service.lobbies.get(lobby_id)
        if lobby.message_id is None or lobby.status == "started" or lobby_id in self._gone_lobbies:
            return
        async with self._in_channel(lobby.channel_id):
            await self._edit_lobby(lobby)

    async def _edit_lobby(self, lobby: Lobby) -> None:
        assert lobby.message_id is not None
        locale = self._locale(lobby.guild_id)
        channel = self.bot.get_partial_messageable(lobby.channel_id, guild_id=lobby.guild_id)
        message = channel.get_partial_message(lobby.message_id)
        if lobby.status == "cancelled":
            expired = lobby.id in self.bot.service.expired_lobbies
            closed = closed_lobby_layout(locale, expired=expired, game=BY_KIND[lobby.kind].title)
            await message.edit(content=None, embed=None, view=closed, allowed_mentions=NO_MENTIONS)
            return
        view = lobby_layout(lobby, locale, self.bot.service.settings_of(lobby.guild_id))
        await message.edit(content=None, embed=None, view=view, allowed_mentions=NO_MENTIONS)
