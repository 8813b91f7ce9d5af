"""The Activity's page on a 390-px phone (issue 50): a 4-player Skyjo table shows every face-up value and
every name legibly (the rendered size of each card's value and each name, at least 12 px), an 8-player
table and a 6-seat Skip-Bo team table stay usable (nothing wider than the screen, every card of one's
own a tap target of 44 px, every value still 12 px), and the pictures of docs/activity.md are taken at
390 px and at a desktop's width (``UPDATE_DOCS=1``, else into the test's temporary folder).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .activity import DESKTOP, PHONE, WAIT, open_player, play_one, stand_in
from .conftest import screenshot

pytestmark = pytest.mark.timeout(120)

LEAST_PX = 12  # the smallest a card's value or a name may be drawn
TAP_PX = 44  # a finger's target (Apple's and Google's guides: 44 pt, 48 dp)

MEASURE = """() => {
  const size = (node) => parseFloat(getComputedStyle(node).fontSize);
  const width = document.documentElement.clientWidth;
  const outside = (node) => {
    const box = node.getBoundingClientRect();
    return box.left < -0.5 || box.right > width + 0.5;
  };
  return {
    overflow: document.documentElement.scrollWidth - width,
    values: [...document.querySelectorAll('.card .value')].map((n) => ({
      text: n.textContent, size: size(n), height: n.getBoundingClientRect().height, outside: outside(n)})),
    names: [...document.querySelectorAll('.seat-head .name')].map((n) => ({
      text: n.textContent, size: size(n), clipped: n.scrollWidth > n.clientWidth + 1, outside: outside(n)})),
    mine: [...document.querySelectorAll('.seat.mine button.card')].map((n) => {
      const b = n.getBoundingClientRect(); return Math.min(b.width, b.height); }),
  };
}"""


def _legible(measured: dict[str, Any], values: int, names: int) -> None:
    assert measured["overflow"] <= 0, "the page is wider than the phone"
    assert len(measured["values"]) >= values and len(measured["names"]) == names
    for value in measured["values"]:
        assert value["size"] >= LEAST_PX and value["height"] >= LEAST_PX and not value["outside"], value
    for name in measured["names"]:
        assert name["size"] >= LEAST_PX and not name["clipped"] and not name["outside"], name
    assert measured["mine"] and min(measured["mine"]) >= TAP_PX


async def _until_my_turn(player: Any) -> None:
    """Play (reveal) until the page's seat is to draw in the play phase."""
    while not await player.page.evaluate("window.skybo.table.view.phase === 'play'"):
        await play_one(player, seed=1)
    await player.page.wait_for_function("window.skybo.table.moves.length > 0", timeout=WAIT)


async def test_a_four_player_skyjo_table_reads_on_a_phone(browser: Any, tmp_path: Path) -> None:
    async with stand_in() as (fake, server, voice):
        alice = fake.user("alice")
        await server.open_table(voice, "skyjo", [alice, None, None, None], seed=11, turn_limit=60)
        phone = await open_player(browser, server, alice, voice, PHONE)
        await _until_my_turn(phone)
        measured = await phone.page.evaluate(MEASURE)
        # every grid shows its face-up cards (two each at least), plus the discard
        _legible(measured, values=4 * 2 + 1, names=4)
        smallest = min(v["size"] for v in measured["values"])
        print(f"\n4-player Skyjo at 390 px: smallest card value {smallest:.1f} px")
        await screenshot(phone.page, "activity-skyjo-phone.png", tmp_path)
        desktop = await open_player(browser, server, fake.user("bob"), voice, DESKTOP)  # watching
        await screenshot(desktop.page, "activity-skyjo-desktop.png", tmp_path)
        assert await desktop.page.locator("#prompt").inner_text() == "You are watching this table."
        shown = await desktop.page.inner_text("#app")
        assert "null" not in shown and "undefined" not in shown and "{" not in shown


async def test_an_eight_player_skyjo_table_is_usable_on_a_phone(browser: Any, tmp_path: Path) -> None:
    async with stand_in() as (fake, server, voice):
        alice = fake.user("alice")
        await server.open_table(voice, "skyjo", [alice] + [None] * 7, seed=12)
        phone = await open_player(browser, server, alice, voice, PHONE)
        await _until_my_turn(phone)
        _legible(await phone.page.evaluate(MEASURE), values=8 * 2 + 1, names=8)


async def test_a_six_seat_skipbo_team_table_is_usable_on_a_phone(browser: Any, tmp_path: Path) -> None:
    async with stand_in(cards={"alice": "colourblind"}) as (fake, server, voice):
        alice = fake.user("alice")
        table = await server.open_table(
            voice, "skipbo", [alice] + [None] * 5, options={"teams": True}, seed=5
        )
        phone = await open_player(browser, server, alice, voice, PHONE)
        await server.humans_to_act(table)
        await phone.page.wait_for_function("window.skybo.table.moves.length > 0", timeout=WAIT)
        await phone.tap("hand-0")  # a card picked: the piles it may go on light up
        measured = await phone.page.evaluate(MEASURE)
        # the six stocks' tops, the five cards of the hand
        _legible(measured, values=6 + 5, names=6)
        assert await phone.page.locator(".seat .team").count() == 6
        assert await phone.page.locator(".seat.partner").count() == 1
        await screenshot(phone.page, "activity-skipbo-phone.png", tmp_path)
        desktop = await open_player(browser, server, alice, voice, DESKTOP)
        await screenshot(desktop.page, "activity-skipbo-desktop.png", tmp_path)
        for page in (phone.page, desktop.page):
            shown = await page.inner_text("#app")
            assert "null" not in shown and "undefined" not in shown and "{" not in shown
