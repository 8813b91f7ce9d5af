"""The seat colours: one list that the table pictures, the table message's accent and its players'
lines all read, so that a seat is one colour everywhere (issue 40, item 1's follow-up).

Each colour is a hue Discord draws as a coloured circle emoji (its Twemoji circles: blue, orange,
green, purple, red, yellow, brown, white), so the mark at the start of a player's line in the table
message (:attr:`SeatColour.mark`) is the same colour as that seat's tag in the picture and as the
message's accent when it is that seat's turn. The values were searched near each emoji's own colour
so that every pair stays far apart (CIE76 over 30 in CIELAB, where about 20 tells two colours apart at
a glance) with normal vision and as seen with deuteranopia and protanopia (tests/render/test_seat_colours.py
checks it with the same simulation as the colour-blind cards), and from the pictures' backgrounds in
both themes. Okabe and Ito's palette, which the colour-blind cards use, fails that measure for 8
seats (17) and has no emoji for two of its colours. Colour is never the only signal: the name is
always beside it. Seat 9 and up (no game seats more than 8) wrap round.

Nothing here imports discord or Pillow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class SeatColour:
    """A seat's colour: its ``name`` (for people reading the code and the docs), ``rgb`` (the
    pictures), ``value`` (the same as one integer: Discord's accent colour) and ``mark`` (the coloured
    circle emoji the table message starts the seat's line with)."""

    name: str
    rgb: tuple[int, int, int]
    mark: str

    @property
    def value(self) -> int:
        r, g, b = self.rgb
        return (r << 16) | (g << 8) | b


SEAT_COLOURS: Final[tuple[SeatColour, ...]] = (
    SeatColour("blue", (0x80, 0xC8, 0xFF), "\N{LARGE BLUE CIRCLE}"),
    SeatColour("orange", (0xFF, 0x97, 0x0D), "\N{LARGE ORANGE CIRCLE}"),
    SeatColour("green", (0x7A, 0xB2, 0x6B), "\N{LARGE GREEN CIRCLE}"),
    SeatColour("purple", (0x77, 0x59, 0xB2), "\N{LARGE PURPLE CIRCLE}"),
    SeatColour("red", (0xCC, 0x22, 0x0A), "\N{LARGE RED CIRCLE}"),
    SeatColour("yellow", (0xFF, 0xF9, 0x8C), "\N{LARGE YELLOW CIRCLE}"),
    SeatColour("brown", (0x80, 0x2D, 0x2E), "\N{LARGE BROWN CIRCLE}"),
    SeatColour("white", (0xA0, 0xA3, 0xA8), "\N{MEDIUM WHITE CIRCLE}"),  # grey: seen on both themes
)


def seat_colour(seat: int) -> SeatColour:
    """Seat ``seat``'s colour (seat 0 first)."""
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def seat_rgb(seat: int) -> tuple[int, int, int]:
    return seat_colour(seat).rgb


def seat_mark(seat: int) -> str:
    """The coloured circle emoji of ``seat``, for the start of its line in the table message."""
    return seat_colour(seat).mark
