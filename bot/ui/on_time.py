"""The first answer to an interaction, on time: a retry policy for interaction callbacks that keeps
to Discord's 3-second deadline.

Discord drops an interaction whose callback (``POST /interactions/{id}/{token}/callback``) has not
landed within 3 s of its creation: the user sees "This interaction failed" and a later callback gets
404/10062. discord.py's webhook adapter retries a 429 after its ``retry_after`` and a 5xx after 1 s,
3 s, 5 s..., blind to that deadline: two 5xx in a row already miss it, and a 5xx that Discord sent
*after* acting on the callback makes the retry fail with 400/40060 "already acknowledged".

:class:`OnTimeAdapter` replaces that policy for the callback route only (every other webhook route,
follow-ups and edits of the original response, has 15 minutes and keeps discord.py's):

* the deadline is the interaction's creation (its snowflake, Discord's clock) + 3 s - ``MARGIN``;
* the first attempt is always made (our clock may differ a little from Discord's), a retry only if it
  can start before the deadline;
* a 429 is retried after its ``retry_after`` if that is before the deadline (else given up at once);
* a 5xx or a broken connection is retried soon (0.1 s, 0.25 s, then every 0.5 s);
* a 40060 after such an attempt means an earlier attempt landed: it is a success (an answer without
  the response body, as for a callback sent without ``with_response``).

It also asks for the callback's response body only when the bot reads it (:func:`wants_body`):
discord.py asks for it always (``?with_response=1``) and builds an ``InteractionMessage`` of the
answered message from it, every button of a private panel included; only a new public message (the
lobby: its id is kept) is read. Issue 26 measured that parsing among the largest costs of a click.

It is installed for the bot's whole connection (:func:`install`, from ``setup_hook``): discord.py
takes its webhook adapter from the context variable ``discord.webhook.async_.async_context``, and
every event handler (clicks, slash commands: the command tree's tasks too) runs in a task created
from the connection's task, which copies the variable.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import aiohttp
import discord
from discord.http import Route, json_or_text
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

log = logging.getLogger(__name__)

CALLBACK_ROUTE = "/interactions/{webhook_id}/{webhook_token}/callback"
CALLBACK_WINDOW = 3.0  # seconds Discord waits for the first answer
MARGIN = 0.25  # seconds kept for the last attempt's own trip to Discord
RETRY_5XX = (0.1, 0.25, 0.5)  # pauses before retrying a 5xx (the last one repeats)
ALREADY_ACKNOWLEDGED = 40060


EPHEMERAL = 1 << 6
# Callback types whose answer the bot never reads: a deferred update (6), an update of the clicked
# message (7), an autocomplete result (8) and a modal (9).
NO_BODY_TYPES = frozenset({6, 7, 8, 9})


def wants_body(payload: dict[str, Any] | None) -> bool:
    """True when the bot reads this callback's response body: a new or deferred message that is not
    ephemeral (its id is the public message's, e.g. a lobby's). Sent as multipart (files): kept."""
    if payload is None:
        return True
    kind = payload.get("type")
    if kind in NO_BODY_TYPES:
        return False
    data = payload.get("data") or {}
    return not int(data.get("flags") or 0) & EPHEMERAL


def callback_deadline(interaction_id: int) -> float:
    """The wall-clock time (``time.time()``) after which no retry of this callback is started."""
    created = discord.utils.snowflake_time(interaction_id).timestamp()
    return created + CALLBACK_WINDOW - MARGIN


class OnTimeAdapter(AsyncWebhookAdapter):
    """discord.py's webhook adapter with a deadline-aware retry of interaction callbacks."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # discord.py's is not annotated

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
        deadline = callback_deadline(int(route.webhook_id or 0))
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        bodiless = {"interaction": {"id": str(route.webhook_id), "type": 0}}  # as discord.py reads one
        if not multipart and not wants_body(payload) and params is not None:
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
                wait = RETRY_5XX[min(attempt, len(RETRY_5XX) - 1)]
                if time.time() + wait >= deadline:
                    raise
                log.info("interaction callback retried", extra={"error": type(error).__name__})
                await asyncio.sleep(wait)
                attempt += 1
                continue
            status = response.status
            if 200 <= status < 300:
                return data if isinstance(data, dict) else bodiless
            code = data.get("code") if isinstance(data, dict) else None
            if status == 400 and code == ALREADY_ACKNOWLEDGED and landed_maybe:
                # An attempt that got a 5xx (or no answer) had landed: the interaction is answered.
                log.info("interaction callback had landed", extra={"attempts": attempt + 1})
                return bodiless
            if status == 429 and response.headers.get("Via"):  # no Via: Cloudflare's ban, not Discord's
                wait = float(data["retry_after"]) if isinstance(data, dict) else CALLBACK_WINDOW
                if time.time() + wait < deadline:
                    log.info("interaction callback rate limited", extra={"retry_after": wait})
                    await asyncio.sleep(wait)
                    attempt += 1
                    continue
            elif status >= 500:
                landed_maybe = True
                wait = RETRY_5XX[min(attempt, len(RETRY_5XX) - 1)]
                if time.time() + wait < deadline:
                    log.info("interaction callback retried", extra={"status": status})
                    await asyncio.sleep(wait)
                    attempt += 1
                    continue
                raise discord.DiscordServerError(response, data)
            if status == 403:
                raise discord.Forbidden(response, data)
            if status == 404:
                raise discord.NotFound(response, data)
            raise discord.HTTPException(response, data)


def install() -> None:
    """Use :class:`OnTimeAdapter` in the current task and every task it creates from now on."""
    async_context.set(OnTimeAdapter())
