"""Games: create, append, load, finish; optimistic concurrency; one game per channel; snapshot checks."""

from __future__ import annotations

import json
import logging
import random

import pytest

from bot.engine.errors import GameError
from bot.games.skyjo import engine as skyjo
from bot.service.ledger import GameLedger
from bot.storage import (
    ChannelBusy,
    GameNotActive,
    GameNotFound,
    GameNotOver,
    GameQuarantined,
    Seat,
    StaleVersion,
    Storage,
)
from bot.storage.games import canonical_json, snapshot_hash
from tests.storage.conftest import Backend, new_game, play, play_to_end, two_seats


@pytest.fixture
def storage(any_storage: Storage) -> Storage:
    """Every test here runs on both backends (``backend`` is parametrized: sqlite, postgres)."""
    return any_storage


async def test_create_append_and_load_after_restart(backend: Backend) -> None:
    async with await backend.open() as storage:
        stored = await new_game(storage, host_id=5, message_id=77, meta={"lobby": "x"})
        assert stored.version == 0
        await play(storage, stored, 30, seed=3)
        assert stored.version == 30
        expected = stored.state.to_dict()
        await storage.games.set_message_id(stored.id, 78)
        log = await storage.games.actions(stored.id)
        assert [a.seq for a in log] == list(range(1, 31))
    async with await backend.open() as storage:
        loaded = await GameLedger(storage).load_active()
        assert [g.id for g in loaded.games] == [stored.id]
        game = loaded.games[0]
        assert game.version == 30
        assert game.state.to_dict() == expected
        assert game.seats == tuple(two_seats())
        assert (game.guild_id, game.channel_id, game.kind, game.host_id, game.message_id) == (
            1,
            100,
            "skyjo",
            5,
            78,
        )
        assert game.meta == {"lobby": "x"}
        assert loaded.rebuilt == [] and loaded.quarantined == []
        # play goes on from the loaded state
        await play(storage, game, 5, seed=4)
        assert game.version == 35


async def test_append_returns_the_new_version_and_logs_the_action(storage: Storage, backend: Backend) -> None:
    stored = await new_game(storage)
    game = stored.state
    seat = game.seats_to_act()[0]
    action = game.legal_actions(seat)[0]
    game.apply(seat, action)
    version = await storage.games.append_action(stored.id, 0, seat, action.to_dict(), game.to_dict())
    assert version == 1
    assert backend.row("SELECT seq, seat, action FROM game_actions WHERE game_id = ?", stored.id) == (
        1,
        seat,
        canonical_json(action.to_dict()),
    )
    assert backend.row("SELECT version, snapshot FROM games WHERE id = ?", stored.id) == (
        1,
        canonical_json(game.to_dict()),
    )


async def test_stale_version_writes_nothing(storage: Storage, backend: Backend) -> None:
    stored = await new_game(storage)
    await play(storage, stored, 4)
    before = backend.row(
        "SELECT version, snapshot, snapshot_hash, updated_at FROM games WHERE id = ?", stored.id
    )
    copy = skyjo.State.from_dict(stored.state.to_dict())
    seat = copy.seats_to_act()[0]
    action = copy.legal_actions(seat)[0]
    copy.apply(seat, action)
    with pytest.raises(StaleVersion) as raised:
        await storage.games.append_action(stored.id, 3, seat, action.to_dict(), copy.to_dict())
    assert (raised.value.expected, raised.value.actual) == (3, 4)
    assert "reload" in str(raised.value)
    assert (
        backend.row("SELECT version, snapshot, snapshot_hash, updated_at FROM games WHERE id = ?", stored.id)
        == before
    )
    assert backend.row("SELECT count(*) FROM game_actions WHERE game_id = ?", stored.id) == (4,)
    # the right version goes through
    assert await storage.games.append_action(stored.id, 4, seat, action.to_dict(), copy.to_dict()) == 5


