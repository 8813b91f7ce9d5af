"""Server settings (``/skybo settings``, issue 28): what a server's admins chose for its new tables.

The settings are read for every new table and every public message, so the service keeps them in
memory (the core's ``settings_book``, :mod:`~bot.service.settings_book`; loaded at start,
:meth:`SettingsPart.load_settings`) and writes each change to the database
first, then to the cache. A server's commands and clicks always reach the process of its shard, so
that process's cache is the one that matters; opening a table still reads the stored row, so a table
never opens on an outdated setting.

What they change: the turn limit of a new table when ``/<game> new`` does not give one; the channels
where a table may be opened (every channel by default); the language of the public messages (the
server's own by default, or a fixed ``en`` / ``fr``); whether a game dealt with a computer player is
rated (by default it is; if not, the game is dealt unrated, rather than computers being refused: the
lobby says so before the start, and a table of friends with a computer can still play). Decided at the
deal, from the computers seated then: a computer that later takes a leaving player's seat changes
nothing. Tables already open keep their turn limit and channel; the deal reads the setting then.
``threads``: a new lobby's game moves to a thread of its own at the start (the lobby's ``thread``
option, taken from this setting when ``/<game> new`` does not say; docs/discord.md, "Threads").
``tournament_role``: members with that role organise tournaments as server managers do (create, start,
drop, pause, resume, cancel; the one check is ``bot.ui.tournaments.may_organise``); cleared with
``clear_tournament_role``, only server managers organise again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Unpack

from bot.i18n import LANGUAGES
from bot.service.core import ServiceCore, ServiceOptions
from bot.service.events import SettingsChanged
from bot.service.types import DEFAULT_TURN_LIMIT, TURN_LIMITS, Refused
from bot.storage import Storage
from bot.storage.settings import ServerSettings

# How many channels a server may list (a refusal names them all, within one message).
MAX_CHANNELS = 25


class SettingsPart(ServiceCore):
    """Read, cache and change a server's settings, and check a new table against them."""

    def __init__(self, storage: Storage, **options: Unpack[ServiceOptions]) -> None:
        super().__init__(storage, **options)

    async def load_settings(self) -> None:
        """Every server's settings into the cache (at start, before the first command)."""
        await self.settings_book.load()

    def settings_of(self, guild_id: int | None) -> ServerSettings:
        """A server's settings from the cache (the defaults outside a server)."""
        return self.settings_book.of(guild_id)

    async def read_settings(self, guild_id: int) -> ServerSettings:
        """A server's stored settings (the cache refreshed): what ``/skybo settings`` shows anyone."""
        return await self.settings_book.read(guild_id)

    def public_locale(self, guild_id: int | None, locale: object) -> object:
        """The language of a public message in ``guild_id``: the server's fixed one, else ``locale``
        (the server's own)."""
        return self.settings_of(guild_id).language or locale

    async def change_settings(
        self,
        guild_id: int | None,
        *,
        turn_limit: int | None = None,
        allow_channel: int | None = None,
        remove_channel: int | None = None,
        all_channels: bool = False,
        language: str | None = None,
        rate_computers: bool | None = None,
        threads: bool | None = None,
        tournament_role: int | None = None,
        clear_tournament_role: bool = False,
    ) -> ServerSettings:
        """Apply the changes given (None: unchanged) and store them; Refused, changing nothing, for
        a value outside what the command offers. ``language`` ``"server"`` is back to the server's
        own; a turn limit equal to the bot's default is no setting at all; removing the last listed
        channel opens every channel again."""
        if guild_id is None:
            raise Refused("table.error.guild_only")
        current = await self.storage.settings.get(guild_id)
        new = current
        if turn_limit is not None:
            if type(turn_limit) is not int or turn_limit not in TURN_LIMITS:
                raise Refused("table.error.bad_turn_limit")
            new = replace(new, turn_limit=None if turn_limit == DEFAULT_TURN_LIMIT else turn_limit)
        if language is not None:
            if language != "server" and language not in LANGUAGES:
                raise Refused("settings.error.language")
            new = replace(new, language=None if language == "server" else language)
        if rate_computers is not None:
            new = replace(new, rate_computers=bool(rate_computers))
        if threads is not None:
            new = replace(new, threads=bool(threads))
        if clear_tournament_role:
            new = replace(new, tournament_role=None)
        if tournament_role is not None:
            if type(tournament_role) is not int or tournament_role in (0, guild_id):
                raise Refused("settings.error.tournament_role")  # @everyone's id is the server's
            new = replace(new, tournament_role=tournament_role)
        if all_channels:
            new = replace(new, channels=None)
        if allow_channel is not None:
            listed = new.channels or ()
            if allow_channel not in listed:
                if len(listed) >= MAX_CHANNELS:
                    raise Refused("settings.error.too_many_channels", max=MAX_CHANNELS)
                new = replace(new, channels=(*listed, allow_channel))
        if remove_channel is not None and new.channels is not None:
            kept = tuple(c for c in new.channels if c != remove_channel)
            new = replace(new, channels=kept or None)
        if new != current:
            await self.storage.settings.save(guild_id, new)
        self.settings_book.remember(guild_id, new)
        if new != current:  # an open lobby says the settings in words: its message is drawn again
            lobbies = tuple(sorted(await self.lobbies.open_ids(guild_id=guild_id)))
            self.bus.publish(SettingsChanged(guild_id=guild_id, settings=new, open_lobbies=lobbies))
        return new
