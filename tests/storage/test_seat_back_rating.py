"""Ratings of a player who took their seat back (issue 22): rated by their result, not as a forfeit.

The service keeps the seats a computer plays in the game's meta ``replaced`` (``idle`` lists those
taken for missed turns); taking the seat back removes it from both, and storage rates only the seats
still in ``replaced`` at the end as forfeits.
"""

from __future__ import annotations

import pytest

from bot.storage import GLOBAL_SCOPE, Seat, Storage, user_key
from bot.storage.ratings import RatingChange
from tests.storage.conftest import new_game, play_to_end


@pytest.fixture
def storage(any_storage: Storage) -> Storage:
    """Every test here runs on both backends (``backend`` is parametrized: sqlite, postgres)."""
    return any_storage


SEATS = [Seat(0, "Alice", user_id=11), Seat(1, "Bob", user_id=22), Seat(2, "Cleo", user_id=33)]
STILL_REPLACED = {"replaced": {"0": "normal"}, "idle": [0], "missed": {"0": 3}}
TAKEN_BACK = {"replaced": {}, "idle": [], "missed": {}}  # what reclaim_seat leaves


async def _alice_wins(storage: Storage, meta: dict[str, object], first_channel: int) -> list[RatingChange]:
    """Games played to the end with ``meta`` until Alice (seat 0) wins one; its rating changes."""
    for channel in range(first_channel, first_channel + 30):
        stored = await new_game(
            storage, channel=channel, guild=1, seats=SEATS, options={"score_limit": 40}, meta=meta
        )
        await play_to_end(storage, stored, seed=channel)
        finished = stored.finished
        assert finished is not None
        if finished.results[0].rank == 1:
            return [c for c in finished.rating_changes if c.scope == GLOBAL_SCOPE]
    raise AssertionError("Alice never won")


async def test_a_seat_taken_back_is_rated_by_its_result_and_one_still_replaced_as_a_forfeit(
    storage: Storage,
) -> None:
    back = {c.player: c for c in await _alice_wins(storage, TAKEN_BACK, 300)}
    assert back[user_key(11)].rank == 1 and back[user_key(11)].mu_after > back[user_key(11)].mu_before
    gone = {c.player: c for c in await _alice_wins(storage, STILL_REPLACED, 400)}
    assert gone[user_key(11)].rank == 3 and gone[user_key(11)].mu_after < gone[user_key(11)].mu_before
