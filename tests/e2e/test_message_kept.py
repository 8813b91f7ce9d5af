"""A table message posted while the database is away keeps its id (bot.service.reloads
``keep_message_id``), through the fake Discord on SQLite and PostgreSQL.

A moderator deletes the table message; the bot finds out at its next edit (Discord's 10008) and posts a
new one. The database goes away (every read and write fails as its backend fails when a connection
drops) the moment that message is posted, before its id is stored. The table keeps editing that
message (the id serves from memory), the reloader stores the id once the database answers, and a
restart edits the same message: there is never a second table message in the channel. Before, the
failed write was logged as an error, and a restart posted a second table.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from bot.service import Table
from bot.service.events import TableChanged
from bot.service.snapshots import TableSnapshot
from bot.ui import ids

from .conftest import BOTH_BACKENDS, BotDatabase, start_table
from .test_tournament_ends import Away


def _table_messages(fake: Any, game_id: int) -> list[Any]:
    """The channel's messages with a button of this game (its table messages)."""
    return [
        m
        for m in fake.channel_messages(fake.channel("general"))
        if not m.deleted
        and any((b := ids.decode(c)) is not None and b.game_id == game_id for c in m.custom_ids)
    ]


@BOTH_BACKENDS
async def test_a_table_message_posted_while_the_database_is_away_keeps_its_id(
    fake_discord: Any, skybo: Any, database: BotDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    first = database.bot()
    async with fake.running(first, sync_commands=True):
        away = Away(first.service.storage.db, database.kind, monkeypatch)
        keep = first.service.keep_message_id
        kept: list[int] = []

        async def away_then_keep(table: Table, message_id: int) -> None:
            away.start()  # the message is posted; storing its id meets the database away
            kept.append(message_id)
            await keep(table, message_id)

        table_message, game_id = await start_table(fake, first, alice, [bob])
        table = first.service.tables[game_id]
        await first.presenter.flush()
        monkeypatch.setattr(first.service, "keep_message_id", away_then_keep)
        table_message.deleted = True  # by a moderator: the bot learns it at its next edit
        # A redraw, as the service's next event asks (test code may publish on the bus).
        first.service.bus.publish(TableChanged(snapshot=TableSnapshot.of(table), cause="resumed"))
        await fake.wait_until(lambda: kept, what="a new table message posted")
        (posted,) = _table_messages(fake, game_id)
        assert kept == [posted.id] and posted.id != table_message.id
        assert len(fake.take_rejections(10008)) == 1  # the edit of the deleted message
        await fake.wait_until(
            lambda: time.monotonic() >= away.until and not table.message_unsaved, 15, what="the id stored"
        )
        assert away.refused > 0
        stored = await first.service.ledger.get_game(game_id)
        assert stored.message_id == posted.id
        assert _table_messages(fake, game_id) == [posted]

    # A new process on the same database edits that message ("live again"), posts no other.
    second = await skybo()
    assert second.service.tables[game_id].stored.message_id == posted.id
    await fake.wait_until(lambda: "live again" in posted.text, what="the table live again")
    await second.presenter.flush()
    assert _table_messages(fake, game_id) == [posted]
    assert kept == [posted.id]
