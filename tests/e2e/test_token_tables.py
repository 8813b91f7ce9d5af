"""Tables where the bot is not a member (issue 49, bot/ui/token_tables.py), end to end through the fake.

Skybo installed by a user only: in a group DM, and in a server where only the host installed it. The
lobby is the slash command's own answer, every click on it is answered by updating that message, the
panels are ephemeral follow-ups, and the table is shown through the freshest token. The fake's
recorded requests show that the bot never used a route it may not use there (no ``/channels/...``
call for that channel), that nothing was refused, and never more than 5 follow-ups per token. A table
left without a click sleeps before its last token dies (its timer paused, nothing lost), one click on
it wakes it; a restart leaves it asleep until the next click.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from bot.client import create_bot
from bot.clock import ManualClock
from bot.service.types import ASLEEP
from fakecord import USER_INSTALL_FOLLOWUP_LIMIT, FakeDiscord, FakeMessage, FakeUser

from .conftest import FAST, act_of, bot_on, button, enabled_buttons, play_turns, start_table
from .skipbo_helpers import Clicker, start_skipbo

pytestmark = pytest.mark.fake_discord(integration_types=(0, 1))


async def open_panel_here(fake: Any, user: FakeUser, table_message: FakeMessage) -> FakeMessage:
    """My panel, from a table where the bot is not a member: the click updates the table message (a
    deferred update: its @original is the table) and the panel is an ephemeral follow-up."""
    inter = await fake.click(user, table_message, button(table_message, "op"))
    record = await inter.response()
    assert record.type == 6 and record.message is not None and record.message.id == table_message.id
    panel: FakeMessage = await inter.followup(0)
    assert panel.ephemeral and panel.visible_to == user.id
    return panel


def assert_only_interaction_routes(fake: FakeDiscord, channel_id: int) -> None:
    """No request on the place's channel routes, nothing refused, at most 5 follow-ups per token."""
    channel_routes = [r.key for r in fake.requests if r.path.startswith(f"/channels/{channel_id}")]
    assert channel_routes == []
    assert [r.key for r in fake.requests if r.status >= 400 and not r.injected] == []
    assert max(len(inter.followups) for inter in fake.interactions.values()) <= USER_INSTALL_FOLLOWUP_LIMIT
    webhook_edits = [r for r in fake.requests if r.method == "PATCH" and r.path.startswith("/webhooks/")]
    assert webhook_edits, "the table is shown through interaction tokens"


async def test_a_whole_skyjo_game_in_a_group_dm_of_three(fake_discord: FakeDiscord, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    trio = fake.add_group_dm(alice, bob, carol, name="friends")
    fake.install_for_user(alice)  # only Alice installed Skybo: Bob and Carol click her messages
    table_message, game_id = await start_table(
        fake, bot, alice, [bob], channel=trio, score_limit=10, computers=1, turn_limit=0
    )
    table = bot.service.tables[game_id]
    assert table.stored.off_server and table.stored.guild_id is None and table.stored.channel_id == trio.id
    lobby = await bot.service.lobbies.get(int(table.stored.meta["lobby_id"]))
    assert lobby.off_server
    assert not table_message.ephemeral and table_message.channel_id == trio.id
    assert {act_of(c) for c in table_message.custom_ids} == {"op", "ru", "lv"}

    clicks = await play_turns(
        fake, bot, game_id, table_message, [alice, bob], random.Random(3), opener=open_panel_here
    )
    assert clicks > 5
    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="Rematch")
    assert "Final standings" in table_message.text
    stored = await bot.service.ledger.get_game(game_id)
    assert stored.status == "finished" and stored.off_server
    # Rematch: the new lobby is a public follow-up of Bob's click, shown through that click's token.
    inter = await fake.click(bob, table_message, button(table_message, "rm"))
    rematch = await inter.followup(0)
    assert not rematch.ephemeral and "Bob" in rematch.text and "🤖" in rematch.text
    join = next(c for c in rematch.custom_ids if c.endswith(":jn"))
    await (await fake.click(carol, rematch, join)).response()
    await fake.wait_until(lambda: "Carol" in rematch.text, what="Carol seated in the rematch")
    await bot.tokens.flush()
    assert_only_interaction_routes(fake, trio.id)


async def test_a_whole_skipbo_game_where_only_the_host_installed_skybo(
    fake_discord: FakeDiscord, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo()
    carol, bob = fake.user("carol"), fake.user("bob")
    away = await fake.add_guild("Away", channels=["away"], members=[carol, bob], bot=False)
    room = fake.channel("away")
    fake.install_for_user(carol)  # Carol (French) only: the bot is not a member of the server
    table_message, game_id = await start_skipbo(
        fake, bot, carol, [bob], channel=room, stock_size=5, turn_limit=0
    )
    table = bot.service.tables[game_id]
    assert table.stored.off_server and table.stored.guild_id == away.id  # its shard owns it
    clicker = Clicker(fake, bot, game_id, table_message, [carol, bob], random.Random(11))
    clicker.opener = open_panel_here
    moves = await clicker.play()
    assert moves > 5
    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="Rematch")
    assert "La partie est finie" in table_message.text or "Classement final" in table_message.text
    await bot.tokens.flush()
    assert_only_interaction_routes(fake, room.id)


