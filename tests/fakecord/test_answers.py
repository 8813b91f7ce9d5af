"""Every answer of the fake Discord is one Discord would give (issue 36, item 3): each route of the fake's
route table is walked to its success answer and its typical errors (404 unknown message or channel, 403
missing access, 400 / 50035, 40060 already acknowledged, 10062 unknown interaction, 401 / 50027, 429),
every interaction callback type (4, 5, 6, 7, 8, 9) and the webhook follow-ups, over raw HTTP against the
fake, and Discord's own description (``fakecord/openapi``) finds nothing to say about any
answer. A planted wrong answer shows that it would."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from PIL import Image

from fakecord import FakeDiscord, FakeInteraction, FakeMessage, openapi
from fakecord.constants import API_PREFIX, FLAG_COMPONENTS_V2
from fakecord.state import FakeUser


class Api:
    """Raw HTTP against the fake, as the bot's library would send it; every answer is (status, body)."""

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession) -> None:
        self.fake = fake
        self.session = session

    async def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        files: dict[str, tuple[str, bytes]] | None = None,
        token: str | None = None,
    ) -> tuple[int, Any]:
        headers = {"Authorization": f"Bot {token or self.fake.token}"}
        data: Any = None
        if files:
            form = aiohttp.FormData()
            form.add_field("payload_json", json.dumps(body), content_type="application/json")
            for name, (filename, content) in files.items():
                form.add_field(name, content, filename=filename, content_type="application/octet-stream")
            data = form
        elif body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        url = self.fake.api_base + path
        async with self.session.request(method, url, data=data, headers=headers) as response:
            text = await response.text()
            return response.status, json.loads(text) if text else None

    async def ok(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        status, answer = await self.call(method, path, body, **kwargs)
        assert 200 <= status < 300, (method, path, status, answer)
        return answer

    async def error(
        self, status: int, code: int, method: str, path: str, body: Any = None, **kwargs: Any
    ) -> Any:
        got, answer = await self.call(method, path, body, **kwargs)
        assert (got, answer.get("code")) == (status, code), (method, path, got, answer)
        [rejection] = self.fake.take_rejections(code)
        assert rejection.status == status
        return answer


@pytest.fixture
async def client(connect_bot: Any) -> discord.Client:
    # a client that answers nothing: the test answers every interaction itself, over raw HTTP
    connected: discord.Client = await connect_bot(discord.Client(intents=discord.Intents.default()))
    return connected


@pytest.fixture
async def api(fake_discord: FakeDiscord, client: discord.Client) -> AsyncIterator[Api]:
    async with aiohttp.ClientSession() as session:
        yield Api(fake_discord, session)


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (10, 120, 200)).save(out, format="PNG")
    return out.getvalue()


def buttons(*custom_ids: str) -> list[dict[str, Any]]:
    return [
        {
            "type": 1,
            "components": [
                {"type": 2, "style": 1, "label": cid, "custom_id": cid, "emoji": {"name": "🃏", "id": None}}
                for cid in custom_ids
            ],
        }
    ]


COMMAND = {
    "name": "walk",
    "description": "Walk every answer",
    "options": [{"type": 3, "name": "what", "description": "What to walk", "autocomplete": True}],
    "contexts": None,
    "integration_types": None,
    "default_member_permissions": None,
}


def assert_all_answers_described(fake: FakeDiscord) -> None:
    assert fake.answer_violations == [], "\n".join(fake.answer_violations)


def route_table(fake: FakeDiscord) -> set[tuple[str, str]]:
    """(method, template) of every REST route the fake serves."""
    runner: Any = fake._runner
    found = set()
    for route in runner.app.router.routes():
        path = route.resource.canonical
        if path.startswith(API_PREFIX) and route.method != "HEAD":
            found.add((route.method, path.removeprefix(API_PREFIX)))
    return found


# ---------------------------------------------------------------------------------- the walk


