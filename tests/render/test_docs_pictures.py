"""The README's table pictures (docs/skyjo-table.png, docs/skipbo-table.png) are what the renderers
draw today: the 4-player golden cases of each game (tests/games/<game>/golden), within the goldens'
tolerance. ``UPDATE_DOCS=1`` draws them again (after a deliberate change of the drawing, with the
goldens' ``UPDATE_GOLDEN=1``); a test run never rewrites them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import Image

from tests.games.skipbo import test_image as skipbo_pictures
from tests.games.skyjo import test_image as skyjo_pictures
from tests.games.skyjo.test_image import bad_pixels, decode

DOCS = Path(__file__).resolve().parents[2] / "docs"
PICTURES = {
    "skyjo-table.png": (skyjo_pictures, "table_4p_dark"),
    "skipbo-table.png": (skipbo_pictures, "skipbo_4p_teams_dark"),
}


@pytest.mark.parametrize("name", sorted(PICTURES))
def test_the_readme_pictures_are_todays_drawing(name: str) -> None:
    module, case = PICTURES[name]
    drawn = decode(module.CASES[case][1](module.stored_view(case)))
    path = DOCS / name
    if os.environ.get("UPDATE_DOCS") == "1":
        drawn.save(path, optimize=True)
    assert bad_pixels(drawn, Image.open(path)) <= skyjo_pictures.MAX_BAD_PIXELS, f"{path} is out of date"