async def test_two_writers_race_and_the_loser_is_reloaded(storage: Storage) -> None:
    first = await new_game(storage)
    second = await GameLedger(storage).get_game(first.id)
    seat = first.state.seats_to_act()[0]
    await GameLedger(storage).apply_action(first, seat, first.state.legal_actions(seat)[0])
    seat2 = second.state.seats_to_act()[-1]
    with pytest.raises(StaleVersion):
        await GameLedger(storage).apply_action(second, seat2, second.state.legal_actions(seat2)[-1])
    # the loser's in-memory game was reloaded: it never runs ahead of the log
    assert second.version == 1
    assert second.state.to_dict() == first.state.to_dict()


async def test_illegal_action_writes_nothing(storage: Storage) -> None:
    stored = await new_game(storage)
    with pytest.raises(GameError):
        await GameLedger(storage).apply_action(stored, 0, skyjo.Draw())  # still the reveal phase
    assert stored.version == 0
    assert await storage.games.actions(stored.id) == []


async def test_missing_and_closed_games(storage: Storage) -> None:
    with pytest.raises(GameNotFound):
        await storage.games.append_action(999, 0, 0, {"type": "draw"}, {})
    with pytest.raises(GameNotFound):
        await GameLedger(storage).get_game(999)
    stored = await new_game(storage)
    await storage.games.cancel_game(stored.id, "host left")
    with pytest.raises(GameNotActive):
        await storage.games.append_action(stored.id, 0, 0, {"type": "draw"}, {})
    with pytest.raises(GameNotActive):
        await storage.games.cancel_game(stored.id)
    assert (await GameLedger(storage).get_game(stored.id)).status == "cancelled"


async def test_one_active_game_per_channel(storage: Storage, backend: Backend) -> None:
    stored = await new_game(storage, channel=5)
    with pytest.raises(ChannelBusy) as raised:
        await new_game(storage, channel=5)
    assert raised.value.game_id == stored.id
    other = await new_game(storage, channel=6)  # another channel is free
    assert other.id != stored.id
    assert await storage.games.active_in_channel(5) == stored.id
    # the schema itself refuses a second active game, whatever the code does
    with pytest.raises(backend.unique_violation):
        backend.execute(
            "INSERT INTO games (channel_id, kind, options, seed, snapshot, snapshot_hash, created_at,"
            " updated_at) VALUES (5, 'skyjo', '{}', 1, '{}', '', 0, 0)"
        )
    await storage.games.cancel_game(stored.id)
    again = await new_game(storage, channel=5)  # free once the game ended
    assert again.status == "active"
    assert await storage.games.active_in_channel(5) == again.id


async def test_seats_are_validated(storage: Storage) -> None:
    with pytest.raises(ValueError):
        await new_game(storage, seats=[Seat(0, "a", user_id=1), Seat(1, "b", user_id=1)])
    with pytest.raises(ValueError):
        await new_game(storage, seats=[Seat(1, "a", user_id=1), Seat(0, "b", user_id=2)])


async def test_the_last_action_finishes_the_game_with_its_results(storage: Storage, backend: Backend) -> None:
    stored = await new_game(storage, options={"score_limit": 40})
    await play_to_end(storage, stored, seed=8)
    finished = stored.finished
    assert finished is not None and stored.status == "finished"
    results = stored.state.results()
    assert [r.rank for r in finished.results] == results["ranks"]
    assert [r.total for r in finished.results] == results["totals"]
    for seat, r in enumerate(finished.results):
        assert list(r.round_scores) == [played["scores"][seat] for played in results["rounds"]]
        assert r.stats == {"columns_cleared": sum(p["columns_cleared"][seat] for p in results["rounds"])}
    assert await storage.results.for_game(stored.id) == finished.results
    status, finished_at, version = backend.row(
        "SELECT status, finished_at, version FROM games WHERE id = ?", stored.id
    )
    assert status == "finished" and finished_at is not None and version == stored.version
    with pytest.raises(GameNotActive):
        await GameLedger(storage).finish_game(stored)
    assert (await GameLedger(storage).load_active()).games == []
    assert await storage.games.active_in_channel(100) is None


