"""A disk that fills up during play: the move is refused to the clicker alone ("could not be saved;
nothing changed"), nothing is stored or shown, and the same click works once there is room again
(issue 23 item 6, the part that happens after the start)."""

from __future__ import annotations

import contextlib
import sqlite3
from typing import Any

from bot.i18n import translate as t

from .conftest import button, open_panel, private_answer, start_table, until_turn

BALLAST_BYTES = 1 << 20  # 256 pages: far more than any free page the file may hold


def fill_the_disk(conn: sqlite3.Connection) -> None:
    """From now on, a move finds the database full: SQLite raises its real SQLITE_FULL ("database or
    disk is full") from the pager, in the middle of the move's transaction.

    ``max_page_count`` caps the file at its current size (what a full disk does to SQLite), and a
    temporary trigger makes every stored move also need a megabyte, so the refusal does not depend
    on how much room the last page happens to have left."""
    conn.execute("CREATE TABLE IF NOT EXISTS test_ballast (filler BLOB)")
    pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    conn.execute(f"PRAGMA max_page_count = {pages}")
    conn.execute(
        "CREATE TEMP TRIGGER fill_on_move BEFORE INSERT ON main.game_actions"
        f" BEGIN INSERT INTO test_ballast VALUES (zeroblob({BALLAST_BYTES})); END"
    )


def free_some_space(conn: sqlite3.Connection) -> None:
    conn.execute("DROP TRIGGER temp.fill_on_move")
    conn.execute("PRAGMA max_page_count = 1073741823")


async def test_a_move_on_a_full_disk_is_refused_and_changes_nothing(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = await until_turn(fake, bot, game_id, table_message, alice)
    storage = bot.service.storage
    version, stored = table.version, len(await storage.games.actions(game_id))
    await fake.wait_until(lambda: f"{alice.global_name} to play" in table_message.text, what="Alice's turn")
    table_text = table_message.text
    panel = await open_panel(fake, alice, table_message)

    await storage.db.run(fill_the_disk)
    answer = await private_answer(await fake.click(alice, panel, button(panel, "dr")))
    assert answer.text == t("table.error.unavailable", alice.locale)
    assert table.version == version and table.state.drawn is None
    assert len(await storage.games.actions(game_id)) == stored
    assert table_message.text == table_text
    # What a restart would read: no move, no ballast.
    with contextlib.closing(sqlite3.connect(storage.db.path)) as other:
        assert (
            other.execute("SELECT count(*) FROM game_actions WHERE game_id = ?", (game_id,)).fetchone()[0]
            == stored
        )
        assert other.execute("SELECT count(*) FROM test_ballast").fetchone()[0] == 0

    await storage.db.run(free_some_space)
    panel = await open_panel(fake, alice, table_message)
    await (await fake.click(alice, panel, button(panel, "dr"))).answer()
    assert table.version == version + 1 and table.state.drawn is not None
    assert len(await storage.games.actions(game_id)) == stored + 1
