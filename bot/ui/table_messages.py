"""The public table and lobby messages, each kept to the latest state by one coalesced edit.

A click on a public lobby or table message is acknowledged without an edit (or answered privately)
and :class:`TableMessages` edits the message with the latest state, in its slot (:mod:`bot.ui.slots`):
two racing clicks therefore never leave an older state on screen, and a burst of computer moves
becomes one edit (at most one edit in flight per message, the next one rendering whatever is newest).
The table's picture is drawn off the event loop (:mod:`bot.render.pictures`). A game played in a thread
(:mod:`bot.ui.threads`) has its lobby's message in the channel say where it went, and its result
posted in the channel once it ends, the thread then archived.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import io
import logging
from typing import Any

import discord

from bot import discord_patches
from bot.games.registry import BY_KIND, whole
from bot.render import messages
from bot.render.images import picture_labels
from bot.render.pictures import Pictures
from bot.service import Refused, Table
from bot.storage.lobbies import Lobby
from bot.ui import display, threads
from bot.ui.host import Host
from bot.ui.mentions import Mentions
from bot.ui.posting import NO_MENTIONS, UNKNOWN_MESSAGE, Posting
from bot.ui.slots import Slots
from bot.ui.views import (
    TABLE_IMAGE,
    LayoutPayload,
    add_rating_changes,
    closed_lobby_layout,
    lobby_layout,
    spectator_view,
    table_frame,
    table_layout,
    table_message,
)

log = logging.getLogger(__name__)


class TableMessages:
    """The single writer of the public lobby and table messages (and of a thread's result)."""

    def __init__(
        self,
        bot: Host,
        slots: Slots,
        posting: Posting,
        mentions: Mentions,
        *,
        pictures: Pictures,
        images: bool,
    ) -> None:
        self.bot = bot
        self.slots = slots
        self.posting = posting
        self.mentions = mentions  # a thread is archived once its last mention is settled
        self.pictures = pictures  # where pictures are drawn (bot.render.pictures)
        self.images = images  # attach the rendered table picture to table messages
        self._gone_lobbies: collections.deque[int] = collections.deque(maxlen=256)  # never to edit again
        self._to_post: set[int] = set()  # lobbies whose message is this surface's to post (lobby_opened)
        # Games played in a thread whose end is posted (bot.ui.threads): the last few, never twice.
        self._threads_closed: collections.deque[int] = collections.deque(maxlen=1024)

    def table_changed(self, table: Table) -> None:
        """Schedule the table's edit after a committed change, and a thread's close at the game's end.

        A run of moves is one edit of the table, not one per move (issue 40): a change after which
        only the same seat (the rest of its turn) or computers are to act holds the table's edit
        (:meth:`run_goes_on`) until the change that hands the game to another human (or ends the
        round), or :data:`bot.ui.slots.HOLD_INTERVALS` pauses between edits (3 s) so that a long run
        still shows. Against computers, a human's last move of a turn and the computers' answer are
        then one edit, shown when it is the human's turn again. The players' own panels are answered at
        once and the turn's mention has its own slot: only spectators of the public table see a move up
        to 3 s later."""
        self.slots.schedule(
            ("game", table.id),
            functools.partial(self._render_table_in, table),
            hold=self.run_goes_on(table),
        )

    def thread_over(self, table: Table) -> None:
        """A finished game played in a thread: its result in the channel, the thread archived, once."""
        if (
            table.finished
            and threads.parent_of(table) is not None
            and not threads.result_posted(table)  # stored with the game: posted before a restart
            and table.id not in self._threads_closed
        ):
            self._threads_closed.append(table.id)  # the result in the channel, the thread archived: once
            self.posting.closing.add(table.channel_id)
            self.slots.schedule(
                ("thread", table.id), functools.partial(self._close_thread, table), interval=0.0
            )

    def lobby_moved(self, table: Table, lobby_message_id: int) -> None:
        """The lobby's game is dealt in a thread: its message in the channel says where (bot.ui.threads)."""
        self.slots.schedule(
            ("moved", table.id), functools.partial(self._edit_moved_lobby, table, lobby_message_id)
        )

    def lobby_changed(self, lobby_id: int) -> None:
        self.slots.schedule(("lobby", lobby_id), lambda: self._render_lobby(lobby_id))

    def lobby_opened(self, lobby_id: int) -> None:
        """A lobby no command answers with (opened from the Activity): its message is posted in its
        channel, in the lobby's slot (a change meanwhile is then shown by that post)."""
        self._to_post.add(lobby_id)
        self.lobby_changed(lobby_id)

    def table_gone(self, table: Table) -> None:
        """Its channel or server is gone: no edit of its message is made any more, pending or not."""
        self.slots.stop(("game", table.id))

    def lobby_gone(self, lobby_id: int) -> None:
        self._gone_lobbies.append(lobby_id)
        self.slots.stop(("lobby", lobby_id))

    @staticmethod
    def run_goes_on(table: Table) -> bool:
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

    async def _edit_moved_lobby(self, table: Table, lobby_message_id: int) -> None:
        parent = threads.parent_of(table)
        if parent is None:
            return
        locale = self.posting.locale(table.stored.guild_id)
        channel = self.bot.get_partial_messageable(parent, guild_id=table.stored.guild_id)
        moved = threads.in_a_container(threads.lobby_moved_text(table, locale), messages.COLOUR_PLAYING)
        async with self.posting.in_channel(parent):
            await channel.get_partial_message(lobby_message_id).edit(
                content=None, embed=None, view=moved, allowed_mentions=NO_MENTIONS
            )

    async def _close_thread(self, table: Table) -> None:
        """After the last edit of the table and its mentions (an archived thread refuses edits)."""
        try:
            await self.slots.idle(("game", table.id))
            await self.mentions.settled(table.id)
            if not table.gone:
                await threads.close_thread(self.bot, table, self.posting.locale(table.stored.guild_id))
        finally:
            self.posting.closing.discard(table.channel_id)

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
        async with self.posting.in_channel(table.channel_id):
            await self._render_table(table)

    async def compose(
        self, table: Table, locale: object, *, notice: str | None = None
    ) -> tuple[LayoutPayload, list[discord.File]] | None:
        """The table message as it stands, in Components V2 (issue 40; see :func:`table_layout`), and
        its picture; None when the table was cancelled meanwhile. ``notice``: a line in place of the
        deadline (a table where the bot is not a member, asleep: :mod:`bot.ui.token_tables`)."""
        stored = table.stored
        image = whole(table.game).image if self.images else None  # a game stopped by hand too: how it stood
        # Read the table under the channel lock: the service holds it while an action is being
        # committed, so nothing shown here can run ahead of the database.
        async with self.bot.service.lock(stored.channel_id):
            spectator, names = spectator_view(table), table.names()
            body = table_message(table, locale, f"attachment://{TABLE_IMAGE}" if image else None)
            add_rating_changes(table, body, locale)
            # "Open the table" while the bot serves the Activity (bot.activity.server).
            frame = table_frame(
                table, locale, activity=getattr(self.bot, "activity_server", None) is not None
            )
        if notice is not None:
            frame["header"], frame["brief"] = [notice], [notice]
        if table.gone:  # cancelled while this render waited for the lock
            return None
        cards = await display.table_cards(self.bot.service, table) if image else display.CLASSIC
        picture = await self._picture(table, image, spectator, names, locale, cards) if image else None
        if picture is None and body.embed is not None:
            body.embed.pop("image", None)
        # The players' lines beside the picture; the full text (the grids) without it, or when a
        # player at the table reads it in words (``/skybo display table:text``, read into the cache
        # by table_cards above).
        words = any(display.wants_words(self.bot.service, seat.user_id) for seat in stored.seats)
        view = table_layout(body, frame, compact=picture is not None and not words)
        return view, [picture] if picture else []

    async def _render_table(self, table: Table) -> None:
        """Post or edit the table message (:meth:`compose`).

        A table message posted before (an embed) is edited into the new look: Discord lets an edit
        set the IS_COMPONENTS_V2 flag (never unset it) when the edit also empties ``content`` (null)
        and ``embeds`` (``[]``), which this edit does (``content=None``, ``embed=None``)."""
        stored = table.stored
        composed = await self.compose(table, self.posting.locale(stored.guild_id))
        if composed is None:
            return
        view, files = composed
        picture = files[0] if files else None
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
                    raise  # the channel itself is gone: see Posting.in_channel
                stored.message_id = None
                if picture is not None:
                    picture.reset()
        if stored.message_id is None:  # the table message was deleted: post a new one
            message = await self.posting.post(channel, view=view, files=files)
            await self.bot.service.keep_message_id(table, message.id)

    async def _render_lobby(self, lobby_id: int) -> None:
        lobby = await self.bot.service.lobbies.get(lobby_id)
        if lobby.message_id is None and lobby_id in self._to_post and lobby.status == "open":
            self._to_post.discard(lobby_id)
            await self._post_lobby(lobby)
            return
        if lobby.message_id is None or lobby.status == "started" or lobby_id in self._gone_lobbies:
            return
        if lobby.off_server:  # where the bot is not a member: its own surface (bot.ui.token_tables)
            return
        async with self.posting.in_channel(lobby.channel_id):
            await self._edit_lobby(lobby)

    async def _post_lobby(self, lobby: Lobby) -> None:
        """Post the lobby's message in its channel (:meth:`lobby_opened`); a post Discord refuses
        cancels the lobby (nobody could see or join it), as a refused answer of ``/<game> new`` does."""
        settings = self.bot.service.settings_of(lobby.guild_id)
        view = lobby_layout(lobby, self.posting.locale(lobby.guild_id), settings)
        channel = self.bot.get_partial_messageable(lobby.channel_id, guild_id=lobby.guild_id)
        message: discord.Message | None = None
        try:
            async with self.posting.in_channel(lobby.channel_id):  # the place gone: its lobby with it
                message = await self.posting.post(channel, view=view, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException:
            with contextlib.suppress(Refused):
                await self.bot.service.lobby_cancel(lobby.id, lobby.channel_id, lobby.host_id)
            raise
        if message is not None:
            await self.bot.service.set_lobby_message(lobby, message.id)

    async def _edit_lobby(self, lobby: Lobby) -> None:
        assert lobby.message_id is not None
        locale = self.posting.locale(lobby.guild_id)
        channel = self.bot.get_partial_messageable(lobby.channel_id, guild_id=lobby.guild_id)
        message = channel.get_partial_message(lobby.message_id)
        if lobby.status == "cancelled":
            expired = lobby.id in self.bot.service.expired_lobbies
            closed = closed_lobby_layout(locale, expired=expired, game=BY_KIND[lobby.kind].title)
            await message.edit(content=None, embed=None, view=closed, allowed_mentions=NO_MENTIONS)
            return
        view = lobby_layout(lobby, locale, self.bot.service.settings_of(lobby.guild_id))
        await message.edit(content=None, embed=None, view=view, allowed_mentions=NO_MENTIONS)
