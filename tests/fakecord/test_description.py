"""The fake Discord judged by Discord's own OpenAPI description, through the real discord.py client: a
planted violation of each kind is refused the way Discord refuses it, recorded, and fails the test that
caused it (the check can fail); what Discord accepts passes."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from fakecord import FakeDiscord, FakeUser


@pytest.fixture
async def client(connect_bot: Any) -> discord.Client:
    connected: discord.Client = await connect_bot(discord.Client(intents=discord.Intents.default()))
    return connected


def turn_limit_command(french: str) -> dict[str, Any]:
    return {
        "name": "skyjo",
        "description": "Play Skyjo",
        "options": [
            {
                "type": 1,
                "name": "new",
                "description": "Open a table",
                "options": [
                    {
                        "type": 4,
                        "name": "turn_limit",
                        "description": "Time per turn",
                        "description_localizations": {"fr": french},
                    }
                ],
            }
        ],
    }


async def test_an_over_long_localization_fails_the_whole_sync(fake_discord: FakeDiscord, client: Any) -> None:
    app_id = fake_discord.application_id
    with pytest.raises(discord.HTTPException) as info:
        await client.http.bulk_upsert_global_commands(app_id, [turn_limit_command("x" * 101)])
    assert info.value.status == 400 and info.value.code == 50035
    assert fake_discord.global_commands == {}  # nothing registered: Discord refuses the whole overwrite
    with pytest.raises(AssertionError, match="Invalid Form Body"):
        fake_discord.assert_clean()  # the test that caused it fails unless it takes the rejection
    [rejection] = fake_discord.take_rejections(50035)
    assert rejection.errors is not None
    node = rejection.errors["0"]["options"]["0"]["options"]["0"]["description_localizations"]["fr"]
    assert node["_errors"][0]["code"] == "BASE_TYPE_BAD_LENGTH"
    assert any("description_localizations.fr" in v for v in fake_discord.description_violations)

    await client.http.bulk_upsert_global_commands(app_id, [turn_limit_command("x" * 100)])
    assert set(fake_discord.global_commands) == {"skyjo"}
    fake_discord.assert_clean()


async def test_a_sixth_action_row_and_a_sixth_button_are_refused(
    fake_discord: FakeDiscord, client: Any
) -> None:
    channel_id = fake_discord.channel("general").id

    def rows(count: int, per_row: int) -> list[dict[str, Any]]:
        return [
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": 1, "label": "b", "custom_id": f"r{r}b{b}"} for b in range(per_row)
                ],
            }
            for r in range(count)
        ]

    route = discord.http.Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id)
    await client.http.request(route, json={"content": "ok", "components": rows(5, 5)})
    for components, where in ((rows(6, 1), ["components"]), (rows(1, 6), ["components", "0", "components"])):
        with pytest.raises(discord.HTTPException) as info:
            await client.http.request(route, json={"content": "bad", "components": components})
        assert info.value.code == 50035
        [rejection] = fake_discord.take_rejections(50035)
        node: Any = rejection.errors
        for part in where:
            node = node[part]
        assert node["_errors"], rejection.errors
    assert len(fake_discord.channel_messages(fake_discord.channel("general"))) == 1


async def test_a_route_discord_does_not_have_is_unknown(fake_discord: FakeDiscord, client: Any) -> None:
    someone = fake_discord.user("bob").id
    # the fake's own route table would take any user id; Discord's description has only @me
    route = discord.http.Route("POST", "/users/{user_id}/channels", user_id=someone)
    with pytest.raises(discord.NotFound):
        await client.http.request(route, json={"recipient_id": str(someone)})
    assert [r.key for r in fake_discord.unknown_routes] == [f"POST /users/{someone}/channels"]
    with pytest.raises(AssertionError, match="unknown route"):
        fake_discord.assert_clean()
    fake_discord.unknown_routes.clear()
    dm = await client.http.start_private_message(someone)  # POST /users/@me/channels
    assert int(dm["recipients"][0]["id"]) == someone
    fake_discord.assert_clean()


async def test_answers_that_break_the_description_fail_the_test(
    fake_discord: FakeDiscord, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = FakeUser.payload

    def without_username(self: FakeUser) -> dict[str, Any]:
        answer = real(self)
        answer.pop("username")
        return answer

    monkeypatch.setattr(FakeUser, "payload", without_username)
    bob = fake_discord.user("bob")
    await client.http.request(discord.http.Route("GET", "/users/{user_id}", user_id=bob.id))
    [problem] = fake_discord.answer_violations
    assert problem.startswith("GET /users/{user_id} -> 200: username: BASE_TYPE_REQUIRED"), problem
    with pytest.raises(AssertionError, match="answered what Discord would not"):
        fake_discord.assert_clean()
    fake_discord.answer_violations.clear()


async def test_every_request_and_answer_goes_before_the_judge(fake_discord: FakeDiscord, client: Any) -> None:
    await client.http.request(discord.http.Route("GET", "/gateway/bot"))
    fake_discord.rate_limit("GET", "/gateway/bot", 1)
    await client.http.request(discord.http.Route("GET", "/gateway/bot"))  # a 429, then the retry
    judged = [r for r in fake_discord.requests if r.path == "/gateway/bot"]
    assert [(r.status, r.injected) for r in judged] == [(200, False), (429, True), (200, False)]
    assert all(r.request_judged and r.answer_judged for r in judged if not r.injected)
    fake_discord.assert_clean()
    judged[-1].answer_judged = False  # as if a route had answered around the judge
    with pytest.raises(AssertionError, match="not judged by Discord's description: GET /gateway/bot"):
        fake_discord.assert_clean()
    judged[-1].answer_judged = True
