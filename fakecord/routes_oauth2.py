"""OAuth2 for the app's Activity: the codes the Embedded App SDK's ``authorize`` gives the page, their
exchange for an access token (``POST /oauth2/token``), and ``GET /users/@me`` with that token.

Discord's rules, from its developer docs (topics/oauth2, activities/building-an-activity) and, where the
docs say nothing, from what Discord answers (quoted in its own issue tracker, discord/discord-api-docs):

* **Codes.** The SDK's ``authorize`` (the user accepts the app's scopes in Discord's client) gives the
  page a code for that user, that app and those scopes: :meth:`OAuth2Routes.authorize` here, or the
  fake's own route ``POST /_fake/oauth2/authorize`` (not Discord's: see below). A code is used once and
  lives :data:`CODE_LIFETIME` seconds on the fake's clock (100 s: "codes are one time use and expire 100
  seconds after creation", a Discord engineer in discord-api-docs#2526; RFC 6749 only caps them at 10
  minutes).
* **The exchange.** ``POST /oauth2/token`` takes only ``application/x-www-form-urlencoded`` (the docs:
  JSON "will return an error"), with ``grant_type=authorization_code``, ``code`` and the client's
  credentials, as form fields ``client_id`` and ``client_secret`` or HTTP Basic authentication (the
  docs allow both). An Activity's exchange sends no ``redirect_uri`` (the docs' Activity example; the
  SDK's authorize has none); one that is sent must be the one the code was made with, or, for a code
  made without one, one of the app's registered redirects (the docs' Activity guide registers the
  placeholder ``https://127.0.0.1``). ``refresh_token`` and ``client_credentials`` (a token for the app's
  owner) are served too. The answer is the docs' access token response (``token_type`` Bearer,
  ``expires_in`` 604800, ``refresh_token``, ``scope`` space-separated).
* **Refusals**, with OAuth2's body (``{"error": ..., "error_description": ...}``, not Discord's
  ``{"message", "code"}``), as Discord gives them: a body that is not a form, or no or an unknown
  ``grant_type``: 400 ``unsupported_grant_type``; a wrong client id or secret: 401 ``invalid_client``; no
  code: 400 ``invalid_request`` 'Missing "code" in request.'; an unknown, used, expired or other app's
  code: 400 ``invalid_grant`` 'Invalid "code" in request.'; a redirect that does not match: 400
  ``invalid_grant`` 'Invalid "redirect_uri" in request.' (Discord answered ``invalid_request`` for it in
  2022, when it also did so for a bad code; the fake follows RFC 6749 5.2 and today's code answer); a bad
  refresh token: 400 ``invalid_grant``. Each is a rejection of the fake (``take_rejections()``: code 0,
  ``message`` the OAuth2 error).
* **The token.** ``GET /users/@me`` with ``Authorization: Bearer <access token>`` (scope ``identify``)
  answers the token's user (its ``email`` with the ``email`` scope); a token unknown, expired (604800 s
  on the fake's clock) or without ``identify`` answers 401 ``401: Unauthorized`` (code 0), as a bad bot
  token does. A bearer token opens no other route of the fake.

``POST /_fake/oauth2/authorize`` is the fake's, outside Discord's API (no ``/api/v10``, not recorded
in :attr:`requests`): a browser test's page, where Discord's client would answer the SDK's
``authorize``, asks it for a real code for a chosen user. Its form or JSON body: ``user_id``,
``client_id``, ``scope`` (space-separated, or a list in JSON) and an optional ``redirect_uri``; it
answers ``{"code": ...}``, or 400 ``{"error", "error_description"}`` (``invalid_client``,
``invalid_scope``, ``invalid_request`` for an unknown user), with CORS headers so a page of another
origin may call it.
"""

from __future__ import annotations

import base64
import binascii
import functools
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from fakecord import openapi
from fakecord.activity_actions import ActivityActions
from fakecord.clock import to_int
from fakecord.errors import DiscordAPIError, FakeDiscordError
from fakecord.records import RecordedRequest
from fakecord.state import FakeUser

CODE_LIFETIME = 100.0  # seconds a code may be exchanged (see the module's docstring)
ACCESS_TOKEN_LIFETIME = 604800  # seconds: the docs' expires_in
DEFAULT_REDIRECT_URIS = ("https://127.0.0.1",)  # the placeholder the docs' Activity guide registers
FORM = "application/x-www-form-urlencoded"
CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
}


@functools.cache
def known_scopes() -> frozenset[str]:
    """The OAuth2 scopes Discord's description lists for the authorization code flow."""
    flows = openapi.document()["components"]["securitySchemes"]["OAuth2"]["flows"]
    return frozenset(flows["authorizationCode"]["scopes"])


