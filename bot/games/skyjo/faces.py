"""Skyjo's card faces as application emojis (issue 40 item 2): the key of each face (what a panel's
card button names, ``ButtonSpec.face``) and its picture at emoji size in either look of the cards,
drawn by the table picture's own tile maker (:func:`bot.games.skyjo.cards.card_rgb`). The card back
is one more face (:data:`BACK`): a face-down card of the panel's grid shows it (issue 47 item 7), the
same picture for every face-down card, as on the table's picture."""

from __future__ import annotations

from functools import partial
from typing import Final

from PIL import Image

from bot.games.skyjo.cards import HIDDEN, card_rgb
from bot.render.emojis import emoji_png
from bot.render.images import RGB

VALUES: Final = tuple(range(-2, 13))  # every printed value of the deck
BACK: Final = "back"  # the key of the card back's face


def face(value: int) -> str:
    """A face's key: its value, ``m2`` for -2 (emoji names take no minus sign)."""
    return f"m{-value}" if value < 0 else str(value)


def card_faces(look: str) -> dict[str, bytes]:
    """Every face of the deck in the cards' look ``look`` (classic or colour-blind), and the card back,
    as 128 px PNGs."""
    faces = {face(value): emoji_png(partial(_on, value, look)) for value in VALUES}
    faces[BACK] = emoji_png(partial(_on, HIDDEN, look))
    return faces


def _on(cell: int | str, look: str, background: RGB) -> Image.Image:
    return card_rgb(cell, background, look)
