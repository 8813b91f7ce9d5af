"""The Activity's cost (issue 50): from a commit to every surface, and what one open page costs the bot.

One process: the real bot (SQLite ``synchronous=FULL``, computers without delay, the production edit
interval of 1 s per public message) in front of the fake Discord (in-process: its work shares the bot's
loop, so the times are upper bounds), TABLES Skyjo tables of one human against one computer, each watched
by PAGES pages over the Activity's websocket (the player's page and spectators'), signed in through the
real code exchange. The player plays MOVES moves in her page (the protocol's ``move`` frames), each
chosen by the normal computer player's policy from her own frame, one at a time per table, all tables
at once.

Figures:

* commit -> page frame sent: for each committed version and each page (its first frame, the table as it
  stood when it connected, left out), from the event's publication
  (right after the commit, under the table's lock) to the page's ``table`` frame of that version (or
  a newer one, which replaced it) leaving the socket: p50, p99, max;
* commit -> table edit sent: from the commit to the first edit of the table's public message that the
  bot sends after it (the presenter's coalesced edit, at most one per second per message): p50, p99;
* frames per move: the ``table`` frames sent to one page per committed version (a computer's move and
  the player's are both versions; coalescing may send fewer);
* memory per open page: tracemalloc's retained Python memory with PAGES_MEASURED idle pages opened on
  one table, divided by them. The pages' client sockets live in this process too (aiohttp's client),
  so this is an upper bound of the bot's own share.

Bounded: every wait has a deadline; about 30-60 s on 2 cores. ``python -m bench activity``.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import aiohttp

from bot.activity.hub import Page
from bot.client import BotTuning, SkyboBot
from bot.games.registry import find
from bot.service.events import TableEvent
from fakecord import FakeDiscord

TABLES = 10
PAGES = 3  # per table: the player's page and two spectators'
MOVES = 20  # per table, made in the player's page
PAGES_MEASURED = 100
DEADLINE_S = 30.0


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def _line(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (
        f"{name}: p50 {_percentile(ms, 0.5):.1f} ms, p99 {_percentile(ms, 0.99):.1f} ms, "
        f"max {max(ms, default=float('nan')):.1f} ms ({len(ms)} samples)"
    )


class Watch:
    """When each version was committed, each page frame sent, each table edit sent."""

    def __init__(self, bot: SkyboBot) -> None:
        self.commits: dict[tuple[int, int], float] = {}  # (table, version) -> time
        self.page_latency: list[float] = []
        self.edit_latency: list[float] = []
        self.table_frames: dict[int, int] = {}  # id(page) -> table frames sent
        self.messages: dict[int, int] = {}  # table message id -> table id
        self._unseen: dict[int, list[float]] = {}  # table -> commits no edit followed yet
        bot.service.bus.subscribe(TableEvent, self._commit, name="bench-commits")
        bot.activity_hub.sent_hook = self._sent
        request = bot.http.request

        async def watched(route: Any, **kwargs: Any) -> Any:
            if route.method == "PATCH" and "/messages/" in route.url:
                message_id = int(route.url.rsplit("/", 1)[-1])
                table = self.messages.get(message_id)
                if table is not None:
                    now = time.perf_counter()
                    self.edit_latency += [now - t for t in self._unseen.pop(table, [])]
            return await request(route, **kwargs)

        bot.http.request = watched  # type: ignore[method-assign]

    def _commit(self, event: TableEvent) -> None:
        now = time.perf_counter()
        self.commits[(event.table_id, event.snapshot.version)] = now
        self._unseen.setdefault(event.table_id, []).append(now)

    def _sent(self, page: Page, frame: dict[str, Any]) -> None:
        if frame.get("type") != "table":
            return
        self.table_frames[id(page)] = self.table_frames.get(id(page), 0) + 1
        if self.table_frames[id(page)] == 1:
            return  # the page's first: the table as it was when the page connected, not a commit's
        committed = self.commits.get((page.table_id, frame["version"]))
        if committed is not None:
            self.page_latency.append(time.perf_counter() - committed)


async def _session(http: aiohttp.ClientSession, fake: FakeDiscord, base: str, user: Any, channel: Any) -> str:
    instance = fake.launch_activity(user, channel)
    body = {"code": fake.authorize(user, scopes=("identify", "guilds")), "instance_id": instance.instance_id}
    async with http.post(f"{base}/api/token", json=body) as answer:
        return str((await answer.json())["session"])


async def _frame(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    return dict(json.loads(await ws.receive_str(timeout=DEADLINE_S)))


async def _play(ws: aiohttp.ClientWebSocketResponse, moves: int, seed: int) -> int:
    """The player's page: wait for a frame listing moves, make one, wait for its answer; ``moves`` times."""
    rng = random.Random(seed)
    latest: dict[str, Any] = {}
    made = 0
    frame: dict[str, Any] | None = None
    while made < moves:
        frame = frame or await _frame(ws)
        if frame["type"] == "ended":
            return made
        if frame["type"] != "table":
            frame = None
            continue
        latest, frame = frame, None
        if not latest["moves"]:
            continue
        spec = find(latest["view"]["kind"])
        assert spec is not None
        action = spec.levels["normal"](latest["view"], rng)
        chosen = next(
            (m for m in latest["moves"] if spec.panel.action_for(m["act"], m["arg"]) == action),
            latest["moves"][0],
        )
        key = f"bench{seed:04d}{made:06d}"
        await ws.send_str(json.dumps({"type": "move", **chosen, "version": latest["version"], "key": key}))
        while True:
            answer = await _frame(ws)
            if answer.get("key") == key or answer["type"] == "ended":
                break
        made += 1
        if answer["type"] == "ended":
            return made
        frame = answer if answer["type"] == "table" else None
    return made


