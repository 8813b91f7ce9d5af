"""compose.yaml brought up for real (``make test-image``; not part of ``make test``): PostgreSQL, the fake
Discord and the two bot processes of the fleet, each in its container, with podman-compose.

No registry and no Discord here, so ``tests/image/compose.test.yaml`` is laid over compose.yaml (which
is used unchanged, copied into a folder of the test so that no ``.env`` of the checkout is read): the
``postgres`` service runs PostgreSQL 15 from Debian's package built on the test's Debian base
(``tests/image/postgres/``), the bots run the image built from the Dockerfile (tests/image/conftest.py)
and talk to the ``fakecord`` service (``python -m fakecord serve``, in the same image) through
``FAKE_DISCORD_URL``. The test acts as the players through the fake's control API on a loopback port.

``SHARD_COUNT=2``: ``bot`` runs shard 0, ``bot-1`` shard 1, a guild on each. The commands are synced
from inside the ``bot`` container (``python -m bot sync``, as an operator does with ``exec``). A Skyjo
table on each shard, two players at each, a few moves each; then ``bot-1``'s container is killed
(``podman kill``: SIGKILL, no graceful stop). While it is down, the table of shard 0 plays on, and a
click on shard 1 gets no answer and changes nothing stored. Restarted (``podman-compose start bot-1``),
it resumes its game at the version stored before the kill, the panel opened before the kill answers,
and both games are played to their end. Both ``/healthz`` answer healthy and the image's HEALTHCHECK
passes; no ERROR in the bots' logs; the fake refused nothing. docs/deploy.md has what compose users must
know that this test found (podman-compose 1.0.3's limits) and the timings it prints.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.ui import ids
from tests.fakecord.control import ControlError, FakeControl, buttons

from .conftest import LIMITS, PODMAN, PODMAN_GLOBAL, REPO, build, free_port, podman, require

HERE = Path(__file__).parent
POSTGRES_IMAGE = "localhost/skybo-postgres:image-test"
TOKEN = "fake-bot-token"  # the fake's token: not a secret
GAME_ACTS = {"rv", "dr", "tk", "rp", "dv", "nx"}
TABLES = {0: ("alice", "bob"), 1: ("carol", "bob")}  # shard: (host, guest); bot-1 runs shard 1


@pytest.fixture(scope="module")
def postgres_image(image: str) -> str:
    # compose.yaml's `init: true` is podman's catatonit; the services find each other by name through
    # the dnsname plugin of podman's CNI networks (Debian's podman 4.3 uses CNI unless netavark is there)
    require("podman-compose", files=("/usr/libexec/podman/catatonit", "/usr/lib/cni/dnsname"))
    build(POSTGRES_IMAGE, HERE / "postgres")
    return POSTGRES_IMAGE


class Stack:
    """The compose project: compose.yaml and the overlay in a folder of the test, driven by
    podman-compose (and podman for what it cannot do: waiting, exec, kill, logs)."""

    def __init__(self, folder: Path, image: str, postgres_image: str) -> None:
        self.project = f"skybo-compose-{os.getpid()}"
        self.folder = folder
        shutil.copy(REPO / "compose.yaml", folder / "compose.yaml")
        shutil.copy(HERE / "compose.test.yaml", folder / "compose.test.yaml")
        self.control_port = free_port()
        self.metrics = {"bot": free_port(), "bot-1": free_port()}
        self.password = secrets.token_hex(12)
        keep = ("PATH", "HOME", "LANG", "TMPDIR")
        self.env = {k: v for k, v in os.environ.items() if k in keep}
        self.env.update(
            DISCORD_TOKEN=TOKEN, POSTGRES_PASSWORD=self.password,
            SHARD_COUNT="2", SHARD_IDS="0", BOT_1_SHARD_IDS="1",
            SKYBO_TEST_IMAGE=image, SKYBO_TEST_POSTGRES_IMAGE=postgres_image,
            SKYBO_TEST_CONTROL_PORT=str(self.control_port),
            SKYBO_TEST_BOT_METRICS_PORT=str(self.metrics["bot"]),
            SKYBO_TEST_BOT_1_METRICS_PORT=str(self.metrics["bot-1"]),
        )  # fmt: skip

    def compose(self, *args: str) -> str:
        done = subprocess.run(
            ["podman-compose", "--podman-args", " ".join(PODMAN_GLOBAL), "--podman-run-args",
             " ".join(LIMITS), "-p", self.project, "-f", "compose.yaml", "-f", "compose.test.yaml", *args],
            cwd=self.folder, env=self.env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, (
            f"podman-compose {' '.join(args)}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
        return done.stdout

    def name(self, service: str) -> str:
        return f"{self.project}_{service}_1"

    def logs(self, service: str) -> str:
        done = podman("logs", self.name(service), check=False)
        return done.stdout + done.stderr

    def until_logged(self, service: str, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.logs(service):
            assert time.monotonic() < deadline, (
                f"{service} never logged {text!r}:\n{self.logs(service)[-3000:]}"
            )
            time.sleep(0.2)

    def until_healthy(self, service: str, timeout: float = 60) -> None:
        """Until the service's healthcheck passes, run on demand (podman runs none by itself here)."""
        deadline = time.monotonic() + timeout
        while podman("healthcheck", "run", self.name(service), check=False).returncode != 0:
            assert time.monotonic() < deadline, f"{service} never healthy:\n{self.logs(service)[-3000:]}"
            time.sleep(0.2)

    def healthz(self, service: str) -> dict[str, Any]:
        url = f"http://127.0.0.1:{self.metrics[service]}/healthz"
        with urllib.request.urlopen(url, timeout=5) as answer:
            assert answer.status == 200
            body: dict[str, Any] = json.loads(answer.read())
            return body

    def until_serving(self, service: str, timeout: float = 60) -> dict[str, Any]:
        """Until the bot's /healthz answers 200 (gateway ready, database reachable, shards held)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.healthz(service)
            except (OSError, AssertionError):  # 503 (HTTPError is an OSError) or not listening yet
                assert time.monotonic() < deadline, f"{service} never healthy:\n{self.logs(service)[-3000:]}"
                time.sleep(0.2)

    def sql(self, query: str) -> str:
        """One value from the database, asked inside the postgres container (its socket: no password)."""
        return podman(
            "exec", self.name("postgres"), "psql", "-U", "skybo", "-d", "skybo", "-Atc", query
        ).stdout.strip()

    def game(self, game_id: int) -> tuple[int, str]:
        version, status = self.sql(f"SELECT version, status FROM games WHERE id = {int(game_id)}").split("|")
        return int(version), status

    def remove(self) -> None:
        label = f"label=io.podman.compose.project={self.project}"
        names = podman("ps", "-a", "--filter", label, "--format", "{{.Names}}", check=False).stdout.split()
        if names:
            podman("rm", "-f", "-v", "-t", "0", *names, check=False)  # -v: the anonymous /data volumes too
        podman("volume", "rm", "-f", f"{self.project}_postgres-data", check=False)
        podman("network", "rm", "-f", f"{self.project}_default", check=False)


@pytest.fixture
def stack(image: str, postgres_image: str, tmp_path: Path) -> Iterator[Stack]:
    up = Stack(tmp_path, image, postgres_image)
    try:
        yield up
    finally:
        up.remove()


# ---------------------------------------------------------------------------- the players


def act(custom_id: str) -> ids.ButtonId | None:
    return ids.decode(custom_id)


def version_of(message: dict[str, Any]) -> int | None:
    """The game version a table or panel message was drawn at (its buttons carry it)."""
    found = [p.version for c in buttons(message) if (p := act(c["custom_id"])) is not None]
    return max(found) if found else None


def choose(panel: dict[str, Any], rng: random.Random) -> str | None:
    by_act: dict[str, list[str]] = {}
    for comp in buttons(panel):
        parsed = act(comp["custom_id"])
        if parsed is not None and parsed.act in GAME_ACTS:
            by_act.setdefault(parsed.act, []).append(comp["custom_id"])
    for name in ("nx", "rv", "dv", "tk", "rp", "dr"):
        if name in by_act:
            return rng.choice(by_act[name])
    return None


class Table:
    """A Skyjo table of one shard's guild and the two players at it, driven through the fake."""

    def __init__(self, fake: FakeControl, channel: str, players: tuple[str, str], rng: random.Random) -> None:
        self.fake, self.channel, self.players, self.rng = fake, channel, players, rng
        self.message_id = ""
        self.game = 0
        self.stale = 0  # clicks on a message the bot had just edited: Discord's client fails them too
        self.last_panel: dict[str, str] = {}  # user -> the id of the panel they opened last

    async def shown(self, user: str, message_id: str) -> dict[str, Any]:
        found: dict[str, Any] = await self.fake.until(
            user, self.channel, lambda ms: next((m for m in ms if m["id"] == message_id), None), message_id
        )
        return found

    async def answered_click(self, user: str, message: dict[str, Any], custom_id: str) -> str | None:
        """The message showing the bot's answer to ``user``'s click, or None when the click failed in
        Discord's client (the message had just been edited: counted in :attr:`stale`)."""
        interaction, failed = await self.fake.click(user, message, custom_id)
        if failed is not None:
            self.stale += 1
            return None
        answer = await self.fake.answer(interaction)
        assert answer["answered"], f"{user}'s click {custom_id} on {self.channel} got no answer"
        return str(answer["message"])

    async def open(self) -> None:
        host, guest = self.players
        answer = await self.fake.answer(
            await self.fake.command(host, self.channel, "skyjo", "new", score_limit=10)
        )
        assert answer["answered"], answer
        self.message_id = str(answer["message"])
        lobby = await self.shown(guest, self.message_id)
        join = next(c["custom_id"] for c in buttons(lobby) if c["custom_id"].endswith(":jn"))
        assert await self.answered_click(guest, lobby, join) is not None
        lobby = await self.shown(host, self.message_id)
        start = next(c["custom_id"] for c in buttons(lobby) if c["custom_id"].endswith(":st"))
        assert await self.answered_click(host, lobby, start) is not None
        table = await self.fake.until(
            host, self.channel,
            lambda ms: next((m for m in ms if m["id"] == self.message_id and "op" in self.acts(m)), None),
            "the table",
        )  # fmt: skip
        self.game = next(p.game_id for c in buttons(table) if (p := act(c["custom_id"])) and p.act == "op")

    @staticmethod
    def acts(message: dict[str, Any]) -> set[str]:
        return {p.act for c in buttons(message) if (p := act(c["custom_id"])) is not None}

    async def over(self) -> bool:
        return "rm" in self.acts(await self.shown(self.players[0], self.message_id))  # a rematch is offered

    async def panel(self, user: str) -> dict[str, Any] | None:
        """``user`` opens their panel from the table (again at each turn: it shows the game as it is);
        None once the game is over (the table offers no panel)."""
        while True:
            table = await self.shown(user, self.message_id)
            found = (c["custom_id"] for c in buttons(table) if (p := act(c["custom_id"])) and p.act == "op")
            opener = next(found, None)
            if opener is None:
                return None
            panel_id = await self.answered_click(user, table, opener)
            if panel_id is not None:
                self.last_panel[user] = panel_id
                return await self.shown(user, panel_id)

    async def play(self, clicks: int | None = None) -> int:
        """The players take their turns until the game ends or ``clicks`` moves were answered."""
        made = 0
        while (clicks is None or made < clicks) and not await self.over():
            version, _ = await self.fake.messages(self.players[0], self.channel)
            progressed = False
            for user in self.players:
                panel = await self.panel(user)
                for _ in range(4):  # a turn: at most a few clicks on one panel
                    if panel is None:
                        break
                    custom_id = choose(panel, self.rng)
                    if custom_id is None or (clicks is not None and made >= clicks):
                        break
                    shown = await self.answered_click(user, panel, custom_id)
                    if shown is None:
                        break
                    assert shown == panel["id"], f"{user}'s move was not shown in place"
                    made += 1
                    progressed = True
                    panel = await self.shown(user, shown)  # as the answer left it: the turn goes on or not
            if not progressed:  # neither may move now: wait for the world to change
                await self.fake.messages(self.players[0], self.channel, after=version)
        return made