async def test_where_discord_answers_privately_only_no_table_is_opened(
    fake_discord: FakeDiscord, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo()
    alice = fake.user("alice")
    away = await fake.add_guild("Strict", channels=["strict"], members=[alice], bot=False)
    fake.install_for_user(alice)
    await fake.set_external_apps(away, False)
    answer = await (await fake.run_command(alice, "skyjo", "new", channel=fake.channel("strict"))).answer()
    assert answer.ephemeral and "privately only" in answer.text
    assert await bot.service.lobbies.list_open() == []


async def test_a_table_left_16_minutes_sleeps_then_one_click_wakes_it_even_after_a_restart(
    fake_discord: FakeDiscord, db_file: Any
) -> None:
    fake = fake_discord
    clock = ManualClock()
    alice, bob = fake.user("alice"), fake.user("bob")
    duo = fake.add_group_dm(alice, bob)
    fake.install_for_user(alice)
    limit = 900  # 15 minutes a turn: the table sleeps (at 14) before its turn's time is out
    async with fake.running(bot_on(db_file, clock), sync_commands=True) as bot:
        table_message, game_id = await start_table(
            fake, bot, alice, [bob], channel=duo, score_limit=100, turn_limit=limit
        )
        table = bot.service.tables[game_id]
        old_panel = await open_panel_here(fake, alice, table_message)
        version, timer = table.version, table.timer()
        assert timer is not None and timer["what"] == "turn" and not table.asleep

        # 14 minutes without a click (both clocks: Discord's tokens, the bot's timers): before the last
        # token dies the table's last edit says it sleeps, the turn's timer paused with what it had left.
        clock.advance(14 * 60 + 1)
        fake.clock.advance(14 * 60 + 1)
        await fake.wait_until(lambda: table.asleep, what="the table asleep")
        await fake.wait_until(lambda: "This table sleeps" in table_message.text, what="the table saying so")
        paused = table.timer()
        assert paused is not None and 0 < paused["paused_left"] <= 60_000
        clock.advance(2 * 60)
        fake.clock.advance(2 * 60)  # 16 minutes: no token left, the turn's 15 minutes are past
        assert ("game", game_id) not in bot.service.sweeper.due  # paused: nothing will fire
        assert table.version == version and table.missed(0) == table.missed(1) == 0
        assert ASLEEP in table.stored.meta and "This table sleeps" in table_message.text

        # A move on an old panel cannot show the table (its token is the panel's): refused with a word.
        move = await fake.click(alice, old_panel, button(old_panel, "rv"))
        refusal = await move.answer()
        assert refusal.ephemeral and "click on the table's message wakes it" in refusal.text
        assert table.version == version and table.asleep

        # One click on the table wakes it: drawn again through the new token, the timer running again.
        panel = await open_panel_here(fake, alice, table_message)
        assert panel.custom_ids
        await fake.wait_until(lambda: not table.asleep, what="the table awake")
        await fake.wait_until(lambda: "This table sleeps" not in table_message.text, what="drawn awake")
        assert ("game", game_id) in bot.service.sweeper.due
        woken = table.timer()
        assert woken is not None and woken["due"] - clock.now_ms() == max(30_000, paused["paused_left"])
        assert table.version == version  # nothing lost, nothing played meanwhile
        await bot.tokens.flush()
    # A restart: the new process finds the table asleep (no token survived), one click resumes it.
    tuning = dataclasses.replace(FAST, clock=clock)
    async with fake.running(create_bot(database_path=db_file, tuning=tuning), sync_commands=True) as again:
        back = again.service.tables[game_id]
        assert back.asleep and ("game", game_id) not in again.service.sweeper.due
        await open_panel_here(fake, bob, table_message)
        await fake.wait_until(lambda: not back.asleep, what="woken after the restart")
        rng = random.Random(2)
        before = back.version
        await play_turns(
            fake, again, game_id, table_message, [alice, bob], rng, opener=open_panel_here,
            until=lambda: back.version >= before + 3,
        )  # fmt: skip
        await again.tokens.flush()
    assert_only_interaction_routes(fake, duo.id)


async def test_a_panel_opened_from_the_table_follows_the_game(fake_discord: FakeDiscord, skybo: Any) -> None:
    """The panel is a follow-up of the click on the table: the bot still edits it (through that click's
    token, by its message id) when the turn comes to its player."""
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    duo = fake.add_group_dm(alice, bob)
    fake.install_for_user(bob)
    table_message, game_id = await start_table(fake, bot, bob, [alice], channel=duo, turn_limit=0)
    table = bot.service.tables[game_id]
    for user in (alice, bob):
        panel = await open_panel_here(fake, user, table_message)
        while table.state.phase == "reveal" and table.seat_of(user.id) in table.state.seats_to_act():
            await (await fake.click(user, panel, button(panel, "rv"))).answer()
    first = table.state.turn
    waiting, playing = (alice, bob) if table.seat_of(bob.id) == first else (bob, alice)
    later = await open_panel_here(fake, waiting, table_message)
    assert not any(act_of(c["custom_id"]) == "dr" for c in enabled_buttons(later))
    mover = await open_panel_here(fake, playing, table_message)
    await (await fake.click(playing, mover, button(mover, "dr"))).answer()
    await (await fake.click(playing, mover, button(mover, "rp", 0))).answer()
    await fake.wait_until(lambda: table.state.turn != first, what="the turn passed")
    await fake.wait_until(
        lambda: any(act_of(c["custom_id"]) == "dr" for c in enabled_buttons(later)), what="the panel followed"
    )
    assert_only_interaction_routes(fake, duo.id)
