"""Cards everyone can read (issue 28 item 7) through the fake Discord, in English and French.

``/skybo display cards:colourblind``: the public table picture is drawn with the colour-blind cards
while a human player of the table chose them (someone else's choice does not change it), and a replay
in the asker's own choice. ``/skybo display table:text``: the player's private panel carries the whole
table in words, within Discord's 2000 characters, without a face-down value or another player's hand.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bot.games.registry import BY_KIND
from bot.i18n import translate as t
from bot.render.images import picture_labels
from bot.service.ledger import GameLedger
from bot.ui import replay

from .conftest import open_panel, play_turns, reveal_own_cards, start_table
from .skipbo_helpers import Clicker, start_skipbo
from .test_prefs import skybo_command

TITLES = {"en-US": "📝 **The table in words**", "fr": "📝 **La table en mots**"}


def public_picture(bot: Any, game_id: int, cards: str) -> bytes:
    """The table picture as the presenter must draw it now, with ``cards``."""
    table = bot.service.tables[game_id]
    kind = table.stored.kind
    image = BY_KIND[kind].image
    locale = bot.service.public_locale(table.stored.guild_id, "en-US")
    labels = picture_labels(kind, image.DEFAULT_LABELS, locale)
    return bytes(image.render_table(table.state.view(None), table.names(), "dark", labels, cards))


async def shows(fake: Any, bot: Any, table_message: Any, game_id: int, cards: str) -> None:
    """The table message comes to show the picture drawn with ``cards`` as the game stands (a computer
    player may still be moving when the test looks: the picture follows it)."""

    def drawn() -> bool:
        assert [a.filename for a in table_message.attachments] == ["skybo-table.png"]
        return bytes(table_message.attachments[0].data) == public_picture(bot, game_id, cards)

    await bot.presenter.flush()
    await fake.wait_until(drawn, what=f"the table drawn with the {cards} cards")


async def replay_step0(fake: Any, user: Any, game_id: int) -> Any:
    inter = await fake.run_command(user, "skyjo", "replay", options={"game": str(game_id)})
    shown = await inter.original()
    assert shown.ephemeral and shown.visible_to == user.id
    return shown


async def replay_picture(fake: Any, user: Any, game_id: int) -> bytes:
    return bytes((await replay_step0(fake, user, game_id)).attachments[0].data)


def replay_render(bot: Any, stored: Any, actions: Any, locale: str, cards: str) -> bytes:
    frame = replay.frame_at(stored, actions, 0)
    image = BY_KIND[stored.kind].image
    labels = picture_labels(stored.kind, image.DEFAULT_LABELS, locale)
    names = replay.seat_names(stored, locale)  # a computer's a ComputerName, drawn on two lines
    return bytes(image.render_table(frame.view, names, "dark", labels, cards))


@pytest.mark.parametrize("username", ["alice", "carol"])
async def test_colourblind_cards_on_the_table_of_a_player_who_chose_them_and_in_their_replays(
    fake_discord: Any, skybo: Any, username: str
) -> None:
    fake = fake_discord
    bot = await skybo()
    user, bob = fake.user(username), fake.user("bob")
    # Bob, who does not play here, chose the colour-blind cards: the table keeps the classic ones.
    await skybo_command(fake, bob, "display", cards="colourblind")
    table_message, game_id = await start_table(
        fake, bot, user, [], score_limit=10, finisher_multiplier=1, computers=1, turn_limit=0
    )
    classic, safe = public_picture(bot, game_id, "classic"), public_picture(bot, game_id, "colourblind")
    assert classic != safe
    await shows(fake, bot, table_message, game_id, "classic")

    # The player chooses them (privately, in their language): the next edit of the table has them.
    answer = await skybo_command(fake, user, "display", cards="colourblind")
    assert t("prefs.cards.colourblind", user.locale) in answer.text
    table = bot.service.tables[game_id]
    panel = await open_panel(fake, user, table_message)
    await (await fake.click(user, panel, next(c for c in panel.custom_ids if ":rv:" in c))).answer()
    await fake.wait_until(lambda: table.version > 0, what="the reveal")
    await shows(fake, bot, table_message, game_id, "colourblind")

    # Back to the classic cards: the table follows at its next edit.
    await skybo_command(fake, user, "display", cards="classic")
    await reveal_own_cards(fake, user, table_message, table)
    await shows(fake, bot, table_message, game_id, "classic")

    # A replay is drawn for the one who asks: in their cards.
    await play_turns(fake, bot, game_id, table_message, [user], random.Random(3))
    await fake.wait_until(lambda: f"#{game_id}" in table_message.text, what="the final footer")
    storage = bot.service.storage
    stored, actions = await GameLedger(storage).get_game(game_id), await storage.games.actions(game_id)
    mine = replay_render(bot, stored, actions, user.locale, "classic")
    assert await replay_picture(fake, user, game_id) == mine
    bobs = replay_render(bot, stored, actions, bob.locale, "colourblind")
    assert bobs != replay_render(bot, stored, actions, bob.locale, "classic")
    assert await replay_picture(fake, bob, game_id) == bobs
    # Bob turns embeds off too: his replay says the table in words, every card face down at the deal.
    assert words_of(await replay_step0(fake, bob, game_id), bob.locale) == []
    await skybo_command(fake, bob, "display", table="text")
    words = words_of(await replay_step0(fake, bob, game_id), bob.locale)
    grids = [line for line in words if re.match(r"^\s+1: ", line)]
    assert len(grids) == 2
    assert {cell for line in grids for cell in grid_cells(line)} == {"?"}


def grid_cells(line: str) -> list[str]:
    """The cells of a Skyjo words line ``  1: 3 ? -2 · 2: …``, column by column."""
    return [cell for part in line.strip().split(" · ") for cell in part.split(": ", 1)[1].split(" ")]


def words_of(panel: Any, locale: str) -> list[str]:
    """The table-in-words lines of a panel's text (empty if it has none)."""
    text = str(panel.text)
    assert len(text) <= 2000
    start = text.find(TITLES[locale])
    return [] if start < 0 else text[start:].splitlines()


