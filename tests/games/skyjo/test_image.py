"""Skyjo table images: golden images with a tolerance, no hidden value (GAME-INFO-1), layout and themes.

Golden cases are stored as the view they render (``golden/NAME.json``) and the expected image
(``golden/NAME.png``), so an engine change does not move them. To regenerate them after a deliberate
change of the drawing, run ``UPDATE_GOLDEN=1 .venv/bin/pytest tests/games/skyjo/test_image.py`` and look at
the PNGs.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageFont

from bench.render import NAMES, mid_game
from bot.games.skyjo import cards as skyjo_cards
from bot.games.skyjo import image as skyjo_image
from bot.games.skyjo.engine import Options, State
from bot.games.skyjo.image import render_grid, render_table
from bot.render import images
from bot.render.images import SEAT_DOT, picture_labels, picture_name
from bot.render.names import ComputerName
from bot.render.seats import seat_rgb

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
# A pixel is wrong when a channel is off by more than this (font hinting and resampling may move a
# shade or two between Pillow or FreeType versions); an image fails with more wrong pixels than that.
CHANNEL_TOLERANCE = 48
MAX_BAD_PIXELS = 40


def bad_pixels(a: Image.Image, b: Image.Image) -> int:
    """How many pixels differ by more than the tolerance on some channel (the sizes must match)."""
    assert a.size == b.size, f"size {a.size} != {b.size}"
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    r, g, bl = diff.split()
    worst = ImageChops.lighter(ImageChops.lighter(r, g), bl)
    return worst.point(lambda v: 255 if v > CHANNEL_TOLERANCE else 0).histogram()[255]


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    image.load()
    return image


# ------------------------------------------------------------------------------------------------
# Golden cases: name -> (the view, a render function of the view)


def four_players() -> dict[str, Any]:
    return mid_game(4, seed=106, turns=24, round_number=2).view(None)


def _game_over() -> dict[str, Any]:
    return mid_game(3, seed=2, turns=0, round_number=99).view(None)


def _round_over() -> dict[str, Any]:
    return mid_game(3, seed=5, turns=400, options=Options(columns=2, rows=2)).view(None)


LONG_NAME = "A very long player name that cannot fit"
CASES: dict[str, tuple[Callable[[], dict[str, Any]], Callable[[dict[str, Any]], bytes]]] = {
    "table_4p_dark": (four_players, lambda v: render_table(v, NAMES[:4])),
    "table_4p_light": (four_players, lambda v: render_table(v, NAMES[:4], theme="light")),
    "table_8p_dark": (lambda: mid_game(8, seed=8, turns=30).view(None), lambda v: render_table(v, NAMES)),
    "table_2p_5x4_light": (
        lambda: mid_game(2, seed=3, turns=10, options=Options(columns=5, rows=4), draw_last=False).view(None),
        lambda v: render_table(v, ["Zoé", LONG_NAME], theme="light"),
    ),
    "table_7p_5x4_dark": (
        lambda: mid_game(7, seed=5, turns=20, options=Options(columns=5, rows=4)).view(None),
        lambda v: render_table(v),
    ),
    "table_3p_2x2_round_over_dark": (_round_over, lambda v: render_table(v)),
    "table_3p_game_over_light": (_game_over, lambda v: render_table(v, theme="light")),
    "grid_4p_turn_dark": (four_players, lambda v: render_grid(v, v["turn"], NAMES[:4])),
    "grid_4p_other_light": (four_players, lambda v: render_grid(v, 0, NAMES[:4], theme="light")),
}


def stored_view(name: str) -> dict[str, Any]:
    if UPDATE:
        view = CASES[name][0]()
        (GOLDEN / f"{name}.json").write_text(json.dumps(view, sort_keys=True) + "\n")
        return view
    result: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text())
    return result


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_image(name: str) -> None:
    """Each case renders like its stored golden image, within the tolerance."""
    view = stored_view(name)
    image = decode(CASES[name][1](view))
    path = GOLDEN / f"{name}.png"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        image.save(path, optimize=True)  # smaller in the repository; compared by pixels anyway
    golden = Image.open(path)
    assert bad_pixels(image, golden) <= MAX_BAD_PIXELS, f"{name} differs from {path}"


def test_golden_cases_match_their_description() -> None:
    """The stored views are what their names say: player counts, grid sizes, phases."""
    expect = {
        "table_4p_dark": (4, 4, 3, "play"),
        "table_8p_dark": (8, 4, 3, "play"),
        "table_2p_5x4_light": (2, 5, 4, "play"),
        "table_7p_5x4_dark": (7, 5, 4, "play"),
        "table_3p_2x2_round_over_dark": (3, 2, 2, "round_over"),
        "table_3p_game_over_light": (3, 4, 3, "game_over"),
    }
    for name, (players, columns, rows, phase) in expect.items():
        view = stored_view(name)
        assert (len(view["players"]), view["columns"], view["rows"], view["phase"]) == (
            players,
            columns,
            rows,
            phase,
        ), name
    assert stored_view("table_4p_dark")["drawn"] is not None
    assert any(cell == "gone" for grid in stored_view("table_4p_dark")["grids"] for cell in grid)
    assert stored_view("table_3p_game_over_light")["winners"]


def test_tolerance_forgives_a_few_stray_pixels() -> None:
    golden = Image.open(GOLDEN / "table_4p_dark.png").convert("RGB")
    noisy = golden.copy()
    rng = random.Random(1)
    for _ in range(10):
        xy = (rng.randrange(noisy.width), rng.randrange(noisy.height))
        r, g, b = noisy.getpixel(xy)  # type: ignore[misc]
        noisy.putpixel(xy, (255 - r, 255 - g, 255 - b))
    assert 0 < bad_pixels(noisy, golden) <= MAX_BAD_PIXELS


def _face_up_positions(view: dict[str, Any], values: range) -> list[tuple[int, int]]:
    return [
        (seat, pos)
        for seat, grid in enumerate(view["grids"])
        for pos, cell in enumerate(grid)
        if isinstance(cell, int) and cell in values
    ]


@pytest.mark.parametrize("band_change", [False, True])
def test_one_wrong_card_fails_the_comparison(band_change: bool) -> None:
    """A single card off by one, even within its colour band (only its digits change), fails."""
    view = stored_view("table_4p_dark")
    golden = Image.open(GOLDEN / "table_4p_dark.png")
    seat, pos = _face_up_positions(view, range(1, 4))[0]
    wrong = json.loads(json.dumps(view))
    wrong["grids"][seat][pos] += 4 if band_change else 1  # 1-3 -> 5-7 (yellow), or 2-4 (still green)
    image = decode(render_table(wrong, NAMES[:4]))
    assert bad_pixels(image, golden) > MAX_BAD_PIXELS
    if band_change:
        assert bad_pixels(image, golden) > 2000  # the whole card changes colour


def test_wrong_discard_or_drawn_card_fails() -> None:
    view = stored_view("table_4p_dark")
    golden = Image.open(GOLDEN / "table_4p_dark.png")
    for key in ("discard_pile", "drawn"):
        wrong = json.loads(json.dumps(view))
        if key == "drawn":
            wrong["drawn"] = (wrong["drawn"] + 1) % 13
        else:
            wrong["discard_pile"][-1] = (wrong["discard_pile"][-1] + 1) % 13
        assert bad_pixels(decode(render_table(wrong, NAMES[:4])), golden) > MAX_BAD_PIXELS, key


# ------------------------------------------------------------------------------------------------
# GAME-INFO-1


def _hidden_shuffled(game: State, seed: int) -> State:
    """The same game with the face-down cards dealt differently and the draw pile in another order."""
    other = State.from_dict(game.to_dict())
    places = [(s, p) for s in range(len(other.players)) for p in other.face_down_positions(s)]
    values = [other.grids[s][p] for s, p in places]
    rng = random.Random(seed)
    while True:
        rng.shuffle(values)
        if any(v != other.grids[s][p] for (s, p), v in zip(places, values, strict=True)):
            break
    for (s, p), v in zip(places, values, strict=True):
        other.grids[s][p] = v
    rng.shuffle(other.draw_pile)
    return other


@pytest.mark.parametrize("players", [2, 5, 8])
def test_game_info_1_hidden_cards_never_change_the_image(players: int) -> None:
    """GAME-INFO-1: two states that differ only in face-down cards and the draw pile's order render
    to the same bytes, for the table and for every player's own grid."""
    game = mid_game(players, seed=players * 11, turns=2 * players)
    other = _hidden_shuffled(game, seed=players)
    assert other.grids != game.grids and other.draw_pile != game.draw_pile
    assert render_table(game.view(None)) == render_table(other.view(None))
    for seat in range(players):
        assert render_grid(game.view(seat), seat) == render_grid(other.view(seat), seat)


