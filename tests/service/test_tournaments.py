"""Tournaments through the service alone (bot/service/tournaments.py, issue 41): sign-ups and their
refusals, rounds dealt as ordinary tables, a table's end recorded and the next round seated, a restart
in the middle of a round, drop, pause and cancel. The tables are played to their end by computer
players: every human leaves their seat (a computer takes it, as in any game) and the computers play."""

from __future__ import annotations

import asyncio

import pytest

from bot.clock import ManualClock
from bot.service import Refused, SeatTaken, TableService, lobbies
from bot.service.tournaments import still_in
from bot.storage import StorageError
from bot.storage.tournaments import BYE, CANCELLED, ENDED, FINISHED, PAUSED, PLAYING, RUNNING, SIGNUP
from bot.tournament import pairing
from tests.service.conftest import GUILD, Services, until

HALL = 55
ORGANISER = 900


async def _new(service: TableService, **options: object) -> int:
    chosen: dict[str, object] = dict(
        guild_id=GUILD, channel_id=HALL, organiser_id=ORGANISER, kind="skyjo", form="swiss", seats=2, rounds=2
    )
    chosen.update(options)
    return (await service.tournament_new(**chosen)).id  # type: ignore[arg-type]


async def _join(service: TableService, tournament_id: int, *users: int) -> None:
    for user in users:
        await service.tournament_join(tournament_id, user, f"P{user}")


async def _play_round(service: TableService, tournament_id: int, clock: ManualClock) -> None:
    """Every human of the current round's tables hands their seat to a computer; wait for the round's end."""
    view = await service.tournament_view(tournament_id)
    number = view.tournament.round
    for row in view.round_tables(number):
        if row.status == PLAYING:
            for user in row.players:
                await service.leave(row.game_id, user)  # type: ignore[arg-type]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while True:
        view = await service.tournament_view(tournament_id)
        if view.tournament.round != number or view.tournament.status != RUNNING:
            return
        if all(t.status in (ENDED, BYE) for t in view.round_tables(number)):
            await asyncio.sleep(0.01)
            continue
        if loop.time() > deadline:
            raise AssertionError(f"round {number} still playing: {view.round_tables(number)}")
        clock.advance(60)  # the pause between a game's rounds
        await asyncio.sleep(0.01)


async def test_a_swiss_tournament_plays_to_its_winner_across_a_restart(
    services: Services, clock: ManualClock
) -> None:
    service = await services.start()
    tournament_id = await _new(service, rounds=3)
    players = [1, 2, 3, 4, 5]
    await _join(service, tournament_id, *players)
    with pytest.raises(Refused) as refused:
        await service.tournament_start(tournament_id, 3)
    assert refused.value.key == "tournament.error.organiser_only"
    started = await service.tournament_start(tournament_id, ORGANISER)
    assert (started.status, started.round) == (RUNNING, 1)
    view = await service.tournament_view(tournament_id)
    first = view.round_tables(1)
    assert sorted(len(t.players) for t in first) == [1, 2, 2]
    assert sorted(p for t in first for p in t.players) == players
    dealt = [service.tables[t.game_id] for t in first if t.status == PLAYING]  # type: ignore[index]
    assert all(table.stored.meta["tournament_id"] == tournament_id for table in dealt)
    assert all(table.stored.meta[lobbies.THREAD_PARENT] == HALL for table in dealt)  # a thread of the hall
    assert {table.channel_id for table in dealt} == {t.channel_id for t in first if t.status == PLAYING}
    service = await services.restart(service)  # in the middle of round 1
    assert {t.game_id for t in first if t.game_id} <= set(service.tables)
    for _ in range(3):
        await _play_round(service, tournament_id, clock)
    view = await service.tournament_view(tournament_id)
    assert view.tournament.status == FINISHED
    history = pairing.standings(players, [], view.tournament.seed)  # the lots alone
    assert len(history) == 5
    expected = pairing.standings(players, _records(view), view.tournament.seed)
    assert view.standings == expected
    assert view.tournament.winner_id == expected[0].player
    byes = [t.players[0] for t in view.tables if t.status == BYE]
    assert len(byes) == 3 and len(set(byes)) == 3  # one a round, never twice
    for number in (1, 2, 3):
        seated = [p for t in view.round_tables(number) for p in t.players]
        assert sorted(seated) == players


def _records(view):  # type: ignore[no-untyped-def]
    from bot.service.tournaments import records

    return records(view.tables)


