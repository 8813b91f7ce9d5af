"""SIGKILL of the real bot process mid-game, 20 times, in a Skyjo and a Skip-Bo table at once.

The fake Discord runs in this test's process; the project's bot runs in a subprocess
(``tests/e2e/bot_worker.py``) pointed at it, on a SQLite file. Alice and Bob play both tables by
clicking their private panels through the fake (a computer player sits at each), and the bot is
killed with SIGKILL at seeded moments: right after a click was sent (in flight for sure), a few
milliseconds after one (not received yet, acknowledged, committed but not answered, or answered), at
a random time while both tables play, or while the process starts and resumes the games. After each
kill a new process starts on the same file and the players go on with the panels they had.

A move's answer is what the player sees after it: the panel edited in place, either by the click's
callback or, since a move is acknowledged first (a deferred update that shows nothing and promises
nothing), by the edit of the panel that follows. "Acknowledged" below means that answer reached the
fake. Checked after every kill, and at the end:

- every acknowledged move is in the database, as the logged action at exactly the version its panel
  carries (the panel is drawn under the table's lock right after the commit);
- the log is the truth: each game's snapshot equals the replay of its log (hash and status too), and
  a finished game has its results;
- no action applied twice: every human action in the log is an acknowledged move or is matched to
  its own unanswered click (same player, same move, a button drawn before it), one click one action;
  a click answered with the refreshed panel or a refusal changed nothing;
- old buttons work: after a restart, clicks on messages from before the kill (the unanswered click
  again, the panels the players held, an older panel, the table message) get a proper answer, the
  move if the button is still current or the refreshed panel with its "already done" notice; a button
  older than the game is never applied; never "This interaction failed", never a refusal, never the
  internal-error apology, never an ERROR or a traceback in any process's log;
- the games go on: both are played to their end (results written) after the last kill.

Clicks are sent only while a bot is connected (on Discord, a click while the bot is down is never
delivered to it). What killed processes leave in the fake is taken explicitly at the end (see the
test). The fake's deadlines stay on its manual clock: the 3 s to answer never expires by accident.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.games.registry import BY_KIND
from bot.i18n import translate as t
from bot.storage.games import canonical_json, snapshot_hash
from bot.ui import ids
from fakecord import FakeDiscord, FakeInteraction, FakeMessage, FakeUser

from .bot_worker import spawn
from .conftest import act_of, choose, enabled_buttons
from .skipbo_helpers import pick_action, steps_for

SEED = 20261123
# Twelve kills (twenty until the Activity's tests came: `make test`'s ten minutes), each plan several times.
KILLS = 12
# The play to the end after the last kill stops after this many clicks in all (about 850 are made): a
# bound on the work, not on the time (the machine may be loaded), before "not over" is reported.
MAX_CLICKS = 5000
ANSWER_TIMEOUT_S = 60.0  # a failure bound: a live bot answers a click in milliseconds, but a loaded
# machine (a whole suite at load 20) once starved a process for longer; the fake's own waits use 60 s too
START_TIMEOUT_S = 60.0  # a failure bound too: a process starting under load 20 once took over 20 s
LOCALE = "en-US"  # Alice's and Bob's
# A click on a panel older than the game: the panel as it stands, with a gentle word (after a restart the
# bot no longer knows who played since, so either word may come).
STALE_NOTICES = (t("table.notice.already_done", LOCALE), t("table.notice.moved_on", LOCALE))
INTERNAL_ERROR = t("table.error.internal", LOCALE)
FORGED = t("table.error.forged", LOCALE)
PANEL_ONLY_ACTS = {"md", "rf", "hn"}  # panel clicks that change nothing in the game (a hint plays no move)
NO_ACTION = PANEL_ONLY_ACTS | {"op"}


class BotDown(Exception):
    """The bot process was killed: the clicker stops until the next one is connected."""


@dataclass(eq=False)
class Click:
    """One click sent to the bot, kept to check its answer and its trace in the database."""

    user: FakeUser
    kind: str
    game_id: int
    custom_id: str
    panel: FakeMessage  # the clicked message (the store's, edited in place by the answer)
    seen_revision: int  # the revision the user clicked on
    inter: FakeInteraction
    process: int  # the bot process that received it (1, 2, ...)
    why: str = "play"  # "play", "again" (the in-flight click re-sent), "old" (an older panel)
    restart_version: int | None = None  # for "again": the game's version when the new process started

    @property
    def bid(self) -> ids.ButtonId:
        parsed = ids.decode(self.custom_id)
        assert parsed is not None
        return parsed

    @property
    def act(self) -> str:
        return self.bid.act


@dataclass
class GameRow:
    id: int
    kind: str
    status: str
    version: int
    meta: dict[str, Any]
    users: dict[int, int]  # user id -> seat
    game: Any


# What both process-level tests (this one and test_db_faults) read of the bot's database, through a
# ``query(sql, params) -> rows`` of their own connection (``?`` placeholders).
Query = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]
Actions = list[tuple[int, int, dict[str, Any]]]


def read_game(query: Query, game_id: int) -> GameRow:
    """A game's row: its status, version, meta, human seats and the state of its snapshot."""
    kind, status, version, meta, snapshot = query(
        "SELECT kind, status, version, meta, snapshot FROM games WHERE id = ?", (game_id,)
    )[0]
    users = {
        int(user): int(seat)
        for seat, user in query(
            "SELECT seat, user_id FROM game_seats WHERE game_id = ? AND user_id IS NOT NULL", (game_id,)
        )
    }
    engine = BY_KIND[kind].engine
    return GameRow(
        game_id, kind, status, version, json.loads(meta), users, engine.State.from_dict(json.loads(snapshot))
    )


