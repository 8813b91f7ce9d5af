"""Every place the bot changes discord.py or leans on its internals, each said, and checked on a version.

The bot runs on discord.py, and in the places below it goes past discord.py's public API: to keep a click
under Discord's 3 seconds and the process lean, and (8, tests only) to talk to a fake Discord. Each is a
function or class here, with its docstring saying **what** it changes, **why**, and the discord.py
versions it was **checked on**: that the private names it uses still exist, mean the same, and that the
end-to-end tests (named in each docstring) pass.

=====================================  ====================================  =============================
patch                                  what it touches                       its policy (what it decides)
=====================================  ====================================  =============================
1. :func:`trim_clicks`                 ``ConnectionState.parsers``           :func:`bot.ui.lean.slim_click`
2. :func:`watch_interactions`          ``ConnectionState.parsers``, the      :class:`bot.lifecycle.InFlight`
                                       event loop's task factory
3. :class:`OnTimeAdapter`,             ``discord.webhook.async_``'s          :mod:`bot.ui.on_time`
   :func:`answer_on_time`              adapter and ``async_context``
4. :func:`budget_rest_requests`        ``HTTPClient.request``                :mod:`bot.ui.rest_budget`
5. :class:`ButtonsView`                ``discord.ui.View``'s private state   :mod:`bot.ui.views`
6. :func:`edit_original`,              ``handle_message_parameters``, the    (none: same requests,
   :func:`edit_channel_message`        webhook adapter, ``HTTPClient``       answers left unparsed)
7. :func:`quiet_voice_warnings`        ``VoiceClient.warn_nacl`` / ``dave``  (none)
8. :func:`point_at_fake`               ``Route.BASE``, ``DiscordWebSocket``'s  ``FAKE_DISCORD_URL``
                                       ``DEFAULT_GATEWAY``                   (bot/config.py; tests only)
=====================================  ====================================  =============================

**Upgrading discord.py**: :data:`CHECKED_ON` lists the versions every patch was checked on, and
``tests/unit/test_discord_patches.py`` fails on any other installed version. Re-check each patch
against the new version's source (the names listed above, the signatures the test also asserts), run
the tests each docstring names, then add the version to :data:`CHECKED_ON`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import aiohttp
import discord
import yarl
from discord.http import HTTPClient, Route, handle_message_parameters, json_or_text
from discord.utils import MISSING
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

# The discord.py versions every patch below was checked on (see the module docstring).
CHECKED_ON: tuple[str, ...] = ("2.7.1",)

INTERACTION_CREATE = "INTERACTION_CREATE"
NO_MENTIONS = discord.AllowedMentions.none()
callback_log = logging.getLogger("bot.ui.on_time")  # the callbacks' retries are the on-time policy's lines

Parsers = dict[str, Callable[[Any], Any]]


def unchecked_version(version: str = discord.__version__) -> str | None:
    """The installed discord.py version when no patch was checked on it, else None."""
    return None if version in CHECKED_ON else version


# ---------------------------------------------------------------------- 1. a click's message, trimmed


def trim_clicks(parsers: Parsers, slim: Callable[[dict[str, Any]], None]) -> None:
    """**What**: wraps discord.py's ``INTERACTION_CREATE`` parser (``client._connection.parsers``, the
    dict the gateway reads its parsers from) so that ``slim`` trims each raw interaction in place
    before discord.py builds its objects.

    **Why**: every click's payload carries the clicked message whole, which discord.py turns into a
    ``Message`` with an object per embed field, row and button (about 42 per move on a private panel);
    the bot reads only the message's id, flags, and whether the clicked id is on it (issue 26's profile,
    docs/performance.md). See :mod:`bot.ui.lean`.

    **Checked on** :data:`CHECKED_ON`: ``ConnectionState.parsers`` maps ``"INTERACTION_CREATE"`` to
    ``parse_interaction_create(data)``, called with the raw dict. Tests: tests/ui/test_lean.py,
    tests/e2e/test_lean.py.
    """
    parse = parsers[INTERACTION_CREATE]

    def slimmed(data: Any) -> Any:
        if isinstance(data, dict):
            slim(data)
        return parse(data)

    parsers[INTERACTION_CREATE] = slimmed


# ---------------------------------------------------------------------- 2. interactions in flight


def watch_interactions(
    parsers: Parsers,
    admit: Callable[[Any], bool],
    started: Callable[[Any, list[asyncio.Task[Any]]], None],
) -> None:
    """**What**: wraps discord.py's ``INTERACTION_CREATE`` parser: ``admit(data)`` False drops the
    interaction before discord.py sees it; else the parser runs with the event loop's task factory
    swapped for one that notes every task it creates, and ``started(type, tasks)`` gets them.

    **Why**: a graceful stop must wait for the interactions being handled and take no new one, and a
    fleet's process whose shards are not held must not answer (:class:`bot.lifecycle.InFlight`). This
    parser is the one place every interaction enters (component clicks, slash commands, modals).

    **Checked on** :data:`CHECKED_ON`: parsing an interaction dispatches it synchronously, and each
    handler (``on_interaction`` listeners, the command tree's invoker) is an ``asyncio`` task created
    during that call (``Client._schedule_event``, ``CommandTree._from_interaction``). Tests:
    tests/e2e/test_graceful_stop.py, tests/e2e/test_fleet.py (graceful stops, dropped interactions).
    """
    original = parsers[INTERACTION_CREATE]

    def parse(data: Any) -> None:
        if not admit(data):
            return
        loop = asyncio.get_running_loop()
        previous = loop.get_task_factory()
        created: list[asyncio.Task[Any]] = []

        def factory(
            loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any], **kwargs: Any
        ) -> asyncio.Task[Any]:
            task: asyncio.Task[Any] = (
                previous(loop, coro, **kwargs)  # type: ignore[assignment]
                if previous is not None
                else asyncio.Task(coro, loop=loop, **kwargs)
            )
            created.append(task)
            return task

        loop.set_task_factory(factory)  # type: ignore[arg-type]
        try:
            original(data)
        finally:
            loop.set_task_factory(previous)
        started(data.get("type"), created)

    parsers[INTERACTION_CREATE] = parse


# ---------------------------------------------------------------------- 3. the first answer, on time


# Facts of Discord and discord.py the adapter reads (the decisions are its policy's, given by its installer).
CALLBACK_ROUTE = "/interactions/{webhook_id}/{webhook_token}/callback"  # discord.py's Route.path of it
CALLBACK_WINDOW = 3.0  # seconds Discord waits for an interaction's first answer
ALREADY_ACKNOWLEDGED = 40060  # Discord's error code: the interaction was answered already


@dataclass(frozen=True, slots=True)
class CallbackPolicy:
    """What :class:`OnTimeAdapter` decides by, given by whoever installs it (ours:
    :data:`bot.ui.on_time.POLICY`): this module knows Discord, not the bot's choices."""

    deadline: Callable[[int], float]  # interaction id -> the time.time() after which no retry starts
    wants_body: Callable[[dict[str, Any] | None], bool]  # does the bot read this callback's answer?
    pauses: Sequence[float]  # before retrying a 5xx or a broken connection (the last one repeats)


class OnTimeAdapter(AsyncWebhookAdapter):
    """discord.py's webhook adapter with a deadline-aware retry of interaction callbacks, by
    ``policy`` (ours: :mod:`bot.ui.on_time`)."""

    def __init__(self, policy: CallbackPolicy) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # discord.py's is not annotated
        self.policy = policy

    async def request(self, route: Route, session: aiohttp.ClientSession, **kwargs: Any) -> Any:
        if route.path != CALLBACK_ROUTE:
            return await super().request(route, session, **kwargs)
        return await self._callback(route, session, **kwargs)

    async def _callback(
        self,
        route: Route,
        session: aiohttp.ClientSession,
        *,
        payload: dict[str, Any] | None = None,
        multipart: list[dict[str, Any]] | None = None,
        proxy: str | None = None,
        proxy_auth: aiohttp.BasicAuth | None = None,
        files: Any = None,
        reason: str | None = None,
        auth_token: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> Any:
        policy = self.policy
        deadline = policy.deadline(int(route.webhook_id or 0))
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        bodiless = {"interaction": {"id": str(route.webhook_id), "type": 0}}  # as discord.py reads one
        if not multipart and not policy.wants_body(payload) and params is not None:
            params = {k: v for k, v in params.items() if k != "with_response"} or None
        landed_maybe = False  # an attempt may have reached Discord (a 5xx, a broken connection)
        attempt = 0
        while True:
            to_send: Any = discord.utils._to_json(payload) if payload is not None else None
            for file in files or ():
                file.reset(seek=attempt)
            if multipart:
                to_send = aiohttp.FormData(quote_fields=False)
                for part in multipart:
                    to_send.add_field(**part)
            try:
                async with session.request(
                    route.method,
                    route.url,
                    data=to_send,
                    headers=headers,
                    params=params,
                    proxy=proxy,
                    proxy_auth=proxy_auth,
                ) as response:
                    data = await json_or_text(response)
            except (OSError, aiohttp.ClientError) as error:
                landed_maybe = True
                wait = policy.pauses[min(attempt, len(policy.pauses) - 1)]
                if time.time() + wait >= deadline:
                    raise
                callback_log.info("interaction callback retried", extra={"error": type(error).__name__})
                await asyncio.sleep(wait)
                attempt += 1
                continue
            status = response.status
            if 200 <= status < 300:
                return data if isinstance(data, dict) else bodiless
            code = data.get("code") if isinstance(data, dict) else None
            if status == 400 and code == ALREADY_ACKNOWLEDGED and landed_maybe:
                # An attempt that got a 5xx (or no answer) had landed: the interaction is answered.
                callback_log.info("interaction callback had landed", extra={"attempts": attempt + 1})
                return bodiless
            if status == 429 and response.headers.get("Via"):  # no Via: Cloudflare's ban, not Discord's
                wait = float(data["retry_after"]) if isinstance(data, dict) else CALLBACK_WINDOW
                if time.time() + wait < deadline:
                    callback_log.info("interaction callback rate limited", extra={"retry_after": wait})
                    await asyncio.sleep(wait)
                    attempt += 1
                    continue
            elif status >= 500:
                landed_maybe = True
                wait = policy.pauses[min(attempt, len(policy.pauses) - 1)]
                if time.time() + wait < deadline:
                    callback_log.info("interaction callback retried", extra={"status": status})
                    await asyncio.sleep(wait)
                    attempt += 1
                    continue
                raise discord.DiscordServerError(response, data)
            if status == 403:
                raise discord.Forbidden(response, data)
            if status == 404:
                raise discord.NotFound(response, data)
            raise discord.HTTPException(response, data)


def answer_on_time(policy: CallbackPolicy) -> None:
    """**What**: makes :class:`OnTimeAdapter` discord.py's webhook adapter in the current task and every
    task created from it (the context variable ``discord.webhook.async_.async_context``), deciding by
    ``policy`` (the deadline, the pauses, which answers are read: :data:`bot.ui.on_time.POLICY`). The adapter
    subclasses discord.py's ``AsyncWebhookAdapter`` and replaces its ``request`` for the interaction
    callback route only (every other webhook route keeps discord.py's): it retries a callback within
    Discord's 3-second deadline, takes a 40060 after a 5xx for the success it is, and asks for the
    response body only when the bot reads it.

    **Why**: discord.py's retries are blind to the deadline (two 5xx in a row miss it), and its
    ``?with_response=1`` makes it parse the answered message, every panel button included. See
    :mod:`bot.ui.on_time`. Called from ``setup_hook`` (with that policy), whose task reads the gateway:
    every event handler's task inherits the adapter.

    **Checked on** :data:`CHECKED_ON`: ``AsyncWebhookAdapter.request(route, session, *, payload,
    multipart, proxy, proxy_auth, files, reason, auth_token, params)``, ``Route.path`` /
    ``webhook_id``, ``discord.http.json_or_text``, ``discord.utils._to_json``, ``File.reset(seek=)``,
    and that ``InteractionResponse`` reads ``{"interaction": {...}}`` when given no body. Tests:
    tests/e2e/test_on_time.py, tests/ui/test_lean.py.
    """
    async_context.set(OnTimeAdapter(policy))


# ---------------------------------------------------------------------- 4. the REST budget


def budget_rest_requests(http: HTTPClient, take: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """**What**: puts ``await take()`` in front of every call of this client's ``HTTPClient.request``
    (an instance attribute shadowing the method).

    **Why**: Discord allows an application 50 bot-token requests a second across all its processes;
    :class:`bot.ui.rest_budget.RestBudget` holds this process's share of it.

    **Checked on** :data:`CHECKED_ON`: every bot-token request (message edits, sends, deletes, DMs,
    command syncs) goes through ``HTTPClient.request(route, *, files, form, **kwargs)``; interaction
    answers go through the webhook adapter instead (not under that limit). Tests:
    tests/e2e/test_rest_budget.py.
    """
    original = http.request

    async def request(route: Any, **kwargs: Any) -> Any:
        await take()
        return await original(route, **kwargs)

    http.request = request  # type: ignore[method-assign]


# ---------------------------------------------------------------------- 5. views that are payloads


class ButtonsView(discord.ui.View):
    """Rows of buttons given as Discord's component payload, built straight from our button specs.

    **What**: a ``discord.ui.View`` that skips ``View.__init__`` and sets only what discord.py reads of
    a view it is given (its private ``_BaseView__timeout`` and ``_children``), is born finished
    (``is_finished()``) and not dispatchable, and gives its rows as they are (``to_components``).

    **Why**: a click on any of our buttons is dispatched from its custom_id alone (:mod:`bot.ui.router`),
    never by the view it was sent with, so discord.py need keep nothing of it. It would: a view sent
    with a message is stored in its ViewStore, and one sent ephemerally (every private panel) gets a
    15-minute timeout task holding it alive; and ``View.__init__`` draws a random id (os.urandom, 0.13 ms
    a call on a busy VM), makes a future and walks the class for decorated items. Building this view
    costs a few dicts instead of a Button object per button; the payload is key for key the one
    ``discord.ui.Button`` produces (:func:`bot.ui.views.button`).

    **Checked on** :data:`CHECKED_ON`: ``BaseView.__init__`` sets ``__timeout`` and ``_children``;
    sending a view reads ``timeout``, ``is_finished``, ``is_dispatchable``, ``has_components_v2`` and
    ``to_components``. Tests: the panels' payload tests in tests/ui/,
    every e2e test (Discord's description judges each payload).
    """

    def __init__(self, rows: list[list[dict[str, Any]]]) -> None:  # not View.__init__: see above
        self._BaseView__timeout = None
        self._children = []
        self._rows = [row for row in rows if row]

    def is_finished(self) -> bool:
        return True

    def has_components_v2(self) -> bool:
        return False

    def to_components(self) -> list[dict[str, Any]]:
        return [{"type": 1, "components": row} for row in self._rows]

    def is_dispatchable(self) -> bool:
        return False

    def custom_ids(self) -> list[str]:
        return [str(b["custom_id"]) for row in self._rows for b in row]


class LayoutPayload(ButtonsView):
    """A Components V2 layout (issue 40) given as Discord's component payload: the same lean view as
    :class:`ButtonsView`, whose ``has_components_v2()`` is true, so discord.py's
    ``handle_message_parameters`` sets the IS_COMPONENTS_V2 flag on the message it sends.

    **Why** not ``discord.ui.LayoutView``: the layout is built as plain data
    (:func:`bot.render.messages.layout_of`) and sent key for key as built; a ``LayoutView`` would make
    an item object per component (and the random id, the future, the store of a ``View``) only to
    give back the same dicts. **Checked on** :data:`CHECKED_ON`: as :class:`ButtonsView`.
    Tests: tests/e2e/test_v2_table.py (Discord's description judges each payload).
    """

    def __init__(self, layout: list[dict[str, Any]]) -> None:  # not View.__init__: see ButtonsView
        self._BaseView__timeout = None
        self._children = []
        self._rows = []
        self._layout = layout

    def has_components_v2(self) -> bool:
        return True

    def to_components(self) -> list[dict[str, Any]]:
        return self._layout

    def custom_ids(self) -> list[str]:
        found: list[str] = []
        todo = list(self._layout)
        while todo:
            comp = todo.pop(0)
            if comp.get("custom_id"):
                found.append(str(comp["custom_id"]))
            todo[:0] = list(comp.get("components") or [])
        return found


# ---------------------------------------------------------------------- 6. edits whose answer is not read


class Rest(Protocol):
    """What :func:`edit_channel_message` needs of a client (``discord.Client`` is one)."""

    @property
    def http(self) -> HTTPClient: ...


async def edit_original(
    webhook: discord.Webhook,
    *,
    content: str | None = MISSING,
    view: discord.ui.View | None = MISSING,
    attachments: Sequence[discord.File] = MISSING,
    allowed_mentions: discord.AllowedMentions = NO_MENTIONS,
) -> None:
    """Edit an interaction's first answer through its webhook (``interaction.followup``: the token
    lasts 15 minutes), as ``Interaction.edit_original_response`` does, without parsing the answer.

    **What**: the same request as discord.py's (the payload built by its ``handle_message_parameters``,
    sent by its webhook adapter: same route, rate limits and retries), its answer dropped.

    **Why**: discord.py would build a ``Message`` of the edited panel (an object per button) that the
    bot never reads (issue 26, docs/performance.md).

    **Checked on** :data:`CHECKED_ON`: ``handle_message_parameters(content=, view=,
    allowed_mentions=)`` as a context manager giving ``payload``, ``multipart``, ``files``;
    ``AsyncWebhookAdapter.edit_original_interaction_response``; ``Webhook.session`` / ``proxy`` /
    ``proxy_auth``. Tests: tests/e2e/test_lean.py and every game's e2e test.
    """
    with handle_message_parameters(
        content=content, view=view, attachments=attachments, allowed_mentions=allowed_mentions
    ) as params:
        assert webhook.token is not None  # an interaction's webhook always has its token
        await async_context.get().edit_original_interaction_response(
            webhook.id,
            webhook.token,
            session=webhook.session,
            proxy=webhook.proxy,
            proxy_auth=webhook.proxy_auth,
            payload=params.payload,
            multipart=params.multipart,
            files=params.files,
        )


async def edit_channel_message(
    client: Rest,
    channel_id: int,
    message_id: int,
    *,
    content: str | None = MISSING,
    embed: discord.Embed | None = MISSING,
    view: discord.ui.View | None = MISSING,
    attachments: Sequence[discord.File] = MISSING,
    allowed_mentions: discord.AllowedMentions = NO_MENTIONS,
) -> None:
    """Edit one of the bot's channel messages, as ``PartialMessage.edit`` does, without parsing the
    answer. Raises discord.py's ``HTTPException`` family like it.

    **What** and **why**: as :func:`edit_original`, for the public table and lobby messages (edited
    about once a second per busy table).

    **Checked on** :data:`CHECKED_ON`: ``handle_message_parameters(content=, embed=, view=,
    attachments=, allowed_mentions=)``; ``HTTPClient.edit_message(channel_id, message_id, *, params)``.
    Tests: tests/e2e/test_lean.py, tests/e2e/test_panels_follow.py.
    """
    with handle_message_parameters(
        content=content,
        embed=embed,
        view=view,
        attachments=attachments,
        allowed_mentions=allowed_mentions,
    ) as params:
        await client.http.edit_message(channel_id, message_id, params=params)


# ---------------------------------------------------------------------- 7. voice warnings


def quiet_voice_warnings() -> None:
    """**What**: sets ``discord.VoiceClient.warn_nacl`` and ``warn_dave`` to False.

    **Why**: a card table never joins a voice channel: discord.py's start-up warnings that voice needs
    PyNaCl and davey would only be noise in every log (they are printed once, when the first Client is
    built, so this runs at import of ``bot.client``).

    **Checked on** :data:`CHECKED_ON`: both are class attributes read by ``Client.__init__``.
    """
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False


FAKE_API_PREFIX = "/api/v10"  # where a fake Discord serves the REST API under its address (fakecord's)


def point_at_fake(url: str) -> tuple[str, str]:
    """**What**: sets ``discord.http.Route.BASE`` to ``<url>/api/v10`` and
    ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` to ``ws://<host:port of url>/``; returns the
    two. Only when ``FAKE_DISCORD_URL`` is set (``python -m bot run`` and ``sync``, bot/run.py); never
    otherwise: unset, discord.py talks to Discord as it always does.

    **Why**: a bot in a container of its own (the compose stack of ``tests/image/test_compose.py``)
    talks to the fake Discord of another container (``python -m fakecord serve``), reached by a name
    of the compose network. In-process tests and the sandbox point discord.py the same way
    (``FakeDiscord.patched``); every REST route, the interactions' webhook routes included, is built
    on ``Route.BASE``. With ``SHARD_COUNT`` unset discord.py connects to the URL ``GET /gateway/bot``
    answers, which the fake builds on the same address.

    **Checked on** :data:`CHECKED_ON`: ``Route.BASE`` is the class attribute ``Route.__init__`` builds
    every URL from, and ``DEFAULT_GATEWAY`` the one ``DiscordWebSocket.from_client`` falls back to.
    """
    base = url.rstrip("/")
    api, gateway = base + FAKE_API_PREFIX, "ws" + base.removeprefix("http") + "/"
    Route.BASE = api
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    return api, gateway


__all__ = [
    "ALREADY_ACKNOWLEDGED",
    "CALLBACK_ROUTE",
    "CALLBACK_WINDOW",
    "CHECKED_ON",
    "ButtonsView",
    "CallbackPolicy",
    "OnTimeAdapter",
    "Rest",
    "answer_on_time",
    "budget_rest_requests",
    "edit_channel_message",
    "edit_original",
    "point_at_fake",
    "quiet_voice_warnings",
    "trim_clicks",
    "unchecked_version",
    "watch_interactions",
]
