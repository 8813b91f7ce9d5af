"""A table set up with the lobby's form, by clicking in the sandbox page (issue 49): Alice opens a Skyjo
lobby with ``/skyjo new`` and no option, clicks Set up…, picks the Voyage edition, two computers at the
hard level in the form the page shows (radio groups, drop-down lists), submits; then More options…,
ticks row clearing and picks 3 columns. The lobby says each choice. With ``UPDATE_DOCS=1`` the open
form is docs/sandbox-setup-form.png."""

from __future__ import annotations

from typing import Any

import pytest

from bot.sandbox.server import Sandbox

from .conftest import docs_screenshot
from .test_sandbox import open_as, public, run_command, sandbox

pytestmark = pytest.mark.timeout(60)

__all__ = ["sandbox"]  # the fixture, shared with test_sandbox


async def test_a_lobby_is_set_up_with_its_form_by_clicking(browser: Any, sandbox: Sandbox) -> None:
    page = await open_as(browser, sandbox, "alice")
    await run_command(page, "/skyjo new")
    lobby = public(page, "Set up…")
    await lobby.wait_for()
    assert "Edition: classic" in await lobby.inner_text()

    await lobby.get_by_role("button", name="Set up…", exact=True).click()
    dialog = page.locator("dialog#modal")
    await dialog.get_by_text("Skyjo: set up the table").wait_for()
    # What the lobby holds is what the form shows.
    assert await dialog.get_by_role("radio", name="classic (2-8 players)").is_checked()
    assert await dialog.get_by_label("Score limit").input_value() == "100"
    await dialog.get_by_role("radio", name="voyage (2-4 players)").check()
    await dialog.get_by_label("Computer players", exact=True).select_option("2")
    await dialog.get_by_role("radio", name="hard").check()
    await docs_screenshot(page, "sandbox-setup-form.png")
    await dialog.locator("button[type=submit]").click()
    await lobby.filter(has_text="Edition: Skyjo Voyage").wait_for()
    await lobby.filter(has_text="CPU 2").wait_for()

    await lobby.get_by_role("button", name="More options…", exact=True).click()
    await dialog.get_by_text("Skyjo: more options").wait_for()
    await dialog.get_by_role("checkbox", name="Rows leave too").check()
    await dialog.get_by_label("Columns").select_option("3")
    await dialog.locator("button[type=submit]").click()
    await lobby.filter(has_text="Grids of 3 × 3 cards").wait_for()
    await lobby.filter(has_text="Rows of equal cards are cleared too.").wait_for()

    stored = await sandbox.bot.service.lobbies.open_in_channel(sandbox.fake.channel("general").id)
    assert stored is not None
    assert (stored.options["edition"], stored.options["columns"], stored.options["row_clearing"]) == (
        "voyage",
        3,
        True,
    )
    assert [s.ai_level for s in stored.seats] == [None, "hard", "hard"]
    assert stored.options["turn_limit"] == 120  # a list left alone sends what it showed, not its first
    assert page.errors == []
    assert sandbox.problems == []
