"""What the bot sends for a game table (every kind, see :mod:`bot.games.registry`): the button ids' acts, the
buttons as Discord's component payload (``ButtonsView``, built straight from the kinds' ButtonSpecs: a
view that skips discord.py's View machinery, see :class:`bot.discord_patches.ButtonsView`),
and the text and embeds of private panels, table messages and lobby messages.

Pure builders of payloads: no request is made here. The presenter (:mod:`bot.ui.presenter`) and the
click handlers (:mod:`bot.ui.clicks`) send them.
"""

from __future__ import annotations

import functools
from typing import Any

import discord

from bot.discord_patches import ButtonsView as ButtonsView  # the payload builders' view, given here
from bot.discord_patches import LayoutPayload as LayoutPayload
from bot.games.base import Game, seat_counts, seat_limit
from bot.games.places import places
from bot.games.registry import BY_KIND, whole
from bot.i18n import plural
from bot.i18n import translate as t
from bot.render import messages
from bot.render.names import escape_name, shown_name
from bot.service import DEFAULT_TURN_LIMIT, LONG_GAME, PanelState, Table
from bot.storage.lobbies import CHALLENGE, HELD_UNTIL, INVITED, THREAD, TURN_LIMIT, Lobby, engine_options
from bot.storage.settings import DEFAULTS, ServerSettings
from bot.ui import boards, display, history, ids
from bot.ui.card_emojis import CardEmojis

JOIN, LEAVE_LOBBY, ADD_COMPUTER, REMOVE_COMPUTER, START, CANCEL = "jn", "lv", "ai", "ar", "st", "cx"
# The host's private "start without them?" while a rematch holds seats (bot.service.SeatsHeld): Yes, No.
START_YES, START_NO = "sy", "sn"
# The host's set-up form (bot.ui.setup_form): its first page ("Set up…"), its second ("More options…").
SET_UP, MORE_OPTIONS = "su", "mo"
FORM_PAGES = {SET_UP: 0, MORE_OPTIONS: 1}
LOBBY_ACTS = {
    JOIN,
    LEAVE_LOBBY,
    ADD_COMPUTER,
    REMOVE_COMPUTER,
    START,
    CANCEL,
    START_YES,
    START_NO,
    *FORM_PAGES,
}
# Table-message acts, the same two letters in every kind's panel module.
OPEN_PANEL, RULES, LEAVE, NEXT_ROUND, REMATCH = "op", "ru", "lv", "nx", "rm"
# The buttons of a private "are you sure?" (Leave, /<game> end): game-level ids, version 0, so a
# confirmation answered after a restart still works; the acts clash with no panel or table act.
LEAVE_YES, END_YES, CONFIRM_NO = "ly", "ey", "no"
# "Take my seat back", offered privately to a player a computer replaced for missed turns (version 0).
RECLAIM = "rc"
# "Open the table": launches the Activity (bot.activity) in the channel; only while the bot serves it.
OPEN_ACTIVITY = "oa"
CONFIRMATIONS = {
    LEAVE_YES: ("table.confirm.leave", "table.confirm.yes_leave"),
    END_YES: ("table.confirm.end", "table.confirm.yes_end"),
}
TABLE_IMAGE = "skybo-table.png"
TABLE_VERSION = 0  # the version field of table-message buttons: they do not go stale
NO_CARD_EMOJIS = CardEmojis()
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


@functools.cache
def _emoji(emoji: str) -> dict[str, Any]:
    return dict(discord.PartialEmoji.from_str(emoji).to_dict())


