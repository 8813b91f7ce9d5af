"""The tiles of the Skip-Bo pictures: card faces (a Skip-Bo card with the value it stands for),
backs, hand-size backs, pills and icons, drawn once in RGB and kept in each theme's palette; the sizes
and colours every Skip-Bo picture shares."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, Final

from PIL import Image, ImageDraw

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
    swatch,
    text_tile,
    text_width,
)

WILD: Final = 0
TOP_VALUE: Final = 12
BUILDING_PILES: Final = 4
DISCARD_PILES: Final = 4
BACK: Final = "back"
EMPTY: Final = "empty"

# Sizes in pixels. A table of 4 is about 800 px wide: Discord on a phone shows it at full width,
# where a card's digit is still readable at a glance.
CARD_W: Final = 60
CARD_H: Final = 84
CARD_RADIUS: Final = 8
CARD_FRAME: Final = 5  # the coloured frame round a number card's white face
CARD_DIGIT: Final = 36
CARD_CORNER: Final = 12
FAN_STEP: Final = 21  # what shows of each card under a discard pile's top: its corner index
FAN_CARDS: Final = 3  # cards shown of a discard pile, the top one whole
STACK_STEP: Final = 3  # offset of the card backs peeking out under a stock or the draw pile
PILE_GAP: Final = 8
STOCK_GAP: Final = 22
PANEL_PAD: Final = 12
PANEL_HEADER: Final = 38
PANEL_GAP: Final = 14
MARGIN: Final = 16
NAME_SIZE: Final = 20
SMALL_SIZE: Final = 15
TITLE_SIZE: Final = 24
MINI_W: Final = 17  # the little card backs counting a hand
MINI_H: Final = 24
MINI_STEP: Final = 8
PER_ROW: Final = 2  # panels side by side (a phone screen is narrow)

# The deck's colour bands: (frame, digit). 1-4 blue, 5-8 green, 9-12 red; Skip-Bo cards orange.
BLUE: Final = (hex_rgb("#1f6fd1"), hex_rgb("#134a96"))
GREEN: Final = (hex_rgb("#22a04b"), hex_rgb("#116b2d"))
RED: Final = (hex_rgb("#e0305f"), hex_rgb("#a8123f"))
ORANGE: Final = (hex_rgb("#ff8a1c"), hex_rgb("#8a3c00"))
BANDS: Final = (BLUE, GREEN, RED, ORANGE)
# The colour-blind cards (``cards="colourblind"``): the same groups in Okabe and Ito's colours, which
# stay apart under deuteranopia and protanopia (tests/games/test_colour_vision.py measures it), each
# with its own shape in two corners: 1-4 a square, 5-8 a diamond, 9-12 a triangle, a Skip-Bo card a star.
SAFE_BANDS: Final = (
    (hex_rgb("#0072b2"), hex_rgb("#004a74")),  # blue
    (hex_rgb("#009e73"), hex_rgb("#00664a")),  # bluish green
    (hex_rgb("#d55e00"), hex_rgb("#8f3f00")),  # vermillion
    (hex_rgb("#f0e442"), hex_rgb("#5c5600")),  # yellow: the Skip-Bo card
)
SHAPES: Final = ("square", "diamond", "up", "star")
SHAPE_SIZE: Final = 10
FACE: Final = hex_rgb("#fbfaf5")  # the white face of a number card
# Card backs: a deep navy with an orange mark, darker than any face so a back never reads as a card.
BACK_FILL: Final = hex_rgb("#1d2a5e")
BACK_EDGE: Final = hex_rgb("#0e1536")
BACK_MARK: Final = hex_rgb("#ff8a1c")
# Teams (SB-VAR-TEAM-1): a pill of the team's colour on each partner's panel.
TEAM_COLOURS: Final = (hex_rgb("#4cc3f0"), hex_rgb("#f07cc0"), hex_rgb("#9bd84a"))
TEAM_INK: Final = hex_rgb("#10131a")
BLACK: Final = (0, 0, 0)
WHITE: Final = (255, 255, 255)


def group(value: int) -> int:
    """A card's colour group: 0 for 1-4, 1 for 5-8, 2 for 9-12, 3 for a Skip-Bo card."""
    if value == WILD:
        return 3
    return 0 if value <= 4 else 1 if value <= 8 else 2


