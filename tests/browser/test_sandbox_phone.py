"""The sandbox page at a phone's width (390 x 844 CSS pixels, an iPhone 12 to 15): Skyjo and Skip-Bo,
and a Skyjo table between two rounds (Next round on a row of its own, over the usual row of My grid,
Rules and Leave in words, each row one line in both languages). The sandbox draws buttons as Discord's
client does at every width (bot/sandbox/static/style.css): the rows are measured on those.

As in Discord's phone app the channel list hides behind a button and the messages take the whole width;
nothing may be cut or overflow sideways: the message list and every message have ``scrollWidth <=
clientWidth``, every button row and picture stays inside the screen. The pictures of the tables and
panels go to ``docs/`` with ``UPDATE_DOCS=1``, else to the test's temporary folder.

It also measures how tall a 4-player Skyjo table message is on a phone: :func:`skyjo_table_height`
gives the figure, printed by the test (``-s`` shows it); docs/sandbox.md keeps the ones measured. Issue
40 had it at most half as tall as the embed table (:data:`EMBED_TABLE_HEIGHT`); issue 47 item 8 made the
picture two grids wide so that its values and names can be read on a phone, a taller picture: the
table is now held to one phone screen. The picture's width on the phone is the one
tests/games/skyjo/test_image.py scales the picture to (:data:`PHONE_PICTURE_W`).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.client import BotTuning, create_bot
from bot.i18n import translate as t
from bot.sandbox.server import Sandbox
from tests.e2e.conftest import play_turns
from tests.games.skyjo.test_image import PHONE_PICTURE_W

from .conftest import screenshot
from .test_sandbox import (
    SEEN_EPHEMERALS,
    WAIT,
    _until,
    hidden_cards,
    my_turn,
    public,
    reveal_two,
    what_the_sandbox_saw,
)

pytestmark = pytest.mark.timeout(90)

PHONE = {"width": 390, "height": 844}
# round_delay: a table between rounds waits this long for Alice's vote, far longer than a test looks at it.
TUNING = BotTuning(ai_delay=0.0, round_delay=300.0, edit_interval=0.0)
# The 4-player Skyjo table message (the embed with its text grids, the picture, the buttons) at 390 px,
# when the first turn starts; measured in Debian's Chromium, see docs/sandbox.md. Issue 40 had the
# Components V2 table at most half as tall (the compact table with its one-row picture: 414 px, 468 if
# each move wraps; the first V2 table, not compact, 945 to 989 px); issue 47's legible picture makes it
# taller (docs/sandbox.md), held to one screen of the phone.
EMBED_TABLE_HEIGHT = 1006

# Everything that must stay inside the screen: the list, each message, each button row and picture.
OVERFLOWS = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  const wider = (node, what) => {
    if (node.scrollWidth > node.clientWidth + 1) {
      out.push(`${what} ${node.scrollWidth} > ${node.clientWidth}: ${node.textContent.slice(0, 40)}`);
    }
  };
  wider(document.documentElement, "page");
  const list = document.querySelector("#messages");
  wider(list, "#messages");
  for (const node of list.querySelectorAll(".message")) wider(node, `message ${node.dataset.id}`);
  // text wider than its box (a word that cannot wrap runs over its neighbour)
  const texts = ".content, .embed .field, .embed .e-desc, .embed .e-title, .v2-text, .btn";
  for (const node of list.querySelectorAll(texts)) wider(node, `text ${node.className}`);
  for (const node of list.querySelectorAll(".row, img, .embed, .v2-container, .btn")) {
    const box = node.getBoundingClientRect();
    if (box.width && (box.left < 0 || box.right > width + 0.5)) {
      out.push(`${node.className} ${Math.round(box.left)}..${Math.round(box.right)} of ${width}`);
    }
  }
  return out;
}"""