async def test_every_route_answers_what_discord_would(fake_discord: FakeDiscord, api: Api) -> None:
    fake = fake_discord
    app_id = fake.application_id
    general, games = fake.channel("general"), fake.channel("games")
    guild, bob = fake.guild, fake.user("bob")

    # gateway, users, application
    await api.ok("GET", "/gateway")
    await api.ok("GET", "/gateway/bot")
    me = await api.ok("GET", "/users/@me")
    assert me["bot"] is True and me["primary_guild"] is None and me["locale"] == "en-US"
    user = await api.ok("GET", f"/users/{bob.id}")
    assert "bot" not in user and user["collectibles"] is None and user["avatar_decoration_data"] is None
    await api.error(404, 10013, "GET", "/users/1")
    dm = await api.ok("POST", "/users/@me/channels", {"recipient_id": str(bob.id)})
    assert dm["type"] == 1 and dm["recipients"][0]["id"] == str(bob.id)
    await api.error(400, 50007, "POST", "/users/@me/channels", {"recipient_id": str(fake.bot_user.id)})
    for path in ("/oauth2/applications/@me", "/applications/@me"):
        app = await api.ok("GET", path)
        assert app["type"] is None and app["owner"]["id"] == str(fake.owner.id)
    await api.error(401, 0, "GET", "/applications/@me", token="not-the-token")

    # commands, global and guild: Discord fills what the bot left null
    for base in (f"/applications/{app_id}/commands", f"/applications/{app_id}/guilds/{guild.id}/commands"):
        [synced] = await api.ok("PUT", base, [COMMAND])
        assert synced["integration_types"] == [0] and synced["default_member_permissions"] is None
        assert synced["contexts"] == ([0, 1, 2] if "guilds" not in base else None)
        assert await api.ok("GET", base) == [synced]
        assert (await api.ok("GET", f"{base}/{synced['id']}"))["id"] == synced["id"]
        extra = await api.ok("POST", base, {**COMMAND, "name": "extra", "default_member_permissions": 32})
        assert extra["default_member_permissions"] == "32"
        await api.ok("DELETE", f"{base}/{extra['id']}")
        await api.error(404, 10063, "GET", f"{base}/{extra['id']}")
        await api.error(404, 10063, "DELETE", f"{base}/{extra['id']}")
        await api.error(400, 50035, "PUT", base, [{**COMMAND, "name": "x" * 33}])
        await api.error(403, 50001, "GET", base.replace(str(app_id), "1"))

    # application emojis (tests/fakecord/test_emojis.py walks their rules)
    emojis = f"/applications/{app_id}/emojis"
    face = "data:image/png;base64,iVBORw0KGgo="
    made = await api.ok("POST", emojis, {"name": "walk_emoji", "image": face})
    assert (await api.ok("GET", emojis))["items"] == [made]
    assert (await api.ok("GET", f"{emojis}/{made['id']}")) == made
    assert (await api.ok("PATCH", f"{emojis}/{made['id']}", {"name": "walked"}))["name"] == "walked"
    await api.error(400, 50035, "POST", emojis, {"name": "walked", "image": face})
    await api.ok("DELETE", f"{emojis}/{made['id']}")
    await api.error(404, 10014, "GET", f"{emojis}/{made['id']}")

    # channels, guilds, members
    assert (await api.ok("GET", f"/channels/{general.id}"))["guild_id"] == str(guild.id)
    assert (await api.ok("GET", f"/channels/{dm['id']}"))["recipients"][0]["id"] == str(bob.id)
    await api.error(404, 10003, "GET", "/channels/1")
    await api.ok("POST", f"/channels/{general.id}/typing")
    full = await api.ok("GET", f"/guilds/{guild.id}?with_counts=true")
    assert full["approximate_member_count"] == len(guild.members) and "members" not in full
    await api.error(404, 10004, "GET", "/guilds/1")
    member = await api.ok("GET", f"/guilds/{guild.id}/members/{bob.id}")
    assert member["user"]["id"] == str(bob.id)
    await api.error(404, 10007, "GET", f"/guilds/{guild.id}/members/1")
    await api.error(404, 10004, "GET", f"/guilds/1/members/{bob.id}")

    # channel messages: an embed with an attached picture, a components V2 layout, errors
    picture = png(6, 4)
    embed = {
        "title": "Table",
        "fields": [{"name": "a", "value": "b"}],
        "image": {"url": "attachment://t.png"},
    }
    posted = await api.ok(
        "POST",
        f"/channels/{general.id}/messages",
        {"content": "hi", "embeds": [embed], "components": buttons("a", "b"), "attachments": [{"id": 0}]},
        files={"files[0]": ("t.png", picture)},
    )
    [attachment] = posted["attachments"]
    assert (attachment["width"], attachment["height"], attachment["content_type"]) == (6, 4, "image/png")
    [stored_embed] = posted["embeds"]
    assert stored_embed["type"] == "rich" and stored_embed["fields"][0]["inline"] is False
    assert stored_embed["image"]["url"] == attachment["url"] and stored_embed["image"]["width"] == 6
    [row] = posted["components"]
    assert [row["id"], *(b["id"] for b in row["components"])] == [1, 2, 3]
    assert row["components"][0]["emoji"] == {"name": "🃏"}  # a Unicode emoji has no id
    layout = [
        {
            "type": 17,
            "components": [
                {"type": 10, "content": "# Table", "id": 2},
                {"type": 14},
                {
                    "type": 9,
                    "components": [{"type": 10, "content": "seat"}],
                    "accessory": {"type": 11, "media": {"url": "attachment://t.png"}},
                },
                {"type": 12, "items": [{"media": {"url": "https://example.com/x.png"}}]},
                {"type": 13, "file": {"url": "attachment://t.png"}},
                {
                    "type": 1,
                    "components": [
                        {"type": 3, "custom_id": "pick", "options": [{"label": "1", "value": "1"}]}
                    ],
                },
            ],
        }
    ]
    v2 = await api.ok(
        "POST",
        f"/channels/{games.id}/messages",
        {"flags": FLAG_COMPONENTS_V2, "components": layout, "attachments": [{"id": 0}]},
        files={"files[0]": ("t.png", picture)},
    )
    [container] = v2["components"]
    ids = [container["id"]] + [c["id"] for c in container["components"]]
    section, gallery, file = container["components"][2:5]
    # numbered in tree order from 1, the bot's own id 2 skipped by the numbering
    assert ids == [1, 2, 3, 4, 7, 8, 9]
    assert [section["components"][0]["id"], section["accessory"]["id"]] == [5, 6]
    assert container["components"][5]["components"][0]["id"] == 10
    assert container["accent_color"] is None and container["spoiler"] is False
    assert container["components"][1] == {"type": 14, "id": 3, "spacing": 1, "divider": True}
    media = section["accessory"]["media"]
    assert media["attachment_id"] == v2["attachments"][0]["id"]
    assert (media["width"], media["height"], media["url"]) == (6, 4, v2["attachments"][0]["url"])
    assert gallery["items"][0]["description"] is None and gallery["items"][0]["spoiler"] is False
    assert (file["name"], file["size"]) == ("t.png", len(picture))
    select = container["components"][5]["components"][0]
    assert (select["min_values"], select["max_values"]) == (1, 1)

    channel_messages = f"/channels/{general.id}/messages"
    assert [m["id"] for m in await api.ok("GET", f"{channel_messages}?limit=5")] == [posted["id"]]
    await api.ok("GET", f"{channel_messages}/{posted['id']}")
    edited = await api.ok("PATCH", f"{channel_messages}/{posted['id']}", {"components": buttons("c")})
    assert edited["components"][0]["components"][0]["id"] == 2 and edited["embeds"] == posted["embeds"]
    await api.error(400, 50035, "POST", channel_messages, {"content": "x" * 2001})
    await api.error(400, 50006, "POST", channel_messages, {"content": ""})
    bob.dms_closed = True
    await api.error(403, 50007, "POST", f"/channels/{dm['id']}/messages", {"content": "psst"})
    bob.dms_closed = False
    await api.ok("POST", f"/channels/{dm['id']}/messages", {"content": "psst"})
    await api.error(
        400,
        50006,
        "PATCH",
        f"{channel_messages}/{posted['id']}",
        {"content": "", "embeds": [], "components": [], "attachments": []},
    )
    await api.error(404, 10008, "GET", f"{channel_messages}/1")
    await api.error(404, 10008, "PATCH", f"{channel_messages}/1", {"content": "x"})
    await api.error(404, 10003, "POST", "/channels/1/messages", {"content": "x"})
    # threads (fakecord/routes_threads.py): from a message, without one, posted in, archived
    started = f"{channel_messages}/{posted['id']}/threads"
    thread = await api.ok("POST", started, {"name": "Skyjo — Alice, Bob", "auto_archive_duration": 60})
    assert thread["id"] == posted["id"] and thread["parent_id"] == str(general.id) and thread["type"] == 11
    await api.error(400, 160004, "POST", started, {"name": "again"})
    loose = await api.ok("POST", f"/channels/{games.id}/threads", {"name": "Table 1", "type": 11})
    await api.ok("POST", f"/channels/{loose['id']}/messages", {"content": "in the thread"})
    closed = await api.ok("PATCH", f"/channels/{loose['id']}", {"archived": True})
    assert closed["thread_metadata"]["archived"] and closed["message_count"] == 1
    await api.error(400, 50083, "PATCH", f"/channels/{loose['id']}", {"name": "renamed"})
    assert (await api.ok("GET", f"/channels/{thread['id']}"))["owner_id"] == str(fake.bot_user.id)
    said = await fake.send_user_message(bob, general, "mine")
    await api.error(403, 50005, "PATCH", f"{channel_messages}/{said.id}", {"content": "x"})
    await fake.set_overwrite(general, fake.bot_user, deny=discord.Permissions(send_messages=True))
    await api.error(403, 50013, "POST", channel_messages, {"content": "x"})
    await fake.set_overwrite(general, fake.bot_user, deny=discord.Permissions(view_channel=True))
    await api.error(403, 50001, "GET", f"/channels/{general.id}")
    await api.error(403, 50001, "GET", channel_messages)
    await fake.set_overwrite(general, fake.bot_user)
    await api.ok("DELETE", f"{channel_messages}/{posted['id']}")
    await api.error(404, 10008, "DELETE", f"{channel_messages}/{posted['id']}")

    # injected rate limits, of a route and global
    fake.rate_limit("POST", "/channels/{channel_id}/messages", 1, retry_after=0.01)
    status, body = await api.call("POST", channel_messages, {"content": "x"})
    assert status == 429 and body["retry_after"] == 0.01 and body["global"] is False
    fake.rate_limit("GET", "/gateway/bot", 1, is_global=True, scope="global")
    status, body = await api.call("GET", "/gateway/bot")
    assert status == 429 and body["global"] is True

    await walk_interactions(fake, api)
    await walk_activity_routes(fake, api)  # the Activity's instance route and the OAuth2 token exchange

    assert_all_answers_described(fake)
    answered = {(r.method, r.route) for r in fake.requests if r.route is not None and 200 <= r.status < 300}
    assert route_table(fake) - answered == set()  # every route gave its success answer
    assert fake.rejections == []


