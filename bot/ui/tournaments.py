"""Tournaments on Discord (issue 41): the sign-up, standings and final messages, the Join / Leave /
Start buttons, and the hall the service asks for a table's room (a thread of the tournament's channel).

The messages are drawn again from the stored tournament whenever the service says it changed
(:meth:`Hall.tournament_changed`, coalesced: one redraw at a time per tournament, the last change
always drawn), in the server's language for public messages. They have the table's look: one
Components V2 container (:func:`layout`, by :func:`bot.render.messages.layout_of`), its first line the
heading, a knockout's bracket picture under it, the buttons inside, its accent colour saying the state
(sign-ups: the lobby's blue; on: green; paused: yellow; over: grey; the final: gold). The buttons keep
one custom_id for the tournament's life (``tn:<id>:join|leave|start``): nothing is kept in memory, so
they work after a restart.
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
from bot.games.registry import BY_KIND
from bot.i18n import translate as t
from bot.render import messages
from bot.render.bracket import BracketRound, BracketTable, draw_bracket
from bot.render.names import escape_name
from bot.service import Refused
from bot.service.tournaments import TournamentView
from bot.storage.tournaments import (
    BYE,
    CANCELLED,
    ENDED,
    FINISHED,
    PAUSED,
    PLAYING,
    RUNNING,
    SIGNUP,
    Tournament,
)
from bot.tournament import pairing
from bot.ui.host import Host
from bot.ui.views import button


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


def _game_title(kind: str) -> str:
    game = BY_KIND.get(kind)
    return game.title if game is not None else kind


def _head(held: Tournament, locale: object) -> str:
    return t(
        "tournament.head",
        locale,
        game=_game_title(held.kind),
        format=t(f"tournament.format.{held.format}", locale),
        seats=held.seats,
        rounds=held.rounds,
    )


MAX_CONTENT = 2000


def _fit(lines: list[str]) -> str:
    """The lines within a message's 2,000 characters: the last that do not fit become "…" (a big
    tournament's standings show their top; the final's games are found with /history too)."""
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > MAX_CONTENT - 2:
            kept.append("…")
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join(kept)


def signup_text(view: TournamentView, locale: object) -> str:
    """The sign-up message: the tournament, its options, its start, who signed up."""
    held = view.tournament
    lines = [
        _head(held, locale),
        t("tournament.signup.organiser", locale, organiser=f"<@{held.organiser_id}>"),
    ]
    options = [t("tournament.option.rated" if held.rated else "tournament.option.unrated", locale)]
    if held.computers:
        options.append(t("tournament.option.computers", locale))
    if held.turn_limit is not None:
        options.append(
            t(
                "tournament.option.turn_limit",
                locale,
                limit=t(f"cmd.turn_limit.{held.turn_limit or 'off'}", locale),
            )
        )
    lines.append(" · ".join(options))
    if held.status == SIGNUP:
        if held.starts_at is not None:
            lines.append(t("tournament.signup.starts_at", locale, when=f"<t:{held.starts_at // 1000}:R>"))
        else:
            lines.append(t("tournament.signup.starts_by_hand", locale))
    else:
        lines.append(t(f"tournament.signup.closed.{held.status}", locale))
    names = [escape_name(p.name) for p in view.players if not p.dropped]
    most = pairing.capacity(held.format, held.seats, held.rounds)
    lines.append(
        t(
            "tournament.signup.players",
            locale,
            count=len(names),
            max=most,
            names=", ".join(names) or t("tournament.signup.nobody", locale),
        )
    )
    text = "\n".join(lines)
    return text if len(text) <= MAX_CONTENT else text[: MAX_CONTENT - 1] + "…"


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
    held = view.tournament
    return layout(standings_text(view, locale), accent=ACCENTS.get(held.status), picture=picture)


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


def standings_text(view: TournamentView, locale: object) -> str:
    """The standings: the round, every player's points, the round's tables and where they play."""
    held = view.tournament
    names = view.names()
    lines = [
        _head(held, locale),
        t("tournament.standings.round", locale, round=held.round, rounds=held.rounds),
    ]
    if held.status == PAUSED:
        lines.append(t("tournament.standings.paused", locale))
    dropped = {p.user_id for p in view.players if p.dropped}
    left = set(view.still_in)
    for line in view.standings:
        text = t(
            "tournament.standings.line",
            locale,
            rank=line.rank,
            name=escape_name(names.get(line.player, "?")),
            points=line.points,
            opponents=line.opponents_points,
        )
        if line.player in dropped:
            text += " " + t("tournament.standings.dropped", locale)
        elif held.format == pairing.KNOCKOUT and line.player not in left:
            text += " " + t("tournament.standings.out", locale)
        lines.append(text)
    if held.status not in (FINISHED, CANCELLED):
        for row in view.round_tables(held.round):
            players = ", ".join(escape_name(names.get(p, "?")) for p in row.players)
            if row.status == BYE:
                lines.append(t("tournament.standings.bye", locale, name=players))
            elif row.status == ENDED:
                lines.append(
                    t("tournament.standings.table_over", locale, number=row.table_no, players=players)
                )
            else:
                where = (
                    f"<#{row.channel_id}>"
                    if row.status == PLAYING
                    else t("tournament.standings.dealing", locale)
                )
                lines.append(
                    t("tournament.standings.table", locale, number=row.table_no, players=players, where=where)
                )
    return _fit(lines)


def final_text(view: TournamentView, locale: object) -> str:
    """The final message: the winner, and each table's game to replay (``/<game> replay game:<id>``)."""
    held = view.tournament
    names = view.names()
    winner = (
        escape_name(names[held.winner_id])
        if held.winner_id in names
        else t("tournament.final.nobody", locale)
    )
    lines = [t("tournament.final.title", locale, game=_game_title(held.kind), winner=winner)]
    lines.append(t("tournament.final.replays", locale, command=f"/{held.kind} replay"))
    for row in view.tables:
        if row.game_id is not None:
            players = ", ".join(escape_name(names.get(p, "?")) for p in row.players)
            lines.append(
                t(
                    "tournament.final.table",
                    locale,
                    round=row.round,
                    number=row.table_no,
                    players=players,
                    game=row.game_id,
                )
            )
    return _fit(lines)