def read_actions(query: Query, game_id: int) -> Actions:
    """A game's action log: (seq, seat, action), in order."""
    return [
        (int(seq), int(seat), json.loads(action))
        for seq, seat, action in query(
            "SELECT seq, seat, action FROM game_actions WHERE game_id = ? ORDER BY seq", (game_id,)
        )
    ]


def replay_of(query: Query, game_id: int, kind: str, seed: int, options: str, actions: Actions) -> Any:
    """The game as its log makes it: the engine replays ``actions`` from the stored seed and options."""
    engine = BY_KIND[kind].engine
    names = [
        f"ai{seat}:{level}" if level is not None else f"u{user}"
        for seat, user, level in query(
            "SELECT seat, user_id, ai_level FROM game_seats WHERE game_id = ? ORDER BY seat", (game_id,)
        )
    ]
    return engine.replay(
        names,
        int(seed),
        engine.Options.from_dict(json.loads(options)),
        [(seat, engine.action_from_dict(a)) for _, seat, a in actions],
    )


@dataclass
class Tally:
    kills: dict[str, int] = field(default_factory=dict)  # by how the kill was planned
    in_flight: int = 0  # clicks sent and not answered when the process died
    in_flight_committed: int = 0  # ... of which the move was in the database after the restart
    answered_after_kill: int = 0  # answers the fake received from a process already killed
    acknowledged_only: int = 0  # clicks acknowledged first (deferred) whose result never came
    again: int = 0  # in-flight clicks clicked again after the restart
    old: int = 0  # clicks on a message from an earlier process (one per restart and game on)
    old_on: dict[str, int] = field(default_factory=dict)  # ... by what was clicked
    stale: int = 0  # answers that were the refreshed panel
    refused: int = 0  # private refusals (a move the engine refused: the panel raced a change)
    kills_mid_game: dict[str, int] = field(default_factory=dict)  # kind -> kills while it was active
    moves: int = 0  # human actions in the log, each matched to its click
    answered: int = 0  # ... whose click was answered (the others died in flight, committed)


