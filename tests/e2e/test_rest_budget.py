"""One application, one rate limit (bot/ui/rest_budget.py): the bot's bot-token requests (table edits,
mentions, deletes) stay within its budget however fast people click, the public table catches up by
coalescing its edits, and every click is still answered at once through its interaction."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.ui.rest_budget import share

from .conftest import play_turns, start_table

RATE = 4.0  # requests per second: small, so a quick game presses against it


def test_a_fleet_process_takes_its_share_of_the_budget() -> None:
    assert share(40.0, None, None) == 40.0  # every shard here
    assert share(40.0, 2, 2) == 40.0
    assert share(40.0, 1, 2) == 20.0
    assert share(40.0, 1, 4) == 10.0


@pytest.mark.real_clock
async def test_bot_token_requests_stay_within_the_budget_while_clicks_are_answered(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo(rest_per_second=RATE)
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], score_limit=40, computers=1)
    first = len(fake.requests)
    table = bot.service.tables[game_id]
    moves_before = table.version
    # Every click is answered through its interaction at once (play_turns waits for each answer).
    clicks = await play_turns(
        fake,
        bot,
        game_id,
        table_message,
        [alice, bob],
        random.Random(2),
        until=lambda: table.version >= moves_before + 45,
    )
    moves = table.version - moves_before
    await bot.presenter.flush()
    budgeted = [
        r for r in fake.requests[first:] if not (r.route or r.path).startswith(("/interactions", "/webhooks"))
    ]
    times = sorted(r.clock for r in budgeted)
    # Within any second: at most a second's worth of tokens saved up, plus a second's refill.
    busiest = max(sum(1 for u in times if t <= u < t + 1.0) for t in times)
    assert busiest <= 2 * RATE, (busiest, [r.key for r in budgeted])
    assert bot.rest_budget is not None and bot.rest_budget.waited > 0  # the budget did bind
    # The table was edited less often than the game moved: edits coalesced while they waited. (How much
    # less depends on how fast the clicks come, so on the machine's speed: a loaded machine clicks
    # slower and the budget, measured in seconds, lets more edits through. Only fewer is asserted.)
    edits = [
        r
        for r in budgeted
        if r.method == "PATCH" and r.route == "/channels/{channel_id}/messages/{message_id}"
    ]
    assert clicks > 20 and 0 < len(edits) < moves, (clicks, moves, len(edits))
    # ... and the public table caught up: its last edit came after the answer to the last move (a
    # move marks the table to be drawn again; flush waited for that drawing).
    requests = fake.requests[first:]
    last_answer = max(i for i, r in enumerate(requests) if (r.route or "").startswith("/webhooks"))
    last_edit = max(i for i, r in enumerate(requests) if r in edits)
    assert last_edit > last_answer
