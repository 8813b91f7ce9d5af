"""Database faults in the middle of play: the real bot process keeps its tables through them.

The fake Discord runs in this test's process; the project's bot runs in a subprocess
(``tests/e2e/bot_worker.py``) pointed at it, with ``/healthz`` served on a port the test gives it
(``METRICS_PORT``), asked every few tens of milliseconds. Three Skyjo tables play at once, each with two
humans clicking their private panels and a computer player (which moves ``AI_DELAY_S`` after its
turn comes). The database goes wrong under them; the bot process is never restarted:

- PostgreSQL (a server of the test's own, ``pg_start``; the bot connects over TCP as the app role, as in
  production): every connection of the app role terminated from a superuser connection
  (``pg_terminate_backend``); the server stopped (``pg_ctl stop -m fast``) for ``OUTAGE_S`` and started
  again on the same data and port; the server restarted (stopped and started at once); the connections
  terminated once more.
- A fleet process (``SHARD_COUNT=1 SHARD_IDS=0``: it holds its shard lease on a connection of its own)
  through a termination and a restart: it must keep its shards and go on, not stop.
- SQLite: another process holds the file's write lock (``BEGIN EXCLUSIVE``) for longer than the bot's
  busy timeout ("database is locked"; the timeout is cut to ``SQLITE_BUSY_MS`` to keep the test short).

A fault begins either right after a click was sent (the click is in flight) or, after some moves, as
soon as a game waits for its computer player (whose move then meets the fault). After each fault,
without restarting the bot:

- every table answers again within ``RECOVERY_S`` of the database being back: each player's "Open my
  panel" is answered with their panel, and the next move is applied (a click answered with the move);
- ``/healthz``, asked while the server is down (between ``pg_ctl stop`` and ``start``), answers 503;
  after every fault it answers 200 again within ``RECOVERY_S``. (Not asked of it: a 503 while the
  connections are terminated, which a bot that reconnects at once never needs, or while SQLite is
  locked, as reads still work. When a table does not answer again, the failure says what ``/healthz``
  answered meanwhile.);
- no acknowledged move is lost: every click answered with its move is in the database's action log at
  the version its panel shows, and each game's snapshot is the replay of its log;
- no move is applied twice: every human action in the log comes from its own click (one click, at most
  one action), and a click answered with a refusal or the refreshed panel changed nothing;
- every click gets an answer (none left without one: "This interaction failed" on Discord), never the
  internal-error apology ("Sorry, something went wrong");
- on PostgreSQL, a move click in flight when the connections dropped or the server went down is
  applied once and answered as a move (or refused by the rules, or answered with the refreshed panel:
  what it would have got without the fault), not refused because of the database (a stop or a restart
  that outlasts the commit's one retry may refuse it, nothing applied, when the bot's log says so: see
  ``Harness.check_in_flight``).

Clicks sent while the database is away may be refused ("try again", privately); they must change
nothing. On SQLite a move refused because the file stayed locked is fine too. The checks of a fault
are gathered and reported together, and every fault is played even when an earlier one went wrong, so
one run shows everything that failed (with the ERROR lines of the bot's log, as hints). What the test
needs from the bot is only what a player and an operator see: the answers to the clicks, the HTTP
status of ``/healthz``, the database's action log, and the bot's log lines of a failed retry. The
figures of a run are printed (``-s``).

The fake's deadlines stay on its manual clock, as in tests/e2e/test_kills.py: a click acknowledged in
time (a deferred update) may get its result later, after the database is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import psycopg
import pytest

from bot.games.registry import BY_KIND
from bot.i18n import catalogue
from bot.i18n import translate as t
from bot.storage.games import canonical_json, snapshot_hash
from bot.ui import ids
from devtools.pgserver import APP_ROLE, SUPERUSER, PostgresServer, free_port
from fakecord import FakeDiscord, FakeInteraction, FakeMessage, FakeUser

from .bot_worker import spawn
from .conftest import GAME_ACTS, act_of, choose
from .test_kills import GameRow, read_actions, read_game, replay_of, result_of

pytestmark = pytest.mark.timeout(300)

SEED = 20261207
LOCALE = "en-US"  # every player's
INTERNAL_ERROR = t("table.error.internal", LOCALE)
FORGED = t("table.error.forged", LOCALE)
# What a table says while its database does not answer (bot.service.reloads): the move waits, nothing changed.
WAITING = (t("table.error.reconnecting", LOCALE), t("table.error.unavailable", LOCALE))
PANEL_ONLY_ACTS = {"md", "rf", "hn"}  # panel clicks that change nothing in the game
NO_ACTION = PANEL_ONLY_ACTS | {"op"}
MOVE_ACTS = GAME_ACTS - {"nx"}  # clicks whose action goes to the engine and the log (nx is mostly a vote)
# (channel, host, guest): three tables, two humans each, and a computer player at each.
TABLES = (("general", "alice", "bob"), ("games", "dave", "erin"), ("cards", "frank", "gina"))
ANSWER_TIMEOUT_S = 20.0  # a click's answer; a live bot answers in milliseconds, the outage aside
# Discord's window for a click's first answer: a fleet process that lost its shard lease answers no click
# (another process may hold the shard now, issue 37); the player sees "This interaction failed" after
# this long and clicks again.
DISCORD_WINDOW_S = 3.0
RECOVERY_S = 15.0  # from the database back to a table answering again (its panels, then a move)
PLAY_BOUND_S = 30.0  # for a round's play before the fault fires and ends
FIRE_BY_S = 8.0  # a fault whose trigger did not come by then (the tables make no move) begins anyway
OUTAGE_S = 1.5  # how long the stopped server stays down
HEALTH_POLL_S = 0.025  # /healthz is asked this often (for the figures; a loaded machine answers slower)
SQLITE_BUSY_MS = 300  # the bot's busy timeout in the SQLite test (production: 5 s) ...
SQLITE_LOCK_S = 1.5  # ... and how long another process holds the write lock: longer
AFTER_MOVES = 3  # moves played at each table after it answered again, before the round's checks
# The computer players' pause before a move (production: 1.2 s): a fault can fall between a human's
# move and the computer's answer to it.
AI_DELAY_S = 0.3

# Who holds SQLite's write lock for a moment: another process, as a backup tool or a person with the
# sqlite3 shell would (BEGIN EXCLUSIVE waits for the bot's transaction in progress, if any).
LOCKER = r"""
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("LOCKED", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("ROLLBACK")
conn.close()
print("RELEASED", flush=True)
"""


def _rule_patterns() -> list[re.Pattern[str]]:
    """The engine's refusals (``error.*`` keys: "It is not your turn."...), as patterns of the English
    messages (placeholders match anything): a refusal that is none of them is about the table itself."""
    patterns = []
    for key, text in catalogue("en").items():
        if key.startswith("error."):
            parts = re.split(r"\{[^}]*\}", text)
            patterns.append(re.compile(".*".join(re.escape(part) for part in parts), re.DOTALL))
    return patterns


RULES = _rule_patterns()


class Problem(Exception):
    """Something a fault broke: gathered, reported with the others at the end."""


class Unreachable(Exception):
    """The test cannot read the database now (the server is down)."""


# ---------------------------------------------------------------------------------------- the database


class LogReader:
    """The bot's database as the test reads it: never as the bot's role (a termination of the app
    role's connections spares it), and every check inside one snapshot (the bot goes on writing)."""

    def __init__(self, connect: Callable[[], Any], *, postgres: bool) -> None:
        self._connect = connect
        self.postgres = postgres
        self._conn: Any = None

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = None

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]]:
        """``query(sql, params)`` (``?`` placeholders) inside one read transaction."""
        try:
            if self._conn is None:
                self._conn = self._connect()
            conn = self._conn
            if self.postgres:
                conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            else:
                conn.execute("BEGIN")
        except (psycopg.Error, sqlite3.Error) as error:
            self.close()
            raise Unreachable(str(error)) from None

        def query(sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
            try:
                sql = sql.replace("?", "%s") if self.postgres else sql
                return list(conn.execute(sql, params).fetchall())
            except (psycopg.Error, sqlite3.Error) as error:
                self.close()
                raise Unreachable(str(error)) from None

        try:
            yield query
        finally:
            if self._conn is not None:
                with contextlib.suppress(psycopg.Error, sqlite3.Error):
                    conn.execute("ROLLBACK")

    def game_in_channel(self, channel_id: int) -> int | None:
        with self.snapshot() as q:
            rows = q("SELECT id FROM games WHERE channel_id = ? ORDER BY id DESC LIMIT 1", (channel_id,))
        return int(rows[0][0]) if rows else None

    def game(self, game_id: int) -> GameRow:
        with self.snapshot() as q:
            return read_game(q, game_id)

    def state(self, game_ids: list[int]) -> dict[int, tuple[GameRow, list[tuple[int, int, dict[str, Any]]]]]:
        """Every game's row and log in one snapshot, each snapshot checked against the replay of its log
        (tests/e2e/test_kills.py's check): a gap, a version that is not the log's length, a snapshot
        that is not the replay, or a finished game without results raises Problem."""
        out: dict[int, tuple[GameRow, list[tuple[int, int, dict[str, Any]]]]] = {}
        with self.snapshot() as q:
            for game_id in game_ids:
                kind, seed, options, version, snapshot, digest, status = q(
                    "SELECT kind, seed, options, version, snapshot, snapshot_hash, status"
                    " FROM games WHERE id = ?",
                    (game_id,),
                )[0]
                actions = read_actions(q, game_id)
                if [a[0] for a in actions] != list(range(1, len(actions) + 1)):
                    raise Problem(f"game {game_id}: a gap in the action log")
                if version != len(actions):
                    raise Problem(f"game {game_id}: version {version}, {len(actions)} actions")
                replayed = replay_of(q, game_id, kind, seed, options, actions)
                if canonical_json(replayed.to_dict()) != snapshot or snapshot_hash(snapshot) != digest:
                    raise Problem(f"game {game_id}: the snapshot is not the replay of the log")
                if replayed.is_over != (status == "finished"):
                    raise Problem(f"game {game_id}: {status}, replay over: {replayed.is_over}")
                results = q("SELECT count(*) FROM game_results WHERE game_id = ?", (game_id,))[0][0]
                if (status == "finished") != (int(results) > 0):
                    raise Problem(f"game {game_id}: {status} with {results} results")
                out[game_id] = (read_game(q, game_id), actions)
        return out


def postgres_reader(server: PostgresServer, dbname: str) -> LogReader:
    def connect() -> psycopg.Connection[Any]:
        return psycopg.connect(server.dsn(dbname, user=SUPERUSER), autocommit=True, connect_timeout=3)

    return LogReader(connect, postgres=True)


def sqlite_reader(path: Path) -> LogReader:
    def connect() -> sqlite3.Connection:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10, isolation_level=None)

    return LogReader(connect, postgres=False)


