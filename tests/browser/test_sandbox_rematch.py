"""A rematch played by clicking in the sandbox page (issue 38): Alice and Bob finish a short Skyjo game,
Alice clicks Rematch in her page, Bob reads the invitation in his and clicks "Join the rematch", Alice
starts, and both pages show the new table. With ``UPDATE_DOCS=1`` Bob's page, invited, is
docs/sandbox-rematch.png."""

from __future__ import annotations

import contextlib
import random
from typing import Any

import pytest

from bot.sandbox.server import Sandbox
from tests.e2e.conftest import play_turns, reveal_own_cards, start_table

from .conftest import docs_screenshot
from .test_sandbox import open_as, public, sandbox

pytestmark = pytest.mark.timeout(60)

__all__ = ["sandbox"]  # the fixture, shared with test_sandbox


async def test_a_rematch_is_asked_and_joined_by_clicking(browser: Any, sandbox: Sandbox) -> None:
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    fake, bot = sandbox.fake, sandbox.bot
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], score_limit=10, turn_limit=0)
    table = bot.service.tables[game_id]
    for user in (alice, bob):
        await reveal_own_cards(fake, user, table_message, table)
    await play_turns(fake, bot, game_id, table_message, [alice, bob], random.Random(3))
    await fake.wait_until(lambda: f"#{game_id}" in table_message.text, what="the final footer")

    alice_page = await open_as(browser, sandbox, "alice")
    lobby_of = lambda page: public(page, "Start")  # noqa: E731
    invited = lobby_of(alice_page).filter(has_text="click Join the rematch")
    for _ in range(30):  # a host's tables are 3 s apart in the sandbox: Alice clicks again, as one would
        await public(alice_page, "Rematch").get_by_role("button", name="Rematch", exact=True).click()
        with contextlib.suppress(PlaywrightTimeout):
            await invited.wait_for(timeout=1000)
            break
    await invited.wait_for()

    bob_page = await open_as(browser, sandbox, "bob")
    invitation = lobby_of(bob_page).filter(has_text="Bob, click Join the rematch to take your seat")
    await invitation.wait_for()
    await invitation.scroll_into_view_if_needed()
    await docs_screenshot(bob_page, "sandbox-rematch.png")
    await invitation.get_by_role("button", name="Join the rematch", exact=True).click()
    # Everyone invited is seated: the button is the lobby's ordinary Join again, in both pages.
    for page in (alice_page, bob_page):
        await lobby_of(page).get_by_role("button", name="Join", exact=True).wait_for()
        assert "click Join the rematch" not in (await lobby_of(page).inner_text())

    await lobby_of(alice_page).get_by_role("button", name="Start", exact=True).click()
    for page in (alice_page, bob_page):
        await public(page, "My grid").wait_for()
    rematch = next(t for t in bot.service.tables.values() if t.id != game_id and not t.finished)
    assert {seat.user_id for seat in rematch.stored.seats} == {alice.id, bob.id}
    assert alice_page.errors == [] and bob_page.errors == []
    assert sandbox.problems == []
