"""Skip-Bo's card faces as application emojis (issue 40 item 2): the key of each face (what a panel's
card button names, ``ButtonSpec.face``) and its picture at emoji size in either look of the cards,
drawn by the table picture's own tile maker (:func:`bot.games.skipbo.cards.card_rgb`)."""

from __future__ import annotations

from functools import partial
from typing import Final

from PIL import Image

from bot.games.skipbo.cards import TOP_VALUE, WILD, card_rgb
from bot.render.emojis import emoji_png
from bot.render.images import RGB

CARDS: Final = (*range(1, TOP_VALUE + 1), WILD)  # the numbered cards and the Skip-Bo (wild) card


def face(card: int) -> str:
    """A face's key: its number, ``sb`` for the Skip-Bo card."""
    return "sb" if card == WILD else str(card)


def card_faces(look: str) -> dict[str, bytes]:
    """Every face of the deck in the cards' look ``look`` (classic or colour-blind), as 128 px PNGs."""
    return {face(card): emoji_png(partial(_on, card, look)) for card in CARDS}


def _on(card: int, look: str, background: RGB) -> Image.Image:
    return card_rgb(card, background, cards=look)
