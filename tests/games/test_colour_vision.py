"""The colour-blind cards (issue 28 item 7), checked on the rendered table pictures of both games.

Each card group's face colour is read from a rendered table, then seen as a person with deuteranopia
or protanopia would see it: Machado, Oliveira and Fernandes (2009), severity 1.0, the matrix applied
in linear RGB. Two groups are told apart when their colours differ by more than :data:`MIN_DELTA_E`
(CIE76 in CIELAB: about 2.3 is a just noticeable difference, over 20 two distinct colours at a
glance). With ``cards="colourblind"`` every pair of groups passes under both simulations, and each
group has its own shape in the cards' corners; the classic cards fail the same measure (the test can
fail), and have no shapes.
"""

from __future__ import annotations

import io
import itertools
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bench.render import mid_game, skipbo_mid_game
from bot.games.skipbo import cards as skipbo_cards
from bot.games.skipbo import image as skipbo_image
from bot.games.skipbo.engine import WILD
from bot.games.skyjo import cards as skyjo_cards
from bot.games.skyjo import image as skyjo_image
from bot.render import images
from bot.render.images import theme_named
from bot.storage import prefs

RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]
MIN_DELTA_E = 20.0

# Machado et al. 2009, severity 1.0, on linear RGB.
SIMULATIONS: dict[str, tuple[tuple[float, float, float], ...]] = {
    "none": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
}


def _linear(channel: float) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _encoded(value: float) -> float:
    v = min(1.0, max(0.0, value))
    return 255 * (12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055)


def simulate(colour: RGB, kind: str) -> tuple[float, float, float]:
    """``colour`` as seen with ``kind`` (sRGB in and out)."""
    matrix = SIMULATIONS[kind]
    lin = [_linear(c) for c in colour]
    r, g, b = (_encoded(sum(row[j] * lin[j] for j in range(3))) for row in matrix)
    return r, g, b


def lab(colour: tuple[float, float, float]) -> tuple[float, float, float]:
    """sRGB (D65) to CIELAB."""
    r, g, b = (_linear(c) for c in colour)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(a: RGB, b: RGB, kind: str) -> float:
    """CIE76 distance of two colours as seen with ``kind``."""
    la, lb = lab(simulate(a, kind)), lab(simulate(b, kind))
    return float(sum((p - q) ** 2 for p, q in zip(la, lb, strict=True)) ** 0.5)