@pytest.fixture
async def sandbox(tmp_path: Path) -> AsyncIterator[Sandbox]:
    database = tmp_path / "data" / "sandbox.sqlite3"
    database.parent.mkdir()

    def make() -> Any:
        bot: Any = create_bot(database_path=database, tuning=TUNING)
        bot.sync_card_emojis = True  # the card faces on the panels' buttons, as `python -m bot sandbox`
        return bot

    running = Sandbox(make, port=0)
    await running.start()
    try:
        yield running
    finally:
        print(what_the_sandbox_saw(running))  # shown when the test failed
        await running.stop()


async def open_phone(browser: Any, sandbox: Sandbox, username: str, channel: str = "general") -> Any:
    """A page as a phone shows it: 390 x 844, touch, the meta viewport obeyed."""
    page = await browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    page.set_default_timeout(WAIT)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    await page.add_init_script(SEEN_EPHEMERALS)
    await page.goto(f"{sandbox.url}?user={username}&channel={channel}")
    await page.locator("#channel-name").filter(has_text=channel).wait_for()
    return page


async def start_with_computers(page: Any, game: str, computers: int) -> None:
    """``/<game> new computers:<n>`` from the phone's command box, then Start."""
    await run_command_with(page, f"/{game} new", computers=str(computers))
    await public(page, "Start").get_by_role("button", name="Start", exact=True).click()


async def run_command_with(page: Any, line: str, **options: str) -> None:
    await page.locator("#composer-input").fill(line)
    await page.locator(".suggestion.active").wait_for()
    await page.locator("#composer-input").press("Enter")
    for name, value in options.items():
        await page.locator(f'#command-form [data-option="{name}"] input').fill(value)
    await page.locator("#command-form .send").click()


# The table's picture in the message (an edit draws the message again: look it up at each poll).
PICTURE = """id => {
  const img = document.querySelector(`.message[data-id="${id}"] :is(img.e-image, .v2-gallery img)`);
  if (!img || !img.complete || !img.naturalWidth) return null;
  const box = img.getBoundingClientRect();
  return {left: box.left, right: box.right, width: box.width, natural: img.naturalWidth};
}"""


async def picture_loaded(page: Any, message: Any) -> dict[str, float]:
    """Waits for the message's table picture and returns its box and natural width."""
    message_id = await message.get_attribute("data-id")
    loaded = await page.wait_for_function(PICTURE, arg=message_id)
    box: dict[str, float] = await loaded.json_value()
    return box


# Every custom emoji shown (a card face on a panel's button, once the faces are synced) has loaded.
EMOJIS_LOADED = """() => [...document.querySelectorAll("#messages img.emoji.custom")]
  .every((img) => img.complete && img.naturalWidth > 0)"""


async def assert_fits(page: Any, message: Any) -> None:
    assert await page.evaluate(OVERFLOWS) == []
    await page.wait_for_function(EMOJIS_LOADED)
    await message.evaluate("node => node.scrollIntoView({block: 'end'})")


async def whole_message(page: Any, message: Any, name: str, tmp_path: Path) -> None:
    """A picture of the phone's page showing all of ``message``: a message taller than the screen
    (today's table) is shown by making the screen as tall as needed, at the same width."""
    height = await message_height(message)
    await page.set_viewport_size({"width": PHONE["width"], "height": max(PHONE["height"], int(height) + 220)})
    await message.evaluate("node => node.scrollIntoView({block: 'end'})")
    await screenshot(page, name, tmp_path)
    await page.set_viewport_size(PHONE)


async def message_height(message: Any) -> float:
    """The height in CSS pixels of a drawn message (its header, text, picture and buttons). An edit
    draws the message in a new node: caught in between, the box is None (run CC); measured again."""
    box = await _until(message.bounding_box, lambda box: box is not None)
    height: float = box["height"]
    return height