async def test_finish_game_closes_an_ended_game_left_active(storage: Storage) -> None:
    stored = await new_game(storage, options={"score_limit": 30})
    with pytest.raises(GameNotOver):
        await GameLedger(storage).finish_game(stored)
    game = stored.state
    rng = random.Random(2)
    version = 0
    while not game.is_over:  # plain appends: the game ends but stays active
        seat = rng.choice(game.seats_to_act())
        action = rng.choice(game.legal_actions(seat))
        game.apply(seat, action)
        version = await storage.games.append_action(
            stored.id, version, seat, action.to_dict(), game.to_dict()
        )
    (loaded,) = (await GameLedger(storage).load_active()).games
    assert loaded.state.is_over and loaded.status == "active"
    loaded.version = version - 1
    with pytest.raises(StaleVersion):
        await GameLedger(storage).finish_game(loaded)
    loaded.version = version
    finished = await GameLedger(storage).finish_game(loaded)
    assert [r.rank for r in finished.results] == game.results()["ranks"]
    assert len(finished.rating_changes) == 4  # two seats, guild and global
    assert (await GameLedger(storage).get_game(stored.id)).status == "finished"


# ------------------------------------------------------------------------------------------ snapshots


async def _tamper_consistently(backend: Backend, game_id: int) -> None:
    """A well-formed snapshot with a correct hash that is NOT what the log gives (a swapped card)."""
    (text,) = backend.row("SELECT snapshot FROM games WHERE id = ?", game_id)
    data = json.loads(text)
    data["draw_pile"][0], data["draw_pile"][-1] = data["draw_pile"][-1], data["draw_pile"][0] + 100
    bad = canonical_json(data)
    backend.execute(
        "UPDATE games SET snapshot = ?, snapshot_hash = ? WHERE id = ?",
        bad,
        snapshot_hash(bad),
        game_id,
    )


