"""Discord adapters of the game tables (every kind, see :mod:`bot.kinds`): stateless buttons, views
built from ButtonSpecs, click handlers, and the presenter that keeps each public message up to date
(coalesced edits with the table picture attached, turn mentions, half-time reminders).

Every in-game button's custom_id is ``<sk|sb>:<game>:<version>:<act>:<arg>`` and every lobby button's
``sl:<lobby>:<act>``: the id carries everything a click needs, so nothing is kept per message and
buttons on messages posted before a restart keep working. Clicks are dispatched by
``SkyboBot.on_interaction`` (:meth:`TableUI.click`), which discord.py calls for every interaction:
discord.py's DynamicItems would do the same, but they rebuild a View of the whole clicked message (a
Button object per component) for every click, a cost that counts when hundreds of games are played at
once. A click is taken only if its id is well-formed and on the clicked message (:func:`dispatchable`),
like a DynamicItem; any other click on one of our ids is answered as forged.

The public lobby and table messages have ONE writer, :class:`Presenter`: a click on them is
acknowledged without an edit (or answered privately) and the presenter edits the message with the
latest state. Two racing clicks therefore never leave an older state on screen, and a burst of
computer moves becomes one edit (at most one edit in flight per message, the next one rendering
whatever is newest). A 429 is retried by discord.py; a failed edit is retried with a backoff.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import io
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.i18n import template
from bot.i18n import translate as t
from bot.kinds import BY_PREFIX, KINDS, GameKind
from bot.render import boards, skyjo_table
from bot.render.names import shown_name
from bot.service import (
    DEFAULT_TURN_LIMIT,
    MISSES_BEFORE_REPLACE,
    MODE_ACT,
    REFRESH_ACT,
    ChannelTaken,
    PanelState,
    Refused,
    SeatTaken,
    Stale,
    Table,
)
from bot.storage.lobbies import Lobby
from bot.ui import ids, lean

if TYPE_CHECKING:
    from bot.client import SkyboBot

log = logging.getLogger(__name__)

GAME_TEMPLATE = r"(?:sk|sb):(?P<game>\d{1,18}):(?P<version>\d{1,9}):(?P<act>[a-z]{2}):(?P<arg>-?\d{1,4})"
LOBBY_TEMPLATE = r"sl:(?P<lobby>\d{1,18}):(?P<act>[a-z]{2})"
JOIN, LEAVE_LOBBY, ADD_COMPUTER, REMOVE_COMPUTER, START, CANCEL = "jn", "lv", "ai", "ar", "st", "cx"
LOBBY_ACTS = {JOIN, LEAVE_LOBBY, ADD_COMPUTER, REMOVE_COMPUTER, START, CANCEL}
# Table-message acts, the same two letters in every kind's panel module.
OPEN_PANEL, RULES, LEAVE, NEXT_ROUND, REMATCH = "op", "ru", "lv", "nx", "rm"
# The buttons of a private "are you sure?" (Leave, /<game> end): game-level ids, version 0, so a
# confirmation answered after a restart still works; the acts clash with no panel or table act.
LEAVE_YES, END_YES, CONFIRM_NO = "ly", "ey", "no"
# "Take my seat back", offered privately to a player a computer replaced for missed turns (version 0).
RECLAIM = "rc"
CONFIRMATIONS = {
    LEAVE_YES: ("table.confirm.leave", "table.confirm.yes_leave"),
    END_YES: ("table.confirm.end", "table.confirm.yes_end"),
}
TABLE_IMAGE = "skybo-table.png"
TABLE_VERSION = 0  # the version field of table-message buttons: they do not go stale
STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}


def message_link(guild_id: int | None, channel_id: int, message_id: int | None) -> str:
    where = guild_id if guild_id else "@me"
    if message_id is None:
        return f"https://discord.com/channels/{where}/{channel_id}"
    return f"https://discord.com/channels/{where}/{channel_id}/{message_id}"


# ---------------------------------------------------------------------------------- dispatch

GAME_PATTERN = re.compile(GAME_TEMPLATE)
LOBBY_PATTERN = re.compile(LOBBY_TEMPLATE)


def is_ours(custom_id: str) -> bool:
    return custom_id.startswith(("sk:", "sb:", "sl:"))


def dispatchable(interaction: discord.Interaction[Any]) -> bool:
    """True when this click is ours to take: a well-formed id, on a component of the clicked message."""
    data: Any = interaction.data or {}
    custom_id = str(data.get("custom_id", ""))
    pattern = LOBBY_PATTERN if custom_id.startswith("sl:") else GAME_PATTERN
    if pattern.fullmatch(custom_id) is None or interaction.message is None:
        return False
    for row in interaction.message.components:
        for child in getattr(row, "children", ()):
            if getattr(child, "custom_id", None) == custom_id:
                return True
    return False


# ---------------------------------------------------------------------------------- views


class ButtonsView(discord.ui.View):
    """Rows of buttons given as Discord's component payload, built straight from our button specs.

    A click on any of our buttons is dispatched from its custom_id alone (:meth:`TableUI.click`),
    never by the view it was sent with, so discord.py need keep nothing of it. It would: a view sent
    with a message is stored in its ViewStore, and one sent ephemerally (every private panel) gets a
    15-minute timeout task holding it alive. This view is therefore born finished (``is_finished()``),
    which discord.py takes as "do not store", and says it is not dispatchable. Building it costs a
    few dicts instead of a Button object per button; the payload is key for key the one
    ``discord.ui.Button`` produces.
    """

    def __init__(self, rows: list[list[dict[str, Any]]]) -> None:
        # Not discord.py's View.__init__: it draws a random id (os.urandom, 0.13 ms a call on a busy
        # VM), makes a future and walks the class for decorated items, for a view that is never
        # stored. Only what discord.py reads of a view it is given is set (timeout, children).
        self._BaseView__timeout = None
        self._children = []
        self._rows = [row for row in rows if row]

    def is_finished(self) -> bool:
        return True

    def has_components_v2(self) -> bool:
        return False

    def to_components(self) -> list[dict[str, Any]]:
        return [{"type": 1, "components": row} for row in self._rows]

    def is_dispatchable(self) -> bool:
        return False

    def custom_ids(self) -> list[str]:
        return [str(b["custom_id"]) for row in self._rows for b in row]


@functools.cache
def _emoji(emoji: str) -> dict[str, Any]:
    return dict(discord.PartialEmoji.from_str(emoji).to_dict())


def _button(custom_id: str, label: str, style: str = "secondary", *, disabled: bool = False,
            emoji: str | None = None) -> dict[str, Any]:  # fmt: skip
    """A button's payload, key for key what ``discord.ui.Button(...).to_component_dict()`` gives."""
    payload: dict[str, Any] = {
        "type": 2,
        "style": STYLES.get(style, discord.ButtonStyle.secondary).value,
        "disabled": disabled,
    }
    label = label[: ids.MAX_LABEL]
    if label:
        payload["label"] = label
    payload["custom_id"] = custom_id
    if emoji:
        payload["emoji"] = _emoji(emoji)
    return payload


