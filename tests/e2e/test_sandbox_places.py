"""The sandbox's group DM and Friends' server (bot/sandbox/places.py) across a ``--keep`` start: the
places have the same ids at every start, so a game kept in the database names a place that exists again.
"""

from __future__ import annotations

from pathlib import Path

from bot.client import BotTuning, create_bot
from bot.sandbox import places
from bot.sandbox.server import Sandbox

from .conftest import start_table

TUNING = BotTuning(ai_delay=0.0, round_delay=30.0, edit_interval=0.0)


async def test_a_group_dm_game_names_the_same_place_after_a_keep_start(tmp_path: Path) -> None:
    database = tmp_path / "sandbox.sqlite3"
    seen: list[tuple[int, int, int | None]] = []
    game_id = None
    for _ in range(2):  # the second sandbox starts on the first one's database, as --keep does
        sandbox = Sandbox(lambda: create_bot(database_path=database, tuning=TUNING), port=0)
        await sandbox.start()
        try:
            fake = sandbox.fake
            group, lounge = places.group_dms(fake)[0], fake.channel(places.FRIENDS_CHANNEL)
            seen.append((group.id, lounge.id, lounge.guild_id))
            alice, chloe = fake.user("alice"), fake.user("chloe")
            if game_id is None:
                _, game_id = await start_table(fake, sandbox.bot, alice, [chloe], channel=group, turn_limit=0)
            stored = await sandbox.bot.service.ledger.get_game(game_id)
            assert stored.off_server and stored.channel_id == group.id and stored.status != "finished"
            assert sandbox.problems == []
        finally:
            await sandbox.stop()
    assert seen[0] == seen[1]
