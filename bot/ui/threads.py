"""A thread per game (issue 40 item 3; docs/discord.md, "Threads"): start the thread a game is played
in, say in the channel when the bot may not, and at the end post the result back in the channel and
archive the thread.

The service knows a thread only as a channel id: a game dealt in a thread has the thread's id as its
``channel_id`` (its table, mentions, reminders, votes, panels and links all go there with no other
change) and its lobby's channel in its meta (:data:`THREAD_PARENT`). A restart in the middle of a game
needs nothing more.

For whoever seats a game in a thread without a lobby (tournaments): :func:`open_thread` starts one in a
channel (from a message, or without one) and answers its id, or None when Discord refuses; deal the game
with that id as its channel and ``{THREAD_PARENT: channel_id}`` in its meta, and the presenter posts its
result in the channel and archives the thread when it ends (:func:`close_thread`), once: the post is
stored with the game (:data:`RESULT_POSTED`), and a start posts those a stop skipped
(bot.service.resume).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Final, Literal

import discord

from bot.discord_patches import LayoutPayload
from bot.games.registry import BY_KIND
from bot.i18n import translate as t
from bot.render import messages
from bot.service import Table
from bot.service.lobbies import RoomChooser
from bot.service.types import RESULT_POSTED, THREAD_PARENT
from bot.storage.lobbies import Lobby
from bot.ui.host import Host

log = logging.getLogger(__name__)

NAME_LIMIT = 100  # Discord's most characters in a thread's name
# Minutes without a message before Discord archives a thread by itself (one of 60, 1440, 4320, 10080):
# a week: a long game (turns up to 24 hours) never leaves its thread silent that long, and an archived
# thread refuses the edits of its table message (50083).
AUTO_ARCHIVE_MINUTES: Final[Literal[10080]] = 10080
PUBLIC_THREAD: Final[Literal[11]] = 11
THREAD_EXISTS = 160004  # Discord's "A thread has already been created for this message"
ARCHIVED = 50083  # Discord's "Operation cannot be performed on an archived thread" (an edit there)
NO_MENTIONS = discord.AllowedMentions.none()


def thread_name(game: str, names: Sequence[str]) -> str:
    """The name of a game's thread: the game, then its players ("<game> — Alice, Bob"), cut to Discord's
    100 characters (with an ellipsis) for a long table."""
    name = f"{game} — {', '.join(str(n) for n in names)}"
    return name if len(name) <= NAME_LIMIT else name[: NAME_LIMIT - 1].rstrip(", ") + "…"


def may_open_threads(permissions: discord.Permissions) -> bool:
    """What the bot needs to play a game in a thread of the channel: start a public thread, post in it."""
    return permissions.create_public_threads and permissions.send_messages_in_threads


async def open_thread(bot: Host, *, channel_id: int, name: str, message_id: int | None = None) -> int | None:
    """Start a public thread in ``channel_id``, from ``message_id`` (the thread then shares its id) or
    without a message; its id, or None when Discord refuses it (missing permissions, a channel where
    threads cannot be started): the caller plays in the channel and says so (:func:`tell_no_thread`)."""
    try:
        if message_id is not None:
            data: Any = await bot.http.start_thread_with_message(
                channel_id, message_id, name=name, auto_archive_duration=AUTO_ARCHIVE_MINUTES
            )
        else:
            data = await bot.http.start_thread_without_message(
                channel_id, name=name, auto_archive_duration=AUTO_ARCHIVE_MINUTES, type=PUBLIC_THREAD
            )
    except (discord.Forbidden, discord.NotFound) as error:
        log.info(
            "thread refused", extra={"channel_id": channel_id, "status": error.status, "code": error.code}
        )
        return None
    except discord.HTTPException as error:  # a 400 (e.g. 50024: no threads in this kind of channel)
        if error.code == THREAD_EXISTS and message_id is not None:
            return message_id  # started by an earlier try of this Start (its deal not stored): that one
        log.warning(
            "thread refused", extra={"channel_id": channel_id, "status": error.status, "code": error.code}
        )
        return None
    return int(data["id"])


async def tell_no_thread(bot: Host, guild_id: int | None, channel_id: int, locale: object) -> None:
    """The one line in the channel when a game that wanted a thread is played in the channel."""
    channel = bot.get_partial_messageable(channel_id, guild_id=guild_id)
    try:
        await channel.send(t("threads.no_permission", locale), allowed_mentions=NO_MENTIONS)
    except discord.HTTPException as error:
        log.warning("thread fallback line failed", extra={"channel_id": channel_id, "status": error.status})


def room_for(bot: Host, interaction: discord.Interaction[Any]) -> RoomChooser:
    """Where the Start click of a lobby with the ``thread`` option deals its game: a thread started
    from the lobby message, named after the game and its players, when the bot may (the click's
    ``app_permissions``); else the channel, with one line saying why. A lobby in a thread plays there
    (no thread in a thread), without a word."""

    async def where(lobby: Lobby) -> int | None:
        if isinstance(interaction.channel, discord.Thread):
            return None  # a lobby opened in a thread (a rematch, someone's own thread): played there
        locale = bot.service.public_locale(lobby.guild_id, interaction.guild_locale)
        thread_id = None
        if may_open_threads(interaction.app_permissions) and lobby.message_id is not None:
            name = thread_name(BY_KIND[lobby.kind].title, [s.name for s in lobby.seats])
            thread_id = await open_thread(
                bot, channel_id=lobby.channel_id, name=name, message_id=lobby.message_id
            )
        if thread_id is None:
            await tell_no_thread(bot, lobby.guild_id, lobby.channel_id, locale)
        return thread_id

    return where


def parent_of(table: Table) -> int | None:
    """The channel of a game played in a thread (where its lobby was), or None."""
    parent = table.stored.meta.get(THREAD_PARENT)
    return parent if isinstance(parent, int) else None


def lobby_moved_text(table: Table, locale: object) -> str:
    """What the lobby message says once its game is dealt in a thread."""
    return t("threads.moved", locale, game=table.game.title, thread=f"<#{table.channel_id}>")


def in_a_container(text: str, accent: int) -> LayoutPayload:
    """``text`` in the look of the table itself (issue 40): one Components V2 container of ``accent``."""
    return LayoutPayload(messages.layout_of(messages.MessageBody(embed={"description": text}), accent=accent))


def result_text(table: Table, locale: object) -> str:
    """The short message posted back in the channel at the end: the standings (or who ended the
    game), the game's id for ``/history`` and ``/<game> replay``, and the thread."""
    stored = table.stored
    where = {
        "game": table.game.title,
        "thread": f"<#{stored.channel_id}>",
        "id": stored.id,
        "kind": stored.kind,
    }
    if table.ended_by is not None:
        return t("threads.result.ended", locale, user=f"<@{table.ended_by}>", **where)
    names = table.names(locale)
    try:
        results = table.state.results()
    except Exception:  # not over by the rules (cancelled some other way): no standings to show
        results = {}
    ranks, totals = results.get("ranks"), results.get("totals")
    lines = []
    if isinstance(ranks, list) and len(ranks) == len(names):
        for seat in sorted(range(len(names)), key=lambda s: (ranks[s], s)):
            total = totals[seat] if isinstance(totals, list) and len(totals) == len(names) else None
            key = "threads.result.line" if total is not None else "threads.result.line_no_score"
            lines.append(t(key, locale, rank=ranks[seat], name=names[seat], points=total))
    return "\n".join(
        [t("threads.result.title", locale, **where), *lines, t("threads.result.find", locale, **where)]
    )