class Database:
    """The bot's SQLite file, read-only (never a writer beside the bot)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None

    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=10)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def game_in_channel(self, channel_id: int) -> int | None:
        row = (
            self.conn()
            .execute("SELECT id FROM games WHERE channel_id = ? ORDER BY id DESC LIMIT 1", (channel_id,))
            .fetchone()
        )
        return None if row is None else int(row[0])

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return list(self.conn().execute(sql, params).fetchall())

    def game(self, game_id: int) -> GameRow:
        return read_game(self.query, game_id)

    def actions(self, game_id: int) -> Actions:
        return read_actions(self.query, game_id)

    def check_replay(self) -> dict[int, str]:
        """Every game's snapshot is the replay of its log (test_faults' check, both kinds); returns
        game id -> status."""
        conn = self.conn()
        assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        statuses: dict[int, str] = {}
        games = conn.execute(
            "SELECT id, kind, seed, options, version, snapshot, snapshot_hash, status FROM games"
        ).fetchall()
        for game_id, kind, seed, options, version, snapshot, digest, status in games:
            actions = self.actions(game_id)
            assert [a[0] for a in actions] == list(range(1, len(actions) + 1)), f"game {game_id}: a gap"
            assert version == len(actions), f"game {game_id}: version {version}, {len(actions)} actions"
            replayed = replay_of(self.query, game_id, kind, seed, options, actions)
            assert canonical_json(replayed.to_dict()) == snapshot, f"game {game_id}: snapshot != replay"
            assert snapshot_hash(snapshot) == digest
            assert status in ("active", "finished"), (game_id, status)
            assert replayed.is_over == (status == "finished"), (game_id, status)
            statuses[game_id] = status
        finished = {g for g, s in statuses.items() if s == "finished"}
        with_results = {g for (g,) in conn.execute("SELECT DISTINCT game_id FROM game_results")}
        assert with_results == finished, "a finished game without its results, or results of a live one"
        return statuses


class BotProcess:
    """One run of the bot in its own process."""

    def __init__(self, fake: FakeDiscord, db_path: Path, number: int, *, sync: bool) -> None:
        self.fake = fake
        self.number = number
        self.killed = False
        self.previous_session = fake.session
        self.stderr = b""
        self.proc: asyncio.subprocess.Process | None = None
        self.db_path = db_path
        self._flags = ["--seed", str(SEED)] + (["--sync"] if sync else [])

    async def start(self) -> None:
        self.proc = await spawn(self.fake, self.db_path, *self._flags, stdout=asyncio.subprocess.DEVNULL)
        self._stderr_task = asyncio.create_task(self._read_stderr())

    async def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        self.stderr = await self.proc.stderr.read()

    def connected(self) -> bool:
        """The fake holds a gateway session of this process, and sent it its guild (clicks may go)."""
        session = self.fake.session
        return (
            session is not None
            and session is not self.previous_session
            and session.connection is not None
            and any(event["t"] == "GUILD_CREATE" for event in session.events)
        )

    async def wait_connected(self) -> None:
        proc = self.proc
        assert proc is not None
        try:
            await self.fake.wait_until(
                lambda: self.connected() or proc.returncode is not None,
                START_TIMEOUT_S,
                what=f"bot process {self.number} on the gateway",
            )
        except TimeoutError:
            raise AssertionError(f"bot process {self.number} did not connect: {await self.logs()}") from None
        assert self.proc is not None
        assert self.proc.returncode is None, f"bot process {self.number} died: {await self.logs()}"

    @property
    def alive(self) -> bool:
        return not self.killed and self.proc is not None and self.proc.returncode is None

    def kill(self) -> None:
        """SIGKILL, synchronously (no await: a click just sent is certainly still unanswered)."""
        if self.proc is not None and self.proc.returncode is None and not self.killed:
            self.killed = True
            os.kill(self.proc.pid, signal.SIGKILL)

    async def reap(self) -> int:
        assert self.proc is not None
        code = await self.proc.wait()
        await self._stderr_task
        return code

    async def stop(self) -> int:
        """A clean stop: the worker closes the bot when its stdin closes."""
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.close()
        return await asyncio.wait_for(self.reap(), 30)

    async def logs(self) -> str:
        if self.proc is not None and self.proc.returncode is None:
            return "(still running)"
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._stderr_task, 5)
        return self.stderr.decode(errors="replace")[-4000:]

    def check_log(self) -> None:
        text = self.stderr.decode(errors="replace")
        bad = [
            line
            for line in text.splitlines()
            if line.startswith(("ERROR", "CRITICAL")) or "Traceback" in line
        ]
        assert not bad, f"bot process {self.number} logged errors:\n{text[-4000:]}"


class Table:
    """A table the test plays: its channel, public message, game and the players' panels."""

    def __init__(self, kind: str, channel: Any, message: FakeMessage, game_id: int) -> None:
        self.kind = kind
        self.rng = random.Random(f"{SEED}-{kind}")  # the players' choices at this table
        self.channel = channel
        self.message = message
        self.game_id = game_id
        self.panels: dict[int, FakeMessage] = {}  # user id -> the panel the player uses now
        self.old_panels: list[tuple[FakeUser, FakeMessage]] = []  # panels the players left behind


