"""A season's podium as a picture: for each game, its three best on steps (second, first, third).

Plain data in, PNG bytes out: the caller (``bot/ui/seasons.py``) gives the words already in the
reader's language and the figures already formatted, so this module names no game and knows no
catalogue. Names are the players' own: drawn with what the bundled font can draw (an emoji would be a
box), cut with an ellipsis to their step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.render.images import RGB, drawable, encode_png, fit_text, font

BACKGROUND: RGB = (32, 34, 40)
INK: RGB = (235, 236, 240)
MUTED: RGB = (160, 164, 176)
STEP_COLOURS: dict[int, RGB] = {1: (212, 175, 55), 2: (168, 169, 173), 3: (176, 112, 64)}
OTHER_STEP: RGB = (96, 100, 112)
COLUMN_WIDTH = 440
STEP_WIDTH = 136
STEP_HEIGHTS = {1: 120, 2: 88, 3: 64}
TITLE_SIZE = 30
HEADING_SIZE = 24
NAME_SIZE = 17
FIGURE_SIZE = 16
PLACE_SIZE = 36
HEIGHT = 340
MIN_WIDTH = 640  # room for a title (a season's name is up to 50 characters)
EMPTY_HEIGHT = 180
MARGIN = 24


@dataclass(frozen=True)
class Step:
    """One person on the podium: their place (1 to 3; a tie shares one), name and figure (formatted)."""

    place: int
    name: str
    figure: str


@dataclass(frozen=True)
class Column:
    """One game's podium: its heading and its steps (the best first)."""

    heading: str
    steps: Sequence[Step]


def _text(
    draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, size: int, colour: RGB, width: int
) -> None:
    shown = fit_text(drawable(text) or "?", size, width)
    draw.text(xy, shown, font=font(size), fill=colour, anchor="ms")


def draw_podium(title: str, columns: Sequence[Column], empty: str) -> bytes:
    """The podium picture: ``title`` on top, one column per game; ``empty`` alone when no game has any
    rated player."""
    count = max(1, len(columns))
    width = max(MIN_WIDTH, count * COLUMN_WIDTH)
    offset = (width - count * COLUMN_WIDTH) // 2  # the columns centred in a wider picture
    height = HEIGHT if columns else EMPTY_HEIGHT
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    _text(draw, (width // 2, MARGIN + TITLE_SIZE), title, TITLE_SIZE, INK, width - 2 * MARGIN)
    if not columns:
        _text(draw, (width // 2, height // 2 + 40), empty, HEADING_SIZE, MUTED, width - 2 * MARGIN)
        return encode_png(image)
    base = height - MARGIN
    for index, column in enumerate(columns):
        left = offset + index * COLUMN_WIDTH
        middle = left + COLUMN_WIDTH // 2
        _text(
            draw, (middle, MARGIN + TITLE_SIZE + 48), column.heading, HEADING_SIZE, MUTED, COLUMN_WIDTH - 16
        )
        # The steps left to right: second, first, third (the best in the middle, highest).
        for slot, position in ((1, 0), (0, 1), (2, 2)):
            if slot >= len(column.steps):
                continue
            step = column.steps[slot]
            x0 = middle + (position - 1) * (STEP_WIDTH + 4) - STEP_WIDTH // 2
            top = base - STEP_HEIGHTS.get(slot + 1, 56)
            colour = STEP_COLOURS.get(step.place, OTHER_STEP)
            draw.rectangle((x0, top, x0 + STEP_WIDTH, base), fill=colour)
            centre = x0 + STEP_WIDTH // 2
            draw.text(
                (centre, top + 44), str(step.place), font=font(PLACE_SIZE), fill=BACKGROUND, anchor="ms"
            )
            _text(draw, (centre, top - 30), step.name, NAME_SIZE, INK, STEP_WIDTH + 8)
            _text(draw, (centre, top - 10), step.figure, FIGURE_SIZE, MUTED, STEP_WIDTH + 8)
    return encode_png(image)


__all__ = ["Column", "Step", "draw_podium"]
