"""The public lobby and table messages as plain data (content + an embed as a dict), every word localized.

Nothing here imports discord: the UI layer turns :class:`MessageBody` into a message (``embed`` is in
Discord's JSON shape, so ``discord.Embed.from_dict`` takes it). Only views and events are read, and
they carry nothing hidden. ``image_url`` is the seam for the table picture (``bot/render/skyjo_image``):
when given, the embed shows it. Seat names go in as written (escaped, never markup), a computer
player's said in the message's language (:mod:`bot.render.names`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.i18n import translate as t
from bot.render.names import computer_name, escape_name, shown_name
from bot.render.skyjo_text import describe_events, grid_lines, status_line

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


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def option_lines(options: JSON, locale: object) -> list[str]:
    lines = [
        t("table.options.limit", locale, limit=options["score_limit"]),
        t("table.options.multiplier", locale, multiplier=options["finisher_multiplier"]),
    ]
    if options.get("row_clearing"):
        lines.append(t("table.options.rows_on", locale))
    if options.get("previous_finisher_starts"):
        lines.append(t("table.options.previous_starts", locale))
    return lines


def lobby_body(
    *,
    host_id: int,
    seats: Sequence[tuple[str, int | None, str | None]],
    locale: object,
    options: JSON | None = None,
    lines: Sequence[str] | None = None,
    game: str = "Skyjo",
    min_players: int = 2,
    max_players: int = 8,
) -> MessageBody:
    """The lobby: who sits, the settings, what to click. ``seats`` are (name, user id, computer level).

    Any game's lobby: ``lines`` are its settings in words (default: Skyjo's ``options``).
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
            *(lines if lines is not None else option_lines(options or {}, locale)),
            "",
            t("table.lobby.how", locale, min=min_players, max=max_players),
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


def lobby_closed_body(locale: object, *, expired: bool = False, game: str = "Skyjo") -> MessageBody:
    reason = t("table.lobby.expired" if expired else "table.lobby.cancelled", locale)
    return MessageBody(embed={"title": t("table.lobby.title", locale, game=game), "description": reason})


# The table's own events, not the engine's.
SERVICE_EVENTS = frozenset({"seat_replaced", "turn_timed_out", "seat_back"})


def service_event_lines(seat: int, events: Iterable[JSON], names: Sequence[str], locale: object) -> list[str]:
    """The table's own events (a seat taken over, a turn played by the timer), in any game."""
    lines = []
    for event in events:
        if event["kind"] == "seat_replaced":
            key = "table.event.seat_idle" if event.get("reason") == "idle" else "table.event.seat_replaced"
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
    limit: int = 5,
    describe: Describe = describe_events,
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


def table_body(
    view: JSON,
    names: Sequence[str],
    *,
    locale: object,
    recent: Iterable[tuple[int, list[JSON]]] = (),
    replaced: Iterable[int] = (),
    waiting_round: Sequence[int] = (),
    resumed: bool = False,
    ended_by: int | None = None,
    image_url: str | None = None,
) -> MessageBody:
    """The table everyone sees: grids (backs and gaps), piles, totals, whose turn, the last moves."""
    phase = view["phase"]
    shown = shown_seat_names(names, replaced, locale)
    lines: list[str] = []
    if ended_by is not None:
        lines.append(t("table.ended", locale, user=f"<@{ended_by}>"))
    elif phase == "game_over":
        lines.append(status_line(view, shown, locale))
        lines.extend(standings_lines(view, shown, locale))
    elif phase == "round_over":
        lines.append(round_summary(view, shown, locale))
        if waiting_round:
            lines.append(
                t("table.round.next_waiting", locale, players=", ".join(shown[s] for s in waiting_round))
            )
    else:
        lines.append(status_line(view, shown, locale))
    if resumed and ended_by is None and phase != "game_over":
        lines.append(t("table.live_again", locale))
    if phase not in ("game_over",) and ended_by is None:
        lines.append(
            t(
                "skyjo.table.piles",
                locale,
                discard=view["discard_pile"][-1] if view["discard_pile"] else "-",
                size=view["draw_pile_size"],
            )
        )
    moves = recent_lines(recent, shown, locale)
    if moves:
        lines.append("")
        lines.append(t("table.recent", locale))
        lines.extend(f"• {m}" for m in moves)
    fields = []
    for seat, name in enumerate(shown):
        marker = "▶ " if view["turn"] == seat and phase == "play" else ""
        total = t("skyjo.table.total", locale, total=view["totals"][seat])
        grid = "\n".join(grid_lines(view, seat))
        fields.append(
            {
                "name": _clip(f"{marker}{name} — {total}", 256),
                "value": _clip(f"```\n{grid}\n```", MAX_FIELD),
                "inline": True,
            }
        )
    colour = {"play": COLOUR_PLAYING, "reveal": COLOUR_PLAYING, "round_over": COLOUR_PAUSE}.get(
        phase, COLOUR_OVER
    )
    embed: JSON = {
        "title": t("skyjo.table.header", locale, round=view["round"]),
        "description": _clip("\n".join(lines), MAX_DESCRIPTION),
        "color": COLOUR_OVER if ended_by is not None else colour,
        "fields": fields[:25],
    }
    if image_url:
        embed["image"] = {"url": image_url}
    return MessageBody(embed=embed)


def round_summary(view: JSON, names: Sequence[str], locale: object) -> str:
    """The last round's scores (the doubled finisher shown) and the totals."""
    if not view["rounds"]:
        return status_line(view, names, locale)
    last = view["rounds"][-1]
    lines = [t("table.round.over", locale, round=view["round"])]
    for seat, name in enumerate(names):
        score, raw = last["scores"][seat], last["raw_scores"][seat]
        if last["finisher"] == seat and last["doubled"]:
            line = t("table.round.score_doubled", locale, player=name, raw=raw, score=score)
        elif last["finisher"] == seat:
            line = t("table.round.score_finisher", locale, player=name, score=score)
        else:
            line = t("table.round.score", locale, player=name, score=score)
        lines.append(f"{line} — {t('skyjo.table.total', locale, total=view['totals'][seat])}")
    return "\n".join(lines)


def standings_lines(view: JSON, names: Sequence[str], locale: object) -> list[str]:
    totals = view["totals"]
    order = sorted(range(len(names)), key=lambda s: (totals[s], s))
    lines = [t("table.standings", locale)]
    for seat in order:
        rank = 1 + sum(1 for other in totals if other < totals[seat])
        lines.append(t("table.standing", locale, rank=rank, player=names[seat], total=totals[seat]))
    return lines


def turn_mention(user_id: int, locale: object) -> str:
    return t("table.your_turn", locale, user=f"<@{user_id}>")
