"""Bad input, races and faults at a Skyjo table: nothing changes and only the clicker reads why."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.i18n import translate as t
from bot.service.ledger import GameLedger
from bot.ui import followed_panels, ids
from bot.ui.views import table_message as render_table
from fakecord import FakeMessage, FakeUser
from tests.e2e.reading import description_of, moves_of

from .conftest import (
    act_of,
    button,
    enabled_buttons,
    forged_click,
    open_panel,
    private_answer,
    start_table,
    until_turn,
)

PATCH_MESSAGE = "/channels/{channel_id}/messages/{message_id}"


def reveal_buttons(panel: FakeMessage) -> list[str]:
    return [c["custom_id"] for c in enabled_buttons(panel) if act_of(c["custom_id"]) == "rv"]


async def test_non_player_clicks_are_refused_in_their_language(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = bot.service.tables[game_id]
    version, edits = table.version, len(table_message.history)
    for act in ("op", "lv"):
        answer = await private_answer(await fake.click(carol, table_message, button(table_message, act)))
        assert answer.text == "Tu ne joues pas à cette table."
    assert table.version == version and len(table_message.history) == edits
    # Alice's panel is ephemeral: Discord does not even let Carol see it.
    panel = await open_panel(fake, alice, table_message)
    assert not panel.visible_for(carol)


async def test_stale_and_out_of_turn_panels_get_a_fresh_panel(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock)
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], computers=1, turn_limit=0)
    table = await until_turn(fake, bot, game_id, table_message, alice)
    old_panel = await open_panel(fake, alice, table_message)
    draw = button(old_panel, "dr")
    # A newer panel retires the older one while the bot can still edit it (tests/e2e/
    # test_panels_follow.py); 15 minutes later it no longer can (its token is dead for the bot), so
    # the old panel keeps its buttons. Alice plays her whole turn from a second panel...
    clock.advance(15 * 60)
    panel = await open_panel(fake, alice, table_message)
    await (await fake.click(alice, panel, button(panel, "dr"))).answer()
    await (await fake.click(alice, panel, button(panel, "rp"))).answer()
    assert table.state.turn != table.seat_of(alice.id) or table.state.phase != "play"
    version = table.version
    # ...then clicks Draw on the first one, out of turn: refused, and the panel is replaced in place.
    inter = await fake.click(alice, old_panel, draw)
    assert (await inter.answer()).id == old_panel.id
    assert "Already done — here is your panel as it stands." in old_panel.text  # she played since
    actions = await bot.service.storage.games.actions(game_id)
    assert all(a.seat != table.seat_of(alice.id) for a in actions[version:])  # nothing of Alice's applied
    drawn_at = ids.decode(draw).version  # type: ignore[union-attr]
    fresh = {ids.decode(c).version for c in old_panel.custom_ids}  # type: ignore[union-attr]
    assert len(fresh) == 1 and fresh.pop() > drawn_at  # the panel was redrawn at a newer version
    assert not any(act_of(c["custom_id"]) == "dr" for c in enabled_buttons(old_panel))
    # The clicked panel is the live one again: the other, still editable, is retired.
    await fake.wait_until(lambda: panel.text == t("table.panel.replaced", alice.locale), what="retired")
    assert panel.all_components() == []


async def test_forged_custom_ids_change_nothing(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = bot.service.tables[game_id]
    version, edits = table.version, len(table_message.history)
    forged = [
        f"sk:{game_id}:{version}:rv:0",  # well-formed but not on the clicked message
        f"sk:{game_id + 1}:0:op:0",  # another game
        "sk:1:2:zz:3",
        "sk:not-a-number",
        "sl:1:st",
        "x" * 100,
    ]
    for custom_id in forged[:-1]:
        answer = await private_answer(await forged_click(fake, bob, table_message, custom_id))
        assert answer.text == "That button is not valid."
    # Not ours at all: ignored (another bot's component would never reach us anyway).
    foreign = await forged_click(fake, bob, table_message, forged[-1])
    await asyncio.sleep(0.05)
    assert not foreign.acknowledged
    assert table.version == version and len(table_message.history) == edits
    assert table.state.reveals_left == [2, 2]


async def test_double_click_and_fifty_concurrent_clicks(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = bot.service.tables[game_id]
    alice_panel = await open_panel(fake, alice, table_message)
    bob_panel = await open_panel(fake, bob, table_message)
    version = table.version

    # Two players at the same instant: both reveals are legal, both apply.
    a, b = reveal_buttons(alice_panel)[0], reveal_buttons(bob_panel)[5]
    inters = await asyncio.gather(fake.click(alice, alice_panel, a), fake.click(bob, bob_panel, b))
    await asyncio.gather(*(i.answer() for i in inters))
    assert table.version == version + 2
    assert table.state.reveals_left == [1, 1]

    # 50 clicks at once on the reveal buttons of both panels: exactly one more reveal each applies.
    version = table.version
    rng = random.Random(1)
    clicks = []
    for _ in range(25):
        clicks.append(fake.click(alice, alice_panel, rng.choice(reveal_buttons(alice_panel))))
        clicks.append(fake.click(bob, bob_panel, rng.choice(reveal_buttons(bob_panel))))
    inters = await asyncio.gather(*clicks)
    shown = await asyncio.gather(*(i.answer() for i in inters))
    assert all(m.id in (alice_panel.id, bob_panel.id) for m in shown)  # every click edits its panel
    assert table.version == version + 2
    assert table.state.reveals_left == [0, 0] and table.state.phase == "play"
    actions = await bot.service.storage.games.actions(game_id)
    assert [a.seq for a in actions] == list(range(1, table.version + 1))
    assert sorted(a.seat for a in actions) == [0, 0, 1, 1]
    stored = await GameLedger(bot.service.storage).get_game(game_id, verify=True)
    assert stored.state.to_dict() == table.state.to_dict()

    # A double click on Draw: one draw; the other click gets the panel as it stands, with a gentle word,
    # not an error (issue 47 item 10: it read "This panel is out of date").
    player = alice if table.state.turn == 0 else bob
    panel = await open_panel(fake, player, table_message)
    version = table.version
    draw = button(panel, "dr")
    inters = await asyncio.gather(*(fake.click(player, panel, draw) for _ in range(2)))
    await asyncio.gather(*(i.answer() for i in inters))
    assert table.version == version + 1 and table.state.drawn is not None
    # Each click's panel: its callback (the panel itself, issue 40) or, deferred, its edit.
    edits = [
        str(r.json.get("content") or (r.json.get("data") or {}).get("content"))
        for i in inters
        for r in i.requests
    ]
    assert sum("Already done — here is your panel as it stands." in text for text in edits) == 1, edits
    assert not any("out of date" in text for text in edits)


async def test_a_429_on_the_table_edit_loses_nothing(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = bot.service.tables[game_id]
    panel = await open_panel(fake, alice, table_message)
    fake.rate_limit("PATCH", PATCH_MESSAGE, count=2, retry_after=0.05)
    version = table.version
    await (await fake.click(alice, panel, reveal_buttons(panel)[0])).answer()
    assert table.version == version + 1
    await fake.wait_until(lambda: len(fake.rate_limited) == 2, what="two 429s")

    def caught_up() -> bool:  # the compact table beside its picture: its head line and short moves
        want = render_table(table, "en-US")
        said = want.head[0] if want.head else str((want.embed or {}).get("description"))
        moves = want.moves or want.recent
        return said in description_of(table_message) and moves_of(table_message) == moves

    await fake.wait_until(caught_up, what="the table to catch up")
    assert "Alice turned over a" in table_message.text
    assert (await GameLedger(bot.service.storage).get_game(game_id)).version == version + 1


async def test_end_is_for_the_host_or_a_channel_manager_and_unrated(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], computers=1)
    # As on Discord, @everyone may not manage channels; the server's owner may.
    refused = await private_answer(await fake.run_command(bob, "skyjo", "end"))
    assert "Only the host or someone who can manage" in refused.text
    assert game_id in bot.service.tables
    question = await private_answer(await fake.run_command(fake.owner, "skyjo", "end"))
    answer = await (await fake.click(fake.owner, question, button(question, "ey"))).followup()  # Yes
    assert not answer.ephemeral and "not rated" in answer.text
    await fake.wait_until(lambda: not table_message.custom_ids, what="the table without buttons")
    assert "ended by" in table_message.text
    stored = await GameLedger(bot.service.storage).get_game(game_id)
    assert stored.status == "cancelled"
    ratings = await bot.service.storage.db.run(lambda c: c.execute("SELECT count(*) FROM ratings").fetchone())
    assert ratings[0] == 0
    # The channel is free again (for Bob: Alice opened a table a moment ago, within the cool-down).
    again = await (await fake.run_command(bob, "skyjo", "new")).original()
    assert not again.ephemeral


async def test_kick_gives_the_seat_to_a_computer(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = bot.service.tables[game_id]
    bob_panel = await open_panel(fake, bob, table_message)
    refused = await private_answer(await fake.run_command(bob, "skyjo", "kick", options={"player": alice}))
    assert "Only the host" in refused.text
    answer = await (await fake.run_command(alice, "skyjo", "kick", options={"player": bob})).original()
    assert "computer player" in answer.text
    seen = bob_panel.snapshot()  # his panel as he last saw it
    # The computer turns Bob's cards; Bob's open panel now tells him why he cannot play, without a
    # click of his, and keeps no move button.
    await fake.wait_until(lambda: table.state.reveals_left[1] == 0, what="the computer revealing")
    await fake.wait_until(
        lambda: "A computer player now plays your seat" in bob_panel.text, what="the panel followed"
    )
    assert not any(act_of(c) == "rv" for c in bob_panel.custom_ids)
    # A click from the panel as it was before the edit never reaches the bot (as on Discord).
    reveal = next(c for c in seen.custom_ids if act_of(c) == "rv")
    assert (await fake.click(bob, seen, reveal)).failed
    assert len(fake.take_failed_clicks(reveal)) == 1
    # Opening his panel again answers the same, privately.
    inter = await fake.click(bob, table_message, button(table_message, "op"))
    assert "A computer player now plays your seat" in (await private_answer(inter)).text


async def test_the_human_to_play_is_mentioned_once_and_the_mention_goes_away(
    fake_discord: Any, skybo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nobody is taken to be looking at a panel: the turn's mention goes out (FollowedPanels.looking).
    monkeypatch.setattr(followed_panels, "LOOKING_MS", 0)
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    channel = fake.channel("general")
    table_message, game_id = await start_table(fake, bot, alice, [bob], computers=1)
    await until_turn(fake, bot, game_id, table_message, alice)
    await bot.presenter.flush()  # the mention of an earlier turn of Alice's is gone by now

    def mentions(user: FakeUser) -> list[FakeMessage]:
        return [m for m in fake.channel_messages(channel) if m.content.startswith(f"<@{user.id}>")]

    await fake.wait_until(lambda: len(mentions(alice)) == 1, what="Alice mentioned")
    note = mentions(alice)[0]
    assert len(mentions(bob)) == 0
    panel = await open_panel(fake, alice, table_message)
    await (await fake.click(alice, panel, button(panel, "dr"))).answer()
    assert not note.deleted  # drawing does not end the turn
    await (await fake.click(alice, panel, button(panel, "rp"))).answer()
    await fake.wait_until(lambda: note.deleted, what="the mention deleted at the end of the turn")
    everyone = [m for m in fake.channel_messages(channel) if m.content.startswith("<@")]
    assert len(everyone) <= 1
