"""Storage errors: what the service may catch, each with a clear message (never a hidden card)."""

from __future__ import annotations


class StorageError(Exception):
    """Something went wrong in the database layer."""


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

    def __init__(self, timeout_ms: int) -> None:
        self.timeout_ms = timeout_ms
        super().__init__(
            f"the database stayed busy for more than {timeout_ms} ms (another writer); try again"
        )


class DatabaseInUse(StorageError):
    """Another process has this database open for writing (the bot runs once per database file)."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(f"{path} is already open in another process (is another bot running?)")


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