def button(custom_id: str, label: str, style: str = "secondary", *, disabled: bool = False,
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


def panel_view(
    state: PanelState, locale: object, cards: str = display.CLASSIC, emojis: CardEmojis | None = None
) -> ButtonsView:
    """A private panel's buttons, in the cards' look ``cards`` of its reader (:func:`display.shaped`),
    each face-up card with its emoji in that look when the application has it (``emojis``, the bot's
    :class:`~bot.ui.card_emojis.CardEmojis`; none: the buttons as before card emojis)."""
    game = BY_KIND[state.kind]
    rows = game.panel.panel_rows(state.view, state.seat, state.game_id, state.version, state.mode, locale)
    emojis = emojis or NO_CARD_EMOJIS
    return ButtonsView(
        [
            [
                button(s.custom_id, s.label, s.style, disabled=s.disabled, emoji=s.emoji)
                for s in (emojis.dress(display.shaped(spec, cards), game.prefix, cards) for spec in line)
            ]
            for line in rows
        ]
    )


def panel_content(state: PanelState, locale: object, words: bool = False) -> str:
    """A private panel's text; with ``words`` (``/skybo display table:text``) the table in words under
    it (:mod:`bot.ui.display`)."""
    panel = BY_KIND[state.kind].panel
    lines = [panel.panel_title(state.view, locale)]
    if state.notice is not None:
        key, params = state.notice
        lines.append(t(key, locale, **params))
    lines.append(panel.panel_hint(state.view, state.seat, state.names, state.mode, locale))
    content = "\n".join(lines)
    return display.with_words(content, state.kind, state.view, state.names, locale) if words else content


def table_rows(table: Table, locale: object, *, activity: bool = False) -> list[list[dict[str, Any]]]:
    """The table message's buttons (none once stopped early). Their ids never change (version 0).
    ``activity``: the bot serves the Activity, so "Open the table" launches it, on a row of its own."""
    gid, prefix = table.id, whole(table.game).prefix

    def cid(act: str, arg: int = 0) -> str:
        # Version 0: these buttons mean the same whatever the state, so their ids never change and a
        # click racing a table edit is still on the message (Discord drops clicks whose id is gone).
        return ids.encode(prefix, gid, TABLE_VERSION, act, arg)

    if table.ended_by is not None:
        return []
    if table.finished:
        if table.stored.meta.get("tournament_id") is not None:
            return []  # a tournament's table: the tournament seats the next round (no Rematch)
        return [[button(cid(REMATCH), t("table.button.rematch", locale), "success")]]
    # The same row in every phase, in words: open my panel, Rules, Leave (one row on a 390-px phone in
    # both languages, tests/browser/test_sandbox_phone.py). Between two rounds Next round comes on a
    # row of its own above it: four buttons in words are wider than a phone's message (Discord draws a
    # button at least 60 px wide, 16 px either side of its words), and this way no button of the usual
    # row changes its look or its place with the phase.
    usual = [
        button(cid(OPEN_PANEL), t(whole(table.game).panel_button, locale), "primary"),
        button(cid(RULES), t("table.button.rules", locale)),
        button(cid(LEAVE), t("table.button.leave", locale), "danger"),
    ]
    rows = [usual]
    if table.state.phase == "round_over":
        # One id for the whole round (its number is the arg): a vote for a round already dealt is refused.
        vote = button(cid(NEXT_ROUND, table.state.round), t("table.button.next_round", locale), "success")
        rows = [[vote], usual]
    if activity:
        rows.append([button(cid(OPEN_ACTIVITY), t("activity.button.open", locale))])
    return rows


def seat_back_view(prefix: str, game_id: int, locale: object) -> ButtonsView:
    """The "Take my seat back" button offered to a player a computer replaced for missed turns."""
    custom_id = ids.encode(prefix, game_id, TABLE_VERSION, RECLAIM, 0)
    return ButtonsView([[button(custom_id, t("seats.button.take_back", locale), "success")]])


def spectator_view(table: Table) -> dict[str, Any]:
    """What everyone sees of the table: the spectator's view, and nobody to play once the game was
    stopped by hand (``/<game> end``: its picture and lines then mark no seat's turn)."""
    view: dict[str, Any] = table.state.view(None)
    return {**view, "turn": None} if table.ended_by is not None else view


def table_message(table: Table, locale: object, image_url: str | None = None) -> messages.MessageBody:
    waiting = table.round_waiting() if table.state.phase == "round_over" else []
    body: messages.MessageBody = whole(table.game).message.table_body(
        spectator_view(table),
        table.names(),
        locale=locale,
        recent=table.recent,
        replaced=table.replaced(),
        waiting_round=waiting,
        resumed=table.resumed,
        ended_by=table.ended_by,
        image_url=image_url,
    )
    if table.stored.status == "finished" and table.ended_by is None and body.embed is not None:
        # The id /history lists and a replay will take.
        body.embed["footer"] = {"text": t("sheet.game_id", locale, id=table.id)}
    if table.hinted and body.embed is not None:
        # Said on the table as soon as a hint is taken, and still on the final result.
        note = t("hints.unrated", locale)
        description = str(body.embed.get("description") or "")
        body.embed["description"] = f"{description[: 4095 - len(note)]}\n{note}" if description else note
        if body.head:
            body.head.append(note)
    return body


def deadline_line(table: Table, locale: object, key: str = "table.deadline") -> str:
    """The turn's deadline as a Discord timestamp (``<t:…:R>``: each reader's Discord counts it down
    by itself, no edit needed), from the table's stored timer (bot/service/timers.py); "" when no
    turn waits on a deadline. ``key``: the words around it (``table.deadline_short``: "⏳ in 2 minutes",
    on the compact table's one line after who plays)."""
    timer = table.timer()
    if not timer or timer.get("what") != "turn" or table.finished or table.ended_by is not None:
        return ""
    return t(key, locale, deadline=f"<t:{int(timer['due']) // 1000}:R>")


def table_frame(table: Table, locale: object, *, activity: bool = False) -> dict[str, Any]:
    """What the table message shows around its body, read with it (under the channel's lock): the
    buttons, the accent colour of the seat to play, the deadline. For :func:`table_layout`."""
    return {
        "rows": table_rows(table, locale, activity=activity),
        "accent": messages.seat_colour(table.turn_seat()),
        "header": [deadline_line(table, locale)],
        "brief": [deadline_line(table, locale, "table.deadline_short")],
        "recent_title": t("table.recent", locale),
    }


def table_layout(body: messages.MessageBody, frame: dict[str, Any], *, compact: bool) -> LayoutPayload:
    """The table message in Components V2: one container in the colour of the seat to play, the
    header (with the deadline), the picture, a line per player (``compact``: the picture is on the
    message and nobody at the table reads it in words; else the full text, the grids), the last
    moves, the buttons (:func:`bot.render.messages.layout_of`)."""
    rows = frame["rows"]
    options = {key: value for key, value in frame.items() if key != "rows"}
    return LayoutPayload(messages.layout_of(body, rows, compact=compact, **options))


def add_rating_changes(table: Table, body: messages.MessageBody, locale: object) -> None:
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


def invited_left(lobby: Lobby) -> list[dict[str, Any]]:
    """The people a Rematch invited (``bot.service.lobbies``) who have not taken a seat yet."""
    seated = {s.user_id for s in lobby.seats if s.user_id is not None}
    return [p for p in lobby.options.get(INVITED) or [] if p.get("user_id") not in seated]


def lobby_layout(lobby: Lobby, locale: object, settings: ServerSettings = DEFAULTS) -> LayoutPayload:
    """The lobby in Components V2: its text and its buttons in one container of the lobby's colour."""
    body = lobby_message(lobby, locale, settings)
    accent = (body.embed or {}).get("color")
    return LayoutPayload(messages.layout_of(body, lobby_rows(lobby, locale), accent=accent))


def closed_lobby_layout(locale: object, *, game: str, expired: bool) -> LayoutPayload:
    """A lobby that will not start, in the same look, without buttons."""
    body = messages.lobby_closed_body(locale, expired=expired, game=game)
    return LayoutPayload(messages.layout_of(body, accent=messages.COLOUR_OVER))


def lobby_rows(lobby: Lobby, locale: object) -> list[list[dict[str, Any]]]:
    """The lobby's buttons. Remove a computer only while a computer player sits (else it could only be
    refused); a rematch's Join reads "Join the rematch" while someone it invited has no seat yet (a
    challenge's reads Join: its line says whose seat is held). The second row is the host's: Set up…
    (and More options… when the form has two pages), Cancel."""
    rematch = invited_left(lobby) and not lobby.options.get(CHALLENGE)
    join = "table.button.join_rematch" if rematch else "table.button.join"
    buttons = [
        (JOIN, join, "success"),
        (LEAVE_LOBBY, "table.button.leave_lobby", "secondary"),
        (ADD_COMPUTER, "table.button.add_computer", "secondary"),
    ]
    if any(s.ai_level is not None for s in lobby.seats):
        buttons.append((REMOVE_COMPUTER, "table.button.remove_computer", "secondary"))
    buttons.append((START, "table.button.start", "primary"))
    # The host's: the set-up form, its second page when the game's options need one (bot.ui.setup_form).
    host = [(SET_UP, "table.button.set_up", "secondary")]
    if len(BY_KIND[lobby.kind].new.form) > 1:
        host.append((MORE_OPTIONS, "table.button.more_options", "secondary"))
    host.append((CANCEL, "table.button.cancel", "danger"))
    return [
        [button(f"sl:{lobby.id}:{act}", t(key, locale), style) for act, key, style in line]
        for line in (buttons, host)
    ]


def start_question_view(lobby_id: int, locale: object) -> ButtonsView:
    """The host's *Start now* or *No* before a Start that leaves held rematch seats empty (lobby ids:
    they work after a restart; a second Yes meets a started table and is refused with that reason)."""
    return ButtonsView(
        [
            [
                button(f"sl:{lobby_id}:{START_YES}", t("table.confirm.yes_start", locale), "primary"),
                button(f"sl:{lobby_id}:{START_NO}", t("table.confirm.no", locale)),
            ]
        ]
    )


def settings_lines(settings: ServerSettings, locale: object) -> list[str]:
    """A lobby's lines for the server's settings (``/skybo settings``) that are not the defaults; the
    turn limit has its own line on every lobby already."""
    lines = []
    if settings.channels is not None:
        channels = ", ".join(f"<#{c}>" for c in settings.channels)
        lines.append(t("settings.lobby.channels", locale, channels=channels))
    if settings.language is not None:
        lines.append(t("settings.lobby.language", locale))
    if not settings.rate_computers:
        lines.append(t("settings.lobby.computers_unrated", locale))
    return lines


def lobby_message(lobby: Lobby, locale: object, settings: ServerSettings = DEFAULTS) -> messages.MessageBody:
    game: Game = BY_KIND[lobby.kind]
    seats = [(s.name, s.user_id, s.ai_level) for s in lobby.seats]
    options = engine_options(lobby.options)
    limit = lobby.options.get(TURN_LIMIT, DEFAULT_TURN_LIMIT)
    lines = list(game.message.option_lines(options, locale))
    if limit >= LONG_GAME:  # hours, and what a long game does (bot.service.letters)
        hours = plural("long_games.hours", limit // 3600, locale)
        lines += [t("long_games.lobby.limit", locale, limit=hours), t("long_games.lobby.letters", locale)]
    else:
        lines.append(
            t("table.options.turn_limit", locale, seconds=limit)
            if limit
            else t("table.options.no_turn_limit", locale)
        )
    lines += settings_lines(settings, locale)
    if lobby.options.get(THREAD):  # a thread per game (bot.ui.threads): said before the start
        lines.append(t("threads.lobby", locale))
    invited = invited_left(lobby)
    if invited and lobby.options.get(CHALLENGE):  # a challenge (bot.ui.challenges): whose seat is held
        player = f"<@{invited[0].get('user_id')}>"  # pings only where the first post allows it
        lines += ["", t("challenge.lobby.held", locale, host=f"<@{lobby.host_id}>", player=player)]
    elif invited:  # a rematch: who it waits for (names, not mentions: a lobby pings nobody)
        names = ", ".join(escape_name(str(p.get("name") or "")) for p in invited)
        lines += ["", t("table.lobby.rematch_invited", locale, players=names)]
        held = lobby.options.get(HELD_UNTIL)  # their seats' hold, until the sweeper ends it
        if isinstance(held, int):
            at, until = f"<t:{held // 1000}:t>", f"<t:{held // 1000}:R>"
            lines.append(
                plural("table.lobby.rematch_held", len(invited), locale, players=names, at=at, until=until)
            )
    counts = seat_counts(game, options)
    return messages.lobby_body(
        host_id=lobby.host_id,
        seats=seats,
        lines=lines,
        locale=locale,
        game=game.title,
        min_players=game.min_players,
        max_players=seat_limit(game, options)[0],  # its options may seat fewer (an edition for fewer)
        # Only some counts (teams of two: 4 or 6): the lobby says them rather than a range.
        counts=counts if counts and counts != list(range(counts[0], counts[-1] + 1)) else None,
    )


def final_panel_content(table: Table, seat: int, locale: object, words: bool = False) -> str:
    """A panel's last words: how the game ended for this seat (and with ``words`` the final table in
    words, see :func:`panel_content`)."""
    title = t("table.panel.final_title", locale, game=table.game.title)
    if table.ended_by is not None:  # who stopped it, and how (/<game> end): the one way a person can
        said = t("table.panel.final_ended_by", locale, user=f"<@{table.ended_by}>", kind=table.game.name)
        return f"{title}\n{said}"
    if table.stored.status == "cancelled":  # its channel went away, or the bot could not go on with it
        return f"{title}\n{t('table.panel.final_cancelled', locale)}"
    results = table.state.results()
    names = table.names()
    winners: list[int] = results.get("winners") or []
    ranks = results.get("ranks") or []
    lines = [title]
    if not winners:  # a game nobody could finish (e.g. a stalled deck)
        lines.append(t("table.panel.final_draw", locale))
    else:
        players = ", ".join(shown_name(names[s], locale) for s in winners)
        lines.append(t("table.panel.final_winners", locale, players=players))
        if seat in winners:
            lines.append(t("table.panel.final_won", locale))
        elif seat < len(ranks):
            # Its side's place (a team's in a team game), by the one rule /history says it with.
            where = places(ranks, table.game.sides(table.stored.options, len(ranks)))[seat]
            lines.append(t("table.panel.final_place", locale, place=history.shown_place(where, locale)))
    if table.hinted:
        lines.append(t("hints.unrated", locale))
    lines.append(t("table.panel.final_see_table", locale))
    if words:
        return display.with_words("\n".join(lines), table.stored.kind, table.state.view(seat), names, locale)
    return "\n".join(lines)
