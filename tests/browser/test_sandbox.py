"""Two people play the first turns of Skyjo in the sandbox page, each in their own browser tab.

Everything goes through the page: the slash command box, the buttons, the websocket; the page talks
to the fake Discord, which sends the real bot the gateway events Discord would send.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.client import BotTuning, create_bot
from bot.sandbox.server import Sandbox

from .activity import WAIT
from .conftest import docs_screenshot

pytestmark = pytest.mark.timeout(60)

SCREENSHOT = "sandbox.png"  # in docs/, with UPDATE_DOCS=1
TUNING = BotTuning(ai_delay=0.0, round_delay=30.0, edit_interval=0.0)
# A face-down card of the grid: "?", or the card back's emoji alone once the card emojis are synced.
HIDDEN = re.compile(r"^(\?|card_sk_[cb]_back_[0-9a-f]{8})$")

# Every ephemeral message a page ever drew, even for a moment.
SEEN_EPHEMERALS = """
window.__ephemerals = new Set();
new MutationObserver(() => {
  for (const node of document.querySelectorAll(".message.ephemeral")) {
    window.__ephemerals.add(node.dataset.id);
  }
}).observe(document, { subtree: true, childList: true, attributes: true });
"""


@pytest.fixture
async def sandbox(tmp_path: Path) -> AsyncIterator[Sandbox]:
    database = tmp_path / "data" / "sandbox.sqlite3"
    database.parent.mkdir()
    running = Sandbox(lambda: create_bot(database_path=database, tuning=TUNING), port=0)
    await running.start()
    try:
        yield running
    finally:
        print(what_the_sandbox_saw(running))  # shown when the test failed
        await running.stop()


def what_the_sandbox_saw(sandbox: Sandbox) -> str:
    """The sandbox's notices, every interaction's fate and the bot's last requests: what a failed page
    wait needs to tell a slow machine from a click that failed or an answer that never came."""
    fake = sandbox.fake
    lines = [f"sandbox problems: {sandbox.problems}", f"page actions refused: {list(sandbox.refused)}"]
    for inter in fake.interactions.values():
        custom_id = (inter.data or {}).get("custom_id") or (inter.data or {}).get("name")
        fate = (
            "failed in the client"
            if inter.failure is not None
            else (f"answered type {inter.callback.type}" if inter.callback is not None else "not answered")
        )
        rejected = [(r.status, r.clock) for r in inter.callback_attempts if r.status >= 300]
        lines.append(
            f"interaction {inter.id} by {inter.user.username} {custom_id!r}: {fate} {rejected or ''}"
        )
    for record in fake.requests[-40:]:
        lines.append(f"{record.clock:.2f} {record.method} {record.route} {record.status}")
    return "\n".join(lines)


async def open_as(browser: Any, sandbox: Sandbox, username: str) -> Any:
    page = await browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(WAIT)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    await page.add_init_script(SEEN_EPHEMERALS)
    await page.goto(f"{sandbox.url}?user={username}&channel=general")
    await page.locator(f'.user-entry.active[data-username="{username}"]').wait_for()
    return page


async def run_command(page: Any, line: str) -> None:
    """Types ``line`` in the message box, picks the suggested command, sends it."""
    await page.locator("#composer-input").fill(line)
    await page.locator(".suggestion.active").wait_for()
    await page.locator("#composer-input").press("Enter")
    await page.locator("#command-form .send").click()


def public(page: Any, button: str) -> Any:
    """The (last) public message with a button labelled ``button``."""
    return (
        page.locator(".message:not(.ephemeral)")
        .filter(has=page.get_by_role("button", name=button, exact=True))
        .last
    )


async def open_panel(page: Any) -> Any:
    await public(page, "My grid").get_by_role("button", name="My grid", exact=True).click()
    panel = page.locator(".message.ephemeral").filter(has_text="Only you can see this").last
    await panel.get_by_role("button", name="Refresh", exact=True).wait_for()
    return panel


async def hidden_cards(panel: Any) -> int:
    count: int = await panel.get_by_role("button", name=HIDDEN).count()
    return count


async def reveal_two(panel: Any) -> None:
    for _ in range(2):
        before = await hidden_cards(panel)
        await panel.get_by_role("button", name=HIDDEN).and_(panel.locator(":enabled")).first.click()
        await _until(lambda: hidden_cards(panel), lambda n, b=before: n == b - 1)


async def my_turn(panel: Any) -> None:
    """Waits until ``panel`` offers Draw a card: its player's turn, which the table waits for (the others
    play after it), so nothing edits the panel until they click. A click sooner (Refresh, say) may race
    the edit by which the panel follows the game: its buttons' custom ids carry the game's version, and a
    click on a button the message no longer has fails in Discord's client (seen under load)."""
    await panel.get_by_role("button", name="Draw a card", exact=True).wait_for()