async def skyjo_table_height(
    browser: Any, sandbox: Sandbox, *, channel: str = "general"
) -> tuple[float, Any, Any]:
    """How tall a 4-player Skyjo table message is at 390 px when Alice's first turn starts: Alice and
    three computer players, every grid with its first cards revealed, the computers' moves in the last
    moves (nothing changes until Alice plays). Returns the height, Alice's phone page and her panel."""
    alice = await open_phone(browser, sandbox, "alice", channel)
    await start_with_computers(alice, "skyjo", 3)
    panel = await open_panel_phone(alice, "My grid")
    await reveal_two(panel)
    await my_turn(panel)  # the panel follows the game to Alice's turn, where it waits for her
    table = public(alice, "My grid")
    readings: list[tuple[float, float]] = []

    async def settled() -> bool:  # the last edit drawn, its picture loaded, twice the same
        picture = await picture_loaded(alice, table)
        assert picture["right"] <= PHONE["width"] and picture["width"] <= picture["natural"]
        assert abs(picture["width"] - PHONE_PICTURE_W) < 1  # what test_image.py scales the picture to
        readings.append((await message_height(table), picture["width"]))
        await asyncio.sleep(0.2)
        return len(readings) > 1 and readings[-1] == readings[-2]

    await _until(settled, bool)
    height = readings[-1][0]
    print(f"\n4-player Skyjo table message at {PHONE['width']} px: {height:.0f} px tall")
    return height, alice, panel


# How many lines the text display right after the table's picture (the players' lines) takes on the
# screen: the tops of its text boxes, a new line wherever one starts 8 px or more under the last.
SHOWN_LINES = """id => {
  const gallery = document.querySelector(`.message[data-id="${id}"] .v2-gallery`);
  const shown = gallery && gallery.nextElementSibling;
  if (!shown) return null;
  const range = document.createRange();
  range.selectNodeContents(shown);
  const tops = [...range.getClientRects()].filter((r) => r.width > 0).map((r) => r.top);
  let lines = 0, last = -1e9;
  for (const top of tops.sort((a, b) => a - b)) if (top - last >= 8) { lines += 1; last = top; }
  return lines;
}"""


# Each button row of a message: the distinct tops of its buttons (one when the row stays one line),
# and its buttons' words.
ROWS = """id => [...document.querySelectorAll(`.message[data-id="${id}"] .row`)].map((row) => {
  const buttons = [...row.querySelectorAll(".btn")];
  return {tops: [...new Set(buttons.map((b) => Math.round(b.getBoundingClientRect().top)))].length,
          words: buttons.map((b) => b.textContent.trim())};
})"""


# The width a message's buttons take from the first's left edge to the last's right edge.
BUTTONS_WIDTH = """n => { const bs = [...n.querySelectorAll('.btn')].map((b) => b.getBoundingClientRect());
  return Math.max(...bs.map((b) => b.right)) - Math.min(...bs.map((b) => b.left)); }"""


async def buttons_in_one_row(page: Any, message: Any) -> None:
    """Each row of the message's buttons on one line (the table's usual row; the Activity's "Open the
    table", on a row of its own since issue 50)."""
    message_id = await message.get_attribute("data-id")
    rows = await page.evaluate(ROWS, message_id)
    assert rows and all(row["tops"] == 1 for row in rows), rows


async def players_fit_one_line_each(page: Any, message: Any, players: int) -> None:
    """Each player's line beside the picture is one line on the phone, none wraps (measured once the
    page's fonts are in: a fallback font's wider glyphs would wrap)."""
    await page.evaluate("document.fonts.ready.then(() => true)")
    message_id = await message.get_attribute("data-id")
    assert await page.evaluate(SHOWN_LINES, message_id) == players


async def open_panel_phone(page: Any, button: str) -> Any:
    await public(page, button).get_by_role("button", name=button, exact=True).click()
    panel = page.locator(".message.ephemeral").filter(has_text="Only you can see this").last
    await panel.get_by_role("button", name="Refresh", exact=True).wait_for()  # drawn, not "thinking"
    return panel


