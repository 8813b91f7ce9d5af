"""``python -m fakecord serve``: the fake Discord as a service of its own, for bots in other processes,
hosts or containers, with a small HTTP API beside it through which a test acts as the users.

::

    python -m fakecord serve --host 0.0.0.0 --port 8080 --public-url http://fakecord:8080 \\
        --control-port 8081 --shards 2

The bots reach Discord's API and gateway at ``--public-url`` (the address they know the fake by: a
compose service's name; ``http://127.0.0.1:PORT`` by default) with the token ``--token``; Skybo's
``python -m bot run`` and ``sync`` are pointed at it by ``FAKE_DISCORD_URL`` (docs/deploy.md). The
deadlines run on the wall clock (an answer after 3 s is refused, as Discord does).

The world: the fake's default guild (channels ``general`` and ``games``; users alice, bob and carol
(French), and its owner), and with ``--shards N`` one more guild on every other shard of ``N``, named
``Shard K`` with a channel ``shard-K`` and the same users, so that every shard has a guild to play in.
The default guild's ids are the same at every start; the fake keeps nothing between starts.

The control API answers JSON on ``--control-port``, a port of its own so that the fake's strict checks
of Discord's routes never see it. It has no authentication: publish it on the host's loopback only.

=====================================  ==============================================================
``GET /world``                         guilds (id, name, shard, channels), users, gateway sessions
                                       (shard, live), the synced commands, ``version``; ``after=V``
                                       waits as for the messages
``POST /command``                      ``{"user", "channel", "name", "subcommand"?, "options"?}``:
                                       a user runs a slash command; ``{"interaction": id}``
``POST /click``                        ``{"user", "message", "custom_id", "values"?, "revision"?}``:
                                       a click on the message as the user saw it at ``revision``
                                       (default: as it is); ``{"interaction", "failed"}`` (``failed``:
                                       why Discord's client showed "This interaction failed")
``GET /interactions/ID?timeout=S``     waits up to S s (default 3.5) for the bot's answer:
                                       ``{"answered", "type", "message"}`` (the message showing it)
``GET /messages?user=&channel=``       what the user sees in the channel (id, name or ``dm``), oldest
                                       first: Discord's payloads plus ``revision``; with ``after=V``
                                       (and ``timeout``), waits until the world's ``version`` passed V
``GET /problems``                      what the fake refused or recorded since the last call
                                       (rejections, failed clicks, unknown routes, gateway protocol
                                       violations, its own errors); a test ends with it empty
=====================================  ==============================================================

Users, channels and messages are named by id or name. 404: unknown user, channel, message or
interaction; 409: what Discord's client would not let the user do, or what cannot reach a bot (no
gateway session for the guild's shard), with ``{"error": why}``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from typing import Any

from aiohttp import web

from fakecord.clock import RealClock, shard_of
from fakecord.constants import CALLBACK_DEADLINE, WAIT_S
from fakecord.errors import FakeDiscordError, InteractionRefused
from fakecord.fake import FakeDiscord
from fakecord.state import FakeChannel, FakeMessage, FakeUser

log = logging.getLogger(__name__)

WORLD_FIRST_ID = (1_735_689_600_000 - 1_420_070_400_000) << 22  # the default guild's ids, at every start
KEEP_REQUESTS = 2000  # recorded requests kept (a long-running fake must not grow without bound)


class NotFound(Exception):
    """An unknown user, channel, message or interaction: 404."""


class Controlled:
    """A :class:`FakeDiscord` and the control API that drives it."""

    def __init__(self, fake: FakeDiscord, shards: int) -> None:
        self.fake = fake
        self.shards = shards
        self.version = 0  # +1 at every change of the fake's world
        self._changed = asyncio.Event()
        self._runner: web.AppRunner | None = None
        fake.add_listener(self._on_change)

    def _on_change(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()
        if len(self.fake.requests) > KEEP_REQUESTS:
            del self.fake.requests[: KEEP_REQUESTS // 2]

    async def add_shard_guilds(self) -> None:
        """One guild on every shard the default guild is not on, with a channel and every user."""
        fake = self.fake
        humans = [u for u in fake.users.values() if not u.bot]
        for shard in range(self.shards):
            if not any(shard_of(g.id, self.shards) == shard for g in fake.guilds.values()):
                await fake.add_guild(
                    f"Shard {shard}", shard=(shard, self.shards), channels=[f"shard-{shard}"], members=humans
                )

    async def start(self, host: str, port: int) -> int:
        app = web.Application()
        app.router.add_get("/world", self._h_world)
        app.router.add_post("/command", self._h_command)
        app.router.add_post("/click", self._h_click)
        app.router.add_get("/interactions/{id}", self._h_interaction)
        app.router.add_get("/messages", self._h_messages)
        app.router.add_get("/problems", self._h_problems)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        server: Any = site._server
        bound: int = server.sockets[0].getsockname()[1]
        return bound

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ------------------------------------------------------------------ finding things

    def user(self, value: Any) -> FakeUser:
        for user in self.fake.users.values():
            if str(user.id) == str(value) or user.username == value:
                return user
        raise NotFound(f"unknown user {value!r}")

    def channel(self, value: Any, user: FakeUser | None = None) -> FakeChannel:
        if value == "dm" and user is not None:
            return self.fake.dm_channel(user)
        for channel in self.fake.channels.values():
            if str(channel.id) == str(value) or (channel.name and channel.name == value):
                return channel
        raise NotFound(f"unknown channel {value!r}")

    def message(self, value: Any) -> FakeMessage:
        try:
            found = self.fake.messages.get(int(value))
        except (TypeError, ValueError):
            found = None
        if found is None:
            raise NotFound(f"unknown message {value!r}")
        return found

    # ------------------------------------------------------------------ what is shown

    def world(self) -> dict[str, Any]:
        fake = self.fake
        return {
            "version": self.version,
            "guilds": [
                {
                    "id": str(g.id),
                    "name": g.name,
                    "shard": shard_of(g.id, self.shards),
                    "channels": [{"id": str(c.id), "name": c.name} for c in g.channels],
                }
                for g in fake.guilds.values()
            ],
            "users": [{"id": str(u.id), "username": u.username} for u in fake.users.values() if not u.bot],
            "sessions": [
                {"shard": s.shard_id, "shard_count": s.shard_count, "live": s.live}
                for s in fake.sessions.values()
                if not s.retired
            ],
            "commands": sorted(fake.global_commands),
        }

    @staticmethod
    def shown(message: FakeMessage) -> dict[str, Any]:
        return {**message.payload(), "revision": message.revision, "ephemeral": message.ephemeral}

    def problems(self) -> dict[str, list[str]]:
        """What went wrong since the last call (taken: the next call reports only what is new)."""
        fake = self.fake
        found = {
            "rejections": [
                f"{r.request.method} {r.request.path}: {r.status} {r.code} {r.message} {r.errors or ''}"
                for r in fake.take_rejections()
            ],
            "failed_clicks": [
                f"{f.user.username} on {f.custom_id!r} (message {f.message_id}): {f.reason}"
                for f in fake.take_failed_clicks()
            ],
            "unknown_routes": [f"{r.method} {r.path}" for r in fake.unknown_routes],
            "protocol_violations": fake.take_protocol_violations(),
            "internal_errors": list(fake.internal_errors),
            "answer_violations": list(fake.answer_violations),
        }
        fake.unknown_routes.clear()
        fake.internal_errors.clear()
        fake.answer_violations.clear()
        fake.description_violations.clear()  # each is also a rejection, reported above
        return found

    # ------------------------------------------------------------------ HTTP

    @staticmethod
    def _answer(data: Any, status: int = 200) -> web.Response:
        return web.json_response(data, status=status)

    async def _guarded(self, act: Any) -> web.Response:
        try:
            return self._answer(await act)
        except NotFound as exc:
            return self._answer({"error": str(exc)}, 404)
        except (InteractionRefused, FakeDiscordError, KeyError, ValueError, TypeError) as exc:
            return self._answer({"error": str(exc.args[0] if exc.args else exc)}, 409)

    async def _past(self, query: Any) -> None:
        """With ``after=V`` in the query: waits until the world's version passed V (``timeout``, 10 s)."""
        if "after" not in query:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + float(query.get("timeout", 10))
        while self.version <= int(query["after"]) and (left := deadline - loop.time()) > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    async def _h_world(self, request: web.Request) -> web.Response:
        async def act() -> dict[str, Any]:
            await self._past(request.query)
            return self.world()

        return await self._guarded(act())

    async def _h_command(self, request: web.Request) -> web.Response:
        async def act() -> dict[str, Any]:
            body = await request.json()
            user = self.user(body.get("user"))
            inter = await self.fake.run_command(
                user,
                str(body["name"]),
                body.get("subcommand"),
                options=dict(body.get("options") or {}),
                channel=self.channel(body.get("channel"), user),
                timeout=float(body.get("timeout", WAIT_S)),
            )
            return {"interaction": str(inter.id)}

        return await self._guarded(act())

    async def _h_click(self, request: web.Request) -> web.Response:
        async def act() -> dict[str, Any]:
            body = await request.json()
            message = self.message(body.get("message"))
            revision = body.get("revision")
            seen = message.snapshot(int(revision)) if revision is not None else message
            inter = await self.fake.click(
                self.user(body.get("user")), seen, str(body["custom_id"]), values=body.get("values")
            )
            return {"interaction": str(inter.id), "failed": inter.failure.reason if inter.failure else None}

        return await self._guarded(act())

    async def _h_interaction(self, request: web.Request) -> web.Response:
        async def act() -> dict[str, Any]:
            inter = self.fake.interactions.get(int(request.match_info["id"]))
            if inter is None:
                raise NotFound(f"unknown interaction {request.match_info['id']}")
            timeout = float(request.query.get("timeout", CALLBACK_DEADLINE + 0.5))
            try:
                record = await inter.response(timeout)
            except TimeoutError:
                return {"answered": False, "type": None, "message": None}
            shown = None
            if record.type in (4, 5, 6, 7):  # a message (or its deferral), not a modal or choices
                with contextlib.suppress(TimeoutError):
                    shown = str((await inter.answer(timeout)).id)
            return {"answered": True, "type": record.type, "message": shown}

        return await self._guarded(act())

    async def _h_messages(self, request: web.Request) -> web.Response:
        async def act() -> dict[str, Any]:
            query = request.query
            await self._past(query)
            user = self.user(query.get("user"))
            channel = self.channel(query.get("channel"), user)
            shown = [self.shown(m) for m in self.fake.visible_messages(user, channel)]
            return {"version": self.version, "messages": shown}

        return await self._guarded(act())

    async def _h_problems(self, request: web.Request) -> web.Response:
        return self._answer(self.problems())


