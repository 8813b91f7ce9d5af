"""The sandbox page with a toy bot: command options, attachments, selects and modals, whatever the bot.

The sandbox knows nothing about Skyjo: any discord.py bot runs in it. This one uses what Skybo does
not use yet, so the page's support for it is checked before the bot needs it.
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands
from PIL import Image

from bot.sandbox.server import Sandbox

from .test_sandbox import open_as, what_the_sandbox_saw

pytestmark = pytest.mark.timeout(60)


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (60, 30), (200, 40, 40)).save(out, format="PNG")
    return out.getvalue()


class Form(discord.ui.Modal, title="Your name"):
    name: discord.ui.TextInput[Any] = discord.ui.TextInput(label="Name", custom_id="toy:name")

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(f"Hello **{self.name.value}**", ephemeral=True)


class Toys(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.select(
        custom_id="toy:pick",
        placeholder="Pick a fruit",
        options=[
            discord.SelectOption(label="Apple", value="apple"),
            discord.SelectOption(label="Pear", value="pear"),
        ],
    )
    async def pick(self, interaction: discord.Interaction[Any], select: discord.ui.Select[Any]) -> None:
        await interaction.response.send_message(f"You picked {select.values[0]}", ephemeral=True)

    @discord.ui.button(label="Form", custom_id="toy:form", emoji="📝", style=discord.ButtonStyle.success)
    async def form(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        await interaction.response.send_modal(Form())


def toy_bot() -> commands.Bot:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents(guilds=True), help_command=None)

    @bot.tree.command(name="demo", description="Show the toys")
    @app_commands.describe(size="How big", loud="Shout", who="Someone")
    @app_commands.choices(colour=[app_commands.Choice(name="Red", value="red")])
    async def demo(
        interaction: discord.Interaction[Any],
        size: app_commands.Range[int, 1, 9],
        loud: bool = False,
        who: discord.Member | None = None,
        colour: str = "red",
    ) -> None:
        embed = discord.Embed(title="Toys", description=f"size {size}, loud {loud}", colour=0x3BA55C)
        embed.set_image(url="attachment://card.png")
        text = f"for {who.mention}" if who else "for nobody"
        await interaction.response.send_message(
            text, embed=embed, file=discord.File(io.BytesIO(png()), "card.png"), view=Toys()
        )

    return bot


@pytest.fixture
async def sandbox(tmp_path: Path) -> AsyncIterator[Sandbox]:
    running = Sandbox(toy_bot, port=0)
    await running.start()
    try:
        yield running
    finally:
        print(what_the_sandbox_saw(running))  # shown when the test failed
        await running.stop()


async def test_options_attachments_selects_and_modals(browser: Any, sandbox: Sandbox) -> None:
    alice = await open_as(browser, sandbox, "alice")
    bob = await open_as(browser, sandbox, "bob")

    await alice.locator("#composer-input").fill("/dem")
    await alice.locator(".suggestion.active").wait_for()
    await alice.locator("#composer-input").press("Enter")
    form = alice.locator("#command-form")
    await form.locator('[data-option="size"] input').fill("3")
    await form.locator('[data-option="loud"] select').select_option("true")
    await form.locator('[data-option="who"] select').select_option(label="@Bob")
    await form.locator(".send").click()

    message = bob.locator(".message").filter(has_text="size 3, loud True")
    await message.wait_for()
    assert "@Bob" in await message.locator(".content").inner_text()
    assert "mentioned" in (await message.get_attribute("class") or "")  # Bob is mentioned
    image = message.locator(".embed img.e-image")
    await image.wait_for()
    assert await image.evaluate("img => img.complete && img.naturalWidth") == 60  # served by the sandbox
    assert await message.locator(".attachment-img").count() == 0  # shown in the embed, not twice

    await message.locator("select").select_option("pear")
    await bob.locator(".message.ephemeral").filter(has_text="You picked pear").wait_for()

    await message.get_by_role("button", name="Form").click()
    dialog = bob.locator("dialog#modal")
    await dialog.get_by_label("Name").fill("Bobby")
    await dialog.locator("button[type=submit]").click()
    hello = bob.locator(".message.ephemeral").filter(has_text="Hello Bobby")
    await hello.wait_for()
    assert await hello.locator("strong").inner_text() == "Bobby"

    assert await alice.locator(".message.ephemeral").count() == 0  # Bob's answers are his alone
    assert alice.errors == [] and bob.errors == []
    assert sandbox.problems == []
