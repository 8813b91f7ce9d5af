"""The container image, built and run for real (``make test-image``; not part of ``make test``).

With podman and runc (no Docker daemon, no registry here): a Debian bookworm base with Python 3.11 made
once with mmdebstrap and kept in podman's image store, the repository's ``Dockerfile`` built on it
(``--build-arg BASE=...``, the same steps as the official base), then one container after another on
the same volume: the sandbox (no token) plays a Skyjo game against a computer player through the page's
own websocket from the host, ``/healthz`` and the image's HEALTHCHECK answer, the container is replaced
mid-game and the game finishes in the new one. Also: the default command is the bot's, the process is
not root, /data is a volume; the venv holds no pip or setuptools (nothing left requires them), and
`sync --dry-run` and `migrate-db` still run without them. Without podman the test is skipped with the
reason, or fails under ``SKYBO_REQUIRE_IMAGE=1`` (``.ci/run``). docs/deploy.md has the figures it prints.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
import urllib.request
from typing import Any

import aiohttp

from bot.ui import ids
from tests.fakecord.control import buttons

from .conftest import BASE, LIMITS, free_port, podman

GAME_ACTS = {"rv", "dr", "tk", "rp", "dv", "nx"}
# What the venv holds, asked of the image's own Python: the installers the Dockerfile removes are gone,
# and no distribution left in it requires them.
INSTALLERS = ("pip", "setuptools")
VENV_REPORT = """
import importlib.metadata as md, importlib.util, json, os, re, sys
tools = ("pip", "setuptools")
dists = {d.metadata["Name"].lower(): d.requires or [] for d in md.distributions()}
needs = {n: {re.match(r"[\\w.-]+", r)[0].lower() for r in rs if "extra" not in r} for n, rs in dists.items()}
print(json.dumps({
    "prefix": sys.prefix,
    "bin": sorted(os.listdir(os.path.join(sys.prefix, "bin"))),
    "dists": sorted(dists),
    "modules": [m for m in (*tools, "pkg_resources", "_distutils_hack") if importlib.util.find_spec(m)],
    "needing": {n: sorted(rs & set(tools)) for n, rs in needs.items() if rs & set(tools)},
}))
"""


class Container:
    """One container of the image: the sandbox on the volume, its page and /healthz on loopback ports."""

    def __init__(self, image: str, volume: str, name: str) -> None:
        self.name = name
        self.page_port, self.metrics_port = free_port(), free_port()
        podman(
            "run", "-d", "--name", name, *LIMITS, "-v", f"{volume}:/data",
            "-p", f"127.0.0.1:{self.page_port}:8765", "-p", f"127.0.0.1:{self.metrics_port}:9464",
            "-e", "METRICS_PORT=9464", "-e", "METRICS_HOST=0.0.0.0",
            image, "python", "-m", "bot", "sandbox", "--keep", "--database", "/data/sandbox.sqlite3",
            "--ai-delay", "0.1", "--round-delay", "1",
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while "Ready: open" not in self.logs():
            if (
                time.monotonic() > deadline
                or podman("inspect", "-f", "{{.State.Running}}", name).stdout.strip() != "true"
            ):
                raise AssertionError(f"the sandbox did not start:\n{self.logs()}")
            time.sleep(0.3)

    def logs(self) -> str:
        done = podman("logs", self.name, check=False)
        return done.stdout + done.stderr

    def healthz(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/healthz", timeout=5) as answer:
            assert answer.status == 200
            body: dict[str, Any] = json.loads(answer.read())
            return body

    def stop(self) -> None:
        podman("stop", "-t", "20", self.name)
        podman("rm", self.name)


class Page:
    """What the page's JS does (bot/sandbox/static/app.js): one websocket, ``view`` a channel as a user,
    ``command`` and ``click`` with the message's revision; the messages come as ``messages`` pushes."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.messages: dict[str, dict[str, Any]] = {}
        self.replies: dict[int, dict[str, Any]] = {}
        self.rid = 0
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for frame in self.ws:
            data = json.loads(frame.data)
            if data.get("op") == "messages":
                if data.get("reset"):
                    self.messages.clear()
                for message in data["upsert"]:
                    self.messages[message["id"]] = message
                for gone in data["delete"]:
                    self.messages.pop(gone, None)
            elif data.get("op") == "reply":
                self.replies[data["rid"]] = data

    async def send(self, **data: Any) -> dict[str, Any]:
        self.rid += 1
        rid = self.rid
        await self.ws.send_str(json.dumps({**data, "rid": rid}))
        reply = await self.until(lambda: self.replies.get(rid), f"the reply to {data}")
        assert reply["ok"], reply
        return reply

    async def until(self, found: Any, what: str, timeout: float = 30) -> Any:
        deadline = time.monotonic() + timeout
        while (value := found()) in (None, False, []):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}: {json.dumps(self.messages)[-4000:]}")
            await asyncio.sleep(0.05)
        return value

    async def click(self, message: dict[str, Any], custom_id: str) -> None:
        await self.send(op="click", message=message["id"], custom_id=custom_id, rev=message["rev"])


