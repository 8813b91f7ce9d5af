"""The sandbox page shows who owns the server and each user's direct messages (issue 38 item 6).

Alice owns the server (an "owner" badge: every permission), Bob and Chloé are members (@everyone's
defaults): in the page, Alice's ``/skybo settings`` shows the settings to change, Bob's shows them read-only
and who may change them. A long
game's letter (the bot's direct message to the player whose turn it is) shows under "Direct messages"
for that user only. With ``UPDATE_DOCS=1`` the pictures of docs/sandbox.md are taken again.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.sandbox.server import Sandbox
from tests.e2e.conftest import start_table

from .conftest import docs_screenshot
from .test_sandbox import open_as, run_command, sandbox

pytestmark = pytest.mark.timeout(60)

__all__ = ["sandbox"]  # the fixture, shared with test_sandbox
HOUR = 3600


async def settings_answer(page: Any) -> Any:
    await run_command(page, "/skybo settings")
    return page.locator(".message.ephemeral").filter(has_text="Only you can see this").last


async def test_the_page_shows_the_owner_the_members_and_their_settings_rights(
    browser: Any, sandbox: Sandbox
) -> None:
    alice = await open_as(browser, sandbox, "alice")
    badges = alice.locator(".user-entry .role-badge")
    assert await badges.count() == 3
    roles = {
        username: await alice.locator(f'.user-entry[data-username="{username}"] .role-badge').text_content()
        for username in ("alice", "bob", "chloe")
    }
    assert roles == {"alice": "owner", "bob": "member", "chloe": "member"}

    answer = await settings_answer(alice)
    await answer.filter(has_text="Server settings").wait_for()
    await answer.filter(has_text="Turn limit of a new table").wait_for()
    await docs_screenshot(alice, "sandbox-settings.png")

    bob = await open_as(browser, sandbox, "bob")
    shown = await settings_answer(bob)  # a member reads them, and who may change them (issue 47 item 9)
    await shown.filter(has_text="Turn limit of a new table").wait_for()
    await shown.filter(
        has_text="Only someone who can manage this server (the Manage Server permission) may change them."
    ).wait_for()
    assert alice.errors == [] and bob.errors == []
    assert sandbox.problems == []


async def test_a_long_games_letter_shows_in_its_readers_direct_messages(
    browser: Any, sandbox: Sandbox
) -> None:
    fake, bot = sandbox.fake, sandbox.bot
    alice, bob = fake.user("alice"), fake.user("bob")
    pages = {"alice": await open_as(browser, sandbox, "alice"), "bob": await open_as(browser, sandbox, "bob")}
    for page in pages.values():
        await page.locator('#dms .channel[data-name="dm"]').click()
        await page.locator("#channel-name").filter(has_text="direct messages").wait_for()
        assert await page.locator(".message").count() == 0

    await start_table(fake, bot, alice, [bob], turn_limit=HOUR, initial_reveals=0)
    reader = await fake.wait_until(
        lambda: next((u for u in (alice, bob) if fake.direct_messages(u)), None), what="a letter"
    )
    other = bob if reader is alice else alice
    page = pages[reader.username]
    letter = page.locator(".message").filter(has_text="Your turn has come in")
    await letter.wait_for()
    assert await letter.count() == 1
    assert await page.locator("#dms .dm-count").text_content() == "1"
    assert "#general" in (await letter.inner_text())  # the table's channel, as a mention
    await docs_screenshot(page, "sandbox-direct-messages.png")

    # The other player's direct messages stay empty; the letter is not in the server's channels.
    assert fake.direct_messages(other) == []
    assert await pages[other.username].locator(".message").count() == 0
    assert await pages[other.username].locator("#dms .dm-count").count() == 0
    await page.locator('#channels .channel[data-name="general"]').click()
    # The channel drawn (the letter itself names Skyjo: wait for the header, then the table's messages).
    await page.locator("#channel-name").filter(has_text="general").wait_for()
    await (
        page.locator(".message")
        .filter(has_text="Skyjo", has_not_text="Your turn has come in")
        .first.wait_for()
    )
    assert await page.locator(".message").filter(has_text="Your turn has come in").count() == 0
    for opened in pages.values():
        assert opened.errors == []
    assert sandbox.problems == []