class Harness:
    def __init__(self, fake: FakeDiscord, db_path: Path) -> None:
        self.fake = fake
        self.db_path = db_path
        self.db = Database(db_path)
        self.rng = random.Random(SEED)  # which old panel is clicked after a restart
        self.plan_rng = random.Random(SEED + 1)  # when each process dies: the same plan every run
        self.clicks: list[Click] = []
        self.tally = Tally()
        self.bot: BotProcess | None = None
        self.processes = 0
        self.tables: list[Table] = []
        self.humans = [fake.user("alice"), fake.user("bob")]
        self.kill_after_clicks: int | None = None  # this process dies right after its N-th click...
        self.kill_delay = 0.0  # ... that many seconds after it was sent (0: before anything else runs)
        self.clicks_this_process = 0
        self.unanswered_at_kill: list[Click] = []
        self.pending_again: list[Click] = []  # clicks in flight at a kill, to send again after it

    # ------------------------------------------------------------------ processes

    async def start_bot(self, *, sync: bool = False) -> BotProcess:
        self.processes += 1
        self.bot = BotProcess(self.fake, self.db_path, self.processes, sync=sync)
        self.clicks_this_process = 0
        self.kill_after_clicks = None
        await self.bot.start()
        return self.bot

    def alive(self) -> bool:
        return self.bot is not None and self.bot.alive

    def count_kill(self, how: str) -> None:
        self.tally.kills[how] = self.tally.kills.get(how, 0) + 1

    def kill_now(self, how: str | None = None, target: BotProcess | None = None) -> None:
        """SIGKILL the running process (``target`` only: a late timer spares the next one) now, noting
        which clicks it had not answered yet."""
        bot = self.bot
        if bot is None or not bot.alive or (target is not None and target is not bot):
            return
        if how is not None:
            self.count_kill(how)
        self.unanswered_at_kill = [
            c for c in self.clicks if c.process == bot.number and result_of(c.inter) is None
        ]
        bot.kill()

    async def kill_and_reap(self) -> None:
        bot = self.bot
        assert bot is not None
        self.kill_now()
        code = await bot.reap()
        assert code == -signal.SIGKILL, f"process {bot.number} exited with {code}: {await bot.logs()}"
        bot.check_log()
        # Requests the process sent just before it died may still be in the fake's socket buffers:
        # let the fake read them, so "answered or not" is final before it is judged.
        await asyncio.sleep(0.2)
        for table in self.tables:
            if self.db.game(table.game_id).status == "active":
                self.tally.kills_mid_game[table.kind] = self.tally.kills_mid_game.get(table.kind, 0) + 1
        self.tally.in_flight += len(self.unanswered_at_kill)
        answered = [c for c in self.unanswered_at_kill if result_of(c.inter) is not None]
        self.tally.answered_after_kill += len(answered)
        self.tally.acknowledged_only += sum(
            c.inter.callback is not None and c not in answered for c in self.unanswered_at_kill
        )
        # The player saw no answer ("This interaction failed" on Discord): they click again.
        self.pending_again += [c for c in self.unanswered_at_kill if c not in answered]
        self.unanswered_at_kill = []

    # ------------------------------------------------------------------ clicks

    async def click(
        self, user: FakeUser, table: Table, panel: FakeMessage, custom_id: str, why: str = "play"
    ) -> Click:
        """``user`` clicks ``custom_id`` on ``panel`` as they see it now; waits for the answer."""
        if not self.alive():
            raise BotDown
        assert self.bot is not None
        seen = panel.snapshot()
        inter = await self.fake.click(user, seen, custom_id)
        click = Click(
            user, table.kind, table.game_id, custom_id, panel, seen.revision, inter, self.bot.number, why
        )
        self.clicks.append(click)
        assert not inter.failed, f"This interaction failed: {inter.failure!r}"
        self.clicks_this_process += 1
        if self.kill_after_clicks is not None and self.clicks_this_process >= self.kill_after_clicks:
            self.kill_after_clicks = None
            if self.kill_delay == 0:
                self.kill_now("right after a click")  # in flight for sure: nothing ran since it was sent
            else:
                asyncio.get_running_loop().call_later(
                    self.kill_delay, self.kill_now, "just after a click", self.bot
                )
        await self.answer(click)
        return click

    async def answer(self, click: Click) -> None:
        inter = click.inter
        bot = self.bot
        await self.fake.wait_until(
            lambda: result_of(inter) is not None or bot is None or not bot.alive,
            ANSWER_TIMEOUT_S,
            what=f"an answer to {click.custom_id} from {click.user.username}",
        )
        if result_of(inter) is None:
            raise BotDown
        self.check_answer(click)

    def check_answer(self, click: Click) -> None:
        """A proper answer: the panel (in place; a new private one for Open), or a private refusal;
        never the internal-error apology nor "forged"."""
        result = result_of(click.inter)
        assert result is not None
        said = [result.content] + [
            str(r.json.get("content") or "") for r in click.inter.requests if isinstance(r.json, dict)
        ]
        for text in said:
            assert INTERNAL_ERROR not in text and FORGED not in text, f"{click.custom_id}: {text!r}"
        if click.act == "op":
            assert result.shown == "message" and result.versions, f"Open answered {result}"
        elif click.why != "play":
            # a button from before the kill: the move, or the refreshed panel (never a refusal)
            assert result.shown == "panel", f"{click.why} {click.custom_id} answered {result}"
            self.tally.stale += result.stale
        elif result.shown == "message":
            self.tally.refused += 1
        elif result.stale:
            self.tally.stale += 1

    async def open_panel(self, user: FakeUser, table: Table, why: str = "play") -> FakeMessage:
        """``user`` opens their panel with the table message's Open button."""
        custom_id = next(c for c in table.message.custom_ids if act_of(c) == "op")
        click = await self.click(user, table, table.message, custom_id, why)
        panel = await click.inter.original(ANSWER_TIMEOUT_S)
        assert panel.ephemeral and panel.visible_to == user.id
        old = table.panels.get(user.id)
        if old is not None and old is not panel:
            table.old_panels.append((user, old))
        table.panels[user.id] = panel
        return panel

    # ------------------------------------------------------------------ playing

    def to_act(self, row: GameRow) -> list[FakeUser]:
        votes = set(row.meta.get("votes") or [])
        acting = set(row.game.seats_to_act())
        return [
            u
            for u in self.humans
            if row.users.get(u.id) in acting
            and not (row.game.phase == "round_over" and row.users[u.id] in votes)
        ]

    async def wait_change(self, table: Table, version: int) -> None:
        def changed() -> bool:
            return not self.alive() or self.db.game(table.game_id).version != version

        await self.fake.wait_until(changed, ANSWER_TIMEOUT_S, what=f"a computer move in game {table.game_id}")
        if not self.alive():
            raise BotDown

    async def play(self, table: Table, until: Callable[[], bool]) -> None:
        """Alice and Bob play ``table`` until it ends, ``until()``, or the process dies."""
        with contextlib.suppress(BotDown):
            while not until():
                row = self.db.game(table.game_id)
                if row.status != "active":
                    return
                users = self.to_act(row)
                if not users:
                    await self.wait_change(table, row.version)
                    continue
                user = table.rng.choice(users)
                if table.kind == "skyjo":
                    await self.skyjo_turn(user, table, row)
                else:
                    await self.skipbo_turn(user, table, row)

    async def up_to_date(self, panel: FakeMessage, version: int) -> None:
        """Give the bot a moment to bring the player's open panel up to ``version`` (it follows the
        game), as a player looks before clicking; a panel that stays older is clicked as it is."""

        def fresh() -> bool:
            versions = [p.version for c in panel.custom_ids if (p := ids.decode(c)) is not None]
            return not self.alive() or not versions or max(versions) >= version

        with contextlib.suppress(TimeoutError):
            await self.fake.wait_until(fresh, 0.3, what="the panel up to date")

    async def skyjo_turn(self, user: FakeUser, table: Table, row: GameRow) -> None:
        panel = table.panels.get(user.id) or await self.open_panel(user, table)
        await self.up_to_date(panel, row.version)
        custom_id = choose(panel, table.rng)
        if custom_id is None:  # the panel shows nothing to do (an older state): a fresh one
            panel = await self.open_panel(user, table)
            custom_id = choose(panel, table.rng)
            if custom_id is None:
                return
        await self.click(user, table, panel, custom_id)

    async def skipbo_turn(self, user: FakeUser, table: Table, row: GameRow) -> None:
        seat = row.users[user.id]
        action = pick_action(row.game, seat, table.rng)
        steps = steps_for(action, table.rng)
        panel = table.panels.get(user.id) or await self.open_panel(user, table)
        await self.up_to_date(panel, row.version)
        for act, arg in steps:
            custom_id = self.button(panel, act, arg)
            if custom_id is None:  # not on the panel the player holds (an older state): a fresh one
                panel = await self.open_panel(user, table)
                custom_id = self.button(panel, act, arg)
                if custom_id is None:
                    return
            click = await self.click(user, table, panel, custom_id)
            result = result_of(click.inter)
            if result is None or result.shown == "message" or result.stale:
                return  # refused, or the panel was out of date (it is the current one now): think again

    @staticmethod
    def button(panel: FakeMessage, act: str, arg: int) -> str | None:
        for comp in enabled_buttons(panel):
            parsed = ids.decode(comp["custom_id"])
            if parsed is not None and parsed.act == act and parsed.arg == arg:
                return str(comp["custom_id"])
        return None

    # ------------------------------------------------------------------ after a restart

    async def click_old_buttons(self) -> None:
        """The first clicks of a new process: on messages from before the kill."""
        if self.processes == 1:
            return  # the first process: nothing from before it
        in_flight, self.pending_again = self.pending_again, []
        for click in in_flight:
            table = next(tb for tb in self.tables if tb.game_id == click.game_id)
            if self.db.game(table.game_id).status != "active":
                continue
            if click.panel.component(click.custom_id) is None:
                # the dead process edited that panel after the click (it followed the game): the
                # player sees the newer panel, whose buttons the next clicks use
                continue
            version = self.db.game(table.game_id).version
            again = await self.click(click.user, table, click.panel, click.custom_id, why="again")
            again.restart_version = version
            self.tally.again += 1
        for table in self.tables:
            if self.db.game(table.game_id).status != "active":
                continue
            # An older panel that still shows buttons (one the dead process had not retired yet) if
            # there is one: whether there is depends on when the process died. Else a panel a player
            # held, drawn by the dead process; else the table message's Open. So every restart clicks
            # a button from before it, on each game still on (the tally counts them: tally.old).
            held = [(u, table.panels[u.id]) for u in self.humans if u.id in table.panels]
            where = "older panel"
            button = self.old_button(table.old_panels)
            if button is None:
                where, button = "held panel", self.old_button(held)
            if button is None:
                where = "table message"
                await self.open_panel(self.rng.choice(self.humans), table, why="old")
            else:
                user, panel, custom_id = button
                await self.click(user, table, panel, custom_id, why="old")
            self.tally.old += 1
            self.tally.old_on[where] = self.tally.old_on.get(where, 0) + 1

    def old_button(
        self, panels: list[tuple[FakeUser, FakeMessage]]
    ) -> tuple[FakeUser, FakeMessage, str] | None:
        """A seeded choice of a button on one of ``panels`` that still shows one: (user, panel, button)."""
        shown = [
            (user, panel, choices)
            for user, panel in panels
            if (
                choices := [
                    c["custom_id"]
                    for c in enabled_buttons(panel)
                    if ids.decode(c["custom_id"]) is not None and act_of(c["custom_id"]) != "nx"
                ]
            )
        ]
        if not shown:
            return None
        user, panel, choices = self.rng.choice(shown)
        return user, panel, self.rng.choice(choices)

    # ------------------------------------------------------------------ the database

    def check_database(self) -> dict[int, str]:
        """Replay, acknowledged moves, one click per action (see the module docstring)."""
        statuses = self.db.check_replay()
        made = [click for table in self.tables for click in self.check_game(table).values()]
        self.tally.moves = len(made)
        self.tally.answered = sum(result_of(c.inter) is not None for c in made)
        self.tally.in_flight_committed = sum(result_of(c.inter) is None for c in made)
        return statuses

    def check_game(self, table: Table) -> dict[int, Click]:
        row = self.db.game(table.game_id)
        log = self.db.actions(table.game_id)
        engine = BY_KIND[table.kind].engine
        panel_module = BY_KIND[table.kind].panel
        clicks = [c for c in self.clicks if c.game_id == table.game_id]

        def action_of(click: Click) -> dict[str, Any] | None:
            action = (
                engine.NextRound() if click.act == "nx" else panel_module.action_for(click.act, click.bid.arg)
            )
            data: dict[str, Any] | None = None if action is None else action.to_dict()
            return data

        used: dict[int, Click] = {}  # seq -> the click that made it
        # 1. Every acknowledged move is logged at the version its answer shows.
        for click in clicks:
            seq = self.acknowledged_seq(click, row, log)
            if seq is None:
                continue
            seat = row.users[click.user.id]
            if click.act == "nx" and (seq > len(log) or log[seq - 1][1:] != (seat, action_of(click))):
                continue  # a vote for the next round, not the last one: nothing logged
            assert seq <= len(log), (
                f"acknowledged move lost: {click.custom_id} -> version {seq}, log {len(log)}"
            )
            _, logged_seat, logged = log[seq - 1]
            assert (logged_seat, logged) == (seat, action_of(click)), (
                f"acknowledged {click.custom_id} by seat {seat} is not action {seq}: {logged_seat} {logged}"
            )
            assert seq not in used, f"two acknowledged clicks for action {seq}"
            used[seq] = click
        # 2. A click sent again after a restart whose button is older than the game: never a move again
        # (its first sending may have been committed), the refreshed panel (or a refusal) instead.
        for click in clicks:
            result = result_of(click.inter)
            if (
                click.why == "again"
                and click.restart_version is not None
                and result is not None
                and click.bid.version < click.restart_version
                and click.act not in PANEL_ONLY_ACTS
            ):
                assert self.acknowledged_seq(click, row, log) is None, f"{click.custom_id} applied again"
                assert result.shown == "message" or result.stale, f"{click.custom_id} again: {result}"
        # 3. No human action without its own click: each one matched to a distinct earlier click whose
        # fate is unknown (no answer: it died in flight). A click answered with the refreshed panel or a
        # refusal changed nothing, one answered with its move is matched above: neither is a candidate.
        free = [c for c in clicks if c.act not in PANEL_ONLY_ACTS | {"op"} and result_of(c.inter) is None]
        seat_user = {seat: user for user, seat in row.users.items()}
        for seq, seat, action in log:
            if seat not in seat_user or seq in used:
                continue
            match = next(
                (
                    c
                    for c in free
                    if c.user.id == seat_user[seat] and c.bid.version < seq and action_of(c) == action
                ),
                None,
            )
            assert match is not None, (
                f"game {table.game_id} action {seq} {action} of seat {seat} has no click"
            )
            free.remove(match)
            used[seq] = match
        return used

    @staticmethod
    def acknowledged_seq(
        click: Click, row: GameRow, log: list[tuple[int, int, dict[str, Any]]]
    ) -> int | None:
        """The version a click's answer shows after the player's move, or None when the answer was not
        a move (no answer yet, a refusal, the refreshed panel, a panel-only click). For Next round, the
        version the answer shows (the new round's if that vote dealt it)."""
        result = result_of(click.inter)
        if result is None or click.act in NO_ACTION or result.shown != "panel" or result.stale:
            return None
        versions = result.versions
        if not versions:  # the final result: the move ended the game, the seat's last action
            assert row.status == "finished", (
                f"{click.custom_id} answered with a final panel, game {row.status}"
            )
            seat = row.users[click.user.id]
            return max(seq for seq, by, _ in log if by == seat)
        assert len(versions) == 1, versions
        return versions.pop()


