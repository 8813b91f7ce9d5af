"""A whole Skyjo game through the fake Discord: lobby, table, private panels, computer player, results."""

from __future__ import annotations

import random
from typing import Any

from bot.service.ledger import GameLedger
from bot.ui import ids

from .conftest import (
    BOTH_BACKENDS,
    BotDatabase,
    act_of,
    button,
    open_lobby,
    open_panel,
    play_turns,
    start_table,
)
from .reading import gallery_urls, players_of


@BOTH_BACKENDS
async def test_two_humans_and_a_computer_play_a_whole_game(
    fake_discord: Any, skybo: Any, database: BotDatabase
) -> None:
    fake = fake_discord
    bot = await skybo()
    assert bot.service.storage.db.where.startswith("PostgreSQL") == (database.kind == "postgres")
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], score_limit=150, computers=1)
    assert "Alice" in table_message.text and "Bob" in table_message.text
    assert {act_of(c) for c in table_message.custom_ids} == {"op", "ru", "lv"}
    # Nothing hidden is shown: the humans have not turned a card yet, so their grids are all backs
    # (the players' lines beside the picture: nothing showing).
    await bot.presenter.flush()
    lines = {line.split("**")[1]: line for line in players_of(table_message)}
    assert lines["Alice"].endswith("0 pts · shows 0") and lines["Bob"].endswith("0 pts · shows 0")
    # The picture of the table is attached to the message and shown in its media gallery.
    assert [a.filename for a in table_message.attachments] == ["skybo-table.png"]
    assert table_message.attachments[0].data.startswith(b"\x89PNG")
    assert gallery_urls(table_message)[0].endswith("skybo-table.png")

    clicks = await play_turns(fake, bot, game_id, table_message, [alice, bob], random.Random(7))
    assert clicks > 10

    # The game is over: standings on the table message, a Rematch button, the result stored.
    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="Rematch")
    stored = await GameLedger(bot.service.storage).get_game(game_id)
    assert stored.status == "finished"
    assert stored.state.is_over and max(stored.state.totals) >= 150
    rows = await bot.service.storage.db.run(
        lambda c: c.execute("SELECT count(*) FROM game_results WHERE game_id = ?", (game_id,)).fetchone()
    )
    assert rows[0] == 3
    ratings = await bot.service.storage.db.run(
        lambda c: c.execute("SELECT count(*) FROM rating_history WHERE game_id = ?", (game_id,)).fetchone()
    )
    assert ratings[0] > 0
    assert "Final standings" in table_message.text
    assert "Rating changes" in table_message.text  # each human's change, under the standings
    assert len(table_message.attachments) == 1  # edited in place: one picture, the latest
    # Every round after the first was dealt by the humans clicking Next round (the timer is 30 s).
    # The game ended exactly when a total reached the limit (SKY-GAME-1), rounds dealt by Next round.
    totals = [0, 0, 0]
    for number, played in enumerate(stored.state.rounds, start=1):
        totals = [a + b for a, b in zip(totals, played.scores, strict=True)]
        assert (max(totals) >= 150) == (number == len(stored.state.rounds))
    assert stored.state.round == len(stored.state.rounds)

    # Rematch: a new lobby with the same settings, hosted by the clicker, the computer seated again and
    # Alice asked to join (tests/e2e/test_refusals.py follows her in).
    inter = await fake.click(bob, table_message, button(table_message, "rm"))
    lobby = await inter.answer()  # acknowledged first, then the lobby is a public follow-up
    assert not lobby.ephemeral and lobby.id != table_message.id
    assert "Bob" in lobby.text and "Alice, click Join the rematch" in lobby.text and "🤖" in lobby.text
    assert any(c.endswith(":st") for c in lobby.custom_ids)


async def test_lobby_rules_and_second_new_links_to_the_current_table(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    await skybo()
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    lobby = await open_lobby(fake, alice)
    assert not lobby.ephemeral

    # A second /skyjo new in the channel: a private link to the current table.
    inter = await fake.run_command(bob, "skyjo", "new")
    answer = await inter.original()
    assert answer.ephemeral and answer.visible_to == bob.id
    assert str(lobby.id) in answer.text

    # Start is for the host only, and needs two seats.
    start = next(c for c in lobby.custom_ids if c.endswith(":st"))
    before = len(lobby.history)
    refused = await (await fake.click(bob, lobby, start)).answer()
    assert refused.ephemeral and refused.visible_to == bob.id and "Only the host" in refused.text
    refused = await (await fake.click(alice, lobby, start)).answer()
    assert "At least 2 seats" in refused.text
    assert len(lobby.history) == before  # nothing changed

    # Join, join twice, leave; carol reads French.
    join = next(c for c in lobby.custom_ids if c.endswith(":jn"))
    await (await fake.click(carol, lobby, join)).response()
    await fake.wait_until(lambda: "Carol" in lobby.text, what="carol seated")
    twice = await (await fake.click(carol, lobby, join)).answer()
    assert "Tu es déjà à cette table." in twice.text
    add_ai = next(c for c in lobby.custom_ids if c.endswith(":ai"))
    await (await fake.click(carol, lobby, add_ai)).response()
    await fake.wait_until(lambda: "🤖" in lobby.text, what="a computer seated")
    leave = next(c for c in lobby.custom_ids if c.endswith(":lv"))
    await (await fake.click(carol, lobby, leave)).response()
    await fake.wait_until(lambda: "Carol" not in lobby.text, what="carol gone")

    await (await fake.click(alice, lobby, start)).response()
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table")
    rules = await (await fake.click(bob, lobby, button(lobby, "ru"))).original()
    assert rules.ephemeral and "Skyjo" in rules.text
    # Bob is not seated: his My grid answer is a private reason.
    nope = await (await fake.click(bob, lobby, button(lobby, "op"))).original()
    assert nope.ephemeral and "You are not playing at this table." in nope.text
    panel = await open_panel(fake, alice, lobby)
    assert len(panel.components) == 4  # 3 grid rows + actions
    assert all(ids.decode(c) is not None for c in panel.custom_ids)
