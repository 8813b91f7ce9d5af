"""Where a game is played, as its storage and its ratings see it (issue 49, "Play anywhere").

A **venue** is one of two things:

- **a server where the bot is** (``Venue.server(guild_id)``): every channel of it is one place; its games
  are rated on the server's board (scope: the guild id), on the global board (scope 0) and on the
  server's running season (``-<season id>``), as before issue 49;
- **a channel where the bot has no server** (``Venue.channel(channel_id, guild_id=None)``, "off
  server"): a group DM or a DM between users (a user installed Skybo), a DM with the bot, or a channel
  of a server the bot is not a member of (only a user installed it there: ``guild_id`` is that server).
  Its games are rated on **the channel's own board** only (scope: the channel id; a group DM's is its
  "friends" board), never on a server's board, never on a season's, and **never on the global board**.

Why off-server games never count on the global board (the rule players and operators read in
docs/storage.md and docs/discord.md): anyone can open a group DM with a second account of their own,
or a DM with the bot, and play against themselves or a computer as often as they like; no server's
admin invited the bot there and no member saw the games. Counting those games on the global board
would let one player with several accounts farm it. Rated on their own place's board, they cost only
the friends who share that place, who see every game of it. Nothing is lost: the games, their results,
``/history``, replays and the place's board keep everything.

Scopes (the ``scope`` column of ``ratings`` and ``rating_history``): ``0`` the global board; a positive
number the board of a place, a server's (its guild id) or an off-server channel's (its channel id);
a negative number a server's season (``-<season id>``, :mod:`bot.storage.seasons`). A Discord id names
one object only, so a guild's id never equals a group DM's or a DM's: the boards cannot mix. The one
exception Discord makes is a server's first channel made before 2017, which has the server's own id;
an off-server game in such a channel (only a user installed Skybo in that old server) would write the
server's scope, and mix into that server's board should the bot join it later: such a game is played
and kept, but rated on no board (:attr:`Venue.board` is None).

A stored game (and a lobby) says which venue it is in with ``guild_id``, ``channel_id`` and the
``off_server`` column (migration 0011): 1 for every game whose guild is NULL, and for a game in a
server the bot is not in. The guild id is kept for the latter: Discord sends that server's interactions
to the guild's shard, so the process that owns the shard must own the table (docs/deploy.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.backend import Connection

GLOBAL_SCOPE = 0


@dataclass(frozen=True, slots=True)
class Venue:
    """A server where the bot is (``off_server`` False: ``guild_id``, any of its channels), or a channel
    where it has no server (``off_server`` True: ``channel_id``, and ``guild_id`` when the channel is a
    server's). Build one with :meth:`server`, :meth:`channel` or, for a stored row, :meth:`of`."""

    guild_id: int | None
    channel_id: int | None = None
    off_server: bool = False

    def __post_init__(self) -> None:
        if self.off_server and self.channel_id is None:
            raise ValueError("a venue where the bot has no server is a channel: channel_id is needed")
        if not self.off_server and self.guild_id is None:
            raise ValueError("a venue without a server is off server: Venue.channel(channel_id)")

    @classmethod
    def server(cls, guild_id: int) -> Venue:
        """A server where the bot is: every channel of it."""
        return cls(int(guild_id))

    @classmethod
    def channel(cls, channel_id: int, guild_id: int | None = None) -> Venue:
        """A channel where the bot has no server: a group DM, a DM, or (``guild_id``) a channel of a
        server the bot is not in."""
        return cls(None if guild_id is None else int(guild_id), int(channel_id), True)

    @classmethod
    def of(cls, guild_id: int | None, channel_id: int, off_server: bool) -> Venue:
        """The venue of a stored game or lobby (a row without a guild is off server whatever its flag)."""
        if off_server or guild_id is None:
            return cls.channel(channel_id, guild_id)
        return cls.server(guild_id)

    @property
    def board(self) -> int | None:
        """The scope of this place's own board: the server's (its guild id), or the off-server channel's
        (its id); None for a channel that shares its server's id (see the module docstring)."""
        if not self.off_server:
            return self.guild_id
        if self.channel_id == self.guild_id:
            return None
        return self.channel_id

    def holds(self, guild_id: int | None, channel_id: int, off_server: bool) -> bool:
        """Whether a stored game (or lobby) of those columns was played in this venue."""
        return Venue.of(guild_id, channel_id, off_server) == self


def running_season_scopes(conn: Connection, guild_id: int, row_lock: str = "") -> list[int]:
    """The scope of the server's running season (``-id``), or none."""
    # Shared, not exclusive: games finishing at once on one server do not wait for each other here;
    # a season's end (FOR UPDATE, bot.storage.seasons) waits for them, and they for it.
    share = row_lock.replace("FOR UPDATE", "FOR SHARE")
    row = conn.execute(
        f"SELECT id FROM seasons WHERE guild_id = ? AND ended_at IS NULL{share}", (guild_id,)
    ).fetchone()
    return [] if row is None else [-int(row[0])]


def rated_scopes(conn: Connection, venue: Venue, row_lock: str = "") -> list[int]:
    """The scopes a rated game of ``venue`` is rated in, ascending (the order rows are locked in):
    a server's game in the global scope, the server's and its running season's (read here, in the
    finishing transaction: a season's end waits for a game finishing at that moment, and that game
    then counts for it); an off-server game in its channel's board only (none, see :attr:`Venue.board`)."""
    if venue.off_server:
        board = venue.board
        return [] if board is None else [board]
    guild_id = int(venue.guild_id or 0)
    return sorted({GLOBAL_SCOPE, guild_id, *running_season_scopes(conn, guild_id, row_lock)})


__all__ = ["GLOBAL_SCOPE", "Venue", "rated_scopes", "running_season_scopes"]
