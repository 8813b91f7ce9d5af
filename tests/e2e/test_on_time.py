"""Clicks answered on time despite 429 and 5xx from Discord (issue 23, "Answer first, on time").

The fake's deadlines run on the wall clock here (``real_clock``): a callback that lands more than 3 s
after its click is refused (404/10062) as on Discord, and the player would see "This interaction
failed". The invariant checked everywhere: a stored move's click was answered in time (its callback
accepted by Discord: the new panel itself, type 7, since issue 40, or a deferred update when the
commit is slow: tests/e2e/test_requests.py), and the player then sees the stored state. A callback
Discord refuses for the whole window after the move was committed leaves the move stored and the
panel brought up to date through its last token (issue 40's price of one request per move).
Any ERROR log fails a test (conftest), as does any refusal of the fake the test does not expect.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest

from bot.ui import ids
from fakecord import FakeDiscord, FakeInteraction, FakeMessage

from .conftest import act_of, button, open_lobby, open_panel, start_table

pytestmark = pytest.mark.real_clock

CALLBACK = "/interactions/{interaction_id}/{token}/callback"
ALREADY_ACKNOWLEDGED = 40060


async def stored_moves(bot: Any, game_id: int) -> int:
    return len(await bot.service.storage.games.actions(game_id))


def reveal(panel: FakeMessage) -> str:
    """A face-down card of a Skyjo panel in the reveal phase."""
    return next(c for c in panel.custom_ids if act_of(c) == "rv")


def shows_version(panel: FakeMessage, version: int) -> bool:
    """The panel's move buttons are those of the game at ``version`` (what the player sees is stored)."""
    return {ids.decode(c).version for c in panel.custom_ids} == {version}  # type: ignore[union-attr]


async def assert_answered_in_place(fake: FakeDiscord, inter: FakeInteraction, panel: FakeMessage) -> None:
    shown = await inter.answer(timeout=10)
    assert shown.id == panel.id, "the move is shown on the clicked panel"
    callback = inter.callback
    # Committed well inside the window: answered by the new panel in the callback (issue 40).
    assert callback is not None and callback.type == 7, "answered by the panel itself"
    assert callback.request.clock - inter.created_at < 3.0, "the answer landed within 3 s"


@dataclass
class Duel:
    """Alice and Bob at a Skyjo table, Alice's panel open: where each fault is injected."""

    fake: FakeDiscord
    bot: Any
    alice: Any
    table_message: FakeMessage
    table: Any
    panel: FakeMessage
    before: int  # the moves stored before the click under test


async def duel(fake: FakeDiscord, skybo: Any) -> Duel:
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    panel = await open_panel(fake, alice, table_message)
    table = bot.service.tables[game_id]
    return Duel(fake, bot, alice, table_message, table, panel, await stored_moves(bot, game_id))


async def test_the_fake_answers_5xx_like_discord_before_or_after_acting(fake_discord: FakeDiscord) -> None:
    """The fault itself: 500 is Discord's JSON, 502 Cloudflare's HTML; ``applied`` acts first."""
    fake = fake_discord
    channel = fake.channel("general")
    url = f"{fake.api_base}/channels/{channel.id}/messages"
    headers = {"Authorization": f"Bot {fake.token}"}
    fake.fail("POST", "/channels/{channel_id}/messages", status=500)
    fake.fail("POST", "/channels/{channel_id}/messages", status=502, applied=True)
    async with aiohttp.ClientSession() as session:
        for text in ("not applied", "applied"):
            async with session.post(url, json={"content": text}, headers=headers) as response:
                assert response.status in (500, 502)
                body = await response.text()
                if response.status == 500:
                    assert response.content_type == "application/json" and json.loads(body)["code"] == 0
                else:
                    assert response.content_type == "text/html" and "502 Bad Gateway" in body
        async with session.post(url, json={"content": "fine"}, headers=headers) as response:
            assert response.status == 200
    assert [m.content for m in fake.channel_messages(channel)] == ["applied", "fine"]
    assert [r.status for r in fake.server_errors] == [500, 502] and not fake.rejections