async def test_skyjo_table_and_panel_fit_a_phone(browser: Any, sandbox: Sandbox, tmp_path: Path) -> None:
    height, alice, panel = await skyjo_table_height(browser, sandbox)
    assert 200 < height < EMBED_TABLE_HEIGHT  # shorter than the embed table still
    # Issue 47's legible picture (two grids wide, 389 px high on the phone) makes the table about one
    # screen of the phone tall (720 to 738 px measured: more when a move wraps), no longer 100 px less.
    assert height <= PHONE["height"]

    # the channel list hides behind the button, and comes back over the messages
    sidebar = alice.locator("#sidebar")
    hidden = await sidebar.bounding_box()
    assert hidden is not None and hidden["x"] + hidden["width"] <= 0
    messages_box = await alice.locator("#messages").bounding_box()
    assert messages_box and messages_box["x"] == 0 and messages_box["width"] == PHONE["width"]

    table = public(alice, "My grid")
    await assert_fits(alice, table)
    await whole_message(alice, table, "sandbox-phone-skyjo-table.png", tmp_path)
    await players_fit_one_line_each(alice, table, 4)
    await buttons_in_one_row(alice, table)

    assert await hidden_cards(panel) == 10
    await assert_fits(alice, panel)
    print(f"Skyjo panel: {await panel.locator('img.emoji.custom').count()} card emojis")
    rows = await panel.locator(".row").evaluate_all(
        "rows => rows.map((r) => r.getBoundingClientRect().right)"
    )
    assert rows and max(rows) <= PHONE["width"]
    await screenshot(alice, "sandbox-phone-skyjo-panel.png", tmp_path)

    await alice.locator("#nav-toggle").click()
    await alice.wait_for_function("document.querySelector('#sidebar').getBoundingClientRect().x === 0")
    await alice.locator('#channels .channel[data-name="games"]').click()
    await alice.locator("#channel-name").filter(has_text="games").wait_for()
    assert not await alice.locator("#nav-backdrop").is_visible()

    assert alice.errors == []
    assert sandbox.problems == []


@pytest.mark.parametrize(
    ("locale", "words"),
    [
        (
            "en",
            {
                "start": "Start",
                "panel": "My hand",
                "legend": "stock top card (cards left) · ✋ hand",
            },
        ),
        (
            "fr",
            {
                "start": "Commencer",
                "panel": "Ma main",
                "legend": "stock carte du dessus (reste) · ✋ main",
            },
        ),
    ],
)
async def test_skipbo_table_and_panel_fit_a_phone(
    browser: Any, sandbox: Sandbox, tmp_path: Path, locale: str, words: dict[str, str]
) -> None:
    """Skip-Bo's two players' lines ("stock **7** (5) · ✋3") and, in small print under them, the
    legend that says what those marks are (issue 47): each one line on the phone, in both languages."""
    bob = await open_phone(browser, sandbox, "bob", "games")
    if locale != "en":
        await bob.locator("#nav-toggle").click()
        await bob.locator("#guild-locale").select_option(locale)
        await bob.locator('#channels .channel[data-name="games"]').click()
    await run_command_with(bob, "/skipbo new", computers="1")
    await public(bob, words["start"]).get_by_role("button", name=words["start"], exact=True).click()
    table = public(bob, words["panel"])
    await picture_loaded(bob, table)
    await assert_fits(bob, table)
    suffix = "" if locale == "en" else f"-{locale}"
    await whole_message(bob, table, f"sandbox-phone-skipbo-table{suffix}.png", tmp_path)
    await table.get_by_text(words["legend"]).wait_for()
    await players_fit_one_line_each(bob, table, 2 + 1)  # the two players, the legend
    await buttons_in_one_row(bob, table)
    if locale != "en":
        assert bob.errors == [] and sandbox.problems == []
        return

    panel = await open_panel_phone(bob, words["panel"])
    await panel.locator(".row .btn").first.wait_for()
    await assert_fits(bob, panel)
    await screenshot(bob, "sandbox-phone-skipbo-panel.png", tmp_path)

    assert bob.errors == []
    assert sandbox.problems == []


