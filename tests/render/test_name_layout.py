"""Issue 38 item 7: a computer player's name and the words around it are drawn whole in the table
picture (bot.render.images.name_layout), in English and French, on the narrowest Skyjo panel. Since
issue 47 the name has its line to itself (with the turn's or the finisher's mark), a computer's level
after it in small print, and the cards showing (or the round's score) under it beside the total."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bench.render import mid_game
from bot.games.skyjo import image as skyjo_image
from bot.games.skyjo.cards import PANEL_MIN_W
from bot.games.skyjo.engine import Options
from bot.render.images import name_layout, picture_labels, text_width
from bot.render.names import ComputerName

ROUND_OVER = mid_game(3, seed=5, turns=400, options=Options(columns=2, rows=2)).view(None)


def narrowest(phase: str) -> dict[str, Any]:
    """A table of 2 x 2 grids (its panels PANEL_MIN_W wide): the computer at seat 1 plays with -8
    showing, or has just finished the round doubled, 120 points, the widest total."""
    view = copy.deepcopy(ROUND_OVER)
    assert view["phase"] == "round_over"
    view["totals"] = [999, 999, 999]
    if phase == "play":
        view.update(phase="play", turn=1, drawn=None, finisher=None)
        view["grids"][1] = [-2, -2, -2, -2]
    else:
        last = view["rounds"][-1]
        last["scores"][1], last["doubled"], view["finisher"] = 120, True, 1
    return view


@pytest.mark.parametrize("locale", ["en-US", "fr"])
@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
@pytest.mark.parametrize("phase", ["play", "round_over"])
def test_a_computer_name_its_level_and_numbers_are_drawn_whole(locale: str, level: str, phase: str) -> None:
    view = narrowest(phase)
    assert skyjo_image.panel_boxes(view)[0][2] - skyjo_image.panel_boxes(view)[0][0] == PANEL_MIN_W
    labels = picture_labels("skyjo", skyjo_image.DEFAULT_LABELS, locale)
    names = ["Alice", ComputerName(8, level), "Bob"]
    header = skyjo_image.header_texts(view, names, labels)[1]
    (name, size), (said_level, level_size), (note, note_size) = header
    assert name == ("CPU 8" if locale == "en-US" else "Ordi 8") and size >= skyjo_image.NAME_LEAST
    assert said_level == labels[f"level_{level}"] and level_size >= 11
    sum_or_score = "−8" if phase == "play" else "+120 ×2"
    assert sum_or_score in note and not note.endswith("…") and note_size >= 11, note


def test_a_line_too_long_for_the_smallest_size_is_still_cut() -> None:
    (_, _), (under, size) = name_layout(("A", "word " * 40), (19, 16), 100, 100)
    assert under.endswith("…") and size == 11 and text_width(under, size) <= 100