@pytest.mark.parametrize(("count", "status"), [(1, 500), (2, 500), (2, 502), (3, 503)])
async def test_5xx_on_a_move_acknowledgement_is_retried_in_time(
    fake_discord: FakeDiscord, skybo: Any, count: int, status: int
) -> None:
    """Two 500s in a row: discord.py alone would retry after 1 s then 3 s, past the deadline."""
    fake = fake_discord
    d = await duel(fake, skybo)
    bot, alice, table, panel, before = d.bot, d.alice, d.table, d.panel, d.before
    game_id = table.id

    fake.fail("POST", CALLBACK, count=count, status=status)
    inter = await fake.click(alice, panel, reveal(panel))
    await assert_answered_in_place(fake, inter, panel)
    assert len(fake.server_errors) == count
    assert await stored_moves(bot, game_id) == before + 1 == table.version
    assert shows_version(panel, table.version)
    assert table.state.reveals_left[table.seat_of(alice.id)] == 1


async def test_a_500_after_the_acknowledgement_was_applied_counts_as_acknowledged(
    fake_discord: FakeDiscord, skybo: Any
) -> None:
    """Discord acted on the callback, then answered 500: the retry gets 40060, which means "done"."""
    fake = fake_discord
    d = await duel(fake, skybo)
    bot, alice, table, panel, before = d.bot, d.alice, d.table, d.panel, d.before
    game_id = table.id

    fake.fail("POST", CALLBACK, status=500, applied=True)
    inter = await fake.click(alice, panel, reveal(panel))
    await assert_answered_in_place(fake, inter, panel)  # by the attempt that landed
    await fake.wait_rejection(ALREADY_ACKNOWLEDGED)  # the bot's retry
    assert not fake.rejections
    assert await stored_moves(bot, game_id) == before + 1 == table.version
    await fake.wait_until(lambda: shows_version(panel, table.version), what="the panel of the stored state")


async def test_a_429_of_two_seconds_on_a_move_still_lands(fake_discord: FakeDiscord, skybo: Any) -> None:
    fake = fake_discord
    d = await duel(fake, skybo)
    bot, alice, table, panel, before = d.bot, d.alice, d.table, d.panel, d.before
    game_id = table.id

    # The 429 asks to wait until 2 s after the click, however long the bot took to make its first try
    # (on a loaded machine that try came over a second late, and a fixed wait of 2 s then ended past
    # the 3 s: run BE).
    until = fake.clock.now() + 2.0
    fake.rate_limit("POST", CALLBACK, retry_until=until)
    inter = await fake.click(alice, panel, reveal(panel))
    await assert_answered_in_place(fake, inter, panel)
    assert inter.callback is not None and inter.callback.request.clock >= until  # waited
    assert await stored_moves(bot, game_id) == before + 1 == table.version
    assert shows_version(panel, table.version)


async def test_an_answer_that_cannot_land_in_time_leaves_the_move_stored_and_the_panel_up_to_date(
    fake_discord: FakeDiscord, skybo: Any
) -> None:
    """A 429 asking for 3.5 s: no retry can land in time. The move was committed before its answer
    (issue 40: one callback carries the new panel), so it stays stored; the click fails for Discord,
    and the presenter shows the stored state on the panel through the token of its opening click.
    (Before issue 40 the click was acknowledged first and such a move was never stored.)"""
    fake = fake_discord
    d = await duel(fake, skybo)
    bot, alice, table, panel, before = d.bot, d.alice, d.table, d.panel, d.before
    game_id = table.id

    fake.rate_limit("POST", CALLBACK, retry_after=3.5)
    inter = await fake.click(alice, panel, reveal(panel))
    await fake.wait_until(lambda: fake.rate_limited, what="the 429")
    await asyncio.sleep(3.6)  # past Discord's deadline and the retry_after: the bot sent nothing more
    assert not inter.acknowledged and len(inter.requests) == 1
    assert await stored_moves(bot, game_id) == before + 1 == table.version
    await fake.wait_until(lambda: shows_version(panel, table.version), what="the panel of the stored state")
    # The player clicks again: it works.
    again = await fake.click(alice, panel, reveal(panel))
    await assert_answered_in_place(fake, again, panel)
    assert await stored_moves(bot, game_id) == before + 2


