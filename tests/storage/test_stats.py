"""The /stats card's reads: board rows, board sizes, trend history and final totals, per scope."""

from __future__ import annotations

import pytest

from bot.storage import GLOBAL_SCOPE, Seat, Storage, ai_key, user_key
from bot.ui.boards import CARD_GAMES, LOWER_WINS
from tests.storage.conftest import new_game, play_to_end


@pytest.fixture
def storage(any_storage: Storage) -> Storage:
    """Every test here runs on both backends (``backend`` is parametrized: sqlite, postgres)."""
    return any_storage


async def _finish(storage: Storage, channel: int, *, guild: int | None = 1, rated: bool = True) -> list[int]:
    """A finished Alice (user 11) vs Bob (22) vs computer game; returns the seats' final totals."""
    seats = [Seat(0, "Alice", user_id=11), Seat(1, "Bob", user_id=22), Seat(2, "C", ai_level="easy")]
    stored = await new_game(
        storage, channel=channel, guild=guild, seats=seats, options={"score_limit": 40}, rated=rated
    )
    await play_to_end(storage, stored, seed=channel)
    assert stored.finished is not None
    return [r.total for r in stored.finished.results if r.total is not None]


async def test_overview_per_scope(storage: Storage) -> None:
    repo = storage.stats
    in_guild = [await _finish(storage, channel) for channel in (100, 101, 102)]
    outside = await _finish(storage, 103, guild=None)
    unrated = await _finish(storage, 104, rated=False)
    assert len(unrated) == 3

    skyjo, skipbo = await repo.overview(user_key(11), 1, kinds=CARD_GAMES, lower_wins=LOWER_WINS)
    assert [o.kind for o in (skyjo, skipbo)] == list(CARD_GAMES)
    assert skipbo.stats is None and not skipbo.played and skipbo.history == [] and skipbo.best_total is None
    assert skyjo.played and skyjo.scope == 1
    assert skyjo.stats is not None and skyjo.stats.games == 3
    assert skyjo.players == 3  # Alice, Bob, the easy computer
    assert len(skyjo.history) == 3
    assert [h.created_at for h in skyjo.history] == sorted(
        (h.created_at for h in skyjo.history), reverse=True
    )
    assert skyjo.history[0].mu_after == pytest.approx(skyjo.stats.mu)
    # The trend and the card show one figure: the shown rating, chained from game to game.
    assert skyjo.history[0].rating_after == pytest.approx(skyjo.stats.conservative)
    assert [h.rating_before for h in skyjo.history[:-1]] == pytest.approx(
        [h.rating_after for h in skyjo.history[1:]]
    )
    assert skyjo.history[-1].rating_before == pytest.approx(0.0, abs=1e-9)  # a newcomer starts at 0
    alice = [totals[0] for totals in in_guild]
    assert skyjo.best_total == min(alice)  # lower is better in Skyjo; the unrated game is left out
    assert skyjo.mean_total == pytest.approx(sum(alice) / 3)

    # The game outside a server (a group DM) is on its channel's board only, not on the global one.
    (world,) = await repo.overview(user_key(11), None, kinds=("skyjo",), lower_wins=LOWER_WINS)
    assert world.scope == GLOBAL_SCOPE and world.stats is not None and world.stats.games == 3
    assert world.best_total == min(alice)
    assert len(world.history) == 3
    (friends,) = await repo.overview(user_key(11), kinds=("skyjo",), lower_wins=LOWER_WINS, scope=103)
    assert friends.scope == 103 and friends.stats is not None and friends.stats.games == 1
    assert friends.best_total == outside[0] and len(friends.history) == 1

    short = await repo.overview(user_key(22), 1, kinds=("skyjo",), lower_wins=LOWER_WINS, history=2)
    assert len(short[0].history) == 2 and short[0].best_total == min(t[1] for t in in_guild)

    (computer,) = await repo.overview(ai_key("easy"), 1, kinds=("skyjo",), lower_wins=LOWER_WINS)
    assert computer.stats is not None and computer.stats.games == 3
    assert computer.best_total == min(t[2] for t in in_guild)


async def test_overview_of_nobody(storage: Storage) -> None:
    repo = storage.stats
    await _finish(storage, 100)
    for player in (user_key(999), "user:not-a-number", "someone", ai_key("hard")):
        cards = await repo.overview(player, 1, kinds=CARD_GAMES, lower_wins=LOWER_WINS)
        assert [c.played for c in cards] == [False, False]
        assert all(c.history == [] and c.best_total is None for c in cards)
    cards = await repo.overview(
        user_key(999), 5, kinds=CARD_GAMES, lower_wins=LOWER_WINS
    )  # a guild without any board
    assert [c.players for c in cards] == [0, 0]


async def test_a_person_ranks_among_people_on_the_global_board(storage: Storage) -> None:
    """As the global board shows by default (computers hidden); a server's board shows them."""
    for channel in (100, 101, 102, 103):
        await _finish(storage, channel)
    world = await storage.ratings.leaderboard("skyjo", None)
    everyone = [r.player for r in world.rows]
    people = [p for p in everyone if not p.startswith("ai:")]
    assert everyone.index(ai_key("easy")) < 2  # ahead of a person: the two ranks differ for them
    for player in (user_key(11), user_key(22)):
        (card,) = await storage.stats.overview(player, None, kinds=("skyjo",), lower_wins=LOWER_WINS)
        assert card.players == 2 and card.stats is not None
        assert card.stats.rank == 1 + people.index(player)  # no ties: four games of random play
        (here,) = await storage.stats.overview(player, 1, kinds=("skyjo",), lower_wins=LOWER_WINS)
        assert here.players == 3 and here.stats is not None
        assert here.stats.rank == 1 + everyone.index(player)
    (computer,) = await storage.stats.overview(ai_key("easy"), None, kinds=("skyjo",), lower_wins=LOWER_WINS)
    assert computer.players == 3 and computer.stats is not None
    assert computer.stats.rank == 1 + everyone.index(ai_key("easy"))
