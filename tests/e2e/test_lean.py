"""A click costs the bot only what it reads (issue 26, bot.ui.lean): through the real bot and the fake
Discord, the parsed clicked message holds the clicked button only, callbacks ask for a response body
only for public messages (the lobby, whose id the bot keeps), and the panel still shows the move.
That the presenter's unparsed edits still land is test_live_table's."""

from __future__ import annotations

from typing import Any

import discord

from fakecord import FakeDiscord

from .conftest import act_of, open_panel

CALLBACK = "POST /interactions/{interaction_id}/{token}/callback"


async def test_a_click_parses_only_the_clicked_button_and_asks_no_callback_body(
    fake_discord: FakeDiscord, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo()
    seen: list[discord.Interaction[Any]] = []

    async def capture(interaction: discord.Interaction[Any]) -> None:
        seen.append(interaction)

    bot.add_listener(capture, "on_interaction")
    alice, bob = fake.user("alice"), fake.user("bob")
    lobby_inter = await fake.run_command(alice, "skyjo", "new")
    lobby = await lobby_inter.original()
    assert [r.query for r in lobby_inter.requests if r.key == CALLBACK] == [{"with_response": "1"}]
    await (await fake.click(bob, lobby, lobby.custom_ids[0])).response()
    await fake.wait_until(lambda: "Bob" in lobby.text, what="Bob in the lobby")
    stored = await bot.service.lobbies.open_in_channel(lobby.channel_id)
    assert stored is not None and stored.message_id == lobby.id  # read from the callback's body
    start = next(c for c in lobby.custom_ids if c.endswith(":st"))
    await (await fake.click(alice, lobby, start)).response()
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table")
    panel = await open_panel(fake, alice, lobby)
    assert len(panel.custom_ids) >= 12  # a whole grid of buttons and the actions

    reveal = next(c for c in panel.custom_ids if act_of(c) == "rv")
    seen.clear()
    inter = await fake.click(alice, panel, reveal)
    shown = await inter.answer(timeout=10)
    assert shown.id == panel.id and reveal not in panel.custom_ids  # the move is on the panel
    callbacks = [r for r in inter.requests if r.key == CALLBACK]
    assert [r.query for r in callbacks] == [{}], "the panel's update (type 7) asks for no body"
    assert callbacks[0].status == 204

    parsed = next(i for i in seen if i.id == inter.id)
    assert parsed.message is not None and parsed.message.flags.ephemeral
    buttons = [c for row in parsed.message.components for c in getattr(row, "children", ())]
    assert [getattr(b, "custom_id", None) for b in buttons] == [reveal]
    assert parsed.message.embeds == [] and parsed.message.attachments == []

    # A click on the table message (an embed and a picture) is trimmed the same way.
    seen.clear()
    again = await fake.click(alice, lobby, next(c for c in lobby.custom_ids if act_of(c) == "op"))
    await again.original()
    table_click = next(i for i in seen if i.id == again.id)
    assert table_click.message is not None and table_click.message.embeds == []
    assert [r.query for r in again.requests if r.key == CALLBACK] == [{}], "an ephemeral answer"