async def test_a_slow_move_whose_acknowledgement_cannot_land_is_shown_through_the_last_token(
    fake_discord: FakeDiscord, skybo: Any
) -> None:
    """The race's other miss (``Answers.race``): the channel lock is held 2.5 s by another commit, so
    the move is acknowledged at ANSWER_BY, and that acknowledgement meets a 429 of 3.5 s: it cannot
    land. The commit, under way, is let finish; the click fails for Discord, and the panel is brought
    up to date through the token of the click that opened it (the answer told the followed panels it
    missed)."""
    fake = fake_discord
    d = await duel(fake, skybo)
    bot, alice, table, panel, before = d.bot, d.alice, d.table, d.panel, d.before
    game_id = table.id

    fake.rate_limit("POST", CALLBACK, retry_after=3.5)
    async with bot.service.lock(table.channel_id):
        inter = await fake.click(alice, panel, reveal(panel))
        await fake.wait_until(lambda: fake.rate_limited, what="the acknowledgement's 429")
        await asyncio.sleep(max(0.0, 2.5 - (fake.clock.now() - inter.created_at)))
        assert table.version == before, "nothing stored while the lock is held"
    await fake.wait_until(lambda: shows_version(panel, before + 1), what="the panel of the stored move")
    assert await stored_moves(bot, game_id) == before + 1 == table.version
    await asyncio.sleep(max(0.0, 3.6 - (fake.clock.now() - inter.created_at)))  # past the deadline
    assert not inter.acknowledged and len(inter.requests) == 1, "the bot sent nothing more for it"
    # The player clicks again: it works.
    again = await fake.click(alice, panel, reveal(panel))
    await assert_answered_in_place(fake, again, panel)
    assert await stored_moves(bot, game_id) == before + 2


async def test_an_applied_500_on_my_grid_shows_the_panel_once(fake_discord: FakeDiscord, skybo: Any) -> None:
    """Open-panel answers in one request (nothing to store); its applied 500 made discord.py's retry
    fail with 40060 and the click log an ERROR."""
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = bot.service.tables[game_id]

    fake.fail("POST", CALLBACK, status=500, applied=True)
    inter = await fake.click(alice, table_message, button(table_message, "op"))
    panel = await inter.original(timeout=10)
    assert panel.ephemeral and panel.visible_to == alice.id and shows_version(panel, table.version)
    await fake.wait_rejection(ALREADY_ACKNOWLEDGED)  # the bot's retry: the panel was there already
    await bot.presenter.flush()
    assert not fake.rejections and len(inter.messages) == 1, "one panel, no second answer"
    # It is a working panel, followed by the bot like any other.
    move = await fake.click(alice, panel, reveal(panel))
    await assert_answered_in_place(fake, move, panel)