def act(custom_id: str) -> ids.ButtonId | None:
    return ids.decode(custom_id)


def table_of(page: Page) -> tuple[dict[str, Any], int] | None:
    """The public table message (the one with "open my panel") and its game."""
    for message in sorted(page.messages.values(), key=lambda m: int(m["id"]), reverse=True):
        for comp in buttons(message):
            parsed = act(comp["custom_id"])
            if not message["ephemeral"] and parsed is not None and parsed.act == "op":
                return message, parsed.game_id
    return None


def over(page: Page) -> bool:
    """The game has ended: its table offers a rematch."""
    return any(
        (p := act(c["custom_id"])) is not None and p.act == "rm"
        for m in page.messages.values()
        if not m["ephemeral"]
        for c in buttons(m)
    )


def choose(panel: dict[str, Any], rng: random.Random) -> str | None:
    moves = [c["custom_id"] for c in buttons(panel) if (p := act(c["custom_id"])) and p.act in GAME_ACTS]
    by_act: dict[str, list[str]] = {}
    for custom_id in moves:
        by_act.setdefault(act(custom_id).act, []).append(custom_id)  # type: ignore[union-attr]
    for name in ("nx", "rv", "dv", "tk", "rp", "dr"):
        if name in by_act:
            return rng.choice(by_act[name])
    return None


async def play(page: Page, rng: random.Random, *, clicks: int | None) -> int:
    """Alice opens her panel from the table once (it follows the game: the bot edits it at every
    change) and clicks moves until the game ends (its table offers a rematch) or ``clicks`` moves were
    made; returns the moves made."""
    table, _ = await page.until(lambda: table_of(page), "the table")
    before = set(page.messages)
    opener = next(c["custom_id"] for c in buttons(table) if act(c["custom_id"]).act == "op")  # type: ignore[union-attr]
    await page.click(table, opener)
    panel_id = await page.until(
        lambda: next((i for i in page.messages if i not in before and page.messages[i]["ephemeral"]), None),
        "the panel",
    )
    made = 0
    while (clicks is None or made < clicks) and not over(page):
        panel = page.messages[panel_id]
        rev = panel["rev"]
        custom_id = choose(panel, rng)
        if custom_id is not None:
            await page.click(panel, custom_id)
            made += 1
        # a move of hers or of the computer: the panel is edited
        await page.until(lambda r=rev: over(page) or page.messages[panel_id]["rev"] != r, "the panel's edit")
    return made


async def open_page(port: int) -> tuple[aiohttp.ClientSession, Page]:
    session = aiohttp.ClientSession()
    ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws")
    page = Page(ws)
    await page.send(op="view", user="alice", channel="games")
    return session, page


