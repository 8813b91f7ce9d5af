"""A stand-in for the Activity's backend, to develop and test the page only (issue 50).

It speaks docs/activity.md's protocol with the frames of :mod:`bot.activity.frames`, as the real backend
will, but it is NOT the bot's: it holds its games in memory, plays them with the real engines (from
:mod:`bot.games.registry`), and knows nothing of the service, storage, timers or Discord's gateway. What
it does like the real one:

- serves ``bot/activity/static`` under ``/activity/`` (``.js`` as ``text/javascript``);
- ``GET /activity/api/config``: the application's id for the SDK;
- ``POST /activity/api/token`` ``{code, instance_id}``: exchanges the code with the fake Discord
  (``/oauth2/token`` with the client secret, then ``/users/@me`` with the token), checks the activity
  instance with the bot token (``/applications/{id}/activity-instances/{instance}``: the user is in it,
  its channel holds a table) and answers ``{access_token, session}``; a session is signed, so it
  outlives a restart, and bound to that user and that channel's table;
- ``GET /activity/ws?session=…``: ``hello`` then ``table`` (the seat's own view only), moves applied by
  the engine and refused with the engine's reason in the page's language, stale moves (the service's
  rule: the version, and the marks a change of phase, round, turn or drawn card sets), a key seen twice
  answered once, hints (the normal computer player's move, as the panels say it), ``ended``, ``pong``;
  computer players move at once after each change; :meth:`PageServer.restart` says ``sleep`` and drops
  every socket, as a bot restart does, keeping the games.

Every frame sent is kept in :attr:`PageServer.sent` and every committed state in the table's
``history``, so a test can rebuild what each seat was allowed to see.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import random
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from bot.activity import frames
from bot.engine.errors import GameError
from bot.games.base import Game
from bot.games.registry import find
from bot.i18n import language_of
from bot.i18n import translate as t
from bot.render.names import ComputerName
from devtools.activity_sdk import VENDOR
from fakecord import FakeDiscord

STATIC = VENDOR.parent
SESSION_LIFETIME = 3600.0


@dataclass(eq=False)
class Connection:
    ws: web.WebSocketResponse
    user_id: int
    seat: int | None
    language: str


@dataclass(eq=False)
class StandInTable:
    """One game in memory: the engine's state, who sits where (a user id, None for a computer)."""

    id: int
    channel_id: int
    spec: Game
    state: Any
    users: list[int | None]
    names: list[str]
    turn_limit: float | None
    version: int = 0
    recent: deque[tuple[int, list[dict[str, Any]]]] = field(default_factory=lambda: deque(maxlen=6))
    marks: list[int] = field(default_factory=list)
    played: dict[int, int] = field(default_factory=dict)
    keys: set[tuple[int, str]] = field(default_factory=set)
    history: dict[int, dict[str, Any]] = field(default_factory=dict)
    connections: list[Connection] = field(default_factory=list)
    turn_started: float = field(default_factory=time.monotonic)
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    def seat_of(self, user_id: int) -> int | None:
        return self.users.index(user_id) if user_id in self.users else None


