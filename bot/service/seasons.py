"""Seasons (``/skybo season start|end``, issue 41): a server's boards that start afresh.

Each server's rated games count for its running season and for all time: storage rates a finished game
in the season's scope beside the server's and the global one, in the same transaction
(:mod:`bot.storage.seasons` says how, and why the scope is the season's id negated). The season's
ratings start from the model's default; the all-time ones go on untouched. This part checks what an
admin asks and reads the seasons back for the boards and ``/stats``; it keeps no state of its own
(every read goes to storage, so a restart loses nothing and two processes agree).

The rules, each refused privately, changing nothing: outside a server; a name empty, longer than
:data:`MAX_NAME` characters, holding a line break or a character Discord would hide, or ``all`` (the
leaderboard's word for all time); a name a season of the server already has (compared case-folded);
starting while one runs (end it first: starting never ends one silently); ending when none runs; a
leaderboard ``season:`` that names no season of the server. The admin check (Manage Server) is the
command's, as for ``/skybo settings``.
"""

from __future__ import annotations

import unicodedata

from bot.service.core import ServiceCore
from bot.service.types import Refused
from bot.storage.seasons import Season, SeasonConflict

MAX_NAME = 50  # a season's name, in characters (a leaderboard title and an autocomplete choice hold it)
ALL_TIME = "all"  # /leaderboard season:all: the server's all-time board


def season_name(raw: object) -> str:
    """The name as stored (spaces trimmed and collapsed), or Refused with the reason."""
    if not isinstance(raw, str):
        raise Refused("season.error.name_empty")
    name = " ".join(raw.split())
    if not name:
        raise Refused("season.error.name_empty")
    if len(name) > MAX_NAME:
        raise Refused("season.error.name_long", max=MAX_NAME)
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in name):
        raise Refused("season.error.name_chars")
    if name.casefold() == ALL_TIME:
        raise Refused("season.error.name_all", word=ALL_TIME)
    return name


class SeasonPart(ServiceCore):
    """Start and end a server's season; find the season a board or a card asks for."""

    async def start_season(self, guild_id: int | None, name: object, by: int) -> Season:
        if guild_id is None:
            raise Refused("season.error.guild_only")
        chosen = season_name(name)
        running = await self.storage.seasons.running(guild_id)
        if running is not None:
            raise Refused("season.error.running", name=running.name)
        try:
            return await self.storage.seasons.start(guild_id, chosen, by, now=self.clock.now_ms())
        except SeasonConflict as conflict:
            if conflict.reason == "name_taken":
                raise Refused("season.error.name_taken", name=chosen) from None
            raise Refused("season.error.running_now") from None

    async def end_season(self, guild_id: int | None, by: int) -> Season:
        """End the running season, its podium kept (:meth:`bot.storage.seasons.SeasonRepository.end`)."""
        if guild_id is None:
            raise Refused("season.error.guild_only")
        try:
            return await self.storage.seasons.end(guild_id, by, now=self.clock.now_ms())
        except SeasonConflict:
            raise Refused("season.error.none_running") from None

    async def ended_season(self, guild_id: int | None, name: str | None) -> Season:
        """An ended season whose podium is kept: that name's, else the latest; or Refused."""
        if guild_id is None:
            raise Refused("season.error.guild_only")
        if name is None or not name.strip():
            ended = [s for s in await self.storage.seasons.of_guild(guild_id) if not s.running]
            if not ended:
                raise Refused("season.error.none_ended")
            return ended[0]
        season = await self.storage.seasons.named(guild_id, name)
        if season is None:
            raise Refused("season.error.unknown", name=name.strip()[:MAX_NAME])
        if season.running:
            raise Refused("season.error.still_running", name=season.name)
        return season

    async def seasons_of(self, guild_id: int | None) -> list[Season]:
        """The server's seasons, the latest first (none outside a server)."""
        return [] if guild_id is None else await self.storage.seasons.of_guild(guild_id)

    async def season_by_id(self, guild_id: int | None, season_id: int) -> Season | None:
        """The season, if it is one of that server's (a paging button names it by id)."""
        season = await self.storage.seasons.get(season_id)
        return season if season is not None and season.guild_id == guild_id else None

    async def board_season(self, guild_id: int | None, choice: str | None) -> Season | None:
        """The season a server board shows: ``choice`` None is the running one (None when none runs:
        the all-time board), ``all`` all time, else the season of that name, or Refused."""
        if guild_id is None:
            return None
        if choice is None or not choice.strip():
            return await self.storage.seasons.running(guild_id)
        if choice.strip().casefold() == ALL_TIME:
            return None
        season = await self.storage.seasons.named(guild_id, choice)
        if season is None:
            raise Refused("season.error.unknown", name=choice.strip()[:MAX_NAME])
        return season


__all__ = ["ALL_TIME", "MAX_NAME", "SeasonPart", "season_name"]