async def test_the_image_plays_a_game_that_survives_replacing_its_container(image: str) -> None:
    began = time.monotonic()
    inspect = json.loads(podman("image", "inspect", image).stdout)[0]["Config"]
    assert inspect.get("User", "") not in ("", "root", "0", "0:0"), (
        f"the image runs as root: User={inspect.get('User')!r}"
    )
    assert "/data" in (inspect.get("Volumes") or {}), inspect.get("Volumes")
    assert not [e for e in inspect.get("Env") or [] if e.startswith("PIP_")], "the build's settings leaked"

    # The default command is the bot itself: without a token it stops with the settings' one line.
    plain = podman("run", "--rm", *LIMITS, image, check=False, timeout=60)
    assert plain.returncode != 0 and "DISCORD_TOKEN" in plain.stdout + plain.stderr, plain

    # Without pip and setuptools (the Dockerfile's build stage removes them): none of their files, and
    # nothing left needs them; `sync --dry-run` still builds and checks the commands and the card emojis.
    report = json.loads(podman("run", "--rm", *LIMITS, image, "python", "-c", VENV_REPORT, timeout=60).stdout)
    assert report["prefix"] == "/opt/venv", report
    assert not [f for f in report["bin"] if f.startswith(("pip", "easy_install"))], report["bin"]
    assert "python" in report["bin"] and "skybo" in report["dists"], report
    assert not set(INSTALLERS) & set(report["dists"]) and report["modules"] == [], report
    assert report["needing"] == {}, report["needing"]
    no_pip = podman(
        "run", "--rm", *LIMITS, image, "python", "-m", "pip", "--version", check=False, timeout=60
    )
    assert no_pip.returncode != 0 and "No module named pip" in no_pip.stderr, no_pip
    sync = podman(
        "run", "--rm", *LIMITS, image, "python", "-m", "bot", "sync", "--dry-run", check=False, timeout=120
    )
    assert sync.returncode == 0 and "OK: nothing Discord would refuse" in sync.stdout, sync

    volume = f"skybo-image-test-{os.getpid()}"
    podman("volume", "create", volume)
    containers: list[Container] = []
    try:
        first = Container(image, volume, f"{volume}-1")
        containers.append(first)
        assert first.healthz()["healthy"] is True
        assert podman("healthcheck", "run", first.name, check=False).returncode == 0, "HEALTHCHECK failed"
        user = podman(
            "exec", first.name, "sh", "-c", "id -u; ps -o user= -p 1 2>/dev/null || stat -c %u /proc/1"
        )
        assert user.stdout.split()[0] != "0" and "root" not in user.stdout, user.stdout
        # /data is the volume, written by the non-root user
        mounts = json.loads(podman("inspect", first.name).stdout)[0]["Mounts"]
        assert any(m["Destination"] == "/data" and m.get("Name") == volume for m in mounts), mounts

        rng = random.Random(42)
        session, page = await open_page(first.page_port)
        try:
            await page.send(
                op="command", name="skyjo", path=["new"], options={"score_limit": 10, "computers": 1}
            )
            lobby = await page.until(
                lambda: next(
                    (
                        m
                        for m in page.messages.values()
                        if any(c["custom_id"].endswith(":st") for c in buttons(m))
                    ),
                    None,
                ),
                "the lobby",
            )
            await page.click(
                lobby, next(c["custom_id"] for c in buttons(lobby) if c["custom_id"].endswith(":st"))
            )
            _, game = await page.until(lambda: table_of(page), "the table")
            moves = await play(page, rng, clicks=6)
            assert moves == 6 and not over(page), "the game ended before the replacement"
        finally:
            await session.close()

        first.stop()  # SIGTERM: the bot stops gracefully; the fake Discord and its messages are gone
        containers.remove(first)
        second = Container(image, volume, f"{volume}-2")
        containers.append(second)
        assert "games=1" in second.logs(), second.logs()  # "tables resumed games=1"
        session, page = await open_page(second.page_port)
        try:
            _, resumed = await page.until(lambda: table_of(page), "the table posted again")
            assert resumed == game
            await play(page, rng, clicks=None)
            assert over(page)
            final = max(page.messages.values(), key=lambda m: int(m["id"]))
            print(f"\nthe game's last message: {final['content'] or final['embeds'][:1]}"[:400])
        finally:
            await session.close()
        assert second.healthz()["healthy"] is True
        # migrate-db reads the volume's database and reaches for PostgreSQL (psycopg loaded): nothing
        # listens on port 1, so it stops with its one line, not an import error.
        migrate = podman(
            "exec", second.name, "python", "-m", "bot", "migrate-db", "--from", "/data/sandbox.sqlite3",
            "--to", "postgresql://skybo:secret@127.0.0.1:1/skybo", check=False, timeout=60,
        )  # fmt: skip
        said = migrate.stdout + migrate.stderr
        print(f"\nmigrate-db without a server: {said.strip()[-300:]}")
        assert migrate.returncode != 0 and "migrate-db:" in said, said
        assert "Traceback" not in said and "No module named" not in said and "secret" not in said, said
        errors = [line for line in second.logs().splitlines() if " ERROR " in line or "Traceback" in line]
        assert errors == [], errors
    finally:
        for container in containers:
            podman("rm", "-f", container.name, check=False)
        podman("volume", "rm", "-f", volume, check=False)

    size = int(json.loads(podman("image", "inspect", image).stdout)[0]["Size"])
    base = int(json.loads(podman("image", "inspect", BASE).stdout)[0]["Size"])
    print(
        f"\nimage {size / 1e6:.0f} MB ({base / 1e6:.0f} MB of it the base); "
        f"game and replacement in {time.monotonic() - began:.0f} s"
    )
    print(podman("history", "--format", "{{.Size}}\t{{.CreatedBy}}", image).stdout[:3000])
    largest = podman(
        "run", "--rm", *LIMITS, "--entrypoint", "sh", image, "-c",
        "du -s /opt/venv/lib/python3.11/site-packages/* | sort -rn | head -12",
    ).stdout  # fmt: skip
    print("largest parts of the venv (kB):\n" + largest)
