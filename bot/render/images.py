"""Shared Pillow helpers: the bundled font, cached text and tiles, composition and PNG encoding.

Everything that is drawn the same way again and again (a card face, a name, a number) is drawn once
and kept in an LRU cache; an image is then mostly a sequence of plain pastes of opaque RGB tiles,
which is what keeps a whole table under a few milliseconds before encoding.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Final, TypeAlias

from PIL import Image, ImageDraw, ImageFont

from bot.i18n import template
from bot.render.names import ComputerName
from bot.render.seats import SEAT_COLOURS

SEAT_RGBS: Final = tuple(colour.rgb for colour in SEAT_COLOURS)

RGB: TypeAlias = tuple[int, int, int]
Font: TypeAlias = ImageFont.FreeTypeFont | ImageFont.ImageFont

# data/ lives at the top of the repository (the project is installed editable), next to bot/.
REPO_ROOT: Final = Path(__file__).resolve().parents[2]
FONT_PATH: Final = REPO_ROOT / "data" / "fonts" / "DejaVuSans-Bold.ttf"

# Zlib level 1: the images are flat colours, so a higher level buys a few kB for several times the time.
PNG_COMPRESS_LEVEL: Final = 1
ELLIPSIS: Final = "…"


@lru_cache(maxsize=64)
def font(size: int) -> Font:
    """The bundled bold font at ``size`` pixels; Pillow's default font if the file is missing."""
    try:
        # BASIC layout: the same glyph positions with or without libraqm, so images are reproducible.
        return ImageFont.truetype(str(FONT_PATH), size, layout_engine=ImageFont.Layout.BASIC)
    except OSError:
        return ImageFont.load_default(size)


def hex_rgb(value: str) -> RGB:
    """``"#rrggbb"`` as an (r, g, b) tuple."""
    value = value.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """The colour ``t`` of the way from ``a`` to ``b``."""
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def text_width(text: str, size: int) -> int:
    """The advance width of ``text`` in the bundled font at ``size``."""
    return round(font(size).getlength(text))


@lru_cache(maxsize=1024)
def fit_text(text: str, size: int, max_width: int) -> str:
    """``text``, cut with an ellipsis if needed so that it is at most ``max_width`` pixels wide."""
    if text_width(text, size) <= max_width:
        return text
    low, high = 0, len(text)
    while low < high:  # the longest prefix that fits with the ellipsis
        mid = (low + high + 1) // 2
        if text_width(text[:mid].rstrip() + ELLIPSIS, size) <= max_width:
            low = mid
        else:
            high = mid - 1
    return text[:low].rstrip() + ELLIPSIS


def wrap_text(text: str, size: int, max_width: int, max_lines: int = 2) -> list[str]:
    """``text`` broken at spaces into at most ``max_lines`` lines that fit, the last one cut if need be."""
    lines: list[str] = []
    words = text.split()
    while words and len(lines) < max_lines - 1:
        line = words.pop(0)
        while words and text_width(f"{line} {words[0]}", size) <= max_width:
            line += " " + words.pop(0)
        lines.append(fit_text(line, size, max_width))
    if words:
        lines.append(fit_text(" ".join(words), size, max_width))
    return lines or [""]


class Palette:
    """A fixed palette of 256 colours in which whole images are composed, one byte a pixel.

    Tiles are converted to it once, when they are cached; a canvas in the same palette then takes
    them with plain byte copies, and PNG encodes an 8-bit palette image several times faster than
    RGB (no per-row filter search and a third of the bytes). The palette is built from a swatch
    holding one of every tile a renderer draws, so antialiased edges keep their intermediate shades;
    ``exact`` colours (flat fills) are kept exactly.
    """

    def __init__(self, swatch: Image.Image, exact: Iterable[RGB]) -> None:
        fixed = list(dict.fromkeys(exact))
        quantized = swatch.convert("RGB").quantize(
            256 - len(fixed), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
        raw = quantized.getpalette() or []
        shades = [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw) - 2, 3)]
        # Drop shades a hair away from an exact colour: Pillow's nearest-colour lookup is coarse and
        # could pick them instead, turning a flat fill one step off.
        shades = [
            c for c in shades if all(max(abs(a - b) for a, b in zip(c, f, strict=True)) > 4 for f in fixed)
        ]
        self.colours: list[RGB] = list(dict.fromkeys(fixed + shades))[:256]
        self.image = Image.new("P", (1, 1))
        self.image.putpalette([v for c in self.colours for v in c])

    def convert(self, image: Image.Image) -> Image.Image:
        """``image`` mapped to the nearest colours of this palette (no dithering: flat areas stay flat)."""
        return image.convert("RGB").quantize(palette=self.image, dither=Image.Dither.NONE)

    def index(self, colour: RGB) -> int:
        """The palette index nearest to ``colour``."""
        pixel = self.convert(Image.new("RGB", (1, 1), colour)).getpixel((0, 0))
        assert isinstance(pixel, int)
        return pixel

    def canvas(self, size: tuple[int, int], colour: RGB) -> Image.Image:
        """A new palette image of ``size`` filled with ``colour``."""
        image = Image.new("P", size, self.index(colour))
        image.putpalette(self.image.getpalette() or [])
        return image