async def walk_interactions(fake: FakeDiscord, api: Api) -> None:
    """Every callback type, with and without ``with_response``, the webhook's follow-ups and its errors."""
    general = fake.channel("general")
    alice = fake.user("alice")
    posted = await api.ok(
        "POST", f"/channels/{general.id}/messages", {"content": "board", "components": buttons("go", "form")}
    )
    board = fake.messages[int(posted["id"])]

    def callback(inter: FakeInteraction, query: str = "?with_response=true") -> str:
        return f"/interactions/{inter.id}/{inter.token}/callback{query}"

    def webhook(inter: FakeInteraction, tail: str = "") -> str:
        return f"/webhooks/{fake.application_id}/{inter.token}{tail}"

    # 4: a message, with the response and without
    command = await fake.run_command(alice, "walk", options={"what": "all"})
    answer = await api.ok(
        "POST", callback(command), {"type": 4, "data": {"content": "walking", "components": buttons("x")}}
    )
    assert answer["resource"]["type"] == 4 and answer["interaction"]["response_message_loading"] is False
    message = answer["resource"]["message"]
    assert message["interaction_metadata"]["type"] == 2 and message["components"][0]["id"] == 1
    await api.error(400, 40060, "POST", callback(command), {"type": 4, "data": {"content": "again"}})
    click = await fake.click(alice, board, "go")
    quiet = {"type": 4, "data": {"content": "quiet", "flags": 64}}
    assert await api.ok("POST", callback(click, ""), quiet) is None  # 204 without with_response

    # 5: thinking, then the webhook: the first follow-up replaces it, the next ones are new messages
    command = await fake.run_command(alice, "walk")
    answer = await api.ok("POST", callback(command), {"type": 5})
    assert "resource" not in answer and answer["interaction"]["response_message_loading"] is True
    assert await api.ok("POST", webhook(command), {"content": "done thinking"}) is None
    followup = await api.ok(
        "POST", webhook(command, "?wait=true"), {"content": "more", "components": buttons("y")}
    )
    original = command.original_message
    assert original is not None
    assert followup["interaction_metadata"]["original_response_message_id"] == str(original.id)
    assert (await api.ok("GET", webhook(command, "/messages/@original")))["content"] == "done thinking"
    await api.ok(
        "PATCH",
        webhook(command, "/messages/@original"),
        {"content": "edited", "embeds": [{"description": "d"}]},
    )
    await api.ok("GET", webhook(command, f"/messages/{followup['id']}"))
    await api.ok("PATCH", webhook(command, f"/messages/{followup['id']}"), {"content": "more, edited"})
    await api.ok("DELETE", webhook(command, f"/messages/{followup['id']}"))
    await api.error(404, 10008, "GET", webhook(command, f"/messages/{followup['id']}"))
    await api.error(404, 10008, "PATCH", webhook(command, "/messages/1"), {"content": "x"})
    await api.error(404, 10008, "DELETE", webhook(command, "/messages/1"))
    await api.error(400, 50035, "POST", webhook(command), {"content": "x" * 2001})
    await api.error(404, 10015, "POST", f"/webhooks/1/{command.token}", {"content": "x"})
    await api.ok("DELETE", webhook(command, "/messages/@original"))

    # 6 and 7 on a click, 9 (a modal) then its submit answered with 4
    click = await fake.click(alice, board, "go")
    answer = await api.ok("POST", callback(click), {"type": 6})
    assert "resource" not in answer and "response_message_id" not in answer["interaction"]
    await api.ok("PATCH", webhook(click, "/messages/@original"), {"content": "board, updated"})
    click = await fake.click(alice, board, "go")
    answer = await api.ok(
        "POST", callback(click), {"type": 7, "data": {"components": buttons("go", "form", "z")}}
    )
    assert answer["resource"]["type"] == 7 and answer["interaction"]["response_message_id"] == str(board.id)
    assert "interaction_metadata" not in answer["resource"]["message"]  # the bot's post, updated
    click = await fake.click(alice, board, "form")
    modal = {
        "custom_id": "m",
        "title": "Name",
        "components": [
            {"type": 1, "components": [{"type": 4, "custom_id": "name", "label": "Name", "style": 1}]}
        ],
    }
    answer = await api.ok("POST", callback(click), {"type": 9, "data": modal})
    assert "resource" not in answer
    submit = await fake.submit_modal(alice, click, {"name": "Alice"})
    answer = await api.ok("POST", callback(submit), {"type": 4, "data": {"content": "hello Alice"}})
    meta = answer["resource"]["message"]["interaction_metadata"]
    assert meta["type"] == 5 and meta["triggering_interaction_metadata"]["type"] == 3
    assert meta["triggering_interaction_metadata"]["interacted_message_id"] == str(board.id)

    # 8: autocomplete
    typing = await fake.autocomplete(alice, "walk", focused="what")
    answer = await api.ok(
        "POST", callback(typing), {"type": 8, "data": {"choices": [{"name": "all", "value": "all"}]}}
    )
    assert "resource" not in answer
    too_many = [{"name": str(i), "value": str(i)} for i in range(26)]
    typing = await fake.autocomplete(alice, "walk", focused="what")
    await api.error(400, 50035, "POST", callback(typing), {"type": 8, "data": {"choices": too_many}})

    # refusals: unknown interaction, too late, a type the interaction cannot take, the token's end
    await api.error(404, 10062, "POST", "/interactions/1/nothing/callback", {"type": 6})
    click = await fake.click(alice, board, "go")
    fake.clock.advance(4)
    await api.error(404, 10062, "POST", callback(click), {"type": 6})
    click = await fake.click(alice, board, "go")
    await api.error(400, 50035, "POST", callback(click), {"type": 8, "data": {"choices": []}})
    await api.error(404, 10015, "POST", webhook(click), {"content": "not acknowledged yet"})
    await api.ok("POST", callback(click), {"type": 6})
    fake.clock.advance(15 * 60 + 1)
    await api.error(401, 50027, "POST", webhook(click), {"content": "too late"})
    fake.rate_limit("POST", "/interactions/{interaction_id}/{token}/callback", 1, retry_after=0.01)
    status, body = await api.call("POST", callback(click), {"type": 6})
    assert status == 429 and body["message"] == "You are being rate limited."


