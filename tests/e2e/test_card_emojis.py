"""Issue 40 item 2: the card faces as application emojis, through the fake Discord.

``python -m bot sync`` uploads every face of both games in both looks once, a second sync uploads
nothing, and a face whose picture changed (a renderer input changed here: Skyjo's yellow) is uploaded
again alone, its old emoji deleted, an emoji sync does not own never touched. The bot then shows each
face-up card's emoji on the panels' card buttons in its reader's look (classic, colour-blind), and
on Skyjo's grid the card back's for a face-down card (the same for each: never its value); without
emojis (a Discord without the feature) the buttons show their words (issue 47 item 7: a grid button
shows one thing, its emoji alone or its label alone, so the grid's columns line up).
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.config import load_settings
from bot.games.skipbo.faces import face as skipbo_face
from bot.games.skipbo.panel import card_label, own_hand
from bot.games.skyjo import cards as skyjo_cards
from bot.games.skyjo.faces import face as skyjo_face
from bot.i18n import translate as t
from bot.run import _sync
from bot.ui.card_emojis import owned
from fakecord.state import FakeEmoji

from .conftest import button, open_panel, start_table
from .skipbo_helpers import start_skipbo
from .test_colourblind_panel import SQUARES, buttons, emoji_of, skipbo_shape, skyjo_shape
from .test_prefs import skybo_command

FACES = 2 * (16 + 13)  # two looks of Skyjo's -2..12 and its back, and of Skip-Bo's 1..12 and its wild card
EMOJI_ROUTES = ("/applications/{application_id}/emojis", "/applications/{application_id}/emojis/{emoji_id}")


async def sync(fake: Any, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, int], str]:
    """``python -m bot sync`` against the fake: the emoji requests it sent by method, and its last line."""
    before = len(fake.requests)
    assert await _sync(load_settings({"DISCORD_TOKEN": fake.token}, dotenv=False), None) == 0
    counts: dict[str, int] = {}
    for request in fake.requests[before:]:
        if request.route in EMOJI_ROUTES:
            counts[request.method] = counts.get(request.method, 0) + 1
    return counts, capsys.readouterr().out.splitlines()[-1]


def emoji_name(fake: Any, component: dict[str, Any]) -> str | None:
    """The application emoji's name on a button, or None for none or a Unicode one."""
    emoji = component.get("emoji")
    if not emoji or "id" not in emoji:
        return None
    return str(fake.app_emojis[int(emoji["id"])].name)


def is_face(name: str | None, prefix: str, look: str, face: str) -> bool:
    return name is not None and name.startswith(f"card_{prefix}_{look}_{face}_")


