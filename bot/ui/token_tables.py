"""Tables where the bot is not a member: the lobby and the table live in an interaction's own message.

Where a user installed Skybo (a group DM, a DM between users, a server where only the user installed
it: :mod:`bot.ui.venue`), the bot cannot post or edit channel messages (403 / 50001): it can only answer
interactions. Such a lobby and its game are stored ``off_server`` and shown by this listener of the
table service's bus, never by the channel's presenter (:mod:`bot.ui.presenter` skips them; no channel
route is used for them: no post, no edit, no thread, no mention, no pin):

- **the message**: ``/<game> new`` answers with the lobby as its own public response; Start turns that
  message into the table, as in a channel. Every click on it is acknowledged with a deferred update (6),
  so the click's ``@original`` *is* that message (Discord's rule for a component's deferred update), and
  its token can edit it; the clicker's private panel, a rule text or a question come as ephemeral
  follow-ups of that click (one, two at most, never Discord's 5 of a user install: 40094);
- **the freshest token** (:meth:`TokenTables.opened`, :meth:`TokenTables.clicked`): per table message,
  the token of the last interaction whose ``@original`` is that message, and when it was born; every
  change the service publishes (a move, a computer's move, a timer's, a vote, the end) edits the
  message through it (``PATCH /webhooks/{app}/{token}/messages/@original``), coalesced in slots as the
  channel's table is (:mod:`bot.ui.slots`), drawn by the channel's own composer (Components V2, the
  picture as an attachment): the same table body;
- **the panels**: the players' private panels are followed as in a channel (:mod:`bot.ui.followed_panels`,
  through their own clicks' tokens; the one opened from the table, a follow-up, by its message id);
- **sleep and wake**: a token lives 15 minutes. :data:`SLEEP_AFTER_MS` after the freshest token was born
  (no click since), this surface asks the service to put the table to sleep
  (:meth:`TableService.sleep_table <bot.service.timers.TimerPart.sleep_table>`, an input like a click:
  the service stores it, pauses the turn timer and the computers, and publishes ``TableChanged(sleep)``),
  and the table's last edit, through the dying token, says "this table sleeps: any player's click wakes
  it". A click on the table message brings a new token and wakes it
  (:meth:`~bot.service.timers.TimerPart.wake_table`: the timers run again with the time they had left;
  ``TableChanged(wake)`` draws it). After a restart every such table is asleep (no token survives a
  process: :mod:`bot.service.resume`), and the next click resumes it. A move clicked on a private panel
  of a sleeping table is refused with a word: a panel's token cannot edit the table, so only a click on
  the table can show it awake.

The service never calls this module (tests/unit/test_one_way.py): it hears events, and the ui's click
handlers (:mod:`bot.ui.clicks`, :mod:`bot.ui.answers`) hand it each token as they answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import discord

from bot import discord_patches
from bot.games.registry import BY_KIND
from bot.i18n import translate as t
from bot.service import Table
from bot.service.bus import EventBus
from bot.service.events import Event, LobbyClosed, LobbyEvent, TableEnded, TableEvent
from bot.storage.lobbies import LANGUAGE, Lobby
from bot.ui.followed_panels import FollowedPanels
from bot.ui.host import Host
from bot.ui.slots import Slots
from bot.ui.table_messages import TableMessages
from bot.ui.venue import SERVER_WITHOUT_BOT, Venue
from bot.ui.views import LayoutPayload, closed_lobby_layout, lobby_layout

log = logging.getLogger(__name__)

TOKEN_LIFE_MS = 15 * 60 * 1000  # Discord's: an interaction's token works this long
# The table's last edit goes out this long after its freshest token was born, leaving that token a
# minute for the edit that says the table sleeps.
SLEEP_AFTER_MS = 14 * 60 * 1000
PRUNE_FROM = 256  # the tokens kept before the dead ones are first let go
ASLEEP = "tokens.asleep"  # the line of a sleeping table
PRIVATE_ONLY = "tokens.private_only"  # /<game> new where Discord would show the lobby to its host alone

Compose = Callable[..., Awaitable[tuple[LayoutPayload, list[discord.File]] | None]]


def off_server(interaction: discord.Interaction[Any]) -> bool:
    """The interaction comes from a place the bot is not a member of (no channel route there)."""
    return not Venue.of(interaction).bot_can_post


def forced_private(interaction: discord.Interaction[Any]) -> bool:
    """Discord would show every answer to this user alone: in a server without the bot, when they may
    not use external apps there, or not send messages in the channel (Discord's documented rule)."""
    if Venue.of(interaction).kind != SERVER_WITHOUT_BOT:
        return False
    permissions = interaction.permissions
    return not (permissions.use_external_apps and permissions.send_messages)


def language_of(stored: Any) -> object:
    """The language of a table or lobby where the bot is not a member: its host's (stored with it)."""
    return stored.get(LANGUAGE) if hasattr(stored, "get") else None


@dataclass
class Token:
    """An interaction's token that can edit a table's message: the interaction's ``webhook`` (its
    ``followup``), when it was born (ms, the service's clock) and the message (None: its ``@original``;
    else one of its follow-ups, as a Rematch's lobby)."""

    webhook: discord.Webhook
    born_ms: int
    message_id: int | None = None


class TokenTables:
    """The surface of the tables and lobbies where the bot is not a member (see the module doc)."""

    def __init__(
        self,
        bot: Host,
        compose: Compose,
        followed: FollowedPanels,
        *,
        interval: float = 1.0,
        retries: int = 3,
    ) -> None:
        self.bot = bot
        self.compose = compose  # the table message as it stands (TableMessages.compose)
        self.followed = followed  # the players' private panels: followed here as in a channel
        self.slots = Slots(interval=interval, retries=retries)
        self._table_of: Callable[[TableEvent], Table | None] = lambda event: None
        self._tokens: dict[int, Token] = {}  # a table's (or lobby's) message id -> its freshest token
        self._games: dict[int, int] = {}  # a table's message id -> its game id
        self._sleepers: dict[int, asyncio.Task[None]] = {}  # message id -> the wait before its sleep
        self._prune_at = PRUNE_FROM  # the size of the tokens' map at which dead ones are let go

    # ------------------------------------------------------------------ told by the ui

    def opened(self, interaction: discord.Interaction[Any], message_id: int) -> None:
        """``/<game> new`` answered with the lobby: its own message, shown through its token."""
        self._keep(message_id, Token(interaction.followup, self._now()))

    def clicked(self, interaction: discord.Interaction[Any]) -> None:
        """A click on a table's or a lobby's message, acknowledged by a deferred update (or updating
        it): its token is that message's freshest. Its table's sleep is put off."""
        message = interaction.message
        if message is not None and not message.flags.ephemeral:
            self._keep(message.id, Token(interaction.followup, self._now()))

    def followed_up(self, interaction: discord.Interaction[Any], message_id: int) -> None:
        """A public follow-up of this click is a new lobby (a Rematch): shown through this token."""
        self._keep(message_id, Token(interaction.followup, self._now(), message_id))

    def _keep(self, message_id: int, token: Token) -> None:
        self._tokens[message_id] = token
        if len(self._tokens) >= self._prune_at:
            self._prune()
        game_id = self._games.get(message_id)
        if game_id is not None:
            self._arm_sleep(message_id, game_id)

    def _prune(self) -> None:
        """Let go of the dead tokens, and of the finished games' message ids (amortized: when the map
        has doubled since the last time)."""
        now = self._now()
        for message_id, token in list(self._tokens.items()):
            if now - token.born_ms >= TOKEN_LIFE_MS:
                del self._tokens[message_id]
        running = self.bot.service.tables
        for message_id, game_id in list(self._games.items()):
            if game_id not in running and message_id not in self._tokens:
                del self._games[message_id]
        self._prune_at = max(PRUNE_FROM, 2 * len(self._tokens))

    def _now(self) -> int:
        return self.bot.service.clock.now_ms()

    def live(self, message_id: int) -> Token | None:
        """The message's freshest token while it still works."""
        token = self._tokens.get(message_id)
        if token is None or self._now() - token.born_ms >= TOKEN_LIFE_MS:
            return None
        return token

    # ------------------------------------------------------------------ the service's events

    def attach(self, bus: EventBus, table_of: Callable[[TableEvent], Table | None]) -> None:
        """Hear every event of a service's bus, inline (each handler only schedules). Called once per
        service the bot builds, where the presenter is attached."""
        self._table_of = table_of
        bus.subscribe(Event, self._hear, name="token tables")

    def _hear(self, event: Event) -> None:
        if isinstance(event, TableEvent):
            table = self._table_of(event)
            if table is None or not table.stored.off_server or table.stored.message_id is None:
                return
            message_id = table.stored.message_id
            if isinstance(event, TableEnded) and event.how == "gone":
                self._forget(message_id)
                self.followed.table_gone(table)
                return
            self.followed.table_changed(table)  # the open panels whose text no longer holds
            self._games[message_id] = table.id
            # A run of moves (a computer answering a human's move) is one edit, as in a channel.
            self.slots.schedule(
                ("token", message_id),
                functools.partial(self._render_table, table),
                hold=TableMessages.run_goes_on(table),
            )
            if table.finished:
                self._stop_sleep(message_id)
            else:
                self._arm_sleep(message_id, table.id)
        elif isinstance(event, LobbyEvent) and event.lobby.off_server:
            lobby = event.lobby
            if lobby.message_id is None:
                return
            if isinstance(event, LobbyClosed) and event.how == "gone":
                self._forget(lobby.message_id)
                return
            self.slots.schedule(("token", lobby.message_id), functools.partial(self._render_lobby, lobby.id))

    def _forget(self, message_id: int) -> None:
        self.slots.stop(("token", message_id))
        self._stop_sleep(message_id)
        self._tokens.pop(message_id, None)
        self._games.pop(message_id, None)

    # ------------------------------------------------------------------ the edits

    async def _edit(self, token: Token, view: LayoutPayload, files: list[discord.File]) -> None:
        if token.message_id is None:
            await discord_patches.edit_original(token.webhook, content=None, view=view, attachments=files)
        else:
            await token.webhook.edit_message(token.message_id, view=view, attachments=files)

    async def _render_table(self, table: Table) -> None:
        """The table through its freshest token; none alive: nothing (it sleeps, a click wakes it)."""
        message_id = table.stored.message_id
        token = self.live(message_id) if message_id is not None else None
        if token is None:
            return
        locale = language_of(table.stored.meta)
        notice = t(ASLEEP, locale) if table.asleep and not table.finished else None
        composed = await self.compose(table, locale, notice=notice)
        if composed is not None:
            await self._edit(token, *composed)

    async def _render_lobby(self, lobby_id: int) -> None:
        lobby: Lobby = await self.bot.service.lobbies.get(lobby_id)
        if lobby.message_id is None or lobby.status == "started":
            return
        token = self.live(lobby.message_id)
        if token is None:
            return
        locale = language_of(lobby.options)
        if lobby.status == "cancelled":
            expired = lobby.id in self.bot.service.expired_lobbies
            view = closed_lobby_layout(locale, expired=expired, game=BY_KIND[lobby.kind].title)
        else:
            view = lobby_layout(lobby, locale, self.bot.service.settings_of(lobby.guild_id))
        await self._edit(token, view, [])

    # ------------------------------------------------------------------ sleep

    def _arm_sleep(self, message_id: int, game_id: int) -> None:
        """The table goes to sleep :data:`SLEEP_AFTER_MS` after its freshest token was born, unless a
        fresher one comes meanwhile (which arms this again)."""
        token = self._tokens.get(message_id)
        if token is None or self.slots.stopping:
            return
        old = self._sleepers.get(message_id)
        if old is not None and not old.done():
            old.cancel()
        self._sleepers[message_id] = asyncio.create_task(
            self._sleep_when_due(message_id, game_id, token), name=f"token-sleep-{game_id}"
        )

    def _stop_sleep(self, message_id: int) -> None:
        task = self._sleepers.pop(message_id, None)
        if task is not None and not task.done():
            task.cancel()

    async def _sleep_when_due(self, message_id: int, game_id: int, token: Token) -> None:
        due = token.born_ms + SLEEP_AFTER_MS
        await self.bot.service.clock.sleep_until(due, asyncio.Event())
        while self._now() < due:  # a clock's sleep may end early (a manual clock moved a little)
            await self.bot.service.clock.sleep_until(due, asyncio.Event())
        if self._tokens.get(message_id) is not token:
            return  # a fresher token came (its own wait runs)
        try:
            await self.bot.service.sleep_table(game_id)  # TableChanged(sleep): its last edit says so
        except Exception:
            log.warning("table not put to sleep", extra={"game_id": game_id}, exc_info=True)

    # ------------------------------------------------------------------ tests and the stop

    async def flush(self) -> None:
        """Wait until every pending edit is done (tests)."""
        await self.slots.flush()

    async def close(self) -> None:
        """Stop: the waits before a sleep cancelled, the edits under way given their grace."""
        for task in self._sleepers.values():
            task.cancel()
        for task in list(self._sleepers.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._sleepers.clear()
        await self.slots.close()
