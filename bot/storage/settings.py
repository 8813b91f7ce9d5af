"""Server settings: what a server's admins chose with ``/skybo settings`` (issue 28).

One small row per server that changed something; a server without a row has :data:`DEFAULTS`. The
service keeps them in memory (they are read for every new table and every public message) and writes
them here on each change, so they survive a restart.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from bot.storage.backend import Connection, Database


@dataclass(frozen=True)
class ServerSettings:
    """A server's settings; the defaults: the bot's turn limit, every channel, the server's own
    language for public messages, games with computer players rated, tables in the channel (not a
    thread per game: ``threads``, migration 0007), no role organising tournaments besides the server's
    managers (``tournament_role``, a role id, migration 0010)."""

    turn_limit: int | None = None
    channels: tuple[int, ...] | None = None
    language: str | None = None
    rate_computers: bool = True
    threads: bool = False
    tournament_role: int | None = None

    def is_default(self) -> bool:
        return self == DEFAULTS


DEFAULTS = ServerSettings()


class SettingsRepository:
    """Reads and writes of ``server_settings``; each method is one hop of the database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def all(self) -> dict[int, ServerSettings]:
        """Every server's settings (the service loads them once at start)."""
        rows = await self.db.run(
            lambda c: c.execute(
                "SELECT guild_id, turn_limit, channels, language, rate_computers, threads,"
                " tournament_role FROM server_settings"
            ).fetchall()
        )
        return {int(r[0]): _settings(*r[1:]) for r in rows}

    async def get(self, guild_id: int) -> ServerSettings:
        row = await self.db.run(
            lambda c: c.execute(
                "SELECT turn_limit, channels, language, rate_computers, threads, tournament_role"
                " FROM server_settings WHERE guild_id = ?",
                (guild_id,),
            ).fetchone()
        )
        return DEFAULTS if row is None else _settings(*row)

    async def save(self, guild_id: int, settings: ServerSettings) -> None:
        """Store a server's settings whole (back to the defaults: the row is deleted)."""
        channels = None if settings.channels is None else json.dumps(list(settings.channels))
        rate_computers = None if settings.rate_computers else 0
        threads = 1 if settings.threads else None
        now = int(time.time() * 1000)

        def work(conn: Connection) -> None:
            if settings.is_default():
                conn.execute("DELETE FROM server_settings WHERE guild_id = ?", (guild_id,))
                return
            row = (
                guild_id, settings.turn_limit, channels, settings.language, rate_computers, threads,
                settings.tournament_role, now,
            )  # fmt: skip
            conn.execute(
                "INSERT INTO server_settings (guild_id, turn_limit, channels, language, rate_computers,"
                " threads, tournament_role, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET turn_limit = excluded.turn_limit,"
                " channels = excluded.channels, language = excluded.language,"
                " rate_computers = excluded.rate_computers, threads = excluded.threads,"
                " tournament_role = excluded.tournament_role, updated_at = excluded.updated_at",
                row,
            )

        await self.db.write(work)


def _settings(
    turn_limit: int | None,
    channels: str | None,
    language: str | None,
    rate_computers: int | None,
    threads: int | None = None,
    tournament_role: int | None = None,
) -> ServerSettings:
    return ServerSettings(
        turn_limit=None if turn_limit is None else int(turn_limit),
        channels=None if channels is None else tuple(int(c) for c in json.loads(channels)),
        language=language,
        rate_computers=rate_computers is None or bool(rate_computers),
        threads=bool(threads),
        tournament_role=None if tournament_role is None else int(tournament_role),
    )
