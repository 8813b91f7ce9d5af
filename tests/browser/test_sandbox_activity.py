"""The sandbox launches the Activity (issue 50): "Activity" in the channel's header opens the bot's own
Activity page in a frame, for the selected user, with the Embedded App SDK's mock standing in for
Discord's client (it asks the fake Discord for a real code, which the bot exchanges). A move made in the
frame shows on the channel's table. With ``UPDATE_DOCS=1`` the pictures of docs/sandbox.md are taken
again (a desktop's width and a 390-px phone)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.sandbox.server import Sandbox
from tests.e2e.conftest import start_table

from .activity import WAIT, Player, play_one
from .conftest import screenshot
from .test_sandbox import SEEN_EPHEMERALS, sandbox

pytestmark = pytest.mark.timeout(90)

__all__ = ["sandbox"]  # the fixture, shared with test_sandbox


async def _open(browser: Any, box: Sandbox, username: str, viewport: dict[str, int]) -> tuple[Any, Any]:
    """``username``'s sandbox page at ``viewport``, its Activity opened: (the page, the Activity's frame)."""
    page = await browser.new_page(viewport=viewport)
    page.set_default_timeout(WAIT)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    await page.add_init_script(SEEN_EPHEMERALS)
    await page.goto(f"{box.url}?user={username}&channel=general")
    await page.locator(f'.user-entry.active[data-username="{username}"]').wait_for()
    await page.locator("#open-activity").click()
    await page.locator("dialog#activity[open]").wait_for()
    handle = await page.locator("#activity-frame").element_handle()
    frame = await handle.content_frame()
    await frame.wait_for_function("window.skybo && window.skybo.table && window.skybo.connection === 'open'")
    return page, frame


async def test_the_sandbox_opens_the_activity_in_a_frame(
    browser: Any, sandbox: Sandbox, tmp_path: Path
) -> None:
    fake, bot = sandbox.fake, sandbox.bot
    alice, bob = fake.user("alice"), fake.user("bob")
    _, game_id = await start_table(fake, bot, alice, [bob], computers=1, turn_limit=0)
    table = bot.service.tables[game_id]
    desktop, alice_frame = await _open(browser, sandbox, "alice", {"width": 1280, "height": 900})
    phone, bob_frame = await _open(browser, sandbox, "bob", {"width": 390, "height": 844})
    assert (await alice_frame.evaluate("window.skybo.table"))["seat"] == table.seat_of(alice.id)
    version = table.version
    assert await play_one(Player(alice_frame, alice), seed=1)  # a move in the frame: the bot made it
    assert table.version > version
    await bob_frame.wait_for_function("v => window.skybo.table.version >= v", arg=table.version)
    await screenshot(desktop, "sandbox-activity-desktop.png", tmp_path)
    await screenshot(phone, "sandbox-activity-phone.png", tmp_path)
    await desktop.locator("#activity-close").click()
    await desktop.locator("dialog#activity[open]").wait_for(state="detached")
    assert desktop.errors == [] and phone.errors == []
    assert sandbox.problems == []