async def test_a_knockout_advances_the_winners_to_the_final(services: Services, clock: ManualClock) -> None:
    service = await services.start()
    tournament_id = await _new(service, form="knockout", seats=2, rounds=2)
    await _join(service, tournament_id, 1, 2, 3, 4)
    with pytest.raises(Refused) as refused:
        await _join(service, tournament_id, 5)  # a bracket of two rounds of two holds four
    assert refused.value.key == "tournament.error.full"
    await service.tournament_leave(tournament_id, 4)
    await service.tournament_start(tournament_id, ORGANISER)
    view = await service.tournament_view(tournament_id)
    assert [len(t.players) for t in view.round_tables(1)] == [2, 1]  # the best ranked gets the bye
    await _play_round(service, tournament_id, clock)
    view = await service.tournament_view(tournament_id)
    (semi,) = [t for t in view.round_tables(1) if t.status == ENDED]
    winner = min(semi.result or (), key=lambda r: r[1])[0]
    (final,) = view.round_tables(2)
    bye = next(t.players[0] for t in view.round_tables(1) if t.status == BYE)
    assert sorted(final.players) == sorted([winner, bye])
    await _play_round(service, tournament_id, clock)
    view = await service.tournament_view(tournament_id)
    assert view.tournament.status == FINISHED
    assert view.tournament.winner_id == min(view.round_tables(2)[0].result or (), key=lambda r: r[1])[0]


async def test_bad_input_is_refused_and_changes_nothing(services: Services, clock: ManualClock) -> None:
    service = await services.start()
    for options, key in [
        ({"seats": 1}, "tournament.bad.seats"),
        ({"seats": 9}, "tournament.bad.seats"),
        ({"rounds": 0}, "tournament.bad.rounds"),
        ({"form": "knockout", "rounds": 7}, "tournament.bad.knockout_rounds"),
        ({"starts_at": clock.now_ms() - 1000}, "tournament.bad.past"),
        ({"turn_limit": 17}, "table.error.bad_turn_limit"),
    ]:
        with pytest.raises(Refused) as refused:
            await _new(service, **options)
        assert refused.value.key == key
    assert await service.storage.tournaments.open() == []
    tournament_id = await _new(service)
    with pytest.raises(Refused) as refused:
        await _new(service)
    assert refused.value.key == "tournament.error.channel_busy"
    await _join(service, tournament_id, 1)
    before = await service.tournament_view(tournament_id)
    for attempt, key in [
        (service.tournament_join(tournament_id, 1, "again"), "tournament.error.already_joined"),
        (service.tournament_leave(tournament_id, 2), "tournament.error.not_joined"),
        (service.tournament_start(tournament_id, ORGANISER), "tournament.bad.too_few"),
        (service.tournament_pause(tournament_id, ORGANISER), "tournament.error.not_running"),
        (service.tournament_drop(tournament_id, 1, 1), "tournament.error.organiser_only"),
        (service.tournament_drop(tournament_id, ORGANISER, 7), "tournament.error.not_a_player"),
    ]:
        with pytest.raises(Refused) as refused:
            await attempt
        assert refused.value.key == key
    assert await service.tournament_view(tournament_id) == before


