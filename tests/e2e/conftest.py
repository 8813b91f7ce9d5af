"""Pytest fixtures for end-to-end tests: the project's real bot against the wire-level fake Discord.

The fake's own fixtures (``fake_discord``, ``connect_bot``, the autouse ``discord_error_log``, and the
``@pytest.mark.real_clock`` marker) live in ``tests/fakecord/conftest.py``, which says each in full;
they are imported here so every test of this folder has them. On top of them:

``database`` / ``db_file``
    Where the test's bots store their games: SQLite in the test's tmp dir, or (parametrized with
    :data:`BOTH_BACKENDS`) a fresh database of the local PostgreSQL test server too.
``skybo``
    ``await skybo(**tuning)``: the real bot on that database, connected, its commands synced.

and the helpers a test plays with (``start_table``, ``open_panel``, ``play_turns``, ``button``...).
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.client import BotTuning, SkyboBot, create_bot
from bot.service.ledger import GameLedger
from bot.storage.errors import DiskIOError
from bot.ui import ids
from fakecord import FakeInteraction, FakeMessage, FakeUser
from tests.fakecord import conftest as fake_fixtures

# The fake's fixtures, for every test of this folder (and for ``skybo`` below).
fake_discord = fake_fixtures.fake_discord
connect_bot = fake_fixtures.connect_bot
discord_error_log = fake_fixtures.discord_error_log

FAST = BotTuning(ai_delay=0.0, round_delay=30.0, edit_interval=0.0, picture_processes=0)
GAME_ACTS = {"rv", "dr", "tk", "rp", "dv", "nx"}


def bot_on(db_file: Path, clock: Any) -> SkyboBot:
    """A bot (not connected) on ``db_file`` with the fast tuning and ``clock``: the first process of a
    restart test, which the test runs with ``fake.running(...)`` and closes itself."""
    return create_bot(database_path=db_file, tuning=dataclasses.replace(FAST, clock=clock))


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    return tmp_path / "data" / "skybo.sqlite3"


@dataclasses.dataclass(frozen=True)
class BotDatabase:
    """Where a test's bots store their games: SQLite at ``path``, or the PostgreSQL database ``url``."""

    path: Path
    url: str | None = None

    @property
    def kind(self) -> str:
        return "sqlite" if self.url is None else "postgres"

    def bot(self, tuning: BotTuning = FAST) -> SkyboBot:
        """A bot (not connected) on this database: one process of a restart test."""
        return create_bot(database_path=self.path, database_url=self.url, tuning=tuning)


@pytest.fixture
def database(request: pytest.FixtureRequest, db_file: Path) -> BotDatabase:
    """SQLite at ``db_file``; a test marked ``@pytest.mark.parametrize("database", ["sqlite",
    "postgres"], indirect=True)`` also runs on a fresh database of the local PostgreSQL test server."""
    if getattr(request, "param", "sqlite") == "sqlite":
        return BotDatabase(db_file)
    return BotDatabase(db_file, request.getfixturevalue("pg_dsn"))


