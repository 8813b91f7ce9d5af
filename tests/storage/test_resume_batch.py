"""The start writes its timers in one transaction, on both backends (issue 26, item 4): resuming games
that have no stored timer yet used to commit each timer on its own (10,000 games: seconds of commits).
The state it leaves is the one the one-by-one writes left: every timer stored, in memory and in the
database, the sweeper told; a game that ended without being closed finished; a lobby beside its game
closed; and when the write fails, the start goes on with the timers as they were stored."""

from __future__ import annotations

import random
from typing import Any

from bot.clock import ManualClock
from bot.service import DEFAULT_TURN_LIMIT, TableService, token_of
from bot.service.ledger import GameLedger
from bot.storage import Storage, StoredGame
from bot.storage.lobbies import STARTED, LobbySeat

from .conftest import Backend, new_game, two_seats

GAMES = 12


async def _fill(storage: Storage) -> list[StoredGame]:
    """GAMES games without a stored timer: most wait for their human, one has no turn limit (meta
    ``turn_limit`` 0: nothing to time), whatever the deal gives the others."""
    games = [await new_game(storage, channel=100 + i) for i in range(GAMES - 1)]
    games.append(await new_game(storage, channel=100 + GAMES, meta={"turn_limit": 0}))
    return games


async def _over_but_active(storage: Storage, channel: int) -> StoredGame:
    """A game whose last action ended it but that was never closed (a crash between the two, in old
    versions): its log is played to the end with plain appends."""
    stored = await new_game(storage, channel=channel, seats=two_seats(user=77))
    rng = random.Random(3)
    game = stored.state
    while not game.is_over:
        seat = rng.choice(game.seats_to_act())
        action = rng.choice(game.legal_actions(seat))
        game.apply(seat, action)
        stored.version = await storage.games.append_action(
            stored.id, stored.version, seat, action.to_dict(), game.to_dict()
        )
    return stored


def _expected_timer(stored: StoredGame, now: int) -> dict[str, Any]:
    return {
        "what": "turn",
        "token": token_of(stored.state),
        "due": now + DEFAULT_TURN_LIMIT * 1000,
        "half": now + DEFAULT_TURN_LIMIT * 500,
        "reminded": False,
        "fired": False,
    }


async def test_resume_stores_every_timer_in_one_transaction(backend: Backend) -> None:
    storage = await backend.open()
    try:
        games = await _fill(storage)
        await GameLedger(
            storage
        ).load_active()  # the engine fingerprints are recorded: not the resume's write
    finally:
        await storage.close()
    storage = await backend.open()
    clock = ManualClock()
    service = TableService(storage, ai_delay=3600.0, clock=clock)
    try:
        stats = storage.db.stats
        before = stats.transactions
        tables = await service.resume()
        assert stats.transactions - before == 1  # one commit, not one per game (GAMES - 1 before)
        assert sorted(t.id for t in tables) == sorted(g.id for g in games)
        now = clock.now_ms()
        timed = 0
        for table in tables:
            stored = await GameLedger(storage).get_game(table.id)
            assert stored.meta == table.stored.meta  # what memory holds is what was committed
            waits_for_human = any(table.ai_level(s) is None for s in table.state.seats_to_act())
            if table.turn_limit and waits_for_human:
                assert table.timer() == _expected_timer(stored, now)
                assert service.sweeper.due[("game", table.id)] == now + DEFAULT_TURN_LIMIT * 500
                timed += 1
            else:
                assert table.timer() is None and ("game", table.id) not in service.sweeper.due
        assert timed == GAMES - 1
    finally:
        await service.close()
        await storage.close()
    # A second start finds every timer stored already: it writes nothing.
    storage = await backend.open()
    service = TableService(storage, ai_delay=3600.0, clock=clock)
    try:
        before = storage.db.stats.transactions
        assert len(await service.resume()) == GAMES
        assert storage.db.stats.transactions == before
    finally:
        await service.close()
        await storage.close()


async def test_resume_finishes_ended_games_and_closes_lobbies_beside_games(backend: Backend) -> None:
    storage = await backend.open()
    try:
        lobby = await storage.lobbies.create(
            guild_id=1,
            channel_id=300,
            kind="skyjo",
            host_id=5,
            options={},
            seats=[LobbySeat("Host", user_id=5)],
        )
        beside = await new_game(storage, channel=300)  # dealt, then a crash before the lobby was closed
        ended = await _over_but_active(storage, channel=301)
        others = await _fill(storage)
    finally:
        await storage.close()
    storage = await backend.open()
    service = TableService(storage, ai_delay=3600.0, clock=ManualClock())
    try:
        tables = {t.id: t for t in await service.resume()}
        assert set(tables) == {beside.id, ended.id, *(g.id for g in others)}
        assert tables[ended.id].finished and ended.id not in service.tables
        assert tables[ended.id].stored.finished is not None
        assert (await GameLedger(storage).get_game(ended.id)).status == "finished"
        assert [r.seat for r in await storage.results.for_game(ended.id)] == [0, 1]
        closed = await storage.lobbies.get(lobby.id)
        assert (closed.status, closed.game_id) == (STARTED, beside.id)
        assert tables[beside.id].timer() is not None
    finally:
        await service.close()
        await storage.close()


def _refuse_meta_writes(backend: Backend) -> None:
    """Make the database refuse every change of a game's meta (a real failing write, no mock)."""
    if backend.kind == "sqlite":
        backend.execute(
            "CREATE TRIGGER refuse_meta BEFORE UPDATE OF meta ON games"
            " BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
        return
    backend.execute(
        "CREATE FUNCTION refuse_meta() RETURNS trigger LANGUAGE plpgsql AS"
        " 'BEGIN RAISE EXCEPTION ''refused''; END'"
    )
    backend.execute(
        "CREATE TRIGGER refuse_meta BEFORE UPDATE OF meta ON games"
        " FOR EACH ROW EXECUTE FUNCTION refuse_meta()"
    )


async def test_a_failed_timer_write_leaves_the_stored_timers_and_the_start_goes_on(backend: Backend) -> None:
    storage = await backend.open()
    try:
        games = await _fill(storage)
    finally:
        await storage.close()
    _refuse_meta_writes(backend)
    storage = await backend.open()
    service = TableService(storage, ai_delay=3600.0, clock=ManualClock())
    try:
        tables = await service.resume()
        assert sorted(t.id for t in tables) == sorted(g.id for g in games)
        for table in tables:
            assert table.stored.meta == (await GameLedger(storage).get_game(table.id)).meta
            assert table.timer() is None and not table.finished
        assert set(service.tables) == {g.id for g in games}
    finally:
        await service.close()
        await storage.close()


async def test_set_metas_writes_the_games_that_exist_and_names_the_others(any_storage: Storage) -> None:
    first = await new_game(any_storage, channel=1)
    second = await new_game(any_storage, channel=2)
    missing = await any_storage.games.set_metas(
        [(first.id, {"a": 1}), (second.id + 1000, {"b": 2}), (second.id, {"c": [3]})]
    )
    assert missing == {second.id + 1000}
    assert (await GameLedger(any_storage).get_game(first.id)).meta == {"a": 1}
    assert (await GameLedger(any_storage).get_game(second.id)).meta == {"c": [3]}
    assert await any_storage.games.set_metas([]) == set()
