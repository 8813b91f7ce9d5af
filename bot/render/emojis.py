"""A card face as an application emoji's picture: 128 x 128 PNG, the card centred on a transparent
square (issue 40 item 2). The games draw their faces with their own tile makers; this is the frame
every game's faces share, and it names no game."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Final

from PIL import Image, ImageChops

from bot.render.images import RGB

EMOJI_SIZE: Final = 128  # Discord shows emojis up to 128 px (a button's at about 20): its advice
BLACK: Final = (0, 0, 0)
WHITE: Final = (255, 255, 255)


def emoji_png(draw: Callable[[RGB], Image.Image]) -> bytes:
    """``draw(background)`` (an opaque RGB tile, the same shape on any background) as a square PNG
    with a transparent surround. The tile is drawn on black and on white: where the two agree the
    card is opaque, and how far they differ is how transparent a pixel of its rounded edge is, so the
    anti-aliased corners stay smooth on Discord's dark and light themes alike."""
    on_black, on_white = draw(BLACK), draw(WHITE)
    difference = ImageChops.subtract(on_white, on_black)  # 255 where only background shows
    alpha = ImageChops.invert(max(difference.split(), key=lambda band: band.getextrema()[1]))
    card = on_black.convert("RGBA")
    card.putalpha(alpha)
    scale = EMOJI_SIZE / max(card.size)
    card = card.resize(
        (max(1, round(card.width * scale)), max(1, round(card.height * scale))), Image.Resampling.LANCZOS
    )
    square = Image.new("RGBA", (EMOJI_SIZE, EMOJI_SIZE), (0, 0, 0, 0))
    square.alpha_composite(card, ((EMOJI_SIZE - card.width) // 2, (EMOJI_SIZE - card.height) // 2))
    out = io.BytesIO()
    square.save(out, "PNG")
    return out.getvalue()
