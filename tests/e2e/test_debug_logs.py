"""Logs keep secrets at DEBUG (issue 23, item 4): whole games logged through the real ``setup_logging``.

The bot plays a Skyjo and a Skip-Bo table against computer players, humans clicking their private
panels, with ``setup_logging("DEBUG", ...)`` writing to a captured stream (the real filter and formatter
of production). Then the whole log is searched for every credential and every private content the fake
Discord saw: each interaction's token, the bot token, and each private message's text and buttons in
every version the fake holds (the panels are edited in place: ``FakeMessage.history``). Without the
filter, discord.gateway's DEBUG lines print each INTERACTION_CREATE verbatim (its token, and the clicked
panel with the hand's buttons) and discord.webhook's print each callback URL with its token.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import random
import re
from collections.abc import Iterator
from typing import Any

from bot.logs import QUIET_LOGGERS, setup_logging
from fakecord import ErrorLogCollector, FakeDiscord, FakeMessage

from .conftest import play_turns, start_table
from .skipbo_helpers import Clicker, start_skipbo

MIN_LINE = 12  # shorter panel lines ("Refresh", a card's "7") could match by chance; longer ones cannot


@contextlib.contextmanager
def debug_logging(fake: FakeDiscord, collector: ErrorLogCollector) -> Iterator[io.StringIO]:
    """Production logging at DEBUG into a string, then the test process's logging as it was."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    quiet = {name: logging.getLogger(name).level for name in QUIET_LOGGERS}
    stream = io.StringIO()
    setup_logging("DEBUG", secrets=[fake.token], stream=stream)
    root.addHandler(collector)  # setup_logging owns the root: keep failing the test on ERROR records
    try:
        yield stream
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        for name, was in quiet.items():
            logging.getLogger(name).setLevel(was)


def text_lines(payload: dict[str, Any]) -> list[str]:
    """The lines a reader sees in a message payload: content, embeds, text displays, button labels."""
    parts = [payload.get("content") or ""]
    for embed in payload.get("embeds") or []:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [f.get(k) or "" for f in embed.get("fields") or [] for k in ("name", "value")]
        parts.append((embed.get("footer") or {}).get("text") or "")
    stack = list(payload.get("components") or [])
    while stack:
        component = stack.pop()
        stack += component.get("components") or []
        parts += [component.get("content") or "", component.get("label") or ""]
    return [line for part in parts for line in part.split("\n") if len(line.strip()) >= MIN_LINE]


def custom_ids(payload: dict[str, Any]) -> list[str]:
    found, stack = [], list(payload.get("components") or [])
    while stack:
        component = stack.pop()
        stack += component.get("components") or []
        if component.get("custom_id"):
            found.append(component["custom_id"])
    return found


def written_forms(line: str) -> set[str]:
    """``line`` as a log could print it: as is, in a Python repr, in JSON text (escaped or not)."""
    return {line, repr(line)[1:-1], json.dumps(line)[1:-1], json.dumps(line, ensure_ascii=False)[1:-1]}


def private_needles(fake: FakeDiscord) -> dict[str, str]:
    """Every private message's lines and button ids, in every version: needle -> what it is.

    A panel's button ids name the game, its version and the button's act and argument: a Skip-Bo hand
    button's argument is the card it holds (``sb:<game>:<version>:md:1<card>``), so an id in the log is
    a card of a hand in the log."""
    needles: dict[str, str] = {}
    private: list[FakeMessage] = [m for m in fake.messages.values() if m.ephemeral]
    for message in private:
        for version in [*message.history, message.payload()]:
            for line in text_lines(version):
                for form in written_forms(line):
                    needles[form] = f"a line of private message {message.id}: {line!r}"
            for custom_id in custom_ids(version):
                needles[custom_id] = f"a button of private message {message.id}: {custom_id}"
    return needles


def assert_keeps_secrets(log: str, fake: FakeDiscord) -> None:
    tokens = [inter.token for inter in fake.interactions.values()]
    assert len(tokens) > 20, "the games went through many interactions"
    leaked = [token for token in tokens if token in log]
    assert not leaked, f"{len(leaked)} interaction tokens in the log, e.g. {leaked[0]}"
    assert fake.token not in log, "the bot token is in the log"
    needles = private_needles(fake)
    hand_buttons = [n for n in needles if n.startswith("sb:") and ":md:1" in n]
    assert len(needles) > 100 and len(hand_buttons) > 20, "the games showed many private panels"
    found = sorted({what for needle, what in needles.items() if needle in log})
    assert not found, f"{len(found)} private contents in the log, e.g. {found[:3]}"


def assert_debug_log(log: str) -> None:
    """The log is a DEBUG log of the games, so the searches above could have found something."""
    lines = log.splitlines()
    assert len(lines) > 300, f"only {len(lines)} log lines"
    assert any(" DEBUG discord.client Dispatching event interaction" in line for line in lines)
    # discord.py's lines that carried the tokens and panels are still there, without them.
    events = [line for line in lines if " DEBUG discord.gateway " in line and "t=INTERACTION_CREATE" in line]
    assert len(events) > 20, "each interaction's gateway event is logged (its kind and sequence)"
    # discord.webhook's lines name each route with an interaction's token in it (edits of a panel).
    routes = re.findall(r"/(?:webhooks|interactions)/\d+/([^/\s]+)", log)
    assert len(routes) > 20 and set(routes) == {"[redacted]"}, sorted(set(routes))[:3]
    assert any(" INFO bot.service game started " in line for line in lines)
    assert sum(" INFO bot.service game finished " in line for line in lines) == 2


async def test_whole_games_at_debug_log_no_token_and_no_private_card(
    fake_discord: Any, skybo: Any, discord_error_log: ErrorLogCollector
) -> None:
    fake = fake_discord
    with debug_logging(fake, discord_error_log) as stream:
        bot = await skybo()
        alice, carol = fake.user("alice"), fake.user("carol")  # carol reads French
        # A private answer to a command: the rules, in the asker's language.
        rules = await (await fake.run_command(carol, "skyjo", "rules")).original()
        assert rules.ephemeral

        # Skyjo: Alice against a computer player, from her panel, to the end of the game.
        table_message, game_id = await start_table(
            fake, bot, alice, [], score_limit=10, computers=1, turn_limit=0
        )
        clicks = await play_turns(fake, bot, game_id, table_message, [alice], random.Random(3))
        assert clicks > 5 and game_id not in bot.service.tables

        # Skip-Bo: Carol (host) and Alice against a computer player, each from their panel, to the end.
        skipbo_channel = fake.add_channel("skipbo")
        table_message, game_id = await start_skipbo(
            fake, bot, carol, [alice], channel=skipbo_channel, stock_size=5, computers=1, turn_limit=0
        )
        clicker = Clicker(fake, bot, game_id, table_message, [alice, carol], random.Random(11))
        await clicker.play(max_moves=600)
        assert clicker.moves > 10 and game_id not in bot.service.tables
        await bot.presenter.flush()
    log = stream.getvalue()
    assert_keeps_secrets(log, fake)
    assert_debug_log(log)
