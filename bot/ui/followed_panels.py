"""The private panels followed between clicks: one live panel per player and game, and its edits.

Each live panel is edited through the token of the player's last answered click on it. The rule of
what is followed, and why, is with the answers (:mod:`bot.ui.answers`, which tells this module each
answer through :meth:`FollowedPanels.answering`). Here is how: a :class:`PanelWatch` per player and
game, the edits of the live panel when what it says no longer holds (:func:`panel_key`) in the shared
slots (:mod:`bot.ui.slots`), and the retiring of the panels it replaced.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import discord

from bot import discord_patches
from bot.games.registry import whole
from bot.i18n import translate as t
from bot.service import MISSES_BEFORE_REPLACE, PanelState, Table
from bot.ui import card_emojis, display
from bot.ui.host import Host
from bot.ui.slots import Slots
from bot.ui.views import ButtonsView, final_panel_content, panel_content, panel_view, seat_back_view

log = logging.getLogger(__name__)

PANEL_TOKEN_MS = 14 * 60 * 1000  # an interaction token lives 15 minutes: leave room for the edit
# A player who clicked their live panel this recently is taken to be looking at it (see
# FollowedPanels.looking): their turn's mention is not posted, the panel's edit tells them.
LOOKING_MS = 60 * 1000


def panel_key(table: Table, seat: int) -> tuple[Any, ...]:
    """What a private panel's text depends on beyond the seat's own clicks: when it changes, an open
    panel is edited (a new turn, the seat's turn, a round or the game over, the seat taken over)."""
    game = table.state
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

    A click's answer and the follower's edit of the same panel must not leave an older panel on
    screen, yet a click never waits for an edit. So: no edit starts while one of the player's clicks
    is being answered (``busy``); a click that started while an edit was in flight (``clicks``
    moved) may have been overtaken by it at Discord, so the follower then sends the panel again
    (``recheck``): what the click showed when nothing moved since, else the game as it stands."""

    # The interaction webhook of the last click (its token; the Interaction itself, with the whole
    # clicked message, would cost a few KB per open panel).
    webhook: discord.Webhook | None = None
    issued_ms: int = 0
    panel_id: int | None = None  # the live panel: the interaction that opened it (None: unknown)
    # The live panel's message when it is a follow-up of that interaction (a table where the bot is not
    # a member: bot.ui.token_tables), None when it is the interaction's own (@original).
    message_id: int | None = None
    # Panels replaced by the live one, still to retire: panel id -> (webhook, token issued ms, locale,
    # message id or None).
    retiring: dict[int, tuple[discord.Webhook, int, object, int | None]] = field(default_factory=dict)
    locale: object = None
    seat: int = 0
    key: tuple[Any, ...] = ()
    state: PanelState | None = None  # what the last click showed (its mode and notice included)
    busy: int = 0  # clicks of this player on this game being answered now
    clicks: int = 0  # clicks started so far
    recheck: bool = False


@dataclass
class Ticket:
    """What one answer to a click showed, told to the follower when its :meth:`FollowedPanels.answering`
    ends: the panel it showed as the interaction's original message (:meth:`shown`), or that no answer
    could land after the click's move was committed (:meth:`missed`), or neither (a follow-up: not
    followed)."""

    issued_ms: int  # the token's 15 minutes started before this answer
    state: PanelState | None = None
    panel_id: int | None = None
    message_id: int | None = None
    was_missed: bool = False

    def shown(self, state: PanelState, panel_id: int | None, message_id: int | None = None) -> None:
        """The answer showed ``state`` as the panel ``panel_id`` (the id of the interaction that opened
        it, which its message carries; None: unknown): the interaction's original message, or its
        follow-up ``message_id`` (the panel opened from a table where the bot is not a member)."""
        self.state, self.panel_id, self.message_id = state, panel_id, message_id

    def missed(self) -> None:
        """No answer landed, yet the click's move is committed: the panel still shows the state before."""
        self.was_missed = True


