"""The tiles of the Skyjo pictures: card faces (classic or colour-blind) and backs, frames, pills and
icons, drawn once in RGB and kept in each theme's palette; the sizes and colours every Skyjo picture
shares."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, Final

from PIL import Image, ImageChops, ImageDraw

from bot.render.images import (
    CARD_THEMES,
    RGB,
    SEAT_RGBS,
    THEMES,
    Palette,
    Theme,
    corner_shapes,
    font,
    hex_rgb,
    is_dark,
    mix,
    panel_rgb,
    rounded_box,
    seat_swatch,
    supersampled,
    text_tile,
    text_width,
)

HIDDEN: Final = "down"
GONE: Final = "gone"

# Sizes in pixels. Up to 4 players a table is two grids wide (bot/games/skyjo/image.py), about 620 px:
# Discord on a 390-px phone shows it 288 px wide, where a card's value is still drawn at least 12 px
# tall and a name's capitals at least 10 px (issue 47 item 8, tests/games/skyjo/test_image.py).
CARD_W: Final = 64
CARD_H: Final = 80
CARD_GAP: Final = 6
CARD_RADIUS: Final = 9
CARD_DIGIT: Final = 38
DIGIT_INSET: Final = 6  # the least room left and right of a card's value ("12" and "‒2" fit at full size)
CARD_CORNER: Final = 13
PANEL_PAD: Final = 8
NAME_SIZE: Final = 30  # a name's size, unless it must shrink to fit (down to NAME_LEAST)
NAME_LEAST: Final = 20
NAME_LINE: Final = 34  # the name's line in a panel's header, then the line of its numbers
SMALL_SIZE: Final = 18
NUMBERS_LINE: Final = round((SMALL_SIZE + 1) * 1.45)  # a total's pill
PANEL_HEADER: Final = NAME_LINE + 4 + NUMBERS_LINE
PANEL_MIN_W: Final = 250
PANEL_GAP: Final = 10
MARGIN: Final = 10
STACK_STEP: Final = 3  # offset of the cards drawn under a pile's top card
CAPTION_DY: Final = 18  # from a card's bottom edge to the middle of its caption
CAPTION_SIZE: Final = 16

# The game's colour bands: (fill, digit colour). -2 and -1 deep blue, 0 light blue, 1-4 green,
# 5-8 yellow, 9-12 red.
DEEP_BLUE: Final = (hex_rgb("#2f45b5"), hex_rgb("#ffffff"))
LIGHT_BLUE: Final = (hex_rgb("#7fd4f7"), hex_rgb("#0a2236"))
GREEN: Final = (hex_rgb("#5cc34f"), hex_rgb("#0b240a"))
YELLOW: Final = (hex_rgb("#f8d33a"), hex_rgb("#2b2100"))
RED: Final = (hex_rgb("#e5413b"), hex_rgb("#ffffff"))
BANDS: Final = (DEEP_BLUE, LIGHT_BLUE, GREEN, YELLOW, RED)
# The colour-blind cards (``cards="colourblind"``): the same five groups in Okabe and Ito's colours,
# which stay apart under deuteranopia and protanopia (tests/games/test_colour_vision.py measures
# it), each with its own shape in two corners: below zero a triangle pointing down, zero a circle,
# 1-4 a square, 5-8 a diamond, 9-12 a triangle pointing up.
SAFE_BANDS: Final = (
    (hex_rgb("#005a8c"), hex_rgb("#ffffff")),  # Okabe-Ito blue, darkened to stand apart from sky blue
    (hex_rgb("#56b4e9"), hex_rgb("#0a2236")),  # sky blue
    (hex_rgb("#009e73"), hex_rgb("#00261b")),  # bluish green
    (hex_rgb("#f0e442"), hex_rgb("#2b2100")),  # yellow
    (hex_rgb("#d55e00"), hex_rgb("#ffffff")),  # vermillion
)
SHAPES: Final = ("down", "circle", "square", "diamond", "up")
SHAPE_SIZE: Final = 12
# Card backs: a quiet violet, far enough from the deep blue of -2 and -1 not to be taken for one.
BACK: Final = hex_rgb("#4e3c86")
BACK_LINE: Final = hex_rgb("#5a4894")
BACK_EDGE: Final = hex_rgb("#2c2050")
BACK_MARK: Final = hex_rgb("#8a74cf")
BLACK: Final = (0, 0, 0)
WHITE: Final = (255, 255, 255)


def group(value: int) -> int:
    """A card value's colour group: 0 below zero, 1 zero, 2 for 1-4, 3 for 5-8, 4 for 9-12."""
    if value < 0:
        return 0
    if value == 0:
        return 1
    if value <= 4:
        return 2
    if value <= 8:
        return 3
    return 4


def band(value: int, cards: str = "classic") -> tuple[RGB, RGB]:
    """The (fill, digit) colours of a card value."""
    return (SAFE_BANDS if cards == "colourblind" else BANDS)[group(value)]