async def walk_activity_routes(fake: FakeDiscord, api: Api) -> None:
    """The Activity's routes to their answers: an instance and a token exchange answered, an ended
    instance and a reused code refused (test_activities.py and test_oauth2.py walk their rules)."""
    fake.enable_activities()
    alice = fake.user("alice")
    instance = fake.launch_activity(alice, fake.channel("games"))
    route = f"/applications/{fake.application_id}/activity-instances"
    assert (await api.ok("GET", f"{route}/{instance.instance_id}")) == instance.payload()
    fake.leave_activity(alice, instance)
    await api.error(404, 0, "GET", f"{route}/{instance.instance_id}")
    form = {
        "grant_type": "authorization_code",
        "code": fake.authorize(alice),
        "client_id": str(fake.application_id),
        "client_secret": fake.client_secret,
    }
    for status in (200, 400):  # the code, then the same code again
        async with api.session.post(f"{fake.api_base}/oauth2/token", data=form) as response:
            assert response.status == status
    [reused] = fake.take_rejections()
    assert reused.message == "invalid_grant"


# ---------------------------------------------------------------------------------- the gateway


async def test_gateway_payloads_use_the_same_builders(fake_discord: FakeDiscord, api: Api) -> None:
    """What the bot receives over the gateway (GUILD_CREATE, MESSAGE_CREATE, INTERACTION_CREATE) is built
    by the same payload builders as the REST answers, so it passes the same schemas."""
    fake = fake_discord
    general = fake.channel("general")
    posted = await api.ok(
        "POST", f"/channels/{general.id}/messages", {"content": "hi", "components": buttons("go")}
    )
    await fake.click(fake.user("alice"), fake.messages[int(posted["id"])], "go")
    assert fake.session is not None
    events: dict[str, dict[str, Any]] = {}
    for event in fake.session.events:
        events.setdefault(event["t"], event["d"])
    guild = events["GUILD_CREATE"]
    problems = [v for role in guild["roles"] for v in openapi.check_schema("GuildRoleResponse", role)]
    problems += [v for m in guild["members"] for v in openapi.check_schema("GuildMemberResponse", m)]
    problems += [v for c in guild["channels"] for v in openapi.check_schema("GuildChannelResponse", c)]
    message = events["MESSAGE_CREATE"]
    problems += openapi.check_schema("MessageResponse", message)
    interaction = events["INTERACTION_CREATE"]
    problems += openapi.check_schema("MessageResponse", interaction["message"])
    problems += openapi.check_schema("GuildMemberResponse", interaction["member"])
    problems += openapi.check_schema("UserResponse", interaction["member"]["user"])
    assert problems == []
    assert message == {**posted, "member": message["member"]}  # the REST answer, with the author's member
    assert interaction["message"]["components"] == posted["components"]


