"""Tournaments on Discord (issues 41 and 47): the sign-up, standings and final messages, the Join /
Leave / Start buttons, and the hall the service asks for a table's room (a thread of the tournament's
channel) and tells of a table seated.

The messages are drawn again from the stored tournament whenever the service says it changed
(:meth:`Hall.tournament_changed`, coalesced: one redraw at a time per tournament, the last change
always drawn), in the server's language for public messages; their words are
:mod:`bot.ui.tournament_texts`'. They have the table's look: one Components V2 container (:func:`layout`,
by :func:`bot.render.messages.layout_of`), its first line the heading, a knockout's bracket picture under
it, the buttons inside, its accent colour saying the state (sign-ups: the lobby's blue; on: green;
paused: yellow; over: grey; the final: gold). The standings are three text displays (the head, the
round's tables with their threads' links, the standings: :func:`standings_layout`). The buttons keep
one custom_id for the tournament's life (``tn:<id>:join|leave|start``): nothing is kept in memory, so
they work after a restart.

**A table seated** (:meth:`Hall.table_seated`, after its deal): its players are named in its thread
(a mention, which adds them to it and notifies them; the server's language) with the first turn's
deadline, and each whose ``/skybo notify`` is on gets a direct message in their own language (which
table, a link to its thread, the deadline). A user whose direct messages are closed (Discord's 50007)
is no error: logged at INFO. Both are sent in the background, never under the click that started the
round; a stop between the deal and the notices loses them (the thread keeps the table).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import re
from typing import Any, Protocol

import discord

from bot.discord_patches import LayoutPayload
from bot.i18n import translate as t
from bot.render import messages
from bot.service import Refused
from bot.service.tournament_view import TournamentView
from bot.service.tournaments import SeatedTable
from bot.storage.tournaments import CANCELLED, FINISHED, PAUSED, RUNNING, SIGNUP, Tournament
from bot.tournament import pairing
from bot.ui.host import Host
from bot.ui.tournament_texts import (
    bracket_picture,
    final_text,
    game_title,
    private_standings,
    seated_letter,
    signup_text,
    standings_blocks,
    standings_text,
    welcome_text,
)
from bot.ui.views import button, message_link

CANNOT_SEND_TO_USER = 50007  # Discord: the user's privacy settings refuse the bot's direct messages


class TournamentHost(Host, Protocol):
    """What the hall needs of the bot besides :class:`~bot.ui.host.Host`: the channel to open threads in."""

    def get_channel(self, id: int, /) -> Any: ...

    async def fetch_channel(self, channel_id: int, /) -> Any: ...

    def is_closed(self) -> bool: ...


log = logging.getLogger(__name__)

PREFIX = "tn:"
BUTTON_ID = re.compile(r"tn:(?P<id>\d{1,19}):(?P<act>join|leave|start)")
NO_MENTIONS = discord.AllowedMentions.none()
COLOUR_WON = 0xF1C40F  # the final message's gold
ACCENTS = {
    SIGNUP: messages.COLOUR_LOBBY,
    RUNNING: messages.COLOUR_PLAYING,
    PAUSED: messages.COLOUR_PAUSE,
    FINISHED: messages.COLOUR_OVER,
    CANCELLED: messages.COLOUR_OVER,
}


def may_organise(bot: Host, interaction: discord.Interaction[Any]) -> bool:
    """The one check of who organises any tournament of a server (create, start, drop, pause, resume,
    cancel; a tournament's own organiser may always run it, checked by the service): a member who may
    manage the server, or who has the role its admins named (``/skybo settings tournament_role``)."""
    if interaction.guild_id is None:
        return False
    if interaction.permissions.manage_guild:
        return True
    role = bot.service.settings_of(interaction.guild_id).tournament_role
    user = interaction.user
    return role is not None and isinstance(user, discord.Member) and user.get_role(role) is not None


def button_id(tournament_id: int, act: str) -> str:
    return f"{PREFIX}{tournament_id}:{act}"


def layout(
    text: str,
    rows: list[list[dict[str, Any]]] | None = None,
    *,
    accent: int | None,
    picture: str | None = None,
) -> LayoutPayload:
    """A tournament message in the table's look: one Components V2 container, ``text``'s first line
    its heading and the rest under it, the picture ``picture`` (an attachment's file name) under the
    heading, then the buttons ``rows``."""
    title, _, rest = text.partition("\n")
    embed: dict[str, Any] = {"title": title, "description": rest}
    if picture is not None:
        embed["image"] = {"url": f"attachment://{picture}"}
    return LayoutPayload(messages.layout_of(messages.MessageBody(embed=embed), rows or [], accent=accent))


def signup_layout(view: TournamentView, locale: object) -> LayoutPayload:
    """The sign-up message with its Join / Leave / Start buttons (none once it started)."""
    held = view.tournament
    return layout(signup_text(view, locale), signup_buttons(view, locale), accent=ACCENTS.get(held.status))


def standings_layout(view: TournamentView, locale: object, *, picture: str | None = None) -> LayoutPayload:
    """The standings: the head (a heading), a knockout's bracket, the round's tables with their threads'
    links, then the standings, each its own text display, within Discord's 4,000 characters."""
    held = view.tournament
    heading, tables, lines = standings_blocks(view, locale)
    title, _, rest = heading.partition("\n")
    children = [messages.text_display(f"## {title}\n{rest}".rstrip())]
    if picture is not None:
        children.append(messages.media_gallery(f"attachment://{picture}"))
    children += [messages.text_display(text) for text in (tables, lines) if text]
    return LayoutPayload([messages.container(children, ACCENTS.get(held.status))])


def private_layout(text: str) -> LayoutPayload:
    """A part of ``/skybo tournament standings``' private answer: one container, its text."""
    return LayoutPayload([messages.container([messages.text_display(text)])])


def final_layout(view: TournamentView, locale: object) -> LayoutPayload:
    return layout(final_text(view, locale), accent=COLOUR_WON)


def signup_buttons(view: TournamentView, locale: object) -> list[list[dict[str, Any]]]:
    if view.tournament.status != SIGNUP:
        return []
    tid = view.tournament.id
    return [
        [
            button(button_id(tid, "join"), t("tournament.button.join", locale), "success"),
            button(button_id(tid, "leave"), t("tournament.button.leave", locale)),
            button(button_id(tid, "start"), t("tournament.button.start", locale), "primary"),
        ]
    ]


BRACKET_FILE = "bracket.png"


class Hall:
    """The service's :class:`~bot.service.tournaments.TournamentHall` on Discord."""

    def __init__(self, bot: TournamentHost) -> None:
        self.bot = bot
        self._drawing: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self._told: set[tuple[int, int]] = set()  # (tournament, round) told that threads are refused
        self._telling: set[asyncio.Task[None]] = set()  # tables seated, their players being told

    def _locale(self, guild_id: int) -> object:
        guild = self.bot.get_guild(guild_id)
        return self.bot.service.public_locale(guild_id, guild.preferred_locale if guild is not None else None)

    async def open_room(
        self, tournament: Tournament, round_no: int, table_no: int, players: list[int]
    ) -> int:
        """A public thread of the tournament's channel for one table (its players are named in it once
        the table is dealt: :meth:`table_seated`)."""
        channel = self.bot.get_channel(tournament.channel_id) or await self.bot.fetch_channel(
            tournament.channel_id
        )
        if not isinstance(channel, discord.TextChannel):
            raise Refused("tournament.error.no_threads")
        locale = self._locale(tournament.guild_id)
        name = t(
            "tournament.room.name", locale, game=game_title(tournament.kind), round=round_no, number=table_no
        )
        try:
            thread = await channel.create_thread(
                name=name[:100],
                type=discord.ChannelType.public_thread,
                auto_archive_duration=1440,
            )
        except discord.HTTPException as error:
            log.warning(
                "tournament room not opened", extra={"tournament_id": tournament.id, "status": error.status}
            )
            await self._no_threads(tournament, round_no, locale)
            raise Refused("tournament.error.no_threads") from None
        return thread.id

    def table_seated(self, seated: SeatedTable) -> None:
        """Tell a table's players it is seated (in the background: see the module docstring)."""
        task = asyncio.create_task(self._tell_seated_safely(seated), name="tournament-seated")
        self._telling.add(task)
        task.add_done_callback(self._telling.discard)

    async def _tell_seated_safely(self, seated: SeatedTable) -> None:
        try:
            await self._tell_seated(seated)
        except Exception:
            if not self.bot.is_closed():  # a stop cut it short: nothing to report
                log.exception("tournament table's players not told", extra={"game_id": seated.game_id})

    async def _tell_seated(self, seated: SeatedTable) -> None:
        held = seated.tournament
        locale = self._locale(held.guild_id)
        mentions = " ".join(f"<@{p}>" for p in seated.players)
        try:
            await self.bot.get_partial_messageable(seated.room).send(
                welcome_text(seated.round_no, mentions, seated.first_turn_due_ms, locale),
                allowed_mentions=discord.AllowedMentions(users=True),
            )
        except discord.HTTPException as error:
            log.warning(
                "tournament table's players not named",
                extra={"game_id": seated.game_id, "status": error.status},
            )
        link = f"<#{seated.room}> ({message_link(held.guild_id, seated.room, None)})"
        for user_id, language in seated.letters:
            text = seated_letter(
                held, seated.round_no, seated.table_no, link, seated.first_turn_due_ms, language or locale
            )
            try:
                channel = await self.bot.create_dm(discord.Object(user_id))
                await channel.send(text, allowed_mentions=NO_MENTIONS)
            except discord.HTTPException as error:
                level = logging.INFO if error.code == CANNOT_SEND_TO_USER else logging.WARNING
                log.log(
                    level,
                    "tournament seat letter not delivered",
                    extra={"user_id": user_id, "game_id": seated.game_id, "code": error.code},
                )

    async def _no_threads(self, tournament: Tournament, round_no: int, locale: object) -> None:
        """Say once a round in the tournament's channel that its tables wait for threads (the organiser
        gives the permission, then ``/skybo tournament resume`` deals them)."""
        if (tournament.id, round_no) in self._told:
            return
        self._told.add((tournament.id, round_no))
        with contextlib.suppress(discord.HTTPException):
            await self.bot.get_partial_messageable(tournament.channel_id).send(
                t("tournament.no_threads", locale), allowed_mentions=NO_MENTIONS
            )

    def tournament_changed(self, tournament_id: int) -> None:
        running = self._drawing.get(tournament_id)
        if running is not None and not running.done():
            self._again.add(tournament_id)
            return
        self._drawing[tournament_id] = asyncio.create_task(self._draw(tournament_id), name="tournament-draw")

    async def settled(self) -> None:
        """Every redraw and every notice done (tests, a graceful stop)."""
        while any(not task.done() for task in [*self._drawing.values(), *self._telling]):
            await asyncio.gather(*self._drawing.values(), *self._telling, return_exceptions=True)

    async def _draw(self, tournament_id: int) -> None:
        while True:
            self._again.discard(tournament_id)
            if self.bot.is_closed():
                return  # drawn by the next process (its start redraws nothing: the next change does)
            try:
                await self.draw(tournament_id)
            except Exception:
                if self.bot.is_closed():
                    return
                log.exception("tournament messages not drawn", extra={"tournament_id": tournament_id})
            if tournament_id not in self._again:
                return

    async def draw(self, tournament_id: int) -> None:
        """Edit (or post) the tournament's messages as it stands."""
        service = self.bot.service
        view = await service.tournament_view(tournament_id)
        held = view.tournament
        locale = self._locale(held.guild_id)
        channel = self.bot.get_partial_messageable(held.channel_id)
        if held.signup_message_id is not None:
            await self._edit(channel, held.signup_message_id, signup_layout(view, locale))
        if held.status == SIGNUP:
            return
        files = []
        picture = None
        if held.format == pairing.KNOCKOUT:
            drawn = await asyncio.to_thread(bracket_picture, view, locale)
            files = [discord.File(io.BytesIO(drawn), filename=BRACKET_FILE)]
            picture = BRACKET_FILE
        standings = standings_layout(view, locale, picture=picture)
        if held.standings_message_id is None:
            message = await channel.send(view=standings, files=files, allowed_mentions=NO_MENTIONS)
            held = await service.set_tournament_messages(held, standings_message_id=message.id)
        else:
            await self._edit(channel, held.standings_message_id, standings, files)
        # The final is drawn from a view of the finished tournament only: ``held`` may be newer than
        # ``view`` (the standings' id was stored after a re-read, and the tournament may have finished
        # meanwhile); then the finish's own change draws again (``_again``) with the winner in view.
        # (Before, a final drawn from the older view said "Winner: nobody" while a winner was stored.)
        if held.status == FINISHED and held.final_message_id is None and view.tournament.status == FINISHED:
            message = await channel.send(view=final_layout(view, locale), allowed_mentions=NO_MENTIONS)
            await service.set_tournament_messages(held, final_message_id=message.id)

    async def _edit(
        self,
        channel: discord.PartialMessageable,
        message_id: int,
        view: LayoutPayload,
        files: list[discord.File] | None = None,
    ) -> None:
        """One message edited to ``view``; ``content=None`` clears the text of a message posted before
        the V2 look (Discord takes no content beside a V2 layout)."""
        extra: dict[str, Any] = {} if files is None else {"attachments": files}
        try:
            await channel.get_partial_message(message_id).edit(
                content=None, view=view, allowed_mentions=NO_MENTIONS, **extra
            )
        except discord.NotFound:
            log.info("tournament message gone", extra={"message_id": message_id})


async def click(bot: TournamentHost, interaction: discord.Interaction[Any], custom_id: str) -> None:
    """Join, Leave or Start on a sign-up message; answered privately, the message redrawn by the hall."""
    match = BUTTON_ID.fullmatch(custom_id)
    assert match is not None  # the router checked the pattern
    tournament_id, act = int(match["id"]), match["act"]
    service = bot.service
    user = interaction.user
    if act == "join":
        await service.tournament_join(tournament_id, user.id, getattr(user, "display_name", str(user)))
        key = "tournament.joined"
    elif act == "leave":
        await service.tournament_leave(tournament_id, user.id)
        key = "tournament.left"
    else:
        can_manage = may_organise(bot, interaction)
        await service.tournament_start(tournament_id, user.id, can_manage=can_manage)
        key = "tournament.started"
    await interaction.response.send_message(t(key, interaction.locale), ephemeral=True)


__all__ = [
    "BRACKET_FILE", "BUTTON_ID", "PREFIX", "Hall", "bracket_picture", "button_id", "click", "final_layout",
    "final_text", "layout", "may_organise", "private_layout", "private_standings", "signup_layout",
    "signup_text", "standings_layout", "standings_text",
]  # fmt: skip