def panel_view(state: PanelState, locale: object) -> ButtonsView:
    panel = KINDS[state.kind].panel
    rows = panel.panel_rows(state.view, state.seat, state.game_id, state.version, state.mode, locale)
    return ButtonsView(
        [
            [_button(s.custom_id, s.label, s.style, disabled=s.disabled, emoji=s.emoji) for s in line]
            for line in rows
        ]
    )


def panel_content(state: PanelState, locale: object) -> str:
    panel = KINDS[state.kind].panel
    lines = [panel.panel_title(state.view, locale)]
    if state.notice is not None:
        key, params = state.notice
        lines.append(t(key, locale, **params))
    lines.append(panel.panel_hint(state.view, state.seat, state.names, state.mode, locale))
    return "\n".join(lines)


def table_view(table: Table, locale: object) -> ButtonsView | None:
    gid, prefix = table.id, table.kind.prefix

    def cid(act: str, arg: int = 0) -> str:
        # Version 0: these buttons mean the same whatever the state, so their ids never change and a
        # click racing a table edit is still on the message (Discord drops clicks whose id is gone).
        return ids.encode(prefix, gid, TABLE_VERSION, act, arg)

    if table.ended_by is not None:
        return None
    if table.finished:
        return ButtonsView([[_button(cid(REMATCH), t("table.button.rematch", locale), "success")]])
    buttons = []
    if table.game.phase == "round_over":
        # One id for the whole round (its number is the arg): a vote for a round already dealt is refused.
        buttons.append(
            _button(cid(NEXT_ROUND, table.game.round), t("ui.panel.next_round", locale), "success")
        )
    mine = "table.button.my_grid" if table.stored.kind == "skyjo" else "table.button.my_hand"
    buttons.append(_button(cid(OPEN_PANEL), t(mine, locale), "primary"))
    buttons.append(_button(cid(RULES), t("table.button.rules", locale)))
    buttons.append(_button(cid(LEAVE), t("table.button.leave", locale), "danger"))
    return ButtonsView([buttons])


