"""Seasons (issue 41): a server's boards that start afresh, while its all-time boards go on.

A season runs from its start (``/skybo season start``) to its end (``/skybo season end``); at most one
runs per server (a partial unique index), and two seasons of a server never share a name, compared
case-folded (``folded``). While one runs, every rated game of the server is rated in its scope too,
``-<season id>`` (:func:`season_scope`): a negative number, so it never equals a Discord id (positive)
or the global scope (0). Those are ordinary rows of ``ratings`` and ``rating_history``, written by
:func:`bot.storage.ratings.write_ratings` in the transaction that ends the game, starting from the
model's default like any new board: the season's ratings start fresh, the server's and the global ones
go on. The boards, ``/stats`` and the rating history read a season through that scope.

Its end writes, in the same transaction that closes it, its **podium**: the three best people of each
game kind on its board (computer players left out; a kind without a rated game has no entry), kept as
JSON in the row, so it is shown again exactly as it was posted. Storage runs no rule: the podium is the
board's order (the shown rating), read in SQL.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from bot.storage.backend import Connection, Database
from bot.storage.errors import StorageError
from bot.storage.ratings import _PEOPLE
from bot.storage.venues import running_season_scopes

PODIUM_PLACES = 3


def season_scope(season_id: int) -> int:
    """The ratings scope of a season: its id negated (guild ids are positive, the global scope 0)."""
    return -int(season_id)


def fold(name: str) -> str:
    """How two names are compared: case-folded, spaces trimmed and collapsed."""
    return " ".join(name.split()).casefold()


class SeasonConflict(StorageError):
    """A season change the stored seasons refuse: ``reason`` is ``running`` (one runs already),
    ``name_taken`` (a season of that server has that name) or ``none_running`` (nothing to end)."""

    def __init__(self, guild_id: int, reason: str) -> None:
        self.guild_id = guild_id
        self.reason = reason
        super().__init__(f"guild {guild_id}: season refused ({reason})")


@dataclass(frozen=True)
class PodiumPlace:
    """One step of a podium: a person's place on the season's board, their name and figures then."""

    place: int
    player: str
    display_name: str
    rating: float
    games: int
    wins: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "place": self.place,
            "player": self.player,
            "name": self.display_name,
            "rating": self.rating,
            "games": self.games,
            "wins": self.wins,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PodiumPlace:
        return cls(
            int(data["place"]),
            str(data["player"]),
            str(data["name"]),
            float(data["rating"]),
            int(data["games"]),
            int(data["wins"]),
        )


@dataclass(frozen=True)
class Season:
    """A season of a server. ``podium``: by kind, its best (written at its end; None while it runs)."""

    id: int
    guild_id: int
    name: str
    started_at: int
    started_by: int
    ended_at: int | None = None
    ended_by: int | None = None
    podium: dict[str, list[PodiumPlace]] | None = None

    @property
    def scope(self) -> int:
        return season_scope(self.id)

    @property
    def running(self) -> bool:
        return self.ended_at is None


_COLUMNS = "id, guild_id, name, started_at, started_by, ended_at, ended_by, podium"


def _season(row: Any) -> Season:
    podium = None
    if row[7] is not None:
        podium = {
            kind: [PodiumPlace.from_dict(p) for p in places] for kind, places in json.loads(row[7]).items()
        }
    return Season(
        int(row[0]),
        int(row[1]),
        str(row[2]),
        int(row[3]),
        int(row[4]),
        None if row[5] is None else int(row[5]),
        None if row[6] is None else int(row[6]),
        podium,
    )


def podium_rows(conn: Connection, scope: int, places: int = PODIUM_PLACES) -> dict[str, list[PodiumPlace]]:
    """The best ``places`` people of each kind rated in ``scope``, in the board's order (competition
    places: equal shown ratings share one)."""
    kinds = [
        str(r[0])
        for r in conn.execute(
            "SELECT kind FROM rating_boards WHERE scope = ? AND players > 0 ORDER BY kind", (scope,)
        ).fetchall()
    ]
    podium: dict[str, list[PodiumPlace]] = {}
    people = _PEOPLE.format(alias="r")
    better = _PEOPLE.format(alias="b")
    for kind in kinds:
        rows = conn.execute(
            "SELECT (SELECT count(*) FROM ratings AS b WHERE b.kind = r.kind AND b.scope = r.scope"
            f" AND b.conservative > r.conservative{better}) + 1, r.player, r.display_name, r.conservative,"
            f" r.games, r.wins FROM ratings AS r WHERE r.kind = ? AND r.scope = ?{people}"
            " ORDER BY r.conservative DESC, r.games DESC, r.player LIMIT ?",
            (kind, scope, places),
        ).fetchall()
        steps = [PodiumPlace(int(p), str(k), str(n), float(c), int(g), int(w)) for p, k, n, c, g, w in rows]
        if steps:
            podium[kind] = steps
    return podium


class SeasonRepository:
    """Reads and writes of ``seasons``; each method is one hop of the database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def start(self, guild_id: int, name: str, by: int, *, now: int | None = None) -> Season:
        """Open a season named ``name`` (trimmed by the caller) on ``guild_id``; :class:`SeasonConflict`
        when one runs there or the name is taken (checked in the transaction, and by the schema)."""
        at = int(time.time() * 1000) if now is None else int(now)
        folded = fold(name)

        def work(conn: Connection) -> int:
            if running_season_scopes(conn, guild_id):
                raise SeasonConflict(guild_id, "running")
            taken = conn.execute(
                "SELECT 1 FROM seasons WHERE guild_id = ? AND folded = ?", (guild_id, folded)
            ).fetchone()
            if taken is not None:
                raise SeasonConflict(guild_id, "name_taken")
            try:
                row = conn.execute(
                    "INSERT INTO seasons (guild_id, name, folded, started_at, started_by)"
                    " VALUES (?, ?, ?, ?, ?) RETURNING id",
                    (guild_id, name, folded, at, by),
                ).fetchone()
            except Exception as error:
                if self.db.is_unique_violation(error):  # a racing start: the schema's indexes
                    raise SeasonConflict(guild_id, "running") from error
                raise
            return int(row[0])

        season_id = await self.db.write(work)
        return Season(season_id, guild_id, name, at, by)

    async def end(self, guild_id: int, by: int, *, now: int | None = None) -> Season:
        """Close the server's running season and keep its podium (both in one transaction);
        :class:`SeasonConflict` (``none_running``) when none runs."""
        at = int(time.time() * 1000) if now is None else int(now)
        lock = self.db.row_lock

        def work(conn: Connection) -> Season:
            # Locked first: a game finishing now either committed before (and is on the podium) or
            # finds no running season (bot.storage.ratings.write_ratings reads it with the same lock).
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM seasons WHERE guild_id = ? AND ended_at IS NULL{lock}", (guild_id,)
            ).fetchone()
            if row is None:
                raise SeasonConflict(guild_id, "none_running")
            season = _season(row)
            podium = podium_rows(conn, season.scope)
            text = json.dumps(
                {kind: [p.to_dict() for p in places] for kind, places in podium.items()}, sort_keys=True
            )
            conn.execute(
                "UPDATE seasons SET ended_at = ?, ended_by = ?, podium = ? WHERE id = ?",
                (at, by, text, season.id),
            )
            return Season(
                season.id, guild_id, season.name, season.started_at, season.started_by, at, by, podium
            )

        return await self.db.write(work)

    async def running(self, guild_id: int) -> Season | None:
        """The server's running season, if any."""
        row = await self.db.run(
            lambda c: c.execute(
                f"SELECT {_COLUMNS} FROM seasons WHERE guild_id = ? AND ended_at IS NULL", (guild_id,)
            ).fetchone()
        )
        return None if row is None else _season(row)

    async def named(self, guild_id: int, name: str) -> Season | None:
        """The server's season of that name (compared case-folded), if any."""
        row = await self.db.run(
            lambda c: c.execute(
                f"SELECT {_COLUMNS} FROM seasons WHERE guild_id = ? AND folded = ?", (guild_id, fold(name))
            ).fetchone()
        )
        return None if row is None else _season(row)

    async def get(self, season_id: int) -> Season | None:
        row = await self.db.run(
            lambda c: c.execute(f"SELECT {_COLUMNS} FROM seasons WHERE id = ?", (season_id,)).fetchone()
        )
        return None if row is None else _season(row)

    async def of_guild(self, guild_id: int) -> list[Season]:
        """Every season of the server, the latest first."""
        rows = await self.db.run(
            lambda c: c.execute(
                f"SELECT {_COLUMNS} FROM seasons WHERE guild_id = ? ORDER BY started_at DESC, id DESC",
                (guild_id,),
            ).fetchall()
        )
        return [_season(r) for r in rows]


__all__ = [
    "PODIUM_PLACES",
    "PodiumPlace",
    "Season",
    "SeasonConflict",
    "SeasonRepository",
    "fold",
    "podium_rows",
    "season_scope",
]
