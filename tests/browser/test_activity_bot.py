"""Whole games in the Activity served by the real bot (issue 50): its service, storage and presenter, the
fake Discord's real code exchange (the page's SDK mock asks the fake for a code; the bot exchanges it at
``/oauth2/token`` and reads ``/users/@me`` and the activity instance). Two players in two browser pages,
one in English and one in French, plus computers, play by tapping cards; the other page and the channel's
table follow; every websocket frame a page received is its own seat's view of the state committed at
that version (no face-down card, no other hand). A restart mid-game: the pages reconnect and go on.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.client import SkyboBot
from bot.games.registry import find
from bot.service.ledger import replay_log
from tests.e2e.activity_helpers import activity_bot, activity_bot_on
from tests.e2e.conftest import start_table
from tests.e2e.skipbo_helpers import start_skipbo
from tests.fakecord import conftest as fake_fixtures

from .activity import DESKTOP, PHONE, WAIT, Player, play_one

fake_discord = fake_fixtures.fake_discord
connect_bot = fake_fixtures.connect_bot
discord_error_log = fake_fixtures.discord_error_log

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    return tmp_path / "data" / "skybo.sqlite3"


def page_url(bot: SkyboBot, fake: Any, user: Any, channel: Any) -> str:
    """The page as Discord's client would open it for ``user`` in ``channel`` (without ``frame_id``: the
    page stands the SDK's mock in for Discord's client, which asks the fake for a real code)."""
    instance = fake.launch_activity(user, channel)
    query = {k: v for k, v in instance.frame_query().items() if k != "frame_id"}
    query.update(user_id=str(user.id), fake=fake.http_base)
    assert bot.activity_server is not None
    port = bot.activity_server.port
    return f"http://127.0.0.1:{port}/activity/?" + "&".join(f"{k}={v}" for k, v in query.items())


async def open_page(browser: Any, url: str, user: Any, viewport: dict[str, int]) -> Player:
    page = await (await browser.new_context(viewport=viewport)).new_page()
    player = Player(page, user)
    page.on(
        "websocket", lambda ws: ws.on("framereceived", lambda data: player.frames.append(json.loads(data)))
    )
    page.on("pageerror", lambda error: player.problems.append(str(error)))
    await page.goto(url)
    await page.wait_for_function("window.skybo.table && window.skybo.connection === 'open'", timeout=WAIT)
    return player


async def committed_states(bot: SkyboBot, game_id: int) -> dict[int, dict[str, Any]]:
    """The state committed at every version of the game, replayed from its stored action log."""
    stored = await bot.service.ledger.get_game(game_id)
    assert bot.storage is not None
    log = [(a.seq, a.seat, a.action) for a in await bot.storage.games.actions(game_id)]
    return {version: replay_log(stored, log[:version]).to_dict() for version in range(len(log) + 1)}


async def play_to_the_end(fake: Any, bot: SkyboBot, game_id: int, players: dict[int, Player]) -> int:
    """Each human the game waits for plays in their own page until it is over; returns the moves made."""
    made = 0
    while (table := bot.service.tables.get(game_id)) is not None and not table.finished:
        votes = table.votes if table.state.phase == "round_over" else frozenset()
        humans = [s for s in table.waited_for() if s not in votes]
        if not humans:
            version = table.version
            await fake.wait_until(
                lambda t=table, v=version: (
                    t.finished or t.version != v or bot.service.tables.get(game_id) is not t
                ),
                what="a computer's move",
            )
            continue
        player = players[table.stored.seats[humans[0]].user_id or 0]
        await player.page.wait_for_function(
            "v => window.skybo.table.version >= v && window.skybo.pending === null",
            arg=table.version,
            timeout=WAIT,
        )
        if await play_one(player, seed=table.version):
            made += 1
    return made


def check_frames(
    player: Player, states: dict[int, dict[str, Any]], kind: str, seat: int, language: str
) -> int:
    """Every frame the page received is its own seat's, at a committed version; returns the table frames."""
    spec = find(kind)
    assert spec is not None
    hello = player.frames[0]
    assert (hello["type"], hello["seat"], hello["language"], hello["kind"]) == ("hello", seat, language, kind)
    assert {f["type"] for f in player.frames} <= {"hello", "table", "ended", "refused", "hint", "pong"}
    tables = [f for f in player.frames if f["type"] == "table"]
    for frame in tables:
        state = spec.engine.State.from_dict(states[frame["version"]])
        assert frame["seat"] == seat
        assert frame["view"] == state.view(seat)
        assert frame["moves"] == spec.panel.moves(frame["view"], seat)
        if kind == "skyjo":  # every face-down card is a back in every grid, this seat's own too
            for grid, up, shown in zip(state.grids, state.face_up, frame["view"]["grids"], strict=True):
                assert all(v is None or u or s == "down" for v, u, s in zip(grid, up, shown, strict=True))
        else:  # its own hand only, and the others' as sizes
            assert frame["view"]["hand"] == sorted(state.hands[seat])
            assert "hands" not in frame["view"] and "stocks" not in frame["view"]
    return len(tables)


