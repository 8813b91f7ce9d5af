"""The public Skyjo table message (and the lobby's settings lines) as plain data, every word localized.

Built from the shared parts of :mod:`bot.render.messages` (no discord import). Only views and
events are read, and they carry nothing hidden. ``image_url`` is the seam for the table picture
(:mod:`bot.games.skyjo.image`): when given, the embed shows it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

from bot.games.skyjo.engine import EDITIONS, MAX_PLAYERS, MIN_PLAYERS
from bot.games.skyjo.text import describe_events, grid_lines, status_line
from bot.i18n import a_card, plural
from bot.i18n import translate as t
from bot.render.messages import (
    COLOUR_OVER,
    COLOUR_PAUSE,
    COLOUR_PLAYING,
    MAX_DESCRIPTION,
    MAX_FIELD,
    RECENT_MOVES,
    MessageBody,
    _clip,
    phrased,
    shown_seat_names,
)
from bot.render.messages import recent_lines as _recent_lines
from bot.render.score_sheet import add_sheet
from bot.render.seats import seat_mark

JSON = dict[str, Any]


def recent_lines(
    recent: Iterable[tuple[int, list[JSON]]],
    names: Sequence[str],
    locale: object,
    limit: int = RECENT_MOVES,
    short: bool = False,
) -> list[str]:
    """The last moves, one line per move (see :func:`bot.render.messages.recent_lines`); ``short``:
    an exchange in fewer words (:func:`bot.games.skyjo.text.describe_events`)."""
    describe = functools.partial(describe_events, short=True) if short else describe_events
    return _recent_lines(recent, names, locale, describe, limit)


def option_lines(options: JSON, locale: object) -> list[str]:
    lines = [
        t("table.options.limit", locale, limit=options["score_limit"]),
        t("table.options.multiplier", locale, multiplier=options["finisher_multiplier"]),
    ]
    if options.get("row_clearing"):
        lines.append(t("table.options.rows_on", locale))
    if options.get("previous_finisher_starts"):
        lines.append(t("table.options.previous_starts", locale))
    lines.extend(setup_lines(options, locale))
    return lines


def setup_lines(options: JSON, locale: object) -> list[str]:
    """The grid, the reveals and the edition in words (options stored before they existed: the defaults)."""
    columns, rows = options.get("columns", 4), options.get("rows", 3)
    reveals = options.get("initial_reveals", 2)
    edition = options.get("edition", "classic")
    return [
        t(
            f"skyjo.options.edition.{edition}",
            locale,
            min=MIN_PLAYERS,
            max=EDITIONS.get(edition, MAX_PLAYERS),
        ),
        t("skyjo.options.grid", locale, columns=columns, rows=rows, cards=columns * rows),
        t("skyjo.options.reveals.none", locale)
        if reveals == 0
        else plural("skyjo.options.reveals", reveals, locale),
    ]


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
    fields = []
    for seat, name in enumerate(shown):
        marker = "▶ " if view["turn"] == seat and phase == "play" else ""
        total = t("skyjo.table.total", locale, total=view["totals"][seat])
        grid = "\n".join(grid_lines(view, seat))
        fields.append(
            {
                "name": _clip(marker + phrased(f"{name} — {total}"), 256),
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
    add_sheet(embed, view, names, shown, locale, over=phase == "game_over" and ended_by is None)
    if image_url:
        embed["image"] = {"url": image_url}
    head: list[str] = []
    if ended_by is None and phase in ("play", "reveal"):
        head.append(short_status(view, shown, locale))
        if resumed:
            head.append(t("table.live_again", locale))
    return MessageBody(
        embed=embed,
        players=player_lines(view, shown, locale),
        recent=recent_lines(recent, shown, locale),
        head=head,
        moves=recent_lines(recent, shown, locale, short=True),
    )


def short_status(view: JSON, names: Sequence[str], locale: object) -> str:
    """Who plays, in a few words, for the compact table's one line under its heading (the picture
    shows the piles, the panel says what to do): "Alice to play", "Alice drew a 5", "last turns!",
    "Alice, Bob to turn up 2 cards"."""
    if view["phase"] == "reveal":
        count = view["options"]["initial_reveals"]
        key = "skyjo.status.reveal_short_one" if count == 1 else "skyjo.status.reveal_short"
        return t(key, locale, count=count, players=", ".join(names[s] for s in view["to_act"]))
    if view["phase"] != "play":
        return status_line(view, names, locale)
    player = names[view["turn"]]
    if view["drawn"] is not None:
        line = t("skyjo.status.placing_short", locale, player=player, card=a_card(view["drawn"], locale))
    else:
        line = t("skyjo.status.turn_short", locale, player=player)
    if view.get("finisher") is not None:
        line += " · " + t("skyjo.status.last_turns", locale)
    return line


def player_lines(view: JSON, names: Sequence[str], locale: object) -> list[str]:
    """One line per player for the table beside its picture, after the seat's coloured mark (its
    colour in the picture, :mod:`bot.render.seats`): the total and the points showing (a face-down
    cell is only ``"down"``: never read; the picture shows how many there are). Short enough for one
    line on a phone (390 px) with usual names: ``names`` are :func:`bot.render.messages.shown_seat_names`."""
    lines = []
    for seat, name in enumerate(names):
        grid = view["grids"][seat]
        marker = "▶ " if view["turn"] == seat and view["phase"] == "play" else ""
        line = t(
            "skyjo.table.player_line",
            locale,
            player=f"**{name}**",
            total=view["totals"][seat],
            shown=sum(c for c in grid if isinstance(c, int)),
        )
        lines.append(f"{seat_mark(seat)} {marker}{line}")
    return lines


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
    return t("skyjo.table.your_turn", locale, user=f"<@{user_id}>")
