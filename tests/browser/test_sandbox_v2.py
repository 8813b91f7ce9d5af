"""The sandbox page draws what issue 40 brings: a Components V2 message, a custom emoji, a thread.

A toy bot (not Skybo: the page must draw whatever a bot sends) posts a ``discord.ui.LayoutView`` with
every V2 part, through the fake, which checks it against Discord's description. The page must draw the
container with its accent colour (and no embed), the text with its markdown and a live ``<t:…:R>``,
the section with its accessory on the right, the gallery's picture, the separator, the file, buttons
inside the container that click through to the bot, a custom emoji on a button and in text, and a
thread: under its channel in the list, as a card under the message that started it, and opened.

The custom emoji and the thread are made through the fake's own routes (application emojis, threads),
as a bot makes them on Discord.
"""

from __future__ import annotations

import io
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest
from discord.ext import commands
from PIL import Image

from bot.sandbox.server import Sandbox
from fakecord import FakeChannel

from .conftest import screenshot
from .test_sandbox import open_as, what_the_sandbox_saw

pytestmark = pytest.mark.timeout(60)

ACCENT = 0xED4245
DEALT = 1618953630  # 2021-04-20 21:20:30 UTC
EMOJI_COLOUR = (40, 160, 90)


def png(width: int, height: int, colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, format="PNG")
    return out.getvalue()


class Layout(discord.ui.LayoutView):
    """Every V2 part; its buttons answer who clicked what."""

    def __init__(self, card: discord.PartialEmoji | discord.Emoji, deadline: int) -> None:
        super().__init__(timeout=None)
        rules = discord.ui.Button[Any](label="Rules", custom_id="v2:rules")
        play = discord.ui.Button[Any](label="Play", custom_id="v2:play", style=discord.ButtonStyle.primary)
        five = discord.ui.Button[Any](label="5", custom_id="v2:card", emoji=card)
        for button in (rules, play, five):
            button.callback = self.answer  # type: ignore[method-assign]
        self.add_item(
            discord.ui.Container(
                discord.ui.TextDisplay(f"## Toy table\nAlice to play, **deadline** <t:{deadline}:R>"),
                discord.ui.Section("Read the rules first", accessory=rules),
                discord.ui.Section(
                    "-# a small line", accessory=discord.ui.Thumbnail("attachment://thumb.png")
                ),
                discord.ui.MediaGallery(discord.MediaGalleryItem("attachment://table.png")),
                discord.ui.Separator(spacing=discord.SeparatorSpacing.large),
                discord.ui.TextDisplay(f"Your card <:{card.name}:{card.id}>"),
                discord.ui.TextDisplay(f"-# dealt <t:{DEALT}:D> at <t:{DEALT}:t>, `<t:{DEALT}:R>` as code"),
                discord.ui.File("attachment://sheet.txt"),
                discord.ui.Separator(visible=False),
                discord.ui.ActionRow(play, five),
                accent_colour=ACCENT,
            )
        )

    async def answer(self, interaction: discord.Interaction[Any]) -> None:
        custom_id = (interaction.data or {}).get("custom_id")
        await interaction.response.send_message(f"clicked {custom_id}", ephemeral=True)


def toy_bot() -> commands.Bot:
    return commands.Bot(command_prefix="!", intents=discord.Intents(guilds=True), help_command=None)


@pytest.fixture
async def sandbox(tmp_path: Path) -> AsyncIterator[Sandbox]:
    running = Sandbox(toy_bot, port=0)
    await running.start()
    try:
        yield running
    finally:
        print(what_the_sandbox_saw(running))  # shown when the test failed
        await running.stop()


async def _custom_emoji(sandbox: Sandbox, image: bytes) -> discord.Emoji:
    """An application emoji, uploaded through the fake's routes."""
    return await sandbox.bot.create_application_emoji(name="card_5", image=image)


async def _start_thread(sandbox: Sandbox, message: discord.Message, name: str) -> FakeChannel:
    thread = await message.create_thread(name=name)
    return sandbox.fake.channels[thread.id]