# ---------------------------------------------------------------------------------------- the pieces


class Table:
    """A table the test plays: its channel, players, public message, game and the players' panels."""

    def __init__(
        self, number: int, channel: Any, players: list[FakeUser], message: FakeMessage, game_id: int
    ) -> None:
        self.number = number
        self.channel = channel
        self.players = players
        self.message = message
        self.game_id = game_id
        self.rng = random.Random(f"{SEED}-{number}")  # the players' choices at this table
        self.panels: dict[int, FakeMessage] = {}  # user id -> the panel the player uses now
        self.recovery: list[float | None] = []  # per fault: seconds from the database back to answering


@dataclass(eq=False)
class Click:
    """One click sent to the bot, kept to check its answer and its trace in the database."""

    user: FakeUser
    table: Table
    custom_id: str
    inter: FakeInteraction
    sent: float  # time.monotonic()
    fault: int  # the round (fault number) it was sent in
    why: str  # "play"; "outage" (sent while the test could not read the database); "probe" (after it)
    dropped: bool = False  # a fleet process not serving its shard left it unanswered (Discord's window)

    @property
    def bid(self) -> ids.ButtonId:
        parsed = ids.decode(self.custom_id)
        assert parsed is not None
        return parsed

    @property
    def act(self) -> str:
        return self.bid.act

    def text(self) -> str:
        """The answer's text ("" while there is none)."""
        result = result_of(self.inter)
        return "" if result is None else result.content

    def answer(self) -> str | None:
        """What the player saw, in one word: None (nothing yet), "internal" (the apology), "move" (the
        panel after their move), "stale" (the refreshed panel), "panel" (a panel-only click's answer or
        an opened panel), "rule" (a refusal by the rules), "refused" (any other refusal: the table or
        the database could not do it now)."""
        result = result_of(self.inter)
        if result is None:
            return None
        said = [result.content] + [
            str(r.json.get("content") or "") for r in self.inter.requests if isinstance(r.json, dict)
        ]
        if any(INTERNAL_ERROR in text or FORGED in text for text in said):
            return "internal"
        if result.shown == "panel":
            if result.stale:
                return "stale"
            return "panel" if self.act in NO_ACTION else "move"
        if self.act == "op" and result.versions:
            return "panel"
        if any(p.fullmatch(result.content.strip()) for p in RULES):
            return "rule"
        return "refused"