# ---------------------------------------------------------------------------------- the check can fail


async def test_a_planted_wrong_answer_is_caught(
    fake_discord: FakeDiscord, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A message builder that forgets what Discord always sends (the author's ``primary_guild``, a
    component's ``id``) makes an answer Discord would not give: recorded, logged, and the test fails."""
    real = FakeMessage.payload

    def careless(self: FakeMessage) -> dict[str, Any]:
        data = copy.deepcopy(real(self))  # the payload shares the stored components
        data["author"].pop("primary_guild")
        for row in data["components"]:
            row.pop("id")
        return data

    monkeypatch.setattr(FakeMessage, "payload", careless)
    general = fake_discord.channel("general")
    await api.ok("POST", f"/channels/{general.id}/messages", {"content": "x", "components": buttons("a")})
    answer = "POST /channels/{channel_id}/messages -> 200"
    assert sorted(fake_discord.answer_violations) == [
        f"{answer}: author.primary_guild: BASE_TYPE_REQUIRED This field is required",
        f"{answer}: components.0.id: BASE_TYPE_REQUIRED This field is required",
    ]
    with pytest.raises(AssertionError, match="answered what Discord would not"):
        fake_discord.assert_clean()
    fake_discord.answer_violations.clear()
    monkeypatch.setattr(FakeUser, "payload", lambda self: {"id": str(self.id)})
    await api.ok("GET", f"/users/{fake_discord.user('bob').id}")
    assert any("username: BASE_TYPE_REQUIRED" in v for v in fake_discord.answer_violations)
    fake_discord.answer_violations.clear()