async def _drain(ws: aiohttp.ClientWebSocketResponse, stop: asyncio.Event) -> None:
    while not stop.is_set() and not ws.closed:
        try:
            await ws.receive(timeout=0.5)
        except TimeoutError:
            continue


async def _bench() -> None:
    from bot.activity.sessions import ActivitySettings
    from bot.client import create_bot
    from tests.e2e.conftest import start_table

    with tempfile.TemporaryDirectory() as folder:
        fake = await FakeDiscord().start()
        try:
            with fake.patched():
                tuning = BotTuning(ai_delay=0.0, edit_interval=1.0, picture_processes=0, images=False)
                settings = ActivitySettings(port=0, client_secret=fake.client_secret)
                bot = create_bot(
                    database_path=Path(folder) / "bench.sqlite3", tuning=tuning, activity=settings
                )
                async with fake.running(bot, sync_commands=True):
                    await _run(fake, bot, start_table)
        finally:
            await fake.stop()


async def _run(fake: FakeDiscord, bot: SkyboBot, start_table: Any) -> None:
    fake.enable_activities()
    assert bot.activity_server is not None
    base = f"http://127.0.0.1:{bot.activity_server.port}/activity"
    socket = base.replace("http", "ws") + "/ws?session="
    watch = Watch(bot)
    players = [fake.add_user(f"player{i}") for i in range(TABLES)]
    watchers = [fake.add_user(f"watcher{i}") for i in range(PAGES - 1)]
    channels = [fake.add_channel(f"cards-{i}") for i in range(TABLES)]
    tables = []
    for player, channel in zip(players, channels, strict=True):
        message, game_id = await start_table(fake, bot, player, [], channel, computers=1, turn_limit=0)
        watch.messages[message.id] = game_id
        tables.append(game_id)
    async with aiohttp.ClientSession() as http:
        pages = []
        for player, channel in zip(players, channels, strict=True):
            own = await http.ws_connect(socket + await _session(http, fake, base, player, channel))
            others = [
                await http.ws_connect(socket + await _session(http, fake, base, w, channel)) for w in watchers
            ]
            pages.append((own, others))
        stop = asyncio.Event()
        drains = [asyncio.create_task(_drain(ws, stop)) for _, others in pages for ws in others]
        began = time.perf_counter()
        made = await asyncio.wait_for(
            asyncio.gather(*(_play(own, MOVES, i) for i, (own, _) in enumerate(pages))), DEADLINE_S * 4
        )
        seconds = time.perf_counter() - began
        await bot.presenter.flush()
        stop.set()
        await asyncio.gather(*drains)
        versions = sum(1 for table, _ in watch.commits if table in tables)
        frames = sum(watch.table_frames.values())
        print(
            f"{TABLES} Skyjo tables, {PAGES} pages each, {sum(made)} moves made in the pages "
            f"in {seconds:.1f} s"
        )
        print(_line("commit -> page frame sent", watch.page_latency))
        print(_line("commit -> table message edit sent (edit interval 1 s)", watch.edit_latency))
        print(
            f"frames per move: {frames / max(1, versions * PAGES):.2f} table frames per page per committed "
            f"version ({frames} frames, {versions} versions, {PAGES} pages per table)"
        )
        for own, others in pages:
            for ws in (own, *others):
                await ws.close()
        await _memory(http, fake, base, socket, channels[0])


async def _memory(
    http: aiohttp.ClientSession, fake: FakeDiscord, base: str, socket: str, channel: Any
) -> None:
    sessions = []
    for i in range(PAGES_MEASURED):
        sessions.append(await _session(http, fake, base, fake.add_user(f"idle{i}"), channel))
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    sockets = []
    for session in sessions:
        ws = await http.ws_connect(socket + session)
        await _frame(ws)  # hello
        await _frame(ws)  # table
        sockets.append(ws)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(
        f"memory per open page: {(after - before) / PAGES_MEASURED / 1024:.1f} KiB "
        f"({PAGES_MEASURED} idle pages on one table; server and client sides, an upper bound)"
    )
    for ws in sockets:
        await ws.close()


def run() -> None:
    asyncio.run(_bench())


if __name__ == "__main__":
    run()