@dataclass
class Fault:
    number: int
    kind: str  # "terminate", "stop", "restart", "lock"
    # "click": it begins right after the ``trigger``-th move click of its round is sent (in flight);
    # "computer": after that many moves, as soon as a game waits for its computer player (whose move,
    # AI_DELAY_S later, meets the fault)
    when: str
    trigger: int
    began: float | None = None
    back: float | None = None  # the database usable again
    in_flight: list[Click] = field(default_factory=list)  # clicks unanswered when it began
    terminated: int = 0  # connections ended (terminate)
    unhealthy: int = 0  # /healthz answers other than 200 between its start and the tables' answers
    down_health: int | None = None  # /healthz asked while the server was down (stop, restart)
    healthy_after: float | None = None  # seconds from the database back to /healthz 200


class Health:
    """Asks the bot's ``/healthz`` every ``HEALTH_POLL_S`` and keeps (time, status) (None: no answer)."""

    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}/healthz"
        self.samples: list[tuple[float, int | None]] = []
        self._task: asyncio.Task[None] | None = None
        self._session: aiohttp.ClientSession | None = None

    async def ask(self) -> int | None:
        assert self._session is not None
        try:
            async with self._session.get(self.url, timeout=aiohttp.ClientTimeout(total=3)) as response:
                await response.read()
                return response.status
        except (aiohttp.ClientError, TimeoutError):
            return None

    async def _run(self) -> None:
        while True:
            began = time.monotonic()
            status = await self.ask()
            self.samples.append((began, status))
            await asyncio.sleep(HEALTH_POLL_S)

    def start(self) -> None:
        self._session = aiohttp.ClientSession()
        self._task = asyncio.create_task(self._run(), name="healthz-poll")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._session is not None:
            await self._session.close()

    def between(self, start: float, end: float) -> list[int | None]:
        return [status for when, status in self.samples if start <= when <= end]


class BotProcess:
    """The one bot process of a test (tests/e2e/bot_worker.py), never restarted."""

    def __init__(self, fake: FakeDiscord, database: str | Path, flags: list[str]) -> None:
        self.fake = fake
        self.database = database
        self.flags = flags
        self.proc: asyncio.subprocess.Process | None = None
        self.stderr = b""
        self._stderr_task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.proc = await spawn(self.fake, self.database, *self.flags)
        self._stderr_task = asyncio.create_task(self._read_stderr())  # a full pipe would block its logging
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), 60)
        assert line.strip() == b"READY", f"the bot did not start: {line!r} {await self.logs()}"

    async def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while chunk := await self.proc.stderr.read(65536):
            self.stderr += chunk

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def logs(self) -> str:
        if self._stderr_task is not None and not self.alive:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._stderr_task, 5)
        return self.stderr.decode(errors="replace")[-3000:]

    async def errors(self) -> str:
        """Its log's distinct ERROR lines and the exceptions its tracebacks end with (a few of each),
        for a failure's message: where to look, not something the test asserts."""
        await self.logs()
        lines = self.stderr.decode(errors="replace").splitlines()
        bad = [line for line in lines if line.startswith(("ERROR", "CRITICAL"))]
        raised = [line for line in lines if re.match(r"^[\w.]+(Error|Exception|Unusable|Busy)\b", line)]
        shown = list(dict.fromkeys(bad))[:5] + list(dict.fromkeys(raised))[:5]
        return "\n    ".join(shown) or "(no ERROR line)"

    async def stop(self) -> int | None:
        """A clean stop (the worker closes the bot when its stdin closes); a kill if it hangs."""
        proc = self.proc
        if proc is None or proc.returncode is not None:
            return None if proc is None else proc.returncode
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            return await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            return None
        finally:
            if self._stderr_task is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self._stderr_task, 5)


# ---------------------------------------------------------------------------------------- the harness


