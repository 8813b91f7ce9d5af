"""Taking one's seat back (issue 22): a player a computer replaced for missing turns comes back.

Their "My grid" answers privately with "Take my seat back"; a click gives them the seat again (the
computer's moves stay), their missed count starts from zero, the table says they are back, and the
game is rated for them as for anyone who played it. A player who left or was kicked cannot.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from bot.clock import ManualClock
from bot.service import Refused, Table
from bot.service.ledger import GameLedger

from .conftest import (
    act_of,
    bot_on,
    button,
    open_panel,
    play_turns,
    private_answer,
    reveal_own_cards,
    start_table,
)
from .test_timers import LIMIT, leave_table

TAKE_BACK = "Take my seat back"


async def replace_for_missed_turns(
    fake: Any, bot: Any, clock: ManualClock, table_message: Any, table: Table, idle: Any, players: list[Any]
) -> int:
    """``players`` play, ``idle`` never clicks: the timer covers their turns until, after the third
    miss in a row, a computer player takes the seat. Returns the idle seat."""
    seat = table.seat_of(idle.id)
    assert seat is not None
    for player in players:
        await reveal_own_cards(fake, player, table_message, table)
    rng = random.Random(7)

    def idle_to_play() -> bool:
        game = table.state
        return seat in game.seats_to_act() and (game.phase == "reveal" or game.drawn is None)

    for missed in (1, 2, 3):
        await play_turns(fake, bot, table.id, table_message, players, rng, until=idle_to_play)
        await bot.presenter.flush()
        clock.advance(LIMIT)
        # Counted, and the whole turn played for them (the timer then belongs to the next turn).
        await fake.wait_until(
            lambda m=missed: table.missed(seat) == m and not (table.timer() or {}).get("fired"),
            what=f"missed turn {missed} covered",
        )
    await fake.wait_until(lambda: seat in table.replaced(), what="the seat taken by a computer")
    assert table.missed(seat) == 3 and seat in table.idle()
    return seat


async def offer(fake: Any, user: Any, table_message: Any) -> Any:
    """``user`` clicks "My grid" and gets, privately, the offer to take the seat back."""
    answer = await private_answer(await fake.click(user, table_message, button(table_message, "op")))
    assert "computer player took your seat after you missed 3 turns" in answer.text
    assert [c["label"] for c in answer.all_components() if c.get("type") == 2] == [TAKE_BACK]
    return answer


async def test_a_replaced_player_takes_the_seat_back_and_plays_on(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock)
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=LIMIT, score_limit=10)
    table = bot.service.tables[game_id]
    bob_seat = await replace_for_missed_turns(fake, bot, clock, table_message, table, bob, [alice])
    dm = await fake.wait_until(lambda: fake.dm_channels.get(bob.id), what="the private note")
    note = await fake.wait_until(
        lambda: next((m for m in fake.channel_messages(dm) if TAKE_BACK in m.content), None),
        what="the note saying how to come back",
    )
    assert "“My grid”" in note.content and str(table_message.id) in note.content

    offered = await offer(fake, bob, table_message)
    inter = await fake.click(bob, offered, button(offered, "rc"))
    assert (await inter.answer()).id == offered.id  # the offer becomes Bob's panel, in place
    assert "Your seat is yours again." in offered.text
    assert "Your grid" in offered.text and "rc" not in map(act_of, offered.custom_ids)  # his panel now
    assert bob_seat not in table.replaced() and bob_seat not in table.idle()
    assert table.missed(bob_seat) == 0 and table.ai_level(bob_seat) is None
    assert (bob_seat, [{"type": "seat_back", "seat": bob_seat}]) in table.recent
    await fake.wait_until(lambda: "Bob is back" in table_message.text, what="the table saying so")
    stored = await GameLedger(bot.service.storage).get_game(game_id)  # the database says so too
    assert str(bob_seat) not in stored.meta["replaced"] and stored.meta["idle"] == []

    # From now on the game waits for Bob: his next turn has a timer of the whole limit, and the
    # computer no longer plays it.
    rng = random.Random(11)

    def bob_to_draw() -> bool:
        return table.state.phase == "play" and table.state.turn == bob_seat and table.state.drawn is None

    await play_turns(fake, bot, game_id, table_message, [alice], rng, until=bob_to_draw)
    timer = table.timer()
    assert timer is not None and timer["token"][2] == bob_seat
    assert timer["due"] == clock.now_ms() + LIMIT * 1000 and not timer["reminded"]
    version = table.version
    panel = await open_panel(fake, bob, table_message)
    assert (await (await fake.click(bob, panel, button(panel, "dr"))).answer()).id == panel.id
    assert table.version == version + 1 and table.state.drawn is not None
    actions = await bot.service.storage.games.actions(game_id)
    assert actions[-1].seat == bob_seat and actions[-1].action["type"] == "draw"

    # Played to its end, the game is rated for Bob by his result, not as a forfeit.
    await play_turns(fake, bot, game_id, table_message, [alice, bob], rng)
    finished = table.stored.finished
    assert table.finished and finished is not None and table.stored.rated
    ranks = table.state.results()["ranks"]
    bob_change = next(c for c in finished.rating_changes if c.player == f"user:{bob.id}")
    assert bob_change.rank == ranks[bob_seat]
    assert str(bob_seat) not in table.stored.meta["replaced"]


async def test_taking_the_seat_back_in_the_middle_of_the_computers_turn(
    fake_discord: Any, skybo: Any
) -> None:
    """The seat is Bob's again at once: the card the computer drew for him stays, he places it himself
    with the whole limit, and the computer plays nothing more for him."""
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock, ai_delay=1.5)  # time to click between the computer's two moves
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=LIMIT)
    table = bot.service.tables[game_id]
    bob_seat = await replace_for_missed_turns(fake, bot, clock, table_message, table, bob, [alice])
    offered = await offer(fake, bob, table_message)
    rng = random.Random(3)
    for _ in range(20):  # until the computer draws for Bob (it may take the discard instead: one move)
        await play_turns(
            fake, bot, game_id, table_message, [alice], rng, until=lambda: table.state.turn == bob_seat
        )
        assert table.timer() is None  # nobody to wait for: the computer plays Bob's seat
        version = table.version
        await fake.wait_until(lambda v=version: table.version > v, what="the computer's move for Bob")
        if table.state.drawn is not None:
            break
    else:
        raise AssertionError("the computer never drew a card for Bob")
    version = table.version
    assert (await (await fake.click(bob, offered, button(offered, "rc"))).answer()).id == offered.id
    assert table.version == version and table.state.turn == bob_seat and table.state.drawn is not None
    timer = table.timer()
    assert timer is not None and timer["token"][2] == bob_seat
    assert timer["due"] == clock.now_ms() + LIMIT * 1000 and not timer["reminded"]
    # The computer's loop wakes up, finds no computer seat to play and stops, leaving the card to Bob.
    await fake.wait_until(
        lambda: table.ai_task is None or table.ai_task.done(), what="the computer player stopping"
    )
    assert table.version == version and table.state.drawn is not None
    place = next(c for c in offered.custom_ids if act_of(c) in {"rp", "dv"})
    assert (await (await fake.click(bob, offered, place)).answer()).id == offered.id
    # One action since the computer's draw, Bob's own: the turn is over and the computer did not play it.
    assert table.version == version + 1 and table.state.turn != bob_seat
    actions = await bot.service.storage.games.actions(game_id)
    assert [(a.seat, a.action["type"]) for a in actions[-2:]] == [
        (bob_seat, "draw"),
        (bob_seat, "replace" if act_of(place) == "rp" else "discard"),
    ]


async def test_a_player_who_left_or_was_kicked_cannot_take_the_seat_back(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock)
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    table_message, game_id = await start_table(fake, bot, alice, [bob, carol], turn_limit=LIMIT)
    table = bot.service.tables[game_id]
    await reveal_own_cards(fake, carol, table_message, table)
    bob_seat = await replace_for_missed_turns(fake, bot, clock, table_message, table, bob, [alice, carol])

    # Bob opens two offers, takes his seat back with one, then leaves for good: the other one no longer
    # gives it back.
    first, second = await offer(fake, bob, table_message), await offer(fake, bob, table_message)
    await (await fake.click(bob, first, button(first, "rc"))).answer()
    assert bob_seat not in table.replaced()
    await leave_table(fake, bob, table_message)
    await fake.wait_until(lambda: bob_seat in table.replaced(), what="Bob gone for good")
    refused = await private_answer(await fake.click(bob, second, button(second, "rc")))
    assert "cannot be taken back" in refused.text
    assert bob_seat in table.replaced() and bob_seat not in table.idle()
    again = await private_answer(await fake.click(bob, table_message, button(table_message, "op")))
    assert "computer player now plays your seat" in again.text and not again.custom_ids

    # The host kicks Carol: no offer for her either, and the service refuses her seat back.
    await (await fake.run_command(alice, "skyjo", "kick", options={"player": carol})).original()
    carol_seat = table.seat_of(carol.id)
    await fake.wait_until(lambda: carol_seat in table.replaced(), what="Carol replaced")
    answer = await private_answer(await fake.click(carol, table_message, button(table_message, "op")))
    assert "joue désormais à ta place" in answer.text and not answer.custom_ids  # Carol reads French
    try:
        await bot.service.reclaim_seat(game_id, carol.id)
    except Refused as refused_carol:
        assert refused_carol.key == "seats.error.not_idle"
    else:
        raise AssertionError("a kicked player took the seat back")
    assert carol_seat in table.replaced()


async def test_the_way_back_survives_a_restart(fake_discord: Any, skybo: Any, db_file: Path) -> None:
    """Which seats were taken for missed turns is stored with the game: after a restart the offer on
    the table's button still works."""
    fake = fake_discord
    clock = ManualClock()
    alice, bob = fake.user("alice"), fake.user("bob")
    first = bot_on(db_file, clock)
    async with fake.running(first, sync_commands=True):
        table_message, game_id = await start_table(fake, first, alice, [bob], turn_limit=LIMIT)
        table = first.service.tables[game_id]
        bob_seat = await replace_for_missed_turns(fake, first, clock, table_message, table, bob, [alice])
        offered = await offer(fake, bob, table_message)
    assert first.is_closed()

    second = await skybo(clock=ManualClock(clock.now_ms()))
    table = second.service.tables[game_id]
    assert bob_seat in table.idle() and table.missed(bob_seat) == 3
    inter = await fake.click(bob, offered, button(offered, "rc"))  # an offer made before the restart
    assert (await inter.answer()).id == offered.id and "Your seat is yours again." in offered.text
    assert bob_seat not in table.replaced() and table.missed(bob_seat) == 0
