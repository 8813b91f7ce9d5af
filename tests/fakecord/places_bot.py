"""A throwaway discord.py bot for the tests of places (fakecord/places.py): each command says where it may
run (its installations and contexts), and what it does exercises what Discord allows there."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from fakecord import FakeDiscord, FakeInteraction

ANYWHERE = {"guilds": True, "dms": True, "private_channels": True}


class JoinView(discord.ui.View):
    """A table's Join button: the clicker joins, in a message of their own."""

    def __init__(self, bot: PlacesBot) -> None:
        super().__init__(timeout=None)
        self.bot = bot

    @discord.ui.button(label="Join", custom_id="join")
    async def join(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        self.bot.seen.append(interaction)
        await interaction.response.send_message(f"{interaction.user.name} joins")


class PlacesBot(commands.Bot):
    """Commands installable to servers and users, usable in the places each declares."""

    def __init__(self) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default())
        self.seen: list[discord.Interaction] = []
        self.targets: list[discord.abc.User] = []
        self.refused: list[discord.HTTPException] = []
        self.parked: discord.Interaction | None = None

    async def setup_hook(self) -> None:
        tree = self.tree

        @tree.command(name="table", description="Open a table anywhere")
        @app_commands.allowed_installs(guilds=True, users=True)
        @app_commands.allowed_contexts(**ANYWHERE)
        async def table(interaction: discord.Interaction) -> None:
            self.seen.append(interaction)
            await interaction.response.send_message(f"table of {interaction.user.name}", view=JoinView(self))

        @tree.command(name="servers", description="Only in servers")
        @app_commands.allowed_installs(guilds=True, users=True)
        @app_commands.allowed_contexts(guilds=True, dms=False, private_channels=False)
        async def servers(interaction: discord.Interaction) -> None:
            self.seen.append(interaction)
            await interaction.response.send_message("server")

        @tree.command(name="guildapp", description="Only through a server install")
        @app_commands.allowed_installs(guilds=True, users=False)
        @app_commands.allowed_contexts(**ANYWHERE)
        async def guildapp(interaction: discord.Interaction) -> None:
            self.seen.append(interaction)
            await interaction.response.send_message("guild app")

        @tree.command(name="chatter", description="Answer, then follow up some times")
        @app_commands.allowed_installs(guilds=True, users=True)
        @app_commands.allowed_contexts(**ANYWHERE)
        async def chatter(interaction: discord.Interaction, times: int) -> None:
            await interaction.response.send_message("start")
            for i in range(times):
                try:
                    await interaction.followup.send(f"more {i}")
                except discord.HTTPException as exc:
                    self.refused.append(exc)
                    return

        @tree.command(name="think", description="Defer, then follow up")
        @app_commands.allowed_installs(guilds=True, users=True)
        @app_commands.allowed_contexts(**ANYWHERE)
        async def think(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await interaction.followup.send("thought")
            await interaction.followup.send("and more")

        @tree.command(name="park", description="Answer, follow up, and keep the interaction")
        @app_commands.allowed_installs(guilds=True, users=True)
        @app_commands.allowed_contexts(**ANYWHERE)
        async def park(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("parked")
            await interaction.followup.send("a follow-up")
            self.parked = interaction

        @tree.context_menu(name="Challenge")
        @app_commands.allowed_installs(guilds=True, users=True)
        @app_commands.allowed_contexts(**ANYWHERE)
        async def challenge(interaction: discord.Interaction, user: discord.Member | discord.User) -> None:
            self.seen.append(interaction)
            self.targets.append(user)
            await interaction.response.send_message(f"{interaction.user.name} challenges {user.name}")

        await tree.sync()


def delivered(fake: FakeDiscord, inter: FakeInteraction) -> dict[str, Any]:
    """The INTERACTION_CREATE payload the bot received for ``inter``."""
    for session in fake.sessions.values():
        for event in session.events:
            if event["t"] == "INTERACTION_CREATE" and event["d"]["id"] == str(inter.id):
                data: dict[str, Any] = event["d"]
                return data
    raise AssertionError(f"{inter!r} never reached the bot")


def interactions_sent(fake: FakeDiscord) -> int:
    return sum(1 for s in fake.sessions.values() for e in s.events if e["t"] == "INTERACTION_CREATE")
