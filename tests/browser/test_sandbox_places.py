"""The sandbox's places where Skybo is reached through a user install (issue 49), tried by clicking.

* The group DM of Alice, Bob and Chloé (French), listed under "Direct messages": the command list is
  what the fake Discord offers there (no server-only command), ``/skyjo new`` opens a lobby that is the
  command's own answer, Chloé joins from her page, Alice starts, a computer plays its first cards and
  Chloé's panel is French, Alice turns a card: both pages show the table's new revision.
* Friends' server, where the bot is not a member: Alice sets a table up with the "Set up…" form in
  #lounge, Bob joins, Alice starts; the table is the interaction's message. Chloé, not a member, does
  not see the server.

With ``UPDATE_DOCS=1`` the pictures of docs/sandbox.md: the group DM game, the form and its table.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from bot.sandbox import places
from bot.sandbox.server import Sandbox

from .conftest import docs_screenshot
from .test_sandbox import HIDDEN, _until, open_as, open_panel, public, run_command, sandbox

pytestmark = pytest.mark.timeout(90)

__all__ = ["sandbox"]  # the fixture, shared with test_sandbox

JOIN = re.compile("^(Join|Rejoindre)$")
START = re.compile("^(Start|Commencer)$")


async def go(page: Any, selector: str, hash_text: str) -> None:
    """Clicks a place in the page's sidebar and waits for the page to show it."""
    await page.locator(selector).click()
    await page.locator("#channel-header .hash", has_text=hash_text).wait_for()
    await page.locator(selector + ".active").wait_for()


async def offered_on_page(page: Any) -> set[str]:
    """The commands the page suggests when its user types "/" (their names, without subcommands)."""
    await page.locator("#composer-input").fill("/")
    await page.locator("#suggestions .heading").wait_for()
    names = await page.locator("#suggestions .suggestion").evaluate_all(
        "ns => ns.map(n => n.dataset.command)"
    )
    await page.locator("#composer-input").fill("")
    return {name.split()[0] for name in names}


def offered_by_fake(sandbox: Sandbox, username: str, channel: Any) -> set[str]:
    return set(places.offered(sandbox.fake, sandbox.fake.user(username), channel) or [])


async def picture(page: Any, name: str, message_id: str | None = None) -> None:
    """docs/<name> with ``UPDATE_DOCS=1``, in 256 colours (a docs picture stays under 150 KB);
    ``message_id``: a taller page showing that message from its top (the "used /skyjo new" line)."""
    if os.environ.get("UPDATE_DOCS") != "1":
        return
    if message_id is not None:
        await page.set_viewport_size({"width": 1280, "height": 1040})
        await page.locator(f'.message[data-id="{message_id}"]').evaluate(
            "n => n.scrollIntoView({block: 'start'})"
        )
    path = await docs_screenshot(page, name)
    if message_id is not None:
        await page.set_viewport_size({"width": 1280, "height": 900})
    if path is not None:
        from PIL import Image

        with Image.open(path) as image:
            small = image.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT)
        small.save(path, optimize=True)


async def rev_on(page: Any, message_id: str) -> int:
    rev: int = await page.evaluate("(id) => (S.messages.get(id) || { rev: -1 }).rev", message_id)
    return rev


