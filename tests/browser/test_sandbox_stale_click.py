"""A click from a page that still shows an older revision of a message fails like in Discord's client.

Discord checks a clicked component against the message as Discord holds it: when the bot has just
changed a button's custom_id, a player whose client has not received the edit yet gets "This
interaction failed" and nothing reaches the bot. The sandbox page clicks on the revision it shows.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
from discord.ext import commands

from bot.sandbox.server import Sandbox

from .test_sandbox import open_as, what_the_sandbox_saw

pytestmark = pytest.mark.timeout(60)

# The page keeps the message updates it receives instead of drawing them: a client whose copy of
# the message is late (the edit is still on its way).
HOLD_UPDATES = """() => {
  window.__held = [];
  window.__apply = applyMessages;
  applyMessages = (data) => { window.__held.push(data); };
}"""
RELEASE_UPDATES = """() => {
  applyMessages = window.__apply;
  for (const data of window.__held) applyMessages(data);
}"""


class ClickRecorder(commands.Bot):
    def __init__(self) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents(guilds=True), help_command=None)
        self.clicks: list[str] = []

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = str(data.get("custom_id"))
        self.clicks.append(custom_id)
        await interaction.response.send_message(f"got {custom_id}", ephemeral=True)


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    running = Sandbox(ClickRecorder, port=0)
    await running.start()
    try:
        yield running
    finally:
        print(what_the_sandbox_saw(running))  # shown when the test failed
        await running.stop()


def buttons(go_id: str) -> list[dict[str, Any]]:
    keep = {"type": 2, "style": 2, "label": "Keep", "custom_id": "keep"}
    go = {"type": 2, "style": 1, "label": "Go", "custom_id": go_id}
    return [{"type": 1, "components": [keep, go]}]


async def test_click_on_a_stale_message_shows_this_interaction_failed(browser: Any, sandbox: Sandbox) -> None:
    bot: ClickRecorder = sandbox.bot
    channel_id = sandbox.fake.channel("general").id
    post = discord.http.Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id)
    sent = await bot.http.request(post, json={"content": "table", "components": buttons("go:1")})
    stored = sandbox.fake.messages[int(sent["id"])]

    alice = await open_as(browser, sandbox, "alice")
    message = alice.locator(f'.message[data-id="{stored.id}"]')
    go = message.get_by_role("button", name="Go", exact=True)
    assert await go.get_attribute("data-custom-id") == "go:1"

    await alice.evaluate(HOLD_UPDATES)
    edit = discord.http.Route(
        "PATCH", "/channels/{channel_id}/messages/{message_id}", channel_id=channel_id, message_id=stored.id
    )
    await bot.http.request(edit, json={"components": buttons("go:2")})
    await alice.wait_for_function("window.__held.length > 0")  # the edit reached the page, unseen
    assert await go.get_attribute("data-custom-id") == "go:1"

    await go.click()
    await message.locator(".failed").filter(has_text="This interaction failed").wait_for()
    assert bot.clicks == []
    # the developer's notice comes with the next push of the sandbox
    await alice.locator(".notice").filter(has_text="failed in Discord's client").wait_for()
    [warning] = sandbox.problems
    assert "alice's click on 'go:1' failed" in warning and "no longer has 'go:1'" in warning
    sandbox.problems.clear()

    # the late edit arrives: the new button is drawn and the failure stays under the message
    await alice.evaluate(RELEASE_UPDATES)
    await message.locator('[data-custom-id="go:2"]').wait_for()
    assert await message.locator(".failed").count() == 1

    # a button that kept its custom_id works from the up-to-date page
    await message.get_by_role("button", name="Keep", exact=True).click()
    await alice.locator(".message.ephemeral").filter(has_text="got keep").wait_for()
    assert bot.clicks == ["keep"]
    assert alice.errors == []
    assert sandbox.problems == []


async def test_a_click_while_the_page_reconnects_is_refused_aloud_and_the_next_one_lands(
    browser: Any, sandbox: Sandbox
) -> None:
    """The page's socket drops (a network blip, the sandbox restarting) just as the player clicks:
    the click cannot reach the sandbox, and the page says so, rather than dropping it without a word
    (a socket closing discards what is sent on it). Once the page is back, the same button works."""
    bot: ClickRecorder = sandbox.bot
    channel_id = sandbox.fake.channel("general").id
    post = discord.http.Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id)
    sent = await bot.http.request(post, json={"content": "table", "components": buttons("go:1")})
    alice = await open_as(browser, sandbox, "alice")
    message = alice.locator(f'.message[data-id="{sent["id"]}"]')
    go = message.get_by_role("button", name="Go", exact=True)
    await go.wait_for()
    # One script: the socket is closing when the click is made, whatever the machine's speed.
    await alice.evaluate(
        """(id) => {
      window.__dropped = S.ws;
      S.ws.close();
      document.querySelector(`.message[data-id="${id}"] button[data-custom-id="go:1"]`).click();
    }""",
        sent["id"],
    )
    await alice.locator(".toast", has_text="Not connected to the sandbox").wait_for()
    await alice.wait_for_function("S.ws !== window.__dropped && S.ws.readyState === WebSocket.OPEN")  # back
    assert bot.clicks == []
    await go.click()
    await alice.locator(".message.ephemeral").filter(has_text="got go:1").wait_for()
    assert bot.clicks == ["go:1"]
    assert alice.errors == [] and sandbox.problems == []
