"""Tournaments through ``storage.tournaments`` on both backends: every state survives a reopen, every
change of the tournament's row checks the version read, a table's end is recorded once (issue 41)."""

from __future__ import annotations

import pytest

from bot.storage import Storage
from bot.storage.tournaments import BYE, ENDED, PLAYING, RUNNING, SEATED, SIGNUP, TournamentChanged
from tests.storage.conftest import Backend, new_game


async def _new(storage: Storage, **changes: object):  # type: ignore[no-untyped-def]
    options: dict[str, object] = dict(
        guild_id=1, channel_id=500, organiser_id=9, kind="skyjo", format="swiss", seats=2, rounds=3,
        turn_limit=60, starts_at=None, seed=1234567890123, rated=True, computers=False,
    )  # fmt: skip
    options.update(changes)
    return await storage.tournaments.create(**options)  # type: ignore[arg-type]


async def test_a_tournament_survives_a_reopen_at_every_step(backend: Backend) -> None:
    storage = await backend.open()
    try:
        made = await _new(storage, starts_at=1_800_000_000_000, computers=True, rated=False)
        assert (made.status, made.round, made.version, made.rated, made.computers) == (
            SIGNUP,
            0,
            0,
            False,
            True,
        )
        for user in (30, 10, 20):
            made = await storage.tournaments.join(made, user, f"P{user}")
        made = await storage.tournaments.leave(made, 10)
        made = await storage.tournaments.seat_round(made, 1, [(30, 20)], [])
        game = await new_game(storage, channel=777)
        table = (await storage.tournaments.tables(made.id))[0]
        await storage.tournaments.table_playing(table, 777, game.id)
    finally:
        await storage.close()
    storage = await backend.open()  # a restart
    try:
        again = await storage.tournaments.get(made.id)
        assert again == made
        assert [t.id for t in await storage.tournaments.open()] == [made.id]
        assert [(p.user_id, p.name, p.dropped) for p in await storage.tournaments.players(made.id)] == [
            (30, "P30", False),
            (20, "P20", False),
        ]
        (table,) = await storage.tournaments.tables(made.id)
        assert (table.players, table.channel_id, table.game_id, table.status) == (
            (30, 20),
            777,
            game.id,
            PLAYING,
        )
        assert await storage.tournaments.table_of_game(game.id) == table
        assert await storage.tournaments.table_ended(table, [(30, 2), (20, 1)])
        assert not await storage.tournaments.table_ended(table, [(30, 1), (20, 2)])  # told twice: the first
        again = await storage.tournaments.drop(again, 30)
        again = await storage.tournaments.update(again, status="finished", winner_id=20)
    finally:
        await storage.close()
    storage = await backend.open()
    try:
        (table,) = await storage.tournaments.tables(made.id)
        assert (table.result, table.status) == (((30, 2), (20, 1)), ENDED)
        assert [(p.user_id, p.dropped_round) for p in await storage.tournaments.players(made.id)] == [
            (30, 1),
            (20, None),
        ]
        final = await storage.tournaments.get(made.id)
        assert (final.status, final.winner_id) == ("finished", 20)
        assert await storage.tournaments.open() == []
    finally:
        await storage.close()


async def test_a_round_with_a_bye_and_a_stale_write(any_storage: Storage) -> None:
    made = await _new(any_storage)
    for user in (1, 2, 3):
        made = await any_storage.tournaments.join(made, user, str(user))
    stale = made
    made = await any_storage.tournaments.seat_round(made, 1, [(1, 2)], [3])
    assert (made.round, made.status) == (1, RUNNING)
    assert [(t.table_no, t.players, t.status) for t in await any_storage.tournaments.tables(made.id)] == [
        (1, (1, 2), SEATED),
        (2, (3,), BYE),
    ]
    with pytest.raises(TournamentChanged):
        await any_storage.tournaments.join(stale, 4, "4")
    with pytest.raises(TournamentChanged):
        await any_storage.tournaments.update(stale, status="cancelled")
    assert [p.user_id for p in await any_storage.tournaments.players(made.id)] == [1, 2, 3]
    assert (await any_storage.tournaments.get(made.id)).status == RUNNING
    with pytest.raises(ValueError):
        await any_storage.tournaments.update(made, seats=3)


async def test_a_lone_players_table_each_games_ending_and_a_channels_latest(any_storage: Storage) -> None:
    """Issue 47: with ``computers: on`` a table of one player is seated (not a bye); how each table's
    game ended is read in one hop (``game_endings``); ``latest_in`` finds a channel's tournament over."""
    made = await _new(any_storage, computers=True)
    for user in (1, 2, 3):
        made = await any_storage.tournaments.join(made, user, str(user))
    made = await any_storage.tournaments.seat_round(made, 1, [(1, 2), (3,)], [])
    rows = await any_storage.tournaments.tables(made.id)
    assert [(t.players, t.status) for t in rows] == [((1, 2), SEATED), ((3,), SEATED)]
    finished, ended = await new_game(any_storage, channel=801), await new_game(any_storage, channel=802)
    await any_storage.tournaments.table_playing(rows[0], 801, finished.id)
    await any_storage.tournaments.table_playing(rows[1], 802, ended.id)
    await any_storage.games.cancel_game(ended.id, note="ended by 9")
    endings = await any_storage.tournaments.game_endings(made.id)
    assert endings == {finished.id: ("active", None), ended.id: ("cancelled", "ended by 9")}
    made = await any_storage.tournaments.update(made, status="finished")
    assert await any_storage.tournaments.open() == []
    latest = await any_storage.tournaments.latest_in(500)
    assert latest is not None and latest.id == made.id and latest.status == "finished"
    assert await any_storage.tournaments.latest_in(501) is None
