"""The seat colours (bot/render/seats.py): told apart with normal vision, deuteranopia and protanopia,
seen on both pictures' themes, each beside the coloured circle emoji nearest to it, and the frame's
accent list the same list."""

from __future__ import annotations

import itertools

import pytest

from bot.render import messages
from bot.render.images import THEMES
from bot.render.seats import SEAT_COLOURS, seat_colour, seat_mark
from tests.games.test_colour_vision import delta_e

MIN_SEAT_DELTA_E = 30.0  # over 20 is two colours at a glance (tests/games/test_colour_vision.py)
# Discord draws emojis with Twemoji: its coloured circles' own colours.
TWEMOJI_CIRCLES = {
    "\N{LARGE BLUE CIRCLE}": (0x55, 0xAC, 0xEE),
    "\N{LARGE ORANGE CIRCLE}": (0xF4, 0x90, 0x0C),
    "\N{LARGE GREEN CIRCLE}": (0x78, 0xB1, 0x59),
    "\N{LARGE PURPLE CIRCLE}": (0xAA, 0x8E, 0xD6),
    "\N{LARGE RED CIRCLE}": (0xDD, 0x2E, 0x44),
    "\N{LARGE YELLOW CIRCLE}": (0xFD, 0xCB, 0x58),
    "\N{LARGE BROWN CIRCLE}": (0xC1, 0x69, 0x4F),
    "\N{MEDIUM WHITE CIRCLE}": (0xE6, 0xE7, 0xE8),
    "\N{MEDIUM BLACK CIRCLE}": (0x31, 0x37, 0x3D),
}


@pytest.mark.parametrize("kind", ["none", "deuteranopia", "protanopia"])
def test_every_pair_of_seats_is_told_apart(kind: str) -> None:
    for a, b in itertools.combinations(SEAT_COLOURS, 2):
        assert delta_e(a.rgb, b.rgb, kind) > MIN_SEAT_DELTA_E, (a.name, b.name, kind)


def test_the_measure_can_fail() -> None:
    """Okabe and Ito's eight colours, taken as they are, do not pass it with deuteranopia."""
    okabe_ito = [0x000000, 0xE69F00, 0x56B4E9, 0x009E73, 0xF0E442, 0x0072B2, 0xD55E00, 0xCC79A7]
    rgbs = [((c >> 16) & 255, (c >> 8) & 255, c & 255) for c in okabe_ito]
    worst = min(delta_e(a, b, "deuteranopia") for a, b in itertools.combinations(rgbs, 2))
    assert worst < MIN_SEAT_DELTA_E


def test_every_seat_stands_out_on_both_themes() -> None:
    """The tag sits on the panel (far from it); the border of the seat to play between the panel and
    the background (at a glance from the background too)."""
    for theme, colour in itertools.product(THEMES.values(), SEAT_COLOURS):
        assert delta_e(colour.rgb, theme.panel, "none") > MIN_SEAT_DELTA_E, (theme.name, colour.name)
        assert delta_e(colour.rgb, theme.background, "none") > 20, (theme.name, colour.name)


def test_each_mark_is_the_circle_nearest_to_its_colour() -> None:
    marks = [c.mark for c in SEAT_COLOURS]
    assert len(set(marks)) == len(marks), "one mark per seat"
    for colour in SEAT_COLOURS:
        nearest = min(TWEMOJI_CIRCLES, key=lambda m: delta_e(colour.rgb, TWEMOJI_CIRCLES[m], "none"))
        assert colour.mark == nearest, colour.name


def test_the_frame_reads_the_same_list() -> None:
    assert tuple(c.value for c in SEAT_COLOURS) == messages.SEAT_COLOURS
    for seat in range(10):
        assert messages.seat_colour(seat) == seat_colour(seat).value
        assert seat_mark(seat) == SEAT_COLOURS[seat % len(SEAT_COLOURS)].mark
    assert messages.seat_colour(None) is None
