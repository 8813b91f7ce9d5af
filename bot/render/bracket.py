"""A knockout tournament's bracket as a picture: one column per round, one box per table.

Plain data in, PNG bytes out: the caller (``bot/ui/tournaments.py``) gives the words already in the
reader's language, so this module names no game and knows no catalogue. A table's player who went on
is drawn bright with a mark, the others muted; a table still to play (or not yet seated) is drawn
plain. Names are drawn with what the bundled font can draw, cut with an ellipsis to their box.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.render.images import RGB, drawable, encode_png, fit_text, font

BACKGROUND: RGB = (32, 34, 40)
BOX: RGB = (52, 56, 66)
EDGE: RGB = (96, 100, 112)
INK: RGB = (235, 236, 240)
MUTED: RGB = (140, 144, 156)
GOLD: RGB = (212, 175, 55)
COLUMN_WIDTH = 230
GAP = 36
LINE = 22
PAD = 8
TITLE_SIZE = 24
HEADING_SIZE = 18
NAME_SIZE = 16
MARGIN = 20
TOP = MARGIN + TITLE_SIZE + 40


@dataclass(frozen=True)
class BracketTable:
    """One table of a round: its players' names (best ranked first) and who went on (an index), if
    the table has ended."""

    names: Sequence[str]
    winner: int | None = None


@dataclass(frozen=True)
class BracketRound:
    heading: str
    tables: Sequence[BracketTable]


def _box_height(table: BracketTable) -> int:
    return max(1, len(table.names)) * LINE + 2 * PAD


def draw_bracket(title: str, rounds: Sequence[BracketRound]) -> bytes:
    """The bracket: ``title`` on top, the rounds left to right, each round's tables spread over the
    height of the first round's."""
    count = max(1, len(rounds))
    width = MARGIN * 2 + count * COLUMN_WIDTH + (count - 1) * GAP
    first = rounds[0].tables if rounds else []
    column_height = sum(_box_height(t) + 12 for t in first) or 60
    height = TOP + column_height + MARGIN
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    shown = fit_text(drawable(title) or "?", TITLE_SIZE, width - 2 * MARGIN)
    draw.text((width // 2, MARGIN + TITLE_SIZE), shown, font=font(TITLE_SIZE), fill=INK, anchor="ms")
    for index, stage in enumerate(rounds):
        left = MARGIN + index * (COLUMN_WIDTH + GAP)
        heading = fit_text(drawable(stage.heading) or "?", HEADING_SIZE, COLUMN_WIDTH)
        draw.text((left, TOP - 12), heading, font=font(HEADING_SIZE), fill=MUTED, anchor="ls")
        slot = column_height / max(1, len(stage.tables))
        for number, table in enumerate(stage.tables):
            box = _box_height(table)
            top = int(TOP + number * slot + (slot - box) / 2)
            draw.rounded_rectangle(
                (left, top, left + COLUMN_WIDTH, top + box), radius=6, fill=BOX, outline=EDGE
            )
            for line, name in enumerate(table.names):
                went_on = table.winner == line
                colour = GOLD if went_on else (MUTED if table.winner is not None else INK)
                text = fit_text(drawable(name) or "?", NAME_SIZE, COLUMN_WIDTH - 2 * PAD - 20)
                y = top + PAD + (line + 1) * LINE - 5
                draw.text((left + PAD, y), text, font=font(NAME_SIZE), fill=colour, anchor="ls")
                if went_on:
                    draw.text(
                        (left + COLUMN_WIDTH - PAD, y), "»", font=font(NAME_SIZE), fill=GOLD, anchor="rs"
                    )
    return encode_png(image)


__all__ = ["BracketRound", "BracketTable", "draw_bracket"]
