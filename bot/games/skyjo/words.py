"""The Skyjo table in words (bot.ui.in_words fits it to a panel): every pile and grid from one
seat's view, face-down cards as ``?``, cleared ones as ``—``; every word from the catalogues."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.games.skyjo.text import status_line
from bot.i18n import plural
from bot.i18n import translate as t

JSON = dict[str, Any]


def _cell(cell: int | str) -> str:
    if cell == "down":
        return "?"
    if cell == "gone":
        return "—"
    return str(int(cell))


def words(view: JSON, names: Sequence[str], locale: object, brief: bool) -> str:
    phase = view["phase"]
    lines = [t("display.words.title", locale, table=t("skyjo.table.header", locale, round=view["round"]))]
    lines.append(status_line(view, names, locale))
    discard = view["discard_pile"]
    piles = t(
        "display.words.skyjo.piles",
        locale,
        discard=str(discard[-1]) if discard else "—",
        size=view["draw_pile_size"],
    )
    if view.get("drawn") is not None and phase == "play":
        piles += " · " + t("display.words.skyjo.drawn", locale, value=str(view["drawn"]))
    lines.append(piles)
    if not brief:
        lines.append(t("display.words.skyjo.legend", locale))
    rows = int(view["rows"])
    for seat, name in enumerate(names):
        grid = view["grids"][seat]
        showing = sum(c for c in grid if isinstance(c, int) and not isinstance(c, bool))
        marker = "▶ " if view.get("turn") == seat and phase == "play" else ""
        # "0 point" / "2 points" (French: singular for 0 and 1); showing: what the face-up cards add up to
        head = plural(
            "display.words.skyjo.player",
            view["totals"][seat],
            locale,
            marker=marker,
            player=name,
            showing=showing,
        )
        columns = [
            f"{c + 1}: " + " ".join(_cell(cell) for cell in grid[c * rows : (c + 1) * rows])
            for c in range(int(view["columns"]))
        ]
        lines.append(head)
        lines.append("  " + " · ".join(columns))
    return "\n".join(lines)
