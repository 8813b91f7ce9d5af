"""Turn mentions, half-time reminders and the word to a player a computer replaced.

The turn's mention is a ping posted in the table's channel when a human's turn begins and deleted when
it moves on (the last one is kept in the game's stored meta, so a restart neither mentions a turn twice
nor forgets what to delete); not posted to a player looking at their followed panel, whose edit tells
them (:meth:`bot.ui.followed_panels.FollowedPanels.looking`). The half-time reminder of a turn limit
pings in every case and replaces the turn's previous reminder. A player a computer replaced after
too many missed turns gets a direct message with the way back.
"""

from __future__ import annotations

import collections
import contextlib
import functools

import discord

from bot.games.registry import whole
from bot.i18n import translate as t
from bot.service import MISSES_BEFORE_REPLACE, Table
from bot.ui.followed_panels import FollowedPanels
from bot.ui.host import Host
from bot.ui.posting import Posting
from bot.ui.slots import Slots
from bot.ui.views import message_link


class Mentions:
    """The pings of a table's channel (the turn's mention, the reminder) and the replaced player's word."""

    def __init__(self, bot: Host, slots: Slots, posting: Posting, followed: FollowedPanels) -> None:
        self.bot = bot
        self.slots = slots
        self.posting = posting
        self.followed = followed
        self._deleting: set[int] = set()  # mentions and reminders being deleted
        self._deleted: collections.deque[int] = collections.deque(maxlen=256)  # ... and lately deleted
        # Posted, but the meta write naming them was refused (the database away): by game, the turn's
        # mention ([user, turns], its id) and reminders. Kept here, they are stored at the next pass of
        # that turn (not posted again) or deleted once the turn moves on; a stop meanwhile leaves them.
        self._unstored_mention: dict[int, tuple[list[int], int]] = {}
        self._unstored_reminders: dict[int, list[int]] = {}

    def table_changed(self, table: Table) -> None:
        """Mention the turn's human if this change made a new turn (or delete the old mention)."""
        if self._mention_due(table):
            # Its own slot, without the pause between edits: the mention does not wait for the table's
            # edit (its picture, its upload, the pause since the last edit of that message).
            self.slots.schedule(
                ("mention", table.id), functools.partial(self._mention_in, table), interval=0.0
            )

    def table_gone(self, table: Table) -> None:
        """Its channel or server is gone: no mention is posted or deleted there any more."""
        self.slots.stop(("mention", table.id))
        self._unstored_mention.pop(table.id, None)
        self._unstored_reminders.pop(table.id, None)

    async def settled(self, game_id: int) -> None:
        """Wait until nothing is left to post or delete for this game's turn (a thread's close)."""
        await self.slots.idle(("mention", game_id))

    def remind(self, table: Table, seats: list[int], seconds_left: int) -> None:
        """Half of a turn's time is gone: ping these seats' players."""
        users = [u for u in (table.stored.seats[s].user_id for s in seats) if u is not None]
        if users and not table.gone:
            self.slots.spawn(self._send_reminder(table, users, seconds_left), f"remind-{table.id}")

    def seat_taken_over(self, table: Table, seat: int) -> None:
        """The player of ``seat`` missed too many turns and a computer took the seat: tell them."""
        user_id = table.stored.seats[seat].user_id
        if user_id is not None:
            self.slots.spawn(self._tell_replaced(table, user_id), f"replaced-{table.id}")

    def _mention_due(self, table: Table) -> bool:
        """True when the turn's mention is not the one stored (a new turn of a human to mention, or an
        old mention or reminder to delete, named in the meta or only kept here): checked at every
        change, it costs no request."""
        meta = table.stored.meta
        user = table.turn_user()
        stored = meta.get("mention")
        old = stored if isinstance(stored, list) and len(stored) == 3 else None
        if user is None:
            unstored = table.id in self._unstored_mention or table.id in self._unstored_reminders
            return old is not None or meta.get("reminder") is not None or unstored
        return old is None or old[:2] != [user, table.turns]

    async def _mention_in(self, table: Table) -> None:
        async with self.bot.service.lock(table.channel_id):
            turn = (table.turn_user(), table.turns)
        if table.gone:
            return
        stored = table.stored
        channel = self.bot.get_partial_messageable(stored.channel_id, guild_id=stored.guild_id)
        async with self.posting.in_channel(stored.channel_id):
            await self._mention(table, channel, self.posting.locale(stored.guild_id), *turn)

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

        Not posted to a player looking at their followed panel (:meth:`FollowedPanels.looking`: they
        clicked it within the last minute), whose panel's edit says it is their turn: the mention
        and its delete were two of the requests of every turn (issue 40)."""
        meta = table.stored.meta
        key = [user, turns] if user is not None else None
        stored = meta.get("mention")
        old = stored if isinstance(stored, list) and len(stored) == 3 else None
        if old is not None and old[:2] == key:
            return
        # Forget the old messages before deleting them: a stop in between leaves a stale mention in
        # the channel rather than a message deleted twice. Not forgotten (the database away): not
        # deleted either, or the next pass or process, reading them in the meta, deletes them again.
        stale = [None if old is None else old[2], meta.get("reminder")]
        # Posted by this process but never named in the meta (its write refused): no other pass or
        # process can delete them twice, so they go whatever the meta's writes do now; except this
        # turn's mention, which is stored now rather than posted again.
        loose = self._unstored_reminders.pop(table.id, [])
        posted: int | None = None
        if (unstored := self._unstored_mention.pop(table.id, None)) is not None:
            if unstored[0] == key:
                posted = unstored[1]
            else:
                loose.append(unstored[1])
        # Looking at their followed panel: its edit tells them, no mention (FollowedPanels.looking).
        # Stored as this turn's mention without a message, so this turn is not looked at again.
        looking = (
            posted is None and key is not None and user is not None and self.followed.looking(table, user)
        )
        forgotten = await self.bot.service.remember_messages(
            table, mention=[*key, None] if looking and key is not None else None, reminder=None
        )
        try:
            if key is None or user is None or looking:
                return
            if posted is None:
                text = whole(table.game).message.turn_mention(user, locale)
                if not self.followed.panel_fresh(table.id, user):  # their panel can no longer be edited
                    text += "\n" + t("table.turn.open_panel", locale)
                try:
                    message = await self.posting.post(
                        channel,
                        text,
                        allowed_mentions=discord.AllowedMentions(
                            users=[discord.Object(user)], everyone=False, roles=False
                        ),
                    )
                except discord.Forbidden:
                    # Not allowed to post here: try again at the next turn, not at every change of this one.
                    forgotten |= await self.bot.service.remember_messages(
                        table, mention=[*key, None], reminder=None
                    )
                    raise
                posted = message.id
            if await self.bot.service.remember_messages(table, mention=[*key, posted], reminder=None):
                forgotten = True
            else:  # posted, not named: the next pass of this turn stores it, or deletes it once it is over
                self._unstored_mention[table.id] = (key, posted)
        finally:
            for message_id in stale:
                if forgotten and isinstance(message_id, int):
                    await self._delete(channel, message_id)
            for message_id in loose:
                await self._delete(channel, message_id)

    async def _send_reminder(self, table: Table, users: list[int], seconds_left: int) -> None:
        stored = table.stored
        locale = self.posting.locale(stored.guild_id)
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
        async with self.posting.in_channel(stored.channel_id):
            message = await self.posting.post(channel, text, allowed_mentions=mentions)
        if table.gone:
            return
        old = table.stored.meta.get("reminder")
        # The old one deleted once the meta names the new one (see _mention's forgetting).
        if not await self.bot.service.remember_messages(table, reminder=message.id):
            self._unstored_reminders.setdefault(table.id, []).append(message.id)  # the turn's end deletes it
        elif isinstance(old, int):
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
        locale = self.bot.service.cached_prefs(user_id).locale or self.posting.locale(
            stored.guild_id
        )  # theirs
        link = message_link(stored.guild_id, stored.channel_id, stored.message_id)
        text = t(
            "table.turn.replaced_dm",
            locale,
            missed=MISSES_BEFORE_REPLACE,
            button=t(whole(table.game).panel_button, locale),
            take_back=t("seats.button.take_back", locale),
            link=link,
        )
        dm = await self.bot.create_dm(discord.Object(user_id))
        await dm.send(text)
