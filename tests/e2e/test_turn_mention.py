"""The "your turn" mention goes out with the turn (issue 38 item 10), not after the table's edit.

The table message is edited at most once per ``edit_interval``, carries a picture to draw and upload,
and Discord limits edits per channel (a 429 makes discord.py wait). Before issue 38 the mention was
posted at the end of that edit, about 5 s after the turn began on a busy table. Here the table's edit
is held 3 s by a 429: a mention that waited for it would not come within the test's wait.
"""

from __future__ import annotations

import random
import time
from typing import Any

from bot.clock import ManualClock
from fakecord import FakeMessage, FakeUser

from .conftest import button, open_panel, start_table, until_turn


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
    bot_now, fake_now = clock.now_ms(), fake.clock.now()

    def mentions(user: FakeUser) -> list[FakeMessage]:
        return [m for m in fake.channel_messages(channel) if m.content.startswith(f"<@{user.id}>")]

    await fake.wait_until(lambda: len(mentions(alice)) == 1, timeout=2.0, what="Alice mentioned")
    panel = await open_panel(fake, alice, table_message)
    await (await fake.click(alice, panel, button(panel, "dr"))).answer()
    # The table message's next edit is held 3 s (Discord's per-channel edit limit, say).
    fake.rate_limit("PATCH", f"/channels/{channel.id}/messages/{table_message.id}", retry_after=3.0)
    started, before = time.monotonic(), len(fake.requests)
    await (await fake.click(alice, panel, button(panel, "rp"))).answer()
    assert table.state.turn == table.seat_of(bob.id)
    # Bob's mention, and Alice's gone, well under a second after the move, and no clock moved.
    await fake.wait_until(lambda: len(mentions(bob)) == 1, timeout=2.0, what="Bob mentioned")
    await fake.wait_until(lambda: not mentions(alice), timeout=2.0, what="Alice's mention deleted")
    assert time.monotonic() - started < 1.0
    assert (clock.now_ms(), fake.clock.now()) == (bot_now, fake_now)
    posts = [
        r
        for r in fake.requests[before:]
        if r.method == "POST" and r.route == "/channels/{channel_id}/messages"
    ]
    assert len([p for p in posts if str(bob.id) in str(p.json)]) == 1  # one mention for the turn
