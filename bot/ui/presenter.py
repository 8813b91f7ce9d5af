"""The single writer of the public lobby and table messages (:class:`Presenter`): coalesced edits with
the table picture attached, turn mentions, half-time reminders, and the private panels it keeps in
step with the game (:class:`PanelWatch`).

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

from bot.games.registry import KINDS
from bot.i18n import template
from bot.i18n import translate as t
from bot.render import table_text
from bot.render.pictures import Pictures
from bot.service import MISSES_BEFORE_REPLACE, PanelState, Table
from bot.storage.lobbies import Lobby
from bot.ui import display, lean
from bot.ui.host import Host
from bot.ui.views import (
    TABLE_IMAGE,
    ButtonsView,
    add_rating_changes,
    embed_of,
    final_panel_content,
    lobby_message,
    lobby_view,
    message_link,
    panel_content,
    panel_view,
    seat_back_view,
    table_message,
    table_view,
)

log = logging.getLogger(__name__)

PANEL_TOKEN_MS = 14 * 60 * 1000  # an interaction token lives 15 minutes: leave room for the edit
# Discord's answers meaning the place of a table is gone (the table is cancelled), or that the message
# only is (it is posted again), or that the bot may no longer post there (the next clicker is told).
PLACE_GONE = {10003, 10004}  # Unknown Channel, Unknown Guild
UNKNOWN_MESSAGE = 10008
CANNOT_POST = {50001, 50013}  # Missing Access, Missing Permissions
NO_MENTIONS = discord.AllowedMentions.none()


def panel_key(table: Table, seat: int) -> tuple[Any, ...]:
    """What a private panel's text depends on beyond the seat's own clicks: when it changes, an open
    panel is edited (a new turn, the seat's turn, a round or the game over, the seat taken over)."""
    game = table.game
    return (
        table.finished,
        game.phase,
        game.round,
        game.turn,
        seat in game.seats_to_act(),
        seat in table.replaced(),
    )


@dataclass
class PanelWatch:
    """A player's live private panel: the last interaction that showed it and what it showed.

    One live panel per player and game (issue 38): the one they last opened or clicked. *My grid*
    clicked again opens a new panel, and the one it replaces is **retired**: edited to say so, with no
    button left, so that no panel stays behind on an old state (still offering moves, or "?" cards
    answering "This game is over" once the game ended). Retiring costs one edit through the old
    panel's token when a panel is opened again, not one per move (following every open panel would
    edit each at every change). A panel whose token is dead (15 minutes after its last click) cannot
    be edited any more, by Discord's rules: it is left as it is, and a click on it makes it the live
    panel again (the fresh click's token), retiring the other.

    A click's answer and the presenter's edit of the same panel must not leave an older panel on
    screen, yet a click never waits for an edit. So: no edit starts while one of the player's clicks
    is being answered (``busy``); a click that started while an edit was in flight (``clicks``
    moved) may have been overtaken by it at Discord, so the presenter then sends the panel again
    (``recheck``): what the click showed when nothing moved since, else the game as it stands."""

    # The interaction webhook of the last click (its token; the Interaction itself, with the whole
    # clicked message, would cost a few KB per open panel).
    webhook: discord.Webhook | None = None
    issued_ms: int = 0
    panel_id: int | None = None  # the live panel: the interaction that opened it (None: unknown)
    # Panels replaced by the live one, still to retire: panel id -> (webhook, token issued ms, locale).
    retiring: dict[int, tuple[discord.Webhook, int, object]] = field(default_factory=dict)
    locale: object = None
    seat: int = 0
    key: tuple[Any, ...] = ()
    state: PanelState | None = None  # what the last click showed (its mode and notice included)
    busy: int = 0  # clicks of this player on this game being answered now
    clicks: int = 0  # clicks started so far
    recheck: bool = False


@dataclass
class _Slot:
    """One public message the presenter keeps up to date."""

    render: Callable[[], Awaitable[None]]
    dirty: bool = True
    task: asyncio.Task[None] | None = None
    interval: float | None = None  # the pause between two renders (None: the presenter's)


class Presenter:
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
        self._closed = False

    # the service calls this (TableListener)
    def table_changed(self, table: Table) -> None:
        if table.gone:
            return
        self._schedule(("game", table.id), functools.partial(self._render_table_in, table))
        if self._mention_due(table):
            # Its own slot, without the pause between edits: the mention does not wait for the table's
            # edit (its picture, its upload, the pause since the last edit of that message).
            self._schedule(("mention", table.id), functools.partial(self._mention_in, table), interval=0.0)
        for user_id, watch in list(self._panels.get(table.id, {}).items()):
            if watch.webhook is None or (panel_key(table, watch.seat) == watch.key and not watch.recheck):
                continue  # nothing their panel says has changed (or no panel yet)
            self._follow(table, user_id)

    # ------------------------------------------------------------------ private panels that follow

    def panel_click_started(self, game_id: int, user_id: int) -> PanelWatch:
        """A click of this player on this game is being answered: no edit of their panel starts until
        :meth:`panel_click_done`."""
        watch = self._panels.setdefault(game_id, {}).setdefault(user_id, PanelWatch())
        watch.busy += 1
        watch.clicks += 1
        return watch

    def panel_click_done(
        self,
        watch: PanelWatch,
        interaction: discord.Interaction[Any],
        table: Table | None,
        state: PanelState | None,
        panel_id: int | None = None,
        issued_ms: int | None = None,
    ) -> None:
        """The click is answered; ``state`` is the panel it showed as the interaction's original
        message (None: nothing to follow, e.g. a follow-up), the panel ``panel_id`` (the id of the
        interaction that opened it, which its message carries). Its token, fresh for 15 minutes from
        the click (``issued_ms``: taken before its answer was sent; None: now), lets the bot edit that
        panel when the game moves on without a click of theirs. It is the player's live panel now: the
        one it replaces is retired (see :class:`PanelWatch`)."""
        watch.busy -= 1
        user_id = interaction.user.id
        if table is None or state is None or self._closed:
            if table is not None and watch.webhook is None and not watch.busy:
                self._forget_panel(table.id, user_id)
            return
        now = self.bot.service.clock.now_ms()
        if panel_id is not None:
            watch.retiring.pop(panel_id, None)  # clicked: live again, not to retire
            old = watch.panel_id
            live = watch.webhook is not None and now - watch.issued_ms < PANEL_TOKEN_MS  # else not editable
            if old is not None and old != panel_id and live:
                assert watch.webhook is not None
                watch.retiring[old] = (watch.webhook, watch.issued_ms, watch.locale)
        watch.panel_id = panel_id
        watch.webhook = interaction.followup
        watch.issued_ms = now if issued_ms is None else issued_ms
        watch.locale = interaction.locale
        watch.seat = state.seat
        if table.finished:
            # The click showed the end; an edit of the presenter may still be on its way to this panel:
            # show the end once more after it (the key unknown), and retire the panel it replaced.
            watch.key, watch.state = (), state
            if not watch.busy:
                self._follow(table, user_id)
            return
        # The game may have moved on while the answer was on its way (a computer's instant turn), or be
        # moving (a commit under the channel lock: the engine's state runs ahead of its version until
        # it is stored): the key of what the panel shows is then unknown, so bring it up to date now.
        moved = state.version != table.version or self.bot.service.lock(table.channel_id).locked()
        watch.key = () if moved else panel_key(table, state.seat)
        watch.state = state
        if not watch.busy and (watch.recheck or moved or watch.retiring):
            self._follow(table, user_id)

    def _follow(self, table: Table, user_id: int) -> None:
        self._schedule(("panel", table.id, user_id), functools.partial(self._render_panel, table, user_id))

    def panel_fresh(self, game_id: int, user_id: int) -> bool:
        """True while the bot can still edit this player's panel (the token has time left)."""
        watch = self._panels.get(game_id, {}).get(user_id)
        if watch is None:
            return False
        return self.bot.service.clock.now_ms() - watch.issued_ms < PANEL_TOKEN_MS

    def _forget_panel(self, game_id: int, user_id: int) -> None:
        watches = self._panels.get(game_id)
        if watches is not None:
            watches.pop(user_id, None)
            if not watches:
                del self._panels[game_id]

    async def _render_panel(self, table: Table, user_id: int) -> None:
        """Edit a player's open panel when what it says no longer holds (their turn came, another
        player's turn, the round or the game ended), through the token of their last click."""
        watch = self._panels.get(table.id, {}).get(user_id)
        if watch is None or watch.webhook is None or watch.busy:
            return  # a click being answered shows the panel itself (and calls us again if need be)
        if watch.retiring:
            clicks = watch.clicks
            await self._retire(table, watch)
            if watch.clicks != clicks:  # a click meanwhile: it calls us again once answered
                watch.recheck = True
                if not watch.busy:
                    self._follow(table, user_id)
                return
        if not self.panel_fresh(table.id, user_id):
            self._forget_panel(table.id, user_id)  # the token is (nearly) dead: the turn ping says so
            return
        clicks = watch.clicks
        async with self.bot.service.lock(table.channel_id):
            if watch.busy or watch.clicks != clicks:
                # A click started while this waited for the lock: its answer may be older than the
                # game; once it is answered, the panel is sent again (panel_click_done).
                watch.recheck = True
                return
            key = panel_key(table, watch.seat)
            if key == watch.key and not watch.recheck:
                return
            shown = watch.state
            content: str
            view: ButtonsView | None
            if watch.recheck and key == watch.key and shown is not None and shown.version == table.version:
                # Nothing moved since the click: show again exactly what it showed (mode, notice).
                words = display.wants_words(self.bot.service, user_id)
                content, view = panel_content(shown, watch.locale, words), panel_view(shown, watch.locale)
            else:
                content, view = self._followed_panel(table, watch.seat, watch.locale)
        webhook = watch.webhook
        watch.recheck = False
        try:
            await lean.edit_original(webhook, content=content, view=view)
        except discord.HTTPException as error:
            # Dismissed, deleted or a dead token: stop following this panel; a click opens a new one.
            log.info("panel not followed", extra={"game_id": table.id, "status": error.status})
            if watch.clicks == clicks:
                self._forget_panel(table.id, user_id)
            return
        watch.key = key
        if watch.clicks != clicks:
            # A click was answered while this edit was on its way: whichever Discord applied last
            # wins, so send the newest panel once more when that click is done.
            watch.recheck = True
            if not watch.busy:
                self._follow(table, user_id)
        elif table.finished:
            self._forget_panel(table.id, user_id)

    async def _retire(self, table: Table, watch: PanelWatch) -> None:
        """Edit the panels the live one replaced: a word saying so, no button (see :class:`PanelWatch`)."""
        while watch.retiring:
            _, (webhook, issued_ms, locale) = watch.retiring.popitem()
            if self.bot.service.clock.now_ms() - issued_ms >= PANEL_TOKEN_MS:
                continue  # its token is (nearly) dead
            try:
                await lean.edit_original(webhook, content=t("table.panel.replaced", locale), view=None)
            except discord.HTTPException as error:  # dismissed, deleted: nothing left to retire
                log.info("panel not retired", extra={"game_id": table.id, "status": error.status})

    def _followed_panel(self, table: Table, seat: int, locale: object) -> tuple[str, ButtonsView | None]:
        """The panel as the game stands (the channel lock is held)."""
        words = display.wants_words(self.bot.service, table.stored.seats[seat].user_id)
        if table.finished:
            return final_panel_content(table, seat, locale, words), None
        if seat in table.idle():  # replaced for missed turns: the way back, right on the panel
            offer = t("seats.offer", locale, missed=MISSES_BEFORE_REPLACE)
            return offer, seat_back_view(table.kind.prefix, table.id, locale)
        if seat in table.replaced():
            return t("table.error.seat_replaced", locale), None
        state = self.bot.service.panel_of(table, seat)
        return panel_content(state, locale, words), panel_view(state, locale)

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
        not retried: only a later change tries again)."""
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

        if self._closed:
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
            button=t(table.kind.panel_button, locale),
            take_back=t("seats.button.take_back", locale),
            link=link,
        )
        dm = await self.bot.create_dm(discord.Object(user_id))
        await dm.send(text)

    def _schedule(
        self, key: tuple[Any, ...], render: Callable[[], Awaitable[None]], *, interval: float | None = None
    ) -> None:
        if self._closed:
            return
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = _Slot(render, interval=interval)
        slot.render, slot.dirty = render, True
        if slot.task is None or slot.task.done():
            slot.task = asyncio.create_task(self._run(key, slot), name=f"presenter-{key[0]}-{key[1]}")

    async def _run(self, key: tuple[Any, ...], slot: _Slot) -> None:
        failures = 0
        while slot.dirty and not self._closed:
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
            if slot.dirty and wait > 0:
                await asyncio.sleep(wait)  # coalesce: whatever changed meanwhile becomes one edit
        if self._slots.get(key) is slot and not slot.dirty:
            del self._slots[key]

    async def flush(self) -> None:
        """Wait until every pending edit is done (tests and shutdown)."""
        while True:
            tasks = [s.task for s in self._slots.values() if s.task is not None and not s.task.done()]
            tasks += [task for task in self._sends if not task.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        self._closed = True
        tasks = [s.task for s in self._slots.values() if s.task is not None and not s.task.done()]
        tasks += [task for task in self._sends if not task.done()]
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
        kind = table.stored.kind
        labels = {key: template(f"table.image.{kind}.{key}", locale) for key in image.DEFAULT_LABELS}
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
        stored = table.stored
        locale = self._locale(stored.guild_id)
        image = table.kind.image if self.images and table.ended_by is None else None
        # Read the table under the channel lock: the service holds it while an action is being
        # committed, so nothing shown here can run ahead of the database.
        async with self.bot.service.lock(stored.channel_id):
            spectator, names = table.game.view(None), table.names()
            body = table_message(table, locale, f"attachment://{TABLE_IMAGE}" if image else None)
            add_rating_changes(table, body, locale)
            view = table_view(table, locale)
        if table.gone:  # cancelled while this render waited for the lock
            return
        cards = await display.table_cards(self.bot.service, table) if image else display.CLASSIC
        picture = await self._picture(table, image, spectator, names, locale, cards) if image else None
        if picture is None and body.embed is not None:
            body.embed.pop("image", None)
        files = [picture] if picture else []
        channel = self.bot.get_partial_messageable(stored.channel_id, guild_id=stored.guild_id)
        if stored.message_id is not None:
            try:
                await lean.edit_channel_message(
                    self.bot,
                    stored.channel_id,
                    stored.message_id,
                    content=body.content or None,
                    embed=embed_of(body),
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
            message = await self._post(
                channel,
                content=body.content or None,
                embed=embed_of(body),
                view=view,
                files=files,
            )
            stored.message_id = message.id
            await self.bot.service.storage.games.set_message_id(stored.id, message.id)

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
        posted, off the new turn's path; the requests per turn are the same (one post, the deletes)."""
        meta = table.stored.meta
        key = [user, turns] if user is not None else None
        stored = meta.get("mention")
        old = stored if isinstance(stored, list) and len(stored) == 3 else None
        if old is not None and old[:2] == key:
            return
        # Forget the old messages before deleting them: a stop in between leaves a stale mention in
        # the channel rather than a message deleted twice.
        stale = [None if old is None else old[2], meta.get("reminder")]
        await self.bot.service.remember_messages(table, mention=None, reminder=None)
        try:
            if key is None or user is None:
                return
            text = table.kind.table.turn_mention(user, locale)
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
            await message.edit(
                embed=embed_of(
                    table_text.lobby_closed_body(locale, expired=expired, game=KINDS[lobby.kind].title)
                ),
                view=None,
                allowed_mentions=NO_MENTIONS,
            )
            return
        body = lobby_message(lobby, locale, self.bot.service.settings_of(lobby.guild_id))
        await message.edit(embed=embed_of(body), view=lobby_view(lobby, locale), allowed_mentions=NO_MENTIONS)