def result_posted(table: Table) -> bool:
    """True once the result of this game's thread was posted (or tried) in its channel: stored with
    the game (:data:`RESULT_POSTED`), so no start posts it again (bot.service.resume)."""
    return table.stored.meta.get(RESULT_POSTED) is not None


async def close_thread(bot: Host, table: Table, locale: object) -> None:
    """The end of a game played in a thread: its result in the channel, that fact stored with the
    game (:data:`RESULT_POSTED`: a start posts the results a stop skipped, never one twice), then the
    thread archived (not locked: that needs Manage Threads, and talking on after the game does no harm;
    a message there unarchives it). The post and the archive are tried once: a refusal (the channel or
    thread deleted meanwhile, a permission gone) is logged, never retried. The fact is stored as soon as
    the database answers (``TableService.keep_result_posted``). A result owed at start
    (``table.result_owed``) is looked for in the channel first (:func:`found_posted`): the last process
    may have posted it without storing the fact (stopped while the database was away, or during the
    post's own request), and it is not posted twice."""
    parent = parent_of(table)
    if parent is None:
        return
    stored = table.stored
    channel = bot.get_partial_messageable(parent, guild_id=stored.guild_id)
    if table.result_owed and await found_posted(bot, parent, table):
        log.info("thread result found in the channel: not posted again", extra={"game_id": stored.id})
    else:
        try:
            await channel.send(view=in_a_container(result_text(table, locale), messages.COLOUR_OVER),
                               allowed_mentions=NO_MENTIONS)  # fmt: skip
        except discord.HTTPException as error:
            log.warning("thread result not posted", extra={"game_id": stored.id, "status": error.status})
    await bot.service.keep_result_posted(table)
    try:
        await bot.http.edit_channel(stored.channel_id, archived=True)
    except discord.HTTPException as error:
        log.warning("thread not archived", extra={"game_id": stored.id, "status": error.status})


# How many of the channel's last messages a start reads for a result owed (Discord's most per request).
RESULT_LOOKBACK = 100


def _texts(payload: Any) -> list[str]:
    """Every text of a message payload: its content and its components' (Components V2 text displays)."""
    if isinstance(payload, dict):
        own = [payload["content"]] if isinstance(payload.get("content"), str) else []
        return own + [text for value in payload.get("components") or [] for text in _texts(value)]
    return []


async def found_posted(bot: Host, parent: int, table: Table) -> bool:
    """True if the channel's last :data:`RESULT_LOOKBACK` messages hold a bot's result of this game
    (it starts with 🏁 and links the game's thread, which no other result links). A read Discord
    refuses (no Read Message History: Discord then answers no message) finds nothing: the result is
    posted, twice at worst, as before."""
    try:
        recent: Any = await bot.http.logs_from(parent, RESULT_LOOKBACK)
    except discord.HTTPException as error:
        log.warning(
            "channel not read for a thread result", extra={"game_id": table.id, "status": error.status}
        )
        return False
    link = f"<#{table.channel_id}>"
    for message in recent if isinstance(recent, list) else []:
        text = "\n".join(_texts(message)).lstrip()
        if (message.get("author") or {}).get("bot") and text.startswith("🏁") and link in text:
            return True
    return False


async def unarchive(bot: Host, thread_id: int) -> None:
    """Unarchive a game's thread that Discord (a week without a message) or a moderator archived while
    it was played: its table message can then be edited again. A locked thread stays so (Discord asks
    Manage Threads): the refusal is logged, the table's edits keep failing as in a channel the bot lost."""
    try:
        await bot.http.edit_channel(thread_id, archived=False)
    except discord.HTTPException as error:
        log.warning("thread not unarchived", extra={"channel_id": thread_id, "status": error.status})