async def test_5xx_and_429_on_lobby_clicks(fake_discord: FakeDiscord, skybo: Any) -> None:
    """Join after an applied 502, Add a computer after two 500s, Start after a 429 of 2 s."""
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    lobby = await open_lobby(fake, alice)

    def act(name: str) -> str:
        return next(c for c in lobby.custom_ids if c.endswith(f":{name}"))

    fake.fail("POST", CALLBACK, status=502, applied=True)
    join = await fake.click(bob, lobby, act("jn"))
    await join.response(timeout=10)
    await fake.wait_until(lambda: "Bob" in lobby.text, what="Bob in the lobby")
    assert [r.code for r in fake.take_rejections()] == [ALREADY_ACKNOWLEDGED]

    fake.fail("POST", CALLBACK, count=2, status=500)
    add = await fake.click(alice, lobby, act("ai"))
    await add.response(timeout=10)
    await fake.wait_until(lambda: "🤖" in lobby.text, what="a computer in the lobby")

    fake.rate_limit("POST", CALLBACK, retry_until=fake.clock.now() + 2.0)  # 2 s after the click
    start = await fake.click(alice, lobby, act("st"))
    await start.response(timeout=10)
    game_id = await fake.wait_until(
        lambda: next((t.id for t in bot.service.tables.values() if t.stored.message_id == lobby.id), None),
        what="the game",
    )
    for inter in (join, add, start):
        assert inter.callback is not None and inter.callback.request.clock - inter.created_at < 3.0
    assert len(bot.service.tables[game_id].stored.seats) == 3


async def test_an_applied_500_on_skyjo_new_posts_one_lobby(fake_discord: FakeDiscord, skybo: Any) -> None:
    """Slash commands get the same retry (the lobby is stored before its message: it must not be
    cancelled because the retry of an answer that landed got 40060)."""
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    fake.fail("POST", CALLBACK, status=500, applied=True)
    inter = await fake.run_command(alice, "skyjo", "new")
    lobby = await inter.original(timeout=10)
    await fake.wait_rejection(ALREADY_ACKNOWLEDGED)  # the bot's retry: the lobby was posted already
    assert not lobby.ephemeral and any(c.endswith(":jn") for c in lobby.custom_ids)
    await (await fake.click(bob, lobby, lobby.custom_ids[0])).response()
    await fake.wait_until(lambda: "Bob" in lobby.text, what="Bob in the lobby")
    stored = await bot.service.lobbies.open_in_channel(lobby.channel_id)
    assert stored is not None and stored.message_id == lobby.id and stored.status == "open"


async def test_every_stored_move_was_acknowledged_under_random_faults(
    fake_discord: FakeDiscord, skybo: Any
) -> None:
    """Moves of a whole reveal phase and more, each callback hit by a random fault (or none)."""
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=0)
    table = bot.service.tables[game_id]
    rng = random.Random(23)
    faults = [
        ("none", {}),
        ("500", {"status": 500}),
        ("2x502", {"status": 502, "count": 2}),
        ("applied 500", {"status": 500, "applied": True}),
        ("applied 504", {"status": 504, "applied": True}),
        ("429 1 s", {}),
    ]
    panels = {u.id: await open_panel(fake, u, table_message) for u in (alice, bob)}
    clicks: list[tuple[FakeInteraction, int]] = []
    started = time.monotonic()
    for _ in range(10):
        to_act = [u for u in (alice, bob) if table.seat_of(u.id) in table.state.seats_to_act()]
        if table.state.phase != "reveal" or not to_act:
            break
        user = rng.choice(to_act)
        panel = panels[user.id]
        name, fault = rng.choice(faults)
        if name == "429 1 s":
            fake.rate_limit("POST", CALLBACK, retry_until=fake.clock.now() + 1.0)  # 1 s after the click
        elif fault:
            fake.fail("POST", CALLBACK, **fault)
        before = await stored_moves(bot, game_id)
        inter = await fake.click(user, panel, reveal(panel))
        await assert_answered_in_place(fake, inter, panel)
        if fault.get("applied"):  # the panel shows with the attempt that landed: wait for the retry
            await fake.wait_rejection(ALREADY_ACKNOWLEDGED)
        assert await stored_moves(bot, game_id) == before + 1, name
        clicks.append((inter, before + 1))
        assert shows_version(panel, table.version), name
    fake.take_rejections(ALREADY_ACKNOWLEDGED)  # the retries after an applied 5xx
    assert len(clicks) >= 4 and time.monotonic() - started < 20
    # The stored actions are exactly the acknowledged clicks, in order.
    actions = await bot.service.storage.games.actions(game_id)
    assert len(actions) == table.version
    assert all(inter.acknowledged for inter, _ in clicks)
