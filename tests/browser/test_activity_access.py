"""The Activity's page for every player (issue 50): keyboard play (the cards are buttons in the Tab order,
Enter and Space play them, the arrow keys move in the grid), the colour-blind cards (the bot's Okabe-Ito
colours and shapes, the player's display choice), reduced motion honoured, the bot's refusals and hint
shown in the player's language, and a sign-in Discord refuses said plainly."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.i18n import translate as t

from .activity import PHONE, WAIT, open_player, stand_in

pytestmark = pytest.mark.timeout(90)


async def _version_after(player: Any, version: int) -> dict[str, Any]:
    await player.page.wait_for_function("v => window.skybo.table.version > v", arg=version, timeout=WAIT)
    return await player.table()


async def test_the_grid_plays_with_the_keyboard(browser: Any) -> None:
    async with stand_in() as (fake, server, voice):
        alice = fake.user("alice")
        await server.open_table(voice, "skyjo", [alice, None], seed=2)
        player = await open_player(browser, server, alice, voice, PHONE)
        page = player.page
        for _ in range(12):  # Tab through the page to the grid's one tab stop
            await page.keyboard.press("Tab")
            if (await page.evaluate("document.activeElement.dataset.key || ''")).startswith("cell-"):
                break
        assert await page.evaluate("document.activeElement.dataset.key") == "cell-0"
        await page.keyboard.press("ArrowRight")  # the next column: position 3 of a 4 x 3 grid
        assert await page.evaluate("document.activeElement.dataset.key") == "cell-3"
        version = (await player.table())["version"]
        await page.keyboard.press("Enter")
        frame = await _version_after(player, version)
        assert isinstance(frame["view"]["grids"][0][3], int)
        await page.wait_for_function("document.activeElement.dataset.key === 'cell-3'", timeout=WAIT)
        await page.keyboard.press("ArrowDown")  # the next row of the same column
        assert await page.evaluate("document.activeElement.dataset.key") == "cell-4"
        await page.keyboard.press(" ")
        frame = await _version_after(player, frame["version"])
        assert isinstance(frame["view"]["grids"][0][4], int)
        assert frame["view"]["phase"] == "play"  # both reveals made: the turns begin


CARD_LOOK = """() => {
  const value = [...document.querySelectorAll('.card.g2')][0];
  const shape = value.querySelector('.shape');
  return {fill: getComputedStyle(value).backgroundColor, shape: getComputedStyle(shape, '::after').content,
          animation: getComputedStyle(document.querySelector('button.card.can')).animationName};
}"""


async def test_colour_blind_cards_and_reduced_motion(browser: Any) -> None:
    async with stand_in(cards={"carol": "colourblind"}) as (fake, server, voice):
        alice, carol = fake.user("alice"), fake.user("carol")
        # Seed 7 deals a 1 on the discard pile (a 1-4 card); the reveals make every grid card a move.
        await server.open_table(voice, "skyjo", [alice, carol], seed=7)
        classic = await open_player(browser, server, alice, voice, PHONE)
        safe = await open_player(browser, server, carol, voice, PHONE, reduced_motion="reduce")
        look = {
            name: await player.page.evaluate(CARD_LOOK)
            for name, player in (("classic", classic), ("safe", safe))
        }
        assert look["classic"]["fill"] == "rgb(92, 195, 79)"  # bot/games/skyjo/cards.py GREEN
        assert look["safe"]["fill"] == "rgb(0, 158, 115)"  # SAFE_BANDS: Okabe-Ito's bluish green
        assert look["safe"]["shape"] == '"■"' and look["classic"]["shape"] in ("none", "normal")
        assert look["classic"]["animation"] == "glow" and look["safe"]["animation"] == "none"


async def test_refusals_and_the_hint_in_the_players_language(browser: Any) -> None:
    async with stand_in() as (fake, server, voice):
        alice, carol = fake.user("alice"), fake.user("carol")
        table = await server.open_table(
            voice, "skyjo", [alice, carol], seed=5, options={"initial_reveals": 0}
        )
        user = (alice, carol)[table.state.turn]
        language = "en" if user is alice else "fr"
        player = await open_player(browser, server, user, voice, PHONE)
        await player.page.click("#hint")
        await player.page.wait_for_selector("#toast.hint", timeout=WAIT)
        # the panels' hint: the normal computer player's move for this seat, in words
        seat, view = table.state.turn, table.state.view(table.state.turn)
        action = table.spec.levels["normal"](view, random.Random(f"0:{seat}:hint"))
        key, params = table.spec.suggestion(view, seat, action)
        assert await player.page.inner_text("#toast") == t(key, language, **params)
        # A page out of step with the table (a version the bot never had): its move is refused with the
        # bot's words, and nothing changes.
        await player.page.evaluate("window.skybo.table.version += 5")
        await player.tap("draw")
        await player.page.wait_for_selector("#toast.refused", timeout=WAIT)
        assert await player.page.inner_text("#toast") == t("activity.refused.moved_on", language)
        assert table.state.drawn is None and table.version == 0


async def test_a_refused_sign_in_and_a_channel_without_a_table_are_said(browser: Any) -> None:
    async with stand_in() as (fake, server, voice):
        alice, bob = fake.user("alice"), fake.user("bob")
        await server.open_table(voice, "skyjo", [alice, None])
        empty = fake.add_voice_channel("empty")
        page = await browser.new_page(viewport=PHONE)
        await page.goto(server.url(alice, empty))
        await page.wait_for_function(
            "document.querySelector('#overlay-text').textContent.includes('No table')"
        )
        # bob never joined the activity: the instance does not list him, so no session
        url = server.url(alice, voice).replace(f"user_id={alice.id}", f"user_id={bob.id}")
        await page.goto(url)
        await page.wait_for_function(
            "document.querySelector('#overlay-text').textContent.includes('Signing in failed')"
        )
        # the bot busy for two sign-ins (503 "unavailable"): the page tries again with new codes and plays
        server.busy = 2
        await page.goto(server.url(alice, voice))
        await page.wait_for_function("window.skybo.table && window.skybo.connection === 'open'", timeout=WAIT)
        assert server.busy == 0
