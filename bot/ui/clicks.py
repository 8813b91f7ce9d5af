"""What each click on a table's or a lobby's button asks of the service (:class:`TableUI`).

Every in-game button's custom_id is ``<game prefix>:<game>:<version>:<act>:<arg>`` and every lobby button's
``sl:<lobby>:<act>``: the id carries everything a click needs, so nothing is kept per message and
buttons on messages posted before a restart keep working. :meth:`TableUI.routes` registers those
prefixes with the one router (:mod:`bot.ui.router`), which checks each click (the one forgery check)
and funnels whatever a handler raises (:mod:`bot.ui.errors`). An in-game click then goes by its act:
:attr:`TableUI.ACTS` maps the acts every game shares to their handler; any other act must be one of the
clicked game's own moves (its panel's ``GAME_ACTS``, or a panel's mode, Refresh or hint), else it is
refused as forged.

How each click is answered (the 2-second race of a move, the panels, the acknowledgements first) is
:mod:`bot.ui.answers`'s alone. A click on a public lobby or table message is acknowledged without an
edit (or answered privately): the table messages (:mod:`bot.ui.table_messages`) edit the message with
the latest state.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

import discord

from bot.games.registry import BY_KIND, BY_PREFIX
from bot.i18n import translate as t
from bot.service import (
    HINT_ACT,
    MODE_ACT,
    REFRESH_ACT,
    Refused,
    SeatsHeld,
    SeatTaken,
    Stale,
    TableService,
)
from bot.ui import ids, setup_form, threads, token_tables
from bot.ui.answers import Answers, on_panel
from bot.ui.host import Host
from bot.ui.presenter import Presenter
from bot.ui.router import Route
from bot.ui.token_tables import TokenTables
from bot.ui.views import (
    ADD_COMPUTER,
    CANCEL,
    CONFIRM_NO,
    END_YES,
    FORM_PAGES,
    JOIN,
    LEAVE,
    LEAVE_LOBBY,
    LEAVE_YES,
    LOBBY_ACTS,
    NEXT_ROUND,
    OPEN_ACTIVITY,
    OPEN_PANEL,
    RECLAIM,
    REMATCH,
    REMOVE_COMPUTER,
    RULES,
    START,
    START_NO,
    START_YES,
)

log = logging.getLogger(__name__)

# The part of an id after its prefix (the prefix is the route's: bot.ui.router).
GAME_TEMPLATE = r":(?P<game>\d{1,18}):(?P<version>\d{1,9}):(?P<act>[a-z]{2}):(?P<arg>-?\d{1,4})"
LOBBY_PREFIX = "sl:"
LOBBY_PATTERN = re.compile(r"sl:(?P<lobby>\d{1,18}):(?P<act>[a-z]{2})")

Interaction = discord.Interaction[Any]
# An in-game act's handler: (the UI, the click, its decoded id, the clicked game).
# The shared acts that change the game: acknowledged before the service acts (see TableUI).
CHANGING_ACTS = frozenset({RECLAIM, LEAVE_YES, END_YES, REMATCH, NEXT_ROUND})
PANEL_ACTS = frozenset({MODE_ACT, REFRESH_ACT, HINT_ACT})  # a panel's own, changing no game
ActHandler = Callable[["TableUI", Interaction, ids.ButtonId, Any], Awaitable[None]]


def game_pattern(prefix: str) -> re.Pattern[str]:
    """The whole custom_id of an in-game button of the game whose prefix is ``prefix`` (``"sk"``)."""
    return re.compile(re.escape(prefix) + GAME_TEMPLATE)


class TableUI:
    """What each click asks of the service, by its act; its answer is :class:`Answers`'s (the 2-second
    race, the panels, the acknowledgements: see :mod:`bot.ui.answers`)."""

    def __init__(
        self, bot: Host, presenter: Presenter, answers: Answers, tokens: TokenTables | None = None
    ) -> None:
        self.bot = bot
        self.presenter = presenter
        self.answers = answers
        self.tokens = tokens

    @property
    def service(self) -> TableService:
        return self.bot.service

    def routes(self) -> list[Route]:
        """The router's routes of the tables: one per registered game's prefix, and the lobbies'."""
        game_routes = [
            Route(f"{prefix}:", game_pattern(prefix), self.game_button, after=self._warn_cannot_post)
            for prefix in BY_PREFIX
        ]
        return [
            *game_routes,
            Route(LOBBY_PREFIX, LOBBY_PATTERN, self.lobby_button, after=self._warn_cannot_post),
            # The set-up form's submit: a modal's id is on no message; only a submit may carry it.
            Route(
                setup_form.FORM_PREFIX,
                setup_form.FORM_PATTERN,
                self.form_submit,
                on_message=False,
                accepts=lambda interaction, _: interaction.type is discord.InteractionType.modal_submit,
            ),
        ]

    async def game_button(self, interaction: Interaction, custom_id: str) -> None:
        """An in-game button (checked by the router); a stale panel is shown again, as it is now."""
        try:
            bid = ids.decode(custom_id)
            if not await self._on_token_table(interaction, bid.game_id if bid is not None else None):
                return
            await self.game_click(interaction, bid)
        except Stale as stale:
            await self.answers.show_stale(interaction, stale)

    async def lobby_button(self, interaction: Interaction, custom_id: str) -> None:
        """A lobby button (checked by the router)."""
        _, lobby, act = custom_id.split(":")
        # The set-up form's buttons answer with the modal itself (never deferred first).
        if act not in FORM_PAGES and not await self._on_token_table(interaction, None):
            return
        await self.lobby_click(interaction, int(lobby), act)

    async def _on_token_table(self, interaction: Interaction, game_id: int | None) -> bool:
        """A click on the message of a table or lobby where the bot is not a member
        (:mod:`bot.ui.token_tables`): acknowledged at once by a deferred update, so that its token
        edits that message (its ``@original``), which becomes the message's freshest token; a
        sleeping table is woken (drawn again through it). Every answer of the click then comes as a
        follow-up. False: the acknowledgement could not land in time (nothing is asked)."""
        if on_panel(interaction) or self.tokens is None or not token_tables.off_server(interaction):
            return True
        if not await self.answers.acknowledge(interaction):
            return False
        self.tokens.clicked(interaction)
        if game_id is not None:
            await self.service.wake_table(game_id)
        return True

    async def form_submit(self, interaction: Interaction, custom_id: str) -> None:
        """The host submitted the lobby's set-up form (checked by the router): acknowledged first, as
        every lobby change; the service checks the values as ``/<game> new``'s and publishes the
        change, which the lobby's message shows. A refusal is the funnel's, privately."""
        _, lobby_id, page = custom_id.split(":")
        if not await self.answers.acknowledge(interaction):
            return
        user = interaction.user
        lobby, _ = await self.service.lobby_setup(int(lobby_id), user.id)
        given = setup_form.given(BY_KIND[lobby.kind], int(page), interaction.data or {})
        locale = self.service.public_locale(interaction.guild_id, interaction.guild_locale)
        await self.service.lobby_set_options(lobby.id, lobby.channel_id, user.id, given, locale)

    async def _warn_cannot_post(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        """The bot may no longer post in this channel (see :meth:`Presenter.cannot_post`): every click
        on its tables' buttons, once answered, gets a private word on it (the game goes on meanwhile:
        panels are private answers, which need no permission in the channel)."""
        if not self.presenter.cannot_post(interaction.channel_id):
            return
        game = BY_PREFIX.get(custom_id[:2])
        kind = game.name if game is not None else None
        if custom_id.startswith(LOBBY_PREFIX):
            with contextlib.suppress(Exception):
                kind = (await self.service.lobbies.get(int(custom_id.split(":")[1]))).kind
        if kind is None:  # a lobby gone meanwhile: no game to name the command of (no shared default)
            return
        locale = interaction.locale
        text = t("vanished.cannot_post", locale, game=kind, end=t("cmd.end.name", locale))
        await self.answers.tell(interaction, text)

    # ------------------------------------------------------------------ game buttons

    async def game_click(self, interaction: Interaction, bid: ids.ButtonId | None) -> None:
        """An in-game click, by its act (:attr:`ACTS`, else the game's own moves: :meth:`_move`)."""
        game = BY_PREFIX.get(bid.prefix) if bid is not None else None
        if bid is None or game is None:
            raise Refused("table.error.forged")
        changes = bid.act in CHANGING_ACTS or bid.act in game.panel.GAME_ACTS
        # A move on a private panel is answered by the panel itself when it is committed in time
        # (Answers.race); every other change is acknowledged first.
        racing = bid.act in game.panel.GAME_ACTS and on_panel(interaction)
        if changes and not racing and not await self.answers.acknowledge(interaction):
            return
        handler = self.ACTS.get(bid.act, TableUI._move)
        await handler(self, interaction, bid, game)

    async def _open_panel(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        try:
            state = await self.service.open_panel(bid.game_id, interaction.user.id)
        except SeatTaken as taken:
            if not taken.idle:
                raise
            await self.answers.offer_seat_back(interaction, bid.prefix, bid.game_id)
            return
        if state.kind != game.name:
            raise Refused("table.error.forged")
        await self.answers.show_panel(interaction, state, in_place=False)

    async def _open_activity(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        """The Activity launched in this channel for the clicker ("Open the table")."""
        await self.answers.launch_activity(interaction)

    async def _reclaim(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        state = await self.service.reclaim_seat(bid.game_id, interaction.user.id)
        if state.kind != game.name:
            raise Refused("table.error.forged")
        state.notice = ("seats.back", {})
        # The offer becomes the panel (it is the clicked private message).
        await self.answers.show_panel(interaction, state, in_place=on_panel(interaction))

    async def _rules(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        options = await self.service.options_for(bid.game_id)
        if not isinstance(options, game.engine.Options):
            raise Refused("table.error.forged")
        await self.answers.tell(interaction, game.rules.rules_text(options, interaction.locale))

    async def _leave(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        # Leaving forfeits: refuse now what Yes would refuse, else ask the clicker first.
        await self.service.check_leave(bid.game_id, interaction.user.id)
        await self.answers.confirm(interaction, bid.prefix, bid.game_id, LEAVE_YES)

    async def _leave_yes(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        await self.service.leave(bid.game_id, interaction.user.id)
        await self.answers.settle(interaction, t("table.left", interaction.locale))

    async def _end_yes(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        user = interaction.user
        # The same check as /<game> end, made again now: the clicker may have lost the right.
        await self.service.end(
            interaction.channel_id or 0,
            user.id,
            can_manage=interaction.permissions.manage_channels,
            game_id=bid.game_id,
        )
        await self.answers.settle(interaction, t("table.confirm.ended", interaction.locale))
        await self.answers.announce_end(interaction)

    async def _confirm_no(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        await self.answers.settle(interaction, t("table.confirm.nothing_changed", interaction.locale))

    async def _rematch_click(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        await self.answers.post_rematch(interaction, bid.game_id)

    async def _next_round(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        if on_panel(interaction):  # a panel's Next round is one of its game's moves
            await self._move(interaction, bid, game)
            return
        # The table message's Next round: a vote.
        state = await self.service.vote_next_round(
            bid.game_id, interaction.user.id, bid.arg, key=interaction.id
        )
        if state.notice is not None:
            key, params = state.notice
            await self.answers.tell(interaction, t(key, interaction.locale, **params))

    async def _move(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        """One of the game's own acts (its panel's ``GAME_ACTS``), or a panel's mode, Refresh or hint;
        any other act is forged."""
        if bid.act not in game.panel.GAME_ACTS and bid.act not in PANEL_ACTS:
            raise Refused("table.error.forged")
        table = self.service.tables.get(bid.game_id)  # kept: a click that ends the game un-caches it
        # The click's interaction id is its action's idempotency key: a commit retried after its
        # connection dropped is recognised and never applied twice (bot/storage/games.py).
        commit = self.service.click(
            bid.game_id, bid.version, interaction.user.id, bid.act, bid.arg, key=interaction.id
        )
        if on_panel(interaction) and not interaction.response.is_done():
            answered = await self.answers.race(interaction, commit, bid.game_id, table)
            if answered is None:
                return
            state = answered
        else:
            state = await commit
        if on_panel(interaction):
            await self.answers.show_panel(interaction, state, in_place=True, table=table)
        elif state.notice is not None:  # Next round on the table message
            key, params = state.notice
            await self.answers.tell(interaction, t(key, interaction.locale, **params))
        else:
            await self.answers.leave_to_the_table(interaction)

    # The acts every game shares, each to its handler (any other act: _move).
    ACTS: ClassVar[dict[str, ActHandler]] = {
        OPEN_PANEL: _open_panel,
        OPEN_ACTIVITY: _open_activity,
        RECLAIM: _reclaim,
        RULES: _rules,
        LEAVE: _leave,
        LEAVE_YES: _leave_yes,
        END_YES: _end_yes,
        CONFIRM_NO: _confirm_no,
        REMATCH: _rematch_click,
        NEXT_ROUND: _next_round,
    }

    # ------------------------------------------------------------------ lobby buttons

    async def lobby_click(self, interaction: discord.Interaction[Any], lobby_id: int, act: str) -> None:
        if act not in LOBBY_ACTS:
            raise Refused("table.error.forged")
        user = interaction.user
        channel_id = interaction.channel_id or 0
        name = getattr(user, "display_name", None) or user.name
        if act in FORM_PAGES:  # the host's set-up form: the modal is the click's first answer
            await self.answers.open_form(interaction, lobby_id, FORM_PAGES[act])
            return
        if act == START_NO:  # the host's No to "start without them?": nothing changes
            await self.answers.settle(interaction, t("table.confirm.lobby_waits", interaction.locale))
            return
        if not await self.answers.acknowledge(interaction):  # every other lobby button changes the lobby
            return
        if act in (START, START_YES):
            await self._lobby_start(interaction, lobby_id, channel_id, confirmed=act == START_YES)
            return
        if act == JOIN:
            await self.service.lobby_join(lobby_id, channel_id, user.id, name)
        elif act == LEAVE_LOBBY:
            await self.service.lobby_leave(lobby_id, channel_id, user.id)
        elif act == ADD_COMPUTER:
            locale = self.service.public_locale(interaction.guild_id, interaction.guild_locale)
            if token_tables.off_server(interaction):  # the lobby's language: its host's
                locale = token_tables.language_of((await self.service.lobbies.get(lobby_id)).options)
            await self.service.lobby_add_computer(lobby_id, channel_id, user.id, locale)
        elif act == REMOVE_COMPUTER:
            await self.service.lobby_remove_computer(lobby_id, channel_id, user.id)
        elif act == CANCEL:
            perms = interaction.permissions
            await self.service.lobby_cancel(lobby_id, channel_id, user.id, can_manage=perms.manage_channels)

    async def _lobby_start(
        self, interaction: discord.Interaction[Any], lobby_id: int, channel_id: int, *, confirmed: bool
    ) -> None:
        """Start (acknowledged): the lobby's message becomes the table's. While a rematch holds seats
        for players not seated yet, the host is asked privately first (:class:`SeatsHeld`, naming
        them); their Yes (``confirmed``, clicked on that question) deals without them."""
        if confirmed:  # clicked on the private question: the lobby's own message becomes the table
            message_id = (await self.service.lobbies.get(lobby_id)).message_id
        else:
            message_id = interaction.message.id if interaction.message else None
        room = threads.room_for(self.bot, interaction)
        try:
            await self.service.lobby_start(
                lobby_id, channel_id, interaction.user.id, message_id, room=room, confirmed=confirmed
            )
        except SeatsHeld as held:
            await self.answers.ask_start(interaction, lobby_id, held)
            return
        # The service's TableDealt has the presenter draw the table (and say where a thread took it).
        if confirmed:
            await self.answers.settle(interaction, t("table.confirm.started", interaction.locale))
