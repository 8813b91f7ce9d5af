"""The table service on its own (bot/service/): a lobby becomes a dealt game, moves are committed before
anyone is told, a stale or out-of-turn click changes nothing, timers fire on the clock, and a new
process resumes every table from the database. No Discord: see this folder's conftest."""

from __future__ import annotations

import random

import pytest

from bot.clock import ManualClock
from bot.games.skyjo import engine as skyjo
from bot.service import Refused, Stale, Table, TableService
from bot.service.events import LobbyClosed, TurnReminder

from .conftest import ANN, BOB, CHANNEL, Services, click_for, two_player_table, until

USERS = (ANN, BOB)  # by seat


async def play(service: TableService, table: Table, moves: int, rng: random.Random) -> None:
    """``moves`` legal clicks, each by the seat whose move it is (any seat during the initial reveals),
    at the version its panel shows."""
    for _ in range(moves):
        seat = next(s for s in range(len(table.stored.seats)) if table.state.legal_actions(s))
        act, arg = click_for(rng.choice(table.state.legal_actions(seat)))
        panel = await service.open_panel(table.id, USERS[seat])
        await service.click(table.id, panel.version, USERS[seat], act, arg)


async def test_a_lobby_seated_and_started_is_a_dealt_game_in_the_database(services: Services) -> None:
    service = await services.start()
    lobby = await service.open_lobby(
        guild_id=1, channel_id=CHANNEL, host_id=ANN, host_name="Ann", options={}, kind="skyjo"
    )
    with pytest.raises(Refused) as refused:
        await service.lobby_start(lobby.id, CHANNEL, ANN)
    assert refused.value.key == "table.error.need_players"
    await service.lobby_join(lobby.id, CHANNEL, BOB, "Bob")
    with pytest.raises(Refused) as refused:
        await service.lobby_start(lobby.id, CHANNEL, BOB)
    assert refused.value.key == "table.error.host_only"

    table = await service.lobby_start(lobby.id, CHANNEL, ANN)
    assert [(s.display_name, s.user_id) for s in table.stored.seats] == [("Ann", ANN), ("Bob", BOB)]
    assert table.version == 0 and table.state.phase == skyjo.REVEAL
    assert service.table_in_channel(CHANNEL) is table
    assert await service.storage.games.actions(table.id) == []  # dealt from its seed, nothing played
    assert table.timer() is not None  # the initial reveals are timed already


async def test_every_move_is_in_the_log_before_the_listener_hears_of_it(services: Services) -> None:
    service = await services.start()
    table = await two_player_table(service)
    await play(service, table, 8, random.Random(1))
    logged = await service.storage.games.actions(table.id)
    assert table.version == len(logged) == 8
    heard = services.heard[service].versions
    # each change was told once it was committed, never ahead of the log
    assert heard and heard == sorted(heard) and heard[-1] == table.version
    assert table.state.phase == skyjo.PLAY  # the initial reveals made, the turns begun


async def test_a_stale_or_out_of_turn_click_is_refused_and_changes_nothing(services: Services) -> None:
    service = await services.start()
    table = await two_player_table(service)
    old = await service.open_panel(table.id, ANN)
    first = next(a for a in table.state.legal_actions(0))
    await service.click(table.id, old.version, ANN, *click_for(first))
    version = table.version

    # Ann's panel from before her own move is out of date: refused with the fresh one
    second = next(a for a in table.state.legal_actions(0))
    with pytest.raises(Stale) as stale:
        await service.click(table.id, old.version, ANN, *click_for(second))
    assert stale.value.panel.version == version
    assert stale.value.own and stale.value.key == "table.notice.already_done"  # her own move made it so
    # a version the table never reached is no better
    with pytest.raises(Stale):
        await service.click(table.id, version + 5, ANN, *click_for(second))

    rng = random.Random(2)
    while table.state.phase == skyjo.REVEAL:  # the rest of the initial reveals
        await play(service, table, 1, rng)
    waiting = 1 - table.state.turn
    panel = await service.open_panel(table.id, USERS[waiting])
    before = len(await service.storage.games.actions(table.id))
    with pytest.raises(Refused) as refused:
        await service.click(table.id, panel.version, USERS[waiting], *click_for(skyjo.Draw()))
    assert refused.value.key == "error.not_your_turn"
    assert len(await service.storage.games.actions(table.id)) == before == table.version

    # The other seat's turn ends: that older panel is stale, and its player did nothing since: the game
    # moved on without them (not "already done", issue 47 item 10).
    while table.state.turn != waiting:
        await play(service, table, 1, rng)
    with pytest.raises(Stale) as stale:
        await service.click(table.id, panel.version, USERS[waiting], *click_for(skyjo.Draw()))
    assert not stale.value.own and stale.value.key == "table.notice.moved_on"


async def test_turn_timers_remind_then_play_for_the_player_on_the_manual_clock(
    services: Services, clock: ManualClock
) -> None:
    service = await services.start()
    table = await two_player_table(service, turn_limit=30)
    timer = table.timer()
    assert timer is not None and timer["due"] == clock.now_ms() + 30_000

    clock.advance(16)  # past half time: both seats still owe their initial reveals
    reminders = services.heard[service].of
    await until(lambda: reminders(TurnReminder), "the half-time reminder")
    (reminded,) = reminders(TurnReminder)
    assert list(reminded.seats) == [0, 1]
    assert table.version == 0

    clock.advance(15)  # the limit: the missing reveals are made for them
    await until(lambda: table.state.phase == skyjo.PLAY, "the timer to reveal for both seats")
    async with service.lock(CHANNEL):  # the sweeper works under the channel's lock: its commit is done
        pass
    assert len(await service.storage.games.actions(table.id)) == table.version > 0
    later = table.timer()
    assert later is not None and later["due"] > timer["due"]  # the first turn has its own limit


async def test_a_new_process_resumes_the_game_and_its_timer_from_the_database(
    services: Services, clock: ManualClock
) -> None:
    service = await services.start()
    table = await two_player_table(service, turn_limit=60)
    await play(service, table, 10, random.Random(3))
    state, version, timer = table.stored.state.to_dict(), table.version, table.timer()

    again = await services.restart(service)
    resumed = again.tables[table.id]
    assert resumed is not table and resumed.resumed
    assert resumed.version == version and resumed.stored.state.to_dict() == state
    assert resumed.timer() == timer
    # play goes on where it stopped, at the version the old panels carry
    await play(again, resumed, 2, random.Random(4))
    assert resumed.version == version + 2

    clock.advance(61)  # the resumed timer still fires
    await until(lambda: resumed.version > version + 2, "the resumed timer to play the turn")


@pytest.mark.parametrize("offset_s", [0, 3600])  # the service's clock an hour behind the wall clock too
async def test_a_lobby_nobody_starts_expires_on_the_clock(
    services: Services, clock: ManualClock, offset_s: int
) -> None:
    clock._now -= offset_s * 1000  # the lobby is stamped on the service's clock, not the wall's
    service = await services.start()
    lobby = await service.open_lobby(
        guild_id=1, channel_id=CHANNEL, host_id=ANN, host_name="Ann", options={}, kind="skyjo"
    )
    clock.advance(15 * 60 + 1)
    closed = services.heard[service].of
    await until(lambda: [e.lobby_id for e in closed(LobbyClosed)] == [lobby.id], "the lobby to expire")
    assert await service.storage.lobbies.list_open() == []
    with pytest.raises(Refused):
        await service.lobby_join(lobby.id, CHANNEL, BOB, "Bob")