async def ended(player: Player, words: str) -> None:
    await player.page.wait_for_function("Boolean(window.skybo.ended)", timeout=WAIT)
    assert words in await player.page.locator("#result").inner_text()


async def test_a_whole_skyjo_game_served_by_the_bot(
    browser: Any, fake_discord: Any, connect_bot: Callable[..., Awaitable[Any]], db_file: Path
) -> None:
    fake = fake_discord
    bot = await activity_bot(fake, connect_bot, db_file)
    fake.enable_activities()
    alice, carol = fake.user("alice"), fake.user("carol")  # carol's Discord is in French
    general = fake.channel("general")
    bot.service.seed_source = lambda: 4
    message, game_id = await start_table(fake, bot, alice, [carol], computers=1, score_limit=10, turn_limit=0)
    table = bot.service.tables[game_id]
    seats = {u.id: table.seat_of(u.id) for u in (alice, carol)}
    players = {
        alice.id: await open_page(browser, page_url(bot, fake, alice, general), alice, PHONE),
        carol.id: await open_page(browser, page_url(bot, fake, carol, general), carol, DESKTOP),
    }
    made = await play_to_the_end(fake, bot, game_id, players)
    await ended(players[alice.id], "Game over")
    await ended(players[carol.id], "Partie terminée")
    await bot.presenter.flush()
    assert table.state.is_over and made > 5
    states = await committed_states(bot, game_id)
    for user, language in ((alice, "en"), (carol, "fr")):
        player = players[user.id]
        assert player.problems == []
        check_frames(player, states, "skyjo", seats[user.id] or 0, language)
        # the page followed to the last move, and so did the channel's table
        assert max(f["version"] for f in player.frames if f["type"] == "table") == table.version
    assert message.revision > made  # the table message was edited for the pages' moves too


async def test_a_whole_skipbo_team_game_and_a_restart(
    browser: Any, fake_discord: Any, connect_bot: Callable[..., Awaitable[Any]], db_file: Path
) -> None:
    """A Skip-Bo team game (alice, in English, and carol, in French, together against two computers),
    with a bot restart half-way: the pages hear ``sleep``, reconnect to the new process by themselves
    (their signed sessions) and play on to the end."""
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("carol")  # carol (here "bob") reads French
    general = fake.channel("general")
    first = activity_bot_on(fake, db_file)
    async with fake.running(first, sync_commands=True):
        fake.enable_activities()
        _, game_id = await start_skipbo(
            fake, first, alice, [bob], add_computers=1, stock_size=5, teams=True, computers=1, turn_limit=0
        )
        players = {
            alice.id: await open_page(browser, page_url(first, fake, alice, general), alice, DESKTOP),
            bob.id: await open_page(browser, page_url(first, fake, bob, general), bob, PHONE),
        }
        made = 0
        while made < 3:  # a few moves, then the restart
            table = first.service.tables[game_id]
            if humans := table.waited_for():
                player = players[table.stored.seats[humans[0]].user_id or 0]
                await player.page.wait_for_function(
                    "v => window.skybo.table.version >= v && window.skybo.pending === null",
                    arg=table.version,
                    timeout=WAIT,
                )
                made += await play_one(player, seed=table.version)
            else:
                await fake.wait_until(
                    lambda t=table, v=table.version: t.version != v, what="a computer's move"
                )
        assert first.activity_server is not None
        port = first.activity_server.port
        version = first.service.tables[game_id].version
    for player in players.values():
        await player.page.wait_for_function("window.skybo.connections.includes('restarting')", timeout=WAIT)
    second = await activity_bot(fake, connect_bot, db_file, sync=False, port=port)
    for player in players.values():
        await player.page.wait_for_function(
            "v => window.skybo.connection === 'open' && window.skybo.table.version >= v",
            arg=version,
            timeout=WAIT,
        )
    made += await play_to_the_end(fake, second, game_id, players)
    await ended(players[alice.id], "Game over")
    await ended(players[bob.id], "Partie terminée")
    states = await committed_states(second, game_id)
    for user, language in ((alice, "en"), (bob, "fr")):
        player = players[user.id]
        assert player.problems == []
        assert {"type": "sleep", "reason": "restart"} in player.frames
        hellos = [i for i, f in enumerate(player.frames) if f["type"] == "hello"]
        assert len(hellos) == 2  # connected again after the restart, with the same session
        seat = player.frames[0]["seat"]
        for part in (player.frames[: hellos[1]], player.frames[hellos[1] :]):
            frames = [f for f in part if f["type"] != "sleep"]
            check_frames(Player(player.page, user, frames), states, "skipbo", seat, language)
    assert made > 5