async def test_a_start_time_drop_pause_and_cancel(services: Services, clock: ManualClock) -> None:
    service = await services.start()
    tournament_id = await _new(service, starts_at=clock.now_ms() + 3_600_000, computers=True, seats=3)
    await _join(service, tournament_id, 1, 2, 3, 4)
    service = await services.restart(service)  # the start time is kept
    assert (await service.tournament(tournament_id)).status == SIGNUP
    clock.advance(3600)
    for _ in range(300):
        view = await service.tournament_view(tournament_id)
        if view.tables and all(t.status == PLAYING for t in view.tables):
            break
        await asyncio.sleep(0.01)
    view = await service.tournament_view(tournament_id)
    assert view.tournament.status == RUNNING
    tables = view.round_tables(1)
    assert sorted(len(t.players) for t in tables) == [2, 2]
    games = [service.tables[t.game_id] for t in tables]  # type: ignore[index]
    assert all(len(g.stored.seats) == 3 and g.stored.seats[2].ai_level for g in games)  # computers:on
    dropped = tables[0].players[0]
    await service.tournament_drop(tournament_id, ORGANISER, dropped)
    assert games[0].seat_of(dropped) in games[0].replaced()
    with pytest.raises(SeatTaken):  # a dropped player's table is no longer theirs to play
        await service.open_panel(games[0].id, dropped)
    with pytest.raises(Refused) as refused:
        await service.tournament_drop(tournament_id, ORGANISER, dropped)
    assert refused.value.key == "tournament.error.already_dropped"
    paused = await service.tournament_pause(tournament_id, ORGANISER)
    assert paused.status == PAUSED
    for row in tables:
        for user in row.players:
            if user != dropped:
                await service.leave(row.game_id, user)  # type: ignore[arg-type]
    for _ in range(2000):
        view = await service.tournament_view(tournament_id)
        if all(t.status == ENDED for t in view.round_tables(1)):
            break
        clock.advance(60)
        await asyncio.sleep(0.01)
    assert view.tournament.round == 1 and view.tournament.status == PAUSED  # no new round while paused
    await service.tournament_resume(tournament_id, ORGANISER)
    view = await service.tournament_view(tournament_id)
    assert view.tournament.round == 2
    assert dropped not in [p for t in view.round_tables(2) for p in t.players]
    cancelled = await service.tournament_cancel(tournament_id, ORGANISER)
    assert cancelled.status == CANCELLED
    with pytest.raises(Refused):
        await service.tournament_cancel(tournament_id, ORGANISER)


def test_a_knockout_winner_dropped_later_brings_nobody_back() -> None:
    """Ann beat Bob in round 1 and was dropped in round 2: Bob stays out (the win stood), Ann is out."""
    from bot.storage.tournaments import Tournament, TournamentPlayer, TournamentTable

    held = Tournament(
        id=1, guild_id=1, channel_id=5, organiser_id=9, kind="skyjo", format="knockout", seats=2, rounds=2,
        turn_limit=None, starts_at=None, seed=3, rated=True, computers=False, status=RUNNING, round=2,
        signup_message_id=None, standings_message_id=None, final_message_id=None, winner_id=None, version=1,
    )  # fmt: skip
    players = [TournamentPlayer(1, "Ann", 1, 2), TournamentPlayer(2, "Bob", 2), TournamentPlayer(3, "Cy", 3),
               TournamentPlayer(4, "Dee", 4)]  # fmt: skip
    tables = [
        TournamentTable(1, 1, 1, (1, 2), 10, 100, ((1, 1), (2, 2)), ENDED),
        TournamentTable(1, 1, 2, (3, 4), 11, 101, ((3, 2), (4, 1)), ENDED),
        TournamentTable(1, 2, 1, (1, 4), 12, 102, None, PLAYING),
    ]
    assert still_in(held, players, tables) == [4]
    players[0] = TournamentPlayer(1, "Ann", 1, 1)  # dropped during round 1: Bob goes on in her place
    assert still_in(held, players, tables) == [2, 4]


