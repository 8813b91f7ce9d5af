"""The HTTP front: the route table, the middleware that records every request and turns the
fake's errors into Discord's answers, and the injected faults (429 rate limits, 5xx).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import aiohttp
from aiohttp import web

from fakecord import openapi
from fakecord.constants import API_PREFIX
from fakecord.errors import DiscordAPIError
from fakecord.records import RECORD_KEY, FailureRule, HoldRule, RateLimitRule, RecordedRequest, Rejection
from fakecord.routes_oauth2 import OAuth2Routes

log = logging.getLogger(__name__)


# What Discord's servers answer for the 5xx statuses FakeDiscord.fail injects: content type, body.
SERVER_ERRORS = {
    500: ("application/json", '{"message": "500: Internal Server Error", "code": 0}'),
    502: (
        "text/html",
        "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway"
        "</h1></center><hr><center>cloudflare</center></body></html>",
    ),
    503: ("text/plain", "upstream connect error or disconnect/reset before headers. reset reason: overflow"),
    504: (
        "text/html",
        "<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway "
        "Time-out</h1></center><hr><center>cloudflare</center></body></html>",
    ),
}


_Rule = TypeVar("_Rule", RateLimitRule, FailureRule, HoldRule)


def _take_rule(rules: list[_Rule], record: RecordedRequest) -> _Rule | None:
    """The first injected fault with calls left that matches ``record`` (one call of it is used)."""
    for rule in rules:
        if rule.remaining > 0 and rule.method == record.method and rule.route in (record.route, record.path):
            rule.remaining -= 1
            return rule
    return None


class HttpFront(OAuth2Routes):
    """The aiohttp application of the fake and the faults a test injects into it."""

    # ------------------------------------------------------------------ rate limits

    def rate_limit(
        self,
        method: str,
        route: str,
        count: int = 1,
        *,
        retry_after: float = 0.05,
        is_global: bool = False,
        scope: str = "user",
        retry_until: float | None = None,
    ) -> None:
        """Makes the next ``count`` calls of ``method route`` answer 429.

        ``route`` is a template as in :attr:`RecordedRequest.route` (for instance
        ``"/channels/{channel_id}/messages"``) or a concrete path without the ``/api/v10``
        prefix.  Keep ``retry_after`` small: discord.py really sleeps that long. ``retry_until``
        (a time of :attr:`clock`): the 429 asks to wait until then, whenever the call comes
        (``retry_after`` is what is left, at least 0): a test of a wait that must still fit a
        deadline, whatever the machine's speed before the call.
        """
        self._rate_limits.append(
            RateLimitRule(method.upper(), route, count, retry_after, is_global, scope, retry_until)
        )

    def _take_rate_limit(self, record: RecordedRequest) -> RateLimitRule | None:
        return _take_rule(self._rate_limits, record)

    # ------------------------------------------------------------------ requests held on their way

    def hold(self, method: str, route: str, count: int = 1) -> HoldRule:
        """Holds the next ``count`` calls of ``method route`` on their way, for as long as the test
        needs (a slow network, a Discord under load), with no clock in it: each is recorded (its
        ``status`` 0 until answered, and in the returned rule's ``held``), then handled once the test
        calls its ``release()``. ``route`` as in :meth:`rate_limit`."""
        rule = HoldRule(method.upper(), route, count, asyncio.Event())
        self._holds.append(rule)
        return rule

    # ------------------------------------------------------------------ server errors

    def fail(
        self, method: str, route: str, count: int = 1, *, status: int = 500, applied: bool = False
    ) -> None:
        """Makes the next ``count`` calls of ``method route`` answer ``status`` (500, 502, 503 or 504),
        the way Discord (500: its JSON ``{"message": "500: Internal Server Error", "code": 0}``) or
        its Cloudflare front (502, 504: an HTML page; 503: Envoy's plain text) does.

        ``applied=False``: the request never took effect. ``applied=True``: Discord acted on it and
        then answered the error (a timeout between its own services), so a retried interaction
        callback gets 400/40060 "already acknowledged" and a retried message create posts twice.
        A request the fake would refuse anyway (e.g. a late callback) gets that refusal instead.
        ``route`` as in :meth:`rate_limit`; the failed requests are in :attr:`server_errors`.
        """
        if status not in SERVER_ERRORS:
            raise ValueError(f"status {status} is not one of {sorted(SERVER_ERRORS)}")
        self._failures.append(FailureRule(method.upper(), route, count, status, applied))

    def _take_failure(self, record: RecordedRequest) -> FailureRule | None:
        return _take_rule(self._failures, record)

    def _server_error_response(self, record: RecordedRequest, status: int) -> web.Response:
        content_type, body = SERVER_ERRORS[status]
        record.injected = True  # Cloudflare's or Envoy's page, which the description does not describe
        record.status = status
        record.response = body
        self.server_errors.append(record)
        return web.Response(status=status, body=body.encode(), headers={"Content-Type": content_type})

    # ------------------------------------------------------------------ HTTP plumbing

    def _add_routes(self, app: web.Application) -> None:
        a = API_PREFIX
        r = app.router
        r.add_get("/", self._ws_handler)
        r.add_get("/resume", self._ws_handler)
        r.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._h_cdn)
        # the fake's own, not Discord's: a code for a chosen user, for a browser test (routes_oauth2.py)
        r.add_route("POST", "/_fake/oauth2/authorize", self._h_fake_authorize)
        r.add_route("OPTIONS", "/_fake/oauth2/authorize", self._h_fake_authorize)
        routes: list[tuple[str, str, Callable[..., Any]]] = [
            ("GET", "/gateway", self._h_gateway),
            ("GET", "/gateway/bot", self._h_gateway_bot),
            ("GET", "/users/{user_id}", self._h_get_user),
            ("POST", "/users/{user_id}/channels", self._h_create_dm),
            ("GET", "/oauth2/applications/@me", self._h_application),
            ("GET", "/applications/@me", self._h_application),
            ("GET", "/applications/{application_id}/commands", self._h_get_commands),
            ("PUT", "/applications/{application_id}/commands", self._h_put_commands),
            ("POST", "/applications/{application_id}/commands", self._h_post_command),
            ("GET", "/applications/{application_id}/commands/{command_id}", self._h_get_command),
            ("DELETE", "/applications/{application_id}/commands/{command_id}", self._h_delete_command),
            ("GET", "/applications/{application_id}/guilds/{guild_id}/commands", self._h_get_commands),
            ("PUT", "/applications/{application_id}/guilds/{guild_id}/commands", self._h_put_commands),
            ("POST", "/applications/{application_id}/guilds/{guild_id}/commands", self._h_post_command),
            (
                "GET",
                "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}",
                self._h_get_command,
            ),
            (
                "DELETE",
                "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}",
                self._h_delete_command,
            ),
            (
                "GET",
                "/applications/{application_id}/activity-instances/{instance_id}",
                self._h_activity_instance,
            ),
            ("POST", "/oauth2/token", self._h_token),
            ("GET", "/applications/{application_id}/emojis", self._h_list_emojis),
            ("POST", "/applications/{application_id}/emojis", self._h_create_emoji),
            ("GET", "/applications/{application_id}/emojis/{emoji_id}", self._h_get_emoji),
            ("PATCH", "/applications/{application_id}/emojis/{emoji_id}", self._h_edit_emoji),
            ("DELETE", "/applications/{application_id}/emojis/{emoji_id}", self._h_delete_emoji),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self._h_callback),
            ("POST", "/webhooks/{application_id}/{token}", self._h_webhook_execute),
            ("GET", "/webhooks/{application_id}/{token}/messages/{message_id}", self._h_webhook_get),
            ("PATCH", "/webhooks/{application_id}/{token}/messages/{message_id}", self._h_webhook_edit),
            ("DELETE", "/webhooks/{application_id}/{token}/messages/{message_id}", self._h_webhook_delete),
            ("GET", "/channels/{channel_id}", self._h_get_channel),
            ("PATCH", "/channels/{channel_id}", self._h_edit_channel),
            ("POST", "/channels/{channel_id}/threads", self._h_start_thread),
            (
                "POST",
                "/channels/{channel_id}/messages/{message_id}/threads",
                self._h_start_thread_from_message,
            ),
            ("POST", "/channels/{channel_id}/typing", self._h_typing),
            ("GET", "/channels/{channel_id}/messages", self._h_history),
            ("POST", "/channels/{channel_id}/messages", self._h_create_message),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self._h_get_message),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self._h_edit_message),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self._h_delete_message),
            ("GET", "/guilds/{guild_id}", self._h_get_guild),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self._h_get_member),
        ]
        for method, path, handler in routes:
            r.add_route(method, a + path, self._wrap(handler))

    def _wrap(self, handler: Callable[..., Any]) -> Callable[[web.Request], Any]:
        async def wrapped(request: web.Request) -> web.StreamResponse:
            record = request[RECORD_KEY]
            result = await handler(request, record, **request.match_info)
            if isinstance(result, web.StreamResponse):
                return result
            if result is None:
                record.status = 204
                self._judge_answer(record, 204, None)
                return web.Response(status=204)
            status, body = result if isinstance(result, tuple) else (200, result)
            record.status = status
            record.response = body
            self._judge_answer(record, status, body)
            return self._json(status, body)

        return wrapped

    @staticmethod
    def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> web.Response:
        # discord.py only parses JSON when the content type is exactly "application/json"
        all_headers = {"Content-Type": "application/json"}
        all_headers.update(headers or {})
        return web.Response(status=status, body=json.dumps(body).encode(), headers=all_headers)

    @web.middleware
    async def _middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.path in ("/", "/resume") or request.path.startswith(("/attachments/", "/_fake/")):
            return await handler(request)
        resource = request.match_info.route.resource
        route = None
        if request.match_info.http_exception is None and resource is not None:
            route = resource.canonical.removeprefix(API_PREFIX)
        record = RecordedRequest(
            method=request.method,
            path=request.path.removeprefix(API_PREFIX),
            route=route,
            query=dict(request.query),
            json=None,
            files={},
            headers=dict(request.headers),
            clock=self.clock.now(),
        )
        self.requests.append(record)
        request[RECORD_KEY] = record
        try:
            try:
                await self._read_body(request, record)
                if route is None:
                    self.unknown_routes.append(record)
                    raise DiscordAPIError(404, 0, "404: Not Found")
                hold = _take_rule(self._holds, record)
                if hold is not None:
                    hold.held.append(record)
                    await hold.gate.wait()
                rule = self._take_rate_limit(record)
                if rule is not None:
                    return self._rate_limited_response(record, rule)
                needs_auth = not record.path.startswith(("/webhooks/", "/interactions/"))
                if needs_auth and not self._authorized(request.headers.get("Authorization"), record):
                    raise DiscordAPIError(401, 0, "401: Unauthorized")
                self._judge_request(record)
                failure = self._take_failure(record)
                if failure is not None and not failure.applied:
                    return self._server_error_response(record, failure.status)
                response = await handler(request)
                if failure is not None and 200 <= response.status < 300:
                    return self._server_error_response(record, failure.status)  # done, then the error
                return response
            except DiscordAPIError as exc:
                record.status = exc.status
                record.response = exc.body()
                if record.route is not None:
                    self.rejections.append(Rejection(record, exc.status, exc.code, exc.message, exc.errors))
                    self._judge_answer(record, exc.status, record.response)
                return self._json(exc.status, exc.body())
        except Exception as exc:  # a bug in the fake: make it loud
            log.exception("fake discord handler failed")
            self.internal_errors.append(f"{request.method} {request.path}: {exc!r}")
            record.status = 500
            return self._json(500, {"message": "500: Internal Server Error (fake)", "code": 0})
        finally:
            self._notify()

    # ------------------------------------------------------------------ Discord's description, the judge

    def _judge_request(self, record: RecordedRequest) -> None:
        """Checks the request against Discord's OpenAPI description (openapi/): a route or method it
        does not have answers 404 and is recorded as an unknown route; a body that breaks its schema
        answers 400 / 50035 Invalid Form Body with the errors tree naming the field, as Discord does."""
        if not self.judge_by_description:
            return
        record.request_judged = True
        try:
            violations = openapi.check_request(record.method, record.path, record.json)
        except openapi.UnknownRoute:
            record.route = None  # the fake's table had it; Discord's does not
            self.unknown_routes.append(record)
            raise DiscordAPIError(404, 0, "404: Not Found") from None
        if violations:
            self.description_violations += [f"{record.method} {record.path}: {v}" for v in violations]
            raise DiscordAPIError(400, 50035, "Invalid Form Body", openapi.errors_tree(violations))

    def _judge_answer(self, record: RecordedRequest, status: int, body: Any) -> None:
        """Checks one of the fake's own answers against the description's response schema for that
        status: an answer Discord would not give is a bug of the fake, recorded in
        :attr:`answer_violations` (which fails the test) and logged."""
        if not self.judge_by_description:
            return
        record.answer_judged = True
        try:
            violations = openapi.check_response(record.method, record.path, status, body)
        except openapi.UnknownRoute:
            return  # already answered 404 and recorded as an unknown route
        for violation in violations:
            problem = f"{record.method} {record.route or record.path} -> {status}: {violation}"
            log.warning("fake Discord answered what Discord would not: %s", problem)
            self.answer_violations.append(problem)

    async def _read_body(self, request: web.Request, record: RecordedRequest) -> None:
        ctype = request.headers.get("Content-Type", "")
        if ctype.startswith("multipart/"):
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, aiohttp.BodyPartReader):
                    continue
                if part.name == "payload_json":
                    record.json = json.loads(await part.text())
                else:
                    record.files[part.name or ""] = (part.filename, bytes(await part.read()))
            return
        raw = await request.read()
        if ctype.startswith("application/x-www-form-urlencoded"):  # the OAuth2 token exchange's form
            record.json = dict(urllib.parse.parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True))
            return
        if raw:
            try:
                record.json = json.loads(raw)
            except ValueError:
                record.request_judged = True  # no body to judge: Discord refuses it before its schema
                raise DiscordAPIError(400, 50109, "The request body contains invalid JSON.") from None

    def _rate_limited_response(self, record: RecordedRequest, rule: RateLimitRule) -> web.Response:
        retry_after = rule.retry_after
        if rule.retry_until is not None:
            retry_after = round(max(0.0, rule.retry_until - self.clock.now()), 3)
        # "code" is optional in the developer docs' rate limit response ("an error code for some
        # limits") but required by the OpenAPI description; 0 is Discord's "no specific code".
        body = {
            "message": "You are being rate limited.",
            "retry_after": retry_after,
            "global": rule.is_global,
            "code": 0,
        }
        headers = {
            "Via": "1.1 google",
            "Retry-After": str(max(1, math.ceil(retry_after))),
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset-After": f"{retry_after:.3f}",
            "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
            "X-RateLimit-Bucket": "fake-" + str(abs(hash((rule.method, rule.route))) % 10**8),
            "X-RateLimit-Scope": "global" if rule.is_global else rule.scope,
        }
        if rule.is_global:
            headers["X-RateLimit-Global"] = "true"
        record.status = 429
        record.response = body
        record.injected = True
        self._judge_answer(record, 429, body)
        self.rate_limited.append(record)
        return self._json(429, body, headers)
