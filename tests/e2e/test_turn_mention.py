"""The "your turn" mention goes out with the turn (issue 38 item 10), not after the table's edit.

The table message is edited at most once per ``edit_interval``, carries a picture to draw and upload,
and Discord limits edits per channel (a 429 makes discord.py wait). Before issue 38 the mention was
posted at the end of that edit, about 5 s after the turn began on a busy table. Here the table's edit
is held on its way (``FakeDiscord.hold``): a mention that waited for it would not come while it is.
"""

from __future__ import annotations

import random
from typing import Any

from bot.clock import ManualClock
from bot.ui import ids
from bot.ui.followed_panels import LOOKING_MS
from fakecord import FakeMessage, FakeUser

from .conftest import GAME_ACTS, act_of, button, choose, open_panel, start_table, until_turn


async def held_edit(fake: Any, path: str, since: int) -> None:
    """Waits until the bot sent the table's edit (``path``) that the test holds, and checks that no such
    edit since request ``since`` was answered."""
    edits = lambda: [r for r in fake.requests[since:] if r.method == "PATCH" and r.path == path]  # noqa: E731
    await fake.wait_until(edits, what="the table's edit, held on its way")
    assert [r.status for r in edits()] == [0]


async def test_the_turn_mention_is_posted_at_once_when_the_turn_passes_to_a_human(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    clock = ManualClock()  # the bot's deadlines: never advanced here
    bot = await skybo(clock=clock)
    alice, bob = fake.user("alice"), fake.user("bob")
    channel = fake.channel("general")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=0)
    table = await until_turn(fake, bot, game_id, table_message, alice, random.Random(3))

    def mentions(user: FakeUser) -> list[FakeMessage]:
        return [m for m in fake.channel_messages(channel) if m.content.startswith(f"<@{user.id}>")]

    # Alice clicked her panel moments ago: she is looking at it, its edit tells her (issue 40).
    await bot.presenter.flush()
    assert not mentions(alice) and not mentions(bob)
    clock.advance(LOOKING_MS / 1000)  # a minute without a click: nobody is looking any more
    bot_now, fake_now = clock.now_ms(), fake.clock.now()
    panel = await open_panel(fake, alice, table_message)
    await (await fake.click(alice, panel, button(panel, "dr"))).answer()
    # The table message's next edit is held on its way (Discord's per-channel edit limit, say).
    table_edit = f"/channels/{channel.id}/messages/{table_message.id}"
    hold, before = fake.hold("PATCH", table_edit), len(fake.requests)
    await (await fake.click(alice, panel, button(panel, "rp"))).answer()
    assert table.state.turn == table.seat_of(bob.id)
    # Bob's mention while the table's edit is still on its way, and no clock moved.
    await fake.wait_until(lambda: len(mentions(bob)) == 1, what="Bob mentioned")
    await held_edit(fake, table_edit, before)  # sent, not answered: the mention did not wait for it
    hold.release()
    assert (clock.now_ms(), fake.clock.now()) == (bot_now, fake_now)
    posts = [
        r
        for r in fake.requests[before:]
        if r.method == "POST" and r.route == "/channels/{channel_id}/messages"
    ]
    assert len([p for p in posts if str(bob.id) in str(p.json)]) == 1  # one mention for the turn
    # Bob plays his turn a minute later: Alice, who has not clicked since, is mentioned at once and
    # Bob's mention is deleted.
    clock.advance(LOOKING_MS / 1000)
    bobs = await open_panel(fake, bob, table_message)
    await (await fake.click(bob, bobs, button(bobs, "dr"))).answer()
    hold, before = fake.hold("PATCH", table_edit), len(fake.requests)
    await (await fake.click(bob, bobs, button(bobs, "rp"))).answer()
    await fake.wait_until(lambda: len(mentions(alice)) == 1, what="Alice mentioned")
    await fake.wait_until(lambda: not mentions(bob), what="Bob's mention deleted")
    await held_edit(fake, table_edit, before)  # sent, not answered: the mention did not wait for it
    hold.release()


async def test_no_mention_for_a_player_looking_at_the_panel_the_bot_follows(
    fake_discord: Any, skybo: Any
) -> None:
    """Alice and Bob each keep one panel and click it: no turn mention is posted, and each panel,
    edited by the bot when the other moves, offers its player a move when their turn comes."""
    fake = fake_discord
    bot = await skybo(clock=ManualClock())
    alice, bob = fake.user("alice"), fake.user("bob")
    channel = fake.channel("general")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=0)
    table = bot.service.tables[game_id]
    panels = {u.id: await open_panel(fake, u, table_message) for u in (alice, bob)}
    before, rng, moves = len(fake.requests), random.Random(4), 0
    while table.turns < 4 and moves < 40:
        await bot.presenter.flush()
        to_act = table.state.seats_to_act()
        user = next(u for u in (alice, bob) if table.seat_of(u.id) in to_act)
        custom_id = choose(panels[user.id], rng)
        # The panel shows the game as it stands and offers a move (a grid card, Draw or a mode).
        assert custom_id is not None and act_of(custom_id) in {*GAME_ACTS, "md"}, custom_id
        if table.state.phase == "play":  # (the other's reveals change nothing a panel says)
            assert ids.decode(custom_id).version == table.version  # type: ignore[union-attr]
        shown = await (await fake.click(user, panels[user.id], custom_id)).answer()
        assert shown.id == panels[user.id].id
        moves += 1
    await bot.presenter.flush()
    posts = [
        r
        for r in fake.requests[before:]
        if r.method == "POST" and r.route == "/channels/{channel_id}/messages"
    ]
    assert table.turns >= 4 and posts == [], [p.json for p in posts]
    assert not [m for m in fake.channel_messages(channel) if m.content.startswith("<@")]