def swatch(tiles: Sequence[Image.Image], background: RGB) -> Image.Image:
    """``tiles`` stacked in one RGB image: what a renderer's :class:`Palette` is built from."""
    width = max(t.width for t in tiles)
    image = Image.new("RGB", (width, sum(t.height for t in tiles)), background)
    y = 0
    for part in tiles:
        image.paste(part, (0, y))
        y += part.height
    return image


@lru_cache(maxsize=1)
def _missing_glyph() -> tuple[tuple[int, int], bytes]:
    mask = font(32).getmask("\U0010ffff")  # a noncharacter: no font has a glyph for it
    return mask.size, bytes(mask)


@lru_cache(maxsize=4096)
def has_glyph(char: str) -> bool:
    """Whether the bundled font draws ``char`` (rather than its empty box for a missing glyph)."""
    if not char.isprintable():
        return False
    if not isinstance(font(32), ImageFont.FreeTypeFont):
        return char.isascii()
    mask = font(32).getmask(char)
    return (mask.size, bytes(mask)) != _missing_glyph()


def drawable(text: str) -> str:
    """``text`` without the characters the font cannot draw (emoji in a display name, say), so
    they do not come out as boxes; runs of spaces left behind are closed up."""
    return " ".join("".join(c for c in text if has_glyph(c)).split())


def text_tile(text: str, size: int, colour: RGB, background: RGB) -> Image.Image:
    """``text`` drawn once on an opaque RGB ``background`` tile, as tall as the font's line box.

    The tile's height depends only on the size, so tiles of one size line up on a common baseline.
    """
    f = font(size)
    ascent, descent = f.getmetrics() if isinstance(f, ImageFont.FreeTypeFont) else (size, 0)
    width = max(1, text_width(text, size))
    tile = Image.new("RGB", (width, ascent + descent), background)
    ImageDraw.Draw(tile).text((0, 0), text, font=f, fill=colour)
    return tile


@lru_cache(maxsize=2048)
def _text_in(palette: Palette, text: str, size: int, colour: RGB, background: RGB) -> Image.Image:
    return palette.convert(text_tile(text, size, colour, background))


def paste_text(
    canvas: Image.Image,
    palette: Palette,
    xy: tuple[int, int],
    text: str,
    size: int,
    colour: RGB,
    background: RGB,
    anchor: str = "lt",
) -> tuple[int, int]:
    """Paste cached text; ``anchor`` is ``l``/``m``/``r`` then ``t``/``m``/``b`` of the line box.

    Returns the pasted tile's (width, height).
    """
    tile = _text_in(palette, text, size, colour, background)
    x, y = xy
    w, h = tile.size
    if anchor[0] == "m":
        x -= w // 2
    elif anchor[0] == "r":
        x -= w
    if anchor[1] == "m":
        y -= h // 2
    elif anchor[1] == "b":
        y -= h
    canvas.paste(tile, (x, y))
    return w, h


# The seat words both pictures draw (English defaults; :func:`picture_labels` gives each language's):
# what a panel header's numbers are, and a computer player's name with its level on a second line.
SEAT_LABELS: Final[Mapping[str, str]] = {
    "round_score": "round {score}",
    "total": "{total} pts",
    "computer": "CPU {number}",
    "level_easy": "easy",
    "level_normal": "normal",
    "level_hard": "hard",
}
# The labels a picture takes from the messages every text says a computer player with (issue 47: one
# name everywhere), not from the game's own ``table.image.<game>.*`` words.
COMPUTER_LABELS: Final[Mapping[str, str]] = {
    "computer": "table.ai.name",
    "level_easy": "table.ai.level.easy",
    "level_normal": "table.ai.level.normal",
    "level_hard": "table.ai.level.hard",
}