async def test_a_french_skyjo_table_fits_a_phone_too(browser: Any, sandbox: Sandbox, tmp_path: Path) -> None:
    """The server in French: the table's longer words still give one line per player and one row of
    buttons (Ma grille, Règles, Quitter)."""
    alice = await open_phone(browser, sandbox, "alice")
    await alice.locator("#nav-toggle").click()
    await alice.locator("#guild-locale").select_option("fr")
    await alice.locator('#channels .channel[data-name="general"]').click()
    await run_command_with(alice, "/skyjo new", computers="3")
    await public(alice, "Commencer").get_by_role("button", name="Commencer", exact=True).click()
    table = public(alice, "Ma grille")
    said = table.get_by_text("À Alice de jouer").or_(table.get_by_text("de retourner 2 cartes"))
    await said.first.wait_for()
    await picture_loaded(alice, table)
    await assert_fits(alice, table)
    await whole_message(alice, table, "sandbox-phone-skyjo-table-fr.png", tmp_path)
    await players_fit_one_line_each(alice, table, 4)
    await buttons_in_one_row(alice, table)
    assert alice.errors == [] and sandbox.problems == []


@pytest.mark.parametrize(
    ("locale", "words"),
    [
        ("en", {"start": "Start", "panel": "My grid", "next": "Next round", "usual": ["Rules", "Leave"]}),
        (
            "fr",
            {
                "start": "Commencer",
                "panel": "Ma grille",
                "next": "Manche suivante",
                "usual": ["Règles", "Quitter"],
            },
        ),
    ],
)
async def test_a_skyjo_table_between_rounds_fits_a_phone(
    browser: Any, sandbox: Sandbox, tmp_path: Path, locale: str, words: dict[str, Any]
) -> None:
    """Between two rounds the table has Next round on a row of its own, over the row it has in every
    phase (my grid, rules, leave, in words): each row one line at 390 px, in English and in French (the
    longest words). Reached fast: 2 x 2 grids with 3 cards revealed at the start, Alice (moves sent
    through the fake, as the e2e tests do) and one computer."""
    alice = await open_phone(browser, sandbox, "alice")
    if locale != "en":
        await alice.locator("#nav-toggle").click()
        await alice.locator("#guild-locale").select_option(locale)
        await alice.locator('#channels .channel[data-name="general"]').click()
    await run_command_with(alice, "/skyjo new", computers="1", columns="2", rows="2", initial_reveals="3")
    await public(alice, words["start"]).get_by_role("button", name=words["start"], exact=True).click()
    bot: Any = sandbox.bot
    fake = sandbox.fake
    table = await fake.wait_until(lambda: next(iter(bot.service.tables.values()), None), what="the table")
    message = await fake.wait_until(lambda: fake.messages.get(table.stored.message_id), what="its message")
    await fake.wait_until(lambda: any(":op:" in c for c in message.custom_ids), what="the table's buttons")
    await play_turns(
        fake, bot, table.id, message, [fake.user("alice")], random.Random(3),
        until=lambda: table.state.phase == "round_over",
    )  # fmt: skip
    shown = public(alice, words["next"])
    await shown.wait_for()
    for label in (words["next"], words["panel"]):
        await shown.get_by_role("button", name=label, exact=True).wait_for()
    await picture_loaded(alice, shown)
    await assert_fits(alice, shown)
    await alice.evaluate("document.fonts.ready.then(() => true)")  # measured in the page's own font
    # Next round alone, then the usual row in words, as during the round: each row one line.
    rows = await alice.evaluate(ROWS, await shown.get_attribute("data-id"))
    assert rows == [
        {"tops": 1, "words": [words["next"]]},
        {"tops": 1, "words": [words["panel"], *words["usual"]]},
        {"tops": 1, "words": [t("activity.button.open", locale)]},  # the Activity's (issue 50)
    ], rows
    each = f"rows => rows.map((r) => Math.round(({BUTTONS_WIDTH})(r)))"
    widths = await shown.locator(".row").evaluate_all(each)
    print(f"\nbetween rounds ({locale}): rows {widths} px wide at {PHONE['width']} px")
    suffix = "" if locale == "en" else f"-{locale}"
    await whole_message(alice, shown, f"sandbox-phone-skyjo-between-rounds{suffix}.png", tmp_path)
    assert table.state.phase == "round_over"  # still between rounds: what was measured is that table
    assert alice.errors == [] and sandbox.problems == []