class Harness:
    def __init__(self, fake: FakeDiscord, reader: LogReader, bot: BotProcess, health: Health) -> None:
        self.fake = fake
        self.reader = reader
        self.bot = bot
        self.health = health
        self.tables: list[Table] = []
        self.clicks: list[Click] = []
        self.faults: list[Fault] = []
        self.fault: Fault | None = None  # the round being played
        self.round_moves = 0
        self.problems: list[str] = []
        self.inject: Callable[[Fault], None] = lambda fault: None  # starts a fault (set by the test)
        self.outages: set[asyncio.Task[None]] = set()
        self.plan = random.Random(SEED)
        self.lost: set[tuple[int, int]] = set()  # (game, action seq) of acknowledged moves not in the log
        self.twice: set[tuple[int, int]] = set()  # (game, action seq) of human actions without a click
        self.flagged: set[tuple[Any, ...]] = set()  # what the database checks reported already
        self.moves = 0  # human moves in the logs, each from its click
        self.dead = False
        # A fleet process: while it has no shard lease it answers no click (the click is dropped, the
        # player clicks again after Discord's window), and a dropped click must never be applied.
        self.unserved_ok = False

    def problem(self, text: str) -> None:
        self.problems.append(text)

    def flag(self, key: tuple[Any, ...], text: str) -> None:
        """A problem the database checks find (they run after every fault): reported once."""
        if key not in self.flagged:
            self.flagged.add(key)
            self.problem(text)

    # ------------------------------------------------------------------ tables

    async def open_table(self, number: int, channel: Any, host: FakeUser, guest: FakeUser) -> Table:
        fake = self.fake
        options = {"computers": 1, "turn_limit": 0, "score_limit": 400}
        inter = await fake.run_command(host, "skyjo", "new", options=options, channel=channel)
        lobby = await inter.original(ANSWER_TIMEOUT_S)
        join = next(c for c in lobby.custom_ids if c.endswith(":jn"))
        await (await fake.click(guest, lobby, join)).response(ANSWER_TIMEOUT_S)
        await fake.wait_until(
            lambda: str(guest.global_name) in lobby.text, ANSWER_TIMEOUT_S, what="the guest"
        )
        start = next(c for c in lobby.custom_ids if c.endswith(":st"))
        await (await fake.click(host, lobby, start)).response(ANSWER_TIMEOUT_S)
        game_id = await fake.wait_until(
            lambda: self.reader.game_in_channel(channel.id), ANSWER_TIMEOUT_S, what="the game"
        )
        await fake.wait_until(
            lambda: any(act_of(c) == "op" for c in lobby.custom_ids), ANSWER_TIMEOUT_S, what="the table"
        )
        table = Table(number, channel, [host, guest], lobby, game_id)
        self.tables.append(table)
        return table

    # ------------------------------------------------------------------ clicks

    async def click(
        self, user: FakeUser, table: Table, panel: FakeMessage, custom_id: str, why: str
    ) -> Click:
        """``user`` clicks ``custom_id`` on ``panel`` as they see it now; waits for the answer."""
        if not self.bot.alive:
            self.dead = True
            raise Problem(f"the bot process exited ({self.bot.proc and self.bot.proc.returncode})")
        fault = self.fault
        assert fault is not None
        inter = await self.fake.click(user, panel.snapshot(), custom_id)
        click = Click(user, table, custom_id, inter, time.monotonic(), fault.number, why)
        self.clicks.append(click)
        if inter.failed:
            raise Problem(f"This interaction failed: {custom_id}: {inter.failure!r}")
        if fault.began is None and act_of(custom_id) in MOVE_ACTS:
            self.round_moves += 1
            if fault.when == "click" and self.round_moves >= fault.trigger:
                self.fire(fault)  # at once: nothing ran since the click was sent, it is in flight
        bot = self.bot
        try:
            await self.fake.wait_until(
                lambda: result_of(inter) is not None or not bot.alive,
                DISCORD_WINDOW_S if self.unserved_ok else ANSWER_TIMEOUT_S,
                what=f"an answer to {custom_id}",
            )
        except TimeoutError:
            if self.unserved_ok:
                click.dropped = True  # "This interaction failed": the player will click again
                return click
            raise Problem(
                f"{user.username}'s click {ids.loggable(custom_id)} ({why}) got no answer in "
                f"{ANSWER_TIMEOUT_S:.0f} s (the player sees 'This interaction failed')"
            ) from None
        if result_of(inter) is None:
            self.dead = True
            raise Problem(
                f"the bot process exited ({bot.proc and bot.proc.returncode}) with a click in flight"
            )
        return click

    async def watch_computers(self, fault: Fault) -> None:
        """Once the round made ``fault.trigger`` moves: fire as soon as a game waits for its computer
        player (its move comes ``AI_DELAY_S`` later, into the fault)."""
        while fault.began is None:
            if self.round_moves >= fault.trigger and any(self.computer_to_play(tb) for tb in self.tables):
                self.fire(fault)
                return
            await asyncio.sleep(0.01)

    def computer_to_play(self, table: Table) -> bool:
        try:
            row = self.reader.game(table.game_id)
        except Unreachable:
            return False
        humans = set(row.users.values())
        return row.game.phase != "round_over" and any(s not in humans for s in row.game.seats_to_act())

    def fire(self, fault: Fault) -> None:
        fault.began = time.monotonic()
        fault.in_flight = [c for c in self.clicks if result_of(c.inter) is None]
        self.inject(fault)

    async def open_panel(self, user: FakeUser, table: Table, why: str) -> tuple[Click, FakeMessage | None]:
        """``user`` clicks the table message's Open my panel: the click, and their panel if it came."""
        custom_id = next(c for c in table.message.custom_ids if act_of(c) == "op")
        click = await self.click(user, table, table.message, custom_id, why)
        if click.answer() != "panel":
            return click, None
        panel = await click.inter.original(ANSWER_TIMEOUT_S)
        assert panel.ephemeral and panel.visible_to == user.id
        table.panels[user.id] = panel
        return click, panel

    # ------------------------------------------------------------------ playing

    def to_act(self, row: GameRow, table: Table) -> list[FakeUser]:
        votes = set(row.meta.get("votes") or [])
        acting = set(row.game.seats_to_act())
        return [
            u
            for u in table.players
            if row.users.get(u.id) in acting
            and not (row.game.phase == "round_over" and row.users[u.id] in votes)
        ]

    def moves_of(self, table: Table, since: float = 0.0) -> int:
        return sum(c.table is table and c.sent >= since and c.answer() == "move" for c in self.clicks)

    async def play(self, table: Table, until: Callable[[], bool], deadline: float, what: str) -> None:
        """The table's players play (the one to act clicks their panel) until ``until()``; Problem at
        ``deadline``. While the database cannot be read, they click what their panels show."""
        while not until():
            if time.monotonic() > deadline:
                raise Problem(f"no {what}{self.describe(table)}")
            try:
                row = self.reader.game(table.game_id)
            except Unreachable:
                await self.blind_click(table)
                continue
            if row.status != "active":
                raise Problem(f"game {table.game_id} is {row.status}")
            users = self.to_act(row, table)
            if not users:
                await self.wait_change(table, row.version, until, deadline)
                continue
            await self.turn(table.rng.choice(users), table, row)

    async def wait_change(
        self, table: Table, version: int, until: Callable[[], bool], deadline: float
    ) -> None:
        """The computer's move (or ``until()``, or the database away)."""

        def changed() -> bool:
            if until():
                return True
            try:
                return self.reader.game(table.game_id).version != version
            except Unreachable:
                return True

        with contextlib.suppress(TimeoutError):
            await self.fake.wait_until(changed, max(0.05, min(2.0, deadline - time.monotonic())))

    async def up_to_date(self, panel: FakeMessage, version: int) -> None:
        """A moment for the bot to bring the open panel to ``version`` (it follows the game)."""

        def fresh() -> bool:
            versions = [p.version for c in panel.custom_ids if (p := ids.decode(c)) is not None]
            return not versions or max(versions) >= version

        with contextlib.suppress(TimeoutError):
            await self.fake.wait_until(fresh, 0.3, what="the panel up to date")

    async def turn(self, user: FakeUser, table: Table, row: GameRow) -> None:
        panel = table.panels.get(user.id)
        if panel is None:
            _, panel = await self.open_panel(user, table, "play")
            if panel is None:
                await asyncio.sleep(0.2)  # refused for now: the player tries again in a moment
                return
        await self.up_to_date(panel, row.version)
        custom_id = choose(panel, table.rng)
        if custom_id is None:  # the panel shows nothing to do (an older state): a fresh one
            _, panel = await self.open_panel(user, table, "play")
            custom_id = None if panel is None else choose(panel, table.rng)
            if panel is None or custom_id is None:
                await asyncio.sleep(0.05)
                return
        click = await self.click(user, table, panel, custom_id, "play")
        if click.answer() in ("refused", None):
            await asyncio.sleep(0.2)  # the player reads the refusal, then tries again
        elif click.answer() == "internal":
            await asyncio.sleep(0.5)

    async def blind_click(self, table: Table) -> None:
        """While the test cannot read the database: a player clicks a move their panel offers (or opens
        their panel), as players go on clicking during an outage."""
        user = table.rng.choice(table.players)
        panel = table.panels.get(user.id)
        custom_id = None if panel is None else choose(panel, table.rng)
        if panel is None or custom_id is None:
            await self.open_panel(user, table, "outage")
        else:
            await self.click(user, table, panel, custom_id, "outage")
        await asyncio.sleep(0.2)

    def describe(self, table: Table) -> str:
        """Who the game waits for and the table's last answers, for a problem's message."""
        waits = ""
        with contextlib.suppress(Unreachable):
            row = self.reader.game(table.game_id)
            humans = {seat: user for user, seat in row.users.items()}
            acting = row.game.seats_to_act()
            who = [
                self.fake.users[humans[s]].username if s in humans else f"the computer (seat {s})"
                for s in acting
            ]
            waits = f"; at version {row.version} the game waits for {', '.join(who) or 'nobody'}"
        last = [c for c in self.clicks if c.table is table][-3:]
        said = [f"{c.user.username} {c.act}: {c.answer()} {c.text()[:70]!r}" for c in last]
        return f"{waits}; table {table.number}'s last answers: {'; '.join(said) or 'none'}"

    # ------------------------------------------------------------------ one fault

    async def round(self, fault: Fault) -> None:
        """Play every table until ``fault`` fired and the database is back, then each table must answer
        again and play on; then the round's checks."""
        self.fault = fault
        self.faults.append(fault)
        self.round_moves = 0
        began = time.monotonic()

        def late() -> None:  # the tables make no move (an earlier fault broke them): the fault anyway
            if fault.began is None:
                self.fire(fault)

        timer = asyncio.get_running_loop().call_later(FIRE_BY_S, late)
        watch = asyncio.create_task(self.watch_computers(fault)) if fault.when == "computer" else None
        await asyncio.gather(*(self.table_round(table, fault) for table in self.tables))
        timer.cancel()
        if watch is not None:
            watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch
        for task in list(self.outages):
            await task
        self.outages.clear()
        if fault.began is None:
            self.problem(f"fault {fault.number} ({fault.kind}) never fired")
            return
        assert fault.back is not None
        answered = time.monotonic()
        await self.check_health(fault, answered)
        self.check_in_flight(fault)
        self.check_answers(fault)
        self.check_database(fault)
        print(
            f"  fault {fault.number} {fault.kind} after a {fault.when}: round {answered - began:.1f} s, "
            f"{len(fault.in_flight)} click(s) in flight, {fault.unhealthy} unhealthy /healthz, "
            f"answered again after "
            + ", ".join(
                f"{tb.recovery[-1]:.2f} s" if tb.recovery[-1] is not None else "never" for tb in self.tables
            )
        )

    async def table_round(self, table: Table, fault: Fault) -> None:
        try:
            if self.dead:
                raise Problem("the bot process is gone")
            await self.play(
                table, lambda: fault.back is not None, time.monotonic() + PLAY_BOUND_S, "end of the fault"
            )
            assert fault.back is not None
            deadline = fault.back + RECOVERY_S
            # Every player's Open my panel answers with their panel ...
            for user in table.players:
                while True:
                    click, panel = await self.open_panel(user, table, "probe")
                    if panel is not None:
                        break
                    if time.monotonic() > deadline:
                        raise Problem(
                            f"{user.username}'s Open my panel still answered {click.answer()} "
                            f"{click.text()[:80]!r} "
                            f"{RECOVERY_S:.0f} s after the database was back"
                        )
                    await asyncio.sleep(0.25)
            # ... and the next move is applied.
            since = time.monotonic()
            await self.play(
                table,
                lambda: self.moves_of(table, since) >= 1,
                deadline,
                f"move applied within {RECOVERY_S:.0f} s of the database being back",
            )
            table.recovery.append(time.monotonic() - fault.back)
            more = self.moves_of(table) + AFTER_MOVES
            await self.play(
                table, lambda: self.moves_of(table) >= more, time.monotonic() + RECOVERY_S, "play after"
            )
        except Problem as problem:
            if len(table.recovery) < len(self.faults):
                table.recovery.append(None)
            status = await self.health.ask()
            healthy = f"; /healthz said {status} meanwhile" if status == 200 else ""
            self.problem(f"fault {fault.number} ({fault.kind}), table {table.number}: {problem}{healthy}")

    # ------------------------------------------------------------------ the round's checks

    async def check_health(self, fault: Fault, answered: float) -> None:
        assert fault.began is not None and fault.back is not None
        during = self.health.between(fault.began, answered)
        fault.unhealthy = sum(status != 200 for status in during)
        if fault.kind in ("stop", "restart") and fault.down_health != 503:
            self.problem(
                f"fault {fault.number} ({fault.kind}): /healthz answered {fault.down_health or 'nothing'} "
                f"while the server was down, not 503"
            )
        deadline = fault.back + RECOVERY_S
        while (status := await self.health.ask()) != 200 and time.monotonic() < deadline:
            await asyncio.sleep(HEALTH_POLL_S)
        if status != 200:
            self.problem(
                f"fault {fault.number} ({fault.kind}): /healthz still "
                f"{status or 'without an answer'} {RECOVERY_S:.0f} s after the database was back"
            )
            return
        firsts = [when for when, status in self.health.samples if when >= fault.back and status == 200]
        fault.healthy_after = (firsts[0] if firsts else time.monotonic()) - fault.back

    def check_in_flight(self, fault: Fault) -> None:
        """On PostgreSQL: a move in flight when the connections dropped is applied once, answered as a
        move (or what it would have got anyway: the rules' refusal, the refreshed panel). When the server
        went down (``stop``: for OUTAGE_S; ``restart``: until it is started again, about 0.2 s here
        and seconds on a loaded machine) before the move's commit reached it, and was still down for
        the commit's one retry (made 0.2 s later), neither can land: the table's "reconnecting" or
        "could not be saved; nothing changed" is then the honest answer (that nothing was applied
        twice or lost is checked on the log, as for every click). The halt races the commit and the
        start races the retry, so either outcome happens; both are right, the refusal only with the
        bot's log saying that its table's retry or read-back failed (a refusal without them would be
        a move refused because of the database while it was there)."""
        if fault.kind == "lock":
            return  # SQLite's busy timeout ran out: a refusal that changed nothing is the answer
        for click in fault.in_flight:
            answer = click.answer()
            if (
                fault.kind in ("stop", "restart")
                and answer == "refused"
                and click.text().strip() in WAITING
                and self.database_failed(click.table.game_id)
            ):
                continue
            if click.act in MOVE_ACTS and answer not in ("move", "stale", "rule", None):
                self.problem(
                    f"fault {fault.number} ({fault.kind}), table {click.table.number}: "
                    f"{click.user.username}'s move {click.act} in flight at the fault was answered "
                    f"{answer}: {click.text()[:80]!r}, not applied"
                )

    def database_failed(self, game_id: int) -> bool:
        """The bot's log says that a commit's one retry, or a read-back, of this game failed."""
        said = self.bot.stderr.decode(errors="replace")
        return any(
            f"{event} game_id={game_id} " in said or f"{event} game_id={game_id}\n" in said
            for event in ("storage.commit_retry_failed", "storage.reload_failed")
        )

    def check_answers(self, fault: Fault) -> None:
        """Every click of the round answered, never with the internal-error apology."""
        mine = [c for c in self.clicks if c.fault == fault.number]
        late = [c for c in mine if c.dropped and c.answer() is not None]
        if late:
            self.problem(
                f"fault {fault.number} ({fault.kind}): {len(late)} click(s) the bot did not answer within "
                f"Discord's {DISCORD_WINDOW_S:.0f} s were answered later: "
                + ", ".join(f"table {c.table.number} {c.user.username} {c.act}" for c in late[:5])
            )
        unanswered = [c for c in mine if c.answer() is None and not c.dropped]
        if unanswered:
            self.problem(
                f"fault {fault.number} ({fault.kind}): {len(unanswered)} click(s) never answered: "
                + ", ".join(f"table {c.table.number} {c.user.username} {c.act}" for c in unanswered[:5])
            )
        apologies = [c for c in mine if c.answer() == "internal"]
        if apologies:
            tables = sorted({c.table.number for c in apologies})
            self.problem(
                f"fault {fault.number} ({fault.kind}): {len(apologies)} click(s) answered "
                f"{INTERNAL_ERROR!r} (tables {tables})"
            )

    def check_database(self, fault: Fault) -> None:
        try:
            state = self.reader.state([tb.game_id for tb in self.tables])
        except (Problem, Unreachable) as problem:
            self.problem(f"fault {fault.number} ({fault.kind}): the database: {problem}")
            return
        moves = 0
        for table in self.tables:
            row, log = state[table.game_id]
            moves += self.check_game(table, row, log, fault)
        self.moves = moves

    def check_game(
        self, table: Table, row: GameRow, log: list[tuple[int, int, dict[str, Any]]], fault: Fault
    ) -> int:
        """tests/e2e/test_kills.py's check: every acknowledged move is the logged action at the version
        its answer shows; every human action in the log is matched to its own click."""
        engine = BY_KIND["skyjo"].engine
        panel_module = BY_KIND["skyjo"].panel
        clicks = [c for c in self.clicks if c.table is table]
        where = f"fault {fault.number} ({fault.kind}), table {table.number}"

        def action_of(click: Click) -> dict[str, Any] | None:
            action = (
                engine.NextRound() if click.act == "nx" else panel_module.action_for(click.act, click.bid.arg)
            )
            return None if action is None else dict(action.to_dict())

        used: dict[int, Click] = {}
        for click in clicks:
            if click.answer() != "move":
                continue
            result = result_of(click.inter)
            assert result is not None
            versions = result.versions
            seat = row.users[click.user.id]
            if not versions:  # the final result: the game is over
                continue
            if len(versions) != 1:
                text = f"{where}: {click.custom_id} answered with versions {sorted(versions)}"
                self.flag(("versions", id(click)), text)
                continue
            seq = versions.pop()
            if click.act == "nx" and (seq > len(log) or log[seq - 1][1:] != (seat, action_of(click))):
                continue  # a vote for the next round, not the last one: nothing logged
            if seq > len(log):
                self.lost.add((table.game_id, seq))
                text = f"{where}: acknowledged move lost: {click.custom_id} -> version {seq}, log {len(log)}"
                self.flag(("lost", table.game_id, seq), text)
                continue
            _, logged_seat, logged = log[seq - 1]
            if (logged_seat, logged) != (seat, action_of(click)):
                self.lost.add((table.game_id, seq))
                text = (
                    f"{where}: acknowledged {click.custom_id} of seat {seat} is not action {seq}: "
                    f"{logged_seat} {logged}"
                )
                self.flag(("lost", table.game_id, seq), text)
                continue
            if seq in used:
                self.twice.add((table.game_id, seq))
                self.flag(("twice", table.game_id, seq), f"{where}: two acknowledged clicks for action {seq}")
            used[seq] = click
        # No human action without its own click: each one matched to a distinct click that was answered
        # with no move (a click refused, or never answered, must have changed nothing: it is a candidate
        # only while it has no answer... or when its answer hid a move that was in fact committed).
        free = [
            c
            for c in clicks
            if c.act not in NO_ACTION and c.answer() not in ("move", "stale", "rule") and not c.dropped
        ]
        seat_user = {seat: user for user, seat in row.users.items()}
        for seq, seat, action in log:
            if seat not in seat_user or seq in used:
                continue
            match = next(
                (
                    c
                    for c in free
                    if c.answer() is None
                    and c.user.id == seat_user[seat]
                    and c.bid.version < seq
                    and action_of(c) == action
                ),
                None,
            )
            if match is None:
                refused = next(
                    (
                        c
                        for c in free
                        if c.user.id == seat_user[seat] and c.bid.version < seq and action_of(c) == action
                    ),
                    None,
                )
                if refused is not None:
                    text = (
                        f"{where}: action {seq} {action} was applied, but its click was answered "
                        f"{refused.answer()}: {refused.text()[:80]!r}"
                    )
                    self.flag(("refused", table.game_id, seq), text)
                    free.remove(refused)
                    used[seq] = refused
                    continue
                self.twice.add((table.game_id, seq))
                text = (
                    f"{where}: action {seq} {action} of seat {seat} has no click of its own (applied twice?)"
                )
                self.flag(("twice", table.game_id, seq), text)
                continue
            free.remove(match)
            used[seq] = match
        return len(used)

    # ------------------------------------------------------------------ the figures

    def figures(self, backend: str, began: float) -> str:
        recovered = [r for tb in self.tables for r in tb.recovery if r is not None]
        answers = [c.answer() for c in self.clicks]
        in_flight = [c for f in self.faults for c in f.in_flight]
        lines = [
            f"database faults ({backend}): {len(self.faults)} fault(s) "
            f"({', '.join(f'{f.kind} after a {f.when}' for f in self.faults)}), {len(self.tables)} tables",
            f"  {len(self.clicks)} clicks ({sum(c.why == 'outage' for c in self.clicks)} while the test "
            f"could not read the database), {answers.count('move')} acknowledged moves, "
            f"{answers.count('refused')} refused for the moment, {answers.count('internal')} apologies, "
            f"{sum(c.dropped for c in self.clicks)} left unanswered while the process had no shard lease, "
            f"{sum(a is None and not c.dropped for a, c in zip(answers, self.clicks, strict=True))} never "
            f"answered otherwise; {self.moves} human moves in the logs",
            f"  {len(in_flight)} clicks in flight at the faults, "
            f"{sum(c.answer() == 'move' for c in in_flight)} of them answered with their move",
            "  answered again after (s), per table: "
            + "; ".join(
                f"{tb.number}: " + " ".join("never" if r is None else f"{r:.2f}" for r in tb.recovery)
                for tb in self.tables
            )
            + (f" (max {max(recovered):.2f})" if recovered else ""),
            "  /healthz: not 200 during each fault: "
            + ", ".join(str(f.unhealthy) for f in self.faults)
            + "; 200 again after (s): "
            + ", ".join(
                "never" if f.healthy_after is None else f"{f.healthy_after:.2f}" for f in self.faults
            ),
            f"  lost: {len(self.lost)}, applied twice: {len(self.twice)}, problems: {len(self.problems)}, "
            f"{time.monotonic() - began:.1f} s",
        ]
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------- the runs