class OAuth2Error(DiscordAPIError):
    """An OAuth2 refusal: OAuth2's body (``error``, ``error_description``) instead of Discord's."""

    def __init__(self, status: int, error: str, description: str | None = None) -> None:
        super().__init__(status, 0, error)
        self.description = description

    def body(self) -> dict[str, Any]:
        body = {"error": self.message}
        if self.description is not None:
            body["error_description"] = self.description
        return body


@dataclass(eq=False)
class OAuth2Code:
    code: str
    user: FakeUser
    scopes: tuple[str, ...]
    redirect_uri: str | None
    issued_at: float
    used: bool = False


@dataclass(eq=False)
class OAuth2Token:
    access_token: str
    refresh_token: str | None
    user: FakeUser
    scopes: tuple[str, ...]
    issued_at: float

    def answer(self) -> dict[str, Any]:
        """The docs' access token response."""
        body: dict[str, Any] = {
            "access_token": self.access_token,
            "token_type": "Bearer",
            "expires_in": ACCESS_TOKEN_LIFETIME,
            "scope": " ".join(self.scopes),
        }
        if self.refresh_token is not None:
            body["refresh_token"] = self.refresh_token
        return body


def _invalid_code() -> OAuth2Error:
    return OAuth2Error(400, "invalid_grant", 'Invalid "code" in request.')


