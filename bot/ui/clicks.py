"""What each click on one of our buttons does (:class:`TableUI`), and which clicks are ours to take.

Every in-game button's custom_id is ``<game prefix>:<game>:<version>:<act>:<arg>`` and every lobby button's
``sl:<lobby>:<act>``: the id carries everything a click needs, so nothing is kept per message and
buttons on messages posted before a restart keep working. Clicks are dispatched by
``SkyboBot.on_interaction`` (:meth:`TableUI.click`), which discord.py calls for every interaction:
discord.py's DynamicItems would do the same, but they rebuild a View of the whole clicked message (a
Button object per component) for every click, a cost that counts when hundreds of games are played at
once. A click is taken only if its id is well-formed and on the clicked message (:func:`dispatchable`),
like a DynamicItem; any other click on one of our ids is answered as forged.

A click on a public lobby or table message is acknowledged without an edit (or answered privately):
the presenter (:mod:`bot.ui.presenter`) edits the message with the latest state.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Awaitable
from typing import Any

import discord

from bot.games.registry import BY_PREFIX
from bot.i18n import translate as t
from bot.service import (
    HINT_ACT,
    MISSES_BEFORE_REPLACE,
    MODE_ACT,
    REFRESH_ACT,
    ChannelTaken,
    PanelState,
    Refused,
    SeatTaken,
    Stale,
    Table,
    TableService,
)
from bot.storage.lobbies import Lobby
from bot.ui import display, ids, lean
from bot.ui.host import Host
from bot.ui.presenter import Presenter
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
    ButtonsView,
    button,
    embed_of,
    final_panel_content,
    lobby_message,
    lobby_view,
    message_link,
    panel_content,
    panel_view,
    seat_back_view,
)

log = logging.getLogger(__name__)

GAME_TEMPLATE = r"(?:[a-z]{2}):(?P<game>\d{1,18}):(?P<version>\d{1,9}):(?P<act>[a-z]{2}):(?P<arg>-?\d{1,4})"
LOBBY_TEMPLATE = r"sl:(?P<lobby>\d{1,18}):(?P<act>[a-z]{2})"

GAME_PATTERN = re.compile(GAME_TEMPLATE)
LOBBY_PATTERN = re.compile(LOBBY_TEMPLATE)


def is_ours(custom_id: str) -> bool:
    return custom_id[2:3] == ":" and (custom_id[:2] in BY_PREFIX or custom_id.startswith("sl:"))


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

    def __init__(self, bot: Host, presenter: Presenter) -> None:
        self.bot = bot
        self.presenter = presenter

    @property
    def service(self) -> TableService:
        return self.bot.service

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
        game = kind.name if kind is not None else None
        if custom_id.startswith("sl:"):
            with contextlib.suppress(Exception):
                game = (await self.service.lobbies.get(int(custom_id.split(":")[1]))).kind
        if game is None:  # a lobby gone meanwhile: no game to name the command of (no shared default)
            return
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
        log.debug(  # a player's slip, one per click: not an operator's concern
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
        prefs = await display.own_prefs(self.service, interaction.user.id)
        words = prefs.table == display.TEXT
        content: str
        view: ButtonsView | None
        if table is not None and table.finished:
            content, view = final_panel_content(table, state.seat, locale, words), None
        else:
            content, view = panel_content(state, locale, words), panel_view(state, locale, prefs.cards)
        watch = self.presenter.panel_click_started(state.game_id, interaction.user.id)
        followed: PanelState | None = None
        # A panel is known by the interaction that opened it (its message's interaction_metadata):
        # Discord answers an ephemeral message's id only in a response body the bot does not ask for.
        opened_by = getattr(interaction.message, "interaction_metadata", None)
        clicked: int | None = getattr(opened_by, "id", None)
        shown: int | None = None
        issued = self.service.clock.now_ms()  # the token's 15 minutes started before this answer
        try:
            buttons: dict[str, Any] = {"view": view} if view is not None else {}
            deferred = interaction.response.type is discord.InteractionResponseType.deferred_message_update
            if in_place and not interaction.response.is_done():
                await interaction.response.edit_message(content=content, view=view)
                followed, shown = state, clicked
            elif in_place and deferred:
                # Acknowledged first (a move): the clicked panel is the interaction's original message.
                await lean.edit_original(interaction.followup, content=content, view=view)
                followed, shown = state, clicked
            elif interaction.response.is_done():
                # A follow-up is not the interaction's original message: not followed.
                await interaction.followup.send(content, ephemeral=True, **buttons)
            else:
                await interaction.response.send_message(content, ephemeral=True, **buttons)
                followed, shown = state, interaction.id
        finally:
            self.presenter.panel_click_done(watch, interaction, table, followed, shown, issued)

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
                t(
                    "table.ended",
                    self.service.public_locale(interaction.guild_id, interaction.guild_locale),
                    user=user.mention,
                ),
                allowed_mentions=discord.AllowedMentions.none(),
            )
        elif bid.act == CONFIRM_NO:
            await self._settle(interaction, t("table.confirm.nothing_changed", interaction.locale))
        elif bid.act == REMATCH:
            await self._rematch(interaction, bid.game)
        elif bid.act == NEXT_ROUND and not self._on_panel(interaction):  # the table's Next round
            state = await self.service.vote_next_round(bid.game, user.id, bid.arg, key=interaction.id)
            if state.notice is not None:
                key, params = state.notice
                await self.tell(interaction, t(key, interaction.locale, **params))
        elif bid.act in kind.panel.GAME_ACTS or bid.act in (MODE_ACT, REFRESH_ACT, HINT_ACT):
            table = self.service.tables.get(bid.game)  # kept: a click that ends the game un-caches it
            # The click's interaction id is its action's idempotency key: a commit retried after its
            # connection dropped is recognised and never applied twice (bot/storage/games.py).
            state = await self.service.click(
                bid.game, bid.version, user.id, bid.act, bid.arg, key=interaction.id
            )
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
            await lean.edit_original(interaction.followup, content=text, view=None)
        elif self._on_panel(interaction):
            await interaction.response.edit_message(content=text, view=None)
        else:
            await self.tell(interaction, text)

    async def _rematch(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """The new lobby is a public follow-up of the (acknowledged) click on the table message."""
        lobby = await self.service.rematch(game_id, interaction.user.id)
        locale = self.service.public_locale(lobby.guild_id, interaction.guild_locale)
        body = lobby_message(lobby, locale, self.service.settings_of(lobby.guild_id))
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
        locale = self.service.public_locale(lobby.guild_id, interaction.guild_locale)
        body = lobby_message(lobby, locale, self.service.settings_of(lobby.guild_id))
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
        elif act == START:
            message_id = interaction.message.id if interaction.message else None
            table = await self.service.lobby_start(lobby_id, channel_id, user.id, message_id)
            self.presenter.table_changed(table)
            return
        self.presenter.lobby_changed(lobby_id)
