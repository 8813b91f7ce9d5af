"""Issue 38 item 7: a computer player's name and the line under it are drawn whole in the table
picture (bot.render.images.name_layout), in English and French, on the narrowest Skyjo panel."""

from __future__ import annotations

import pytest

from bot.games.skyjo.cards import NAME_SIZE, PANEL_MIN_W, PANEL_PAD, SMALL_SIZE
from bot.render.images import SEAT_LABELS, name_layout, picture_labels, picture_name, text_width
from bot.render.names import ComputerName

# The narrowest panel (a grid of 2 or 3 columns); the name shares its line with a 2-digit total
# ("99 pts", 63 px) and the turn mark (26 px), the line under it has the panel's whole width.
NAME_WIDTH = PANEL_MIN_W - 2 * PANEL_PAD - 2 - 63 - 10 - 26
BELOW_WIDTH = PANEL_MIN_W - 2 * PANEL_PAD - 2


@pytest.mark.parametrize("locale", ["en-US", "fr"])
@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
@pytest.mark.parametrize("note", ["shown", "round_score"])
def test_a_computer_name_and_its_status_are_drawn_whole(locale: str, level: str, note: str) -> None:
    labels = picture_labels("skyjo", [*SEAT_LABELS, "shown"], locale)
    name, level_word = picture_name(ComputerName(8, level), labels)
    status = labels[note].format(sum="-10", score="+120 ×2")
    below = f"{level_word} · {status}"
    (top, size), (under, under_size) = name_layout(
        (name, below), (NAME_SIZE - 2, SMALL_SIZE - 2), NAME_WIDTH, BELOW_WIDTH, SMALL_SIZE - 2
    )
    assert top == name and text_width(top, size) <= NAME_WIDTH
    assert under == below and text_width(under, under_size) <= BELOW_WIDTH
    assert under_size >= 11


def test_a_line_too_long_for_the_smallest_size_is_still_cut() -> None:
    (_, _), (under, size) = name_layout(("A", "word " * 40), (19, 16), 100, 100)
    assert under.endswith("…") and size == 11 and text_width(under, size) <= 100