def seat_back_view(prefix: str, game_id: int, locale: object) -> ButtonsView:
    """The "Take my seat back" button offered to a player a computer replaced for missed turns."""
    custom_id = ids.encode(prefix, game_id, TABLE_VERSION, RECLAIM, 0)
    return ButtonsView([[_button(custom_id, t("seats.button.take_back", locale), "success")]])


def table_message(table: Table, locale: object, image_url: str | None = None) -> skyjo_table.MessageBody:
    waiting = table.round_waiting() if table.game.phase == "round_over" else []
    body: skyjo_table.MessageBody = table.kind.table.table_body(
        table.game.view(None),
        table.names(),
        locale=locale,
        recent=table.recent,
        replaced=table.replaced(),
        waiting_round=waiting,
        resumed=table.resumed,
        ended_by=table.ended_by,
        image_url=image_url,
    )
    return body


def lobby_view(lobby: Lobby, locale: object) -> ButtonsView:
    buttons = [
        (JOIN, "table.button.join", "success"),
        (LEAVE_LOBBY, "table.button.leave_lobby", "secondary"),
        (ADD_COMPUTER, "table.button.add_computer", "secondary"),
        (REMOVE_COMPUTER, "table.button.remove_computer", "secondary"),
        (START, "table.button.start", "primary"),
    ]
    rows = [[_button(f"sl:{lobby.id}:{act}", t(key, locale), style) for act, key, style in buttons]]
    rows.append([_button(f"sl:{lobby.id}:{CANCEL}", t("table.button.cancel", locale), "danger")])
    return ButtonsView(rows)


def lobby_message(lobby: Lobby, locale: object) -> skyjo_table.MessageBody:
    kind: GameKind = KINDS[lobby.kind]
    seats = [(s.name, s.user_id, s.ai_level) for s in lobby.seats]
    options = {k: v for k, v in lobby.options.items() if k != "turn_limit"}
    limit = lobby.options.get("turn_limit", DEFAULT_TURN_LIMIT)
    lines = list(kind.table.option_lines(options, locale))
    lines.append(
        t("table.options.turn_limit", locale, seconds=limit)
        if limit
        else t("table.options.no_turn_limit", locale)
    )
    return skyjo_table.lobby_body(
        host_id=lobby.host_id,
        seats=seats,
        lines=lines,
        locale=locale,
        game=kind.title,
        min_players=kind.min_players,
        max_players=kind.max_players,
    )


def embed_of(body: skyjo_table.MessageBody) -> discord.Embed:
    return discord.Embed.from_dict(body.embed or {})


# ---------------------------------------------------------------------------------- the presenter


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


def final_panel_content(table: Table, seat: int, locale: object) -> str:
    """A panel's last words: how the game ended for this seat."""
    title = t("table.panel.final_title", locale, game=table.kind.title)
    if table.ended_by is not None or table.stored.status == "cancelled":
        return f"{title}\n{t('table.panel.final_cancelled', locale)}"
    results = table.game.results()
    names = table.names()
    winners: list[int] = results.get("winners") or []
    ranks = results.get("ranks") or []
    lines = [title]
    if not winners:  # a Skip-Bo game nobody could finish (SB-STALL-1)
        lines.append(t("table.panel.final_draw", locale))
    else:
        players = ", ".join(shown_name(names[s], locale) for s in winners)
        lines.append(t("table.panel.final_winners", locale, players=players))
        if seat in winners:
            lines.append(t("table.panel.final_won", locale))
        elif seat < len(ranks):
            lines.append(t("table.panel.final_place", locale, place=ranks[seat], count=len(ranks)))
    lines.append(t("table.panel.final_see_table", locale))
    return "\n".join(lines)


