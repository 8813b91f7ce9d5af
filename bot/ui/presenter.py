"""The channel's surfaces composed: table messages, followed panels and mentions, over shared slots.

:class:`Presenter` is what the table service tells when a table or a lobby changed without a click to
answer (its listener, :class:`bot.service.TableListener`): it hands each change to the surfaces that
show it, each one idea in its own module, and none of them knowing the others but through what it is
handed:

- :mod:`bot.ui.table_messages`: the public table and lobby messages, one coalesced edit each;
- :mod:`bot.ui.followed_panels`: the players' private panels, followed between their clicks;
- :mod:`bot.ui.mentions`: the turn's mention, the half-time reminder, the replaced player's word;
- over :mod:`bot.ui.slots` (the coalesced renders and sends, their flush and stop) and
  :mod:`bot.ui.posting` (what Discord's refusals in a channel mean).

A click's own answer is not the presenter's: :mod:`bot.ui.answers` owns it, and tells the followed
panels what it showed.
"""

from __future__ import annotations

from bot.render.pictures import Pictures
from bot.service import Table
from bot.ui.followed_panels import FollowedPanels
from bot.ui.host import Host
from bot.ui.mentions import Mentions
from bot.ui.posting import Posting
from bot.ui.slots import Slots
from bot.ui.table_messages import TableMessages


class Presenter:
    """The surfaces of the channel, told every change of a table or lobby (the service's listener)."""

    def __init__(
        self,
        bot: Host,
        *,
        interval: float = 1.0,
        retries: int = 3,
        images: bool = True,
        pictures: Pictures | None = None,
    ) -> None:
        self.slots = Slots(interval=interval, retries=retries)
        self.posting = Posting(bot)
        self.followed = FollowedPanels(bot, self.slots)
        self.mentions = Mentions(bot, self.slots, self.posting, self.followed)
        self.messages = TableMessages(
            bot, self.slots, self.posting, self.mentions, pictures=pictures or Pictures(0), images=images
        )

    @property
    def pictures(self) -> Pictures:
        """Where pictures are drawn (bot.render.pictures): the table's, and a replay's."""
        return self.messages.pictures

    @property
    def images(self) -> bool:
        """Whether table messages carry the table's picture."""
        return self.messages.images

    # ------------------------------------------------------------------ the service's listener

    def table_changed(self, table: Table) -> None:
        """A committed change: the table's edit, the turn's mention, the followed panels whose text no
        longer holds, and a thread's close once its game is over."""
        if table.gone:
            return
        self.messages.table_changed(table)
        self.mentions.table_changed(table)
        self.followed.table_changed(table)
        self.messages.thread_over(table)

    def lobby_changed(self, lobby_id: int) -> None:
        self.messages.lobby_changed(lobby_id)

    def remind(self, table: Table, seats: list[int], seconds_left: int) -> None:
        self.mentions.remind(table, seats, seconds_left)

    def seat_taken_over(self, table: Table, seat: int) -> None:
        self.mentions.seat_taken_over(table, seat)

    def table_gone(self, table: Table) -> None:
        """Its channel or server is gone: no edit of its message, its mention or its players' panels
        (those live in the same channel) is made any more, pending or not."""
        self.messages.table_gone(table)
        self.mentions.table_gone(table)
        self.followed.table_gone(table)

    def lobby_gone(self, lobby_id: int) -> None:
        self.messages.lobby_gone(lobby_id)

    # ------------------------------------------------------------------ told by the ui (until the events)

    def lobby_moved(self, table: Table, lobby_message_id: int) -> None:
        """The lobby's game is dealt in a thread: its message in the channel says where."""
        self.messages.lobby_moved(table, lobby_message_id)

    # ------------------------------------------------------------------ asked by the ui, tests and the stop

    def cannot_post(self, channel_id: int | None) -> bool:
        """True while Discord refuses the bot's posts in this channel (see :class:`Posting`)."""
        return self.posting.cannot_post(channel_id)

    async def flush(self) -> None:
        """Wait until every pending edit and send is done (tests and shutdown)."""
        await self.slots.flush()

    async def close(self) -> None:
        """Stop: what is under way gets its grace, then the rest is cancelled (:meth:`Slots.close`)."""
        await self.slots.close()