def picture(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def face_colour(image: Image.Image, box: Box) -> RGB:
    """The main colour of a card's face: the commonest in a strip along its left side, inside the
    edge (the Skyjo card's fill, the Skip-Bo card's coloured frame), clear of the corners."""
    left, top, _, bottom = box
    middle = (top + bottom) // 2
    pixels = [image.getpixel((x, y)) for x in (left + 3, left + 4) for y in range(middle - 8, middle + 8)]
    colour, _ = Counter(pixels).most_common(1)[0]
    assert isinstance(colour, tuple)
    return (int(colour[0]), int(colour[1]), int(colour[2]))


def _far(a: Any, b: RGB) -> bool:
    return sum(abs(int(p) - q) for p, q in zip(a, b, strict=False)) > 90


def corner_mark(image: Image.Image, box: Box, face: RGB) -> frozenset[tuple[int, int]]:
    """The pixels of a card's top right corner that are neither the card's ground (as at the middle
    of its top edge: the Skyjo card's fill, the Skip-Bo card's white) nor the face colour: its
    group's shape."""
    left, top, right, _ = box
    places = [(dx, dy) for dx in range(5, 20) for dy in range(4, 17)]
    pixels = {(dx, dy): image.getpixel((right - dx, top + dy)) for dx, dy in places}
    edge = [image.getpixel((x, y)) for x in range(left + 24, right - 24) for y in range(top + 6, top + 10)]
    commonest, _ = Counter(edge).most_common(1)[0]
    assert isinstance(commonest, tuple)
    ground = (int(commonest[0]), int(commonest[1]), int(commonest[2]))
    return frozenset(xy for xy, pixel in pixels.items() if _far(pixel, ground) and _far(pixel, face))


# ------------------------------------------------------------------------------------------------
# The tables: every colour group on one table, each at a known place


def skyjo_table() -> tuple[dict[str, Any], list[Box], list[str]]:
    """A Skyjo table of 2 whose first grid shows one card of each group."""
    view: dict[str, Any] = json.loads(json.dumps(mid_game(2, seed=3, turns=0).view(None)))
    groups = {"below zero": -2, "zero": 0, "1 to 4": 3, "5 to 8": 6, "9 to 12": 11}
    grid = view["grids"][0]
    grid[: len(groups)] = list(groups.values())
    boxes = skyjo_image.card_boxes(view)[0][: len(groups)]
    return view, boxes, list(groups)


def skipbo_table() -> tuple[dict[str, Any], list[Box], list[str]]:
    """A Skip-Bo table whose building piles show one card of each group (a Skip-Bo card on one)."""
    view: dict[str, Any] = json.loads(json.dumps(skipbo_mid_game(2, seed=11, turns=0).view(None)))
    view["building_piles"] = [4, 8, 12, 6]
    view["building_tops"] = [4, 8, 12, WILD]
    return view, skipbo_image.building_boxes(view), ["1 to 4", "5 to 8", "9 to 12", "Skip-Bo"]


TABLES = {
    "skyjo": (skyjo_table, skyjo_image.render_table),
    "skipbo": (skipbo_table, skipbo_image.render_table),
}


def measure(game: str, cards: str) -> tuple[dict[str, RGB], dict[str, tuple[float, str, str]], Image.Image]:
    """Each group's face colour on the rendered table, and per simulation the closest pair of groups."""
    make, render = TABLES[game]
    view, boxes, groups = make()
    image = picture(render(view, None, "dark", None, cards))
    colours = {group: face_colour(image, box) for group, box in zip(groups, boxes, strict=True)}
    closest = {
        kind: min((delta_e(colours[a], colours[b], kind), a, b) for a, b in itertools.combinations(groups, 2))
        for kind in SIMULATIONS
    }
    return colours, closest, image


@pytest.mark.parametrize("game", sorted(TABLES))
def test_colourblind_cards_stay_apart_under_deuteranopia_and_protanopia(game: str) -> None:
    _, safe, _ = measure(game, "colourblind")
    _, classic, _ = measure(game, "classic")
    for kind in SIMULATIONS:
        print(
            f"{game} {kind}: closest pair, colour-blind cards {safe[kind][0]:.1f} ({safe[kind][1]} / "
            f"{safe[kind][2]}), classic {classic[kind][0]:.1f} ({classic[kind][1]} / {classic[kind][2]})"
        )
    for kind in ("deuteranopia", "protanopia"):
        worst, a, b = safe[kind]
        assert worst > MIN_DELTA_E, f"{game}, {kind}: {a} and {b} are only {worst:.1f} apart"
    # The measure can fail: the classic cards, told apart by hue, merge for someone.
    assert min(classic[kind][0] for kind in ("deuteranopia", "protanopia")) < MIN_DELTA_E


@pytest.mark.parametrize("game", sorted(TABLES))
def test_each_colour_group_has_its_own_shape(game: str) -> None:
    make = TABLES[game][0]
    _, boxes, groups = make()
    for cards, shaped in (("colourblind", True), ("classic", False)):
        colours, _, image = measure(game, cards)
        marks = {
            group: corner_mark(image, box, colours[group]) for group, box in zip(groups, boxes, strict=True)
        }
        if not shaped:  # a few pixels at most: a rounded corner's antialiased edge
            assert all(len(mark) <= 6 for mark in marks.values()), f"{game}: a classic card has a mark"
            continue
        for group, mark in marks.items():
            assert len(mark) >= 25, f"{game}: no shape on the {group} card ({len(mark)} pixels)"
        for a, b in itertools.combinations(groups, 2):
            differing = len(marks[a] ^ marks[b])
            assert differing >= 20, f"{game}: the {a} and {b} shapes look alike ({differing} pixels differ)"


@pytest.mark.parametrize("game", sorted(TABLES))
def test_only_the_cards_change(game: str) -> None:
    """The colour-blind cards change the card faces, not the table round them (same size, same
    background); an unknown look is refused."""
    make, render = TABLES[game]
    view, _, _ = make()
    classic = picture(render(view, None, "dark", None, "classic"))
    safe = picture(render(view, None, "dark", None, "colourblind"))
    assert classic.size == safe.size
    assert classic.getpixel((2, 2)) == safe.getpixel((2, 2))
    assert classic.tobytes() != safe.tobytes()
    with pytest.raises(ValueError):
        render(view, None, "dark", None, "sepia")


def test_the_looks_drawn_are_the_looks_a_player_may_choose() -> None:
    assert images.CARD_THEMES == prefs.CARD_THEMES


@pytest.mark.parametrize("game", sorted(TABLES))
def test_each_look_has_its_own_cached_tiles(game: str) -> None:
    """Tiles and palettes are cached by theme, the cards' look included: drawing one look never
    changes the other (either order, both background themes)."""
    make, render = TABLES[game]
    view, _, _ = make()
    for theme in ("dark", "light"):
        first = {cards: render(view, None, theme, None, cards) for cards in ("classic", "colourblind")}
        again = {cards: render(view, None, theme, None, cards) for cards in ("colourblind", "classic")}
        assert first == again
        assert first["classic"] != first["colourblind"]
        assert render(view, None, theme) == first["classic"]  # the default look


# ------------------------------------------------------------------------------------------------
# docs/colourblind-cards.png: both looks side by side, as most people and as deuteranopia see them
# (``UPDATE_DOCS=1 .venv/bin/pytest tests/games/test_colour_vision.py`` draws it again).

DOCS_IMAGE = Path(__file__).resolve().parents[2] / "docs" / "colourblind-cards.png"


def simulated(image: Image.Image, kind: str) -> Image.Image:
    """``image`` as seen with ``kind``, pixel by pixel (a picture has few colours: each is done once)."""
    seen: dict[tuple[int, int, int], bytes] = {}
    data = image.convert("RGB").tobytes()
    out = bytearray()
    for pixel in zip(data[0::3], data[1::3], data[2::3], strict=True):
        if pixel not in seen:
            seen[pixel] = bytes(round(c) for c in simulate(pixel, kind))
        out += seen[pixel]
    return Image.frombytes("RGB", image.size, bytes(out))


def cards_strip(cards: str) -> Image.Image:
    """One card of each group of both games, on the dark theme's panel."""
    theme = theme_named("dark", cards)
    tiles = [skyjo_cards.card_rgb(v, theme.panel, cards) for v in (-2, 0, 3, 6, 11)]
    tiles += [skipbo_cards.card_rgb(v, theme.panel, 0, cards) for v in (2, 6, 10, WILD)]
    gap = 8
    strip = Image.new("RGB", (sum(t.width for t in tiles) + gap * (len(tiles) + 2), 100), theme.panel)
    x = gap
    for k, part in enumerate(tiles):
        x += gap * 2 if k == 5 else 0
        strip.paste(part, (x, (strip.height - part.height) // 2))
        x += part.width + gap
    return strip


def docs_image() -> Image.Image:
    rows = []
    for cards in ("classic", "colourblind"):
        strip = cards_strip(cards)
        for kind, label in (("none", "as most people see them"), ("deuteranopia", "with deuteranopia")):
            shown = strip if kind == "none" else simulated(strip, kind)
            name = "colour-blind" if cards == "colourblind" else "classic"
            title = images.text_tile(f"{name} cards, {label}", 16, (244, 245, 247), (23, 24, 28))
            rows.extend([title, shown])
    width = max(r.width for r in rows) + 16
    out = Image.new("RGB", (width, sum(r.height + 6 for r in rows) + 10), (23, 24, 28))
    y = 8
    for part in rows:
        out.paste(part, (8, y))
        y += part.height + 6
    return out


def test_the_docs_picture_shows_both_looks() -> None:
    image = docs_image()
    if os.environ.get("UPDATE_DOCS") == "1":
        image.quantize(256, dither=Image.Dither.NONE).save(DOCS_IMAGE, optimize=True)
    stored = Image.open(DOCS_IMAGE)
    assert stored.size == image.size
    assert DOCS_IMAGE.stat().st_size < 150_000
