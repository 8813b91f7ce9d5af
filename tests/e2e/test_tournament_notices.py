"""A tournament's table seated tells its players (issue 47 item 5), through the fake Discord.

Four players at one table of four, a 30-second turn limit: Alice (English), Carol (French), Bob (who
chose ``/skybo notify state:off``) and Dave (whose direct messages are closed). When the table is dealt:
its thread names them all (a mention, which adds them to it) with the first turn's deadline; Alice
and Carol each get a direct message in their own language with the thread's link and that deadline;
Bob gets none; Dave's is refused by Discord (50007), which stops nothing. The first turn has two
minutes of grace on top of the limit (the players must find the thread): nobody's turn is covered at
31 s, it is at the end of the grace.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.service.tournaments import FIRST_TURN_GRACE_S
from bot.storage.tournaments import PLAYING
from bot.ui.tournaments import button_id

from .conftest import private_answer
from .test_tournaments import EDITS, LIMIT, _click, _new_and_sign_up


async def test_a_seated_table_is_told_in_its_thread_and_privately_with_a_first_turn_grace(
    fake_discord: Any, skybo: Any, caplog: pytest.LogCaptureFixture
) -> None:
    fake = fake_discord
    dave = fake.add_user("dave")
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    clock = ManualClock()
    bot = await skybo(clock=clock, edit_interval=EDITS)
    caplog.set_level(logging.INFO)
    await private_answer(await fake.run_command(bob, "skybo", "notify", options={"state": "off"}))
    dave.dms_closed = True
    users = [alice, bob, carol, dave]
    tournament_id, signup = await _new_and_sign_up(fake, bot, users, format="swiss", seats=4, rounds=1)
    start_ms = clock.now_ms()
    await _click(fake, fake.owner, signup, button_id(tournament_id, "start"))
    await bot.service.tournament_desk.hall.settled()
    (row,) = (await bot.service.tournament_view(tournament_id)).round_tables(1)
    assert row.status == PLAYING
    table = bot.service.tables[row.game_id]
    due = start_ms + (LIMIT + FIRST_TURN_GRACE_S) * 1000
    assert (table.timer() or {}).get("due") == due  # the first turn: the limit and the grace
    deadline = f"<t:{due // 1000}:R>"

    # In the thread: everyone named, with the first turn's deadline (the server's language).
    thread = fake.channels[row.channel_id]
    welcome = await fake.wait_until(
        lambda: next(
            (m for m in fake.channel_messages(thread) if "your table for round 1" in m.content), None
        ),
        what="the players named in their thread",
    )
    assert all(f"<@{u.id}>" in welcome.content for u in users)
    assert f"The first turn ends {deadline}" in welcome.content
    # Privately, in each one's language, with the thread's link; none to Bob, Dave's refused.
    link = f"<#{thread.id}> (https://discord.com/channels/{fake.guild.id}/{thread.id})"
    (english,) = [m.content for m in fake.direct_messages(alice)]
    assert english.startswith("🏆 Your table for round 1 of the **Skyjo tournament** is seated: table 1, in")
    assert link in english and f"Your first turn ends {deadline}" in english
    (french,) = [m.content for m in fake.direct_messages(carol)]
    assert french.startswith("🏆 Ta table de la ronde 1 du **tournoi de Skyjo** t'attend : table 1, dans")
    assert link in french and f"Ton premier tour se termine {deadline}" in french
    assert fake.direct_messages(bob) == [] and fake.direct_messages(dave) == []
    (refused,) = fake.take_rejections(50007)
    assert refused.status == 403
    closed = [r for r in caplog.records if r.getMessage() == "tournament seat letter not delivered"]
    assert [(r.levelno, getattr(r, "user_id", None)) for r in closed] == [(logging.INFO, dave.id)]

    # The grace: nobody's first turn is covered after the limit alone, it is at the end of the grace.
    clock.advance(LIMIT + 1)
    look = bot.service.sweeper.due[("game", table.id)]  # the sweeper's next look at the table: half time
    assert look == start_ms + (LIMIT + FIRST_TURN_GRACE_S) * 500 > clock.now_ms()
    assert all(table.missed(s) == 0 for s in range(4))
    first = (table.timer() or {}).get("token")
    clock.advance(FIRST_TURN_GRACE_S)
    await fake.wait_until(lambda: all(table.missed(s) == 1 for s in range(4)), what="the first turn covered")
    # Every later turn has the limit alone.
    timer = await fake.wait_until(
        lambda: (t := table.timer()) and t.get("what") == "turn" and t.get("token") != first and t,
        30,
        what="the next turn's timer",
    )
    assert timer["due"] - clock.now_ms() == LIMIT * 1000
    fake.assert_clean()
