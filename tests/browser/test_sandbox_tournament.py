"""A small tournament in the sandbox (issue 41 item 4): the owner organises, the members join.

Alice (the server's owner) opens a Swiss tournament of one round at tables of two with the slash
command box, Bob and Chloé join by clicking, Alice joins too and starts it: the round's table opens in
a thread of its own (two of them, mentioned there), the third has the bye, and the standings message
lists the table with a link to its thread. Nobody plays: the table's turn timers run on the
bot's manual clock, so the absent players' turns are covered, computer players take the seats and play
the game to its end in a few seconds. Its result comes back in the channel, its thread is archived, the
standings are edited and the final message names the winner.

A season runs meanwhile (``/skybo season start`` before, ``/skybo season end`` after): the table's game
counts for it, and the podium is posted with its picture.

Pictures, with ``UPDATE_DOCS=1`` only, for docs/discord.md's "Tournaments": the sign-up
(``tournament-signup.png``), the table in its thread (``tournament-thread.png``) and the standings with
the final message (``tournament-standings.png``); for "Seasons", the podium as posted
(``season-podium-sandbox.png``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.client import BotTuning, create_bot
from bot.clock import ManualClock
from bot.sandbox.server import Sandbox
from bot.storage.tournaments import FINISHED

from .conftest import screenshot
from .test_sandbox import open_as, public, what_the_sandbox_saw

pytestmark = pytest.mark.timeout(120)

LIMIT = 30  # the tables' turn limit (seconds of the bot's manual clock)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def sandbox(tmp_path: Path, clock: ManualClock) -> AsyncIterator[Sandbox]:
    database = tmp_path / "data" / "sandbox.sqlite3"
    database.parent.mkdir()
    tuning = BotTuning(ai_delay=0.0, round_delay=30.0, edit_interval=0.0, picture_processes=0, clock=clock)
    running = Sandbox(lambda: create_bot(database_path=database, tuning=tuning), port=0)
    await running.start()
    try:
        yield running
    finally:
        print(what_the_sandbox_saw(running))  # shown when the test failed
        await running.stop()


async def new_tournament(page: Any) -> None:
    """``/skybo tournament new`` typed in the message box, its options filled in the form."""
    await page.locator("#composer-input").fill("/skybo tournament new")
    await page.locator(".suggestion.active").wait_for()
    await page.locator("#composer-input").press("Enter")
    form = page.locator("#command-form")
    await form.locator('[data-option="game"] select').select_option(label="Skyjo")
    await form.locator('[data-option="format"] select').select_option(label="Swiss")
    await form.locator('[data-option="seats"] input').fill("2")
    await form.locator('[data-option="rounds"] input').fill("1")
    await form.locator('[data-option="turn_limit"] select').select_option(label="30 s")
    await form.locator(".send").click()


async def command_with(page: Any, line: str, **options: str) -> None:
    """``line`` typed in the message box, its text options filled in the form, sent."""
    await page.locator("#composer-input").fill(line)
    await page.locator(".suggestion.active").wait_for()
    await page.locator("#composer-input").press("Enter")
    for name, value in options.items():
        await page.locator(f'#command-form [data-option="{name}"] input').fill(value)
    await page.locator("#command-form .send").click()


async def click(page: Any, message: Any, label: str) -> None:
    await message.get_by_role("button", name=label, exact=True).click()


async def settle(sandbox: Sandbox, clock: ManualClock, tournament_id: int, timeout: float = 60.0) -> None:
    """The turn timers advanced until the tournament is over (no one clicks: computers finish it). About
    5 s and 40-70 advances beside a CPU hog; more than 30 s in a loaded run (run BC): ``timeout`` is
    60 s, and running out says where each table stood."""
    began = time.monotonic()
    advances = 0
    while (view := await sandbox.bot.service.tournament_view(tournament_id)).tournament.status != FINISHED:
        if time.monotonic() - began > timeout:
            live = {
                game_id: (
                    table.state.round,
                    table.state.phase,
                    table.version,
                    table.needs_reload,
                    table.asleep,
                )
                for game_id, table in sandbox.bot.service.tables.items()
            }
            rows = [(row.game_id, row.status) for row in view.tables]
            raise AssertionError(
                f"not settled by its timers: {advances} advances, tables {rows}, live {live}"
            )
        clock.advance(LIMIT + 1)
        advances += 1
        await asyncio.sleep(0.05)
    print(f"settled in {time.monotonic() - began:.1f} s, {advances} advances")


async def test_the_owner_runs_a_small_tournament_the_members_join(
    browser: Any, sandbox: Sandbox, clock: ManualClock, tmp_path: Path
) -> None:
    alice = await open_as(browser, sandbox, "alice")
    bob = await open_as(browser, sandbox, "bob")
    chloe = await open_as(browser, sandbox, "chloe")

    # A season runs meanwhile: the tournament's games count for it, and its end posts the podium.
    await command_with(alice, "/skybo season start", name="Spring")
    await alice.locator(".message.ephemeral").filter(has_text="Season Spring has started").wait_for()
    await new_tournament(alice)
    signup = public(alice, "Join").filter(has_text="Skyjo")
    await signup.wait_for()
    (held,) = await sandbox.bot.service.storage.tournaments.open()
    assert held.organiser_id == sandbox.fake.user("alice").id

    # Bob and Chloé join by clicking (each answered privately, in their language); Alice joins too.
    await click(bob, public(bob, "Join"), "Join")
    await bob.locator(".message.ephemeral").filter(has_text="You are in the tournament.").wait_for()
    await click(chloe, public(chloe, "Join"), "Join")
    await chloe.locator(".message.ephemeral").filter(has_text="tu fais partie du tournoi").wait_for()
    await click(alice, signup, "Join")
    await signup.filter(has_text="(3/").filter(has_text="Chloé").wait_for()
    await screenshot(alice, "tournament-signup.png", tmp_path, element=signup)

    # Only the organiser starts it: Bob's click is refused privately.
    await click(bob, public(bob, "Start"), "Start")
    await bob.locator(".message.ephemeral").filter(has_text="Only the tournament's organiser").wait_for()
    await click(alice, signup, "Start")
    standings = alice.locator(".message:not(.ephemeral)").filter(has_text="Standings").last
    await standings.filter(has_text="bye").wait_for()

    # The table opens in a thread of #general for two of them; the third has the bye (the pairing's
    # seeded draw of lots decides who, all being level).
    view = await sandbox.bot.service.tournament_view(held.id)
    (table,) = [t for t in view.round_tables(1) if t.channel_id is not None]
    named = (("alice", alice), ("bob", bob), ("chloe", chloe))
    pages = {sandbox.fake.user(name).id: page for name, page in named}
    assert len(set(table.players)) == 2 and set(table.players) <= set(pages)
    player = next(pages[p] for p in table.players if pages[p] is not alice)  # alice's page stays in #general
    entry = player.locator(f'#channels .channel.thread[data-id="{table.channel_id}"]')
    await entry.wait_for()
    await entry.click()
    my_grid = player.get_by_role("button", name="My grid", exact=True)  # public: the server's language
    await player.locator(".message:not(.ephemeral)").filter(has=my_grid).wait_for()
    await player.locator(".message").filter(has_text="round 1").first.wait_for()
    await screenshot(player, "tournament-thread.png", tmp_path)

    # Nobody plays: the timers settle the table, the standings follow, the final names the winner.
    await settle(sandbox, clock, held.id)
    final = alice.locator(".message:not(.ephemeral)").filter(has_text="/skyjo replay").last
    await final.wait_for()
    view = await sandbox.bot.service.tournament_view(held.id)
    names = view.names()
    assert (
        view.tournament.winner_id is not None and names[view.tournament.winner_id] in await final.inner_text()
    )
    assert sum(line.points for line in view.standings) == 4  # the bye's 2, the table's 2 (or 1 and 1)
    for line in view.standings:  # the standings message edited to the final points
        await standings.filter(has_text=f"{names[line.player]}: {line.points} pts").wait_for()
    await alice.locator(f'#channels .channel.thread.archived[data-id="{table.channel_id}"]').wait_for()
    await screenshot(alice, "tournament-standings.png", tmp_path)

    # The season ends: its podium (the table's two players, rated) is posted in #general.
    await command_with(alice, "/skybo season end")
    podium = alice.locator(".message:not(.ephemeral)").filter(has_text="Season Spring is over").last
    await podium.wait_for()
    await alice.wait_for_function(
        "[...document.querySelectorAll('.message img')].some(i => i.src.includes('podium') && i.complete"
        " && i.naturalWidth > 0)"
    )
    for player in table.players:
        assert f"@{names[player]}" in await podium.inner_text()
    await screenshot(alice, "season-podium-sandbox.png", tmp_path, element=podium)
    for page in (alice, bob, chloe):
        assert page.errors == []
    assert sandbox.problems == []
