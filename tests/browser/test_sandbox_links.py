"""The sandbox page keeps the bot's links inside the sandbox, and says why a name is refused (issue 47
item 10).

A link to a Discord message or channel (``https://discord.com/channels/<server>/<channel>/<message>``,
which the bot writes in a long game's letter, a busy channel's refusal, a thread's result) left the
sandbox for discord.com; it now opens that channel of the page and lights the message, as Discord's
client does, and a channel mention (``<#id>``) opens its channel. Any other link still opens apart. A
user added with a name longer than Discord's 32 characters was cut without a word; it is refused with
the reason, the typed name kept to shorten.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.sandbox.server import Sandbox
from tests.e2e.conftest import start_table

from .test_sandbox import open_as, sandbox

pytestmark = pytest.mark.timeout(60)

__all__ = ["sandbox"]  # the fixture, shared with test_sandbox
HOUR = 3600


async def test_a_letters_link_and_channel_mention_open_the_table_inside_the_sandbox(
    browser: Any, sandbox: Sandbox
) -> None:
    fake, bot = sandbox.fake, sandbox.bot
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, _ = await start_table(fake, bot, alice, [bob], turn_limit=HOUR, initial_reveals=0)
    reader = await fake.wait_until(
        lambda: next((u for u in (alice, bob) if fake.direct_messages(u)), None), what="a letter"
    )
    page = await open_as(browser, sandbox, reader.username)
    await page.locator('#dms .channel[data-name="dm"]').click()
    letter = page.locator(".message").filter(has_text="Your turn has come in")
    await letter.wait_for()
    expected = f"https://discord.com/channels/{fake.guild.id}/{table_message.channel_id}/{table_message.id}"
    assert expected in fake.direct_messages(reader)[0].content  # the bot's own link, as on Discord

    link = letter.locator("a.jump").filter(has_text="discord.com")
    assert await link.count() == 1
    href = await link.get_attribute("href")
    assert href is not None and not href.startswith("http"), href  # stays on the sandbox's page
    await link.click()
    await page.locator("#channel-name").filter(has_text="general").wait_for()
    table = page.locator(f'.message[data-id="{table_message.id}"]')
    await table.wait_for()
    assert "highlight" in (await table.get_attribute("class") or "")  # lit a moment, as in Discord
    assert await table.is_visible()
    assert page.url.startswith(sandbox.url), page.url

    # The channel mention of the letter opens its channel too.
    await page.locator('#dms .channel[data-name="dm"]').click()
    await letter.wait_for()
    mention = letter.locator("a.mention.jump").filter(has_text="#general")
    await mention.click()
    await page.locator("#channel-name").filter(has_text="general").wait_for()
    assert page.errors == [] and sandbox.problems == []


async def test_a_link_elsewhere_still_opens_apart(browser: Any, sandbox: Sandbox) -> None:
    """Only Discord's channel and message links stay in the page: the rest open in a new tab."""
    page = await open_as(browser, sandbox, "alice")
    html = await page.evaluate(
        """() => [inline("see https://example.com/x"),
                  inline("https://discord.com/channels/1/2/3"), inline("https://discord.com/app")]"""
    )
    elsewhere, message, app = html
    assert 'target="_blank"' in elsewhere and "jump" not in elsewhere
    assert 'class="jump"' in message and 'data-channel="2"' in message and 'data-message="3"' in message
    assert 'target="_blank"' in app and "jump" not in app


async def test_a_long_name_is_refused_with_the_reason_not_cut(browser: Any, sandbox: Sandbox) -> None:
    page = await open_as(browser, sandbox, "alice")
    users = len(sandbox.fake.users)
    long_name = "Maximilienne de la Tour-Dauvergne"  # 33 characters: one more than Discord takes
    assert len(long_name) == 33
    await page.locator("#add-user-name").fill(long_name)
    await page.locator("#add-user-name").press("Enter")
    toast = page.locator(".toast").filter(has_text="at most 32 characters")
    await toast.wait_for()
    assert "this one has 33" in (await toast.inner_text())
    assert len(sandbox.fake.users) == users  # nobody added
    assert await page.locator("#add-user-name").input_value() == long_name  # kept, to shorten it

    name = long_name[:32]  # Discord's limit is taken whole
    await page.locator("#add-user-name").fill(name)
    await page.locator("#add-user-name").press("Enter")
    await page.locator(".user-entry").filter(has_text=name).wait_for()
    assert any(u.global_name == name for u in sandbox.fake.users.values())
    assert page.errors == [] and sandbox.problems == []
