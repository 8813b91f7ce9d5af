"""The sandbox: the real bot, the fake Discord it talks to, and a web page that plays the Discord client.

::

    browser (bot/sandbox/static) --websocket /ws--> Sandbox --INTERACTION_CREATE--> the real bot
                                 <--live updates--  (FakeDiscord)  <--REST (messages, callbacks)--

Every click and command in the page becomes the gateway event Discord would send (the fake's
``run_command`` / ``click`` / ``submit_modal``); every message the bot sends, edits or deletes
through REST is pushed to the pages that may see it. Each page looks at one channel as one user:
ephemeral messages only reach their user's pages. Nothing here knows about a game: the commands come
from what the bot synced, the messages are rendered from their Discord payloads (``views.py``: what the
page sees of the fake).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import mimetypes
import re
import unicodedata
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from aiohttp import WSMsgType, web

from bot.activity.sessions import ActivitySettings
from bot.command_check import push, stored_entry_point, watch
from bot.sandbox import places
from bot.sandbox.views import LOCALES, THREAD_TYPES, PageViews
from fakecord import (
    CALLBACK_DEADLINE,
    FakeChannel,
    FakeDiscord,
    FakeDiscordError,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    RealClock,
)

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
DEFAULT_HOST = "127.0.0.1"  # no authentication: loopback (a container's SANDBOX_HOST: docs/deploy.md)
DEFAULT_PORT = 8765
DEFAULT_DATABASE = Path("data") / "sandbox.sqlite3"
USERS: list[tuple[str, str, str | None]] = [("alice", "en-US", "Alice"), ("bob", "en-US", "Bob"),
                                            ("chloe", "fr", "Chloé")]  # fmt: skip
OWNER = "alice"  # owns the server: every permission; the others are members with @everyone's defaults
DM = "dm"  # what a page asks to view for its user's direct messages with the bot
HISTORY = 100  # messages a page shows per channel
WORLD_FIRST_ID = (1_735_689_600_000 - 1_420_070_400_000) << 22  # the same world ids at each start (--keep)
PLACES_FIRST_ID = WORLD_FIRST_ID + 1_000  # the group DM's and Friends' server's (bot/sandbox/places.py)
PUSH_DELAY = 0.015  # seconds: changes are batched this long before being pushed
MAX_DISPLAY_NAME = 32  # Discord's limit on a user's display name (global_name)


@dataclass(eq=False)
class Page:
    """One browser tab: a websocket, the user it plays and the channel it shows."""

    ws: web.WebSocketResponse
    user: FakeUser | None = None
    channel: FakeChannel | None = None
    sent: dict[int, str] = field(default_factory=dict)  # message id -> last JSON pushed


class _ErrorForwarder(logging.Handler):
    """ERROR records (the bot's tracebacks) also appear in the pages, as notices."""

    def __init__(self, sandbox: Sandbox) -> None:
        super().__init__(level=logging.ERROR)
        self.sandbox = sandbox

    def emit(self, record: logging.LogRecord) -> None:
        text = f"{record.name}: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            text += f" ({record.exc_info[1]!r})"
        self.sandbox.notice("error", text)


class Sandbox:
    """``await sandbox.start()`` / ``await sandbox.stop()``; the page is at :attr:`url`.

    ``bot_factory()`` returns the bot to run (tests pass tiny timings); it is called again by
    :meth:`restart_bot`, which keeps the fake's world and messages, like a real restart.
    """

    def __init__(self, bot_factory: Any, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> None:
        self.bot_factory = bot_factory
        self.host = host
        self.port = port
        self.fake = FakeDiscord(clock=RealClock(), users=USERS, guild_name="Skybo sandbox", owner=OWNER,
                                world_first_id=WORLD_FIRST_ID, integration_types=(0, 1))  # fmt: skip
        self.fake.heartbeat_ack_delay = 0.25
        self.views = PageViews(self.fake)
        self.bot: Any = None
        self.pages: list[Page] = []
        self.problems: list[str] = []  # every notice so far (tests assert there is none)
        # the page actions refused lately (a toast in that page): what a failed page wait needs to tell
        self.refused: deque[str] = deque(maxlen=100)
        self._stack = contextlib.AsyncExitStack()
        self._bot_stack: contextlib.AsyncExitStack | None = None
        self._runner: web.AppRunner | None = None
        self._dirty = asyncio.Event()
        self._notices: deque[dict[str, str]] = deque(maxlen=50)
        self._pump_task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._world_sent = ""
        self._bot_status = "starting"
        self._forwarder = _ErrorForwarder(self)
        self.activity_port = 0  # where the bot serves the Activity (a free port, then kept across restarts)

    # ------------------------------------------------------------------ lifecycle

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    async def start(self) -> Sandbox:
        await self.fake.start()
        await places.furnish(self.fake, PLACES_FIRST_ID)  # a group DM, a server without the bot
        self._stack.push_async_callback(self.fake.stop)
        self._stack.enter_context(self.fake.patched())  # discord.py now talks to the fake
        self.fake.add_listener(self._dirty.set)
        app = web.Application()
        app.router.add_get("/", self._h_index)
        app.router.add_get("/ws", self._h_ws)
        app.router.add_get("/static/{name}", self._h_static)
        app.router.add_get("/files/{message_id}/{attachment_id}/{filename}", self._h_file)
        app.router.add_get("/emojis/{emoji_id:\\d+}.png", self._h_emoji)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        server: Any = site._server
        self.port = server.sockets[0].getsockname()[1]
        self._stack.push_async_callback(self._runner.cleanup)
        self._pump_task = asyncio.create_task(self._pump(), name="sandbox-pump")
        logging.getLogger().addHandler(self._forwarder)
        await self._start_bot()
        return self

    async def stop(self) -> None:
        """Stops the bot, the page and the fake; re-raises (after all that) if the bot had crashed."""
        logging.getLogger().removeHandler(self._forwarder)
        try:
            if self._bot_stack is not None:
                stack, self._bot_stack = self._bot_stack, None
                await stack.aclose()
        finally:
            if self._pump_task is not None:
                self._pump_task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._pump_task
            for task in list(self._tasks):
                task.cancel()
            for page in list(self.pages):
                with contextlib.suppress(Exception):
                    await page.ws.close()
            await self._stack.aclose()

    async def _start_bot(self) -> None:
        self._bot_status = "starting"
        self._dirty.set()
        stack = contextlib.AsyncExitStack()
        self.bot = self.bot_factory()
        serves = hasattr(self.bot, "activity_settings")  # the real bot (a test's toy bot serves none)
        if serves:  # the bot serves the Activity for the page's "Activity" (the SDK's mock in a frame)
            self.fake.enable_activities()  # and Discord keeps its Entry Point command from then on
            self.bot.activity_settings = ActivitySettings(
                port=self.activity_port, client_secret=self.fake.client_secret, host=self.host
            )
        # The bot syncs its commands only on request; in the sandbox the fake *is* Discord, so sync
        # at every start (as `python -m bot sync` does for the real bot: the Entry Point command kept):
        # the command box always shows the bot's current commands.
        await stack.enter_async_context(self.fake.running(self.bot, sync_commands=not serves, timeout=30.0))
        self._bot_stack = stack
        if serves:
            watch(self.bot, send=True, entry=await stored_entry_point(self.bot))
            await push(self.bot.tree, None)
            if self.bot.activity_server is not None:
                self.activity_port = self.bot.activity_server.port
        self._bot_status = "online"
        self._dirty.set()

    async def restart_bot(self) -> None:
        """Closes the bot and starts a new one on the same database (games resume, messages stay)."""
        if self._bot_stack is not None:
            self._bot_status = "restarting"
            self._dirty.set()
            stack, self._bot_stack = self._bot_stack, None
            await stack.aclose()
        await self._start_bot()

    # ------------------------------------------------------------------ notices & pushes

    def notice(self, level: str, text: str) -> None:
        """A line shown in every page (rejections, bot errors): what a developer must see."""
        self._notices.append({"level": level, "text": text[:1500]})
        self.problems.append(f"{level}: {text}")
        self._dirty.set()

    def _drain_fake_problems(self) -> None:
        fake = self.fake
        for rejection in fake.take_rejections():
            text = f"Discord refused {rejection.request.method} {rejection.request.path}: " + (
                f"{rejection.status} {rejection.code} {rejection.message}"
            )
            if rejection.errors:
                text += " " + json.dumps(rejection.errors)[:600]
            log.warning("sandbox: %s", text)
            self.notice("warning", text)
        for failure in fake.take_failed_clicks():
            # a click racing an edit that changed the button's custom_id: a real player hits it too
            self.notice(
                "warning",
                f"{failure.user.username}'s click on {failure.custom_id!r} failed in Discord's client "
                f"(This interaction failed; the page showed revision {failure.seen_revision}, "
                f"Discord holds {failure.revision}): {failure.reason}",
            )
        for record in fake.unknown_routes:
            self.notice(
                "warning",
                f"the bot called a route Discord's description (or the sandbox) lacks: {record.key}",
            )
        fake.unknown_routes.clear()
        for problem in fake.protocol_violations + fake.internal_errors:
            self.notice("error", problem)
        for answer in fake.answer_violations:
            self.notice("error", f"the sandbox answered what Discord would not: {answer}")
        fake.protocol_violations.clear()
        fake.internal_errors.clear()
        fake.answer_violations.clear()
        fake.description_violations.clear()
        # a long session must not grow without bound: keep the recent records only
        if len(fake.requests) > 2000:
            del fake.requests[:1000]
        if fake.session is not None and len(fake.session.events) > 2000:
            del fake.session.events[:1000]

    async def _pump(self) -> None:
        while True:
            await self._dirty.wait()
            await asyncio.sleep(PUSH_DELAY)
            self._dirty.clear()
            try:
                self._drain_fake_problems()
                notices = list(self._notices)
                self._notices.clear()
                world = json.dumps(self.world(), sort_keys=True)
                world_changed = world != self._world_sent
                self._world_sent = world
                for page in list(self.pages):
                    if world_changed:
                        await self._send(page, {"op": "world", **json.loads(world), **self._place(page)})
                    for notice in notices:
                        await self._send(page, {"op": "notice", **notice})
                    await self._sync_page(page)
            except Exception:
                log.exception("sandbox: pushing updates failed")

    async def _send(self, page: Page, data: dict[str, Any]) -> None:
        if page.ws.closed:
            return
        with contextlib.suppress(ConnectionError, RuntimeError):
            await page.ws.send_str(json.dumps(data))

    async def _sync_page(self, page: Page, *, reset: bool = False) -> None:
        if page.user is None or page.channel is None:
            return
        if reset:
            page.sent = {}
        current = {m.id: m for m in self.fake.visible_messages(page.user, page.channel)[-HISTORY:]}
        starter = self.views.starter(page.channel)
        if starter is not None:  # Discord's client shows it at the top of the thread
            current = {starter.id: starter, **current}
        upsert = []
        for message_id, message in current.items():
            data = self.message_view(message)
            if message is starter:
                data["starter"] = True
                data.pop("thread", None)
            text = json.dumps(data, sort_keys=True)
            if page.sent.get(message_id) != text:
                page.sent[message_id] = text
                upsert.append(data)
        gone = [str(i) for i in page.sent if i not in current]
        for message_id in [i for i in page.sent if i not in current]:
            del page.sent[message_id]
        if upsert or gone or reset:
            await self._send(page, {"op": "messages", "reset": reset, "upsert": upsert, "delete": gone})

    # ------------------------------------------------------------------ what the page sees

    def world(self) -> dict[str, Any]:
        status = self._bot_status
        if status == "online" and (self.bot is None or self.bot.is_closed()):
            status = "offline"  # it crashed: the terminal says why
        return self.views.world(status)

    def message_view(self, msg: FakeMessage) -> dict[str, Any]:
        """A message as the page draws it: the Discord payload, with attachment URLs the page can load."""
        return self.views.message_view(msg)

    def _place(self, page: Page) -> dict[str, Any]:
        """What depends on the page's user and channel: the commands Discord's client offers there."""
        return {"offered": places.offered(self.fake, page.user, page.channel)}

    # ------------------------------------------------------------------ HTTP

    async def _h_index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def _h_static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        path = STATIC / name
        if "/" in name or name.startswith(".") or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Cache-Control": "no-store"})

    async def _h_file(self, request: web.Request) -> web.StreamResponse:
        msg = self.fake.messages.get(int(request.match_info["message_id"]))
        attachment_id = int(request.match_info["attachment_id"])
        for attachment in msg.attachments if msg is not None else []:
            if attachment.id == attachment_id:
                ctype = attachment.content_type or mimetypes.guess_type(attachment.filename)[0]
                return web.Response(body=attachment.data, content_type=ctype or "application/octet-stream")
        raise web.HTTPNotFound()

    async def _h_emoji(self, request: web.Request) -> web.StreamResponse:
        """A custom emoji's picture (``<:name:id>`` in text, ``emoji: {id}`` on a button), as Discord's
        CDN serves it; 404 when the fake has no such emoji (the page then writes ``:name:``)."""
        source = self.views.emoji_source()
        image = source(int(request.match_info["emoji_id"])) if source is not None else None
        if not image:
            raise web.HTTPNotFound()
        return web.Response(body=image, content_type="image/png", headers={"Cache-Control": "max-age=3600"})

    async def _h_ws(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(heartbeat=30)
        await ws.prepare(request)
        page = Page(ws)
        self.pages.append(page)
        try:
            await self._send(page, {"op": "world", **self.world(), **self._place(page)})
            async for frame in ws:
                if frame.type is not WSMsgType.TEXT:
                    continue
                try:
                    request_data = json.loads(frame.data)
                except ValueError:
                    continue
                task = asyncio.create_task(self._handle(page, request_data))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        finally:
            self.pages.remove(page)
        return ws

    # ------------------------------------------------------------------ what the page does

    async def _handle(self, page: Page, data: dict[str, Any]) -> None:
        rid = data.get("rid")
        try:
            result = await self._act(page, data)
            reply = {"op": "reply", "rid": rid, "ok": True, **(result or {})}
        except (FakeDiscordError, KeyError, ValueError, TypeError) as exc:
            text = exc.args[0] if isinstance(exc, FakeDiscordError) and exc.args else str(exc)
            reply = {"op": "reply", "rid": rid, "ok": False, "error": str(text)}
            who = page.user.username if page.user is not None else "?"
            self.refused.append(f"{who} {data.get('op')} {data.get('custom_id') or ''}: {text}")
            log.info("sandbox: %s's %s refused: %s", who, data.get("op"), text)
        except Exception as exc:
            log.exception("sandbox: action failed")
            reply = {"op": "reply", "rid": rid, "ok": False, "error": repr(exc)}
        if rid is not None:
            await self._send(page, reply)

    def _user(self, value: Any) -> FakeUser:
        for user in self.fake.users.values():
            if str(user.id) == str(value) or user.username == value:
                return user
        raise KeyError(f"unknown user {value!r}")

    def _channel(self, value: Any, user: FakeUser) -> FakeChannel:
        """A text channel of the server, or ``dm``: ``user``'s direct messages with the bot (only theirs)."""
        if value == DM:
            return self.fake.dm_channel(user)
        for channel in self.fake.guild.channels:
            if str(channel.id) == str(value) or channel.name == value:
                return channel
        for thread in self.views.threads():  # a thread by its id (names need not be unique)
            if str(thread.id) == str(value):
                return thread
        place = places.find(self.fake, value, user)  # a group DM, a server without the bot
        if place is not None:
            return place
        raise KeyError(f"unknown channel {value!r}")

    async def _act(self, page: Page, data: dict[str, Any]) -> dict[str, Any] | None:
        op = data.get("op")
        fake = self.fake
        if op == "view":
            user = self._user(data.get("user") or "alice")
            note = None
            try:
                channel = self._channel(data.get("channel") or "general", user)
            except KeyError as exc:  # a place this user is not in (switching users): the server's first
                if not data.get("fallback"):
                    raise
                channel, note = self.fake.guild.channels[0], exc.args[0]
            page.user, page.channel = user, channel
            await self._sync_page(page, reset=True)
            dm = channel.recipient is not None  # the bot's DM with the user
            group = channel.type == places.GROUP_DM_CHANNEL
            thread = channel.type in THREAD_TYPES
            name = DM if dm else str(channel.id) if thread or group else channel.name
            guild = None if channel.guild_id is None else str(channel.guild_id)
            return {
                "user": str(user.id),
                "channel": str(channel.id),
                "dm": dm,
                "thread": thread,
                "group": group,
                "guild": guild,
                "name": name,
                "note": note,
                **self._place(page),
            }
        if op == "add_user":
            # Discord's display name (global_name): 1 to 32 characters. A longer one is refused with the
            # reason rather than cut without a word (the page keeps what was typed, to shorten it).
            name = str(data.get("name") or "").strip()
            if not name:
                raise ValueError("a name is needed")
            if len(name) > MAX_DISPLAY_NAME:
                limit = f"A Discord display name is at most {MAX_DISPLAY_NAME} characters"
                raise ValueError(f"{limit}; this one has {len(name)}.")
            username = _username(name)
            if any(u.username == username for u in fake.users.values()):
                raise ValueError(f"{name} is already here")
            user = fake.add_user(username, locale=_locale(data.get("locale")), global_name=name)
            self._dirty.set()
            return {"user": str(user.id)}
        if op == "locale":
            self._user(data.get("user")).locale = _locale(data.get("locale"))
            self._dirty.set()
            return None
        if op == "guild_locale":
            fake.guild.preferred_locale = _locale(data.get("locale"))
            update = fake.guild.payload()
            for key in ("channels", "members", "threads", "presences", "voice_states"):
                update.pop(key, None)
            if fake.session is not None:
                await fake.dispatch("GUILD_UPDATE", update)  # as Discord tells the bot
            self._dirty.set()
            return None
        if op == "restart_bot":
            await self.restart_bot()
            return None
        if op == "activity":  # the user launches the Activity in the channel: its page, in the SDK's mock
            user = self._user(data.get("user"))
            instance = fake.launch_activity(user, self._channel(data.get("channel") or "general", user))
            query = {k: v for k, v in instance.frame_query().items() if k != "frame_id"}
            query.update(user_id=str(user.id), fake=fake.http_base)
            return {"port": self.activity_port, "path": "/activity/?" + urlencode(query)}
        if page.user is None or page.channel is None:
            raise ValueError("choose a user and a channel first")
        user, channel = page.user, page.channel
        if op == "command":
            inter = await fake.run_command(
                user,
                str(data["name"]),
                " ".join(data.get("path") or []) or None,
                options=self._options(data.get("options") or {}),
                channel=channel,
                timeout=0.5,
            )
        elif op == "autocomplete":
            inter = await fake.autocomplete(
                user,
                str(data["name"]),
                " ".join(data.get("path") or []) or None,
                focused=str(data["focused"]),
                options=self._options(data.get("options") or {}),
                channel=channel,
                timeout=0.5,
            )
            answer = await inter.response(timeout=CALLBACK_DEADLINE)
            return {"choices": answer.data.get("choices") or []}
        elif op == "click":
            values = data.get("values")
            custom_id = str(data["custom_id"])
            message = fake.messages.get(int(data["message"]))
            if message is None:
                raise ValueError(f"unknown message {data['message']}")
            # The page may still show an older revision than the fake holds (an edit is on its
            # way): click on what the page showed, and let the fake validate it like Discord.
            rev = data.get("rev")
            seen = message.snapshot(int(rev)) if isinstance(rev, int) else message
            comp = seen.component(custom_id)
            inter = await fake.click(user, seen, custom_id, values=values)
            if inter.failure is not None:
                # Discord's client says so under the message; nothing reached the bot
                failed = {"op": "failed", "text": "This interaction failed", "message": str(message.id),
                          "rev": message.revision}  # fmt: skip
                await self._send(page, failed)
                return {"interaction": str(inter.id), "failed": inter.failure.reason}
            self.views.labels[inter.id] = (comp or {}).get("label") or None
        elif op == "say":
            content = str(data.get("content") or "")[:2000]
            await fake.send_user_message(user, channel, content)
            return None
        elif op == "modal":
            source = fake.interactions[int(data["interaction"])]
            inter = await fake.submit_modal(user, source, dict(data.get("values") or {}))
        else:
            raise ValueError(f"unknown action {op!r}")
        self._watch(inter)
        return {"interaction": str(inter.id)}

    def _options(self, raw: dict[str, Any]) -> dict[str, Any]:
        return {str(k): v for k, v in raw.items() if v is not None and v != ""}

    def _watch(self, inter: FakeInteraction) -> None:
        """Tells the user when the bot does not answer in time, and opens the modals it sends."""

        async def watch() -> None:
            try:
                answer = await inter.response(timeout=CALLBACK_DEADLINE + 0.5)
            except TimeoutError:
                text = "The application did not respond" if inter.type == 2 else "This interaction failed"
                failed = {"op": "failed", "text": text, "interaction": str(inter.id)}
                if inter.message is not None:
                    failed["message"] = str(inter.message.id)
                await self._tell(inter.user, failed)
                return
            if answer.type == 9:
                modal = {"op": "modal", "interaction": str(inter.id), "modal": answer.data}
                await self._tell(inter.user, modal)

        task = asyncio.create_task(watch())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _tell(self, user: FakeUser, data: dict[str, Any]) -> None:
        for page in list(self.pages):
            if page.user is user:
                await self._send(page, data)


def _username(name: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9_.]", "", ascii_name.lower().replace(" ", "_"))[:32] or "user"


def _locale(value: Any) -> str:
    return value if value in LOCALES else "en-US"
