"""How a game action's commit is made: once, and once more after a transient fault.

A commit that fails on a transient fault (:attr:`StorageError.transient`: the connection dropped, the
server away or restarting, a busy lock, an I/O error) is made once more, after a pause in which the
backend reconnects; the action's idempotency key (logged with it, migration 0006) lets the retry see
whether the first commit had landed after all (its COMMIT reached the server, the answer was lost):
it then writes nothing and the move is done (the unit of work: :func:`bot.storage.game_log._appender`).
When the commit fails for good, the service reads the game back, or, when it cannot, puts back the
state as last committed and marks the game ``needs_reload`` (:mod:`bot.service.ledger`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TypeVar

from bot.storage.backend import Connection, Database
from bot.storage.errors import StorageError

log = logging.getLogger("bot.storage.games")  # the repository's logger

T = TypeVar("T")

# A commit that met a transient fault (the connection dropped, the server away, a busy lock) is made
# once more: if the fault came within COMMIT_RETRY_WITHIN_S of the commit's start, after a pause of
# COMMIT_RETRY_PAUSE_S (the backend reconnects meanwhile), and the retry must be over within
# COMMIT_RETRY_TIMEOUT_S. A click is acknowledged before its commit (bot/ui/on_time.py), so its answer
# has the interaction token's 15 minutes; these keep the player's wait to a few seconds.
COMMIT_RETRY_WITHIN_S = 3.0
COMMIT_RETRY_PAUSE_S = 0.2
COMMIT_RETRY_TIMEOUT_S = 3.0
# The read-back after a commit failed for good: if the database does not answer within this, the game
# keeps its last committed state and waits for GameRepository.reload (stored.needs_reload).
RELOAD_WITHIN_S = 2.0
# A human's click (it carries an idempotency key) whose commit's outcome is unknown (a transient fault:
# the COMMIT may have landed and only its answer been lost) and whose read-back failed too is not
# refused at once: the read-back is tried again after each of SETTLE_PAUSES_S (then its last, again)
# while within SETTLE_WITHIN_S of the first failed read-back (each try still bounded by RELOAD_WITHIN_S,
# and by what is left of that time): long enough for a server restart, short enough that a player in a
# real outage is told "reconnecting" soon. The click was acknowledged (bot/ui/clicks.py), so its answer
# has the interaction token's 15 minutes; computers' and timers' moves keep one read-back.
SETTLE_WITHIN_S = 4.0
SETTLE_PAUSES_S = (0.25, 0.5, 1.0)


class RetryTimedOut(StorageError):
    """The retried commit did not finish in time: it may still land (the backend's thread runs it)."""

    transient = True

    def __init__(self, game_id: int) -> None:
        super().__init__(f"game {game_id}: the retried commit did not finish in time")


def tell(on_retry: Callable[[str], None] | None, outcome: str) -> None:
    if on_retry is not None:
        try:
            on_retry(outcome)
        except Exception:
            log.exception("storage.on_retry failed")


async def commit_once_more(
    db: Database,
    game_id: int,
    attempt: Callable[[bool], Callable[[Connection], tuple[T, bool]]],
    retry_within: float,
    on_retry: Callable[[str], None] | None,
) -> T:
    """Write ``attempt(False)``; after a transient fault met within ``retry_within`` s of the start, write
    ``attempt(True)`` once, after :data:`COMMIT_RETRY_PAUSE_S` and within :data:`COMMIT_RETRY_TIMEOUT_S`
    (see :meth:`bot.storage.games.GameRepository.commit_action`). ``attempt(retry)`` is the unit of work,
    which returns ``(value, already)``; ``on_retry`` hears the retry's outcome."""
    began = time.monotonic()
    try:
        value, _ = await db.write(attempt(False))
        return value
    except StorageError as error:
        if not error.transient or time.monotonic() - began > retry_within:
            raise
        first = error
    log.warning(
        "storage.commit_retry game_id=%d error=%s",
        game_id,
        type(first).__name__,
        extra={"event": "commit_retry", "game_id": game_id, "error": type(first).__name__},
    )
    await asyncio.sleep(COMMIT_RETRY_PAUSE_S)
    try:
        value, already = await asyncio.wait_for(db.write(attempt(True)), COMMIT_RETRY_TIMEOUT_S)
    except (StorageError, TimeoutError) as error:
        tell(on_retry, "failed")
        log.warning(
            "storage.commit_retry_failed game_id=%d error=%s",
            game_id,
            type(error).__name__,
            extra={"event": "commit_retry_failed", "game_id": game_id, "error": type(error).__name__},
        )
        if isinstance(error, TimeoutError):
            # The retry may still be running on the backend's thread: its outcome is unknown.
            raise RetryTimedOut(game_id) from first
        raise
    tell(on_retry, "already_applied" if already else "applied")
    log.info(
        "storage.commit_retried game_id=%d already=%s",
        game_id,
        already,
        extra={"event": "commit_retried", "game_id": game_id, "already": already},
    )
    return value