async def test_the_page_draws_v2_custom_emojis_and_threads(
    browser: Any, sandbox: Sandbox, tmp_path: Path
) -> None:
    fake = sandbox.fake
    card = await _custom_emoji(sandbox, png(64, 64, EMOJI_COLOUR))
    general = sandbox.bot.get_channel(fake.channel("general").id)
    deadline = int(time.time()) + 30
    files = [
        discord.File(io.BytesIO(png(300, 150, (30, 60, 200))), "table.png"),
        discord.File(io.BytesIO(png(40, 40, (200, 200, 40))), "thumb.png"),
        discord.File(io.BytesIO(b"Alice 12\nBob 30\n"), "sheet.txt"),
    ]
    sent = await general.send(view=Layout(card, deadline), files=files)
    assert fake.messages[sent.id].flags & (1 << 15)  # IS_COMPONENTS_V2

    alice = await open_as(browser, sandbox, "alice")
    message = alice.locator(f'.message[data-id="{sent.id}"]')
    container = message.locator(".v2-container")
    await container.wait_for()
    assert await message.locator(".embed").count() == 0
    assert await container.get_attribute("data-accent") == f"#{ACCENT:06x}"
    bar = await container.evaluate("node => getComputedStyle(node, '::before').backgroundColor")
    assert bar == "rgb(237, 66, 69)"

    # text: a heading, bold, a small line, a relative timestamp that counts by itself
    assert await container.locator("h2").inner_text() == "Toy table"
    assert await container.locator("strong").first.inner_text() == "deadline"
    assert await container.locator(".subtext").first.inner_text() == "a small line"
    dealt = container.locator(".subtext").nth(1)
    date, hour = await dealt.locator("time.timestamp").all_inner_texts()
    assert "April" in date and "2021" in date and ":" in hour and "2021" not in hour, (date, hour)
    assert await dealt.locator("code").inner_text() == f"<t:{DEALT}:R>"
    stamp = container.locator('time.timestamp[data-style="R"]')
    first = await stamp.inner_text()
    assert first.startswith("in ") and "second" in first, first
    await alice.wait_for_function(f"document.querySelector('time.timestamp').textContent !== {first!r}")

    # a section: the text on the left, the button (or thumbnail) on the right
    section = container.locator(".v2-section").first
    text_box = await section.locator(".v2-section-text").bounding_box()
    rules_box = await section.get_by_role("button", name="Rules").bounding_box()
    assert text_box and rules_box and rules_box["x"] >= text_box["x"] + text_box["width"]
    thumbnail = container.locator(".v2-thumbnail")
    assert await thumbnail.evaluate("img => img.complete && img.naturalWidth") == 40

    # the gallery's picture (attachment:// resolved), not drawn a second time as an attachment
    picture = container.locator(".v2-gallery img")
    await alice.wait_for_function(
        "node => node.complete && node.naturalWidth === 300", arg=await picture.element_handle()
    )
    assert await message.locator(".attachment-img").count() == 0
    assert await container.locator("hr.v2-separator.spacing-large:not(.invisible)").count() == 1
    assert await container.locator("hr.v2-separator.invisible").count() == 1
    assert await container.locator(".v2-file .file-name").inner_text() == "sheet.txt"

    # the custom emoji, a picture the sandbox serves, on the button and in the text
    button_emoji = container.get_by_role("button", name="5").locator("img.emoji.custom")
    await alice.wait_for_function(
        "img => img.complete && img.naturalWidth === 64", arg=await button_emoji.element_handle()
    )
    assert await button_emoji.get_attribute("alt") == ":card_5:"
    assert await container.locator(".v2-text img.emoji.custom").get_attribute("alt") == ":card_5:"

    # the buttons inside the container click through to the bot
    await container.get_by_role("button", name="Play").click()
    await alice.locator(".message.ephemeral").filter(has_text="clicked v2:play").wait_for()
    await container.get_by_role("button", name="5").click()
    await alice.locator(".message.ephemeral").filter(has_text="clicked v2:card").wait_for()
    await screenshot(alice, "sandbox-v2.png", tmp_path, element=message)

    # a thread started from the message: in the channel list under #general, a card under the message
    thread = await _start_thread(sandbox, sent, "Toy game — Alice, Bob")
    await sandbox.bot.get_partial_messageable(thread.id).send("Bob, your turn")
    await fake.send_user_message(fake.user("bob"), thread, "good luck")
    card_box = message.locator(".thread-card")
    await card_box.filter(has_text="2 messages").wait_for()
    assert await card_box.locator(".thread-link").inner_text() == "Toy game — Alice, Bob"
    entry = alice.locator(f'#channels .channel.thread[data-id="{thread.id}"]')
    assert "Toy game" in await entry.inner_text()
    general_box = await alice.locator('#channels .channel[data-name="general"]').bounding_box()
    entry_box = await entry.bounding_box()
    assert general_box and entry_box and entry_box["y"] > general_box["y"]

    await card_box.locator(".thread-link").click()
    await alice.locator("#channel-name").filter(has_text="Toy game — Alice, Bob").wait_for()
    await alice.locator(".message").filter(has_text="Bob, your turn").wait_for()
    await alice.locator(".message").filter(has_text="good luck").wait_for()
    # the message it was started from shows on top (once, without its thread card), not the channel's
    starter = alice.locator(f'.message.starter[data-id="{sent.id}"]')
    await starter.locator(".v2-container").wait_for()
    assert await starter.locator(".thread-card").count() == 0
    assert await alice.locator(".message").count() == 3
    assert "channel=" + str(thread.id) in alice.url
    assert await alice.locator(".parent-link").inner_text() == "#general"

    # archived: dimmed in the list
    opened = await sandbox.bot.fetch_channel(thread.id)
    assert isinstance(opened, discord.Thread)
    await opened.edit(archived=True)
    await alice.locator(f'#channels .channel.thread.archived[data-id="{thread.id}"]').wait_for()
    await screenshot(alice, "sandbox-thread.png", tmp_path)

    assert alice.errors == []
    assert sandbox.problems == []