def test_game_info_1_the_renderer_refuses_engine_state() -> None:
    """GAME-INFO-1: the full state (``to_dict``, with hidden values) is not a view and is refused."""
    state = mid_game(3, seed=1, turns=3).to_dict()
    with pytest.raises((ValueError, KeyError)):
        render_table(state)


def test_a_private_grid_shows_only_its_own_seat() -> None:
    view = stored_view("table_4p_dark")
    changed = json.loads(json.dumps(view))
    changed["grids"][1] = ["gone"] * len(changed["grids"][1])
    changed["totals"][1] += 50
    assert render_grid(view, 0) == render_grid(changed, 0)
    assert render_grid(view, 1) != render_grid(changed, 1)


# ------------------------------------------------------------------------------------------------
# Layout, themes, cards


def _rgb(image: Image.Image, xy: tuple[int, int]) -> tuple[int, int, int]:
    pixel = image.convert("RGB").getpixel(xy)
    assert isinstance(pixel, tuple)
    return pixel[0], pixel[1], pixel[2]


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_the_player_to_act_is_highlighted(theme: str) -> None:
    """The panel of the seat to play has a border in that seat's colour (bot.render.seats: the table
    message's accent), and every seat's tag before its name is its colour."""
    view = stored_view("table_4p_dark")
    image = decode(render_table(view, theme=theme)).convert("RGB")
    for seat, (left, top, right, _) in enumerate(skyjo_image.panel_boxes(view)):
        edge = _rgb(image, ((left + right) // 2, top + 2))
        near = max(abs(a - b) for a, b in zip(edge, seat_rgb(seat), strict=True)) <= 8
        assert near == (seat == view["turn"]), seat
        # The tag: a disc before the name, its middle column over the header in the seat's colour.
        x = left + skyjo_cards.PANEL_PAD + 2 + SEAT_DOT // 2
        column = [_rgb(image, (x, y)) for y in range(top + 4, top + 52)]
        assert column.count(seat_rgb(seat)) >= 10, seat


@pytest.mark.parametrize(
    ("players", "per_row", "rows"), [(2, 2, 1), (3, 2, 2), (4, 2, 2), (5, 3, 2), (6, 3, 2), (8, 4, 2)]
)
def test_panels_are_laid_out_in_a_grid(players: int, per_row: int, rows: int) -> None:
    view = mid_game(players, seed=1, turns=0).view(None)
    boxes = skyjo_image.panel_boxes(view)
    image = decode(render_table(view))
    panels_in_row = Counter(top for _, top, _, _ in boxes)
    assert len(panels_in_row) == rows
    assert max(panels_in_row.values()) == per_row
    for left, top, right, bottom in boxes:
        assert 0 <= left < right <= image.width and 0 <= top < bottom <= image.height
    for a, b in itertools.combinations(boxes, 2):  # no two panels overlap
        assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


# The width in CSS pixels the table's picture gets in a message on a 390-px phone: the sandbox's
# container, as tests/browser/test_sandbox_phone.py measures it (Discord's media gallery takes the
# message's width; the sandbox draws messages at a phone's width as Discord's phone app does).
PHONE_PICTURE_W = 288


def value_heights(image: Image.Image, view: dict[str, Any], cards: str = "classic") -> dict[int, int]:
    """The height in the picture's pixels of each face-up value as drawn in the middle of its cards
    (the rows holding its ink, between the corner indices), the smallest seen for each value."""
    rgb = image.convert("RGB")
    heights: dict[int, int] = {}
    for seat, places in enumerate(skyjo_image.card_boxes(view)):
        for pos, (left, top, right, bottom) in enumerate(places):
            cell = view["grids"][seat][pos]
            if not isinstance(cell, int):
                continue
            ink = skyjo_cards.band(cell, cards)[1]
            crop = rgb.crop((left + 2, top + 20, right - 2, bottom - 20))
            r, g, b = ImageChops.difference(crop, Image.new("RGB", crop.size, ink)).split()
            near = ImageChops.lighter(ImageChops.lighter(r, g), b).point(lambda v: 255 if v <= 40 else 0)
            box = near.getbbox()
            assert box is not None, (seat, pos, cell)
            height = box[3] - box[1]
            heights[cell] = min(height, heights.get(cell, height))
    return heights


def _cap_height(size: int) -> int:
    _, top, _, bottom = images.font(size).getbbox("H")
    return bottom - top


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("locale", ["en", "fr"])
def test_up_to_four_players_values_and_names_are_legible_on_a_phone(players: int, locale: str) -> None:
    """Issue 47 item 8: once the picture is scaled to a 390-px phone's message (288 CSS px wide), every
    card's value is drawn at least 12 px tall (its digits' ink) and each name's capitals at least 10 px,
    the names whole, in both languages, with a computer's name and a turn's mark beside a name."""
    names: list[str] = ["Bérénice", ComputerName(1, "hard"), "Dmitri", ComputerName(2, "easy")][:players]
    labels = picture_labels("skyjo", skyjo_image.DEFAULT_LABELS, locale)
    for seed, turns in ((1, 3), (106, 24)):
        view = mid_game(players, seed=seed, turns=turns).view(None)
        for cards in ("classic", "colourblind"):
            image = decode(render_table(view, names, labels=labels, cards=cards))
            scale = PHONE_PICTURE_W / image.width
            heights = value_heights(image, view, cards)
            assert heights and min(heights.values()) * scale >= 12, (scale, heights)
        for (text, size), name in zip(skyjo_image.name_sizes(view, names, labels), names, strict=True):
            assert text == picture_name(name, labels)[0], text  # whole
            assert _cap_height(size) * scale >= 10, (text, size, scale)
    # Every value of the deck, a two-glyph one ("12", "‒2") as tall as one digit.
    every = mid_game(players, seed=1, turns=3).view(None)
    every["grids"][0][:12], every["grids"][1][:3] = range(-2, 10), range(10, 13)
    heights = value_heights(decode(render_table(every)), every)
    assert sorted(heights) == list(range(-2, 13))
    assert max(heights.values()) - min(heights.values()) <= 2, heights


def test_a_table_is_drawn_at_least_as_wide_as_its_piles() -> None:
    """Two grids of 2 x 2 are narrower than the piles side by side: the picture takes the piles' width."""
    view = mid_game(2, seed=3, turns=0, options=Options(columns=2, rows=2)).view(None)
    image = decode(render_table(view))
    assert image.width >= skyjo_image.PILES_W + 2 * skyjo_cards.MARGIN


def test_5x4_grids_fit_their_panels() -> None:
    view = stored_view("table_7p_5x4_dark")
    left, top, right, bottom = skyjo_image.panel_boxes(view)[0]
    gw, gh = skyjo_image._grid_size(5, 4)
    assert right - left >= gw + 2 * skyjo_image.PANEL_PAD
    assert bottom - top >= gh + skyjo_image.PANEL_HEADER + 2 * skyjo_image.PANEL_PAD


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_theme_background(theme: str) -> None:
    image = decode(render_table(stored_view("table_4p_dark"), theme=theme))
    assert _rgb(image, (2, 2)) == skyjo_cards.THEMES[theme].background


def test_dark_and_light_differ() -> None:
    view = stored_view("table_4p_dark")
    assert bad_pixels(decode(render_table(view)), decode(render_table(view, theme="light"))) > 10_000


def test_card_colour_bands() -> None:
    """-2 and -1 deep blue, 0 light blue, 1-4 green, 5-8 yellow, 9-12 red; the back is none of them."""
    expected = {
        "deep blue": (range(-2, 0), skyjo_cards.DEEP_BLUE[0]),
        "light blue": (range(0, 1), skyjo_cards.LIGHT_BLUE[0]),
        "green": (range(1, 5), skyjo_cards.GREEN[0]),
        "yellow": (range(5, 9), skyjo_cards.YELLOW[0]),
        "red": (range(9, 13), skyjo_cards.RED[0]),
    }
    theme = skyjo_cards.THEMES["dark"]
    fills = set()
    for values, colour in expected.values():
        for value in values:
            card = skyjo_image.tile(theme, skyjo_image.card_rgb, value, theme.panel)
            assert _rgb(card, (5, skyjo_image.CARD_H // 2)) == colour, value
        fills.add(colour)
    assert len(fills) == 5
    back = skyjo_image.tile(theme, skyjo_image.card_rgb, "down", theme.panel)
    assert _rgb(back, (5, skyjo_image.CARD_H // 2)) not in fills
    faces = {skyjo_image.card_rgb(v, theme.panel).tobytes() for v in range(-2, 13)}
    assert len(faces) == 15


def test_a_table_is_composed_from_cached_tiles() -> None:
    view = stored_view("table_8p_dark")
    render_table(view, NAMES)
    before = skyjo_image.tile.cache_info().misses, skyjo_image.card_rgb.cache_info().misses
    render_table(view, NAMES)
    assert (skyjo_image.tile.cache_info().misses, skyjo_image.card_rgb.cache_info().misses) == before


def test_png_is_a_small_palette_image() -> None:
    image = decode(render_table(stored_view("table_4p_dark"), NAMES[:4]))
    assert image.mode == "P"


def test_the_bundled_font_is_used() -> None:
    assert images.FONT_PATH.is_file()
    assert (images.FONT_PATH.parent / "LICENSE-DejaVu.txt").is_file()
    bundled = images.font(20)
    assert isinstance(bundled, ImageFont.FreeTypeFont)
    assert bundled.getname() == ("DejaVu Sans", "Bold")


def test_without_the_bundled_font_pillow_s_default_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(images, "FONT_PATH", images.FONT_PATH.with_name("missing.ttf"))
    images.font.cache_clear()
    try:
        fallback = images.font(20)
        assert not isinstance(fallback, ImageFont.FreeTypeFont) or fallback.getname()[0] != "DejaVu Sans"
        assert images.text_width("Skyjo", 20) > 0
    finally:
        images.font.cache_clear()


def test_long_names_are_cut_to_fit() -> None:
    assert images.fit_text(LONG_NAME, 21, 120).endswith("…")
    assert images.text_width(images.fit_text(LONG_NAME, 21, 120), 21) <= 120
    assert images.fit_text("Zoé", 21, 120) == "Zoé"
    lines = images.wrap_text("Everyone turns up 2 cards", 18, 150)
    assert len(lines) == 2 and all(images.text_width(line, 18) <= 150 for line in lines)


def test_characters_the_font_lacks_are_left_out() -> None:
    """Emoji in a display name would come out as boxes: they are dropped, and a name with nothing
    drawable left becomes its seat number."""
    assert images.drawable("Zoé 🎲 Ünal") == "Zoé Ünal"
    view = stored_view("table_4p_dark")
    assert render_table(view, ["Alice 🎲", *NAMES[1:4]]) == render_table(view, NAMES[:4])
    assert render_table(view, ["🎲", *NAMES[1:4]]) == render_table(view, ["#1", *NAMES[1:4]])


def test_labels_can_be_translated() -> None:
    view = stored_view("table_4p_dark")
    french = {"draw": "Pioche", "discard": "Défausse", "drawn": "Piochée", "turn": "À {name} de jouer"}
    assert render_table(view, labels=french) != render_table(view)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda v: v["grids"][0].__setitem__(0, "7"), "not a Skyjo cell"),
        (lambda v: v["grids"][0].pop(), "cells is not"),
        (lambda v: v.__setitem__("players", v["players"][:3]), "names"),
    ],
)
def test_malformed_views_are_refused(change: Callable[[dict[str, Any]], None], message: str) -> None:
    view = json.loads(json.dumps(stored_view("table_4p_dark")))
    change(view)
    with pytest.raises(ValueError, match=message):
        render_table(view, NAMES[:4])


def test_unknown_theme_and_seat_are_refused() -> None:
    view = stored_view("table_4p_dark")
    with pytest.raises(ValueError, match="theme"):
        render_table(view, theme="sepia")
    with pytest.raises(ValueError, match="seat"):
        render_grid(view, 4)