def _players(fake: FakeDiscord) -> None:
    """The table's players and channels beyond the fake's own (before the bot connects)."""
    for name in ("dave", "erin", "frank", "gina"):
        fake.add_user(name)
    fake.add_channel("cards")


async def _run(
    fake: FakeDiscord, reader: LogReader, database: str | Path, flags: list[str], plan: list[str],
    inject: Callable[[Harness], Callable[[Fault], None]], backend: str, tables: int = len(TABLES),
) -> None:  # fmt: skip
    began = time.monotonic()
    _players(fake)
    port = free_port()
    bot = BotProcess(
        fake,
        database,
        [
            "--sync",
            "--seed",
            str(SEED),
            "--no-limits",
            "--ai-delay",
            str(AI_DELAY_S),
            "--metrics-port",
            str(port),
            *flags,
        ],
    )
    health = Health(port)
    h = Harness(fake, reader, bot, health)
    h.unserved_ok = "--shard-ids" in flags
    h.inject = inject(h)
    try:
        await bot.start()
        health.start()
        h.fault = Fault(0, "none", "never", 0)
        for number, (channel, host, guest) in enumerate(TABLES[:tables], 1):
            await h.open_table(number, fake.channel(channel), fake.user(host), fake.user(guest))
        assert await health.ask() == 200
        for number, step in enumerate(plan, 1):
            kind, when = step.split(":")
            await h.round(Fault(number, kind, when, trigger=h.plan.randint(4, 12)))
            if h.dead:
                code = bot.proc.returncode if bot.proc is not None else None
                h.problem(
                    f"the bot process exited ({code}) at fault {number}; its log:\n    {await bot.errors()}"
                )
                break
        print("\n" + h.figures(backend, began))
    finally:
        await health.stop()
        code = await bot.stop()
        reader.close()
        # What the bot left in the fake during the faults: rejected requests (nothing is asserted about
        # Discord here) and clicks on messages the bot had changed meanwhile.
        fake.take_rejections()
        fake.take_failed_clicks()
    if h.problems:
        log = "" if h.dead else f"\nthe bot's log said:\n    {await bot.errors()}"  # (said above if dead)
        raise AssertionError(f"{len(h.problems)} problem(s):\n" + "\n".join(h.problems) + log)
    assert code == 0, f"the bot did not stop cleanly ({code}):\n{await bot.logs()}"
    # The faults were real: each fired with clicks going, and the games went on through them.
    assert all(f.began is not None for f in h.faults) and len(h.faults) == len(plan)
    clicked = [f for f in h.faults if f.when == "click"]
    assert all(f.in_flight for f in clicked), "a fault after a click found no click in flight"
    assert all(None not in tb.recovery and len(tb.recovery) == len(plan) for tb in h.tables)
    assert not h.lost and not h.twice
    assert h.moves >= len(plan) * len(h.tables) * (AFTER_MOVES + 1)