class FollowedPanels:
    """The live private panel of each player and game, kept in step with the game between their clicks."""

    def __init__(self, bot: Host, slots: Slots) -> None:
        self.bot = bot
        self.slots = slots
        self._panels: dict[int, dict[int, PanelWatch]] = {}  # game id -> user id -> the live panel

    # ------------------------------------------------------------------ told by the table's changes

    def table_changed(self, table: Table) -> None:
        """Follow the panels whose text no longer holds after this committed change."""
        for user_id, watch in list(self._panels.get(table.id, {}).items()):
            if watch.webhook is None or (panel_key(table, watch.seat) == watch.key and not watch.recheck):
                continue  # nothing their panel says has changed (or no panel yet)
            self._follow(table, user_id)

    def table_gone(self, table: Table) -> None:
        """Its channel or server is gone: no edit of its players' panels (those live in the same
        channel) is made any more, pending or not."""
        for user_id in list(self._panels.get(table.id, {})):
            self.slots.stop(("panel", table.id, user_id))
        self._panels.pop(table.id, None)

    # ------------------------------------------------------------------ told by a click's answer

    @contextlib.contextmanager
    def answering(
        self, interaction: discord.Interaction[Any], game_id: int, table: Table | None
    ) -> Iterator[Ticket]:
        """Around one answer to a click of this player on this game (:mod:`bot.ui.answers`, its only
        caller): no edit of their panel starts until it ends. The answer says on the :class:`Ticket`
        what it showed; at the end the panel it showed is the player's live panel, followed from then
        on, and the one it replaces is retired; a missed answer has the live panel brought up to date."""
        user_id = interaction.user.id
        watch = self._panels.setdefault(game_id, {}).setdefault(user_id, PanelWatch())
        watch.busy += 1
        watch.clicks += 1
        ticket = Ticket(self.bot.service.clock.now_ms())
        try:
            yield ticket
        finally:
            self._answered(watch, game_id, interaction, table, ticket)
        if ticket.was_missed:
            self._missed(game_id, user_id, table)

    def _answered(
        self,
        watch: PanelWatch,
        game_id: int,
        interaction: discord.Interaction[Any],
        table: Table | None,
        ticket: Ticket,
    ) -> None:
        """The click is answered; ``ticket.state`` is the panel it showed as the interaction's original
        message (None: nothing to follow, e.g. a follow-up), the panel ``ticket.panel_id``. Its token,
        fresh for 15 minutes from the click (``ticket.issued_ms``), lets the bot edit that panel when
        the game moves on without a click of theirs. It is the player's live panel now: the one it
        replaces is retired (see :class:`PanelWatch`)."""
        watch.busy -= 1
        user_id = interaction.user.id
        state, panel_id = ticket.state, ticket.panel_id
        if table is None or state is None or self.slots.closed:
            if watch.webhook is None and not watch.busy:
                self._forget_panel(game_id, user_id)  # nothing followed: no watch kept
            elif table is not None and watch.key == () and not watch.busy and not self.slots.closed:
                self._follow(table, user_id)  # an edit of the followed panel gave way to this click
            return
        now = self.bot.service.clock.now_ms()
        if panel_id is not None:
            watch.retiring.pop(panel_id, None)  # clicked: live again, not to retire
            old = watch.panel_id
            live = watch.webhook is not None and now - watch.issued_ms < PANEL_TOKEN_MS  # else not editable
            if old is not None and old != panel_id and live:
                assert watch.webhook is not None
                watch.retiring[old] = (watch.webhook, watch.issued_ms, watch.locale, watch.message_id)
        watch.panel_id = panel_id
        watch.webhook = interaction.followup
        watch.message_id = ticket.message_id
        watch.issued_ms = ticket.issued_ms
        watch.locale = interaction.locale
        watch.seat = state.seat
        if table.finished:
            # The click showed the end; an edit of the follower may still be on its way to this panel:
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

    def _missed(self, game_id: int, user_id: int, table: Table | None) -> None:
        """A click on a panel whose answer could not land after its move was committed: the panel still
        shows the state before it. The player's live panel is edited through the token of their last
        answered click, if it still has time (the move shows on the public table in any case)."""
        watch = self._panels.get(game_id, {}).get(user_id)
        table = table or self.bot.service.tables.get(game_id)
        if watch is None or watch.webhook is None or table is None:
            return
        # What it shows is unknown: the game as it stands (and not "looking": the mention goes out).
        watch.key, watch.recheck, watch.state = (), False, None
        if not watch.busy:
            self._follow(table, user_id)

    # ------------------------------------------------------------------ asked by the mentions

    def panel_fresh(self, game_id: int, user_id: int) -> bool:
        """True while the bot can still edit this player's panel (the token has time left)."""
        watch = self._panels.get(game_id, {}).get(user_id)
        if watch is None:
            return False
        return self.bot.service.clock.now_ms() - watch.issued_ms < PANEL_TOKEN_MS

    def looking(self, table: Table, user_id: int) -> bool:
        """True when this player is taken to be looking at their live panel, which the bot follows:
        their last click on it was answered (so the panel is on their screen, not dismissed) within
        :data:`LOOKING_MS` (a minute; its token has 13 more), they sit at that panel's seat and no
        click of theirs is being answered. The follower then edits that panel for their turn
        (:meth:`_follow`, the panel's key changes with the turn), and the turn's mention, a ping
        posted in the channel and deleted at the next turn, is not posted (issue 40: two requests
        per turn). Conservative by design: a minute without a click, a panel never opened or opened
        elsewhere (another game, another seat), and the mention goes out as before; the half-time
        reminder of a turn limit pings in every case."""
        watch = self._panels.get(table.id, {}).get(user_id)
        if watch is None or watch.webhook is None or watch.state is None or watch.busy:
            return False
        if watch.seat != table.seat_of(user_id):
            return False
        return self.bot.service.clock.now_ms() - watch.issued_ms < LOOKING_MS

    # ------------------------------------------------------------------ the edits

    def _follow(self, table: Table, user_id: int) -> None:
        self.slots.schedule(
            ("panel", table.id, user_id), functools.partial(self._render_panel, table, user_id)
        )

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
                # game; once it is answered, _answered compares the versions and sends the panel
                # again if so. Nothing was sent from here, so nothing can overtake that answer: no
                # recheck (issue 40: it sent every such panel twice). What the panel shows is unknown
                # until then.
                watch.key = ()
                return
            key = panel_key(table, watch.seat)
            finished = table.finished  # what this edit shows: the game may end while it is on its way
            if key == watch.key and not watch.recheck:
                return
            shown = watch.state
            if watch.key == () and not watch.recheck and shown is not None and shown.version == table.version:
                # Answered while the channel lock was held (_answered could not tell whether a commit
                # was under way): none was, the panel shows the game as it stands.
                watch.key = key
                return
            content: str
            view: ButtonsView | None
            # Why it is sent: the game moved on (its key changed), or a click made what the panel shows
            # uncertain (overtaken by an edit on its way, answered older than the game, missed).
            reason = "click" if watch.recheck or watch.key == () else "game"
            if (
                watch.recheck
                and not finished  # a finished game's panel is its end (as the click showed it)
                and shown is not None
                and shown.version == table.version
                and watch.key in (key, ())
            ):
                # Nothing moved since the click: show again exactly what it showed (mode, notice). (Its
                # key may be unknown: answered while the channel's lock was held by another render.)
                words = display.wants_words(self.bot.service, user_id)
                cards = display.panel_cards(self.bot.service, user_id)
                content = panel_content(shown, watch.locale, words)
                view = panel_view(shown, watch.locale, cards, self.bot.card_emojis)
            else:
                content, view = self._followed_panel(table, watch.seat, watch.locale)
        webhook = watch.webhook
        watch.recheck = False
        self.bot.metrics.panel_edited(reason)
        try:
            await _edit(webhook, watch.message_id, content, view)
        except discord.HTTPException as error:
            # Dismissed, deleted or a dead token: stop following this panel; a click opens a new one.
            log.info("panel not followed", extra={"game_id": table.id, "status": error.status})
            if card_emojis.refused(error):
                self.bot.card_emojis.forget()  # an emoji deleted since it was listed: none until listed again
            if watch.clicks == clicks:
                self._forget_panel(table.id, user_id)
            return
        if watch.clicks != clicks:
            # A click was answered while this edit was on its way: whichever Discord applied last
            # wins, so send the newest panel once more when that click is done. What the panel is
            # meant to show is the click's (its answer set the key): this edit may be older than it
            # (held by a 429 across a whole turn, it showed the turn before the click's).
            watch.recheck = True
            if not watch.busy:
                self._follow(table, user_id)
            return
        watch.key = key
        if finished:
            self._forget_panel(table.id, user_id)  # it shows the end: nothing more to follow

    async def _retire(self, table: Table, watch: PanelWatch) -> None:
        """Edit the panels the live one replaced: a word saying so, no button (see :class:`PanelWatch`)."""
        while watch.retiring:
            _, (webhook, issued_ms, locale, message_id) = watch.retiring.popitem()
            if self.bot.service.clock.now_ms() - issued_ms >= PANEL_TOKEN_MS:
                continue  # its token is (nearly) dead
            self.bot.metrics.panel_edited("retire")
            try:
                await _edit(webhook, message_id, t("table.panel.replaced", locale), None)
            except discord.HTTPException as error:  # dismissed, deleted: nothing left to retire
                log.info("panel not retired", extra={"game_id": table.id, "status": error.status})

    def _followed_panel(self, table: Table, seat: int, locale: object) -> tuple[str, ButtonsView | None]:
        """The panel as the game stands (the channel lock is held)."""
        user_id = table.stored.seats[seat].user_id
        words = display.wants_words(self.bot.service, user_id)
        if table.finished:
            return final_panel_content(table, seat, locale, words), None
        if seat in table.idle():  # replaced for missed turns: the way back, right on the panel
            offer = t("seats.offer", locale, missed=MISSES_BEFORE_REPLACE)
            return offer, seat_back_view(whole(table.game).prefix, table.id, locale)
        if seat in table.replaced():
            return t("table.error.seat_replaced", locale), None
        state = self.bot.service.panel_of(table, seat)
        cards = display.panel_cards(self.bot.service, user_id)
        return panel_content(state, locale, words), panel_view(state, locale, cards, self.bot.card_emojis)


async def _edit(
    webhook: discord.Webhook, message_id: int | None, content: str, view: ButtonsView | None
) -> None:
    """Edit a panel through its token: the interaction's own message, or its follow-up ``message_id``."""
    if message_id is None:
        await discord_patches.edit_original(webhook, content=content, view=view)
    else:
        await webhook.edit_message(message_id, content=content, view=view)
