"""What bot/ui needs of the bot: its table service and a few Discord client calls.

A protocol, so bot/ui never imports ``bot.client`` (which imports bot/ui): ``SkyboBot`` is one, and
a test can pass any object with these.
"""

from __future__ import annotations

from typing import Protocol

import discord
from discord.http import HTTPClient

from bot.service import TableService
from bot.ui.card_emojis import CardEmojis


class Counts(Protocol):
    """What bot/ui reports to the bot's figures (``bot.metrics.Metrics`` is one)."""

    def panel_edited(self, reason: str) -> None: ...


class Host(Protocol):
    """The bot as the presenter and the click handlers see it (``bot.client.SkyboBot``). The service
    is read when used, not when given: the bot builds the presenter before the service it listens to."""

    @property
    def service(self) -> TableService: ...

    @property
    def http(self) -> HTTPClient: ...

    @property
    def card_emojis(self) -> CardEmojis: ...  # the card faces' emojis for the panels' buttons

    @property
    def metrics(self) -> Counts: ...

    def get_partial_messageable(
        self, id: int, *, guild_id: int | None = None, type: discord.ChannelType | None = None
    ) -> discord.PartialMessageable: ...

    def get_guild(self, id: int, /) -> discord.Guild | None: ...

    async def create_dm(self, user: discord.abc.Snowflake) -> discord.DMChannel: ...
