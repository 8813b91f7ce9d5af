"""A knockout tournament's bracket as a picture: one column per round, one box per table.

Plain data in, PNG bytes out: the caller (``bot/ui/tournament_texts.py``) gives the words already in
the reader's language, so this module names no game and knows no catalogue. A table's player who went
on is drawn bright with a mark, the others muted, and a gold connector joins them to their line at the
next round's table once it is seated (a table still to decide has a short muted stub towards the next
round: who goes where is dealt by rank only when the round is over); a table still to play (or not
yet seated) is drawn plain; a bye, or the computers filling a table, is said under its names.
Names are drawn with what the bundled font can draw, cut with an ellipsis to their box.
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
GAP = 48
LINE = 22
PAD = 8
TITLE_SIZE = 24
HEADING_SIZE = 18
NAME_SIZE = 16
MARGIN = 20
TOP = MARGIN + TITLE_SIZE + 40


@dataclass(frozen=True)
class BracketTable:
    """One table of a round: its players' names (best ranked first), who went on (an index) if the
    table has ended, a ``note`` drawn under the names (a bye, the computers filling it: words given in
    the reader's language), and where the one who went on sits next: ``(table, line)`` of the next
    round, once it is seated (a connector joins the two)."""

    names: Sequence[str]
    winner: int | None = None
    note: str | None = None
    to: tuple[int, int] | None = None


@dataclass(frozen=True)
class BracketRound:
    heading: str
    tables: Sequence[BracketTable]


def _box_height(table: BracketTable) -> int:
    return (max(1, len(table.names)) + (table.note is not None)) * LINE + 2 * PAD


def _line_y(top: int, line: int) -> int:
    """The baseline of a box's ``line``-th name."""
    return top + PAD + (line + 1) * LINE - 5


def draw_bracket(title: str, rounds: Sequence[BracketRound]) -> bytes:
    """The bracket: ``title`` on top, the rounds left to right, each round's tables spread over the
    height of the first round's; a connector from each table's player who went on to their line at
    the next round's table (gold), or, a table still to decide, a short muted stub towards the next
    round."""
    count = max(1, len(rounds))
    width = MARGIN * 2 + count * COLUMN_WIDTH + (count - 1) * GAP
    first = rounds[0].tables if rounds else []
    column_height = max(sum(_box_height(t) + 12 for t in first), 60)
    for stage in rounds[1:]:  # a later round's boxes may be taller (a note, more players)
        column_height = max(column_height, sum(_box_height(t) + 12 for t in stage.tables))
    height = TOP + column_height + MARGIN
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    shown = fit_text(drawable(title) or "?", TITLE_SIZE, width - 2 * MARGIN)
    draw.text((width // 2, MARGIN + TITLE_SIZE), shown, font=font(TITLE_SIZE), fill=INK, anchor="ms")
    tops: list[list[int]] = []
    for stage in rounds:
        slot = column_height / max(1, len(stage.tables))
        tops.append([int(TOP + n * slot + (slot - _box_height(t)) / 2) for n, t in enumerate(stage.tables)])
    for index, stage in enumerate(rounds[:-1]):  # the connectors first: the boxes are drawn over them
        right = MARGIN + index * (COLUMN_WIDTH + GAP) + COLUMN_WIDTH
        joined = [
            (number, table.winner, table.to)
            for number, table in enumerate(stage.tables)
            if table.winner is not None and table.to is not None and table.to[0] < len(tops[index + 1])
        ]
        for order, (number, line, (following, place)) in enumerate(joined):
            # Each connector turns at an x of its own, so that two never share a vertical stroke.
            turn = right + (order + 1) * GAP // (len(joined) + 1)
            start = _line_y(tops[index][number], line) - NAME_SIZE // 3
            end = _line_y(tops[index + 1][following], place) - NAME_SIZE // 3
            points = [(right, start), (turn, start), (turn, end), (right + GAP, end)]
            draw.line(points, fill=GOLD, width=2, joint="curve")
        for number, table in enumerate(stage.tables):
            if all(number != n for n, _, _ in joined):
                y = tops[index][number] + _box_height(table) // 2
                draw.line([(right, y), (right + GAP // 3, y)], fill=EDGE, width=2)
    for index, stage in enumerate(rounds):
        left = MARGIN + index * (COLUMN_WIDTH + GAP)
        heading = fit_text(drawable(stage.heading) or "?", HEADING_SIZE, COLUMN_WIDTH)
        draw.text((left, TOP - 12), heading, font=font(HEADING_SIZE), fill=MUTED, anchor="ls")
        for number, table in enumerate(stage.tables):
            top = tops[index][number]
            box = _box_height(table)
            draw.rounded_rectangle(
                (left, top, left + COLUMN_WIDTH, top + box), radius=6, fill=BOX, outline=EDGE
            )
            for line, name in enumerate(table.names):
                went_on = table.winner == line
                colour = GOLD if went_on else (MUTED if table.winner is not None else INK)
                text = fit_text(drawable(name) or "?", NAME_SIZE, COLUMN_WIDTH - 2 * PAD - 20)
                y = _line_y(top, line)
                draw.text((left + PAD, y), text, font=font(NAME_SIZE), fill=colour, anchor="ls")
                if went_on:
                    draw.text(
                        (left + COLUMN_WIDTH - PAD, y), "»", font=font(NAME_SIZE), fill=GOLD, anchor="rs"
                    )
            if table.note is not None:
                note = fit_text(drawable(table.note) or "?", NAME_SIZE - 2, COLUMN_WIDTH - 2 * PAD)
                y = _line_y(top, len(table.names))
                draw.text((left + PAD, y), note, font=font(NAME_SIZE - 2), fill=MUTED, anchor="ls")
    return encode_png(image)


__all__ = ["BracketRound", "BracketTable", "draw_bracket"]
