"""A tournament's table ended by hand, with the database away the moment it ends (issue 41's leftovers),
through the fake Discord on SQLite and PostgreSQL.

Round 1's table plays (the turn timers on a manual clock, then computer players) until a Skyjo round is
scored; the organiser ends it with ``/skyjo end`` in its thread. The database goes away for
:data:`AWAY_S` seconds right after that end is committed: every read and write of the bot's storage
fails as its backend fails when a connection drops. The tournament's record of the table is tried again
with growing pauses (``TournamentPart._table_over``), and once the database answers: round 1 is
recorded by the standing of the game when it was stopped (the totals of the rounds scored, lowest first:
``Game.standing``), not as a draw, and round 2 is seated in a thread of its own, without a restart.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.games.places import places
from bot.games.skyjo.engine import ranks_of
from bot.storage.errors import ConnectionLost, DiskIOError
from bot.storage.tournaments import ENDED, PLAYING
from bot.ui.tournaments import button_id

from .conftest import BOTH_BACKENDS, BotDatabase, button, private_answer
from .test_tournaments import EDITS, LIMIT, _click, _new_and_sign_up, _play_until, _players

AWAY_S = 2.0


class Away:
    """``start()``: every read and write of the bot's storage fails (a dropped connection) for
    :data:`AWAY_S` seconds; ``refused`` counts them."""

    def __init__(self, db: Any, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
        self.kind, self.until, self.refused = kind, 0.0, 0
        run, write = db.run, db.write

        async def guarded_run(fn: Callable[[Any], Any]) -> Any:
            self._check()
            return await run(fn)

        async def guarded_write(fn: Callable[[Any], Any]) -> Any:
            self._check()
            return await write(fn)

        monkeypatch.setattr(db, "run", guarded_run)
        monkeypatch.setattr(db, "write", guarded_write)

    def start(self) -> None:
        self.until = time.monotonic() + AWAY_S

    def _check(self) -> None:
        if time.monotonic() < self.until:
            self.refused += 1
            if self.kind == "sqlite":
                raise DiskIOError("the test's file", "disk I/O error (injected by the test)")
            raise ConnectionLost("the test's server", "server closed the connection unexpectedly (injected)")


@BOTH_BACKENDS
async def test_a_table_ended_by_hand_while_the_database_blinks_counts_its_standing_and_round_2_comes(
    fake_discord: Any, skybo: Any, database: BotDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    users = _players(fake, 2)
    clock = ManualClock()
    bot = await skybo(clock=clock, edit_interval=EDITS)
    tournament_id, signup = await _new_and_sign_up(fake, bot, users, format="swiss", seats=2, rounds=2)
    await _click(fake, fake.owner, signup, button_id(tournament_id, "start"))
    view = await _play_until(
        bot, clock, tournament_id, lambda v: any(t.status == PLAYING for t in v.tables), 10
    )
    (row,) = view.round_tables(1)
    table = bot.service.tables[row.game_id]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while not table.state.rounds:  # a round scored: the standing is no draw (unless the totals tie)
        assert loop.time() < deadline and not table.finished, "no Skyjo round was scored"
        clock.advance(LIMIT + 1)
        await asyncio.sleep(0.05)
    await fake.wait_until(  # posted (the edits of a game played this fast wait for it to pause)
        lambda: table.stored.message_id in fake.messages, what="the table message in its thread"
    )
    away = Away(bot.service.storage.db, database.kind, monkeypatch)
    game_over = bot.service._game_over

    def then_away(ended: Any) -> None:
        away.start()  # the end is committed; recording it in the tournament meets the database away
        game_over(ended)

    monkeypatch.setattr(bot.service, "_game_over", then_away)
    thread = fake.channels[row.channel_id]
    question = await private_answer(await fake.run_command(fake.owner, "skyjo", "end", channel=thread))
    await (await fake.click(fake.owner, question, button(question, "ey"))).response()
    games = fake.channel("games")
    second = await fake.wait_until(
        lambda: fake.threads_of(games)[1] if len(fake.threads_of(games)) > 1 else None,
        AWAY_S + 15,
        what="round 2's thread",
    )
    await fake.wait_until(
        lambda: any(t.channel_id == second.id for t in bot.service.tables.values()), what="round 2 dealt"
    )
    assert time.monotonic() >= away.until and away.refused > 0
    stored = await bot.service.rules.get_game(row.game_id)
    assert stored.status == "cancelled" and await bot.service.storage.results.for_game(row.game_id) == []
    placed = places(ranks_of(stored.state.totals))
    expected = sorted((seat.user_id, placed[seat.seat].place) for seat in stored.seats)
    view = await bot.service.tournament_view(tournament_id)
    (ended,) = view.round_tables(1)
    assert ended.status == ENDED and sorted(ended.result or ()) == expected
    (next_table,) = view.round_tables(2)
    assert next_table.channel_id == second.id and next_table.status == PLAYING
    await bot.service.tournament_desk.hall.settled()
    fake.assert_clean()
