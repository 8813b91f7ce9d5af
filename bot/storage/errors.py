"""Storage errors: what the service may catch, each with a clear message (never a hidden card)."""

from __future__ import annotations


class StorageError(Exception):
    """Something went wrong in the database layer.

    ``transient``: the fault was the connection's or the moment's (a dropped connection, a server away
    or restarting, a busy lock, an I/O error), not the write's: the same write may succeed if it is made
    again once the database answers. A rule refusal, a stale version or a full disk is not transient.
    """

    transient: bool = False


class GameNotFound(StorageError):
    """No stored game has that id."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        super().__init__(f"game {game_id} does not exist")


class GameNotActive(StorageError):
    """The game exists but is finished, cancelled or quarantined: nothing more can be written to it."""

    def __init__(self, game_id: int, status: str) -> None:
        self.game_id = game_id
        self.status = status
        super().__init__(f"game {game_id} is {status}, not active")


class ConcurrencyError(StorageError):
    """A write was based on a state that is no longer the latest one."""


class StaleVersion(ConcurrencyError):
    """``append_action`` (or ``finish_game``) expected version ``expected`` but the game is at ``actual``.

    Nothing was written: the caller should reload the game and retry from the new state.
    """

    def __init__(self, game_id: int, expected: int, actual: int) -> None:
        self.game_id = game_id
        self.expected = expected
        self.actual = actual
        super().__init__(f"game {game_id} is at version {actual}, not {expected}: reload it and retry")


class ChannelBusy(ConcurrencyError):
    """The channel already has an active game (one active game per channel, enforced by the schema)."""

    def __init__(self, channel_id: int, game_id: int | None = None) -> None:
        self.channel_id = channel_id
        self.game_id = game_id
        super().__init__(f"channel {channel_id} already has an active game ({game_id})")


class DatabaseBusy(StorageError):
    """Another connection held the write lock for longer than the busy timeout (SQLITE_BUSY)."""

    transient = True

    def __init__(self, timeout_ms: int) -> None:
        self.timeout_ms = timeout_ms
        super().__init__(
            f"the database stayed busy for more than {timeout_ms} ms (another writer); try again"
        )


class DatabaseInUse(StorageError):
    """Another process has this database open for writing (the bot runs once per database file)."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(
            f"{path}: already open in another process (is another bot running?); stop it first, "
            "or set DATABASE_PATH to another file"
        )


class SchemaTooNew(StorageError):
    """The database was migrated by a newer version of the bot than this one."""

    def __init__(self, found: int, known: int) -> None:
        self.found = found
        self.known = known
        super().__init__(f"database schema version {found} is newer than this code knows ({known})")


class GameNotOver(StorageError):
    """``finish_game`` was called on a game whose engine state is not over (use ``cancel_game``)."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        super().__init__(f"game {game_id} is not over; cancel it instead")


class GameQuarantined(StorageError):
    """The game's stored data cannot be turned back into a game; it was set aside (status 'quarantined')."""

    def __init__(self, game_id: int, reason: str) -> None:
        self.game_id = game_id
        self.reason = reason
        super().__init__(f"game {game_id} is quarantined: {reason}")


class StorageUnusable(StorageError):
    """The database file cannot be used at all (read-only, disk full, a path that cannot be created,
    not a database, an I/O error): the bot stops at start with this message, which names the path,
    the problem and what to do; during play the service refuses the move (nothing is stored)."""

    def __init__(self, path: str, problem: str, remedy: str) -> None:
        self.path = path
        self.problem = problem
        self.remedy = remedy
        super().__init__(f"{path}: {problem}; {remedy}")


class DatabaseReadOnly(StorageUnusable):
    """SQLite or the system refused to write (read-only file, folder or file system)."""

    def __init__(self, path: str, detail: str = "") -> None:
        super().__init__(
            path,
            "cannot write there (read-only file, folder or file system" + (f": {detail})" if detail else ")"),
            "give the bot's user write access to the file and its folder, or set DATABASE_PATH to a "
            "writable place",
        )


class DiskFull(StorageUnusable):
    """SQLITE_FULL or ENOSPC/EDQUOT/EFBIG: no room to grow the database or its journal."""

    def __init__(self, path: str) -> None:
        super().__init__(
            path,
            "the disk (or the user's quota) is full",
            "free some space on that disk",
        )


class DatabaseCannotOpen(StorageUnusable):
    """SQLITE_CANTOPEN or an OS error making its folder: the path names no usable file."""

    def __init__(self, path: str, detail: str = "") -> None:
        super().__init__(
            path,
            "cannot open or create the database file" + (f" ({detail})" if detail else ""),
            "set DATABASE_PATH to a file in a folder the bot's user can create or write",
        )


class DatabaseCorrupt(StorageUnusable):
    """SQLITE_NOTADB / SQLITE_CORRUPT: the file is not a SQLite database, or a damaged one."""

    def __init__(self, path: str, detail: str = "") -> None:
        super().__init__(
            path,
            "not a Skybo database, or a damaged one" + (f" ({detail})" if detail else ""),
            "restore it from a backup, or set DATABASE_PATH to a new file (keep this one for inspection)",
        )


class DiskIOError(StorageUnusable):
    """SQLITE_IOERR or another OS error: the disk or file system failed under SQLite."""

    transient = True

    def __init__(self, path: str, detail: str = "") -> None:
        super().__init__(
            path,
            "disk I/O error" + (f" ({detail})" if detail else ""),
            "check the disk and the file system (the system log says more)",
        )


class ConnectionLost(StorageUnusable):
    """The connection to the database server dropped (the server restarted, an administrator ended the
    session, the network broke) or cannot be made again just now (the server is away or refuses new
    connections): the write or read may succeed once the server answers again."""

    transient = True

    def __init__(self, where: str, problem: str, remedy: str = "check that PostgreSQL is up") -> None:
        super().__init__(where, problem, remedy)


class NeedsReload(StorageError):
    """A stored game whose last commit failed and whose reload failed too: it holds its last committed
    state, which the log may have passed (the commit may have landed), so nothing may be applied to it
    until :meth:`bot.storage.games.GameRepository.reload` has read it again."""

    transient = True

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        super().__init__(f"game {game_id} must be reloaded from the database before its next action")


class ShardsTaken(StorageError):
    """Another live process holds some of the shards this one was told to run (or runs the fleet with
    another shard count): two processes must never drive the same game."""

    def __init__(
        self, where: str, taken: tuple[int, ...], count: int, other_counts: tuple[int, ...] = ()
    ) -> None:
        self.taken = taken
        self.count = count
        self.other_counts = other_counts
        if other_counts:
            problem = (
                f"another process runs the fleet with SHARD_COUNT={','.join(map(str, other_counts))}, "
                f"this one with {count}: every process must use the same count"
            )
        else:
            ids = ", ".join(map(str, taken))
            problem = (
                f"shard{'' if len(taken) == 1 else 's'} {ids} of {count} already run in another live process"
            )
        super().__init__(f"{where}: {problem}; stop it first or give this process other SHARD_IDS")


class ShardsLost(StorageError):
    """The hold on this process's shards was lost for good (another process took them, or they could
    not be taken back in time after their connection dropped): the process must stop."""