def parser() -> argparse.ArgumentParser:
    out = argparse.ArgumentParser(
        prog="python -m fakecord serve",
        description="Serve the fake Discord to bots in other processes, with a control API for tests.",
    )
    out.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    out.add_argument("--port", type=int, default=8080, help="port of Discord's API and gateway (8080)")
    out.add_argument(
        "--public-url", default=None, help="the address the bots reach it at (default http://127.0.0.1:PORT)"
    )
    out.add_argument("--control-port", type=int, default=8081, help="port of the control API (8081)")
    out.add_argument("--shards", type=int, default=1, help="shards the world spans: a guild on each (1)")
    out.add_argument("--token", default="fake-bot-token", help="the bot token it accepts (fake-bot-token)")
    return out


async def serve(options: argparse.Namespace) -> int:
    fake = FakeDiscord(
        token=options.token,
        clock=RealClock(),
        recommended_shards=options.shards,
        world_first_id=WORLD_FIRST_ID,
    )
    fake.heartbeat_ack_delay = 0.05
    fake.public_url = options.public_url
    controlled = Controlled(fake, options.shards)
    await controlled.add_shard_guilds()
    await fake.start(options.host, options.port)
    try:
        control = await controlled.start(options.host, options.control_port)
        print(
            f"fakecord: Discord's API and gateway at {fake.http_base} (listening on "
            f"{options.host}:{fake.port}), control API on {options.host}:{control}; "
            f"{len(fake.guilds)} guild(s) on {options.shards} shard(s); ready",
            flush=True,
        )
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        await controlled.stop()
        await fake.stop()
    return 0


def main(args: list[str]) -> int:
    if not args or args[0] != "serve":
        print("usage: python -m fakecord serve [--help]", file=sys.stderr)
        return 2
    options = parser().parse_args(args[1:])
    if options.shards < 1:
        print("--shards must be 1 or more", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s %(message)s")
    return asyncio.run(serve(options))