async def test_replay_mismatch_is_detected_logged_and_rebuilt(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    async with await backend.open() as storage:
        stored = await new_game(storage)
        await play(storage, stored, 20)
        truth = stored.state.to_dict()
        untouched = await new_game(storage, channel=101)
    await _tamper_consistently(backend, stored.id)
    caplog.set_level(logging.WARNING, logger="bot.storage")
    async with await backend.open() as storage:
        loaded = await GameLedger(storage).load_active(verify="full")
        assert loaded.rebuilt == [stored.id]
        assert {g.id for g in loaded.games} == {stored.id, untouched.id}
        game = next(g for g in loaded.games if g.id == stored.id)
        assert game.state.to_dict() == truth and game.verified
    records = [r for r in caplog.records if "storage.snapshot_mismatch" in r.getMessage()]
    assert len(records) == 1
    message = records[0].getMessage()
    assert f"game_id={stored.id}" in message and "problem=replay_mismatch" in message
    assert "fields=draw_pile" in message
    assert "[" not in message and str(truth["draw_pile"][0] + 100) not in message.split("fields=")[1]
    assert records[0].__dict__["fields"] == ["draw_pile"]
    # the rebuilt snapshot was written back
    (text,) = backend.row("SELECT snapshot FROM games WHERE id = ?", stored.id)
    assert json.loads(text) == truth


async def test_cheap_checks_catch_a_damaged_snapshot_at_load(backend: Backend) -> None:
    async with await backend.open() as storage:
        damaged = await new_game(storage, channel=1)
        await play(storage, damaged, 12)
        behind = await new_game(storage, channel=2)
        await play(storage, behind, 12)
        unreadable = await new_game(storage, channel=3)
        await play(storage, unreadable, 12)
        truths = {g.id: g.state.to_dict() for g in (damaged, behind, unreadable)}
    (text,) = backend.row("SELECT snapshot FROM games WHERE id = ?", damaged.id)
    backend.execute(
        "UPDATE games SET snapshot = ? WHERE id = ?",
        text.replace('"round":1', '"round":2'),
        damaged.id,
    )
    backend.execute("DELETE FROM game_actions WHERE game_id = ? AND seq = 12", behind.id)  # log says 11
    backend.execute("UPDATE games SET snapshot = '{not json', snapshot_hash = ? WHERE id = ?",
             snapshot_hash("{not json"), unreadable.id)  # fmt: skip
    async with await backend.open() as storage:
        loaded = await GameLedger(storage).load_active()  # the default, cheap check
        assert sorted(loaded.rebuilt) == sorted(truths)
        assert loaded.quarantined == []
        by_id = {g.id: g for g in loaded.games}
        assert by_id[damaged.id].state.to_dict() == truths[damaged.id]
        assert by_id[unreadable.id].state.to_dict() == truths[unreadable.id]
        assert by_id[behind.id].version == 11
        assert by_id[behind.id].state.to_dict() != truths[behind.id]  # the log (11 actions) is the truth
        await play(storage, by_id[behind.id], 3)  # and play goes on from it
        assert by_id[behind.id].version == 14
    async with await backend.open() as storage:  # repaired for good
        loaded = await GameLedger(storage).load_active(verify="full")
        assert loaded.rebuilt == [] and len(loaded.games) == 3


async def test_an_engine_change_triggers_full_verification(backend: Backend) -> None:
    async with await backend.open() as storage:
        stored = await new_game(storage)
        await play(storage, stored, 10)
        assert (await GameLedger(storage).load_active()).rebuilt == []  # records the engine fingerprint
    await _tamper_consistently(backend, stored.id)
    async with await backend.open() as storage:
        assert (
            await GameLedger(storage).load_active()
        ).rebuilt == []  # same engine: the cheap check trusts it
        assert (await GameLedger(storage).verify(stored.id)).verified  # ...but verifying on demand replays
    await _tamper_consistently(backend, stored.id)
    backend.execute("UPDATE storage_state SET value = 'older-engine' WHERE key = 'engine:skyjo'")
    async with await backend.open() as storage:
        loaded = await GameLedger(storage).load_active()
        assert loaded.rebuilt == [stored.id]
    (value,) = backend.row("SELECT value FROM storage_state WHERE key = 'engine:skyjo'")
    assert value != "older-engine"


async def test_corrupt_or_unknown_games_are_quarantined(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    async with await backend.open() as storage:
        good = await new_game(storage, channel=1)
        await play(storage, good, 8)
        unknown = await new_game(storage, channel=2)
        bad_options = await new_game(storage, channel=3)
        bad_log = await new_game(storage, channel=4)
        await play(storage, bad_log, 8)
        no_seats = await new_game(storage, channel=5)
    backend.execute("UPDATE games SET kind = 'poker' WHERE id = ?", unknown.id)
    backend.execute("UPDATE games SET options = '{\"columns\": ' WHERE id = ?", bad_options.id)
    backend.execute(
        'UPDATE game_actions SET action = \'{"type": "fly"}\' WHERE game_id = ? AND seq = 3',
        bad_log.id,
    )
    backend.execute("UPDATE games SET snapshot_hash = 'x' WHERE id = ?", bad_log.id)  # forces the replay
    backend.execute("DELETE FROM game_seats WHERE game_id = ? AND seat = 1", no_seats.id)
    backend.execute("UPDATE games SET snapshot_hash = 'x' WHERE id = ?", no_seats.id)
    caplog.set_level(logging.ERROR, logger="bot.storage")
    async with await backend.open() as storage:
        loaded = await GameLedger(storage).load_active()
        assert [g.id for g in loaded.games] == [good.id]
        assert loaded.games[0].version == 8
        bad = {unknown.id, bad_options.id, bad_log.id, no_seats.id}
        assert set(loaded.quarantined) == bad
        with pytest.raises(GameQuarantined):
            await GameLedger(storage).get_game(unknown.id)
        # their channels are free again, and a second start does not see them
        await new_game(storage, channel=2)
        assert len((await GameLedger(storage).load_active()).games) == 2
    rows = backend.execute("SELECT id, status, note FROM games WHERE status = 'quarantined'")
    assert {r[0] for r in rows} == bad
    notes = {r[0]: r[2] for r in rows}
    assert notes[unknown.id].startswith("UnknownGameKind")
    assert notes[bad_log.id].startswith("log_replay_failed:MalformedAction")
    assert notes[bad_options.id] == "JSONDecodeError"
    logged = [r.getMessage() for r in caplog.records if "storage.quarantined" in r.getMessage()]
    assert len(logged) == 4
