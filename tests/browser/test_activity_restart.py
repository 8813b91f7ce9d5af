"""A bot restart mid-game (issue 50): the pages hear ``sleep``, lose their socket, reconnect by themselves
(a growing delay) once the bot is back, and go on with the game where it was; a session the restarted bot
no longer accepts (close code 4001) makes the page sign in again through Discord (a new code, exchanged
again) without the player doing anything."""

from __future__ import annotations

from typing import Any

import pytest

from .activity import DESKTOP, PHONE, WAIT, open_player, play_one, stand_in

pytestmark = pytest.mark.timeout(90)


def _exchanges(fake: Any) -> int:
    return sum(1 for r in fake.requests if r.route == "/oauth2/token")


async def test_the_pages_reconnect_after_a_restart_and_go_on(browser: Any) -> None:
    async with stand_in() as (fake, server, voice):
        alice, carol = fake.user("alice"), fake.user("carol")
        table = await server.open_table(voice, "skyjo", [alice, carol], seed=9)
        pages = [await open_player(browser, server, alice, voice, PHONE)]
        pages.append(await open_player(browser, server, carol, voice, DESKTOP))
        assert await play_one(pages[0], seed=1)
        exchanged = _exchanges(fake)
        await server.restart(down=0.4)
        for player in pages:
            await player.page.wait_for_function(
                "v => window.skybo.connection === 'open' && window.skybo.table.version === v",
                arg=table.version,
                timeout=WAIT,
            )
            went = await player.page.evaluate("window.skybo.connections")
            assert "restarting" in went and went[-1] == "open"
        assert _exchanges(fake) == exchanged  # the session outlived the restart: no new sign-in
        version = table.version
        assert await play_one(pages[1], seed=2)  # the game goes on, from either page
        await pages[0].page.wait_for_function(
            "v => window.skybo.table.version > v", arg=version, timeout=WAIT
        )


async def test_a_refused_session_signs_in_again(browser: Any) -> None:
    async with stand_in() as (fake, server, voice):
        alice = fake.user("alice")
        table = await server.open_table(voice, "skyjo", [alice, None], seed=10)
        player = await open_player(browser, server, alice, voice, PHONE)
        exchanged = _exchanges(fake)
        server.secret = b"a new secret: every session before the restart is refused"
        await server.restart()
        opened_twice = "window.skybo.connections.filter(s => s === 'open').length === 2"
        await player.page.wait_for_function(
            f"window.skybo.connection === 'open' && {opened_twice}", timeout=WAIT
        )
        assert _exchanges(fake) == exchanged + 1  # a new code, exchanged by the bot
        version = table.version
        assert await play_one(player, seed=3)
        assert table.version > version