def picture_labels(kind: str, keys: Iterable[str], locale: object) -> dict[str, str]:
    """The words of a ``kind`` game's picture in ``locale`` for the label ``keys`` (its renderer's
    ``DEFAULT_LABELS``): its own ``table.image.<kind>.<key>`` messages, a computer's name and level
    from the same messages as in every text (:func:`bot.render.names.computer_name`)."""
    return {key: template(COMPUTER_LABELS.get(key) or f"table.image.{kind}.{key}", locale) for key in keys}


def picture_name(name: str, labels: Mapping[str, str]) -> tuple[str, str]:
    """(name, second line) of a seat in a picture, in the picture's language (``labels``): a computer
    player is "CPU 1", as in every text, with its level ("normal") as the second line; anyone else
    has no second line. Both are drawable (see :func:`drawable`)."""
    if isinstance(name, ComputerName):
        number = labels.get("computer", SEAT_LABELS["computer"]).format(number=name.number)
        return drawable(number), drawable(labels.get(f"level_{name.level}", name.level))
    return drawable(str(name)), ""


def one_line_name(name: str, labels: Mapping[str, str]) -> str:
    """A seat's name on one line, in a sentence ("CPU 1 to play"): a computer's without its level, as
    every sentence of the texts says it."""
    return picture_name(name, labels)[0]


# The smallest size a panel's second line shrinks to before it is cut.
SECOND_LINE_LEAST: Final = 11


def name_layout(
    lines: tuple[str, str],
    sizes: tuple[int, int],
    max_width: int,
    below_width: int | None = None,
    below_size: int | None = None,
) -> tuple[tuple[str, int], tuple[str, int]]:
    """((text, size) of the name, (text, size) of the second line) as :func:`paste_name` draws them.

    The rule: each line is shown whole whenever it can be. The name gets smaller from the largest
    of ``sizes`` to the smallest, within ``max_width``; the second line (a computer's level, a
    note) from ``below_size`` (two below the smallest) down to :data:`SECOND_LINE_LEAST`, within
    ``below_width`` (the name's width unless given: a picture may give it the panel's whole width,
    under the marks and the total). Only below the smallest size is a line cut with an ellipsis."""
    first, second = lines
    big, small = sizes
    size = next((s for s in range(big, small - 1, -1) if text_width(first, s) <= max_width), small)
    top = (fit_text(first, size, max_width), size)
    width = max_width if below_width is None else below_width
    start = small - 2 if below_size is None else below_size
    least = min(SECOND_LINE_LEAST, start)
    under = next((s for s in range(start, least - 1, -1) if text_width(second, s) <= width), least)
    return top, (fit_text(second, under, width) if second else "", under)


def paste_name(
    canvas: Image.Image,
    palette: Palette,
    xy: tuple[int, int],
    lines: tuple[str, str],
    sizes: tuple[int, int],
    max_width: int,
    colours: tuple[RGB, RGB],
    background: RGB,
    below: tuple[int, int] | None = None,
    below_size: int | None = None,
) -> None:
    """A panel's name above a small second line, at the left-middle point ``xy``, within
    ``max_width`` pixels (the layout and its rule: :func:`name_layout`). ``below`` is the x and the
    width of the second line when it runs wider than the name (from the panel's left edge)."""
    x, cy = xy
    below_x, below_width = below if below is not None else (x, None)
    (top, size), (under, under_size) = name_layout(lines, sizes, max_width, below_width, below_size)
    paste_text(canvas, palette, (x, cy - 8), top, size, colours[0], background, anchor="lm")
    if under:
        ink = colours[1]
        paste_text(canvas, palette, (below_x, cy + 11), under, under_size, ink, background, anchor="lm")


@lru_cache(maxsize=64)
def _turn_tag(palette: Palette, colour: RGB, background: RGB) -> Image.Image:
    return palette.convert(dot_rgb(colour, background, TURN_DOT))


