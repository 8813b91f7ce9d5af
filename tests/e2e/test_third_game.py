"""A third game through the protocol: "highest card wins" (tests/e2e/highcard/, a folder, nothing
else) played from lobby to result by the real bot through the fake Discord.

The registry learns the game for this test only, by one call (``registry.register``: a real game's one
line in ``GAMES``); its ``/highcard`` group is built from the game's own ``new`` (data) like every
game's, and everything after it is the shared machinery: the lobby's Join and Start buttons, the table
message, private panels, the computer player, the rules button and the result. No module of ``bot/``
or ``cogs/`` names it (tests/unit/test_games_named.py checks every game's name, this one's too).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bot.games import registry
from bot.service.ledger import GameLedger
from bot.storage.games import FINISHED

from .conftest import FAST, BotDatabase, act_of, button, open_panel, private_answer
from .highcard import HIGHCARD


@pytest.fixture
def highcard() -> Iterator[None]:
    registry.register(HIGHCARD)  # the one line: the game's folder is all the rest
    try:
        yield
    finally:
        registry.unregister(HIGHCARD)


async def test_a_game_that_is_only_a_folder_plays_from_lobby_to_result(
    fake_discord: Any, connect_bot: Any, database: BotDatabase, highcard: None
) -> None:
    fake = fake_discord
    bot = database.bot(FAST)
    await connect_bot(bot, sync_commands=True)
    # Its group was built like every game's: its own new, then the shared subcommands.
    synced = fake.global_commands["highcard"]
    assert [option["name"] for option in synced["options"]] == ["new", "replay", "rules", "end", "kick"]
    assert synced["description"] == "Highest card wins"  # from its own catalogue folder
    assert synced["description_localizations"] == {"fr": "La plus haute carte gagne"}
    alice, bob = fake.user("alice"), fake.user("bob")

    lobby = await (await fake.run_command(alice, "highcard", "new", options={"computers": 1})).original()
    assert "Highest card" in lobby.text and "One card each; the highest wins." in lobby.text
    await (await fake.click(bob, lobby, lobby.custom_ids[0])).response()
    await fake.wait_until(lambda: bob.global_name in lobby.text, what="Bob in the lobby")
    await (await fake.click(alice, lobby, next(c for c in lobby.custom_ids if c.endswith(":st")))).response()
    table = await fake.wait_until(
        lambda: next((t for t in bot.service.tables.values() if t.stored.message_id == lobby.id), None),
        what="the game",
    )
    assert table.stored.kind == "highcard" and table.game is HIGHCARD
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table buttons")
    assert {act_of(c) for c in lobby.custom_ids} == {"op", "ru", "lv"}
    assert "My hand" in lobby.button_labels

    rules = await private_answer(await fake.click(bob, lobby, button(lobby, "ru")))
    assert "the highest card wins" in rules.text

    humans = {table.seat_of(user.id): user for user in (alice, bob)}
    game_id, shown = table.id, 0
    while not table.state.is_over:
        seat = await fake.wait_until(lambda: table.state.is_over or table.state.turn in humans, what="a turn")
        if table.state.is_over:
            break
        user = humans[table.state.turn]
        panel = await open_panel(fake, user, lobby)
        assert f"Show my {table.state.cards[table.seat_of(user.id)]}" in panel.button_labels
        await (await fake.click(user, panel, button(panel, "sw"))).answer()
        shown += 1
        assert seat is not None
    assert shown == 2  # each human showed their card; the computer player showed its own

    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in lobby.custom_ids), what="Rematch")
    winner = max(range(3), key=lambda s: table.state.cards[s])
    assert f"Winner: {table.names()[winner]}" in lobby.text
    assert all(f"showed a {card}" in lobby.text for card in table.state.cards)
    stored = await GameLedger(bot.service.storage).get_game(game_id, verify=True)  # its log replays to it
    assert stored.status == FINISHED and stored.state.results()["winners"] == [winner]
