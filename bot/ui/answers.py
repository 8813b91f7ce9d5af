"""The one owner of a click's answer: the 2-second race, the four ways a panel answers, and every reply.

**Nothing is shown before it is committed**, and every click gets an answer on time: Discord wants the
first answer to a click (its callback) within 3 s of the click, else the player reads "This interaction
failed". Three kinds of click, three ways to meet that window:

- **A move on a private panel** (one of its game's ``GAME_ACTS``) races the window (:meth:`Answers.race`,
  issue 40): the service is asked at once, and if the move is committed within
  :data:`bot.ui.on_time.ANSWER_BY` (**2 s**) of the click's creation (its snowflake), the click is
  answered by the new panel itself, one UPDATE_MESSAGE callback (type 7): one request per move instead
  of two, with a second left for that callback's retries. A commit still running then (a busy
  database, the channel lock held by another commit) is acknowledged with a deferred update (type 6:
  nothing shown yet, a single request that carries no result) and the panel edited once the commit is
  done (the token's 15 minutes). The price: the service is asked before the click is acknowledged, so
  a callback that Discord refuses for the whole window (an outage, a 429 longer than what is left)
  leaves a stored move whose click "failed"; the panel is then **missed**, and the followed panels
  (below) edit it through the token of the player's last answered click; the public table shows the
  move in any case.
- **Every other click that changes the game** (the lobby buttons, the Yes of Leave and End, Take my seat
  back, Next round on the table, Rematch) is first acknowledged with a deferred update
  (:meth:`Answers.acknowledge`) and only then does the service act; the result is shown by a private
  follow-up, an edit of the clicked private message, or by the table messages for public messages
  (:mod:`bot.ui.table_messages`). If that acknowledgement cannot land in time (:mod:`bot.ui.on_time`
  retries it while the deadline allows), the service is not asked: such a change is never made without
  an answer.
- **Clicks that change nothing** (open my panel, a mode, Refresh, rules, Leave's question, No) answer
  in one request: if that misses the deadline, nothing was stored either.

**The four ways a panel answers** (:meth:`Answers.show_panel`), and what is followed afterwards:

=========================================  ===============================  ==============================
the click                                  the answer                       followed afterwards
=========================================  ===============================  ==============================
on a panel, not answered yet               ``response.edit_message`` (7)    that panel (missed: its live
                                                                            panel brought up to date)
on a panel, acknowledged first (deferred)  ``edit_original`` (webhook)      that panel
answered already, not on a panel           ``followup.send``, ephemeral     nothing (a follow-up is not
                                                                            the interaction's message);
                                                                            from a table where the bot
                                                                            is not a member: that
                                                                            follow-up, by its id
not answered, not on a panel               ``response.send_message``,       the new panel, which
                                           ephemeral                        retires the one it replaces
=========================================  ===============================  ==============================

**The followed panels** (:mod:`bot.ui.followed_panels`): each player has one live private panel per
game, the one they last opened or clicked; the bot edits it through the token of that click (15
minutes) when what it says no longer holds (their turn came, another's turn, the round or the game
over), and retires the panel a new one replaces. A player who clicked their live panel within a minute
is taken to be looking at it: their turn's mention is not posted, the panel's edit tells them
(:mod:`bot.ui.mentions`). Every answer here that shows a panel runs inside
:meth:`FollowedPanels.answering <bot.ui.followed_panels.FollowedPanels.answering>`, which keeps the
follower's edits off that panel until the answer is done and is told on its ticket what the answer
showed (or that it missed): an edit and a click's answer never leave the older panel on screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Mapping
from typing import Any

import discord

from bot import discord_patches
from bot.games.base import Game
from bot.games.registry import BY_KIND
from bot.i18n import translate as t
from bot.render.names import escape_name
from bot.service import MISSES_BEFORE_REPLACE, PanelState, Refused, SeatsHeld, Stale, Table, TableService
from bot.storage.lobbies import Lobby
from bot.ui import challenges, display, errors, ids, on_time, setup_form, token_tables
from bot.ui.followed_panels import FollowedPanels
from bot.ui.host import Host
from bot.ui.token_tables import TokenTables
from bot.ui.views import (
    CONFIRM_NO,
    CONFIRMATIONS,
    ButtonsView,
    button,
    final_panel_content,
    lobby_layout,
    panel_content,
    panel_view,
    seat_back_view,
    start_question_view,
)

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]


def on_panel(interaction: Interaction) -> bool:
    """True when the click is on a private panel (an ephemeral message), which it may answer in place."""
    message = interaction.message
    return message is not None and message.flags.ephemeral


class Answers:
    """Every answer to a click or a command on a table: panels, races, confirmations, lobbies."""

    def __init__(self, bot: Host, followed: FollowedPanels, tokens: TokenTables | None = None) -> None:
        self.bot = bot
        self.followed = followed
        self.tokens = tokens  # the tables where the bot is not a member (bot.ui.token_tables)

    @property
    def service(self) -> TableService:
        return self.bot.service

    async def acknowledge(self, interaction: Interaction) -> bool:
        """Acknowledge a click that will change the game, before the service acts (see the module
        docstring): a deferred update, which shows nothing. False when it could not land in time:
        the click is lost for Discord, so the service must not be asked. A click acknowledged already
        (on a table where the bot is not a member: :mod:`bot.ui.token_tables`) is."""
        if interaction.response.type is discord.InteractionResponseType.deferred_message_update:
            return True
        try:
            await interaction.response.defer()
        except discord.HTTPException as error:
            log.warning(
                "click not acknowledged in time",
                extra={"user_id": interaction.user.id, "status": error.status, "code": error.code},
            )
            return False
        return True

    async def race(
        self, interaction: Interaction, commit: Awaitable[PanelState], game_id: int, table: Table | None
    ) -> PanelState | None:
        """A click on a private panel, raced against the 3-second window (see the module docstring):
        the service is asked at once; committed within :data:`bot.ui.on_time.ANSWER_BY` of the
        click's creation (its snowflake), the click is answered by the new panel itself, one
        UPDATE_MESSAGE callback (type 7, :meth:`show_panel`); still committing then, it is
        acknowledged (a deferred update) and the panel edited once the commit is done. None: the
        acknowledgement could not land; the commit was let finish (it cannot be called back
        halfway) and the panel is missed: the followed panels bring it up to date through its last
        token."""
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
        with self.followed.answering(
            interaction, game_id, table or self.service.tables.get(game_id)
        ) as ticket:
            ticket.missed()
        return None

    async def show_panel(
        self,
        interaction: Interaction,
        state: PanelState,
        *,
        in_place: bool,
        table: Table | None = None,
    ) -> None:
        """Answer with the panel, in place on a panel click (``in_place``), else a new private message,
        one of the four ways of the module docstring, and let the followed panels follow it. A click
        that ended the game gets the final result."""
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
        # A panel is known by the interaction that opened it (its message's interaction_metadata):
        # Discord answers an ephemeral message's id only in a response body the bot does not ask for.
        opened_by = getattr(interaction.message, "interaction_metadata", None)
        clicked: int | None = getattr(opened_by, "id", None)
        with self.followed.answering(interaction, state.game_id, table) as ticket:
            buttons: dict[str, Any] = {"view": view} if view is not None else {}
            deferred = interaction.response.type is discord.InteractionResponseType.deferred_message_update
            if in_place and not interaction.response.is_done():
                try:
                    await interaction.response.edit_message(content=content, view=view)
                except discord.HTTPException as error:
                    # The answer could not land in time (a move is committed by now, see race): the
                    # followed panels show the panel through its last token.
                    log.warning(
                        "click not answered in time",
                        extra={"user_id": interaction.user.id, "status": error.status, "code": error.code},
                    )
                    ticket.missed()
                else:
                    ticket.shown(state, clicked)
            elif in_place and deferred:
                # Acknowledged first (a move): the clicked panel is the interaction's original message.
                await discord_patches.edit_original(interaction.followup, content=content, view=view)
                ticket.shown(state, clicked)
            elif interaction.response.is_done() and table is not None and table.stored.off_server:
                # Opened from a table where the bot is not a member (bot.ui.token_tables): a follow-up,
                # followed by its message id through this click's token.
                panel = await interaction.followup.send(content, ephemeral=True, wait=True, **buttons)
                ticket.shown(state, interaction.id, panel.id)
            elif interaction.response.is_done():
                # A follow-up is not the interaction's original message: not followed.
                await interaction.followup.send(content, ephemeral=True, **buttons)
            else:
                await interaction.response.send_message(content, ephemeral=True, **buttons)
                ticket.shown(state, interaction.id)

    async def show_stale(self, interaction: Interaction, stale: Stale) -> None:
        """A move on a panel older than the game: no error, the panel again as it is now, saying so
        (every other refusal goes through the funnel, :mod:`bot.ui.errors`)."""
        log.debug(  # as the funnel logs every refusal
            "click refused",
            extra={"user_id": interaction.user.id, "reason": stale.key, "channel_id": interaction.channel_id},
        )
        state = stale.panel
        state.notice = (stale.key, {})
        await self.show_panel(interaction, state, in_place=on_panel(interaction))

    async def launch_activity(self, interaction: Interaction) -> None:
        """The "Open the table" button: Discord launches the Activity (bot.activity) in the click's
        channel for the clicker (the LAUNCH_ACTIVITY callback); it finds the table from its instance."""
        await interaction.response.launch_activity()

    async def tell(self, interaction: Interaction, text: str) -> None:
        """A private message to the clicker (first answer or follow-up)."""
        await errors.tell(interaction, text)

    async def confirm(self, interaction: Interaction, prefix: str, game_id: int, yes: str) -> None:
        """Ask the clicker, privately, before something that cannot be undone (``yes``: LEAVE_YES or
        END_YES). The buttons carry all their click needs, nothing is kept in memory."""
        locale = interaction.locale
        question, label = CONFIRMATIONS[yes]
        buttons = [
            button(ids.encode(prefix, game_id, 0, yes, 0), t(label, locale), "danger"),
            button(ids.encode(prefix, game_id, 0, CONFIRM_NO, 0), t("table.confirm.no", locale)),
        ]
        await self._private(interaction, t(question, locale), ButtonsView([buttons]))

    @staticmethod
    async def _private(interaction: Interaction, text: str, view: ButtonsView) -> None:
        """A private message with buttons: the answer, or a follow-up of a click answered already."""
        if interaction.response.is_done():
            await interaction.followup.send(text, view=view, ephemeral=True)
        else:
            await interaction.response.send_message(text, view=view, ephemeral=True)

    async def ask_start(self, interaction: Interaction, lobby_id: int, held: SeatsHeld) -> None:
        """The host's private question (a follow-up of the acknowledged Start) before a Start that leaves
        held rematch seats empty: who is waited for and until when (Discord timestamps), *Start now* or
        *No*."""
        locale = interaction.locale
        names = ", ".join(escape_name(name) for name in held.players)
        seconds = held.until // 1000
        question = t(held.key, locale, players=names, at=f"<t:{seconds}:t>", until=f"<t:{seconds}:R>")
        await interaction.followup.send(
            question,
            view=start_question_view(lobby_id, locale),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def announce_end(self, interaction: Interaction) -> None:
        """After End's Yes (acknowledged and settled): who ended the game, in public."""
        locale = self.service.public_locale(interaction.guild_id, interaction.guild_locale)
        await interaction.followup.send(
            t("table.ended", locale, user=interaction.user.mention),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def leave_to_the_table(self, interaction: Interaction) -> None:
        """A change made from the public table message, which shows it (:mod:`bot.ui.table_messages`):
        acknowledged without an edit, unless already answered (what fails goes to the funnel)."""
        if not interaction.response.is_done():
            await interaction.response.defer()

    async def offer_seat_back(self, interaction: Interaction, prefix: str, game_id: int) -> None:
        """A player a computer replaced for missed turns opened their panel: privately, a way back."""
        locale = interaction.locale
        offer = t("seats.offer", locale, missed=MISSES_BEFORE_REPLACE)
        await self._private(interaction, offer, seat_back_view(prefix, game_id, locale))

    async def settle(self, interaction: Interaction, text: str) -> None:
        """Answer a confirmation: its private message says what happened and loses its buttons."""
        if on_panel(interaction) and interaction.response.is_done():  # acknowledged first
            await discord_patches.edit_original(interaction.followup, content=text, view=None)
        elif on_panel(interaction):
            await interaction.response.edit_message(content=text, view=None)
        else:
            await self.tell(interaction, text)

    async def post_rematch(self, interaction: Interaction, game_id: int) -> None:
        """The new lobby is a public follow-up of the (acknowledged) click on the table message."""
        lobby = await self.service.rematch(game_id, interaction.user.id)
        locale = self._public_locale(interaction, lobby)
        view = lobby_layout(lobby, locale, self.service.settings_of(lobby.guild_id))
        try:
            message = await interaction.followup.send(view=view, wait=True)
        except discord.HTTPException:
            with contextlib.suppress(Refused):
                await self.service.lobby_cancel(lobby.id, lobby.channel_id, lobby.host_id)
            raise
        await self.service.set_lobby_message(lobby, message.id)
        if lobby.off_server and self.tokens is not None:  # a follow-up of this click's token
            self.tokens.followed_up(interaction, message.id)

    def _public_locale(self, interaction: Interaction, lobby: Lobby) -> object:
        """The language of a lobby's public message: its own where the bot is not a member (its
        host's), else the server's (``/skybo settings``)."""
        if lobby.off_server:
            return token_tables.language_of(lobby.options)
        return self.service.public_locale(lobby.guild_id, interaction.guild_locale)

    async def open_lobby(
        self,
        interaction: Interaction,
        game: Game,
        given: Mapping[str, Any],
        challenged: challenges.Person | None = None,
    ) -> None:
        """``/<game> new`` (built by :mod:`bot.ui.new_command`): the table's options from what was
        ``given``, by the game's own declaration (``game.new.table_options``); the lobby opened by the
        service, which checks every value (no ``turn_limit`` or ``thread`` given: the server's
        default, ``/skybo settings``); then its public message (:meth:`post_lobby`). Where the bot is
        not a member (:mod:`bot.ui.token_tables`), the lobby is stored ``off_server``, in its host's
        language, and is this command's own answer; where Discord would show that answer to the host
        alone, one line says why there is no table. ``challenged``: a right-click challenge
        (:mod:`bot.ui.challenges`), that person's seat held and they told."""
        if challenged is not None:
            challenges.check_target(interaction.user, challenged)
        asked = game.new.table_options(given)
        user = interaction.user
        off_server = token_tables.off_server(interaction)
        if off_server and token_tables.forced_private(interaction):
            raise Refused(token_tables.PRIVATE_ONLY)
        # The language of what everyone reads, the computers' names among it (the server's setting).
        locale = self.service.public_locale(interaction.guild_id, interaction.guild_locale)
        if off_server:  # no server's setting reaches there: its host's own
            locale = str(interaction.locale)
        lobby = await self.service.open_lobby(
            kind=game.name,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id or 0,
            host_id=user.id,
            host_name=getattr(user, "display_name", None) or user.name,
            options=asked.options,
            computers=asked.computers,
            level=asked.level,
            locale=locale,
            turn_limit=asked.turn_limit,
            thread=asked.thread,
            off_server=off_server,
            challenged=None if challenged is None else (challenged.id, challenges.shown_name(challenged)),
        )
        told = challenged is None or await challenges.tell(self.bot, interaction, lobby, game, challenged)
        await self.post_lobby(
            interaction, lobby, mention=None if told or challenged is None else challenged.id
        )

    async def open_form(self, interaction: Interaction, lobby_id: int, page: int) -> None:
        """The lobby's set-up form (:mod:`bot.ui.setup_form`), page ``page``, showing the lobby's
        options, in the host's language: the modal is the click's first answer. Anyone but the host
        is refused (the funnel: privately, nothing changes)."""
        lobby, current = await self.service.lobby_setup(lobby_id, interaction.user.id)
        game = BY_KIND[lobby.kind]
        if not 0 <= page < len(game.new.form):
            raise Refused("table.error.forged")
        values = game.new.given(current)
        await interaction.response.send_modal(
            setup_form.form_modal(game, lobby.id, page, values, interaction.locale)
        )

    async def post_lobby(self, interaction: Interaction, lobby: Lobby, *, mention: int | None = None) -> None:
        """Answer ``/<game> new`` with the public lobby message (the lobby is committed already);
        ``mention``: the one user it pings (a challenged person the bot could not write to)."""
        locale = self._public_locale(interaction, lobby)
        view = lobby_layout(lobby, locale, self.service.settings_of(lobby.guild_id))
        pings = discord.utils.MISSING if mention is None else challenges.mention_only(mention)
        try:
            callback = await interaction.response.send_message(view=view, allowed_mentions=pings)
        except discord.HTTPException:
            with contextlib.suppress(Refused):
                await self.service.lobby_cancel(lobby.id, lobby.channel_id, lobby.host_id)
            raise
        message_id = callback.message_id
        if message_id is None:
            message_id = (await interaction.original_response()).id
        await self.service.set_lobby_message(lobby, message_id)
        if lobby.off_server and self.tokens is not None:  # the lobby is this command's own message
            self.tokens.opened(interaction, message_id)