@dataclass
class PanelWatch:
    """A player's open private panel: the last interaction that showed it and what it showed.

    A click's answer and the presenter's edit of the same panel must not leave an older panel on
    screen, yet a click never waits for an edit. So: no edit starts while one of the player's clicks
    is being answered (``busy``); a click that started while an edit was in flight (``clicks``
    moved) may have been overtaken by it at Discord, so the presenter then sends the panel again
    (``recheck``): what the click showed when nothing moved since, else the game as it stands."""

    # The interaction webhook of the last click (its token; the Interaction itself, with the whole
    # clicked message, would cost a few KB per open panel).
    webhook: discord.Webhook | None = None
    issued_ms: int = 0
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


class Presenter:
    """The single writer of public lobby and table messages; also posts and deletes turn mentions."""

    def __init__(
        self, bot: SkyboBot, *, interval: float = 1.0, retries: int = 3, images: bool = True
    ) -> None:
        self.bot = bot
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
    ) -> None:
        """The click is answered; ``state`` is the panel it showed as the interaction's original
        message (None: nothing to follow, e.g. a follow-up). Its token, fresh for 15 minutes, lets
        the bot edit that panel when the game moves on without a click of theirs."""
        watch.busy -= 1
        user_id = interaction.user.id
        if table is None or state is None or table.finished or self._closed:
            if table is not None and watch.webhook is None and not watch.busy:
                self._forget_panel(table.id, user_id)
            return
        watch.webhook = interaction.followup
        watch.issued_ms = self.bot.service.clock.now_ms()
        watch.locale = interaction.locale
        watch.seat = state.seat
        watch.key = panel_key(table, state.seat)
        watch.state = state
        if not watch.busy and watch.recheck:
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
        if not self.panel_fresh(table.id, user_id):
            self._forget_panel(table.id, user_id)  # the token is (nearly) dead: the turn ping says so
            return
        async with self.bot.service.lock(table.channel_id):
            key = panel_key(table, watch.seat)
            if key == watch.key and not watch.recheck:
                return
            shown = watch.state
            content: str
            view: ButtonsView | None
            if watch.recheck and key == watch.key and shown is not None and shown.version == table.version:
                # Nothing moved since the click: show again exactly what it showed (mode, notice).
                content, view = panel_content(shown, watch.locale), panel_view(shown, watch.locale)
            else:
                content, view = self._followed_panel(table, watch.seat, watch.locale)
        clicks, webhook = watch.clicks, watch.webhook
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

    def _followed_panel(self, table: Table, seat: int, locale: object) -> tuple[str, ButtonsView | None]:
        """The panel as the game stands (the channel lock is held)."""
        if table.finished:
            return final_panel_content(table, seat, locale), None
        if seat in table.idle():  # replaced for missed turns: the way back, right on the panel
            offer = t("seats.offer", locale, missed=MISSES_BEFORE_REPLACE)
            return offer, seat_back_view(table.kind.prefix, table.id, locale)
        if seat in table.replaced():
            return t("table.error.seat_replaced", locale), None
        state = self.bot.service.panel_of(table, seat)
        return panel_content(state, locale), panel_view(state, locale)

    def lobby_changed(self, lobby_id: int) -> None:
        self._schedule(("lobby", lobby_id), lambda: self._render_lobby(lobby_id))

    def table_gone(self, table: Table) -> None:
        """Its channel or server is gone: no edit of its message or of its players' panels (those live
        in the same channel) is made any more, pending or not."""
        self._stop(("game", table.id))
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
            "table.turn.reminder",
            locale,
            players=" ".join(f"<@{u}>" for u in users),
            seconds=seconds_left,
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
        locale = self._locale(stored.guild_id)
        link = message_link(stored.guild_id, stored.channel_id, stored.message_id)
        mine = "table.button.my_grid" if stored.kind == "skyjo" else "table.button.my_hand"
        text = t(
            "table.turn.replaced_dm",
            locale,
            missed=MISSES_BEFORE_REPLACE,
            button=t(mine, locale),
            take_back=t("seats.button.take_back", locale),
            link=link,
        )
        dm = await self.bot.create_dm(discord.Object(user_id))
        await dm.send(text)

    def _schedule(self, key: tuple[Any, ...], render: Callable[[], Awaitable[None]]) -> None:
        if self._closed:
            return
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = _Slot(render)
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
            wait = self.interval - (time.monotonic() - started)
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
        guild = self.bot.get_guild(guild_id) if guild_id else None
        return guild.preferred_locale if guild is not None else None

    @staticmethod
    def _add_rating_changes(table: Table, body: skyjo_table.MessageBody, locale: object) -> None:
        """At the end of a rated game, each human's rating change goes under the standings."""
        finished = table.stored.finished
        if finished is None or not finished.rating_changes or body.embed is None:
            return
        humans = [c for c in finished.rating_changes if c.player.startswith("user:")]
        names = {f"user:{s.user_id}": s.display_name for s in table.stored.seats if s.user_id is not None}
        lines = boards.rating_change_lines(humans, names, locale)
        if lines:
            fields = body.embed.setdefault("fields", [])
            if len(fields) < 25:
                fields.append({"name": t("table.rating_changes", locale), "value": "\n".join(lines)[:1024]})

    async def _picture(
        self, table: Table, image: Any, view: dict[str, Any], names: list[str], locale: object
    ) -> discord.File | None:
        """The table as a picture (drawn off the event loop), or None when it fails."""
        kind = table.stored.kind
        labels = {key: template(f"table.image.{kind}.{key}", locale) for key in image.DEFAULT_LABELS}
        try:
            png = await asyncio.to_thread(image.render_table, view, names, "dark", labels)
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
            self._add_rating_changes(table, body, locale)
            view = table_view(table, locale)
            turn = (table.turn_user(), table.turns)
        if table.gone:  # cancelled while this render waited for the lock
            return
        picture = await self._picture(table, image, spectator, names, locale) if image else None
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
        await self._mention(table, channel, locale, *turn)

    async def _mention(
        self, table: Table, channel: discord.PartialMessageable, locale: object, user: int | None, turns: int
    ) -> None:
        """Mention the human whose turn it is, once per turn, and delete the mention (and the turn's
        reminder) when the turn moves on. The last mention is kept in the game's stored meta as
        ``[user, turns, message id]``: a restart neither mentions the same turn again nor forgets the
        message to delete."""
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
        for message_id in stale:
            if isinstance(message_id, int):
                await self._delete(channel, message_id)
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
            # Not allowed to post here: try again at the next turn, not at every edit of this one.
            await self.bot.service.remember_messages(table, mention=[*key, None], reminder=None)
            raise
        await self.bot.service.remember_messages(table, mention=[*key, message.id], reminder=None)

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
                    skyjo_table.lobby_closed_body(locale, expired=expired, game=KINDS[lobby.kind].title)
                ),
                view=None,
                allowed_mentions=NO_MENTIONS,
            )
            return
        body = lobby_message(lobby, locale)
        await message.edit(embed=embed_of(body), view=lobby_view(lobby, locale), allowed_mentions=NO_MENTIONS)


