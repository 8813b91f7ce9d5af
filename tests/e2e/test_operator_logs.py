"""What an operator reads at INFO (issue 38 item 10b): one line per table event that matters (a table
opened, a game started, a game finished) and the errors, never one line per move. The moves, refused
clicks and long games' letters are at DEBUG (``LOG_LEVEL=DEBUG`` shows them). Before, the terminal of
``make run`` got one INFO line per move (739 lines in half an hour) and the sandbox's address was lost
among them."""

from __future__ import annotations

import logging
import random
from typing import Any

import pytest

from .conftest import button, play_turns, private_answer, reveal_own_cards, start_table

# The INFO lines a whole game may write, in order: the lobby, the start, the end.
TABLE_EVENTS = ["lobby opened", "game started", "game finished"]


def ours(record: logging.LogRecord) -> bool:
    return record.name.split(".")[0] in ("bot", "cogs")


async def test_a_whole_game_logs_its_table_events_at_info_and_its_moves_at_debug(
    fake_discord: Any, skybo: Any, caplog: pytest.LogCaptureFixture
) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    caplog.set_level(logging.DEBUG, logger="bot")
    caplog.set_level(logging.DEBUG, logger="cogs")

    options = {"score_limit": 10, "computers": 1, "turn_limit": 0}
    table_message, game_id = await start_table(fake, bot, alice, [], **options)
    # A click refused: Bob, who has no seat, tries to leave the table.
    refused = await private_answer(await fake.click(bob, table_message, button(table_message, "lv")))
    assert refused.ephemeral
    await reveal_own_cards(fake, alice, table_message, bot.service.tables[game_id])
    clicks = await play_turns(fake, bot, game_id, table_message, [alice], random.Random(7))
    await fake.wait_until(lambda: f"#{game_id}" in table_message.text, what="the final footer")

    records = [r for r in caplog.records if ours(r)]
    info = [r.getMessage() for r in records if r.levelno >= logging.INFO]
    assert info == TABLE_EVENTS, info
    finished = next(r for r in records if r.getMessage() == "game finished")
    # Dealt rated (computers are rated by default) and finished by the rules: rated, with its changes.
    assert getattr(finished, "rated", None) is True and getattr(finished, "ratings", 0) > 0
    debug = [r.getMessage() for r in records if r.levelno == logging.DEBUG]
    moves = debug.count("move committed")
    assert moves >= clicks > 10, (moves, clicks)  # Alice's moves and the computer's, each one line
    assert debug.count("click refused") == 1


async def test_the_finished_line_of_a_game_ended_by_hand_says_unrated(
    fake_discord: Any, skybo: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Two humans: a game dealt rated. Ended by hand (``/skyjo end``), it is cancelled, unrated, and
    its "game finished" line says so (before: ``rated=True``, as it was dealt)."""
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    caplog.set_level(logging.INFO, logger="bot")
    _, game_id = await start_table(fake, bot, alice, [bob])
    assert bot.service.tables[game_id].stored.rated
    question = await (await fake.run_command(alice, "skyjo", "end")).answer()
    await (await fake.click(alice, question, button(question, "ey"))).answer()
    finished = [r for r in caplog.records if r.getMessage() == "game finished"]
    assert len(finished) == 1 and getattr(finished[0], "game_id", None) == game_id
    assert getattr(finished[0], "rated", None) is False and getattr(finished[0], "ratings", None) == 0