@pytest.mark.parametrize("username", ["alice", "carol"])
async def test_the_table_in_words_in_the_panel_of_a_player_who_chose_text(
    fake_discord: Any, skybo: Any, username: str
) -> None:
    fake = fake_discord
    bot = await skybo()
    user, bob = fake.user(username), fake.user("bob")
    await skybo_command(fake, user, "display", table="text")
    table_message, game_id = await start_table(fake, bot, user, [bob], computers=1, turn_limit=0)
    table = bot.service.tables[game_id]
    followed = await reveal_own_cards(fake, user, table_message, table)
    assert words_of(followed, user.locale)
    await reveal_own_cards(fake, bob, table_message, table)
    # The panel the bot keeps in step with the game (the reveals are over: someone's turn) has the
    # words too, as the game now stands.
    await bot.presenter.flush()
    playing = table.names(user.locale)[table.state.turn]
    assert any(line.startswith(f"▶ **{playing}**") for line in words_of(followed, user.locale))
    panel = await open_panel(fake, user, table_message)
    words = words_of(panel, user.locale)
    assert words, panel.text
    # Every player, with their grid column by column: a face-down card is "?" whatever its value.
    game = table.state
    players = [line for line in words[1:] if "**" in line and " — " in line]
    assert len(players) == 3
    grids = [line.strip() for line in words if re.match(r"^\s+1: ", line)]
    assert len(grids) == 3
    for seat, line in enumerate(grids):
        cells = grid_cells(line)
        for pos, cell in enumerate(cells):
            if game.face_up[seat][pos]:
                assert cell == str(game.grids[seat][pos])
            else:
                assert cell == "?", f"a face-down card shown: {line}"
    discard = game.discard_pile[-1]
    assert any(f": {discard} " in line for line in words[:4])
    # Bob kept the picture: his panel has no words.
    assert words_of(await open_panel(fake, bob, table_message), bob.locale) == []


@pytest.mark.parametrize("username", ["alice", "carol"])
async def test_skipbo_words_show_the_own_hand_and_no_other(
    fake_discord: Any, skybo: Any, username: str
) -> None:
    fake = fake_discord
    bot = await skybo()
    user, bob = fake.user(username), fake.user("bob")
    await skybo_command(fake, user, "display", table="text")
    table_message, game_id = await start_skipbo(fake, bot, user, [bob], computers=1, turn_limit=0)
    table = bot.service.tables[game_id]
    seat = table.seat_of(user.id)
    # Play to the player's turn, when their hand holds five cards.
    await Clicker(fake, bot, game_id, table_message, [bob], random.Random(4)).play(
        until=lambda: table.state.turn == seat
    )
    panel = await open_panel(fake, user, table_message)
    words = words_of(panel, user.locale)
    assert words, panel.text
    assert len(table.state.hands[seat]) == 5
    hand_line = words[-1]
    wild = t("skipbo.card.wild", user.locale)
    own = sorted(table.state.hands[seat])
    assert hand_line.endswith(": " + ", ".join(wild if c == 0 else str(c) for c in own))
    # One hand in words: the clicker's. The others are counted, as on the table.
    assert sum(1 for line in words if line.startswith(hand_line.split(":")[0])) == 1
    players = [line for line in words[1:] if "**" in line and " — " in line]
    assert len(players) == 3
    for line, hand in zip(players, table.state.hands, strict=True):
        assert f": {len(hand)} " in line.split("·")[-1], line