# ---------------------------------------------------------------------------------- click handlers


class TableUI:
    """What each click does: ask the service, then answer (only after the service committed).

    Answer first, on time. Discord wants the first answer to a click (its callback) within 3 s of
    the click; a callback that misses it leaves the player with "This interaction failed". So a
    click that changes the game (a move on a panel, the lobby buttons, the Yes of Leave and End,
    Take my seat back, Next round, Rematch) is first acknowledged with a deferred update (type 6:
    nothing shown yet, a single request that carries no result) and only then does the service
    act; the result is shown afterwards by editing the clicked private message (the interaction's
    original response), by a private follow-up, or by the presenter for public messages; those
    webhook requests have the token's 15 minutes to land. If the acknowledgement cannot land in
    time (see :mod:`bot.ui.on_time`, which retries it while the deadline allows), the service is
    not asked: a move is never stored without an answer. The acknowledgement says nothing about the
    move, so "every action is committed before anyone is answered" still holds.

    Clicks that change nothing (open my panel, a mode, Refresh, rules, Leave's question, No) keep
    answering in one request: if that misses the deadline, nothing was stored either.
    """

    def __init__(self, bot: SkyboBot) -> None:
        self.bot = bot

    @property
    def service(self) -> Any:
        return self.bot.service

    @property
    def presenter(self) -> Presenter:
        return self.bot.presenter

    async def click(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        """A click on one of our buttons (already checked by :func:`dispatchable`)."""
        if custom_id.startswith("sl:"):
            _, lobby, act = custom_id.split(":")
            await self.guard(interaction, self.lobby_click(interaction, int(lobby), act))
        else:
            await self.guard(interaction, self.game_click(interaction, ids.decode(custom_id)))
        if self.presenter.cannot_post(interaction.channel_id):
            await self._warn_cannot_post(interaction, custom_id)

    async def _warn_cannot_post(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        """The bot may no longer post in this channel (see :meth:`Presenter.cannot_post`): every click
        on its tables' buttons, once answered, gets a private word on it (the game goes on meanwhile:
        panels are private answers, which need no permission in the channel)."""
        kind = BY_PREFIX.get(custom_id[:2])
        game = kind.name if kind is not None else "skyjo"
        if custom_id.startswith("sl:"):
            with contextlib.suppress(Exception):
                game = (await self.service.lobbies.get(int(custom_id.split(":")[1]))).kind
        locale = interaction.locale
        text = t("vanished.cannot_post", locale, game=game, end=t("cmd.end.name", locale))
        await self.tell(interaction, text)

    async def guard(self, interaction: discord.Interaction[Any], work: Awaitable[None]) -> None:
        """Run a click's work; any refusal or failure becomes a private answer to the clicker."""
        try:
            await work
        except Refused as refused:
            await self.refuse(interaction, refused)
        except discord.HTTPException as error:
            # Discord did not take our answer, even after the retries (a lost interaction, a
            # dismissed panel): nothing the bot can mend, and nothing to tell through that token.
            log.warning(
                "click not answered",
                extra={"user_id": interaction.user.id, "status": error.status, "code": error.code},
            )
        except Exception:
            data: Any = interaction.data or {}
            log.exception("click failed", extra={"custom_id": ids.loggable(data.get("custom_id"))})
            await self.tell(interaction, t("table.error.internal", interaction.locale))

    async def tell(self, interaction: discord.Interaction[Any], text: str) -> None:
        """A private message to the clicker (first answer or follow-up)."""
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException:
            log.warning("could not answer a click", extra={"user_id": interaction.user.id})

    async def refuse(self, interaction: discord.Interaction[Any], refused: Refused) -> None:
        locale = interaction.locale
        reason = t(refused.key, locale, **refused.params)
        if isinstance(refused, ChannelTaken):
            reason += "\n" + message_link(refused.guild_id, refused.channel_id, refused.message_id)
        log.info(
            "click refused",
            extra={
                "user_id": interaction.user.id,
                "reason": refused.key,
                "channel_id": interaction.channel_id,
            },
        )
        if isinstance(refused, Stale):
            state = refused.panel
            state.notice = (refused.key, {})
            await self._show_panel(interaction, state, in_place=self._on_panel(interaction))
            return
        await self.tell(interaction, reason)

    async def acknowledge(self, interaction: discord.Interaction[Any]) -> bool:
        """Acknowledge a click that will change the game, before the service acts (see the class
        docstring): a deferred update, which shows nothing. False when it could not land in time:
        the click is lost for Discord, so the service must not be asked."""
        try:
            await interaction.response.defer()
        except discord.HTTPException as error:
            log.warning(
                "click not acknowledged in time",
                extra={"user_id": interaction.user.id, "status": error.status, "code": error.code},
            )
            return False
        return True

    @staticmethod
    def _on_panel(interaction: discord.Interaction[Any]) -> bool:
        message = interaction.message
        return message is not None and message.flags.ephemeral

    async def _send_panel(self, interaction: discord.Interaction[Any], state: PanelState) -> None:
        await self._show_panel(interaction, state, in_place=False)

    async def _show_panel(
        self,
        interaction: discord.Interaction[Any],
        state: PanelState,
        *,
        in_place: bool,
        table: Table | None = None,
    ) -> None:
        """Answer with the panel (in place on a panel click, else a new private message) and let the
        presenter follow it (see :class:`PanelWatch`). A click that ended the game gets the final
        result."""
        locale = interaction.locale
        table = table or self.service.tables.get(state.game_id)
        content: str
        view: ButtonsView | None
        if table is not None and table.finished:
            content, view = final_panel_content(table, state.seat, locale), None
        else:
            content, view = panel_content(state, locale), panel_view(state, locale)
        watch = self.presenter.panel_click_started(state.game_id, interaction.user.id)
        followed: PanelState | None = None
        try:
            buttons: dict[str, Any] = {"view": view} if view is not None else {}
            deferred = interaction.response.type is discord.InteractionResponseType.deferred_message_update
            if in_place and not interaction.response.is_done():
                await interaction.response.edit_message(content=content, view=view)
                followed = state
            elif in_place and deferred:
                # Acknowledged first (a move): the clicked panel is the interaction's original message.
                await lean.edit_original(interaction.followup, content=content, view=view)
                followed = state
            elif interaction.response.is_done():
                # A follow-up is not the interaction's original message: not followed.
                await interaction.followup.send(content, ephemeral=True, **buttons)
            else:
                await interaction.response.send_message(content, ephemeral=True, **buttons)
                followed = state
        finally:
            self.presenter.panel_click_done(watch, interaction, table, followed)

    # ------------------------------------------------------------------ game buttons

    async def game_click(self, interaction: discord.Interaction[Any], bid: ids.ButtonId | None) -> None:
        kind = BY_PREFIX.get(bid.prefix) if bid is not None else None
        if bid is None or kind is None:
            raise Refused("table.error.forged")
        user = interaction.user
        changes = (
            bid.act in (RECLAIM, LEAVE_YES, END_YES, REMATCH, NEXT_ROUND) or bid.act in kind.panel.GAME_ACTS
        )
        if changes and not await self.acknowledge(interaction):
            return
        if bid.act == OPEN_PANEL:
            try:
                state = await self.service.open_panel(bid.game, user.id)
            except SeatTaken as taken:
                if not taken.idle:
                    raise
                await self._offer_seat_back(interaction, bid.prefix, bid.game)
                return
            if state.kind != kind.name:
                raise Refused("table.error.forged")
            await self._send_panel(interaction, state)
        elif bid.act == RECLAIM:
            state = await self.service.reclaim_seat(bid.game, user.id)
            if state.kind != kind.name:
                raise Refused("table.error.forged")
            state.notice = ("seats.back", {})
            # The offer becomes the panel (it is the clicked private message).
            await self._show_panel(interaction, state, in_place=self._on_panel(interaction))
        elif bid.act == RULES:
            options = await self.service.options_for(bid.game)
            if not isinstance(options, kind.engine.Options):
                raise Refused("table.error.forged")
            await self.tell(interaction, kind.rules.rules_text(options, interaction.locale))
        elif bid.act == LEAVE:
            # Leaving forfeits: refuse now what Yes would refuse, else ask the clicker first.
            await self.service.check_leave(bid.game, user.id)
            await self.confirm(interaction, bid.prefix, bid.game, LEAVE_YES)
        elif bid.act == LEAVE_YES:
            await self.service.leave(bid.game, user.id)
            await self._settle(interaction, t("table.left", interaction.locale))
        elif bid.act == END_YES:
            # The same check as /<game> end, made again now: the clicker may have lost the right.
            ended = await self.service.end(
                interaction.channel_id or 0,
                user.id,
                can_manage=interaction.permissions.manage_channels,
                game_id=bid.game,
            )
            if isinstance(ended, Table):
                self.presenter.table_changed(ended)
            await self._settle(interaction, t("table.confirm.ended", interaction.locale))
            await interaction.followup.send(
                t("table.ended", interaction.guild_locale, user=user.mention),
                allowed_mentions=discord.AllowedMentions.none(),
            )
        elif bid.act == CONFIRM_NO:
            await self._settle(interaction, t("table.confirm.nothing_changed", interaction.locale))
        elif bid.act == REMATCH:
            await self._rematch(interaction, bid.game)
        elif bid.act == NEXT_ROUND and not self._on_panel(interaction):  # the table's Next round
            state = await self.service.vote_next_round(bid.game, user.id, bid.arg)
            if state.notice is not None:
                key, params = state.notice
                await self.tell(interaction, t(key, interaction.locale, **params))
        elif bid.act in kind.panel.GAME_ACTS or bid.act in (MODE_ACT, REFRESH_ACT):
            table = self.service.tables.get(bid.game)  # kept: a click that ends the game un-caches it
            state = await self.service.click(bid.game, bid.version, user.id, bid.act, bid.arg)
            if self._on_panel(interaction):
                await self._show_panel(interaction, state, in_place=True, table=table)
            elif state.notice is not None:  # Next round on the table message
                key, params = state.notice
                await self.tell(interaction, t(key, interaction.locale, **params))
            elif not interaction.response.is_done():
                await interaction.response.defer()
        else:
            raise Refused("table.error.forged")

    async def confirm(
        self, interaction: discord.Interaction[Any], prefix: str, game_id: int, yes: str
    ) -> None:
        """Ask the clicker, privately, before something that cannot be undone (``yes``: LEAVE_YES or
        END_YES). The buttons carry all their click needs, nothing is kept in memory."""
        locale = interaction.locale
        question, label = CONFIRMATIONS[yes]
        buttons = [
            _button(ids.encode(prefix, game_id, 0, yes, 0), t(label, locale), "danger"),
            _button(ids.encode(prefix, game_id, 0, CONFIRM_NO, 0), t("table.confirm.no", locale)),
        ]
        await interaction.response.send_message(
            t(question, locale), view=ButtonsView([buttons]), ephemeral=True
        )

    async def _offer_seat_back(
        self, interaction: discord.Interaction[Any], prefix: str, game_id: int
    ) -> None:
        """A player a computer replaced for missed turns opened their panel: privately, a way back."""
        locale = interaction.locale
        await interaction.response.send_message(
            t("seats.offer", locale, missed=MISSES_BEFORE_REPLACE),
            view=seat_back_view(prefix, game_id, locale),
            ephemeral=True,
        )

    async def _settle(self, interaction: discord.Interaction[Any], text: str) -> None:
        """Answer a confirmation: its private message says what happened and loses its buttons."""
        if self._on_panel(interaction) and interaction.response.is_done():  # acknowledged first
            await lean.edit_original(interaction.followup, content=text, view=None)
        elif self._on_panel(interaction):
            await interaction.response.edit_message(content=text, view=None)
        else:
            await self.tell(interaction, text)

    async def _rematch(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """The new lobby is a public follow-up of the (acknowledged) click on the table message."""
        lobby = await self.service.rematch(game_id, interaction.user.id)
        locale = interaction.guild_locale
        body = lobby_message(lobby, locale)
        try:
            message = await interaction.followup.send(
                embed=embed_of(body), view=lobby_view(lobby, locale), wait=True
            )
        except discord.HTTPException:
            with contextlib.suppress(Refused):
                await self.service.lobby_cancel(lobby.id, lobby.channel_id, lobby.host_id)
            raise
        await self.service.set_lobby_message(lobby, message.id)

    async def post_lobby(self, interaction: discord.Interaction[Any], lobby: Lobby) -> None:
        """Answer with the public lobby message (the lobby is committed already)."""
        locale = interaction.guild_locale
        body = lobby_message(lobby, locale)
        try:
            callback = await interaction.response.send_message(
                embed=embed_of(body), view=lobby_view(lobby, locale)
            )
        except discord.HTTPException:
            with contextlib.suppress(Refused):
                await self.service.lobby_cancel(lobby.id, lobby.channel_id, lobby.host_id)
            raise
        message_id = callback.message_id
        if message_id is None:
            message_id = (await interaction.original_response()).id
        await self.service.set_lobby_message(lobby, message_id)

    # ------------------------------------------------------------------ lobby buttons

    async def lobby_click(self, interaction: discord.Interaction[Any], lobby_id: int, act: str) -> None:
        if act not in LOBBY_ACTS:
            raise Refused("table.error.forged")
        user = interaction.user
        channel_id = interaction.channel_id or 0
        name = getattr(user, "display_name", None) or user.name
        if not await self.acknowledge(interaction):  # every lobby button changes the lobby
            return
        if act == JOIN:
            await self.service.lobby_join(lobby_id, channel_id, user.id, name)
        elif act == LEAVE_LOBBY:
            await self.service.lobby_leave(lobby_id, channel_id, user.id)
        elif act == ADD_COMPUTER:
            await self.service.lobby_add_computer(lobby_id, channel_id, user.id, interaction.guild_locale)
        elif act == REMOVE_COMPUTER:
            await self.service.lobby_remove_computer(lobby_id, channel_id, user.id)
        elif act == CANCEL:
            perms = interaction.permissions
            await self.service.lobby_cancel(lobby_id, channel_id, user.id, can_manage=perms.manage_channels)
        elif act == START:
            message_id = interaction.message.id if interaction.message else None
            table = await self.service.lobby_start(lobby_id, channel_id, user.id, message_id)
            self.presenter.table_changed(table)
            return
        self.presenter.lobby_changed(lobby_id)