async def test_a_game_in_the_group_dm_by_clicking(browser: Any, sandbox: Sandbox) -> None:
    fake = sandbox.fake
    group = places.group_dms(fake)[0]
    server_commands = offered_by_fake(sandbox, "alice", fake.channel("general"))
    alice = await open_as(browser, sandbox, "alice")
    chloe = await open_as(browser, sandbox, "chloe")
    for page in (alice, chloe):
        await go(page, f'.channel.group-dm[data-id="{group.id}"]', "👥")
    assert await alice.locator("#channel-name").inner_text() == "Bob, Chloé"  # as Discord names it
    # The page offers what Discord's client would there: the user-installed commands, no server one.
    here = offered_by_fake(sandbox, "alice", group)
    assert "skyjo" in here and "skipbo" in here and here < server_commands
    assert await offered_on_page(alice) == here

    await alice.locator("#composer-input").fill("/skyjo new")
    await alice.locator(".suggestion.active").wait_for()
    await alice.locator("#composer-input").press("Enter")
    await alice.locator('#command-form [data-option="computers"] input').fill("1")
    await alice.locator("#command-form .send").click()
    lobby = public(chloe, "Join")
    await lobby.get_by_role("button", name=JOIN).click()
    await public(alice, "Start").filter(has_text="Chloé").get_by_role("button", name=START).click()

    # The table is the slash command's own answer, in the group DM.
    alice_panel = await open_panel(alice)
    table_id = await public(alice, "My grid").get_attribute("data-id")
    assert table_id is not None
    table = fake.messages[int(table_id)]
    assert table.channel_id == group.id and table.interaction is not None
    assert table.interaction.type == 2 and table.interaction.command_name == "skyjo"
    # the table speaks its host's language (English): Chloé sees the same message
    assert await public(chloe, "My grid").get_attribute("data-id") == table_id
    # the computer's first cards reached both pages, drawn through a token (the bot may not edit there)
    for page in (alice, chloe):
        await public(page, "My grid").filter(has_text="CPU 1 turned over").wait_for()
    # Chloé's panel, her ephemeral message, speaks French
    await public(chloe, "My grid").get_by_role("button", name="My grid", exact=True).click()
    chloe_panel = chloe.locator(".message.ephemeral").filter(has_text="Only you can see this").last
    await chloe_panel.get_by_role("button", name="Actualiser", exact=True).wait_for()
    assert (
        await alice.locator(f'.message[data-id="{await chloe_panel.get_attribute("data-id")}"]').count() == 0
    )
    # A move: Alice turns a card face up; the table is edited through a token and both pages follow.
    before = table.revision
    await alice_panel.get_by_role("button", name=HIDDEN).and_(alice_panel.locator(":enabled")).first.click()
    await fake.wait_until(lambda: table.revision > before, what="the table edited after the move")
    for page in (alice, chloe):
        await _until(lambda p=page: rev_on(p, table_id), lambda rev: rev >= table.revision)
    webhook_edits = [r for r in fake.requests if r.method == "PATCH" and r.path.startswith("/webhooks/")]
    assert webhook_edits and not [r for r in fake.requests if r.path.startswith(f"/channels/{group.id}")]
    await picture(alice, "sandbox-group-dm.png", table_id)
    assert alice.errors == [] and chloe.errors == []
    assert sandbox.problems == []


async def test_a_table_set_up_with_the_form_where_only_users_installed_skybo(
    browser: Any, sandbox: Sandbox
) -> None:
    fake = sandbox.fake
    lounge = fake.channel(places.FRIENDS_CHANNEL)
    friends = fake.guilds[lounge.guild_id]
    assert fake.bot_user.id not in friends.members  # nobody invited the bot
    alice = await open_as(browser, sandbox, "alice")
    bob = await open_as(browser, sandbox, "bob")
    chloe = await open_as(browser, sandbox, "chloe")
    for page in (alice, bob):
        await go(page, f'.channel[data-server="{places.FRIENDS}"][data-name="lounge"]', "#")
    assert await chloe.locator(f'.channel[data-server="{places.FRIENDS}"]').count() == 0  # not a member
    assert await offered_on_page(alice) == offered_by_fake(sandbox, "alice", lounge)

    await run_command(alice, "/skyjo new")
    lobby = public(alice, "Set up…")
    await lobby.get_by_role("button", name="Set up…", exact=True).click()
    dialog = alice.locator("dialog#modal")
    await dialog.get_by_text("Skyjo: set up the table").wait_for()
    await dialog.get_by_label("Computer players", exact=True).select_option("1")
    await dialog.get_by_role("radio", name="hard").check()
    await picture(alice, "sandbox-friends-form.png")
    await dialog.locator("button[type=submit]").click()
    await lobby.filter(has_text="CPU 1").wait_for()
    await public(bob, "Join").get_by_role("button", name="Join", exact=True).click()
    await (
        public(alice, "Start").filter(has_text="Bob").get_by_role("button", name="Start", exact=True).click()
    )

    await open_panel(bob)
    table_id = await public(alice, "My grid").get_attribute("data-id")
    assert table_id is not None
    table = fake.messages[int(table_id)]
    assert table.channel_id == lounge.id and table.interaction is not None and table.interaction.type == 2
    assert await public(bob, "My grid").get_attribute("data-id") == table_id
    await picture(alice, "sandbox-friends-table.png", table_id)
    assert not [r for r in fake.requests if r.path.startswith(f"/channels/{lounge.id}")]
    # Bob's page becomes Chloé's, who is not a member of the server: she is shown the sandbox's server.
    await bob.locator('.user-entry[data-username="chloe"]').click()
    await bob.locator(".toast", has_text="Chloé is not a member of Friends' server").wait_for()
    await bob.locator('.channel.active[data-name="general"]').wait_for()
    assert alice.errors == [] and bob.errors == [] and chloe.errors == []
    assert sandbox.problems == []