def card_label(value: int) -> str:
    """The printed value; a true minus sign reads better than a hyphen at a glance."""
    return f"−{-value}" if value < 0 else str(value)


def face_label(value: int) -> str:
    """The value as a card prints it: a figure dash (as wide as a digit, the minus sign's stroke with
    less room either side) before a negative one, so that "‒2" takes no more room than "12" and every
    value is drawn at the card's full digit size (issue 47: legible on a phone)."""
    return f"\u2012{-value}" if value < 0 else str(value)


# --------------------------------------------------------------------------------------------------
# Tiles, drawn once in RGB (supersampled for smooth edges), then kept in each theme's palette


def _card_back(draw: ImageDraw.ImageDraw, big: Image.Image, w: int, h: int, s: int) -> None:
    draw.rounded_rectangle((0, 0, w * s - 1, h * s - 1), CARD_RADIUS * s, fill=BACK_EDGE)
    inner = (3 * s, 3 * s, (w - 3) * s - 1, (h - 3) * s - 1)
    draw.rounded_rectangle(inner, (CARD_RADIUS - 3) * s, fill=BACK)
    # A faint lattice, masked to the inside of the frame.
    lattice = Image.new("L", big.size, 0)
    lines = ImageDraw.Draw(lattice)
    step = 12 * s
    for k in range(-h * s, w * s + h * s, step):
        lines.line((k, 0, k + h * s, h * s), fill=255, width=s)
        lines.line((k, h * s, k + h * s, 0), fill=255, width=s)
    inside = Image.new("L", big.size, 0)
    ImageDraw.Draw(inside).rounded_rectangle(inner, (CARD_RADIUS - 3) * s, fill=255)
    big.paste(BACK_LINE, mask=ImageChops.darker(lattice, inside))
    # A diamond in the middle, the card's emblem.
    cx, cy = w * s / 2, h * s / 2
    for r, fill in ((17 * s, BACK_EDGE), (14 * s, BACK_MARK), (8 * s, BACK)):
        draw.polygon([(cx, cy - r * 1.3), (cx + r, cy), (cx, cy + r * 1.3), (cx - r, cy)], fill=fill)


