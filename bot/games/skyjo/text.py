"""Skyjo in words: what just happened ("Alice took the 3 from the discard...") and the table as text.

Everything here reads only events and views, which carry nothing hidden (GAME-INFO-1), and every word
comes from the message catalogues. Names are put in as given: a Discord message passes them through
:func:`bot.render.names.shown_name` first, the terminal passes them as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.i18n import a_card
from bot.i18n import translate as t

JSON = dict[str, Any]


def _name(names: Sequence[str], seat: int | None) -> str:
    if seat is None or not 0 <= seat < len(names):
        return "?"
    return names[seat]


def describe_events(
    events: Sequence[JSON], names: Sequence[str], locale: object = None, short: bool = False
) -> list[str]:
    """One sentence per move, merging a draw with what the player then did with the card. ``short``:
    an exchange said in fewer words ("Bob took the discard's 7 for their 12"), for the compact table's
    last moves in small print (one line each on a phone)."""
    lines: list[str] = []
    i = 0
    while i < len(events):
        event = events[i]
        kind = event["type"]
        nxt = events[i + 1] if i + 1 < len(events) else None
        after = events[i + 2] if i + 2 < len(events) else None
        player = _name(names, event.get("seat"))
        if kind == "card_drawn" and nxt and nxt["type"] == "card_exchanged":
            lines.append(_exchange(nxt, player, locale, short))
            i += 2
            continue
        if (
            kind == "card_drawn"
            and nxt
            and nxt["type"] == "card_discarded"
            and after
            and after["type"] == "card_revealed"
        ):
            lines.append(
                t(
                    "skyjo.event.drew_discarded_revealed",
                    locale,
                    player=player,
                    card=a_card(event["value"], locale),
                    revealed=a_card(after["value"], locale),
                )
            )
            i += 3
            continue
        if kind == "card_discarded" and nxt and nxt["type"] == "card_revealed":
            lines.append(
                t(
                    "skyjo.event.discarded_revealed",
                    locale,
                    player=player,
                    card=a_card(event["value"], locale),
                    revealed=a_card(nxt["value"], locale),
                )
            )
            i += 2
            continue
        line = _exchange(event, player, locale, short) if kind == "card_exchanged" else None
        line = line or _single(event, player, names, locale)
        if line:
            lines.append(line)
        i += 1
    return lines


def _exchange(event: JSON, player: str, locale: object, short: bool = False) -> str:
    source = "discard" if event["source"] == "discard" else "draw"
    hidden = "up" if event["replaced_was_face_up"] else "down"
    return t(
        f"skyjo.event.{'short.' if short else ''}exchanged.{source}.{hidden}",
        locale,
        player=player,
        value=event["value"],
        card=a_card(event["value"], locale),
        replaced=event["replaced"],
    )


def _single(event: JSON, player: str, names: Sequence[str], locale: object) -> str | None:
    kind = event["type"]
    if kind == "round_started":
        return t(
            "skyjo.event.round_started",
            locale,
            round=event["round"],
            card=a_card(event["discard_top"], locale),
        )
    if kind == "card_revealed":
        if event["how"] == "final":
            return None  # the round summary shows every grid
        return t("skyjo.event.revealed", locale, player=player, card=a_card(event["value"], locale))
    if kind == "card_drawn":
        return t("skyjo.event.drew", locale, player=player, card=a_card(event["value"], locale))
    if kind == "card_exchanged":
        return _exchange(event, player, locale)
    if kind == "card_discarded":
        return t("skyjo.event.discarded", locale, player=player, card=a_card(event["value"], locale))
    if kind == "line_cleared":
        key = "skyjo.event.column_cleared" if event["line"] == "column" else "skyjo.event.row_cleared"
        return t(key, locale, player=player, value=event["value"])
    if kind == "draw_pile_rebuilt":
        return t("skyjo.event.draw_pile_rebuilt", locale, size=event["size"])
    if kind == "round_finishing":
        return t("skyjo.event.round_finishing", locale, player=player)
    if kind == "round_ended":
        finisher = event.get("finisher")
        if finisher is not None and event["doubled"]:
            return t(
                "skyjo.event.round_ended_doubled",
                locale,
                round=event["round"],
                player=_name(names, finisher),
                raw=event["raw_scores"][finisher],
                score=event["scores"][finisher],
            )
        return t("skyjo.event.round_ended", locale, round=event["round"])
    if kind == "game_ended":
        winners = ", ".join(_name(names, s) for s in event["winners"])
        key = "skyjo.event.game_ended_one" if len(event["winners"]) == 1 else "skyjo.event.game_ended_many"
        return t(key, locale, winners=winners)
    return None  # turn_started: the table shows whose turn it is


# Every cell is two narrow (ASCII) characters wide: a shade such as "▒" is East Asian "ambiguous"
# width and some clients draw it double, which shifted the columns where backs and digits mix.
CARD_BACK = "##"
GAP = "  "


def cell_text(cell: int | str) -> str:
    """A grid cell as text, always two columns wide: its value, a card back, or a gap."""
    if cell == "down":
        return CARD_BACK
    if cell == "gone":
        return GAP
    return f"{cell:>2}"


def grid_lines(view: JSON, seat: int) -> list[str]:
    """A player's grid as rows of text, face-down cards as backs and cleared places as gaps."""
    rows, columns = view["rows"], view["columns"]
    grid = view["grids"][seat]
    return [" ".join(cell_text(grid[c * rows + r]) for c in range(columns)) for r in range(rows)]


def status_line(view: JSON, names: Sequence[str], locale: object = None) -> str:
    """Whose move it is, in words."""
    phase = view["phase"]
    if phase == "reveal":
        waiting = ", ".join(_name(names, s) for s in view["to_act"])
        count = view["options"]["initial_reveals"]
        key = "skyjo.status.reveal_one" if count == 1 else "skyjo.status.reveal"
        return t(key, locale, count=count, players=waiting)
    if phase == "play":
        player = _name(names, view["turn"])
        if view["drawn"] is not None:
            return t("skyjo.status.placing", locale, player=player, card=a_card(view["drawn"], locale))
        return t("skyjo.status.turn", locale, player=player)
    if phase == "round_over":
        return t("skyjo.status.round_over", locale, round=view["round"])
    winners = ", ".join(_name(names, s) for s in view["winners"])
    return t("skyjo.status.game_over", locale, winners=winners)


def table_text(view: JSON, names: Sequence[str], locale: object = None) -> str:
    """The whole table as plain text (for screen readers, notifications and the terminal)."""
    lines = [
        t("skyjo.table.header", locale, round=view["round"]),
        status_line(view, names, locale),
        t(
            "skyjo.table.piles",
            locale,
            discard=view["discard_pile"][-1] if view["discard_pile"] else "-",
            size=view["draw_pile_size"],
        ),
    ]
    for seat, name in enumerate(names):
        marker = "▶ " if view["turn"] == seat else ""
        lines.append(f"{marker}{name} — {t('skyjo.table.total', locale, total=view['totals'][seat])}")
        lines.extend("    " + line for line in grid_lines(view, seat))
    return "\n".join(lines)