BRACKET_FILE = "bracket.png"


def bracket_picture(view: TournamentView, locale: object) -> bytes:
    """A knockout's bracket: every round's tables (those not seated yet as empty boxes), who went on."""
    held = view.tournament
    names = view.names()
    stages = []
    for number in range(1, held.rounds + 1):
        rows = view.round_tables(number)
        following = {p for row in view.round_tables(number + 1) for p in row.players}
        if number == held.rounds and held.winner_id is not None:
            following = {held.winner_id}
        if rows:
            tables = []
            for row in rows:
                ended = row.status in (ENDED, BYE) and bool(following)
                winner = (
                    next((i for i, p in enumerate(row.players) if p in following), None) if ended else None
                )
                tables.append(BracketTable([names.get(p, "?") for p in row.players], winner))
        else:
            tables = [BracketTable(["…"]) for _ in range(held.seats ** (held.rounds - number))]
        key = "tournament.bracket.final" if number == held.rounds else "tournament.bracket.round"
        stages.append(BracketRound(t(key, locale, round=number), tables))
    return draw_bracket(t("tournament.bracket.title", locale, game=_game_title(held.kind)), stages)


class Hall:
    """The service's :class:`~bot.service.tournaments.TournamentHall` on Discord."""

    def __init__(self, bot: TournamentHost) -> None:
        self.bot = bot
        self._drawing: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self._told: set[tuple[int, int]] = set()  # (tournament, round) told that threads are refused

    def _locale(self, guild_id: int) -> object:
        guild = self.bot.get_guild(guild_id)
        return self.bot.service.public_locale(guild_id, guild.preferred_locale if guild is not None else None)

    async def open_room(
        self, tournament: Tournament, round_no: int, table_no: int, players: list[int]
    ) -> int:
        """A public thread of the tournament's channel for one table; its players are mentioned in it
        (which adds them to the thread)."""
        channel = self.bot.get_channel(tournament.channel_id) or await self.bot.fetch_channel(
            tournament.channel_id
        )
        if not isinstance(channel, discord.TextChannel):
            raise Refused("tournament.error.no_threads")
        locale = self._locale(tournament.guild_id)
        name = t(
            "tournament.room.name", locale, game=_game_title(tournament.kind), round=round_no, number=table_no
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
        mentions = " ".join(f"<@{p}>" for p in players)
        text = t("tournament.room.welcome", locale, mentions=mentions, round=round_no)
        await thread.send(text, allowed_mentions=discord.AllowedMentions(users=True))
        return thread.id

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
        """Every redraw done (tests, a graceful stop)."""
        while any(not task.done() for task in self._drawing.values()):
            await asyncio.gather(*self._drawing.values(), return_exceptions=True)

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
        if held.status == FINISHED and held.final_message_id is None:
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
    "BUTTON_ID", "PREFIX", "Hall", "button_id", "click", "final_layout", "final_text", "layout",
    "may_organise", "signup_layout", "signup_text", "standings_layout", "standings_text",
]  # fmt: skip