BOTH_BACKENDS = pytest.mark.parametrize("database", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
async def skybo(
    database: BotDatabase, connect_bot: Callable[..., Awaitable[Any]]
) -> Callable[..., Awaitable[SkyboBot]]:
    """``await skybo(**tuning)``: the real bot on the test's database, connected, commands synced.

    ``database`` comes first: fixtures are torn down in the reverse order, so the bots close (in
    ``connect_bot``) before a PostgreSQL test database is dropped, never with a click in flight."""

    async def start(**tuning: Any) -> SkyboBot:
        settings = BotTuning(**{**FAST.__dict__, **tuning})
        bot = database.bot(settings)
        started: SkyboBot = await connect_bot(bot, sync_commands=True)
        return started

    return start


def act_of(custom_id: str) -> str | None:
    parsed = ids.decode(custom_id)
    return parsed.act if parsed else None


def button(message: FakeMessage, act: str, arg: int | None = None) -> str:
    """The custom_id of the (first) button of ``message`` doing ``act`` (with ``arg``)."""
    for custom_id in message.custom_ids:
        parsed = ids.decode(custom_id)
        if parsed and parsed.act == act and (arg is None or parsed.arg == arg):
            return custom_id
    raise AssertionError(f"no {act!r} button on the message: {message.custom_ids}")


def enabled_buttons(message: FakeMessage) -> list[dict[str, Any]]:
    return [c for c in message.all_components() if c.get("type") == 2 and not c.get("disabled")]


async def open_lobby(fake: Any, host: FakeUser, channel: Any = None, **options: Any) -> FakeMessage:
    inter = await fake.run_command(host, "skyjo", "new", options=options, channel=channel)
    message: FakeMessage = await inter.original()
    return message


async def start_table(
    fake: Any, bot: SkyboBot, host: FakeUser, guests: list[FakeUser], channel: Any = None, **options: Any
) -> tuple[FakeMessage, int]:
    """Open a lobby, seat ``guests``, start; returns the table message and the game id."""
    lobby = await open_lobby(fake, host, channel, **options)
    for guest in guests:
        await (await fake.click(guest, lobby, lobby.custom_ids[0])).response()
        await fake.wait_until(lambda g=guest: g.global_name in lobby.text, what="the guest in the lobby")
    start = next(c for c in lobby.custom_ids if c.endswith(":st"))
    await (await fake.click(host, lobby, start)).response()
    game_id = await fake.wait_until(
        lambda: next((t.id for t in bot.service.tables.values() if t.stored.message_id == lobby.id), None),
        what="the game",
    )
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table buttons")
    return lobby, game_id


async def open_panel(fake: Any, user: FakeUser, table_message: FakeMessage) -> FakeMessage:
    inter = await fake.click(user, table_message, button(table_message, "op"))
    panel: FakeMessage = await inter.original()
    assert panel.ephemeral and panel.visible_to == user.id
    return panel


def choose(panel: FakeMessage, rng: random.Random) -> str | None:
    """An enabled, game-changing (or mode) button of a panel, picked like a casual player would."""
    choices: dict[str, list[dict[str, Any]]] = {}
    for comp in enabled_buttons(panel):
        parsed = ids.decode(comp["custom_id"])
        if parsed is None:
            continue
        key = parsed.act if parsed.act != "md" else f"md{parsed.arg}"
        choices.setdefault(key, []).append(comp)
    for act in ("nx", "rv", "dv", "tk"):
        if act in choices:
            return str(rng.choice(choices[act])["custom_id"])
    if "rp" in choices:
        hidden = [c for c in choices["rp"] if c.get("label") == "?"]
        pool = hidden if hidden and rng.random() < 0.7 else choices["rp"]
        if "md2" in choices and rng.random() < 0.3:
            return str(choices["md2"][0]["custom_id"])
        return str(rng.choice(pool)["custom_id"])
    if "dr" in choices:
        if "md1" in choices and rng.random() < 0.3:
            return str(choices["md1"][0]["custom_id"])
        return str(choices["dr"][0]["custom_id"])
    return None


async def play_turns(
    fake: Any, bot: SkyboBot, game_id: int, table_message: FakeMessage, humans: list[FakeUser],
    rng: random.Random, *, until: Callable[[], bool] | None = None, max_clicks: int = 3000,
    opener: Callable[[Any, FakeUser, FakeMessage], Awaitable[FakeMessage]] | None = None,
) -> int:  # fmt: skip
    """Humans play by clicking their panels until the game ends (or ``until()``); returns the clicks.
    ``opener``: how a player opens their panel from the table (default :func:`open_panel`)."""
    clicks = 0
    while clicks < max_clicks:
        table = bot.service.tables.get(game_id)
        if table is None or (until is not None and until()):
            return clicks
        to_act = [
            u
            for u in humans
            if (seat := table.seat_of(u.id)) is not None
            and seat in table.state.seats_to_act()
            and seat not in table.replaced()
            and not (table.state.phase == "round_over" and seat in table.votes)
        ]
        if not to_act:
            version = table.version
            await fake.wait_until(
                lambda tb=table, v=version: bot.service.tables.get(game_id) is not tb or tb.version != v,
                what="a computer move",
            )
            continue
        user = to_act[0]
        panel = await (opener or open_panel)(fake, user, table_message)
        for _ in range(4):  # a turn is at most a few clicks on the same panel
            custom_id = choose(panel, rng)
            if custom_id is None:
                break
            inter = await fake.click(user, panel, custom_id)
            # A move is acknowledged first, then shown by an edit of the panel: wait for what shows.
            shown = await inter.answer()
            assert shown.id == panel.id, "a panel click updates the panel in place"
            clicks += 1
            if act_of(custom_id) in GAME_ACTS and act_of(custom_id) != "rv":
                break
    raise AssertionError("the game did not end")


async def reveal_own_cards(fake: Any, user: FakeUser, table_message: FakeMessage, table: Any) -> FakeMessage:
    """``user`` opens their panel and turns their initial Skyjo cards; returns that panel."""
    seat = table.seat_of(user.id)
    panel = await open_panel(fake, user, table_message)
    while table.state.phase == "reveal" and seat in table.state.seats_to_act():
        await (await fake.click(user, panel, button(panel, "rv"))).answer()
    return panel


async def until_turn(
    fake: Any, bot: SkyboBot, game_id: int, table_message: FakeMessage, user: FakeUser,
    rng: random.Random | None = None,
) -> Any:  # fmt: skip
    """Play (Alice and Bob clicking at random) until ``user`` is to draw at Skyjo; returns the table."""
    table = bot.service.tables[game_id]
    seat = table.seat_of(user.id)
    humans = [fake.user("alice"), fake.user("bob")]

    def ready() -> bool:
        game = table.state
        return game.phase == "play" and game.turn == seat and game.drawn is None

    await play_turns(fake, bot, game_id, table_message, humans, rng or random.Random(5), until=ready)
    return table


async def forged_click(fake: Any, user: FakeUser, message: FakeMessage, custom_id: str) -> FakeInteraction:
    """A click whose custom_id is not on the message (a modified client, a replayed payload)."""
    channel = fake.channels[message.channel_id]
    data = {"custom_id": custom_id, "component_type": 2}
    inter = FakeInteraction(fake, type=3, user=user, channel=channel, data=data, message=message)
    sent: FakeInteraction = await fake._send_interaction(inter)
    return sent


async def private_answer(inter: FakeInteraction) -> FakeMessage:
    """The answer to ``inter`` (a click that changes the game: a follow-up after its acknowledgement),
    checked to be private to the clicker."""
    message: FakeMessage = await inter.answer()
    assert message.ephemeral and message.visible_to == inter.user.id, "the answer is for the clicker only"
    return message


async def settle(bot: SkyboBot) -> None:
    """Wait until the bot is done with every interaction it got (a click's handler goes on after its
    answer reached Discord: it then tells the followed panels, which may edit again) and with every
    edit and send those caused. A bare ``presenter.flush()`` right after a click's answer may return
    before that handler ends."""
    while True:
        if running := [task for task in bot.in_flight.tasks if not task.done()]:
            await asyncio.gather(*running, return_exceptions=True)
        await bot.presenter.flush()
        if not any(not task.done() for task in bot.in_flight.tasks):
            return


async def end_game(fake: Any, bot: SkyboBot, user: FakeUser, channel: Any, game_id: int) -> None:
    """``/skyjo end`` in the game's channel and Yes to the question."""
    question = await private_answer(await fake.run_command(user, "skyjo", "end", channel=channel))
    await (await fake.click(user, question, button(question, "ey"))).response()
    await fake.wait_until(lambda: game_id not in bot.service.tables, what="the game ended")


async def finish_random_game(
    storage: Any, rng: random.Random, *, guild_id: int, channel_id: int, seats: list[Any], seed: int
) -> None:
    """A rated Skyjo game to 10 points between ``seats``, played with random legal moves through
    storage (the boards' tests: many finished games without clicking them)."""
    options = {"score_limit": 10}
    stored = await GameLedger(storage).create_game(
        guild_id=guild_id, channel_id=channel_id, kind="skyjo", seats=seats, seed=seed, options=options
    )
    while not stored.state.is_over:
        seat = rng.choice(stored.state.seats_to_act())
        await GameLedger(storage).apply_action(stored, seat, rng.choice(stored.state.legal_actions(seat)))
    assert stored.status == "finished"


def refuse_meta_writes(
    monkeypatch: pytest.MonkeyPatch, bot: SkyboBot, refuse: Callable[[Any], bool] = lambda meta: True
) -> tuple[list[Any], Callable[[], None]]:
    """The database refuses the games' meta writes that ``refuse(meta)`` picks, as a failing disk does
    (the moves' commits go through). Returns the refused metas, and what takes the writes back."""
    games = bot.storage.games
    set_meta, refused = games.set_meta, []

    async def refusing(game_id: int, meta: Any) -> None:
        if refuse(meta):
            refused.append(meta)
            raise DiskIOError("skybo.sqlite3", "disk I/O error (injected by the test)")
        await set_meta(game_id, meta)

    monkeypatch.setattr(games, "set_meta", refusing)
    return refused, lambda: monkeypatch.setattr(games, "set_meta", set_meta)