async def _view_until(service: TableService, tournament_id: int, done, what: str, seconds: float = 10.0):  # type: ignore[no-untyped-def]
    """The tournament's view once ``done(view)`` (read while the database answers); fails after
    ``seconds`` of real time."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        try:
            view = await service.tournament_view(tournament_id)
        except StorageError:  # the database away (a test's blackout): look again
            view = None
        if view is not None and done(view):
            return view
        if loop.time() > deadline:
            raise AssertionError(f"still waiting for {what}: {view.tournament} {view.tables}")
        await asyncio.sleep(0.01)


async def test_a_table_ended_by_hand_is_placed_by_its_standing_and_stays_unrated(
    services: Services, clock: ManualClock
) -> None:
    """Skyjo's first round played to its end, then the organiser ends the table (``/skyjo end``): the
    tournament records the places of the totals so far (lowest first), not a draw, and crowns the
    leader; the game itself stays unrated (no results, no rating change)."""
    import random

    from bot.games.skyjo import engine as skyjo

    from .conftest import click_for

    service = await services.start()
    tournament_id = await _new(service, rounds=1)
    await _join(service, tournament_id, 1, 2)
    await service.tournament_start(tournament_id, ORGANISER)
    (row,) = (await service.tournament_view(tournament_id)).round_tables(1)
    table = service.tables[row.game_id]  # type: ignore[index]
    rng = random.Random(3)
    while table.state.phase != skyjo.ROUND_OVER:
        seat = next(s for s in range(2) if table.state.legal_actions(s))
        user = table.stored.seats[seat].user_id
        assert user is not None
        panel = await service.open_panel(table.id, user)
        move = rng.choice(table.state.legal_actions(seat))
        await service.click(table.id, panel.version, user, *click_for(move))
    totals = list(table.state.totals)
    assert totals[0] != totals[1], totals  # the premise: one player leads after round 1
    leader = table.stored.seats[totals.index(min(totals))].user_id
    other = table.stored.seats[totals.index(max(totals))].user_id
    await service.end(table.channel_id, ORGANISER, can_manage=True)
    view = await _view_until(service, tournament_id, lambda v: v.tournament.status == FINISHED, "the end")
    (ended,) = view.round_tables(1)
    assert ended.status == ENDED
    assert sorted(ended.result or ()) == sorted([(leader, 1), (other, 2)])
    assert view.tournament.winner_id == leader
    assert [line.player for line in view.standings] == [leader, other]
    assert await service.storage.results.for_game(table.id) == []
    assert await service.storage.ratings.changes_for_game(table.id) == []


class Blackout:
    """Every read and write of the service's database refused (a busy database, nothing written) for
    ``seconds`` from ``start()``; counts what it refused."""

    def __init__(self, service: TableService, monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
        import time

        from bot.storage.errors import DatabaseBusy

        self.seconds, self.until, self.refused = seconds, 0.0, 0
        db = service.storage.db
        run, write = db.run, db.write

        def away() -> bool:
            if time.monotonic() < self.until:
                self.refused += 1
                return True
            return False

        async def guarded_run(fn):  # type: ignore[no-untyped-def]
            if away():
                raise DatabaseBusy(300)
            return await run(fn)

        async def guarded_write(fn):  # type: ignore[no-untyped-def]
            if away():
                raise DatabaseBusy(300)
            return await write(fn)

        self._monotonic = time.monotonic
        monkeypatch.setattr(db, "run", guarded_run)
        monkeypatch.setattr(db, "write", guarded_write)

    def start(self) -> None:
        self.until = self._monotonic() + self.seconds


async def test_a_table_end_met_by_a_database_away_is_recorded_when_it_answers(
    services: Services, clock: ManualClock, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The database goes away (~2 s) the moment round 1's table ends: its end is tried again with growing
    pauses, and once the database answers round 2 is seated, without a restart."""
    import time

    service = await services.start()
    tournament_id = await _new(service, rounds=2)
    await _join(service, tournament_id, 1, 2)
    await service.tournament_start(tournament_id, ORGANISER)
    (row,) = (await service.tournament_view(tournament_id)).round_tables(1)
    blackout = Blackout(service, monkeypatch, 2.0)
    game_over = service._game_over

    def then_away(table):  # type: ignore[no-untyped-def]
        blackout.start()  # the game's end is committed; recording it meets the database away
        game_over(table)

    monkeypatch.setattr(service, "_game_over", then_away)
    await service.end(row.channel_id, ORGANISER, can_manage=True)  # type: ignore[arg-type]
    await until(lambda: "trying again" in caplog.text, "a try refused")
    assert not service.tournament_desk.lock(tournament_id).locked()  # its pause holds no lock
    view = await _view_until(
        service,
        tournament_id,
        lambda v: v.tournament.round == 2 and all(t.status == PLAYING for t in v.round_tables(2)),
        "round 2 seated",
    )
    assert time.monotonic() >= blackout.until and blackout.refused > 0
    assert view.round_tables(1)[0].status == ENDED
    assert sorted(view.round_tables(2)[0].players) == [1, 2]
    assert "tournament table end not recorded; trying again" in caplog.text


async def test_a_table_whose_thread_vanished_is_a_draw_and_the_next_round_comes(
    services: Services, clock: ManualClock
) -> None:
    """Round 1's thread deleted (``cancel_gone``): the table counts as a draw at once, and round 2 is
    seated on the running service (before: only at the next restart)."""
    service = await services.start()
    tournament_id = await _new(service, rounds=2)
    await _join(service, tournament_id, 1, 2)
    await service.tournament_start(tournament_id, ORGANISER)
    (row,) = (await service.tournament_view(tournament_id)).round_tables(1)
    await service.cancel_gone(lambda guild, channel: channel == row.channel_id, "test")
    view = await _view_until(
        service,
        tournament_id,
        lambda v: v.tournament.round == 2 and all(t.status == PLAYING for t in v.round_tables(2)),
        "round 2 seated",
    )
    assert sorted(view.round_tables(1)[0].result or ()) == [(1, 1), (2, 1)]