@dataclass
class Result:
    """What a click's answer showed the player: ``panel`` (the clicked panel, edited) or ``message``
    (a new private message: an opened panel, or a refusal)."""

    shown: str
    content: str
    components: list[dict[str, Any]]

    @property
    def versions(self) -> set[int]:
        return {
            parsed.version
            for comp in _walk(self.components)
            if (parsed := ids.decode(str(comp.get("custom_id") or ""))) is not None
        }

    @property
    def stale(self) -> bool:
        return any(notice in self.content for notice in STALE_NOTICES)


def result_of(inter: FakeInteraction) -> Result | None:
    """The answer to a click as the player sees it, None while there is none.

    Either in one request (the callback: 4, a new private message; 7, the panel edited in place), or
    acknowledged first (6, a deferred update that shows nothing and promises nothing) and then the
    result: the first edit of the interaction's original message (the clicked panel; later edits with
    the same token are the panel following the game) or a private follow-up (a refusal).
    """
    record = inter.callback
    if record is None:
        return None
    data = record.data or {}
    if record.type in (4, 7):
        shown = "message" if record.type == 4 else "panel"
        return Result(shown, str(data.get("content") or ""), list(data.get("components") or []))
    edits = [
        r
        for r in inter.requests
        if r.method == "PATCH" and r.path.endswith("/messages/@original") and 200 <= r.status < 300
    ]
    if edits:
        body = edits[0].json if isinstance(edits[0].json, dict) else {}
        return Result("panel", str(body.get("content") or ""), list(body.get("components") or []))
    if inter.followups:
        message = inter.followups[0]
        return Result("message", message.content, message.components)
    return None


