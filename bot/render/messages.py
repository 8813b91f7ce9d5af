"""The public lobby and table messages as plain data (content + an embed as a dict), every word localized.

Nothing here imports discord: the UI layer turns :class:`MessageBody` into a message (``embed`` is in
Discord's JSON shape, so ``discord.Embed.from_dict`` takes it). Only views and events are read, and
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

JSON = dict[str, Any]
COLOUR_LOBBY = 0x5865F2
COLOUR_PLAYING = 0x2ECC71
COLOUR_PAUSE = 0xF1C40F
COLOUR_OVER = 0x95A5A6
MAX_FIELD = 1024
MAX_DESCRIPTION = 4096


@dataclass
class MessageBody:
    content: str = ""
    embed: JSON | None = None
    extra: dict[str, Any] = field(default_factory=dict)


NBSP = "\u00a0"
# Where a line of an inline field may break (Discord gives it a third of the embed, often less than
# a line): after a comma, a colon (French " :" too), and round " · " and " — ". Nothing else.
_BREAKS_AT = re.compile(r"(, |: | · | — )")


def phrased(line: str) -> str:
    """``line`` with the spaces inside each phrase made non-breaking, so that a narrow inline field of
    the table embed wraps only between phrases ("Stock: top card 4," / "8 left", never "8" / "left";
    "Computer 1 (normal)" / "— 47 points", never "Computer 1 (n" / "ormal)"): see :data:`_BREAKS_AT`.
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
            players.append(t("table.lobby.seat_computer", locale, number=i, name=said))
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
    said = [str(c) for c in counts]
    if len(said) == 1:
        return said[0]
    return t("table.lobby.counts_or", locale, first=", ".join(said[:-1]), last=said[-1])


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
        if event["kind"] == "seat_replaced":  # left, kicked by the host, or idle: each said as it is
            key = SEAT_REPLACED.get(str(event.get("reason")), "table.event.seat_replaced")
            lines.append(t(key, locale, player=names[seat]))
        elif event["kind"] == "turn_timed_out":
            lines.append(t("table.event.timed_out", locale, player=names[seat]))
        elif event["kind"] == "seat_back":  # a human took their seat back from the computer
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
    own events for that seat (a timer, a takeover) come first."""
    lines: list[str] = []
    run_seat: int | None = None
    told: list[str] = []
    events: list[JSON] = []

    def flush() -> None:
        lines.extend(told)
        lines.extend(describe(events, names, locale))
        told.clear()
        events.clear()

    for seat, group in recent:
        if seat != run_seat:
            flush()
            run_seat = seat
        told.extend(service_event_lines(seat, group, names, locale))
        events.extend(e for e in group if e["kind"] not in SERVICE_EVENTS)
    flush()
    return lines[-limit:]


def embed_size(embed: Mapping[str, Any]) -> int:
    """The characters Discord counts against an embed's 6000."""
    size = len(embed.get("title") or "") + len(embed.get("description") or "")
    size += len((embed.get("footer") or {}).get("text") or "")
    size += len((embed.get("author") or {}).get("name") or "")
    for fld in embed.get("fields") or []:
        size += len(fld.get("name") or "") + len(fld.get("value") or "")
    return size
