"""A knockout's bracket picture (bot/render/bracket.py): one column per round, the player who went on
in gold, names the font cannot draw left out rather than drawn as boxes."""

from __future__ import annotations

import io

from PIL import Image

from bot.render.bracket import GOLD, BracketRound, BracketTable, draw_bracket


def _image(data: bytes) -> Image.Image:
    assert data.startswith(b"\x89PNG")
    return Image.open(io.BytesIO(data)).convert("RGB")


def test_one_column_per_round_and_the_winner_in_gold() -> None:
    rounds = [
        BracketRound("Round 1", [BracketTable(["Ann", "Bob"], 1), BracketTable(["Cy", "Dee 🎲"], 0)]),
        BracketRound("Final", [BracketTable(["Bob", "Cy"])]),
    ]
    two = _image(draw_bracket("Cup", rounds))
    one = _image(draw_bracket("Cup", rounds[:1]))
    assert two.width > one.width and two.height == one.height
    colours = {colour for _, colour in two.getcolors(maxcolors=1 << 16) or []}
    assert GOLD in colours  # a player went on
    undecided = _image(draw_bracket("Cup", [BracketRound("Final", [BracketTable(["Bob", "Cy"])])]))
    assert GOLD not in {colour for _, colour in undecided.getcolors(maxcolors=1 << 16) or []}


def test_an_empty_bracket_still_draws() -> None:
    assert _image(draw_bracket("Cup", [])).width > 0
