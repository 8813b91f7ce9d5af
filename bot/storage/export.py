"""Export a stored game as JSON, so any bug report reproduces.

``python -m bot export-game ID [--database PATH | --database-url postgresql://...]`` prints the game's
kind, seed, options, players and action log (by default from the settings' database: DATABASE_URL, else
DATABASE_PATH), each action with its idempotency key (``key``: the interaction that made it, null for a
computer player or a timer); ``python -m bot replay FILE`` (:mod:`bot.service.replay_file`: the rules
are the service's, storage runs none) rebuilds it with the engine. The export holds the seed, so it
reveals every card: it is a tool for the people who run the bot, not for players.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from bot.storage import Storage
from bot.storage.backend import Connection
from bot.storage.errors import GameNotFound, StorageError
from bot.storage.games import Seat

FORMAT = "skybo.game/1"


def _export(conn: Connection, game_id: int) -> dict[str, Any]:
    row = conn.execute(
        "SELECT id, kind, seed, options, status, version, guild_id, channel_id, snapshot_hash, created_at,"
        " finished_at, note, off_server FROM games WHERE id = ?",
        (game_id,),
    ).fetchone()
    if row is None:
        raise GameNotFound(game_id)
    gid, kind, seed, options, status, version, guild_id, channel_id, digest, created, finished, note, off = (
        row
    )
    try:
        options_value: Any = json.loads(options)
    except ValueError:
        options_value = options  # exported as found, so a quarantined game can be studied too
    seats = [
        Seat(seat, name, user, level)
        for seat, user, level, name in conn.execute(
            "SELECT seat, user_id, ai_level, display_name FROM game_seats WHERE game_id = ? ORDER BY seat",
            (game_id,),
        )
    ]
    actions = []
    for seq, seat, action, key in conn.execute(
        "SELECT seq, seat, action, idempotency_key FROM game_actions WHERE game_id = ? ORDER BY seq",
        (game_id,),
    ):
        try:
            action_value: Any = json.loads(action)
        except ValueError:
            action_value = action
        # "key": the interaction (click) that made the action, its idempotency key; null without one.
        actions.append({"seq": seq, "seat": seat, "action": action_value, "key": key})
    return {
        "format": FORMAT,
        "game_id": gid,
        "kind": kind,
        "seed": seed,
        "options": options_value,
        "players": [
            {
                "seat": s.seat,
                "name": s.engine_name,
                "display_name": s.display_name,
                "user_id": s.user_id,
                "ai_level": s.ai_level,
            }
            for s in seats
        ],
        "actions": actions,
        "status": status,
        "version": version,
        "snapshot_hash": digest,
        "guild_id": guild_id,
        "channel_id": channel_id,
        "off_server": bool(off),  # played where the bot has no server (bot/storage/venues.py)
        "created_at": created,
        "finished_at": finished,
        "note": note,
    }


async def export_game(path: str | Path | None, game_id: int, *, url: str | None = None) -> dict[str, Any]:
    """A stored game as a JSON-safe dict, from the SQLite file ``path`` or the PostgreSQL database at
    ``url`` (read-only either way: safe while the bot runs)."""
    if url is not None:
        return await asyncio.to_thread(_export_postgres, url, game_id)
    assert path is not None
    async with await Storage.open(path, synchronous="FULL", readonly=True) as storage:
        return await storage.db.run(lambda c: _export(c, game_id))


def _export_postgres(url: str, game_id: int) -> dict[str, Any]:
    """One read-only transaction on a connection of its own: unlike ``Storage.open``, it never migrates
    the database (an export changes nothing)."""
    from bot.storage.postgres.bulk import read_once  # a SQLite export never loads the PostgreSQL driver

    return read_once(url, lambda c: _export(c, game_id))


def _default_database() -> tuple[Path, str | None]:
    """The settings' database: ``(DATABASE_PATH, DATABASE_URL when it is a PostgreSQL one)``."""
    from bot.config import load_settings

    settings = load_settings()
    return settings.database_path, settings.database_url


def main_export(args: list[str]) -> int:
    """``export-game``; a database that cannot be read (no such file, server, database or game) is one
    line on stderr and exit status 1, never the password of a URL."""
    parser = argparse.ArgumentParser(
        prog="python -m bot export-game", description="Print a stored game as JSON."
    )
    parser.add_argument("game_id", type=int, metavar="ID")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--database", type=Path, default=None, help="the SQLite file (default: DATABASE_URL or DATABASE_PATH)"
    )
    where.add_argument(
        "--database-url", default=None, metavar="URL", help="a PostgreSQL database: postgresql://..."
    )
    parser.add_argument("--indent", type=int, default=2)
    options = parser.parse_args(args)
    path: Path | None = options.database
    url: str | None = options.database_url
    if path is None and url is None:
        path, url = _default_database()
    try:
        exported = asyncio.run(export_game(path, options.game_id, url=url))
    except StorageError as error:
        print(f"export-game: {error}", file=sys.stderr)
        return 1
    print(json.dumps(exported, indent=options.indent or None, ensure_ascii=False))
    return 0
