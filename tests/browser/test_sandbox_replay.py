"""A replay (issue 28 item 5) in the sandbox page: Alice finishes a short Skyjo game against a
computer, then replays it with ``/skyjo replay``; the picture of its replay goes to docs/replay.png."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.sandbox.server import Sandbox
from tests.e2e.conftest import play_turns, reveal_own_cards, start_table

from .conftest import docs_screenshot
from .test_sandbox import open_as, run_command, sandbox

pytestmark = pytest.mark.timeout(60)

SCREENSHOT = "replay.png"  # in docs/, with UPDATE_DOCS=1
__all__ = ["sandbox"]  # the fixture, shared with test_sandbox


async def test_a_finished_game_replays_in_the_sandbox_page(browser: Any, sandbox: Sandbox) -> None:
    fake, bot = sandbox.fake, sandbox.bot
    alice = fake.user("alice")
    table_message, game_id = await start_table(
        fake, bot, alice, [], score_limit=10, computers=1, turn_limit=0
    )
    await reveal_own_cards(fake, alice, table_message, bot.service.tables[game_id])
    await play_turns(fake, bot, game_id, table_message, [alice], random.Random(7))
    await fake.wait_until(lambda: f"#{game_id}" in table_message.text, what="the final footer")

    page = await open_as(browser, sandbox, "alice")
    await run_command(page, "/skyjo replay")
    await page.locator('#command-form label[data-option="game"] input').fill(str(game_id))
    await page.locator("#command-form .send").click()
    replay = page.locator(".message.ephemeral").filter(has_text=f"Replay of Skyjo game #{game_id}").last
    await replay.filter(has_text="step 0 of ").wait_for()
    for step in range(1, 7):
        await replay.get_by_role("button", name="Next", exact=True).click()
        await replay.filter(has_text=f"step {step} of ").wait_for()
    await replay.locator("img").last.wait_for()
    await page.mouse.move(640, 24)  # no hover highlight in the picture
    await replay.scroll_into_view_if_needed()
    await docs_screenshot(page, SCREENSHOT)
    assert page.errors == []
    assert sandbox.problems == []
