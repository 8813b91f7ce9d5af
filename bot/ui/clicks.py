"""What each click on a table's or a lobby's button does (:class:`TableUI`).

Every in-game button's custom_id is ``<game prefix>:<game>:<version>:<act>:<arg>`` and every lobby button's
``sl:<lobby>:<act>``: the id carries everything a click needs, so nothing is kept per message and
buttons on messages posted before a restart keep working. :meth:`TableUI.routes` registers those
prefixes with the one router (:mod:`bot.ui.router`), which checks each click (the one forgery check)
and funnels whatever a handler raises (:mod:`bot.ui.errors`). An in-game click then goes by its act:
:attr:`TableUI.ACTS` maps the acts every game shares to their handler; any other act must be one of the
clicked game's own moves (its panel's ``GAME_ACTS``, or a panel's mode, Refresh or hint), else it is
refused as forged.

A click on a public lobby or table message is acknowledged without an edit (or answered privately):
the presenter (:mod:`bot.ui.presenter`) edits the message with the latest state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

import discord

from bot import discord_patches
from bot.games.registry import BY_PREFIX
from bot.i18n import translate as t
from bot.render.names import escape_name
from bot.service import (
    HINT_ACT,
    MISSES_BEFORE_REPLACE,
    MODE_ACT,
    REFRESH_ACT,
    PanelState,
    Refused,
    SeatsHeld,
    SeatTaken,
    Stale,
    Table,
    TableService,
)
from bot.storage.lobbies import Lobby
from bot.ui import display, errors, ids, on_time, threads
from bot.ui.host import Host
from bot.ui.presenter import Presenter
from bot.ui.router import Route
from bot.ui.views import (
    ADD_COMPUTER,
    CANCEL,
    CONFIRM_NO,
    CONFIRMATIONS,
    END_YES,
    JOIN,
    LEAVE,
    LEAVE_LOBBY,
    LEAVE_YES,
    LOBBY_ACTS,
    NEXT_ROUND,
    OPEN_PANEL,
    RECLAIM,
    REMATCH,
    REMOVE_COMPUTER,
    RULES,
    START,
    START_NO,
    START_YES,
    ButtonsView,
    button,
    final_panel_content,
    lobby_layout,
    panel_content,
    panel_view,
    seat_back_view,
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
    """What each click does: ask the service, then answer (only after the service committed).

    Answered on time. Discord wants the first answer to a click (its callback) within 3 s of the
    click; a callback that misses it leaves the player with "This interaction failed".

    A move on a private panel (one of its game's ``GAME_ACTS``) races that window
    (:meth:`_commit_in_time`, issue 40): the service is asked at once, and if the move is committed
    within :data:`bot.ui.on_time.ANSWER_BY` (2 s) of the click's creation, the click is answered by
    the new panel itself, one UPDATE_MESSAGE callback (type 7): one request per move instead of two,
    with a second left for that callback's retries. A commit still running then (a busy database,
    the channel lock held by another commit) is acknowledged with a deferred update (type 6: nothing
    shown yet, a single request that carries no result) and the panel edited once the commit is done
    (the token's 15 minutes). Either way nothing is shown before it is committed. The price: the
    service is asked before the click is acknowledged, so a callback that Discord refuses for the
    whole window (an outage, a 429 longer than what is left) leaves a stored move whose click
    "failed"; the presenter then edits the panel through the token of the player's last answered
    click (:meth:`PanelFollower.panel_missed`) and the public table shows the move.

    Every other click that changes the game (the lobby buttons, the Yes of Leave and End, Take my
    seat back, Next round on the table, Rematch) is first acknowledged with a deferred update and
    only then does the service act; the result is shown by a private follow-up, an edit of the
    clicked private message, or by the presenter for public messages. If that acknowledgement
    cannot land in time (see :mod:`bot.ui.on_time`, which retries it while the deadline allows),
    the service is not asked: such a change is never made without an answer.

    Clicks that change nothing (open my panel, a mode, Refresh, rules, Leave's question, No) keep
    answering in one request: if that misses the deadline, nothing was stored either.
    """

    def __init__(self, bot: Host, presenter: Presenter) -> None:
        self.bot = bot
        self.presenter = presenter

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
        ]

    async def game_button(self, interaction: Interaction, custom_id: str) -> None:
        """An in-game button (checked by the router); a stale panel is shown again, as it is now."""
        try:
            await self.game_click(interaction, ids.decode(custom_id))
        except Stale as stale:
            await self._show_stale(interaction, stale)

    async def lobby_button(self, interaction: Interaction, custom_id: str) -> None:
        """A lobby button (checked by the router)."""
        _, lobby, act = custom_id.split(":")
        await self.lobby_click(interaction, int(lobby), act)

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
        await self.tell(interaction, text)

    async def tell(self, interaction: discord.Interaction[Any], text: str) -> None:
        """A private message to the clicker (first answer or follow-up)."""
        await errors.tell(interaction, text)

    async def _show_stale(self, interaction: Interaction, stale: Stale) -> None:
        """A move on a panel older than the game: no error, the panel again as it is now, saying so
        (every other refusal goes through the funnel, :mod:`bot.ui.errors`)."""
        log.debug(  # as the funnel logs every refusal
            "click refused",
            extra={"user_id": interaction.user.id, "reason": stale.key, "channel_id": interaction.channel_id},
        )
        state = stale.panel
        state.notice = (stale.key, {})
        await self._show_panel(interaction, state, in_place=self._on_panel(interaction))

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
        prefs = await display.own_prefs(self.service, interaction.user.id)
        words = prefs.table == display.TEXT
        content: str
        view: ButtonsView | None
        if table is not None and table.finished:
            content, view = final_panel_content(table, state.seat, locale, words), None
        else:
            content = panel_content(state, locale, words)
            view = panel_view(state, locale, prefs.cards, self.bot.card_emojis)
        watch = self.presenter.panel_click_started(state.game_id, interaction.user.id)
        followed: PanelState | None = None
        # A panel is known by the interaction that opened it (its message's interaction_metadata):
        # Discord answers an ephemeral message's id only in a response body the bot does not ask for.
        opened_by = getattr(interaction.message, "interaction_metadata", None)
        clicked: int | None = getattr(opened_by, "id", None)
        shown: int | None = None
        issued = self.service.clock.now_ms()  # the token's 15 minutes started before this answer
        missed = False
        try:
            buttons: dict[str, Any] = {"view": view} if view is not None else {}
            deferred = interaction.response.type is discord.InteractionResponseType.deferred_message_update
            if in_place and not interaction.response.is_done():
                try:
                    await interaction.response.edit_message(content=content, view=view)
                except discord.HTTPException as error:
                    # The answer could not land in time (a move is committed by now, see
                    # _commit_in_time): the presenter shows the panel through its last token.
                    log.warning(
                        "click not answered in time",
                        extra={"user_id": interaction.user.id, "status": error.status, "code": error.code},
                    )
                    missed = True
                else:
                    followed, shown = state, clicked
            elif in_place and deferred:
                # Acknowledged first (a move): the clicked panel is the interaction's original message.
                await discord_patches.edit_original(interaction.followup, content=content, view=view)
                followed, shown = state, clicked
            elif interaction.response.is_done():
                # A follow-up is not the interaction's original message: not followed.
                await interaction.followup.send(content, ephemeral=True, **buttons)
            else:
                await interaction.response.send_message(content, ephemeral=True, **buttons)
                followed, shown = state, interaction.id
        finally:
            self.presenter.panel_click_done(watch, interaction, table, followed, shown, issued)
        if missed:
            self.presenter.panel_missed(state.game_id, interaction.user.id, table)

    # ------------------------------------------------------------------ game buttons

    async def game_click(self, interaction: Interaction, bid: ids.ButtonId | None) -> None:
        """An in-game click, by its act (:attr:`ACTS`, else the game's own moves: :meth:`_move`)."""
        game = BY_PREFIX.get(bid.prefix) if bid is not None else None
        if bid is None or game is None:
            raise Refused("table.error.forged")
        changes = bid.act in CHANGING_ACTS or bid.act in game.panel.GAME_ACTS
        # A move on a private panel is answered by the panel itself when it is committed in time
        # (_commit_in_time); every other change is acknowledged first.
        racing = bid.act in game.panel.GAME_ACTS and self._on_panel(interaction)
        if changes and not racing and not await self.acknowledge(interaction):
            return
        handler = self.ACTS.get(bid.act, TableUI._move)
        await handler(self, interaction, bid, game)

    async def _open_panel(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        try:
            state = await self.service.open_panel(bid.game, interaction.user.id)
        except SeatTaken as taken:
            if not taken.idle:
                raise
            await self._offer_seat_back(interaction, bid.prefix, bid.game)
            return
        if state.kind != game.name:
            raise Refused("table.error.forged")
        await self._send_panel(interaction, state)

    async def _reclaim(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        state = await self.service.reclaim_seat(bid.game, interaction.user.id)
        if state.kind != game.name:
            raise Refused("table.error.forged")
        state.notice = ("seats.back", {})
        # The offer becomes the panel (it is the clicked private message).
        await self._show_panel(interaction, state, in_place=self._on_panel(interaction))

    async def _rules(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        options = await self.service.options_for(bid.game)
        if not isinstance(options, game.engine.Options):
            raise Refused("table.error.forged")
        await self.tell(interaction, game.rules.rules_text(options, interaction.locale))

    async def _leave(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        # Leaving forfeits: refuse now what Yes would refuse, else ask the clicker first.
        await self.service.check_leave(bid.game, interaction.user.id)
        await self.confirm(interaction, bid.prefix, bid.game, LEAVE_YES)

    async def _leave_yes(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        await self.service.leave(bid.game, interaction.user.id)
        await self._settle(interaction, t("table.left", interaction.locale))

    async def _end_yes(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        user = interaction.user
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
            t(
                "table.ended",
                self.service.public_locale(interaction.guild_id, interaction.guild_locale),
                user=user.mention,
            ),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def _confirm_no(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        await self._settle(interaction, t("table.confirm.nothing_changed", interaction.locale))

    async def _rematch_click(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        await self._rematch(interaction, bid.game)

    async def _next_round(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        if self._on_panel(interaction):  # a panel's Next round is one of its game's moves
            await self._move(interaction, bid, game)
            return
        # The table message's Next round: a vote.
        state = await self.service.vote_next_round(bid.game, interaction.user.id, bid.arg, key=interaction.id)
        if state.notice is not None:
            key, params = state.notice
            await self.tell(interaction, t(key, interaction.locale, **params))

    async def _move(self, interaction: Interaction, bid: ids.ButtonId, game: Any) -> None:
        """One of the game's own acts (its panel's ``GAME_ACTS``), or a panel's mode, Refresh or hint;
        any other act is forged."""
        if bid.act not in game.panel.GAME_ACTS and bid.act not in PANEL_ACTS:
            raise Refused("table.error.forged")
        table = self.service.tables.get(bid.game)  # kept: a click that ends the game un-caches it
        # The click's interaction id is its action's idempotency key: a commit retried after its
        # connection dropped is recognised and never applied twice (bot/storage/games.py).
        commit = self.service.click(
            bid.game, bid.version, interaction.user.id, bid.act, bid.arg, key=interaction.id
        )
        if self._on_panel(interaction) and not interaction.response.is_done():
            answered = await self._commit_in_time(interaction, commit, bid.game, table)
            if answered is None:
                return
            state = answered
        else:
            state = await commit
        if self._on_panel(interaction):
            await self._show_panel(interaction, state, in_place=True, table=table)
        elif state.notice is not None:  # Next round on the table message
            key, params = state.notice
            await self.tell(interaction, t(key, interaction.locale, **params))
        elif not interaction.response.is_done():
            await interaction.response.defer()

    async def _commit_in_time(
        self, interaction: Interaction, commit: Awaitable[PanelState], game_id: int, table: Table | None
    ) -> PanelState | None:
        """A click on a private panel, raced against the 3-second window (see the class docstring):
        the service is asked at once; committed within :data:`bot.ui.on_time.ANSWER_BY` of the
        click's creation (its snowflake), the click is answered by the new panel itself, one
        UPDATE_MESSAGE callback (type 7, :meth:`_show_panel`); still committing then, it is
        acknowledged (a deferred update) and the panel edited once the commit is done. None: the
        acknowledgement could not land; the commit was let finish (it cannot be called back
        halfway) and the presenter brings the panel up to date through its last token."""
        task = asyncio.ensure_future(commit)
        wait = on_time.answer_budget(interaction.id)
        if wait > 0:
            await asyncio.wait({task}, timeout=wait)
        if task.done():
            return task.result()
        if await self.acknowledge(interaction):
            return await task
        try:
            await task
        except (Refused, Stale):
            return None  # nothing stored: the click is lost for Discord, as if never made
        self.presenter.panel_missed(game_id, interaction.user.id, table)
        return None

    # The acts every game shares, each to its handler (any other act: _move).
    ACTS: ClassVar[dict[str, ActHandler]] = {
        OPEN_PANEL: _open_panel,
        RECLAIM: _reclaim,
        RULES: _rules,
        LEAVE: _leave,
        LEAVE_YES: _leave_yes,
        END_YES: _end_yes,
        CONFIRM_NO: _confirm_no,
        REMATCH: _rematch_click,
        NEXT_ROUND: _next_round,
    }

    async def confirm(
        self, interaction: discord.Interaction[Any], prefix: str, game_id: int, yes: str
    ) -> None:
        """Ask the clicker, privately, before something that cannot be undone (``yes``: LEAVE_YES or
        END_YES). The buttons carry all their click needs, nothing is kept in memory."""
        locale = interaction.locale
        question, label = CONFIRMATIONS[yes]
        buttons = [
            button(ids.encode(prefix, game_id, 0, yes, 0), t(label, locale), "danger"),
            button(ids.encode(prefix, game_id, 0, CONFIRM_NO, 0), t("table.confirm.no", locale)),
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
            await discord_patches.edit_original(interaction.followup, content=text, view=None)
        elif self._on_panel(interaction):
            await interaction.response.edit_message(content=text, view=None)
        else:
            await self.tell(interaction, text)

    async def _rematch(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """The new lobby is a public follow-up of the (acknowledged) click on the table message."""
        lobby = await self.service.rematch(game_id, interaction.user.id)
        locale = self.service.public_locale(lobby.guild_id, interaction.guild_locale)
        view = lobby_layout(lobby, locale, self.service.settings_of(lobby.guild_id))
        try:
            message = await interaction.followup.send(view=view, wait=True)
        except discord.HTTPException:
            with contextlib.suppress(Refused):
                await self.service.lobby_cancel(lobby.id, lobby.channel_id, lobby.host_id)
            raise
        await self.service.set_lobby_message(lobby, message.id)

    async def post_lobby(self, interaction: discord.Interaction[Any], lobby: Lobby) -> None:
        """Answer with the public lobby message (the lobby is committed already)."""
        locale = self.service.public_locale(lobby.guild_id, interaction.guild_locale)
        view = lobby_layout(lobby, locale, self.service.settings_of(lobby.guild_id))
        try:
            callback = await interaction.response.send_message(view=view)
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
        if act == START_NO:  # the host's No to "start without them?": nothing changes
            await self._settle(interaction, t("table.confirm.lobby_waits", interaction.locale))
            return
        if not await self.acknowledge(interaction):  # every other lobby button changes the lobby
            return
        if act in (START, START_YES):
            await self._lobby_start(interaction, lobby_id, channel_id, confirmed=act == START_YES)
            return
        if act == JOIN:
            await self.service.lobby_join(lobby_id, channel_id, user.id, name)
        elif act == LEAVE_LOBBY:
            await self.service.lobby_leave(lobby_id, channel_id, user.id)
        elif act == ADD_COMPUTER:
            await self.service.lobby_add_computer(
                lobby_id,
                channel_id,
                user.id,
                self.service.public_locale(interaction.guild_id, interaction.guild_locale),
            )
        elif act == REMOVE_COMPUTER:
            await self.service.lobby_remove_computer(lobby_id, channel_id, user.id)
        elif act == CANCEL:
            perms = interaction.permissions
            await self.service.lobby_cancel(lobby_id, channel_id, user.id, can_manage=perms.manage_channels)
        self.presenter.lobby_changed(lobby_id)

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
        place = threads.place(self.bot, interaction)
        try:
            table = await self.service.lobby_start(
                lobby_id, channel_id, interaction.user.id, message_id, place=place, confirmed=confirmed
            )
        except SeatsHeld as held:
            await self._ask_start(interaction, lobby_id, held)
            return
        if threads.parent_of(table) is not None and message_id is not None:
            self.presenter.lobby_moved(table, message_id)  # the game went to its thread
        self.presenter.table_changed(table)
        if confirmed:
            await self._settle(interaction, t("table.confirm.started", interaction.locale))

    async def _ask_start(self, interaction: discord.Interaction[Any], lobby_id: int, held: SeatsHeld) -> None:
        """The host's private question before a Start that leaves held rematch seats empty: who is
        waited for and until when (Discord timestamps), *Start now* or *No* (lobby ids: they work after
        a restart; a second Yes meets a started table and is refused with that reason)."""
        locale = interaction.locale
        names = ", ".join(escape_name(name) for name in held.players)
        seconds = held.until // 1000
        question = t(held.key, locale, players=names, at=f"<t:{seconds}:t>", until=f"<t:{seconds}:R>")
        buttons = [
            button(f"{LOBBY_PREFIX}{lobby_id}:{START_YES}", t("table.confirm.yes_start", locale), "primary"),
            button(f"{LOBBY_PREFIX}{lobby_id}:{START_NO}", t("table.confirm.no", locale)),
        ]
        await interaction.followup.send(
            question,
            view=ButtonsView([buttons]),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )
