"""A seat is one colour everywhere (bot/render/seats.py), read from what the fake Discord received.

The table message's accent is the colour of the seat to play; the picture uploaded with that same
message draws that seat's tag (the disc before its name) and its panel's border in that colour; each
player's line beside the picture starts with the coloured circle emoji of its seat. Both games.
"""

from __future__ import annotations

import io
import random
from typing import Any

from PIL import Image

from bot.games.skipbo import image as skipbo_image
from bot.games.skyjo import image as skyjo_image
from bot.render.images import SEAT_DOT
from bot.render.seats import SEAT_COLOURS, seat_mark, seat_rgb

from .conftest import play_turns, start_table
from .reading import containers_of, fields_of, players_of, text_of
from .skipbo_helpers import start_skipbo
from .test_prefs import skybo_command

HEADER = 52  # a panel's top rows that hold the name, its tag and the line under it


def _tag_column(picture: Image.Image, view: dict[str, Any], image: Any, seat: int) -> list[tuple[int, ...]]:
    """The pixels down the middle of ``seat``'s tag, over its panel's header (the tag's height
    depends on whether a line sits under the name: the column covers both)."""
    left, top, _, _ = image.panel_boxes(view)[seat]
    x = left + image.PANEL_PAD + 2 + SEAT_DOT // 2  # the tag comes first in a panel's header
    return [tuple(picture.getpixel((x, y))) for y in range(top + 4, top + HEADER)]


def _check_one_colour(message: Any, view: dict[str, Any], image: Any) -> None:
    turn = view["turn"]
    (box,) = containers_of(message)
    accent = box.get("accent_color")
    assert accent == SEAT_COLOURS[turn].value, (accent, turn)
    (attachment,) = message.attachments
    picture = Image.open(io.BytesIO(attachment.data)).convert("RGB")
    rgb = ((accent >> 16) & 255, (accent >> 8) & 255, accent & 255)
    for seat in range(len(view["players"])):
        column = _tag_column(picture, view, image, seat)
        # The tag is a disc of the seat's colour, 16 px tall: its middle column is that colour.
        assert column.count(seat_rgb(seat)) >= 10, (seat, set(column))
    assert _tag_column(picture, view, image, turn).count(rgb) >= 10, "the accent is the tag's colour"
    left, top, right, _ = image.panel_boxes(view)[turn]
    assert picture.getpixel(((left + right) // 2, top + 2)) == rgb, "the seat to play: a border in its colour"
    lines = players_of(message)
    assert [line.split(" ", 1)[0] for line in lines] == [seat_mark(s) for s in range(len(lines))]


async def test_skyjo_the_accent_is_the_colour_of_the_seat_to_play_in_the_picture(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    table_message, game_id = await start_table(fake, bot, alice, [bob, carol])
    table = bot.service.tables[game_id]
    players = [alice, bob, carol]
    seen = set()
    for target in (2, 4):

        def played(n: int = target) -> bool:
            return table.turns > n

        await play_turns(fake, bot, game_id, table_message, players, random.Random(7), until=played)
        await bot.presenter.flush()
        view = table.state.view(None)
        if view["phase"] != "play" or view.get("turn") is None:
            continue
        _check_one_colour(table_message, view, skyjo_image)
        seen.add(view["turn"])
    assert seen, "a turn was read"


async def test_skipbo_the_accent_is_the_colour_of_the_seat_to_play_in_the_picture(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_skipbo(fake, bot, alice, [bob], stock_size=5)
    table = bot.service.tables[game_id]
    await fake.wait_until(lambda: table.state.view(None).get("phase") == "play", what="the game")
    await bot.presenter.flush()
    _check_one_colour(table_message, table.state.view(None), skipbo_image)


async def test_a_table_read_in_words_has_no_colour_marks(fake_discord: Any, skybo: Any) -> None:
    """A player at the table reads it in words (``/skybo display table:text``): the full text, no
    players' lines, so no colour emoji for a screen reader to read out; the accent stays."""
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    await skybo_command(fake, bob, "display", table="text")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = bot.service.tables[game_id]
    await play_turns(
        fake, bot, game_id, table_message, [alice, bob], random.Random(2), until=lambda: table.turns > 2
    )
    await bot.presenter.flush()
    shown = text_of(table_message)
    # Each player's grid in words, under a field named after them, in place of the players' lines.
    assert any(name.lstrip("▶ ").startswith("Alice") for name in fields_of(table_message)), shown
    assert not any(colour.mark in shown for colour in SEAT_COLOURS), shown
    view = table.state.view(None)
    if view["phase"] == "play":
        assert containers_of(table_message)[0].get("accent_color") == SEAT_COLOURS[view["turn"]].value
