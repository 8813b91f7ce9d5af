"""Each server's settings as the service knows them: a cache of what was last read or changed here (the
defaults left out), and the check of a new table's channel against them. Made by the service's core
and handed to every part that reads them (lobbies, tournaments, the settings part)."""

from __future__ import annotations

from bot.service.types import Refused
from bot.storage import Storage
from bot.storage.settings import DEFAULTS, ServerSettings


class SettingsBook:
    """Each server's settings as last read or changed here, over storage's."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._of_guild: dict[int, ServerSettings] = {}

    async def load(self) -> None:
        """Every server's stored settings, instead of what the cache held (at start)."""
        every = await self._storage.settings.all()
        self._of_guild.clear()
        for guild_id, settings in every.items():
            self.remember(guild_id, settings)

    def of(self, guild_id: int | None) -> ServerSettings:
        """A server's settings from the cache (the defaults outside a server)."""
        return DEFAULTS if guild_id is None else self._of_guild.get(guild_id, DEFAULTS)

    def remember(self, guild_id: int, settings: ServerSettings) -> None:
        if settings.is_default():
            self._of_guild.pop(guild_id, None)
        else:
            self._of_guild[guild_id] = settings

    async def read(self, guild_id: int) -> ServerSettings:
        """A server's stored settings (the cache refreshed)."""
        settings = await self._storage.settings.get(guild_id)
        self.remember(guild_id, settings)
        return settings

    async def for_new_table(self, guild_id: int | None, channel_id: int) -> ServerSettings:
        """The stored settings of a server opening a table (the cache refreshed), or Refused when the
        channel is not one where the server allows tables (the refusal names those channels)."""
        if guild_id is None:
            return DEFAULTS
        settings = await self.read(guild_id)
        if settings.channels is not None and channel_id not in settings.channels:
            where = ", ".join(f"<#{c}>" for c in settings.channels)
            raise Refused("settings.error.channel", channels=where)
        return settings
