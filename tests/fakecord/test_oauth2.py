"""The fake's OAuth2 for an Activity (fakecord/routes_oauth2.py): a code made for a user (as the SDK's
``authorize`` gives it, or through the fake's own route for a browser), exchanged at ``/oauth2/token``
for a token that reads ``/users/@me``; each refusal as Discord gives it (status and OAuth2 body), each
recorded as a rejection, and every answer judged by the description (with the route the docs describe
and the description lacks)."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from fakecord import FakeDiscord
from fakecord.routes_oauth2 import ACCESS_TOKEN_LIFETIME, CODE_LIFETIME, OAuth2Token


class OAuth:
    """Raw HTTP as an Activity's backend sends it: the token exchange's form, a bearer token."""

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession) -> None:
        self.fake = fake
        self.session = session

    def form(self, code: str | None, **extra: str) -> dict[str, str]:
        fields = {
            "client_id": str(self.fake.application_id),
            "client_secret": self.fake.client_secret,
            "grant_type": "authorization_code",
        }
        if code is not None:
            fields["code"] = code
        return {**fields, **extra}

    async def token(
        self, fields: dict[str, str], *, as_json: bool = False, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        url = self.fake.api_base + "/oauth2/token"
        if as_json:
            request = self.session.post(url, json=fields, headers=headers)
        else:
            request = self.session.post(url, data=fields, headers=headers)  # form-encoded
        async with request as response:
            return response.status, await response.json()

    async def me(self, access_token: str) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {access_token}"}
        async with self.session.get(self.fake.api_base + "/users/@me", headers=headers) as response:
            return response.status, await response.json()

    async def granted(self, code: str, **extra: str) -> dict[str, Any]:
        status, body = await self.token(self.form(code, **extra))
        assert status == 200, body
        return body  # type: ignore[no-any-return]

    async def refused(self, status: int, error: str, fields: dict[str, str], **kwargs: Any) -> dict[str, Any]:
        got, body = await self.token(fields, **kwargs)
        assert (got, body["error"]) == (status, error), body
        [rejection] = self.fake.take_rejections()
        assert (rejection.status, rejection.message) == (status, error)
        return body  # type: ignore[no-any-return]


@pytest.fixture
async def oauth(fake_discord: FakeDiscord) -> AsyncIterator[OAuth]:
    async with aiohttp.ClientSession() as session:
        yield OAuth(fake_discord, session)
    assert fake_discord.answer_violations == []


async def test_a_code_is_exchanged_for_a_token_that_reads_its_user(
    fake_discord: FakeDiscord, oauth: OAuth
) -> None:
    carol = fake_discord.user("carol")
    code = fake_discord.authorize(carol, fake_discord.application_id, ["identify", "guilds"])
    token = await oauth.granted(code)
    assert token["token_type"] == "Bearer" and token["expires_in"] == ACCESS_TOKEN_LIFETIME
    assert token["scope"] == "identify guilds" and token["refresh_token"]
    status, me = await oauth.me(token["access_token"])
    assert status == 200 and (me["id"], me["username"], me["locale"]) == (str(carol.id), "carol", "fr")
    assert "email" not in me  # no email scope
    # HTTP Basic instead of the form's credentials, and the registered redirect sent along: accepted too
    basic = base64.b64encode(f"{fake_discord.application_id}:{fake_discord.client_secret}".encode()).decode()
    code = fake_discord.authorize(carol, scopes=["identify", "email"])
    status, token = await oauth.token(
        {"grant_type": "authorization_code", "code": code, "redirect_uri": "https://127.0.0.1"},
        headers={"Authorization": f"Basic {basic}"},
    )
    assert status == 200
    assert (await oauth.me(token["access_token"]))[1]["email"] == "carol@example.invalid"
    requests = fake_discord.requests_to("POST", "/oauth2/token") + fake_discord.requests_to(
        "GET", "/users/@me"
    )
    assert requests and all(r.request_judged and r.answer_judged for r in requests)


async def test_a_code_is_used_once(fake_discord: FakeDiscord, oauth: OAuth) -> None:
    code = fake_discord.authorize(fake_discord.user("alice"))
    await oauth.granted(code)
    body = await oauth.refused(400, "invalid_grant", oauth.form(code))
    assert body == {"error": "invalid_grant", "error_description": 'Invalid "code" in request.'}


async def test_a_code_expires_on_the_fakes_clock(fake_discord: FakeDiscord, oauth: OAuth) -> None:
    alice = fake_discord.user("alice")
    fresh, stale = fake_discord.authorize(alice), fake_discord.authorize(alice)
    fake_discord.clock.advance(CODE_LIFETIME - 1)
    await oauth.granted(fresh)
    fake_discord.clock.advance(2)
    await oauth.refused(400, "invalid_grant", oauth.form(stale))


async def test_bad_codes_and_requests_are_refused_as_discord_refuses_them(
    fake_discord: FakeDiscord, oauth: OAuth
) -> None:
    code = fake_discord.authorize(fake_discord.user("bob"))
    body = await oauth.refused(400, "invalid_grant", oauth.form("not-a-code"))
    assert body["error_description"] == 'Invalid "code" in request.'
    body = await oauth.refused(400, "invalid_request", oauth.form(None))
    assert body["error_description"] == 'Missing "code" in request.'
    body = await oauth.refused(
        400, "invalid_grant", oauth.form(code, redirect_uri="https://elsewhere.example")
    )
    assert body["error_description"] == 'Invalid "redirect_uri" in request.'
    # JSON instead of a form, or no grant type: Discord's unsupported_grant_type
    assert await oauth.refused(400, "unsupported_grant_type", oauth.form(code), as_json=True) == {
        "error": "unsupported_grant_type"
    }
    fields = oauth.form(code)
    del fields["grant_type"]
    await oauth.refused(400, "unsupported_grant_type", fields)
    # the client's credentials: 401 invalid_client
    assert await oauth.refused(401, "invalid_client", oauth.form(code, client_secret="wrong")) == {
        "error": "invalid_client"
    }
    await oauth.refused(401, "invalid_client", oauth.form(code, client_id="1"))
    await oauth.granted(code)  # none of the refusals used the code


async def test_a_bearer_token_reads_only_its_user_while_it_lives(
    fake_discord: FakeDiscord, oauth: OAuth
) -> None:
    alice = fake_discord.user("alice")
    token = await oauth.granted(fake_discord.authorize(alice))
    unauthorized = {"message": "401: Unauthorized", "code": 0}
    assert await oauth.me("not-a-token") == (401, unauthorized)
    guilds_only = await oauth.granted(fake_discord.authorize(alice, scopes=["guilds"]))
    assert await oauth.me(guilds_only["access_token"]) == (401, unauthorized)
    headers = {"Authorization": f"Bearer {token['access_token']}"}
    general = fake_discord.channel("general")
    async with oauth.session.get(
        f"{fake_discord.api_base}/channels/{general.id}", headers=headers
    ) as response:
        assert response.status == 401  # a bearer token opens no bot route
    fake_discord.clock.advance(ACCESS_TOKEN_LIFETIME + 1)
    assert await oauth.me(token["access_token"]) == (401, unauthorized)
    assert [r.status for r in fake_discord.take_rejections()] == [401, 401, 401, 401]


async def test_a_refresh_token_replaces_the_token_and_client_credentials_give_the_owners(
    fake_discord: FakeDiscord, oauth: OAuth
) -> None:
    bob = fake_discord.user("bob")
    first = await oauth.granted(fake_discord.authorize(bob))
    status, second = await oauth.token(
        {**oauth.form(None, grant_type="refresh_token"), "refresh_token": first["refresh_token"]}
    )
    assert status == 200 and (await oauth.me(second["access_token"]))[1]["id"] == str(bob.id)
    assert (await oauth.me(first["access_token"]))[0] == 401
    fake_discord.take_rejections()
    again = {**oauth.form(None, grant_type="refresh_token"), "refresh_token": first["refresh_token"]}
    await oauth.refused(400, "invalid_grant", again)
    status, owners = await oauth.token(
        {**oauth.form(None, grant_type="client_credentials"), "scope": "identify"}
    )
    assert status == 200 and "refresh_token" not in owners
    assert (await oauth.me(owners["access_token"]))[1]["id"] == str(fake_discord.owner.id)


async def test_a_browser_gets_a_real_code_from_the_fakes_own_route(
    fake_discord: FakeDiscord, oauth: OAuth
) -> None:
    """``POST /_fake/oauth2/authorize``: what a test page calls where Discord's client would answer the
    SDK's ``authorize``; CORS open, outside Discord's API (not recorded)."""
    alice = fake_discord.user("alice")
    url = f"http://127.0.0.1:{fake_discord.port}/_fake/oauth2/authorize"
    fields = {
        "user_id": str(alice.id),
        "client_id": str(fake_discord.application_id),
        "scope": "identify guilds",
    }
    async with oauth.session.post(url, data=fields) as response:
        assert response.status == 200 and response.headers["Access-Control-Allow-Origin"] == "*"
        code = (await response.json())["code"]
    token = await oauth.granted(code)
    assert token["scope"] == "identify guilds"
    assert (await oauth.me(token["access_token"]))[1]["id"] == str(alice.id)
    as_json = {**fields, "scope": ["identify"]}
    async with oauth.session.post(
        url, data=json.dumps(as_json), headers={"Content-Type": "application/json"}
    ) as r:
        assert r.status == 200 and (await r.json())["code"]
    for wrong, error in (
        ({"client_id": "1"}, "invalid_client"),
        ({"scope": "identify launch.everything"}, "invalid_scope"),
        ({"user_id": str(fake_discord.bot_user.id)}, "invalid_request"),
    ):
        async with oauth.session.post(url, data={**fields, **wrong}) as response:
            assert (response.status, (await response.json())["error"]) == (400, error)
    async with oauth.session.options(url) as response:
        assert response.status == 204 and "POST" in response.headers["Access-Control-Allow-Methods"]
    assert not [r for r in fake_discord.requests if "_fake" in r.path]


async def test_the_token_routes_answers_are_judged(
    fake_discord: FakeDiscord, oauth: OAuth, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exchange's answer is judged by the schema written from the docs: a planted answer without
    ``token_type`` is caught."""
    real = OAuth2Token.answer

    def careless(self: OAuth2Token) -> dict[str, Any]:
        body = real(self)
        del body["token_type"]
        return body

    monkeypatch.setattr(OAuth2Token, "answer", careless)
    await oauth.granted(fake_discord.authorize(fake_discord.user("alice")))
    assert fake_discord.answer_violations == [
        "POST /oauth2/token -> 200: token_type: BASE_TYPE_REQUIRED This field is required"
    ]
    fake_discord.answer_violations.clear()
