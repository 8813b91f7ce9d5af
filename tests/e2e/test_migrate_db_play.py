"""``migrate-db`` for a server admin: a bot on SQLite with a finished game and a game in play stops, its
database moves to PostgreSQL, and a bot on PostgreSQL goes on: the game in play resumes where it was,
the buttons posted before the move still work, it plays to its end and the ratings of both games add up."""

from __future__ import annotations

import random
from typing import Any

from bot.service.ledger import GameLedger, replay_log
from bot.storage.migrate import migrate

from .conftest import FAST, BotDatabase, act_of, button, open_panel, play_turns, start_table, until_turn


async def test_a_game_in_play_moves_to_postgresql_and_goes_on_with_its_buttons(
    fake_discord: Any, skybo: Any, database: BotDatabase, pg_dsn: str
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    rng = random.Random(4)
    on_sqlite = database.bot(FAST)
    async with fake.running(on_sqlite, sync_commands=True):
        # One game played to its end (rated), one in play in another channel.
        done_message, done_id = await start_table(fake, on_sqlite, alice, [bob], score_limit=10)
        await play_turns(fake, on_sqlite, done_id, done_message, [alice, bob], rng)
        await fake.wait_until(lambda: any(act_of(c) == "rm" for c in done_message.custom_ids), what="Rematch")
        table_message, game_id = await start_table(
            fake, on_sqlite, bob, [alice], channel=fake.channel("games"), score_limit=60, computers=1
        )
        table = await until_turn(fake, on_sqlite, game_id, table_message, alice, rng)
        old_panel = await open_panel(fake, alice, table_message)
        version, state = table.version, table.state.to_dict()
        board_before = await on_sqlite.service.storage.ratings.leaderboard("skyjo")
    assert on_sqlite.is_closed()

    report = migrate(database.path, pg_dsn, replay=replay_log)
    assert report.games_by_status == {"active": 1, "finished": 1}, report

    on_postgres = BotDatabase(database.path, pg_dsn).bot(FAST)
    async with fake.running(on_postgres, sync_commands=True):
        assert on_postgres.service.storage.db.where.startswith("PostgreSQL")
        table = on_postgres.service.tables[game_id]
        assert table.version == version and table.state.to_dict() == state
        await fake.wait_until(lambda: "live again" in table_message.text, what="the table live again")
        # Alice's panel from before the move: Draw, then a card to replace, in place.
        inter = await fake.click(alice, old_panel, button(old_panel, "dr"))
        assert (await inter.answer()).id == old_panel.id
        assert table.version == version + 1
        await play_turns(fake, on_postgres, game_id, table_message, [alice, bob], rng)
        storage = on_postgres.service.storage
        stored = await GameLedger(storage).get_game(game_id, verify=True)
        assert stored.status == "finished" and stored.verified
        # The board counts both games: the one copied over and the one finished on PostgreSQL.
        board = await storage.ratings.leaderboard("skyjo")
        games_before = {row.player: row.games for row in board_before.rows}
        assert {row.user_id for row in board.rows} >= {alice.id, bob.id}
        for row in board.rows:
            if row.user_id in (alice.id, bob.id):
                assert row.games == games_before[row.player] + 1, (row, games_before)
        # A new game on PostgreSQL gets an id after the copied ones.
        assert game_id > done_id