class OAuth2Routes(ActivityActions):
    """Codes, their exchange for tokens, and the token's ``/users/@me``."""

    def __init__(
        self,
        *,
        client_secret: str = "fake-client-secret",
        redirect_uris: Iterable[str] = DEFAULT_REDIRECT_URIS,
        **kwargs: Any,
    ) -> None:
        """``client_secret``: the app's client secret (the portal's OAuth2 page); ``redirect_uris``: its
        registered redirects."""
        super().__init__(**kwargs)
        self.client_secret = client_secret
        self.redirect_uris = tuple(redirect_uris)
        self.oauth2_codes: dict[str, OAuth2Code] = {}
        self.oauth2_tokens: dict[str, OAuth2Token] = {}  # by access token
        self._refresh_tokens: dict[str, OAuth2Token] = {}

    # ------------------------------------------------------------------ codes

    def authorize(
        self,
        user: FakeUser,
        client_id: int | str | None = None,
        scopes: Iterable[str] = ("identify",),
        *,
        redirect_uri: str | None = None,
    ) -> str:
        """``user`` accepts the app's ``scopes`` (the SDK's ``authorize`` in Discord's client): a new
        code for the page to exchange. ``client_id`` defaults to the app's own. Raises
        :class:`FakeDiscordError` for another app, an unknown scope, a bot, or a redirect the app has
        not registered (Discord's client would not give a code)."""
        problem = self._authorize_problem(user, client_id, scopes, redirect_uri)
        if problem is not None:
            raise FakeDiscordError(f"no code: {problem[1]}")
        code = OAuth2Code(secrets.token_urlsafe(22), user, tuple(scopes), redirect_uri, self.clock.now())
        self.oauth2_codes[code.code] = code
        self._notify()
        return code.code

    def _authorize_problem(
        self, user: FakeUser | None, client_id: Any, scopes: Iterable[str], redirect_uri: str | None
    ) -> tuple[str, str] | None:
        if client_id is not None and to_int(client_id) != self.application_id:
            return "invalid_client", f"unknown application {client_id}"
        unknown = sorted(set(scopes) - known_scopes())
        if unknown or not list(scopes):
            return "invalid_scope", f"unknown or no scopes {unknown}"
        if user is None or user.bot:
            return "invalid_request", "only a known human user can authorize an app"
        if redirect_uri is not None and redirect_uri not in self.redirect_uris:
            return "invalid_request", f"redirect {redirect_uri!r} is not registered"
        return None

    async def _h_fake_authorize(self, request: web.Request) -> web.Response:
        """``POST /_fake/oauth2/authorize`` (the module's docstring)."""
        if request.method == "OPTIONS":
            return web.Response(status=204, headers=CORS)
        if request.content_type == "application/json":
            try:
                fields = dict(await request.json())
            except (ValueError, TypeError):
                fields = {}
        else:
            fields = dict(await request.post())
        scope = fields.get("scope") or "identify"
        scopes = [str(s) for s in scope] if isinstance(scope, list) else str(scope).split()
        user = self.users.get(to_int(fields.get("user_id")))
        redirect = fields.get("redirect_uri")
        problem = self._authorize_problem(user, fields.get("client_id"), scopes, redirect)
        if problem is not None:
            body = {"error": problem[0], "error_description": problem[1]}
            return web.json_response(body, status=400, headers=CORS)
        assert user is not None
        code = self.authorize(user, fields.get("client_id"), scopes, redirect_uri=redirect)
        return web.json_response({"code": code}, headers=CORS)

    # ------------------------------------------------------------------ who may call a route

    def _authorized(self, header: str | None, record: RecordedRequest) -> bool:
        """Whether the request's ``Authorization`` opens its route: the bot token everywhere; no header
        needed for the token exchange (its client authentication is its own); a live bearer token with
        ``identify`` for ``GET /users/@me``."""
        if header == f"Bot {self.token}":
            return True
        if record.route == "/oauth2/token":
            return True
        token = self._bearer(header)
        return (
            token is not None
            and (record.method, record.path) == ("GET", "/users/@me")
            and "identify" in token.scopes
        )

    def _bearer(self, header: str | None) -> OAuth2Token | None:
        if not header or not header.startswith("Bearer "):
            return None
        token = self.oauth2_tokens.get(header.removeprefix("Bearer "))
        if token is None or self.clock.now() - token.issued_at > ACCESS_TOKEN_LIFETIME:
            return None
        return token

    async def _h_get_user(self, request: web.Request, record: RecordedRequest, user_id: str) -> Any:
        token = self._bearer(request.headers.get("Authorization"))
        if token is None:
            return await super()._h_get_user(request, record, user_id)
        data = token.user.payload()
        data.update(mfa_enabled=False, locale=token.user.locale)
        if "email" in token.scopes:
            data.update(email=f"{token.user.username}@example.invalid", verified=True)
        return data

    # ------------------------------------------------------------------ the exchange

    def _client(self, request: web.Request, fields: dict[str, Any]) -> None:
        """The client's authentication: HTTP Basic, else the form's ``client_id`` and ``client_secret``."""
        client_id, secret = fields.get("client_id"), fields.get("client_secret")
        header = request.headers.get("Authorization", "")
        if header.startswith("Basic "):
            try:
                client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
            except (binascii.Error, UnicodeDecodeError):
                client_id = secret = None
        if to_int(client_id) != self.application_id or secret != self.client_secret:
            raise OAuth2Error(401, "invalid_client")

    def _issue(self, user: FakeUser, scopes: tuple[str, ...], *, refresh: bool = True) -> OAuth2Token:
        refresh_token = secrets.token_urlsafe(22) if refresh else None
        token = OAuth2Token(secrets.token_urlsafe(22), refresh_token, user, scopes, self.clock.now())
        self.oauth2_tokens[token.access_token] = token
        if refresh_token is not None:
            self._refresh_tokens[refresh_token] = token
        return token

    def _exchange_code(self, fields: dict[str, Any]) -> OAuth2Token:
        value = fields.get("code")
        if not value:
            raise OAuth2Error(400, "invalid_request", 'Missing "code" in request.')
        code = self.oauth2_codes.get(str(value))
        if code is None or code.used or self.clock.now() - code.issued_at > CODE_LIFETIME:
            raise _invalid_code()
        redirect = fields.get("redirect_uri")
        expected = (code.redirect_uri,) if code.redirect_uri is not None else (None, *self.redirect_uris)
        if redirect not in expected:
            raise OAuth2Error(400, "invalid_grant", 'Invalid "redirect_uri" in request.')
        code.used = True
        return self._issue(code.user, code.scopes)

    async def _h_token(self, request: web.Request, record: RecordedRequest) -> Any:
        fields = record.json if isinstance(record.json, dict) else {}
        grant = fields.get("grant_type") if request.content_type == FORM else None
        if grant not in ("authorization_code", "refresh_token", "client_credentials"):
            raise OAuth2Error(400, "unsupported_grant_type")
        self._client(request, fields)
        if grant == "authorization_code":
            token = self._exchange_code(fields)
        elif grant == "refresh_token":
            old = self._refresh_tokens.pop(str(fields.get("refresh_token")), None)
            if old is None:
                raise OAuth2Error(400, "invalid_grant")
            self.oauth2_tokens.pop(old.access_token, None)
            token = self._issue(old.user, old.scopes)
        else:
            scopes = tuple(str(fields.get("scope") or "identify").split())
            if set(scopes) - known_scopes():
                raise OAuth2Error(400, "invalid_scope")
            token = self._issue(self.owner, scopes, refresh=False)
        self._notify()
        return token.answer()