def _postgres_faults(server: PostgresServer) -> Callable[[Harness], Callable[[Fault], None]]:
    def bind(h: Harness) -> Callable[[Fault], None]:
        def inject(fault: Fault) -> None:
            if fault.kind == "terminate":
                # Synchronously, right after the click was sent: the bot has not answered it yet.
                with server.admin() as admin:
                    rows = admin.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s",
                        (APP_ROLE,),
                    ).fetchall()
                fault.terminated = sum(bool(r[0]) for r in rows)
                fault.back = time.monotonic()
                return

            async def outage() -> None:
                down = time.monotonic()
                await asyncio.to_thread(server.halt, "fast")
                # Asked once the server is surely down (a restart's gap is ~0.2 s here, shorter than
                # the poller's rhythm on a loaded machine); a restart waits for the answer.
                fault.down_health = await h.health.ask()
                if fault.kind == "stop":
                    await asyncio.sleep(max(0.0, down + OUTAGE_S - time.monotonic()))
                await asyncio.to_thread(server.resume)
                fault.back = time.monotonic()

            task = asyncio.create_task(outage(), name=f"fault-{fault.number}")
            h.outages.add(task)

        return inject

    return bind


def _sqlite_lock(path: Path) -> Callable[[Harness], Callable[[Fault], None]]:
    def bind(h: Harness) -> Callable[[Fault], None]:
        def inject(fault: Fault) -> None:
            async def hold() -> None:
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, "-c", LOCKER, str(path), str(SQLITE_LOCK_S),
                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                )  # fmt: skip
                assert proc.stdout is not None
                out = [await proc.stdout.readline(), await proc.stdout.readline()]
                code = await proc.wait()
                assert out == [b"LOCKED\n", b"RELEASED\n"] and code == 0, (out, code)
                fault.back = time.monotonic()

            task = asyncio.create_task(hold(), name=f"fault-{fault.number}")
            h.outages.add(task)

        return inject

    return bind


