"""The Activity launched where no table is (issue 50), in Debian's Chromium against the real bot and the fake
Discord's real code exchange: the page offers the games, a tap opens a table (the bot posts its lobby in
the channel), the page says so, and once the host starts the game with the lobby's buttons the page
signs in again by itself and shows the table."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import translate as t
from tests.e2e.activity_helpers import activity_bot
from tests.fakecord import conftest as fake_fixtures

from .activity import PHONE, WAIT
from .test_activity_bot import page_url

fake_discord = fake_fixtures.fake_discord
connect_bot = fake_fixtures.connect_bot
discord_error_log = fake_fixtures.discord_error_log

pytestmark = pytest.mark.timeout(120)
OVERLAY = "document.querySelector('#overlay-text').textContent"


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    return tmp_path / "data" / "skybo.sqlite3"


async def test_the_page_opens_a_table_where_none_is(
    browser: Any, fake_discord: Any, connect_bot: Callable[..., Awaitable[Any]], db_file: Path
) -> None:
    fake = fake_discord
    bot = await activity_bot(fake, connect_bot, db_file, sync=False)
    fake.enable_activities()
    alice = fake.user("alice")
    cards = fake.add_voice_channel("cards")
    page = await (await browser.new_context(viewport=PHONE)).new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    await page.goto(page_url(bot, fake, alice, cards))
    await page.wait_for_selector('[data-key="open-skipbo"]', timeout=WAIT)
    assert await page.evaluate(OVERLAY) == "No table is playing in this channel yet. Open one?"
    labels = await page.eval_on_selector_all("#offer button.open", "bs => bs.map(b => b.textContent)")
    assert labels == ["Open a Skyjo table", "Open a Skip-Bo table"]
    assert t("cmd.skyjo.description", "en") in await page.inner_text("#offer")

    await page.click('[data-key="open-skyjo"]')
    await page.wait_for_function(f"{OVERLAY}.startsWith('Table opened')", timeout=WAIT)
    assert alice.global_name in await page.inner_text("#offer-seats")
    lobby = await fake.wait_until(
        lambda: next((m for m in fake.messages.values() if m.channel_id == cards.id and m.custom_ids), None),
        what="the lobby posted in the channel",
    )
    await bot.presenter.flush()
    shown = lobby.revision
    add, start = (next(c for c in lobby.custom_ids if c.endswith(act)) for act in (":ai", ":st"))
    await (await fake.click(alice, lobby, add)).response()
    await fake.wait_until(lambda: lobby.revision > shown, what="the computer in the lobby")
    await (await fake.click(alice, lobby, start)).response()
    # The page learns the game is dealt (api/channel), signs in again by itself and shows the table.
    await page.wait_for_function("window.skybo.table && window.skybo.connection === 'open'", timeout=WAIT)
    table = await page.evaluate("window.skybo.table")
    assert (table["seat"], table["view"]["kind"], len(table["names"])) == (0, "skyjo", 2)
    assert await page.is_hidden("#offer") and problems == []
