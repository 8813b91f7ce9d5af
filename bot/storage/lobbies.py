"""Lobbies: the tables being formed (seats, options, host) before a game is dealt.

A lobby is a small row: its seats are one JSON list. Every write checks the lobby's ``version`` (and
that it is still open), so two clicks racing on the same lobby cannot both win.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.storage.backend import Connection, Database
from bot.storage.errors import ChannelBusy, ConcurrencyError, StorageError
from bot.storage.venues import Venue

OPEN = "open"
STARTED = "started"
CANCELLED = "cancelled"
# Keys of a lobby's ``options`` that belong to the table, not to the game's engine: the turn limit, and
# the players a Rematch invites (``bot.service.lobbies``: a list of ``{"user_id", "name"}``) and until
# when their seats are held (ms on the service's clock; gone once the hold is over). The rest are the
# engine's options; ``engine_options`` gives them.
TURN_LIMIT, INVITED, HELD_UNTIL = "turn_limit", "invited", "held_until"
THREAD = "thread"  # the game moves to a thread of its own at the start (docs/discord.md, "Threads")
# A right-click challenge's lobby (bot.ui.challenges): True; its one invited player's seat is held.
CHALLENGE = "challenge"
# The language of the public messages of a table where the bot has no server (its host's: no server
# fixes one there; docs/discord.md, "Tables where the bot is not a member").
LANGUAGE = "language"
TABLE_KEYS = frozenset({TURN_LIMIT, INVITED, HELD_UNTIL, THREAD, LANGUAGE, CHALLENGE})


def engine_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """A lobby's options without the table's own keys (:data:`TABLE_KEYS`): what the engine reads."""
    return {k: v for k, v in options.items() if k not in TABLE_KEYS}


def _now_ms() -> int:
    return int(time.time() * 1000)


class LobbyNotFound(StorageError):
    """No lobby has that id."""

    def __init__(self, lobby_id: int) -> None:
        self.lobby_id = lobby_id
        super().__init__(f"lobby {lobby_id} does not exist")


class LobbyChanged(ConcurrencyError):
    """The lobby moved on (another write, or it was started or cancelled) since it was read."""

    def __init__(self, lobby_id: int) -> None:
        self.lobby_id = lobby_id
        super().__init__(f"lobby {lobby_id} changed since it was read")


@dataclass(frozen=True)
class LobbySeat:
    """A seat in a lobby: a Discord user, or a computer player of some level."""

    name: str
    user_id: int | None = None
    ai_level: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "user_id": self.user_id, "ai_level": self.ai_level}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LobbySeat:
        return cls(str(data["name"]), data.get("user_id"), data.get("ai_level"))


@dataclass
class Lobby:
    id: int
    guild_id: int | None
    channel_id: int
    kind: str
    host_id: int
    message_id: int | None
    options: dict[str, Any]
    seats: list[LobbySeat]
    status: str
    game_id: int | None
    version: int
    created_at: int = 0
    updated_at: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    # True where the bot has no server (a group DM, a DM, a server only a user installed Skybo in):
    # the game it becomes is off server too (bot.storage.venues). Always True without a guild.
    off_server: bool = False

    @property
    def venue(self) -> Venue:
        """Where the lobby is: the server where the bot is, or the channel where it has none."""
        return Venue.of(self.guild_id, self.channel_id, self.off_server)

    def seat_of(self, user_id: int) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s.user_id == user_id), None)


_COLUMNS = (
    "id, guild_id, channel_id, kind, host_id, message_id, options, seats, status, game_id, version,"
    " created_at, updated_at, off_server"
)


def _row_to_lobby(row: Sequence[Any]) -> Lobby:
    return Lobby(
        id=row[0],
        guild_id=row[1],
        channel_id=row[2],
        kind=row[3],
        host_id=row[4],
        message_id=row[5],
        options=json.loads(row[6]),
        seats=[LobbySeat.from_dict(s) for s in json.loads(row[7])],
        status=row[8],
        game_id=row[9],
        version=row[10],
        created_at=row[11],
        updated_at=row[12],
        off_server=bool(row[13]),
    )


def _dump(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


class LobbyRepository:
    """Every lobby read and write; each method is one hop of the database (one unit of work)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        kind: str,
        host_id: int,
        options: Mapping[str, Any],
        seats: Sequence[LobbySeat],
        off_server: bool = False,
        now_ms: int | None = None,
    ) -> Lobby:
        """Open a lobby; :class:`ChannelBusy` if the channel has an open lobby or an active game.
        ``off_server``: the bot has no server here (always so without a guild; see
        :meth:`bot.storage.games.GameRepository.create_game`). ``now_ms``: when it opens on the
        caller's clock (the service's, which also times its expiry from ``created_at``); the wall
        clock by default."""
        now = _now_ms() if now_ms is None else int(now_ms)
        off_server = off_server or guild_id is None
        options_json = _dump(dict(options))
        seats_json = _dump([s.to_dict() for s in seats])

        def work(conn: Connection) -> int:
            game = conn.execute(
                "SELECT id FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,)
            ).fetchone()
            if game is not None:
                raise ChannelBusy(channel_id, game[0])
            try:
                row = conn.execute(
                    "INSERT INTO lobbies (guild_id, channel_id, kind, host_id, options, seats, status,"
                    " version, created_at, updated_at, off_server)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?) RETURNING id",
                    (
                        guild_id,
                        channel_id,
                        kind,
                        host_id,
                        options_json,
                        seats_json,
                        OPEN,
                        now,
                        now,
                        int(off_server),
                    ),
                ).fetchone()
            except Exception as error:
                if self.db.is_unique_violation(error):  # the partial unique index: one open lobby
                    raise ChannelBusy(channel_id) from error
                raise
            return int(row[0])

        lobby_id = await self.db.write(work)
        return Lobby(
            lobby_id, guild_id, channel_id, kind, host_id, None, dict(options), list(seats), OPEN, None, 0,
            now, now, off_server=off_server,
        )  # fmt: skip

    async def get(self, lobby_id: int) -> Lobby:
        row = await self.db.run(
            lambda c: c.execute(f"SELECT {_COLUMNS} FROM lobbies WHERE id = ?", (lobby_id,)).fetchone()
        )
        if row is None:
            raise LobbyNotFound(lobby_id)
        return _row_to_lobby(row)

    async def open_in_channel(self, channel_id: int) -> Lobby | None:
        row = await self.db.run(
            lambda c: c.execute(
                f"SELECT {_COLUMNS} FROM lobbies WHERE channel_id = ? AND status = ?", (channel_id, OPEN)
            ).fetchone()
        )
        return None if row is None else _row_to_lobby(row)

    async def list_open(self) -> list[Lobby]:
        rows = await self.db.run(
            lambda c: c.execute(
                f"SELECT {_COLUMNS} FROM lobbies WHERE status = ? ORDER BY id", (OPEN,)
            ).fetchall()
        )
        return [_row_to_lobby(r) for r in rows]

    async def open_ids(self, *, host_id: int | None = None, guild_id: int | None = None) -> set[int]:
        """The ids of the open lobbies hosted by ``host_id`` and/or in the server ``guild_id`` (the
        table caps count them; ids, so a lobby being dealt is not counted twice with its game)."""
        if host_id is None and guild_id is None:
            raise ValueError("open_ids needs a host or a server")
        clauses: list[str] = ["status = ?"]
        params: list[object] = [OPEN]
        for column, value in (("host_id", host_id), ("guild_id", guild_id)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        # Reads only the partial index of open lobbies (lobbies_one_open_per_channel), never the history.
        query = f"SELECT id FROM lobbies WHERE {' AND '.join(clauses)}"
        rows = await self.db.run(lambda c: c.execute(query, params).fetchall())
        return {int(r[0]) for r in rows}

    async def set_seats(
        self, lobby: Lobby, seats: Sequence[LobbySeat], options: Mapping[str, Any] | None = None
    ) -> Lobby:
        """Replace the seats (and with ``options``, the options) of an open lobby read at
        ``lobby.version``; returns the updated lobby."""
        seats_json = _dump([s.to_dict() for s in seats])
        if options is None:
            await self._update(lobby, "seats = ?", (seats_json,))
        else:
            await self._update(lobby, "seats = ?, options = ?", (seats_json, _dump(dict(options))))
            lobby.options = dict(options)
        lobby.seats = list(seats)
        return lobby

    async def set_message_id(self, lobby_id: int, message_id: int) -> None:
        """Remember the lobby's public message (whatever its status: a click may have started it)."""

        def work(conn: Connection) -> None:
            conn.execute(
                "UPDATE lobbies SET message_id = ?, updated_at = ? WHERE id = ?",
                (message_id, _now_ms(), lobby_id),
            )

        await self.db.write(work)

    async def close(self, lobby: Lobby, status: str, game_id: int | None = None) -> Lobby:
        """Mark an open lobby ``started`` (with the game it became) or ``cancelled``."""
        if status not in (STARTED, CANCELLED):
            raise ValueError(status)
        await self._update(lobby, "status = ?, game_id = ?", (status, game_id))
        lobby.status, lobby.game_id = status, game_id
        return lobby

    async def _update(self, lobby: Lobby, assignment: str, params: tuple[Any, ...]) -> None:
        now = _now_ms()

        def work(conn: Connection) -> None:
            cursor = conn.execute(
                f"UPDATE lobbies SET {assignment}, version = version + 1, updated_at = ?"
                " WHERE id = ? AND version = ? AND status = ?",
                (*params, now, lobby.id, lobby.version, OPEN),
            )
            if cursor.rowcount != 1:
                raise LobbyChanged(lobby.id)

        await self.db.write(work)
        lobby.version += 1
        lobby.updated_at = now
