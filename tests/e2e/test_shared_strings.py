"""Strings every game shares name no game (issue 47 item 11) through the fake Discord: a busy channel
names the game of the table that holds it (a Skip-Bo table was "a Skyjo table"), and the fair-use cap
lists every game's end command from the registry (the test-only third game of tests/e2e/highcard
included), in English and French. That no shared catalogue names a game at all is
tests/unit/test_games_named.py's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bot.games import registry
from bot.service import Refused
from bot.ui.errors import refusal_text

from .conftest import private_answer
from .highcard import HIGHCARD


async def test_a_busy_channel_names_the_game_of_its_table(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    games = fake.channel("games")
    lobby = await (await fake.run_command(alice, "skipbo", "new", channel=games)).original()
    link = f"https://discord.com/channels/{fake.guild.id}/{games.id}/{lobby.id}"
    for user, command in ((bob, "skipbo"), (bob, "skyjo")):  # whichever game is being opened
        busy = await private_answer(await fake.run_command(user, command, "new", channel=games))
        assert busy.text == f"This channel already has a Skip-Bo table; here it is:\n{link}"
    busy = await private_answer(await fake.run_command(carol, "skyjo", "new", channel=games))
    assert busy.text == f"Ce salon a déjà une table de Skip-Bo ; la voici :\n{link}"
    # Once dealt, the game holds the channel: still named, still linked.
    await (await fake.click(bob, lobby, lobby.custom_ids[0])).response()
    await fake.wait_until(lambda: bob.global_name in lobby.text, what="Bob in the lobby")
    await (await fake.click(alice, lobby, next(c for c in lobby.custom_ids if c.endswith(":st")))).response()
    await fake.wait_until(lambda: bot.service.table_in_channel(games.id) is not None, what="the game")
    busy = await private_answer(await fake.run_command(carol, "skipbo", "new", channel=games))
    assert busy.text == f"Ce salon a déjà une table de Skip-Bo ; la voici :\n{link}"


@pytest.fixture
def highcard() -> Iterator[None]:
    registry.register(HIGHCARD)
    try:
        yield
    finally:
        registry.unregister(HIGHCARD)


def test_the_cap_lists_every_games_end_command_from_the_registry(highcard: None) -> None:
    refused = Refused("caps.error.user_limit.one", count=1)
    assert refusal_text(refused, "en-US") == (
        "You already host 1 table, the most one player may: end it (`/skyjo end`, `/skipbo end` or "
        "`/highcard end` in its channel) or let it finish before opening another."
    )
    assert "(`/skyjo fin`, `/skipbo fin` ou `/highcard fin` dans son salon)" in refusal_text(refused, "fr")