async def _until(probe: Any, ok: Any, timeout: float = WAIT / 1000) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = await probe()
        if ok(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting; last value {value!r}")
        await asyncio.sleep(0.05)


async def test_two_players_start_a_skyjo_game_in_the_sandbox(browser: Any, sandbox: Sandbox) -> None:
    alice = await open_as(browser, sandbox, "alice")
    bob = await open_as(browser, sandbox, "bob")

    # Alice opens a table with the slash command box; both see the lobby.
    await run_command(alice, "/skyjo new")
    await public(bob, "Join").get_by_role("button", name="Join", exact=True).click()
    await public(alice, "Start").filter(has_text="Bob").wait_for()
    await public(alice, "Start").get_by_role("button", name="Start", exact=True).click()

    # The lobby became the table; each opens their private grid.
    alice_panel = await open_panel(alice)
    bob_panel = await open_panel(bob)
    alice_panel_id = await alice_panel.get_attribute("data-id")
    bob_panel_id = await bob_panel.get_attribute("data-id")
    assert alice_panel_id and bob_panel_id and alice_panel_id != bob_panel_id
    assert await hidden_cards(alice_panel) == 12 and await hidden_cards(bob_panel) == 12

    # Each turns two cards face up.
    await reveal_two(alice_panel)
    await reveal_two(bob_panel)

    # Whoever starts draws a card and puts it in place of a face-down one (the panels follow the game:
    # the starter's offers Draw a card, and nothing edits it until they click).
    player = await _until(whose_turn(alice, bob), lambda p: p is not None)
    panel = player.locator(".message.ephemeral").last
    await panel.get_by_role("button", name="Draw a card", exact=True).click()
    await panel.filter(has_text="You drew").wait_for()
    await player.mouse.move(640, 24)  # no hover highlight in the picture
    await panel.scroll_into_view_if_needed()
    await docs_screenshot(player, SCREENSHOT)
    hidden = await hidden_cards(panel)
    await panel.get_by_role("button", name=HIDDEN).and_(panel.locator(":enabled")).first.click()
    await _until(lambda: hidden_cards(panel), lambda n: n == hidden - 1)
    await panel.get_by_role("button", name="Draw a card", exact=True).wait_for(state="detached")

    # Privacy: neither page ever drew the other's panel; the fake agrees.
    alice_saw = set(await alice.evaluate("[...window.__ephemerals]"))
    bob_saw = set(await bob.evaluate("[...window.__ephemerals]"))
    assert alice_panel_id in alice_saw and bob_panel_id in bob_saw
    assert alice_panel_id not in bob_saw and bob_panel_id not in alice_saw
    assert not alice_saw & bob_saw
    fake = sandbox.fake
    assert fake.messages[int(alice_panel_id)].visible_to == fake.user("alice").id
    assert await bob.locator(f'[data-id="{alice_panel_id}"]').count() == 0

    assert alice.errors == [] and bob.errors == []  # no JavaScript error in the pages
    assert sandbox.problems == []  # no rejection by the fake, no ERROR log from the bot


def whose_turn(*pages: Any) -> Any:
    async def probe() -> Any:
        for page in pages:
            draw = page.locator(".message.ephemeral").last.get_by_role(
                "button", name="Draw a card", exact=True
            )
            if await draw.count() and await draw.is_enabled():
                return page
        return None

    return probe