# ---------------------------------------------------------------------------- the test


async def test_the_compose_stack_plays_on_both_shards_across_a_killed_container(stack: Stack) -> None:
    began = time.monotonic()
    times: dict[str, float] = {}

    def lap(name: str) -> None:
        times[name] = time.monotonic() - began - sum(times.values())

    try:
        # Created all at once, started in order: podman-compose 1.0.3 does not wait for a dependency's
        # health (docs/deploy.md); the bots start once PostgreSQL and the fake answer.
        stack.compose("up", "--no-build", "--no-start")
        stack.compose("start", "postgres", "fakecord")
        stack.until_healthy("postgres")  # compose.yaml's pg_isready over TCP: the database is made
        stack.until_logged("fakecord", "; ready")
        lap("postgres and fakecord up")
        stack.compose("start", "bot", "bot-1")
        # the commands, synced from inside a bot's container while the bots connect
        syncing = subprocess.Popen(
            [*PODMAN, "exec", stack.name("bot"), "python", "-m", "bot", "sync"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        async with FakeControl(f"http://127.0.0.1:{stack.control_port}") as fake:
            await fake.sessions_live({0, 1})
            for service in ("bot", "bot-1"):
                assert stack.until_serving(service)["healthy"] is True
            out, err = syncing.communicate(timeout=120)
            assert syncing.returncode == 0 and "synced" in out and "/skyjo" in out, out + err
            lap("bots serving, commands synced")

            rng = random.Random(47)
            tables = {
                shard: Table(fake, await fake.channel_on_shard(shard), players, rng)
                for shard, players in TABLES.items()
            }
            await asyncio.gather(*(t.open() for t in tables.values()))
            assert await tables[0].play(clicks=8) == 8 and await tables[1].play(clicks=8) == 8
            lap("two tables, 8 moves each")

            # shard 1's process dies: no graceful stop; the kernel closes its sockets
            host = tables[1].players[0]
            podman("kill", stack.name("bot-1"))
            await fake.session_down(1)
            stored, status = stack.game(tables[1].game)
            assert status == "active"
            old = await tables[1].shown(host, tables[1].last_panel[host])  # as the bot left it
            refresh = next(
                c["custom_id"] for c in buttons(old) if (p := act(c["custom_id"])) and p.act == "rf"
            )
            lap("kill")

            # Meanwhile shard 0 answers as before; a click on shard 1 reaches no bot: no answer (the
            # player sees "This interaction failed") and nothing stored.
            assert await tables[0].play(clicks=8) == 8
            assert stack.healthz("bot")["healthy"] is True
            try:
                interaction, failed = await fake.click(host, old, refresh)
                assert failed is None and not (await fake.answer(interaction))["answered"]
            except ControlError as refused:  # no gateway session for the shard at all: the same to her
                assert refused.status == 409, refused
            assert stack.game(tables[1].game) == (stored, "active")
            lap("shard 0 alone")

            stack.compose("start", "bot-1")
            await fake.sessions_live({1})
            stack.until_serving("bot-1")
            stack.until_logged("bot-1", "tables resumed games=1")
            assert stack.game(tables[1].game) == (stored, "active")  # nothing lost, nothing replayed twice
            # the panel opened before the kill answers the restarted process, in place, at the same version
            shown = await tables[1].answered_click(host, old, refresh)
            assert shown == old["id"], shown
            assert version_of(await tables[1].shown(host, old["id"])) == stored
            lap("restart")

            made = await asyncio.gather(tables[0].play(), tables[1].play())
            assert min(made) > 0, made
            assert [stack.game(t.game)[1] for t in tables.values()] == ["finished", "finished"]
            lap("both games to their end")

            for service in ("bot", "bot-1"):
                health = stack.healthz(service)
                assert health["healthy"] is True and health["shards"] == "ok", (service, health)
                assert podman("healthcheck", "run", stack.name(service), check=False).returncode == 0, service
            problems = await fake.problems()
            assert len(problems.pop("failed_clicks")) == sum(t.stale for t in tables.values()), problems
            assert not any(problems.values()), problems
        for service in ("bot", "bot-1"):
            log = stack.logs(service)
            errors = [line for line in log.splitlines() if " ERROR " in line or "Traceback" in line]
            assert errors == [], f"{service}:\n{log[-4000:]}"
        stale = {shard: t.stale for shard, t in tables.items()}
        print(
            f"\ngames {[t.game for t in tables.values()]} finished; clicks on a just-edited message: {stale}"
        )
    except BaseException:
        for service in ("postgres", "fakecord", "bot", "bot-1"):
            print(f"\n--- {service}'s log (end):\n{stack.logs(service)[-3000:]}")
        raise
    finally:
        print("\ncompose stack: " + ", ".join(f"{k} {v:.0f} s" for k, v in times.items()))