async def test_postgres_faults_mid_game_every_table_answers_again_and_no_move_is_lost_or_doubled(
    fake_discord: FakeDiscord, pg_start: Callable[..., PostgresServer]
) -> None:
    server = pg_start()  # the test's own: it is stopped and restarted
    server.create_database("skybo")
    url = server.dsn("skybo", tcp=True)  # as in production: over TCP, as the app role
    await _run(
        fake_discord,
        postgres_reader(server, "skybo"),
        url,
        [],
        ["terminate:click", "stop:computer", "restart:click", "terminate:computer"],
        _postgres_faults(server),
        "postgres",
    )


async def test_a_fleet_process_keeps_its_shards_through_dropped_connections_and_a_restart(
    fake_discord: FakeDiscord, pg_start: Callable[..., PostgresServer]
) -> None:
    server = pg_start()
    server.create_database("skybo")
    url = server.dsn("skybo", tcp=True)
    await _run(
        fake_discord,
        postgres_reader(server, "skybo"),
        url,
        ["--shard-count", "1", "--shard-ids", "0"],
        ["terminate:click", "restart:computer"],
        _postgres_faults(server),
        "postgres, a fleet process holding its shard",
        tables=2,
    )


async def test_sqlite_locked_mid_game_every_table_answers_again_and_no_move_is_lost_or_doubled(
    fake_discord: FakeDiscord, db_file: Path
) -> None:
    await _run(
        fake_discord,
        sqlite_reader(db_file),
        db_file,
        ["--busy-timeout-ms", str(SQLITE_BUSY_MS)],
        ["lock:click", "lock:computer", "lock:computer"],
        _sqlite_lock(db_file),
        "sqlite",
    )
