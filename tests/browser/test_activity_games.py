"""Whole games in the Activity's page (issue 50), two players in two browser pages plus computers, one page
in English and one in French, through the real code exchange with the fake Discord (the SDK's mock asks
the fake for a real code; the stand-in backend exchanges it at ``/oauth2/token`` and reads ``/users/@me``).

Every move is made by tapping the cards it needs, as the page offers them; the other page follows every
move. Then every websocket frame each page received is read: each table frame is exactly what that seat
may see at that version (its view is the engine's ``view(seat)`` of the state committed then, its moves
are those of that view), so no face-down card and no other player's hand ever reached a page.
"""

from __future__ import annotations

from typing import Any

import pytest

from .activity import DESKTOP, PHONE, WAIT, Player, open_player, play_one, stand_in

pytestmark = pytest.mark.timeout(240)


async def _play_to_the_end(server: Any, table: Any, players: dict[int, Player]) -> int:
    """Each human to act plays in their own page until the game is over; returns the moves made."""
    made = 0
    while humans := await server.humans_to_act(table):
        player = players[table.users[humans[0]]]
        await player.page.wait_for_function(
            "v => window.skybo.table.version === v && window.skybo.pending === null",
            arg=table.version,
            timeout=WAIT,
        )
        assert await play_one(player, seed=table.version)
        made += 1
    return made


def _check_frames(player: Player, table: Any, seat: int, language: str) -> int:
    """Every frame the page received is its own seat's (see the module's docstring); returns how many
    table frames there were."""
    spec = table.spec
    hello = player.frames[0]
    assert (hello["type"], hello["seat"], hello["language"], hello["kind"]) == (
        "hello",
        seat,
        language,
        spec.name,
    )
    tables = [f for f in player.frames if f["type"] == "table"]
    assert {f["type"] for f in player.frames} <= {"hello", "table", "ended", "refused", "hint", "pong"}
    for frame in tables:
        state = spec.engine.State.from_dict(table.history[frame["version"]])
        assert frame["seat"] == seat
        assert frame["view"] == state.view(seat)
        assert frame["moves"] == spec.panel.moves(frame["view"], seat)
        if spec.name == "skyjo":  # every face-down card is a back in every grid, this seat's own too
            for grid, up, shown in zip(state.grids, state.face_up, frame["view"]["grids"], strict=True):
                assert all(v is None or u or s == "down" for v, u, s in zip(grid, up, shown, strict=True))
        else:  # its own hand only, and the others' as sizes
            assert frame["view"]["hand"] == sorted(state.hands[seat])
            assert "hands" not in frame["view"] and "stocks" not in frame["view"]
    return len(tables)


async def _ended(player: Player, words: str) -> None:
    await player.page.wait_for_function("Boolean(window.skybo.ended)", timeout=WAIT)
    result = player.page.locator("#result")
    assert await result.is_visible()
    assert words in await result.inner_text()
    assert await player.page.locator("#standings li").count() > 0


async def test_a_whole_skyjo_game_in_two_pages(browser: Any) -> None:
    async with stand_in(cards={"carol": "colourblind"}) as (fake, server, voice):
        alice, carol = fake.user("alice"), fake.user("carol")  # carol's Discord locale is French
        table = await server.open_table(
            voice, "skyjo", [alice, None, carol, None], options={"score_limit": 10}, seed=4
        )
        players = {
            alice.id: await open_player(browser, server, alice, voice, PHONE),
            carol.id: await open_player(browser, server, carol, voice, DESKTOP),
        }
        made = await _play_to_the_end(server, table, players)
        await _ended(players[alice.id], "Game over")
        await _ended(players[carol.id], "Partie terminée")
        assert await players[carol.id].page.locator("#app.colourblind").count() == 1
        for player, seat, language in ((players[alice.id], 0, "en"), (players[carol.id], 2, "fr")):
            assert player.problems == []
            # the other page followed every move: a table frame for each version from its first on
            shown = _check_frames(player, table, seat, language)
            assert shown >= table.version - player.frames[1]["version"]
        assert made > 10 and table.state.is_over


async def test_a_whole_skipbo_team_game_in_two_pages(browser: Any) -> None:
    async with stand_in() as (fake, server, voice):
        alice, carol = fake.user("alice"), fake.user("carol")
        # Seats alternate between the teams: alice and carol (seats 0 and 2) play together.
        table = await server.open_table(
            voice, "skipbo", [alice, None, carol, None], options={"stock_size": 5, "teams": True}, seed=3
        )
        players = {
            alice.id: await open_player(browser, server, alice, voice, DESKTOP),
            carol.id: await open_player(browser, server, carol, voice, PHONE),
        }
        made = await _play_to_the_end(server, table, players)
        await _ended(players[alice.id], "Game over")
        await _ended(players[carol.id], "Partie terminée")
        for player, seat, language in ((players[alice.id], 0, "en"), (players[carol.id], 2, "fr")):
            assert player.problems == []
            _check_frames(player, table, seat, language)
        assert made > 5 and table.state.is_over
        # each page shows the partner's piles, and every seat's team
        for player in players.values():
            assert await player.page.locator(".seat.partner").count() == 1
            assert await player.page.locator(".seat .team").count() == 4
