"""A tournament's table ended by hand, with the database away the moment it ends (issue 41's leftovers),
through the fake Discord on SQLite and PostgreSQL.

Alice and Bob play round 1's table by clicking their panels until a Skyjo round is scored (the turn
timers on a manual clock that never moves); the organiser ends it with ``/skyjo end`` in its thread.
The database goes away for :data:`AWAY_S` seconds right after that end is committed: every read and
write of the bot's storage fails as its backend fails when a connection drops. The tournament's record
of the table is tried again with growing pauses (``TournamentEndPart._table_over``), and once the database
answers: round 1 is recorded by the standing of the game when it was stopped (the totals of the rounds
scored, lowest first: ``Game.standing``), not as a draw, the standings say so, and round 2 is seated in
a thread of its own, without a restart.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.games.places import places
from bot.games.skyjo import SKYJO
from bot.games.skyjo.engine import ranks_of
from bot.storage.errors import ConnectionLost, DiskIOError
from bot.storage.tournaments import ENDED, PLAYING
from bot.ui import ids
from bot.ui.tournaments import button_id
from tests.service.conftest import click_for

from .conftest import BOTH_BACKENDS, BotDatabase, act_of, button, open_panel, private_answer
from .test_tournaments import EDITS, _click, _new_and_sign_up, _players

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


def the_button(panel: Any, act: str, arg: int) -> str | None:
    return next((c for c in panel.custom_ids if (p := ids.decode(c)) and p.act == act and p.arg == arg), None)


async def play_a_round(fake: Any, table: Any, table_message: Any, users: list[Any]) -> None:
    """Alice and Bob click their panels as the normal computer player would play (random moves may
    score 100 in one round, which ends the game) until a round is scored; the table then waits for
    their Next round, which nobody clicks (and the manual clock never ends the pause)."""
    policy, rng = SKYJO.levels["normal"], random.Random(3)
    while not table.state.rounds:
        seat = table.state.seats_to_act()[0]
        user = next(u for u in users if table.seat_of(u.id) == seat)
        panel = await open_panel(fake, user, table_message)
        act, arg = click_for(policy(table.state.view(seat), rng))
        for mode in [c for c in panel.custom_ids if act_of(c) == "md"]:
            if the_button(panel, act, arg) is None:  # a move of another mode (take the discard): switch
                await (await fake.click(user, panel, mode)).answer()
        custom_id = the_button(panel, act, arg)
        assert custom_id is not None, f"no {act}:{arg} on the panel: {panel.custom_ids}"
        version = table.version
        await (await fake.click(user, panel, custom_id)).answer()
        assert table.version == version + 1, "each click is one move"


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
    table = await fake.wait_until(
        lambda: next((t for t in bot.service.tables.values() if t.stored.meta.get("tournament_id")), None),
        what="round 1's table dealt",
    )
    table_message = await fake.wait_until(
        lambda: fake.messages.get(table.stored.message_id or 0), what="the table message in its thread"
    )
    await play_a_round(fake, table, table_message, users)
    away = Away(bot.service.storage.db, database.kind, monkeypatch)
    game_over = bot.service._game_over

    def then_away(ended: Any) -> None:
        away.start()  # the end is committed; recording it in the tournament meets the database away
        game_over(ended)

    monkeypatch.setattr(bot.service, "_game_over", then_away)
    thread = fake.channels[table.channel_id]
    question = await private_answer(await fake.run_command(fake.owner, "skyjo", "end", channel=thread))
    await (await fake.click(fake.owner, question, button(question, "ey"))).response()
    games = fake.channel("games")
    second = await fake.wait_until(
        lambda: fake.threads_of(games)[1] if len(fake.threads_of(games)) > 1 else None,
        AWAY_S + 15,
        what="round 2's thread",
    )
    await fake.wait_until(  # its table message, posted once the game is dealt and linked to its table
        lambda: any(m.custom_ids for m in fake.channel_messages(second)), what="round 2's table message"
    )
    assert time.monotonic() >= away.until and away.refused > 0
    stored = await bot.service.ledger.get_game(table.id)
    assert stored.status == "cancelled" and await bot.service.storage.results.for_game(table.id) == []
    placed = places(ranks_of(stored.state.totals))
    expected = sorted((seat.user_id, placed[seat.seat].place) for seat in stored.seats)
    view = await bot.service.tournament_view(tournament_id)
    (ended,) = view.round_tables(1)
    assert ended.status == ENDED and sorted(ended.result or ()) == expected
    (next_table,) = view.round_tables(2)
    assert next_table.channel_id == second.id and next_table.status == PLAYING
    await bot.service.tournament_desk.hall.settled()
    # What the players read: the standings redrawn once recorded (2 points for each seat finished ahead of).
    points = {u: sum(2 if p < q else int(p == q) for other, q in expected if other != u) for u, p in expected}
    names = {user.id: user.global_name for user in users}
    lines = [f"{names[user]}: {count} pt" for user, count in points.items()]
    await fake.wait_until(
        lambda: any(
            "**Standings**, round 2" in m.text and all(line in m.text for line in lines)
            for m in fake.channel_messages(games)
        ),
        what=f"the standings of round 1 ({lines})",
    )
    fake.assert_clean()
