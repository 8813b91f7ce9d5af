"""Issue 47 item 7: the Skyjo panel's grid lines up in columns on a phone (390 px), the sandbox drawing
its buttons as Discord's client does (at least 60 px wide, 16 px either side, an emoji 1.375em:
bot/sandbox/static/style.css). Each grid button shows one thing (bot/games/skyjo/panel.py): with the
card emojis, the card's emoji alone, the back's for a face-down card; without, its label alone. Every
button of the grid then has the same width, and each column's buttons the same left edge, in the
classic and the colour-blind looks, with every emoji, without the back's (emojis synced before it
existed), and without any.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.sandbox.server import Sandbox

from .conftest import screenshot
from .test_sandbox import _until, hidden_cards, my_turn, reveal_two
from .test_sandbox_phone import open_panel_phone, open_phone, sandbox, start_with_computers

__all__ = ["sandbox"]  # the phone's sandbox fixture: card emojis synced at start

pytestmark = pytest.mark.timeout(90)

# The grid's rows of a panel: each button's left edge, width, emoji picture (its name) and label.
GRID = """(panel, rows) => [...panel.querySelectorAll(".row")].slice(0, rows).map((row) =>
  [...row.querySelectorAll(".btn")].map((b) => {
    const box = b.getBoundingClientRect();
    const img = b.querySelector("img.emoji");
    const label = b.querySelector(".label");
    return {left: box.left, width: box.width, emoji: img ? img.alt : null,
            label: label ? label.textContent : null, loaded: !img || (img.complete && img.naturalWidth > 0)};
  }))"""


async def grid_of(panel: Any, rows: int = 3) -> list[list[dict[str, Any]]]:
    async def drawn() -> list[list[dict[str, Any]]]:
        grid: list[list[dict[str, Any]]] = await panel.evaluate(GRID, rows)
        return grid

    return await _until(drawn, lambda g: len(g) == rows and all(c["loaded"] for row in g for c in row))


def assert_lined_up(grid: list[list[dict[str, Any]]], what: str) -> float:
    """Every button as wide as the others, each column's left edges the same; returns the width."""
    widths = [cell["width"] for row in grid for cell in row]
    assert max(widths) - min(widths) < 0.5, f"{what}: widths {widths}"
    for column in zip(*grid, strict=True):
        lefts = [cell["left"] for cell in column]
        assert max(lefts) - min(lefts) < 0.5, f"{what}: a column's left edges {lefts}"
    print(f"{what}: every grid button {widths[0]:.1f} px wide")
    return widths[0]


async def refreshed(panel: Any) -> None:
    await panel.get_by_role("button", name="Refresh", exact=True).click()


async def test_the_skyjo_grid_lines_up_in_columns_on_a_phone(
    browser: Any, sandbox: Sandbox, tmp_path: Path
) -> None:
    alice = await open_phone(browser, sandbox, "alice")
    await start_with_computers(alice, "skyjo", 1)
    panel = await open_panel_phone(alice, "My grid")
    await reveal_two(panel)
    await my_turn(panel)  # the game waits for Alice from here: nothing edits her panels but her clicks
    await alice.evaluate("document.fonts.ready.then(() => true)")

    # Classic cards, every emoji synced: two faces and ten backs, emojis alone.
    grid = await grid_of(panel)
    cells = [cell for row in grid for cell in row]
    assert all(cell["label"] is None and cell["emoji"] for cell in cells), cells
    assert sum("_c_back_" in cell["emoji"] for cell in cells) == 10 == await hidden_cards(panel)
    width = assert_lined_up(grid, "classic, card emojis")
    assert width == 60  # Discord's narrowest button: nothing on it is wider than its 28 px of content

    # The colour-blind cards (/skybo display cards:colourblind): their faces, the same widths.
    bot: Any = sandbox.bot
    await bot.service.change_prefs(sandbox.fake.user("alice").id, cards="colourblind")
    panel = await open_panel_phone(alice, "My grid")
    grid = await grid_of(panel)
    cells = [cell for row in grid for cell in row]
    assert all(cell["label"] is None and "card_sk_b_" in cell["emoji"] for cell in cells), cells
    assert assert_lined_up(grid, "colour-blind, card emojis") == width
    await screenshot(alice, "sandbox-phone-skyjo-panel-colourblind.png", tmp_path)

    # Emojis synced before the back had one: "?" beside the faces' emojis, still one width.
    emojis = bot.card_emojis.emojis
    backs = {key: emojis.pop(key) for key in list(emojis) if key[2] == "back"}
    assert len(backs) == 2
    await refreshed(panel)
    grid = await _until(lambda: grid_of(panel), lambda g: sum(c["label"] == "?" for r in g for c in r) == 10)
    assert assert_lined_up(grid, "colour-blind, no back emoji") == width

    # No card emoji at all (a Discord without them): every button its label alone.
    emojis.clear()
    await bot.service.change_prefs(sandbox.fake.user("alice").id, cards="classic")
    panel = await open_panel_phone(alice, "My grid")
    grid = await _until(lambda: grid_of(panel), lambda g: all(c["emoji"] is None for r in g for c in r))
    assert [c["label"] for r in grid for c in r].count("?") == 10
    assert assert_lined_up(grid, "no card emoji") == width
    assert alice.errors == [] and sandbox.problems == []