def _walk(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for comp in components:
        out.append(comp)
        out += _walk(comp.get("components") or [])
    return out


# ---------------------------------------------------------------------------------------- the test


async def _open_table(
    h: Harness, kind: str, channel: Any, host: FakeUser, guest: FakeUser, options: dict[str, Any]
) -> Table:
    """``host`` opens the table (one each: a server may make a user wait between two tables), ``guest``
    joins, the host starts it."""
    fake = h.fake
    inter = await fake.run_command(host, kind, "new", options=options, channel=channel)
    lobby = await inter.original(ANSWER_TIMEOUT_S)
    assert not lobby.ephemeral, lobby.text
    join = next(c for c in lobby.custom_ids if c.endswith(":jn"))
    await (await fake.click(guest, lobby, join)).response(ANSWER_TIMEOUT_S)
    await fake.wait_until(
        lambda: str(guest.global_name) in lobby.text, ANSWER_TIMEOUT_S, what="the guest seated"
    )
    start = next(c for c in lobby.custom_ids if c.endswith(":st"))
    await (await fake.click(host, lobby, start)).response(ANSWER_TIMEOUT_S)
    game_id = await fake.wait_until(
        lambda: h.db.game_in_channel(channel.id), ANSWER_TIMEOUT_S, what="the game"
    )
    await fake.wait_until(
        lambda: any(act_of(c) == "op" for c in lobby.custom_ids), ANSWER_TIMEOUT_S, what="the table buttons"
    )
    table = Table(kind, channel, lobby, game_id)
    h.tables.append(table)
    return table


async def test_sigkill_mid_game_loses_no_acknowledged_move_and_old_buttons_work(
    fake_discord: FakeDiscord, db_file: Path
) -> None:
    fake = fake_discord
    h = Harness(fake, db_file)
    began = time.monotonic()
    try:
        await (await h.start_bot(sync=True)).wait_connected()
        # Long enough for the kills to fall mid-game (several Skyjo rounds, 30-card stocks), short
        # enough to play to the end after them. No turn timer: every human move is a click.
        options = {"computers": 1, "turn_limit": 0}
        alice, bob = h.humans
        await _open_table(h, "skyjo", fake.channel("general"), alice, bob, {"score_limit": 400, **options})
        await _open_table(h, "skipbo", fake.channel("games"), bob, alice, {"stock_size": 30, **options})
        for kill in range(KILLS):
            bot = h.bot
            assert bot is not None
            plan = "start" if kill in (4, 9) else ("time" if kill % 3 == 2 else "click")
            if plan == "start":
                # anywhere in the start: loading and resuming the games, the gateway, the first edits
                await asyncio.sleep(h.plan_rng.uniform(0.05, 0.6))
                h.kill_now("during the start")
            else:
                await bot.wait_connected()
                await h.click_old_buttons()
                if plan == "click":
                    h.kill_after_clicks = h.clicks_this_process + h.plan_rng.randint(1, 15)
                    h.kill_delay = 0.0 if h.plan_rng.random() < 0.4 else h.plan_rng.uniform(0.001, 0.03)
                else:
                    delay = h.plan_rng.uniform(0.05, 0.5)
                    asyncio.get_running_loop().call_later(delay, h.kill_now, "at a random time", bot)
                active = [tb for tb in h.tables if h.db.game(tb.game_id).status == "active"]
                await asyncio.gather(*(h.play(tb, lambda: not h.alive()) for tb in active))
                h.kill_now("after both games ended")  # (when they end before the planned moment)
            await h.kill_and_reap()
            h.check_database()
            await h.start_bot()
        # The last process: old buttons once more, then both games to their end, and a clean stop.
        last = h.bot
        assert last is not None
        await last.wait_connected()
        await h.click_old_buttons()
        await asyncio.gather(*(h.play(tb, lambda: len(h.clicks) > MAX_CLICKS) for tb in h.tables))
        statuses = h.check_database()
        assert await last.stop() == 0, await last.logs()
        last.check_log()
    finally:
        if h.bot is not None and h.bot.proc is not None and h.bot.proc.returncode is None:
            h.bot.kill()  # never leave a bot behind, whatever failed
            await h.bot.reap()
        h.db.close()
    # What the killed processes left in the fake: the clicks they never answered (counted in
    # tally.in_flight, each clicked again after the restart). No rejection and no failed click:
    # a new process never answers an old interaction (a new gateway session never receives it).
    # A message the killed process deleted just before dying, without noting it, is deleted
    # again by the next one (404 Unknown Message, which the presenter expects): the only one allowed.
    rejections = fake.take_rejections()
    assert all(r.request.method == "DELETE" and r.code == 10008 for r in rejections), rejections
    assert fake.take_failed_clicks() == []
    tally = h.tally
    print(
        f"\n{time.monotonic() - began:.1f} s, {len(h.clicks)} clicks, {len(rejections)} re-deletions, {tally}"
    )
    assert sum(tally.kills.values()) == KILLS
    assert set(statuses.values()) == {"finished"}, f"not over after {len(h.clicks)} clicks: {statuses}"
    # The games are long enough for (nearly) every kill to fall while both are on; how long a game
    # lasts depends on the deals (seeded) and on the players' choices (seeded, but which click
    # meets a panel that is not up to date yet depends on timing), hence the margin.
    assert min(tally.kills_mid_game.values()) >= KILLS - 3, tally.kills_mid_game
    # A process killed right after a click (seeded plan) had that click in flight.
    assert tally.in_flight >= tally.kills.get("right after a click", 0) > 0
    assert tally.again > 0 and tally.old >= KILLS - 3, tally
    assert tally.answered > 200, tally