def paste_status(
    canvas: Image.Image,
    palette: Palette,
    lines: Sequence[tuple[str, int, str]],
    theme: Theme,
    width: int,
    turn: RGB | None,
    band: tuple[int, int, int],
) -> None:
    """A table picture's status text, ``lines`` of (text, size, role: ``text``, ``muted``, ``accent``,
    ``bad`` or ``turn``), each wrapped within ``width`` pixels, centred in ``band`` (left, top, height)
    on the background. The ``turn`` line ("Alice to play") starts with the seat's tag, a disc of its
    colour ``turn`` (:mod:`bot.render.seats`: the table message's accent)."""
    left, top, height = band
    colours = {"text": theme.text, "muted": theme.muted, "accent": theme.accent_ink, "bad": theme.bad}
    colours["turn"] = theme.text
    indent = TURN_DOT + 10 if turn is not None else 0
    wrapped = [
        (line, size, role, k == 0 and role == "turn" and turn is not None)
        for text, size, role in lines
        for k, line in enumerate(wrap_text(text, size, width - (indent if role == "turn" else 0)))
    ]
    heights = [round(size * 1.3) for _, size, _, _ in wrapped]
    y = top + (height - sum(heights)) // 2
    for (text, size, role, dot), h in zip(wrapped, heights, strict=True):
        x = left + (indent if role == "turn" else 0)
        if dot and turn is not None:
            tag = _turn_tag(palette, turn, theme.background)
            canvas.paste(tag, (left, y + h // 2 - TURN_DOT // 2))
        paste_text(canvas, palette, (x, y + h // 2), text, size, colours[role], theme.background, "lm")
        y += h


def rounded_box(
    size: tuple[int, int],
    radius: int,
    fill: RGB,
    background: RGB,
    outline: RGB | None = None,
    width: int = 0,
) -> Image.Image:
    """An opaque RGB tile: a rounded rectangle on ``background``, its corners antialiased.

    Drawn at twice the size and reduced, since Pillow's rounded rectangles have hard edges.
    """
    w, h = size
    big = Image.new("RGB", (w * 2, h * 2), background)
    ImageDraw.Draw(big).rounded_rectangle(
        (0, 0, w * 2 - 1, h * 2 - 1), radius * 2, fill=fill, outline=outline, width=width * 2
    )
    return big.reduce(2)


def encode_png(image: Image.Image) -> bytes:
    """``image`` as PNG bytes, tuned for speed over size."""
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()


# --------------------------------------------------------------------------------------------------
# What every table picture shares: its themes and the players' panels


@dataclass(frozen=True, slots=True)
class Theme:
    """The colours round the cards (``name``: dark or light) and the cards' own look (``cards``:
    :data:`CARD_THEMES`); a Theme is the key of every cached tile and palette, so each pair has its own."""

    name: str
    background: RGB
    panel: RGB
    panel_edge: RGB
    text: RGB
    muted: RGB
    accent: RGB  # the frame of a winner and of a drawn card (the turn's is its seat's colour)
    accent_ink: RGB  # text and marks in the accent colour, readable on the panel and the background
    bad: RGB
    cards: str = "classic"


# The cards' looks a player may choose (``/skybo display``; the same names as bot.storage.prefs):
# ``colourblind`` uses Okabe and Ito's colours, told apart with deuteranopia and protanopia too, and
# adds a shape for each colour group in the cards' corners, so no card's meaning rests on hue alone.
CARD_THEMES: Final = ("classic", "colourblind")

THEMES: Final[Mapping[str, Theme]] = {
    # Darker than Discord's dark chat (#313338), so the table reads as a board of its own.
    "dark": Theme(
        name="dark",
        background=hex_rgb("#17181c"),
        panel=hex_rgb("#262830"),
        panel_edge=hex_rgb("#3a3d48"),
        text=hex_rgb("#f4f5f7"),
        muted=hex_rgb("#a9aeb8"),
        accent=hex_rgb("#ffc53d"),
        accent_ink=hex_rgb("#ffc53d"),
        bad=hex_rgb("#ff7a70"),
    ),
    # Light grey, not white, so the table stands apart from Discord's white chat.
    "light": Theme(
        name="light",
        background=hex_rgb("#e3e5e8"),
        panel=hex_rgb("#fbfbfc"),
        panel_edge=hex_rgb("#c9ccd2"),
        text=hex_rgb("#15161a"),
        muted=hex_rgb("#545862"),
        accent=hex_rgb("#f0a500"),
        accent_ink=hex_rgb("#a35f00"),
        bad=hex_rgb("#c62d22"),
    ),
}


PANEL_RADIUS: Final = 14
BORDER: Final = 4  # the highlight round the panel of the player whose turn it is


def theme_named(name: str, cards: str = "classic") -> Theme:
    """The theme ``name`` with the cards' look ``cards``."""
    try:
        theme = THEMES[name]
    except KeyError:
        raise ValueError(f"unknown theme {name!r}; known: {', '.join(THEMES)}") from None
    if cards not in CARD_THEMES:
        raise ValueError(f"unknown cards {cards!r}; known: {', '.join(CARD_THEMES)}")
    return theme if cards == theme.cards else replace(theme, cards=cards)


def is_dark(colour: RGB) -> bool:
    return sum(colour) < 384


def supersampled(size: tuple[int, int], background: RGB) -> tuple[Image.Image, ImageDraw.ImageDraw, int]:
    scale = 3
    big = Image.new("RGB", (size[0] * scale, size[1] * scale), background)
    return big, ImageDraw.Draw(big), scale


def panel_rgb(
    size: tuple[int, int], theme: Theme, highlighted: bool, border: RGB | None = None
) -> Image.Image:
    """A player's panel background; a highlighted one (the player to act, in ``border``: their seat's
    colour; a winner, in the theme's accent) gets a thick border."""
    if highlighted:
        edge = theme.accent if border is None else border
        return rounded_box(size, PANEL_RADIUS, theme.panel, theme.background, edge, BORDER)
    return rounded_box(size, PANEL_RADIUS, theme.panel, theme.background, theme.panel_edge, 1)


SEAT_DOT: Final = 16  # the seat's coloured tag before a panel's name (bot.render.seats)


def dot_rgb(colour: RGB, background: RGB, size: int = SEAT_DOT) -> Image.Image:
    """A seat's tag: a disc of its colour (:mod:`bot.render.seats`), the same shape as the coloured
    circle that starts its line in the table message; an opaque tile on ``background``."""
    big = Image.new("RGB", (size * 4, size * 4), background)
    ImageDraw.Draw(big).ellipse((0, 0, size * 4 - 1, size * 4 - 1), fill=colour)
    return big.reduce(4)


TURN_DOT: Final = 20  # the seat's tag before "… to play" at the top of a table picture


def seat_swatch(theme: Theme, background: RGB) -> list[Image.Image]:
    """The tiles the seat colours add to a picture (each seat's tag on its panel and before the turn's
    line, the highlighted panel), for the palette's shades."""
    tiles = []
    for colour in SEAT_RGBS:
        tiles.append(dot_rgb(colour, background))
        tiles.append(dot_rgb(colour, theme.background, TURN_DOT))
        tiles.append(panel_rgb((90, 60), theme, True, colour))
    return tiles


def draw_shape(
    draw: ImageDraw.ImageDraw, kind: str, box: tuple[float, float, float, float], fill: RGB, edge: RGB
) -> None:
    """A colour group's mark for the colour-blind cards (``circle``, ``square``, ``diamond``, ``up``
    and ``down`` triangles, ``star``) filling ``box``, outlined in ``edge`` so that it stands out on a
    card of any colour."""
    x0, y0, x1, y1 = box
    cx, cy, rx, ry = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2
    line = max(1, round(min(rx, ry) / 4))
    if kind == "circle":
        draw.ellipse(box, fill=fill, outline=edge, width=line)
        return
    if kind == "square":
        inset = (x0 + rx * 0.12, y0 + ry * 0.12, x1 - rx * 0.12, y1 - ry * 0.12)
        draw.rectangle(inset, fill=fill, outline=edge, width=line)
        return
    if kind == "diamond":
        points = [(cx, y0), (x1, cy), (cx, y1), (x0, cy)]
    elif kind == "up":
        points = [(cx, y0), (x1, y1), (x0, y1)]
    elif kind == "down":
        points = [(x0, y0), (x1, y0), (cx, y1)]
    elif kind == "star":
        points = []
        for k in range(10):
            r = 1.0 if k % 2 == 0 else 0.45
            angle = math.pi / 2 + k * math.pi / 5
            points.append((cx + r * rx * math.cos(angle), cy - r * ry * math.sin(angle)))
    else:
        raise ValueError(f"unknown shape {kind!r}")
    draw.polygon(points, fill=fill, outline=edge, width=line)


# Each shape as a text character, for the buttons of a colour-blind player's panel: the same mark as
# the card's corners in the picture, in plain text (none of these has an emoji form that a phone
# would draw in colour, and Discord takes any text in a button's label).
SHAPE_MARKS: Final[Mapping[str, str]] = {
    "down": "▼",
    "circle": "●",
    "square": "■",
    "diamond": "◆",
    "up": "▲",
    "star": "★",
}


def corner_shapes(big: Image.Image, kind: str, ink: RGB, size: int, inset: tuple[int, int]) -> None:
    """A colour-blind card's group mark ``kind`` (:func:`draw_shape`), ``size`` pixels square, top right
    and bottom left of the card ``big``, ``inset`` (x, y) pixels from its edges; upright in both
    corners (a triangle turned over would read as another group's)."""
    w, h = big.size
    dx, dy = inset
    draw = ImageDraw.Draw(big)
    for x, y in ((w - dx - size, dy), (dx, h - dy - size)):
        draw_shape(draw, kind, (x, y, x + size, y + size), ink, ink)
