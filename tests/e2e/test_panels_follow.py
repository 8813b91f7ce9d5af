"""Two open panels, one follows (issue 38 item 5): a player has one live panel per game, the one they
last opened or clicked; the panel it replaces is retired (its buttons gone, a word saying why), so no
panel is left behind on an old state, and when the game ends no open panel offers a move."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.i18n import translate as t

from .conftest import (
    GAME_ACTS,
    act_of,
    button,
    enabled_buttons,
    end_game,
    open_panel,
    play_turns,
    settle,
    start_table,
)


def moves_offered(fake: Any, user: Any) -> list[Any]:
    """The user's private messages that still offer a move (a card button or another game act)."""
    return [
        m
        for m in fake.messages.values()
        if m.visible_to == user.id
        and not m.deleted
        and any(act_of(c["custom_id"]) in GAME_ACTS for c in enabled_buttons(m))
    ]


@pytest.mark.parametrize("username", ["alice", "carol"])
async def test_a_newer_panel_retires_the_older_and_no_panel_offers_a_move_after_the_game(
    fake_discord: Any, skybo: Any, username: str
) -> None:
    fake = fake_discord
    bot = await skybo()
    user = fake.user(username)
    replaced = t("table.panel.replaced", user.locale)
    table_message, game_id = await start_table(fake, bot, user, [], score_limit=10, computers=1, turn_limit=0)
    table = bot.service.tables[game_id]
    older = await open_panel(fake, user, table_message)
    seen = older.snapshot()  # the older panel as the player last saw it, with its "?" buttons
    newer = await open_panel(fake, user, table_message)
    # Opening the panel again retires the older one: a word in the player's language, no button.
    await fake.wait_until(lambda: older.text == replaced, what="the older panel retired")
    assert older.all_components() == [] and newer.text != replaced
    # Playing in the older one is no longer possible (its buttons are gone, as on Discord)...
    reveal = button(seen, "rv")
    assert (await fake.click(user, seen, reveal)).failed
    assert len(fake.take_failed_clicks(reveal)) == 1
    # ...and the newer one follows the game: a reveal there, then the computer's, are shown on it.
    version = table.version
    await (await fake.click(user, newer, button(newer, "rv"))).answer()
    assert table.version == version + 1 and older.text == replaced
    await play_turns(fake, bot, game_id, table_message, [user], random.Random(4))
    await fake.wait_until(lambda: f"#{game_id}" in table_message.text, what="the final footer")
    await bot.presenter.flush()
    # Every panel the player opened during the game was retired or shows the end: none offers a move.
    assert moves_offered(fake, user) == []
    panels = [m for m in fake.messages.values() if m.visible_to == user.id and m.ephemeral]
    final = [m for m in panels if t("table.panel.final_title", user.locale, game="Skyjo") in m.text]
    assert len(final) == 1 and all(m.text == replaced for m in panels if m not in final)


async def test_a_game_ended_while_a_panel_edit_is_on_its_way_still_shows_its_end(
    fake_discord: Any, skybo: Any
) -> None:
    """The follower's edit of Bob's panel is held on its way (a slow network) while the game ends: once
    that edit lands (showing the turn it was sent for), the panel is edited once more to show the end
    (the follower forgot the panel when the edit came back and the game was over by then, so it stayed
    on the old turn; a loaded run met it at a computer's last move)."""
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=0)
    table = bot.service.tables[game_id]
    bobs = await open_panel(fake, bob, table_message)
    last_click = None
    while table.seat_of(bob.id) in table.state.seats_to_act():  # Bob turns his two cards over
        last_click = await fake.click(bob, bobs, button(bobs, "rv"))
        await last_click.answer()
    assert last_click is not None
    await bot.presenter.flush()
    # The next edit of Bob's panel (through the token of his last click) is held on its way.
    bobs_panel = f"/webhooks/{fake.application_id}/{last_click.token}/messages/@original"
    edits_before = len(fake.requests_to("PATCH", bobs_panel))  # the follower's, after his clicks
    hold = fake.hold("PATCH", bobs_panel)

    def edits() -> list[int]:
        return [r.status for r in fake.requests_to("PATCH", bobs_panel)[edits_before:]]

    alices = await open_panel(fake, alice, table_message)
    while table.state.phase == "reveal":  # Alice's two: the turns begin, Bob's panel is followed
        await (await fake.click(alice, alices, button(alices, "rv"))).answer()
    await fake.wait_until(lambda: edits() == [0], what="Bob's panel's edit held")
    await end_game(fake, bot, alice, fake.channels[table_message.channel_id], game_id)
    final = t("table.panel.final_title", bob.locale, game="Skyjo")
    assert edits() == [0], "the game ended while the edit was held"
    hold.release()
    await fake.wait_until(lambda: len(edits()) == 2 and final in bobs.text, 15, what="the end on Bob's panel")
    assert edits() == [200, 200]  # the held edit (the turn), then the end
    await settle(bot)
    assert final in bobs.text and moves_offered(fake, bob) == []