def band(value: int, cards: str = "classic") -> tuple[RGB, RGB]:
    """The (frame, digit) colours of a card: 1-4 blue, 5-8 green, 9-12 red, a Skip-Bo card orange
    (the colour-blind cards: :data:`SAFE_BANDS`)."""
    return (SAFE_BANDS if cards == "colourblind" else BANDS)[group(value)]


# --------------------------------------------------------------------------------------------------
# Tiles, drawn once in RGB (supersampled for smooth edges), then kept in each theme's palette


def _fitting(text: str, size: int, width: int) -> int:
    while size > 10 and text_width(text, size) > width:
        size -= 1
    return size


def _corners(big: Image.Image, text: str, ink: RGB, s: int, inset: int) -> Image.Image:
    """Corner indices, the bottom one upside down as on a real card."""
    corner = font(CARD_CORNER * s)
    ImageDraw.Draw(big).text((inset * s, (inset - 2) * s), text, font=corner, fill=ink, anchor="la")
    big = big.rotate(180)
    ImageDraw.Draw(big).text((inset * s, (inset - 2) * s), text, font=corner, fill=ink, anchor="la")
    return big.rotate(180)


@lru_cache(maxsize=512)
def card_rgb(card: int | str, background: RGB, stands_for: int = 0, cards: str = "classic") -> Image.Image:
    """One card on ``background``: a value 1..12, ``WILD`` (0) for a Skip-Bo card, ``"back"`` or
    ``"empty"`` (a free place). A Skip-Bo card ``stands_for`` a value on a building pile: a badge
    shows it. ``cards`` is the faces' look (the colour-blind one adds each group's shape)."""
    w, h = CARD_W, CARD_H
    big, draw, s = supersampled((w, h), background)
    box = (0, 0, w * s - 1, h * s - 1)
    r = CARD_RADIUS * s
    if card == EMPTY:
        dark = is_dark(background)
        slot = mix(background, BLACK, 0.25 if dark else 0.05)
        edge = mix(background, WHITE, 0.14) if dark else mix(background, BLACK, 0.16)
        draw.rounded_rectangle(box, r, fill=slot, outline=edge, width=2 * s)
    elif card == BACK:
        draw.rounded_rectangle(box, r, fill=BACK_EDGE)
        inner = (3 * s, 3 * s, (w - 3) * s - 1, (h - 3) * s - 1)
        draw.rounded_rectangle(inner, r - 3 * s, fill=BACK_FILL)
        cx, cy = w * s / 2, (h / 2 - 7) * s  # above the pill of the draw pile's size
        draw.ellipse((cx - 21 * s, cy - 13 * s, cx + 21 * s, cy + 13 * s), fill=BACK_MARK)
        draw.ellipse((cx - 18 * s, cy - 10 * s, cx + 18 * s, cy + 10 * s), fill=BACK_EDGE)
        draw.text((cx, cy + s), "SB", font=font(15 * s), fill=BACK_MARK, anchor="mm")
    elif card == WILD:
        fill, ink = band(WILD, cards)
        letters = WHITE if cards == "classic" else ink  # on the colour-blind cards' light yellow
        draw.rounded_rectangle(box, r, fill=ink)
        inner = (2 * s, 2 * s, (w - 2) * s - 1, (h - 2) * s - 1)
        draw.rounded_rectangle(inner, r - 2 * s, fill=fill)
        draw.ellipse((8 * s, 16 * s, (w - 8) * s, (h - 16) * s), fill=mix(fill, WHITE, 0.25))
        cy = h * s // 2 + s if not stands_for else 25 * s
        size = _fitting("SB", 27 if not stands_for else 24, w - 18)
        draw.text(
            (w * s // 2, cy),
            "SB",
            font=font(size * s),
            fill=letters,
            anchor="mm",
            stroke_width=s if letters == WHITE else 0,
            stroke_fill=ink,
        )
        if not stands_for:
            big = _corners(big, "SB", ink, s, 5)
        else:
            # The value it stands for, in that value's colours, in a disc low on the card (no bottom
            # corner index: the disc is what the eye reads).
            vfill, _ = band(stands_for, cards)
            cx, cy, rad = w * s / 2, 57 * s, 18 * s
            draw.ellipse((cx - rad, cy - rad, cx + rad, cy + rad), fill=WHITE)
            rad -= 2 * s
            draw.ellipse((cx - rad, cy - rad, cx + rad, cy + rad), fill=vfill)
            text = str(stands_for)
            draw.text((cx, cy + s), text, font=font(_fitting(text, 21, 28) * s), fill=WHITE, anchor="mm")
        if cards == "colourblind":
            corner_shapes(big, SHAPES[group(WILD)], ink, SHAPE_SIZE * s, (5 * s, 4 * s))
    elif isinstance(card, int) and not isinstance(card, bool) and 1 <= card <= TOP_VALUE:
        fill, ink = band(card, cards)
        draw.rounded_rectangle(box, r, fill=mix(fill, BLACK, 0.3))
        draw.rounded_rectangle((s, s, (w - 1) * s - 1, (h - 1) * s - 1), r - s, fill=fill)
        f = CARD_FRAME
        face = (f * s, f * s, (w - f) * s - 1, (h - f) * s - 1)
        draw.rounded_rectangle(face, r - 3 * s, fill=FACE)
        text = str(card)
        size = _fitting(text, CARD_DIGIT, w - 2 * f - 8)
        draw.text((w * s // 2, h * s // 2 + 2 * s), text, font=font(size * s), fill=ink, anchor="mm")
        big = _corners(big, text, ink, s, f + 3)
        if cards == "colourblind":
            corner_shapes(big, SHAPES[group(card)], ink, SHAPE_SIZE * s, ((f + 3) * s, (f + 2) * s))
    else:
        raise ValueError(f"not a Skip-Bo card: {card!r}")
    return big.reduce(s)


def mini_hand_rgb(count: int, background: RGB) -> Image.Image:
    """``count`` little card backs fanned, then the count: the size of a hand without its cards."""
    shown = max(1, min(count, 5))
    backs_w = MINI_W + (shown - 1) * MINI_STEP
    text = str(count)
    w = backs_w + 4 + text_width(text, SMALL_SIZE + 1)
    big, draw, s = supersampled((w, MINI_H), background)
    dark = is_dark(background)
    rim = mix(BACK_FILL, WHITE, 0.55) if dark else BACK_EDGE
    if count == 0:
        edge = mix(background, WHITE, 0.3) if dark else mix(background, BLACK, 0.3)
        box = (s, s, MINI_W * s - 1, MINI_H * s - 1)
        draw.rounded_rectangle(box, 3 * s, outline=edge, width=s)
    for k in range(min(count, 5)):
        x = k * MINI_STEP * s
        draw.rounded_rectangle((x, 0, x + MINI_W * s - 1, MINI_H * s - 1), 3 * s, fill=rim)
        inner = (x + s, s, x + (MINI_W - 1) * s - 1, (MINI_H - 1) * s - 1)
        draw.rounded_rectangle(inner, 3 * s, fill=BACK_FILL)
        if k == min(count, 5) - 1:  # the mark of the deck's backs, on the top card only
            cx, cy = x + MINI_W * s / 2, MINI_H * s / 2
            draw.ellipse((cx - 4 * s, cy - 6 * s, cx + 4 * s, cy + 6 * s), outline=BACK_MARK, width=s)
    ink = WHITE if dark else BLACK
    ink = mix(ink, background, 0.25)
    draw.text(
        ((backs_w + 4) * s, MINI_H * s // 2 + s), text, font=font((SMALL_SIZE + 1) * s), fill=ink, anchor="lm"
    )
    return big.reduce(s)


def pill_rgb(text: str, size: int, colour: RGB, fill: RGB, background: RGB) -> Image.Image:
    """Text in a rounded pill: totals, pile sizes, team names."""
    w = text_width(text, size) + size
    h = round(size * 1.45)
    pill = rounded_box((w, h), h // 2, fill, background)
    ImageDraw.Draw(pill).text((w // 2, h // 2 + 1), text, font=font(size), fill=colour, anchor="mm")
    return pill


def icon_rgb(kind: str, colour: RGB, background: RGB, height: int) -> Image.Image:
    """Small language-free marks: ``turn`` (a triangle), ``crown`` (winners)."""
    w = height if kind != "turn" else round(height * 0.8)
    big, draw, s = supersampled((w, height), background)
    W, H = w * s, height * s
    if kind == "turn":
        draw.polygon([(0, H * 0.1), (W, H / 2), (0, H * 0.9)], fill=colour)
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


CARDS: Final[tuple[int | str, ...]] = (*range(0, TOP_VALUE + 1), BACK, EMPTY)
SAMPLE_TEXT: Final = "Round 0123456789 ×+−… AaBbCcDdGgJjMmWwÉé"


def _swatch(theme: Theme) -> Image.Image:
    """One of every tile ``theme`` draws, to build its palette from."""
    tiles: list[Image.Image] = []
    for bg in (theme.panel, theme.background):
        tiles.extend(card_rgb(card, bg, 0, theme.cards) for card in CARDS)
        tiles.extend(card_rgb(WILD, bg, v, theme.cards) for v in (1, 5, 12))
        tiles.append(mini_hand_rgb(5, bg))
    tiles.append(panel_rgb((90, 60), theme, True))
    tiles.append(panel_rgb((90, 60), theme, False))
    tiles.append(pill_rgb("0123456789", NAME_SIZE, theme.panel, theme.text, theme.panel))
    tiles.append(pill_rgb("0123456789", SMALL_SIZE, theme.text, theme.panel_edge, theme.panel))
    tiles.append(pill_rgb("0123456789", SMALL_SIZE + 2, WHITE, BACK_EDGE, BACK_FILL))
    for colour in TEAM_COLOURS:
        tiles.append(pill_rgb("Team 123", SMALL_SIZE, TEAM_INK, colour, theme.panel))
    tiles.extend(seat_swatch(theme, theme.panel))
    for kind in ("turn", "crown"):
        tiles.append(icon_rgb(kind, theme.accent_ink, theme.panel, 22))
    for bg in (theme.panel, theme.background):
        for ink in (theme.text, theme.muted, theme.accent_ink, theme.bad):
            tiles.append(text_tile(SAMPLE_TEXT, NAME_SIZE, ink, bg))
    return swatch(tiles, theme.background)


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
        FACE,
        BACK_FILL,
        BACK_EDGE,
        BACK_MARK,
        TEAM_INK,
        WHITE,
        *TEAM_COLOURS,
        *SEAT_RGBS,
    ]
    bands = SAFE_BANDS if theme.cards == "colourblind" else BANDS
    for fill, ink in bands:
        exact.extend((fill, ink, mix(fill, BLACK, 0.3)))
    exact.append(mix(bands[3][0], WHITE, 0.25))
    return Palette(_swatch(theme), exact)


@lru_cache(maxsize=1024)
def tile(theme: Theme, maker: Callable[..., Image.Image], *args: Any) -> Image.Image:
    """``maker(*args)`` converted to the theme's palette, drawn once."""
    return palette_of(theme).convert(maker(*args))