@lru_cache(maxsize=512)
def card_rgb(cell: int | str, background: RGB, cards: str = "classic") -> Image.Image:
    """One card (a value, ``"down"`` for its back, ``"gone"`` for a cleared place) on ``background``,
    its faces in the ``cards`` look (the colour-blind one adds its group's shape in two corners)."""
    w, h = CARD_W, CARD_H
    big, draw, s = supersampled((w, h), background)
    box = (0, 0, w * s - 1, h * s - 1)
    if cell == GONE:
        dark = is_dark(background)
        slot = mix(background, BLACK, 0.25 if dark else 0.05)
        edge = mix(background, WHITE, 0.14) if dark else mix(background, BLACK, 0.16)
        draw.rounded_rectangle(box, CARD_RADIUS * s, fill=slot, outline=edge, width=2 * s)
    elif cell == HIDDEN:
        _card_back(draw, big, w, h, s)
    elif isinstance(cell, int) and not isinstance(cell, bool):
        fill, ink = band(cell, cards)
        edge = mix(fill, BLACK, 0.45)
        draw.rounded_rectangle(box, CARD_RADIUS * s, fill=edge)
        inner = (2 * s, 2 * s, (w - 2) * s - 1, (h - 2) * s - 1)
        draw.rounded_rectangle(inner, (CARD_RADIUS - 2) * s, fill=fill)
        # The oval in the middle of a real Skyjo card, a shade lighter.
        draw.ellipse((9 * s, 14 * s, (w - 9) * s, (h - 14) * s), fill=mix(fill, WHITE, 0.28))
        text = face_label(cell)
        light_ink = ink == WHITE
        size = CARD_DIGIT  # two glyphs ("12", "‒2") as big as one: the oval's width and a little more
        while size > 20 and text_width(text, size) > w - 2 * DIGIT_INSET:
            size -= 1
        draw.text(
            (w * s // 2, h * s // 2 + s),
            text,
            font=font(size * s),
            fill=ink,
            anchor="mm",
            stroke_width=s if light_ink else 0,
            stroke_fill=edge,
        )
        # Corner indices, the bottom one upside down as on a real card.
        corner = font(CARD_CORNER * s)
        draw.text((6 * s, 4 * s), text, font=corner, fill=ink, anchor="la")
        big = big.rotate(180)
        ImageDraw.Draw(big).text((6 * s, 4 * s), text, font=corner, fill=ink, anchor="la")
        big = big.rotate(180)
        if cards == "colourblind":
            corner_shapes(big, SHAPES[group(cell)], ink, SHAPE_SIZE * s, (6 * s, 5 * s))
    else:
        raise ValueError(f"not a Skyjo cell: {cell!r}")
    return big.reduce(s)


def pill_rgb(text: str, size: int, colour: RGB, fill: RGB, background: RGB) -> Image.Image:
    """A number in a rounded pill: totals, the draw pile's size."""
    w = text_width(text, size) + size
    h = round(size * 1.45)
    pill = rounded_box((w, h), h // 2, fill, background)
    ImageDraw.Draw(pill).text((w // 2, h // 2 + 1), text, font=font(size), fill=colour, anchor="mm")
    return pill


def frame_rgb(colour: RGB, background: RGB) -> Image.Image:
    """The accent frame drawn round the drawn card."""
    return rounded_box((CARD_W + 8, CARD_H + 8), CARD_RADIUS + 3, colour, background)


def icon_rgb(kind: str, colour: RGB, background: RGB, height: int) -> Image.Image:
    """Small language-free marks: ``turn`` (a triangle), ``flag`` (the finisher), ``crown`` (winners)."""
    w = height if kind != "turn" else round(height * 0.8)
    big, draw, s = supersampled((w, height), background)
    W, H = w * s, height * s
    if kind == "turn":
        draw.polygon([(0, H * 0.1), (W, H / 2), (0, H * 0.9)], fill=colour)
    elif kind == "flag":
        draw.rectangle((W * 0.06, H * 0.04, W * 0.17, H), fill=colour)
        x0, x1, y0, y1 = W * 0.17, W * 0.97, H * 0.04, H * 0.6
        cw, ch = (x1 - x0) / 4, (y1 - y0) / 3
        for i in range(4):
            for j in range(3):
                if (i + j) % 2 == 0:
                    draw.rectangle(
                        (x0 + i * cw, y0 + j * ch, x0 + (i + 1) * cw, y0 + (j + 1) * ch), fill=colour
                    )
        draw.rectangle((x0, y0, x1, y1), outline=colour, width=s)
    elif kind == "crown":
        draw.polygon(
            [
                (W * 0.04, H * 0.25),
                (W * 0.3, H * 0.52),
                (W * 0.5, H * 0.08),
                (W * 0.7, H * 0.52),
                (W * 0.96, H * 0.25),
                (W * 0.84, H * 0.88),
                (W * 0.16, H * 0.88),
            ],
            fill=colour,
        )
    else:
        raise ValueError(f"unknown icon {kind!r}")
    return big.reduce(s)


CELLS: Final[tuple[int | str, ...]] = (*range(-2, 13), HIDDEN, GONE)
SAMPLE_TEXT: Final = "Round 0123456789 Σ×+−… AaBbCcDdGgJjMmWwÉé"


def _swatch(theme: Theme) -> Image.Image:
    """One of every tile ``theme`` draws, to build its palette from."""
    tiles: list[Image.Image] = []
    for bg in (theme.panel, theme.background):
        tiles.extend(card_rgb(cell, bg, theme.cards) for cell in CELLS)
    tiles.append(card_rgb(-2, theme.accent, theme.cards))
    tiles.append(card_rgb(12, theme.accent, theme.cards))
    tiles.append(frame_rgb(theme.accent, theme.background))
    tiles.append(panel_rgb((90, 60), theme, True))
    tiles.append(panel_rgb((90, 60), theme, False))
    tiles.extend(seat_swatch(theme, theme.panel))
    tiles.append(pill_rgb("-0123456789", NAME_SIZE, theme.panel, theme.text, theme.panel))
    tiles.append(pill_rgb("0123456789", SMALL_SIZE + 2, WHITE, BACK_EDGE, BACK))
    for kind in ("turn", "flag", "crown"):
        tiles.append(icon_rgb(kind, theme.accent_ink, theme.panel, 22))
        tiles.append(icon_rgb(kind, theme.text, theme.panel, 22))
    for bg in (theme.panel, theme.background):
        for ink in (theme.text, theme.muted, theme.accent_ink, theme.bad):
            tiles.append(text_tile(SAMPLE_TEXT, NAME_SIZE, ink, bg))
    width = max(t.width for t in tiles)
    swatch = Image.new("RGB", (width, sum(t.height for t in tiles)), theme.background)
    y = 0
    for part in tiles:
        swatch.paste(part, (0, y))
        y += part.height
    return swatch


@lru_cache(maxsize=len(THEMES) * len(CARD_THEMES))
def palette_of(theme: Theme) -> Palette:
    """The theme's 256 colours: its flat colours exactly, and the shades its tiles need."""
    exact = [
        theme.background,
        theme.panel,
        theme.panel_edge,
        theme.text,
        theme.muted,
        theme.accent,
        theme.accent_ink,
        theme.bad,
        BACK,
        BACK_LINE,
        BACK_EDGE,
        BACK_MARK,
        WHITE,
        *SEAT_RGBS,
    ]
    for fill, ink in SAFE_BANDS if theme.cards == "colourblind" else BANDS:
        exact.extend((fill, ink, mix(fill, WHITE, 0.28), mix(fill, BLACK, 0.45)))
    return Palette(_swatch(theme), exact)


@lru_cache(maxsize=1024)
def tile(theme: Theme, maker: Callable[..., Image.Image], *args: Any) -> Image.Image:
    """``maker(*args)`` converted to the theme's palette, drawn once."""
    return palette_of(theme).convert(maker(*args))
