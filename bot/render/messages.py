"""The public lobby and table messages as plain data, every word localized.

Nothing here imports discord. A game's table module and the lobby build a :class:`MessageBody` (its
``embed`` a dict in Discord's embed shape, its ``players`` and ``recent`` lines beside it), and
:func:`layout_of` turns it into Discord's **Components V2** layout (issue 40): one container with an
accent colour, text displays, the picture in a media gallery, the buttons inside; the UI layer sends
that list as it is (:class:`bot.discord_patches.LayoutPayload`). Only views and events are read, and
they carry nothing hidden. Each game's table module (``bot/games/<game>/message.py``) builds its table
message from these parts. Seat names go in as written (escaped, never markup), a computer
player's said in the message's language (:mod:`bot.render.names`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.i18n import translate as t
from bot.render.names import computer_name, escape_name, shown_name
from bot.render.seats import SEAT_COLOURS as _SEATS

JSON = dict[str, Any]
COLOUR_LOBBY = 0x5865F2
COLOUR_PLAYING = 0x2ECC71
COLOUR_PAUSE = 0xF1C40F
COLOUR_OVER = 0x95A5A6
MAX_FIELD = 1024
MAX_DESCRIPTION = 4096


@dataclass
class MessageBody:
    """A message's parts: ``embed`` (title, description, fields, image, footer, colour) holds the whole
    text; a table adds ``players`` (one compact line per player, said instead of the per-player fields
    when the picture shows the grids) and ``recent`` (the last moves, at most :data:`RECENT_MOVES`).

    The compact table (beside its picture, issue 40: a 4-player table fits a phone's screen) also
    reads ``head``: who plays in a few words, said in place of the description (the piles are in the
    picture, what to do in the panel; empty: the description stays, e.g. a round's summary),
    ``moves``: the last moves in fewer words, and ``legend``: what the players' lines' short marks
    mean, in small print under them ("stock **7** (5) · ✋3": which number is which)."""

    content: str = ""
    embed: JSON | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    players: list[str] = field(default_factory=list)
    recent: list[str] = field(default_factory=list)
    head: list[str] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    legend: str = ""


# ---------------------------------------------------------------------- Components V2 (issue 40)
# Discord's component types, and its limits on a message with the IS_COMPONENTS_V2 flag
# (discord.com/developers/docs/components/reference): at most 40 components in all (nested ones
# count), at most 4,000 characters of text displays together, no ``content`` or embeds beside them.
ACTION_ROW, TEXT_DISPLAY, MEDIA_GALLERY, SEPARATOR, CONTAINER = 1, 10, 12, 14, 17
MAX_LAYOUT_COMPONENTS = 40
MAX_LAYOUT_TEXT = 4000
RECENT_MOVES = 3  # the last moves a table says (the picture and the players' lines say the rest)
# The seat colours (:mod:`bot.render.seats`, the pictures' too): the container's accent is the colour
# of the seat whose turn it is (seat 0 first).
SEAT_COLOURS = tuple(colour.value for colour in _SEATS)


def seat_colour(seat: int | None) -> int | None:
    """The accent colour of ``seat``'s turn (None: nobody's turn, the container stays grey)."""
    return None if seat is None else SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def text_display(content: str) -> JSON:
    return {"type": TEXT_DISPLAY, "content": content}


def media_gallery(url: str) -> JSON:
    """One picture, e.g. ``attachment://table.png``: the file must be uploaded with the message."""
    return {"type": MEDIA_GALLERY, "items": [{"media": {"url": url}}]}


def separator(*, divider: bool = True) -> JSON:
    return {"type": SEPARATOR, "divider": divider, "spacing": 1}


def container(children: Sequence[JSON], accent: int | None = None) -> JSON:
    payload: JSON = {"type": CONTAINER, "components": list(children)}
    if accent is not None:
        payload["accent_color"] = accent
    return payload


def walk(components: Iterable[JSON]) -> Iterable[JSON]:
    """Every component of a layout, nested ones too (what Discord counts against its 40)."""
    for comp in components:
        yield comp
        yield from walk(comp.get("components") or [])
        if isinstance(comp.get("accessory"), dict):
            yield comp["accessory"]


def layout_text_size(layout: Iterable[JSON]) -> int:
    """The characters of every text display of a layout (Discord's 4,000)."""
    return sum(len(c.get("content") or "") for c in walk(layout) if c.get("type") == TEXT_DISPLAY)


def _field_text(fld: Mapping[str, Any]) -> str:
    return f"**{fld.get('name') or ''}**\n{fld.get('value') or ''}"


def layout_of(
    body: MessageBody,
    rows: Sequence[Sequence[JSON]] = (),
    *,
    accent: int | None = None,
    compact: bool = False,
    header: Sequence[str] = (),
    brief: Sequence[str] = (),
    recent_title: str = "",
) -> list[JSON]:
    """``body`` as one Components V2 container: the title (a heading), ``header`` lines and the
    description; the embed's picture in a media gallery; the fields (or, ``compact`` and the body has
    them, the players' lines in place of the inline per-player fields: the picture shows the grids);
    the last moves under ``recent_title``; the footer in small print; then the buttons ``rows``.

    ``compact`` with a body's ``head``: under the heading ONE line, the head's first line and the
    ``brief`` words (the deadline) joined by " · ", then the head's other lines, in place of ``header``
    and the description; the last moves (``moves``) in small print (``-# ``), one line each, no title.

    Within Discord's 4,000 characters of text: the earliest wide fields (the score sheet's first
    rounds) go first, then the longest text is cut. A handful of components, whatever the players."""
    embed = dict(body.embed or {})
    head = [f"## {embed['title']}"] if embed.get("title") else []
    short = compact and bool(body.head)
    if short:
        first, *rest = body.head
        head += [" · ".join([first, *(word for word in brief if word)]), *rest]
    else:
        head += [line for line in header if line]
        if embed.get("description"):
            head.append(str(embed["description"]))
    fields = list(embed.get("fields") or [])
    if compact and body.players:
        fields = [f for f in fields if not f.get("inline")]
    blocks: list[tuple[str, str]] = [("head", "\n".join(head))]  # (kind, text) in order
    if compact and body.players:
        legend = [f"-# {body.legend}"] if body.legend else []
        blocks.append(("players", "\n".join([*body.players, *legend])))
    blocks += [("inline" if f.get("inline") else "wide", _field_text(f)) for f in fields]
    if short and (body.moves or body.recent):
        blocks.append(("recent", "\n".join(f"-# • {m}" for m in body.moves or body.recent)))
    elif body.recent:
        blocks.append(("recent", "\n".join([recent_title, *(f"• {m}" for m in body.recent)]).strip()))
    footer = str((embed.get("footer") or {}).get("text") or "")
    if footer:
        blocks.append(("footer", f"-# {footer}"))
    blocks = [(kind, text) for kind, text in blocks if text]
    size = sum(len(text) for _, text in blocks)
    wide = [i for i, (kind, _) in enumerate(blocks) if kind == "wide"]
    for i in wide[:-1]:  # the score sheet's earliest rounds; the last wide field stays
        if size <= MAX_LAYOUT_TEXT:
            break
        size -= len(blocks[i][1])
        blocks[i] = ("dropped", "")
    blocks = [(kind, text) for kind, text in blocks if text]
    while size > MAX_LAYOUT_TEXT:  # still too long: cut the longest
        i = max(range(len(blocks)), key=lambda j: len(blocks[j][1]))
        kind, text = blocks[i]
        blocks[i] = (kind, _clip(text, max(1, len(text) - (size - MAX_LAYOUT_TEXT))))
        size = sum(len(text) for _, text in blocks)
    children: list[JSON] = []
    for kind, text in blocks:
        if kind == "footer":
            children.append(separator())
        children.append(text_display(text))
        if kind == "head" and (embed.get("image") or {}).get("url"):
            children.append(media_gallery(str(embed["image"]["url"])))
    children += [{"type": ACTION_ROW, "components": list(row)} for row in rows if row]
    return [container(children, accent)]


NBSP = "\u00a0"
# Where a line of an inline field may break (Discord gives it a third of the embed, often less than
# a line): after a comma, a colon (French " :" too), and round " · " and " — ". Nothing else.
_BREAKS_AT = re.compile(r"(, |: | · | — )")


def phrased(line: str) -> str:
    """``line`` with the spaces inside each phrase made non-breaking, so that a narrow inline field of
    the table embed wraps only between phrases ("Stock: top card 4," / "8 left", never "8" / "left";
    "Ordi 1" / "— 47 points", never "Ordi" / "1"): see :data:`_BREAKS_AT`.
    A phrase longer than the field is still broken by Discord, as any word would be."""
    parts = _BREAKS_AT.split(line)
    return "".join(part if i % 2 else part.replace(" ", NBSP) for i, part in enumerate(parts))


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def lobby_body(
    *,
    host_id: int,
    seats: Sequence[tuple[str, int | None, str | None]],
    locale: object,
    lines: Sequence[str] = (),
    game: str,
    min_players: int = 2,
    max_players: int = 8,
    counts: Sequence[int] | None = None,
) -> MessageBody:
    """The lobby: who sits, the settings, what to click. ``seats`` are (name, user id, computer level).

    Any game's lobby: ``lines`` are its settings in words (its table module's ``option_lines``).
    ``counts``: the only numbers of players its options allow when they are not the range
    ``min_players`` to ``max_players`` (teams: 4 or 6), said instead of the range up front,
    so that Start's refusal of another count is no surprise.
    """
    players = []
    computers = 0
    for i, (name, user_id, level) in enumerate(seats, start=1):
        if level is not None:
            computers += 1  # the n-th computer of the table, its name said in this message's language
            said = computer_name(computers, level, locale)
            level_said = t(f"table.ai.level.{level}", locale)  # its own word after the name, as in pictures
            players.append(t("table.lobby.seat_computer", locale, number=i, name=said, level=level_said))
        elif user_id == host_id:
            players.append(t("table.lobby.seat_host", locale, number=i, name=escape_name(name)))
        else:
            players.append(t("table.lobby.seat", locale, number=i, name=escape_name(name)))
    description = "\n".join(
        [
            t("table.lobby.intro", locale, host=f"<@{host_id}>", game=game),
            "",
            *players,
            "",
            *lines,
            "",
            t("table.lobby.how", locale, min=min_players, max=max_players)
            if not counts
            else t("table.lobby.how_counts", locale, counts=counts_or(counts, locale)),
            t("table.lobby.help", locale, help=f"`/{t('cmd.help.name', locale)}`"),  # cogs/help.py
        ]
    )
    embed = {
        "title": t("table.lobby.title", locale, game=game),
        "description": _clip(description, MAX_DESCRIPTION),
        "color": COLOUR_LOBBY,
    }
    return MessageBody(embed=embed)


def shown_seat_names(names: Sequence[str], replaced: Iterable[int], locale: object) -> list[str]:
    """The names as the table message shows them: escaped, a computer's in ``locale``, and a seat a
    computer player took over marked as such."""
    replaced = set(replaced)
    return [
        t("table.name_computer", locale, name=shown_name(name, locale))
        if seat in replaced
        else shown_name(name, locale)
        for seat, name in enumerate(names)
    ]


def counts_or(counts: Sequence[int], locale: object) -> str:
    """``4 or 6``, ``2, 4 or 6``: numbers of players, in words of ``locale``."""
    return or_list([str(c) for c in counts], locale)


def or_list(items: Sequence[str], locale: object) -> str:
    """``a``, ``a or b``, ``a, b or c`` in words of ``locale`` (``a, b ou c``): the games' commands of
    /help and of a refusal, listed from the registry, or numbers of players."""
    if len(items) <= 1:
        return "".join(items)
    return t("table.lobby.counts_or", locale, first=", ".join(items[:-1]), last=items[-1])


def lobby_closed_body(locale: object, *, game: str, expired: bool = False) -> MessageBody:
    """A lobby that will not start: its title says so too (not "a table is open" above "cancelled")."""
    reason = t("table.lobby.expired" if expired else "table.lobby.cancelled", locale)
    title = t("table.lobby.title_expired" if expired else "table.lobby.title_cancelled", locale, game=game)
    return MessageBody(embed={"title": title, "description": reason})


# The table's own events, not the engine's.
SERVICE_EVENTS = frozenset({"seat_replaced", "turn_timed_out", "seat_back"})
# Why a computer took a seat (bot.service.seats): a kick is the host's doing, never "left".
SEAT_REPLACED = {
    "left": "table.event.seat_replaced",
    "kicked": "table.event.seat_kicked",
    "idle": "table.event.seat_idle",
}


def service_event_lines(seat: int, events: Iterable[JSON], names: Sequence[str], locale: object) -> list[str]:
    """The table's own events (a seat taken over, a turn played by the timer), in any game."""
    lines = []
    for event in events:
        if event["type"] == "seat_replaced":  # left, kicked by the host, or idle: each said as it is
            key = SEAT_REPLACED.get(str(event.get("reason")), "table.event.seat_replaced")
            lines.append(t(key, locale, player=names[seat]))
        elif event["type"] == "turn_timed_out":
            lines.append(t("table.event.timed_out", locale, player=names[seat]))
        elif event["type"] == "seat_back":  # a human took their seat back from the computer
            lines.append(t("seats.event.back", locale, player=names[seat]))
    return lines


Describe = Callable[[Sequence[JSON], Sequence[str], object], list[str]]


def recent_lines(
    recent: Iterable[tuple[int, list[JSON]]],
    names: Sequence[str],
    locale: object,
    describe: Describe,
    limit: int = 5,
) -> list[str]:
    """The last moves, one line per move. ``recent`` holds one entry per committed action, and a turn
    can take two (draw, then place): the actions a seat makes in a row are told together, so
    "Bob drew a 10" and "Bob drew a 10 and replaced their 11" become the second line alone. The table's
    own events for that seat (a timer, a takeover) come first, and the last seat's are never cut: a
    turn the computer played for a player who ran out of time says so above its last moves, however
    many cards it played (a turn of several plays is several lines)."""
    lines: list[str] = []
    run_seat: int | None = None
    told: list[str] = []
    events: list[JSON] = []
    last_told: list[str] = []  # the last run's own events
    last_moves: list[str] = []  # and its moves

    def flush() -> None:
        nonlocal last_told, last_moves
        moves = describe(events, names, locale)
        if told or moves:
            last_told, last_moves = list(told), moves
        lines.extend(told)
        lines.extend(moves)
        told.clear()
        events.clear()

    for seat, group in recent:
        if seat != run_seat:
            flush()
            run_seat = seat
        told.extend(service_event_lines(seat, group, names, locale))
        events.extend(e for e in group if e["type"] not in SERVICE_EVENTS)
    flush()
    shown = lines[-limit:]
    if last_told and len(last_told) < limit and not set(last_told) <= set(shown):
        shown = [*last_told, *last_moves[len(last_told) - limit :]]
    return shown


def embed_size(embed: Mapping[str, Any]) -> int:
    """The characters Discord counts against an embed's 6000."""
    size = len(embed.get("title") or "") + len(embed.get("description") or "")
    size += len((embed.get("footer") or {}).get("text") or "")
    size += len((embed.get("author") or {}).get("name") or "")
    for fld in embed.get("fields") or []:
        size += len(fld.get("name") or "") + len(fld.get("value") or "")
    return size