async def test_sync_uploads_what_is_missing_or_changed_and_only_that(
    fake_discord: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = fake_discord
    logo = FakeEmoji(fake.new_id(), "skybo_logo", b"\x89PNG", "image/png", fake.owner)
    fake.app_emojis[logo.id] = logo  # uploaded by hand in the developer portal: not sync's

    counts, line = await sync(fake, capsys)
    assert counts == {"GET": 1, "POST": FACES}
    assert f"{FACES} uploaded, 0 outdated deleted, 0 unchanged" in line
    names = {e.name for e in fake.app_emojis.values()}
    assert len(names) == FACES + 1 and all(owned(name) for name in names - {"skybo_logo"})
    for emoji in fake.app_emojis.values():
        assert emoji is logo or (emoji.image.startswith(b"\x89PNG") and len(emoji.image) < 256 * 1024)

    counts, line = await sync(fake, capsys)
    assert counts == {"GET": 1}
    assert f"0 uploaded, 0 outdated deleted, {FACES} unchanged" in line

    # A renderer input changes: Skyjo's yellow (its 5 to 8) in the classic look.
    yellow = (skyjo_cards.hex_rgb("#e0b020"), skyjo_cards.YELLOW[1])
    bands = (*skyjo_cards.BANDS[:3], yellow, *skyjo_cards.BANDS[4:])
    monkeypatch.setattr(skyjo_cards, "BANDS", bands)
    skyjo_cards.card_rgb.cache_clear()
    try:
        old = {e.name for e in fake.app_emojis.values()}
        counts, line = await sync(fake, capsys)
        new = {e.name for e in fake.app_emojis.values()}
    finally:
        monkeypatch.undo()
        skyjo_cards.card_rgb.cache_clear()
    assert counts == {"GET": 1, "POST": 4, "DELETE": 4}
    assert f"4 uploaded, 4 outdated deleted, {FACES - 4} unchanged" in line
    changed = {name.rsplit("_", 1)[0] for name in new - old}
    assert changed == {f"card_sk_c_{value}" for value in (5, 6, 7, 8)}
    assert {name.rsplit("_", 1)[0] for name in old - new} == changed
    assert "skybo_logo" in new and len(new) == FACES + 1


async def test_skyjo_panels_show_the_face_up_cards_emojis_in_each_readers_look(
    fake_discord: Any, skybo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = fake_discord
    await sync(fake, capsys)
    bot = await skybo()
    assert len(bot.card_emojis) == FACES
    alice, carol = fake.user("alice"), fake.user("carol")  # carol reads French
    await skybo_command(fake, carol, "display", cards="colourblind")
    table_message, game_id = await start_table(fake, bot, alice, [carol], turn_limit=0)
    table = bot.service.tables[game_id]
    for user in (alice, carol):
        panel = await open_panel(fake, user, table_message)
        while table.state.phase == "reveal" and table.seat_of(user.id) in table.state.seats_to_act():
            await (await fake.click(user, panel, button(panel, "rv"))).answer()
    game = table.state
    rows = game.options.rows
    for user, look in ((alice, "c"), (carol, "b")):
        panel = await open_panel(fake, user, table_message)
        seat = table.seat_of(user.id)
        seen = 0
        for line_index, line in enumerate(panel.components[:rows]):
            for column, cell in enumerate(line["components"]):
                pos = column * rows + line_index
                assert "label" not in cell, cell  # the card's emoji alone: every grid button as wide
                if not game.face_up[seat][pos]:
                    assert is_face(emoji_name(fake, cell), "sk", look, "back"), cell  # the back, no value
                    continue
                value = game.grids[seat][pos]
                seen += 1
                assert is_face(emoji_name(fake, cell), "sk", look, skyjo_face(value)), cell
        assert seen == 2
        if game.turn == seat:  # the discard pile's top card, on the button that takes it
            top = game.discard_pile[-1]
            take = next(b for b in buttons(panel) if b["custom_id"] == button(panel, "md", 1))
            label = t("ui.panel.take", user.locale, value=top)
            assert take["label"] == (label if look == "c" else f"{skyjo_shape(top)} {label}")
            assert is_face(emoji_name(fake, take), "sk", look, skyjo_face(top))


async def test_skipbo_panels_show_the_cards_emojis_in_each_readers_look(
    fake_discord: Any, skybo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = fake_discord
    await sync(fake, capsys)
    bot = await skybo()
    alice, carol = fake.user("alice"), fake.user("carol")
    await skybo_command(fake, alice, "display", cards="colourblind")
    table_message, game_id = await start_skipbo(fake, bot, alice, [carol], turn_limit=0)
    game = bot.service.tables[game_id].state
    looks = {0: "b", 1: "c"}
    panels = {
        0: await open_panel(fake, alice, table_message),
        1: await open_panel(fake, carol, table_message),
    }
    for seat, panel in panels.items():
        stock = game.stocks[seat][-1]
        stock_button = next(b for b in buttons(panel) if "Stock" in b["label"])
        assert is_face(emoji_name(fake, stock_button), "sb", looks[seat], skipbo_face(stock))
    seat = game.turn  # the player to play holds a hand (filled at the start of a turn), on their panel
    hand = own_hand(game.view(seat), seat)
    cells = panels[seat].components[0]["components"]
    assert hand and len(cells) == len(hand)
    for card, cell in zip(hand, cells, strict=True):
        assert is_face(emoji_name(fake, cell), "sb", looks[seat], skipbo_face(card)), cell
        shaped = looks[seat] == "b"
        assert cell["label"] == (f"{skipbo_shape(card)} {card_label(card)}" if shaped else card_label(card))
    waiting = panels[1 - seat].components[0]["components"]  # the other's first row: their stock, no hand
    assert not any(emoji_name(fake, b) and b["label"] == card_label(c) for b in waiting for c in hand)


async def test_without_emoji_support_the_panels_keep_their_squares(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    fake.emoji_support = False  # a Discord without application emojis
    bot = await skybo()
    [refused] = fake.take_rejections()
    assert (refused.status, refused.request.method, refused.request.path) == (
        404,
        "GET",
        f"/applications/{fake.application_id}/emojis",
    )
    assert len(bot.card_emojis) == 0
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=0)
    table = bot.service.tables[game_id]
    panel = await open_panel(fake, alice, table_message)
    while table.state.phase == "reveal" and table.seat_of(alice.id) in table.state.seats_to_act():
        panel = await (await fake.click(alice, panel, button(panel, "rv"))).answer()
    rows, seat = table.state.options.rows, table.seat_of(alice.id)
    grid = [cell for line in panel.components[:rows] for cell in line["components"]]
    assert len(grid) == 12 and not any("emoji" in cell for cell in grid)  # the labels alone
    assert sorted(cell["label"] for cell in grid if cell["label"] != "?") == sorted(
        str(v) for v, up in zip(table.state.grids[seat], table.state.face_up[seat], strict=True) if up
    )
    squares = [b for b in buttons(panel) if b.get("emoji")]  # the discard's button, on Alice's turn
    assert all(emoji_of(b) in SQUARES and "id" not in b["emoji"] for b in squares)


async def test_the_sandbox_bot_syncs_the_faces_at_start(
    fake_discord: Any, connect_bot: Any, db_file: Any
) -> None:
    """``python -m bot sandbox``'s bot (bot/sandbox/run.py) uploads them before it lists them, so the
    sandbox's panels show them; its next start uploads nothing."""
    from bot.sandbox.run import bot_factory

    fake = fake_discord
    make = bot_factory(db_file, ai_delay=0.0)
    bot = await connect_bot(make())
    assert len(fake.app_emojis) == FACES and len(bot.card_emojis) == FACES
    await bot.close()
    posted = len(fake.requests_to("POST", "/applications/{application_id}/emojis"))
    again = await connect_bot(make())
    assert len(again.card_emojis) == FACES
    assert len(fake.requests_to("POST", "/applications/{application_id}/emojis")) == posted == FACES


async def test_emojis_replaced_while_the_bot_runs_cost_one_answer_then_the_new_ones_show(
    fake_discord: Any, skybo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``sync`` run while the bot runs may delete an emoji the bot mapped at start: Discord refuses
    the panel that shows it, the bot forgets its map and lists the emojis again in the background (one
    request), and the next panels show the new emojis' ids."""
    fake = fake_discord
    await sync(fake, capsys)
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=0)
    table = bot.service.tables[game_id]
    panel = await open_panel(fake, alice, table_message)
    while table.state.phase == "reveal" and table.seat_of(alice.id) in table.state.seats_to_act():
        panel = await (await fake.click(alice, panel, button(panel, "rv"))).answer()
    old_ids = {int(b["emoji"]["id"]) for b in buttons(panel) if emoji_name(fake, b)}
    assert old_ids
    await bot.presenter.flush()  # the panel's follow-up edit after the reveals is sent before the delete
    fake.app_emojis.clear()  # every card emoji deleted behind the bot's back, then uploaded anew
    counts, _ = await sync(fake, capsys)
    assert counts == {"GET": 1, "POST": FACES} and not old_ids & set(fake.app_emojis)
    listed = len(fake.requests_to("GET", EMOJI_ROUTES[0]))
    await fake.click(alice, table_message, button(table_message, "op"))  # its answer is refused
    rejection = await fake.wait_rejection(50035)
    assert "BUTTON_COMPONENT_INVALID_EMOJI" in str(rejection.errors)
    await fake.wait_until(
        lambda: bot.card_emojis.relists == 1 and len(bot.card_emojis) == FACES, what="the emojis listed again"
    )
    assert len(fake.requests_to("GET", EMOJI_ROUTES[0])) == listed + 1  # one request
    fake.take_rejections()
    again = await open_panel(fake, alice, table_message)
    faces = [b for b in buttons(again) if "id" in b.get("emoji", {})]
    assert len(faces) >= 12  # the grid's, at least
    for face in faces:  # the new emojis, the same faces
        assert int(face["emoji"]["id"]) in fake.app_emojis and emoji_name(fake, face), face
    assert fake.take_rejections() == [] and bot.card_emojis.relists == 1