class PageServer:
    """The stand-in backend (see the module's docstring), in front of a started :class:`FakeDiscord`."""

    def __init__(self, fake: FakeDiscord, *, cards: dict[int, str] | None = None) -> None:
        self.fake = fake
        self.secret = b"stand-in session secret"  # the real backend's comes from the environment
        self.cards = cards or {}  # a user's display choice (the real one reads /skybo display)
        self.tables: dict[int, StandInTable] = {}  # by channel id
        self.sent: list[tuple[int, dict[str, Any]]] = []  # (user id, frame), every frame sent
        self.busy = 0  # the next sign-ins answered 503 "unavailable" (a fleet's table process being replaced)
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._changed = asyncio.Event()

    async def changed(self) -> None:
        """Wait for the next committed move, of any table."""
        await self._changed.wait()

    async def humans_to_act(self, table: StandInTable) -> list[int]:
        """The seats of players (not computers) the game waits for, once the computers are done; [] once
        the game is over."""
        while not table.state.is_over:
            humans = [s for s in table.state.seats_to_act() if table.users[s] is not None]
            computers = [s for s in table.state.seats_to_act() if table.users[s] is None]
            if humans and (not computers or table.state.phase == "round_over"):
                return humans
            await self.changed()
        return []

    # ------------------------------------------------------------------ life

    async def start(self) -> PageServer:
        app = web.Application()
        app.router.add_get("/activity/", self._index)
        app.router.add_get("/activity/api/config", self._config)
        app.router.add_post("/activity/api/token", self._token)
        app.router.add_get("/activity/ws", self._ws)
        app.router.add_static("/activity/", STATIC)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port, reuse_address=True)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def stop(self) -> None:
        for table in self.tables.values():
            for conn in list(table.connections):
                await conn.ws.close()
            table.connections.clear()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def restart(self, *, down: float = 0.0) -> None:
        """A bot restart: every page hears ``sleep``, loses its socket, and finds the server again on
        the same port ``down`` seconds later, its games as they were."""
        for table in self.tables.values():
            for conn in list(table.connections):
                await self._send(conn, frames.sleep("restart"))
        await self.stop()
        await asyncio.sleep(down)
        await self.start()

    def url(self, user: Any, channel: Any) -> str:
        """The page's address in the SDK's mock mode, for ``user`` who launched (or joined) the Activity
        in ``channel`` on the fake Discord: what Discord's client would give its frame, without
        ``frame_id`` (so the page stands the SDK's mock in for Discord's client), plus who the mock
        authorizes and where the fake Discord is."""
        instance = self.fake.launch_activity(user, channel)
        query = {k: v for k, v in instance.frame_query().items() if k != "frame_id"}
        query.update(user_id=str(user.id), fake=self.fake.http_base)
        return f"http://127.0.0.1:{self.port}/activity/?" + "&".join(f"{k}={v}" for k, v in query.items())

    # ------------------------------------------------------------------ tables

    async def open_table(
        self,
        channel: Any,
        kind: str,
        seats: list[Any],
        *,
        options: dict[str, Any] | None = None,
        seed: int = 1,
        turn_limit: float | None = None,
    ) -> StandInTable:
        """Deal a game of ``kind`` in ``channel``: ``seats`` are fake users, or None for a computer."""
        spec = find(kind)
        assert spec is not None
        computers = iter(range(1, len(seats) + 1))
        names = [
            s.global_name or s.username if s is not None else ComputerName(next(computers), "easy")
            for s in seats
        ]
        engine_names = [f"u{s.id}" if s is not None else f"ai{i}:easy" for i, s in enumerate(seats)]
        state = spec.engine.State.new(engine_names, seed, spec.engine.Options.from_dict(options or {}))
        table = StandInTable(
            id=len(self.tables) + 1,
            channel_id=channel.id,
            spec=spec,
            state=state,
            users=[s.id if s is not None else None for s in seats],
            names=names,
            turn_limit=turn_limit,
            marks=[0] * len(seats),
        )
        table.history[0] = state.to_dict()
        table.recent.append((0, [spec.opening_event(state)]))
        self.tables[channel.id] = table
        await self._computers(table)
        return table

    def _commit(self, table: StandInTable, seat: int, action: Any, key: str | None = None) -> None:
        before = table.spec.stale_key(table.state)
        turn_before = table.state.seats_to_act()
        events = table.state.apply(seat, action)  # a GameError leaves the state as it was
        table.version += 1
        table.history[table.version] = table.state.to_dict()
        table.recent.append((seat, [e.to_dict() for e in events]))
        if table.spec.stale_key(table.state) != before:
            table.marks = [table.version] * len(table.users)
        else:
            table.marks[seat] = table.version
        if table.state.seats_to_act() != turn_before:
            table.turn_started = time.monotonic()
        if key is not None:
            table.played[seat] = table.version
            table.keys.add((table.users[seat] or 0, key))
        self._changed.set()
        self._changed = asyncio.Event()

    async def _computers(self, table: StandInTable) -> None:
        """The computer players to act move, one move at a time, each told to every page."""
        while not table.state.is_over:
            waiting = [s for s in table.state.seats_to_act() if table.users[s] is None]
            if not waiting or table.state.phase == "round_over":
                return
            seat = waiting[0]
            action = table.spec.levels["easy"](table.state.view(seat), table.rng)
            self._commit(table, seat, action)
            await self._tell_all(table)

    # ------------------------------------------------------------------ frames

    async def _send(self, conn: Connection, frame: dict[str, Any]) -> None:
        self.sent.append((conn.user_id, frame))
        if not conn.ws.closed:
            await conn.ws.send_str(frames.encode(frame))

    def _table_frame(self, table: StandInTable, conn: Connection, key: str | None = None) -> dict[str, Any]:
        left = None
        if table.turn_limit is not None and not table.state.is_over:
            left = table.turn_limit - (time.monotonic() - table.turn_started)
        return frames.table(
            table.spec,
            table.state.view(conn.seat),
            version=table.version,
            seat=conn.seat,
            names=table.names,
            locale=conn.language,
            recent=table.recent,
            computers=[s for s, user in enumerate(table.users) if user is None],
            turn_ends_in=left,
            key=key,
        )

    async def _tell_all(
        self, table: StandInTable, mover: Connection | None = None, key: str | None = None
    ) -> None:
        for conn in list(table.connections):
            await self._send(conn, self._table_frame(table, conn, key if conn is mover else None))
            if table.state.is_over:
                await self._send(conn, frames.ended(table.state.results(), how="finished"))

    # ------------------------------------------------------------------ routes

    async def _index(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html")

    async def _config(self, request: web.Request) -> web.Response:
        return web.json_response({"client_id": str(self.fake.application_id)})

    async def _token(self, request: web.Request) -> web.Response:
        try:
            body = await request.json()
            code, instance_id = str(body["code"]), str(body["instance_id"])
        except (ValueError, KeyError, TypeError):
            return web.json_response({"error": "bad_request"}, status=400)
        if self.busy > 0:  # as the real relay does, before the code is exchanged
            self.busy -= 1
            return web.json_response({"error": "unavailable"}, status=503)
        api = self.fake.api_base
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "client_id": str(self.fake.application_id),
            "client_secret": self.fake.client_secret,
        }
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{api}/oauth2/token", data=form) as answer:
                if answer.status != 200:
                    return web.json_response({"error": "code"}, status=401)
                access_token = (await answer.json())["access_token"]
            async with http.get(
                f"{api}/users/@me", headers={"Authorization": f"Bearer {access_token}"}
            ) as answer:
                user = await answer.json()
            bot = {"Authorization": f"Bot {self.fake.token}"}
            where = f"{api}/applications/{self.fake.application_id}/activity-instances/{instance_id}"
            async with http.get(where, headers=bot) as answer:
                instance = await answer.json() if answer.status == 200 else None
        if instance is None or user["id"] not in instance["users"]:
            return web.json_response({"error": "instance"}, status=403)
        channel_id = int(instance["location"]["channel_id"])
        if channel_id not in self.tables:
            return web.json_response({"error": "no_table"}, status=404)
        claims = {
            "user": int(user["id"]),
            "name": user.get("global_name") or user["username"],
            "channel": channel_id,
            "language": language_of(user.get("locale")),
            "expires": time.time() + SESSION_LIFETIME,
        }
        return web.json_response({"access_token": access_token, "session": self._sign(claims)})

    def _sign(self, claims: dict[str, Any]) -> str:
        body = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode()
        mac = hmac.new(self.secret, body.encode(), hashlib.sha256).hexdigest()
        return f"{body}.{mac}"

    def _claims(self, session: str) -> dict[str, Any] | None:
        body, _, mac = session.partition(".")
        good = hmac.new(self.secret, body.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(mac, good):
            return None
        claims: dict[str, Any] = json.loads(base64.urlsafe_b64decode(body))
        return claims if claims["expires"] > time.time() else None

    async def _ws(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=None)
        await ws.prepare(request)
        claims = self._claims(request.query.get("session", ""))
        table = self.tables.get(claims["channel"]) if claims else None
        if claims is None or table is None:
            await ws.close(code=4001, message=b"session")
            return ws
        user_id = claims["user"]
        seat = table.seat_of(user_id)
        conn = Connection(ws, user_id, seat, claims["language"])
        hello = frames.hello(
            user_id=user_id,
            user_name=claims["name"],
            seat=seat,
            language=conn.language,
            cards=self.cards.get(user_id, "classic"),
            kind=table.spec.name,
            table_id=table.id,
        )
        await self._send(conn, hello)
        await self._send(conn, self._table_frame(table, conn))
        if table.state.is_over:
            await self._send(conn, frames.ended(table.state.results(), how="finished"))
        table.connections.append(conn)
        try:
            async for message in ws:
                if message.type == aiohttp.WSMsgType.TEXT:
                    await self._heard(table, conn, message.data)
        finally:
            if conn in table.connections:
                table.connections.remove(conn)
        return ws

    async def _heard(self, table: StandInTable, conn: Connection, text: str) -> None:
        def refuse(key: str, move_key: str | None = None, **params: Any) -> dict[str, Any]:
            return frames.refused(t(key, conn.language, **params), key=move_key)

        try:
            frame = frames.read(text)
        except frames.BadFrame:
            await self._send(conn, refuse("error.malformed_action"))
            return
        if isinstance(frame, frames.Ping):
            await self._send(conn, frames.pong())
            return
        seat = conn.seat
        if seat is None:
            await self._send(conn, refuse("error.not_a_player", getattr(frame, "key", None)))
            return
        if isinstance(frame, frames.HintAsk):
            await self._send(conn, self._hint(table, conn, seat))
            return
        if (conn.user_id, frame.key) in table.keys:  # the same move again: it was made once
            await self._send(conn, self._table_frame(table, conn, frame.key))
            return
        if frame.version > table.version or frame.version < table.marks[seat]:
            own = table.played.get(seat, -1) > frame.version
            reason = "activity.refused.already_done" if own else "activity.refused.moved_on"
            await self._send(conn, refuse(reason, frame.key))
            await self._send(conn, self._table_frame(table, conn))
            return
        action = table.spec.panel.action_for(frame.act, frame.arg)
        if action is None:
            await self._send(conn, refuse("error.malformed_action", frame.key))
            return
        try:
            self._commit(table, seat, action, frame.key)
        except GameError as error:
            await self._send(conn, refuse(error.key, frame.key, **error.params))
            return
        await self._tell_all(table, conn, frame.key)
        await self._computers(table)

    def _hint(self, table: StandInTable, conn: Connection, seat: int) -> dict[str, Any]:
        """The panels' hint (bot.service.clicks): the normal computer player's move, in words."""
        state, describe = table.state, table.spec.suggestion
        if describe is None or state.phase != "play" or state.turn != seat:
            return frames.refused(t("hints.error.not_your_turn", conn.language))
        view = state.view(seat)
        action = table.spec.levels["normal"](view, random.Random(f"{table.version}:{seat}:hint"))
        notice = describe(view, seat, action) if action in state.legal_actions(seat) else None
        if notice is None:
            return frames.refused(t("hints.error.none", conn.language))
        key, params = notice
        return frames.hint(t(key, conn.language, **params))
