"""Tournaments (issue 41): a tournament's row, its players and its tables, round by round.

Storage keeps only what happened (options, seed, who joined or was dropped, who sat where and how each
table ended); the standings and the next round are computed by the service from these rows
(``bot/tournament/pairing.py``). Every change of a tournament's row checks its ``version``, so two
writes racing on one tournament cannot both win.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from bot.storage.backend import Connection, Database
from bot.storage.errors import ConcurrencyError, StorageError

SIGNUP, RUNNING, PAUSED, FINISHED, CANCELLED = "signup", "running", "paused", "finished", "cancelled"
OPEN_STATUSES = (SIGNUP, RUNNING, PAUSED)
SEATED, PLAYING, ENDED, BYE = "seated", "playing", "ended", "bye"


def _now_ms() -> int:
    return int(time.time() * 1000)


class TournamentNotFound(StorageError):
    def __init__(self, tournament_id: int) -> None:
        self.tournament_id = tournament_id
        super().__init__(f"tournament {tournament_id} does not exist")


class TournamentChanged(ConcurrencyError):
    """The tournament moved on since it was read."""

    def __init__(self, tournament_id: int) -> None:
        self.tournament_id = tournament_id
        super().__init__(f"tournament {tournament_id} changed since it was read")


@dataclass(frozen=True)
class Tournament:
    id: int
    guild_id: int
    channel_id: int
    organiser_id: int
    kind: str
    format: str
    seats: int
    rounds: int
    turn_limit: int | None
    starts_at: int | None  # ms
    seed: int
    rated: bool
    computers: bool
    status: str
    round: int
    signup_message_id: int | None
    standings_message_id: int | None
    final_message_id: int | None
    winner_id: int | None
    version: int


@dataclass(frozen=True)
class TournamentPlayer:
    user_id: int
    name: str
    joined_at: int
    dropped_round: int | None = None

    @property
    def dropped(self) -> bool:
        return self.dropped_round is not None


@dataclass(frozen=True)
class TournamentTable:
    tournament_id: int
    round: int
    table_no: int
    players: tuple[int, ...]
    channel_id: int | None
    game_id: int | None
    result: tuple[tuple[int, int], ...] | None  # (user id, computer: -seat; place)
    status: str


_COLUMNS = (
    "id, guild_id, channel_id, organiser_id, kind, format, seats, rounds, turn_limit, starts_at, seed, rated,"
    " computers, status, round, signup_message_id, standings_message_id, final_message_id, winner_id, version"
)
_TABLE_COLUMNS = "tournament_id, round, table_no, players, channel_id, game_id, result, status"
# The fields ``update`` may change (the rest are the tournament's identity and options).
_CHANGEABLE = frozenset(
    {
        "status",
        "round",
        "signup_message_id",
        "standings_message_id",
        "final_message_id",
        "winner_id",
        "starts_at",
    }
)


def _tournament(row: Sequence[Any]) -> Tournament:
    values = list(row)
    values[11], values[12] = bool(values[11]), bool(values[12])
    return Tournament(*values)


def _table(row: Sequence[Any]) -> TournamentTable:
    result = None if row[6] is None else tuple((int(p), int(place)) for p, place in json.loads(row[6]))
    return TournamentTable(
        int(row[0]), int(row[1]), int(row[2]), tuple(json.loads(row[3])), row[4], row[5], result, row[7]
    )


class TournamentRepository:
    """Every tournament read and write; each method is one hop of the database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        organiser_id: int,
        kind: str,
        format: str,
        seats: int,
        rounds: int,
        turn_limit: int | None,
        starts_at: int | None,
        seed: int,
        rated: bool,
        computers: bool,
    ) -> Tournament:
        now = _now_ms()

        def work(conn: Connection) -> int:
            row = conn.execute(
                "INSERT INTO tournaments (guild_id, channel_id, organiser_id, kind, format, seats, rounds,"
                " turn_limit, starts_at, seed, rated, computers, status, round, version, created_at,"
                " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?) RETURNING id",
                (
                    guild_id, channel_id, organiser_id, kind, format, seats, rounds, turn_limit, starts_at,
                    seed, int(rated), int(computers), SIGNUP, now, now,
                ),
            ).fetchone()  # fmt: skip
            return int(row[0])

        return await self.get(await self.db.write(work))

    async def get(self, tournament_id: int) -> Tournament:
        row = await self.db.run(
            lambda c: c.execute(
                f"SELECT {_COLUMNS} FROM tournaments WHERE id = ?", (tournament_id,)
            ).fetchone()
        )
        if row is None:
            raise TournamentNotFound(tournament_id)
        return _tournament(row)

    async def open(self) -> list[Tournament]:
        """Every tournament not over (signing up, running or paused): the service loads them at start."""
        rows = await self.db.run(
            lambda c: c.execute(
                f"SELECT {_COLUMNS} FROM tournaments WHERE status IN (?, ?, ?) ORDER BY id", OPEN_STATUSES
            ).fetchall()
        )
        return [_tournament(r) for r in rows]

    async def latest_in(self, channel_id: int) -> Tournament | None:
        """The channel's latest tournament, over or not."""
        row = await self.db.run(
            lambda c: c.execute(
                f"SELECT {_COLUMNS} FROM tournaments WHERE channel_id = ? ORDER BY id DESC LIMIT 1",
                (channel_id,),
            ).fetchone()
        )
        return None if row is None else _tournament(row)

    async def update(self, tournament: Tournament, **changes: Any) -> Tournament:
        """Change some of :data:`_CHANGEABLE` of a tournament read at ``tournament.version``."""
        if not changes or set(changes) - _CHANGEABLE:
            raise ValueError(f"cannot change {sorted(set(changes) - _CHANGEABLE)}")
        names = sorted(changes)

        def work(conn: Connection) -> None:
            _bump(conn, tournament, names, [changes[n] for n in names])

        await self.db.write(work)
        return replace(tournament, **changes, version=tournament.version + 1)

    async def players(self, tournament_id: int) -> list[TournamentPlayer]:
        """The players in the order they joined."""
        rows = await self.db.run(
            lambda c: c.execute(
                "SELECT user_id, name, joined_at, dropped_round FROM tournament_players"
                " WHERE tournament_id = ? ORDER BY joined_at, user_id",
                (tournament_id,),
            ).fetchall()
        )
        return [TournamentPlayer(int(r[0]), str(r[1]), int(r[2]), r[3]) for r in rows]

    async def join(self, tournament: Tournament, user_id: int, name: str) -> Tournament:
        """Add a player (the service checked they may); bumps the version, so a race loses."""
        now = _now_ms()

        def work(conn: Connection) -> None:
            _bump(conn, tournament, [], [])
            # Strictly after the last one to join (two joins within one millisecond keep their order).
            (last,) = conn.execute(
                "SELECT MAX(joined_at) FROM tournament_players WHERE tournament_id = ?", (tournament.id,)
            ).fetchone()
            conn.execute(
                "INSERT INTO tournament_players (tournament_id, user_id, name, joined_at)"
                " VALUES (?, ?, ?, ?)",
                (tournament.id, user_id, name, now if last is None else max(now, int(last) + 1)),
            )

        await self.db.write(work)
        return replace(tournament, version=tournament.version + 1)

    async def leave(self, tournament: Tournament, user_id: int) -> Tournament:
        """Remove a player who signed up (before the start)."""

        def work(conn: Connection) -> None:
            _bump(conn, tournament, [], [])
            conn.execute(
                "DELETE FROM tournament_players WHERE tournament_id = ? AND user_id = ?",
                (tournament.id, user_id),
            )

        await self.db.write(work)
        return replace(tournament, version=tournament.version + 1)

    async def drop(self, tournament: Tournament, user_id: int) -> Tournament:
        """Mark a player dropped in the current round (they are seated no more)."""

        def work(conn: Connection) -> None:
            _bump(conn, tournament, [], [])
            conn.execute(
                "UPDATE tournament_players SET dropped_round = ? WHERE tournament_id = ? AND user_id = ?",
                (tournament.round, tournament.id, user_id),
            )

        await self.db.write(work)
        return replace(tournament, version=tournament.version + 1)

    async def tables(self, tournament_id: int) -> list[TournamentTable]:
        """Every table of every round, in order."""
        rows = await self.db.run(
            lambda c: c.execute(
                f"SELECT {_TABLE_COLUMNS} FROM tournament_tables WHERE tournament_id = ?"
                " ORDER BY round, table_no",
                (tournament_id,),
            ).fetchall()
        )
        return [_table(r) for r in rows]

    async def seat_round(
        self, tournament: Tournament, round_no: int, tables: Sequence[Sequence[int]], byes: Sequence[int]
    ) -> Tournament:
        """Store a new round (its tables, then its byes as tables of one) and make it the current one,
        the tournament running; in one transaction. A table of ``tables`` may hold one player (with
        ``computers: on`` the computers fill it): it is seated and played, not a bye."""
        rows = [*((players, SEATED) for players in tables), *(((bye,), BYE) for bye in byes)]

        def work(conn: Connection) -> None:
            _bump(conn, tournament, ["round", "status"], [round_no, RUNNING])
            for number, (players, status) in enumerate(rows, start=1):
                conn.execute(
                    f"INSERT INTO tournament_tables ({_TABLE_COLUMNS})"
                    " VALUES (?, ?, ?, ?, NULL, NULL, NULL, ?)",
                    (tournament.id, round_no, number, json.dumps(list(players)), status),
                )

        await self.db.write(work)
        return replace(tournament, round=round_no, status=RUNNING, version=tournament.version + 1)

    async def table_room(self, table: TournamentTable, channel_id: int) -> TournamentTable:
        """The table's room (its thread) was opened: kept before the deal, so a restart between the two
        finds the game dealt there."""

        def work(conn: Connection) -> None:
            conn.execute(
                "UPDATE tournament_tables SET channel_id = ?"
                " WHERE tournament_id = ? AND round = ? AND table_no = ?",
                (channel_id, table.tournament_id, table.round, table.table_no),
            )

        await self.db.write(work)
        return replace(table, channel_id=channel_id)

    async def table_playing(self, table: TournamentTable, channel_id: int, game_id: int) -> TournamentTable:
        """The table's game was dealt in ``channel_id`` (its thread)."""

        def work(conn: Connection) -> None:
            conn.execute(
                "UPDATE tournament_tables SET channel_id = ?, game_id = ?, status = ?"
                " WHERE tournament_id = ? AND round = ? AND table_no = ?",
                (channel_id, game_id, PLAYING, table.tournament_id, table.round, table.table_no),
            )

        await self.db.write(work)
        return replace(table, channel_id=channel_id, game_id=game_id, status=PLAYING)

    async def table_ended(self, table: TournamentTable, result: Sequence[tuple[int, int]]) -> bool:
        """Record how a table ended; False if it had already ended (told twice: after a restart)."""

        def work(conn: Connection) -> bool:
            cursor = conn.execute(
                "UPDATE tournament_tables SET result = ?, status = ?"
                " WHERE tournament_id = ? AND round = ? AND table_no = ? AND status <> ?",
                (
                    json.dumps([list(r) for r in result]),
                    ENDED,
                    table.tournament_id,
                    table.round,
                    table.table_no,
                    ENDED,
                ),
            )
            return bool(cursor.rowcount == 1)

        return bool(await self.db.write(work))

    async def game_endings(self, tournament_id: int) -> dict[int, tuple[str, str | None]]:
        """Each of its tables' games: its status and note (how it ended: played to its end, ended by
        hand, lost with its channel), in one read."""
        rows = await self.db.run(
            lambda c: c.execute(
                "SELECT g.id, g.status, g.note FROM tournament_tables t JOIN games g ON g.id = t.game_id"
                " WHERE t.tournament_id = ?",
                (tournament_id,),
            ).fetchall()
        )
        return {int(r[0]): (str(r[1]), None if r[2] is None else str(r[2])) for r in rows}

    async def table_of_game(self, game_id: int) -> TournamentTable | None:
        row = await self.db.run(
            lambda c: c.execute(
                f"SELECT {_TABLE_COLUMNS} FROM tournament_tables WHERE game_id = ?", (game_id,)
            ).fetchone()
        )
        return None if row is None else _table(row)


def _bump(conn: Connection, tournament: Tournament, names: Sequence[str], values: Sequence[Any]) -> None:
    sets = "".join(f"{name} = ?, " for name in names)
    cursor = conn.execute(
        f"UPDATE tournaments SET {sets}version = version + 1, updated_at = ? WHERE id = ? AND version = ?",
        (*values, _now_ms(), tournament.id, tournament.version),
    )
    if cursor.rowcount != 1:
        raise TournamentChanged(tournament.id)
