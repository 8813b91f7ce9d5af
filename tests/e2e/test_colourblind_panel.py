"""Issue 38 item 9: a player who chose the colour-blind cards (``/skybo display cards:colourblind``)
finds on their panel's card buttons the same shapes as on the cards of the picture (bot/ui/display.py):
Skyjo below zero ▼, zero ●, 1-4 ■, 5-8 ◆, 9-12 ▲; Skip-Bo 1-4 ■, 5-8 ◆, 9-12 ▲, a Skip-Bo card ★.
A player who did not choose them keeps the coloured squares, without a shape.

Issue 47 item 7: the buttons of Skyjo's grid show one thing each, so that its columns line up (here,
without card emojis: the value alone, ``?`` for a face-down card, in both looks); the shape or the
square stays on the buttons of the discard and the drawn card.
"""

from __future__ import annotations

from typing import Any

from bot.games.skipbo.panel import card_label, own_hand
from bot.i18n import translate as t

from .conftest import button, open_panel, start_table
from .skipbo_helpers import start_skipbo
from .test_prefs import skybo_command

SQUARES = {"🟦", "🟩", "🟨", "🟥", "🃏"}


def skyjo_shape(value: int) -> str:
    return "▼" if value < 0 else "●" if value == 0 else "■" if value <= 4 else "◆" if value <= 8 else "▲"


def skipbo_shape(card: int) -> str:
    return "★" if card == 0 else "■" if card <= 4 else "◆" if card <= 8 else "▲"


def buttons(panel: Any) -> list[dict[str, Any]]:
    return [c for c in panel.all_components() if c.get("type") == 2]


def emoji_of(component: dict[str, Any]) -> str | None:
    emoji = component.get("emoji")
    return None if emoji is None else str(emoji.get("name"))


async def test_skyjo_grid_shows_values_alone_and_the_discard_its_shape_for_a_colourblind_player(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, carol = fake.user("alice"), fake.user("carol")
    await skybo_command(fake, carol, "display", cards="colourblind")
    table_message, game_id = await start_table(fake, bot, alice, [carol], turn_limit=0)
    table = bot.service.tables[game_id]
    panels = {}
    for user in (alice, carol):
        panel = await open_panel(fake, user, table_message)
        while table.state.phase == "reveal" and table.seat_of(user.id) in table.state.seats_to_act():
            await (await fake.click(user, panel, button(panel, "rv"))).answer()
        panels[user.username] = await open_panel(fake, user, table_message)
    game = table.state
    rows = game.options.rows
    for user, shaped in ((alice, False), (carol, True)):
        seat = table.seat_of(user.id)
        panel = panels[user.username]
        seen = 0
        for line_index, line in enumerate(panel.components[:rows]):
            for column, cell in enumerate(line["components"]):
                pos = column * rows + line_index
                assert "emoji" not in cell, cell  # one thing on a grid button: its label
                if not game.face_up[seat][pos]:
                    assert cell["label"] == "?"
                    continue
                seen += 1
                assert cell["label"] == str(game.grids[seat][pos]), cell
        assert seen == 2  # the two cards each turned
        if game.turn == seat:  # the discard's top card, on the button that takes it: its shape or square
            top = game.discard_pile[-1]
            take = next(b for b in buttons(panel) if b["custom_id"] == button(panel, "md", 1))
            label = t("ui.panel.take", user.locale, value=top)
            if shaped:
                assert take["label"] == f"{skyjo_shape(top)} {label}" and "emoji" not in take
            else:
                assert take["label"] == label and emoji_of(take) in SQUARES
    # Nothing else of the panel changed for her: the same buttons, the same ids.
    assert [b["custom_id"] for b in buttons(panels["carol"])] == [
        b["custom_id"] for b in buttons(await open_panel(fake, carol, table_message))
    ]
    # Back to the classic cards: no shape left on her panel.
    await skybo_command(fake, carol, "display", cards="classic")
    again = await open_panel(fake, carol, table_message)
    assert not any(b["label"][0] in "▼●■◆▲★" for b in buttons(again))


async def test_skipbo_cards_on_the_panel_carry_their_shape_for_a_colourblind_player(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, carol = fake.user("alice"), fake.user("carol")
    await skybo_command(fake, alice, "display", cards="colourblind")
    table_message, game_id = await start_skipbo(fake, bot, alice, [carol], turn_limit=0)
    game = bot.service.tables[game_id].state
    alice_seat, carol_seat = 0, 1
    mine, hers = await open_panel(fake, alice, table_message), await open_panel(fake, carol, table_message)
    # The stock top, on each one's own panel.
    stock = game.stocks[alice_seat][-1]
    stock_button = next(b for b in buttons(mine) if "Stock" in b["label"])
    assert stock_button["label"].startswith(f"{skipbo_shape(stock)} Stock: {card_label(stock)} ")
    assert "emoji" not in stock_button
    her_stock = next(b for b in buttons(hers) if "Stock" in b["label"])
    assert her_stock["label"].startswith("Stock : ") and emoji_of(her_stock) in SQUARES
    # The hand of the player to play (Alice deals first with this seed, or Carol): shapes or squares.
    hand_seat = game.turn
    panel, shaped = (mine, True) if hand_seat == alice_seat else (hers, False)
    hand = own_hand(game.view(hand_seat), hand_seat)  # in the panel's order
    assert hand and hand_seat in (alice_seat, carol_seat)
    cards = panel.components[0]["components"]
    assert len(cards) == len(hand)
    for card, component in zip(hand, cards, strict=True):
        if shaped:
            assert (
                component["label"] == f"{skipbo_shape(card)} {card_label(card)}" and "emoji" not in component
            )
        else:
            assert component["label"] == card_label(card) and emoji_of(component) in SQUARES
