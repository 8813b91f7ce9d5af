"""A table where the bot is not a member sleeps and wakes (issue 49; bot/ui/token_tables.py asks).

Put to sleep, its turn timer is paused with the time it had left (nothing fires, however long it
sleeps), its computers do not play and its moves are refused; woken, the timer runs on with what it
had left. A restart leaves every such table asleep; a table in a server with the bot never sleeps.
"""

from __future__ import annotations

from bot.clock import ManualClock
from bot.service import Refused, TableService
from bot.service.events import TableChanged
from bot.service.types import WAKE_FLOOR_MS

from .conftest import ANN, BOB, CHANNEL, Services, click_for, two_player_table

LIMIT = 120


async def off_server_table(service: TableService, *, computers: int = 0) -> int:
    """Ann opens a lobby in a group DM (no guild: off server), Bob joins, Ann starts it."""
    lobby = await service.open_lobby(
        guild_id=None,
        channel_id=CHANNEL,
        host_id=ANN,
        host_name="Ann",
        options={},
        kind="skyjo",
        turn_limit=LIMIT,
        computers=computers,
        locale="fr",
        off_server=True,
    )
    assert lobby.off_server and lobby.options["language"] == "fr"
    await service.lobby_join(lobby.id, CHANNEL, BOB, "Bob")
    table = await service.lobby_start(lobby.id, CHANNEL, ANN)
    assert table.stored.off_server and table.stored.meta["language"] == "fr"
    return table.id


async def test_asleep_the_timer_waits_with_what_it_had_left_and_moves_are_refused(
    services: Services, clock: ManualClock
) -> None:
    service = await services.start()
    game_id = await off_server_table(service)
    table = service.tables[game_id]
    started = table.timer()
    assert started is not None
    clock.advance(20)
    assert await service.sleep_table(game_id) and table.asleep
    assert not await service.sleep_table(game_id)  # asleep already: nothing stored twice
    assert [e.cause for e in services.heard[service].of(TableChanged)][-1] == "sleep"
    assert ("game", game_id) not in service.sweeper.due
    paused = table.timer()
    assert paused is not None
    left = paused["paused_left"]
    assert left == started["due"] - clock.now_ms() == (LIMIT - 20) * 1000  # the time it had left
    version = table.version
    clock.advance(3 * LIMIT)
    act, arg = click_for(table.state.legal_actions(0)[0])
    try:
        await service.click(game_id, version, ANN, act, arg)
    except Refused as refused:
        assert refused.key == "table.error.asleep"
    else:
        raise AssertionError("a move on a sleeping table was played")
    assert table.version == version and table.missed(0) == table.missed(1) == 0

    assert await service.wake_table(game_id) and not table.asleep
    assert [e.cause for e in services.heard[service].of(TableChanged)][-1] == "wake"
    timer = table.timer()
    assert timer is not None and timer["due"] - clock.now_ms() == max(left, WAKE_FLOOR_MS)
    assert "paused_left" not in timer and ("game", game_id) in service.sweeper.due
    assert not await service.wake_table(game_id)  # awake: nothing to do


async def test_a_restart_leaves_off_server_tables_asleep_and_the_others_awake(services: Services) -> None:
    service = await services.start()
    game_id = await off_server_table(service)
    assert not service.tables[game_id].asleep
    again = await services.restart(service)
    table = again.tables[game_id]
    assert table.asleep and ("game", game_id) not in again.sweeper.due
    assert await again.wake_table(game_id) and ("game", game_id) in again.sweeper.due


async def test_a_table_in_a_server_with_the_bot_never_sleeps(services: Services) -> None:
    service = await services.start()
    table = await two_player_table(service, turn_limit=LIMIT)
    assert not table.stored.off_server
    assert not await service.sleep_table(table.id) and not table.asleep
    again = await services.restart(service)
    assert not again.tables[table.id].asleep
