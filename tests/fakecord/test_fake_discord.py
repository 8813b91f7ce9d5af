"""Tests of the fake Discord itself, driven by a tiny throwaway bot."""

from __future__ import annotations

import asyncio
import io
import re
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from fakecord import (
    FLAG_EPHEMERAL,
    ErrorLogCollector,
    FakeDiscord,
    FakeMessage,
    InteractionFailed,
    InteractionRefused,
)


class CounterView(discord.ui.View):
    def __init__(self, owner_id: int) -> None:
        super().__init__(timeout=None)
        self.owner_id = owner_id
        self.count = 0

    @discord.ui.button(label="Count", custom_id="counter:inc", style=discord.ButtonStyle.primary)
    async def inc(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        self.count += 1
        button.label = f"Count: {self.count}"
        await interaction.response.edit_message(
            content=f"clicked {self.count} by {interaction.user.name}", view=self
        )


class RollButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"roll:(?P<sides>\d+)"):
    def __init__(self, sides: int) -> None:
        super().__init__(discord.ui.Button(label=f"d{sides}", custom_id=f"roll:{sides}"))
        self.sides = sides

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> RollButton:
        return cls(int(match["sides"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"rolled a d{self.sides}", ephemeral=True)


class NameModal(discord.ui.Modal, title="Your name"):
    name: discord.ui.TextInput[NameModal] = discord.ui.TextInput(label="Name", custom_id="modal:name")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"nice to meet you, {self.name.value}", ephemeral=True)


class TinyBot(commands.Bot):
    """A throwaway bot exercising the interaction paths the fake must support."""

    def __init__(self) -> None:
        intents = discord.Intents.default()
        intents.message_content = True
        super().__init__(command_prefix="!", intents=intents)
        self.release = asyncio.Event()
        self.deferred: discord.Interaction | None = None
        self.seen_messages: list[str] = []
        self.resumed_count = 0
        self.notes: list[str] = []

    async def setup_hook(self) -> None:
        self.add_dynamic_items(RollButton)
        tree = self.tree

        @tree.command(name="hello", description="Say hello with a button")
        async def hello(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(
                f"hello {interaction.user.name} ({interaction.locale.value})",
                view=CounterView(interaction.user.id),
                ephemeral=True,
            )

        @tree.command(name="slow", description="Defer then follow up")
        @app_commands.describe(text="what to say", times="how many times")
        async def slow(interaction: discord.Interaction, text: str, times: int = 1) -> None:
            await interaction.response.defer(thinking=True)
            await self.release.wait()
            await interaction.followup.send(" ".join([text] * times))

        @tree.command(name="parked", description="Defer and wait for the test")
        async def parked(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True)
            self.deferred = interaction
            await self.release.wait()
            await interaction.followup.send("too late?")

        @tree.command(name="late", description="Answer only when released")
        async def late(interaction: discord.Interaction) -> None:
            await self.release.wait()
            await interaction.response.send_message("finally")

        @tree.command(name="twice", description="Answer twice")
        async def twice(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("first")
            # bypass discord.py's client-side guard to reach Discord's server-side check
            interaction.response._response_type = None
            await interaction.response.send_message("second")

        @tree.command(name="dice", description="Dynamic dice buttons")
        async def dice(interaction: discord.Interaction) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(RollButton(6))
            view.add_item(RollButton(20))
            await interaction.response.send_message("pick a die", view=view)

        game = app_commands.Group(name="game", description="Game commands")

        @game.command(name="start", description="Start a game")
        @app_commands.choices(
            kind=[
                app_commands.Choice(name="Skyjo", value="skyjo"),
                app_commands.Choice(name="Skip-Bo", value="skipbo"),
            ]
        )
        async def start(
            interaction: discord.Interaction, kind: app_commands.Choice[str], rival: discord.Member
        ) -> None:
            await interaction.response.send_message(f"{kind.value} vs {rival.display_name}")

        tree.add_command(game)

        @tree.command(name="multi", description="Every interaction webhook route")
        async def multi(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("one")
            secret = await interaction.followup.send("two", ephemeral=True, wait=True)
            await secret.edit(content="two, edited")
            public = await interaction.followup.send("three", wait=True)
            await public.delete()
            await interaction.edit_original_response(content="one, edited")
            original = await interaction.original_response()
            self.notes.append(f"original={original.content}")

        @tree.command(name="pick", description="Autocomplete a colour")
        async def pick(interaction: discord.Interaction, colour: str) -> None:
            await interaction.response.send_message(f"picked {colour}")

        @pick.autocomplete("colour")
        async def pick_colour(
            interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            colours = ["red", "green", "blue", "rose"]
            return [app_commands.Choice(name=c, value=c) for c in colours if c.startswith(current)]

        @tree.command(name="form", description="Open a modal")
        async def form(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(NameModal())

        @tree.command(name="badview", description="Answer with invalid components")
        async def badview(interaction: discord.Interaction) -> None:
            rows = [row(button(f"b{i}")) for i in range(6)]
            await interaction.response.send_message("too many rows", view=RawView(rows))

        await tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        self.seen_messages.append(message.content)

    async def on_resumed(self) -> None:
        self.resumed_count += 1


@pytest.fixture
async def bot(connect_bot: Any) -> TinyBot:
    bot: TinyBot = await connect_bot(TinyBot())
    return bot


async def test_ready_state_comes_from_the_fake(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    assert bot.user is not None and bot.user.id == fake_discord.bot_user.id
    guild = bot.get_guild(fake_discord.guild.id)
    assert guild is not None
    assert {c.name for c in guild.text_channels} == {"general", "games"}
    assert fake_discord.gateway_urls[0].startswith("/?")
    assert "compress=zlib-stream" in fake_discord.gateway_urls[0]
    assert fake_discord.heartbeats >= 1
    # every frame went through the zlib stream, and the heartbeat was acknowledged
    [conn] = fake_discord.gateway_connections
    assert conn.compress and conn.frames_sent >= 4  # HELLO, READY, GUILD_CREATE, HEARTBEAT_ACK
    await fake_discord.wait_until(lambda: bot.latency < 5, what="a HEARTBEAT_ACK")
    synced = {c["name"] for c in fake_discord.global_commands.values()}
    assert synced == {
        "hello",
        "slow",
        "parked",
        "late",
        "twice",
        "dice",
        "game",
        "multi",
        "pick",
        "form",
        "badview",
    }
    assert fake_discord.requests_to("PUT", "/applications/{application_id}/commands")


async def test_slash_command_ephemeral_button_click_updates_message(
    fake_discord: FakeDiscord, bot: TinyBot
) -> None:
    alice, bob = fake_discord.user("alice"), fake_discord.user("bob")
    inter = await fake_discord.run_command(alice, "hello")
    response = await inter.response()
    assert response.type == 4
    msg = response.message
    assert isinstance(msg, FakeMessage)
    assert msg.content == "hello alice (en-US)"
    assert msg.flags & FLAG_EPHEMERAL and msg.visible_to == alice.id
    assert msg.custom_ids == ["counter:inc"]
    assert fake_discord.visible_messages(alice) == [msg]
    assert fake_discord.visible_messages(bob) == []

    with pytest.raises(InteractionRefused, match="not visible"):
        await fake_discord.click(bob, msg, "counter:inc")

    click = await fake_discord.click(alice, msg, "counter:inc")
    update = await click.response()
    assert update.type == 7
    assert update.message is msg
    assert msg.content == "clicked 1 by alice"
    assert msg.button_labels == ["Count: 1"]
    assert msg.history[0]["content"] == "hello alice (en-US)"

    click2 = await fake_discord.click(alice, msg, "counter:inc")
    await click2.response()
    assert msg.content == "clicked 2 by alice"


async def test_locale_and_dynamic_items(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    carol = fake_discord.user("carol")
    inter = await fake_discord.run_command(carol, "hello")
    assert (await inter.original()).content == "hello carol (fr)"

    dice = await fake_discord.run_command(carol, "dice")
    board = await dice.original()
    assert board.custom_ids == ["roll:6", "roll:20"]
    assert board.visible_to is None
    roll = await fake_discord.click(fake_discord.user("bob"), board, "roll:20")
    answer = await roll.original()
    assert answer.content == "rolled a d20"
    assert answer.visible_to == fake_discord.user("bob").id


async def test_defer_then_followup_replaces_thinking_message(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    alice = fake_discord.user("alice")
    inter = await fake_discord.run_command(alice, "slow", options={"text": "hip", "times": 3})
    response = await inter.response()
    assert response.type == 5
    assert response.message is not None and response.message.loading
    bot.release.set()
    followup = await inter.followup()
    assert followup.content == "hip hip hip"
    assert followup is inter.original_message
    assert not followup.loading
    assert followup.visible_to is None


async def test_subcommand_options_and_resolved_member(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    alice, bob = fake_discord.user("alice"), fake_discord.user("bob")
    inter = await fake_discord.run_command(alice, "game", "start", options={"kind": "skipbo", "rival": bob})
    assert (await inter.original()).content == "skipbo vs Bob"
    with pytest.raises(Exception, match="must be one of"):
        await fake_discord.run_command(alice, "game", "start", options={"kind": "chess", "rival": bob})
    with pytest.raises(Exception, match="missing required"):
        await fake_discord.run_command(alice, "game", "start", options={"kind": "skyjo"})
    with pytest.raises(Exception, match="never synced"):
        await fake_discord.run_command(alice, "nope", timeout=0.05)


# --------------------------------------------------------------------------- more bot behaviour


class RawView(discord.ui.View):
    """A view whose wire components are given verbatim (to get past discord.py's own checks)."""

    def __init__(self, components: list[dict[str, Any]]) -> None:
        super().__init__(timeout=None)
        self.raw = components

    def to_components(self) -> list[dict[str, Any]]:
        return self.raw


def button(custom_id: str, label: str = "ok") -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": label, "custom_id": custom_id}


def row(*components: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(components)}


async def post_raw(bot: TinyBot, channel_id: int, payload: dict[str, Any]) -> Any:
    route = discord.http.Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id)
    return await bot.http.request(route, json=payload)


# --------------------------------------------------------------------------- interaction webhook routes


async def test_followups_and_original_response_edits(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    alice, bob = fake_discord.user("alice"), fake_discord.user("bob")
    inter = await fake_discord.run_command(alice, "multi")
    await fake_discord.wait_until(lambda: bot.notes, what="the command to finish")
    assert bot.notes == ["original=one, edited"]
    original = inter.original_message
    assert original is not None and original.content == "one, edited"
    secret, public = inter.followups
    assert secret.content == "two, edited" and secret.visible_to == alice.id
    assert public.deleted
    assert [m.content for m in fake_discord.visible_messages(bob)] == ["one, edited"]
    assert [m.content for m in fake_discord.visible_messages(alice)] == ["one, edited", "two, edited"]
    routes = [r.key for r in inter.requests]
    assert routes == [
        "POST /interactions/{interaction_id}/{token}/callback",
        "POST /webhooks/{application_id}/{token}",
        "PATCH /webhooks/{application_id}/{token}/messages/{message_id}",
        "POST /webhooks/{application_id}/{token}",
        "DELETE /webhooks/{application_id}/{token}/messages/{message_id}",
        "PATCH /webhooks/{application_id}/{token}/messages/{message_id}",
        "GET /webhooks/{application_id}/{token}/messages/{message_id}",
    ]
    assert inter.requests[0].query == {"with_response": "1"}


async def test_autocomplete_and_modal(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    alice = fake_discord.user("alice")
    auto = await fake_discord.autocomplete(alice, "pick", focused="colour", options={"colour": "r"})
    answer = await auto.response()
    assert answer.type == 8
    assert [c["value"] for c in answer.data["choices"]] == ["red", "rose"]

    opened = await fake_discord.run_command(alice, "form")
    modal = await opened.response()
    assert modal.type == 9 and modal.data["title"] == "Your name"
    with pytest.raises(InteractionRefused, match="only the user"):
        await fake_discord.submit_modal(fake_discord.user("bob"), opened, {"modal:name": "Bob"})
    submitted = await fake_discord.submit_modal(alice, opened, {"modal:name": "Alice Liddell"})
    reply = await submitted.original()
    assert reply.content == "nice to meet you, Alice Liddell"
    assert reply.visible_to == alice.id


# --------------------------------------------------------------------------- channel messages


async def test_channel_message_send_edit_fetch_delete_with_embed_and_file(
    fake_discord: FakeDiscord, bot: TinyBot
) -> None:
    channel = bot.get_channel(fake_discord.channel("games").id)
    assert isinstance(channel, discord.TextChannel)
    embed = discord.Embed(title="Scores", description="Round 1").add_field(name="alice", value="12")
    sent = await channel.send(
        "table", embed=embed, file=discord.File(io.BytesIO(b"\x89PNG fake"), "board.png")
    )

    stored = fake_discord.messages[sent.id]
    assert stored.content == "table"
    assert stored.embeds[0]["title"] == "Scores"
    assert stored.embeds[0]["fields"] == [{"name": "alice", "value": "12", "inline": True}]
    assert [a.filename for a in stored.attachments] == ["board.png"]
    assert stored.attachments[0].data == b"\x89PNG fake"
    create = fake_discord.requests_to("POST", "/channels/{channel_id}/messages")[-1]
    assert create.files["files[0]"] == ("board.png", b"\x89PNG fake")
    assert create.json["attachments"] == [{"id": 0, "filename": "board.png"}]
    assert sent.attachments[0].filename == "board.png"
    assert await sent.attachments[0].read() == b"\x89PNG fake"

    edited = await sent.edit(content="table v2", embed=discord.Embed(title="Final"))
    assert edited.content == "table v2"
    assert stored.content == "table v2" and stored.embeds[0]["title"] == "Final"
    assert [a.filename for a in stored.attachments] == ["board.png"]  # kept by the edit
    assert stored.edited_timestamp is not None

    fetched = await channel.fetch_message(sent.id)
    assert fetched.content == "table v2"
    assert fetched.embeds[0].title == "Final"
    assert [m.id async for m in channel.history(limit=10)] == [sent.id]

    await fetched.delete()
    assert stored.deleted
    with pytest.raises(discord.NotFound):
        await channel.fetch_message(sent.id)
    assert [r.code for r in fake_discord.take_rejections()] == [10008]


async def test_user_messages_reach_the_bot(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    alice = fake_discord.user("alice")
    await fake_discord.send_user_message(alice, fake_discord.channel("general"), "hi bot")
    await fake_discord.wait_until(lambda: "hi bot" in bot.seen_messages, what="on_message")
    bob = fake_discord.user("bob")
    dm = await bot.create_dm(discord.Object(bob.id))
    await dm.send("psst")
    dm_channel = fake_discord.dm_channel(bob)
    assert [m.content for m in fake_discord.channel_messages(dm_channel)] == ["psst"]


async def test_rate_limited_routes_are_retried(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    channel = bot.get_channel(fake_discord.channel("general").id)
    assert isinstance(channel, discord.TextChannel)
    fake_discord.rate_limit("POST", "/channels/{channel_id}/messages", count=2, retry_after=0.05)
    msg = await channel.send("after the storm")
    assert fake_discord.messages[msg.id].content == "after the storm"
    posts = fake_discord.requests_to("POST", "/channels/{channel_id}/messages")
    assert [r.status for r in posts] == [429, 429, 200]
    assert posts[0].response["retry_after"] == 0.05
    assert len(fake_discord.rate_limited) == 2

    # the interaction callback and the follow-up webhook are retried too
    fake_discord.rate_limit("POST", "/interactions/{interaction_id}/{token}/callback", retry_after=0.02)
    fake_discord.rate_limit("POST", "/webhooks/{application_id}/{token}", retry_after=0.02, is_global=True)
    inter = await fake_discord.run_command(fake_discord.user("alice"), "multi")
    await fake_discord.wait_until(lambda: bot.notes, what="the command to finish")
    assert [r.status for r in inter.requests[:3]] == [429, 200, 429]
    assert inter.original_message is not None and inter.original_message.content == "one, edited"


# --------------------------------------------------------------------------- gateway


async def test_dropped_gateway_resumes_and_replays_missed_events(
    fake_discord: FakeDiscord, bot: TinyBot
) -> None:
    alice = fake_discord.user("alice")
    session = fake_discord.session
    assert session is not None
    async with fake_discord.gateway_outage():
        inter = await fake_discord.run_command(alice, "hello")
        await fake_discord.send_user_message(alice, fake_discord.channel("general"), "while you were away")
        assert session.connection is None
        assert not inter.acknowledged
    response = await inter.response()
    assert response.message is not None and response.message.content == "hello alice (en-US)"
    await fake_discord.wait_until(lambda: bot.resumed_count == 1, what="on_resumed")
    assert "while you were away" in bot.seen_messages
    assert session.resumes == 1
    assert len(fake_discord.sessions) == 1  # resumed, not re-identified
    assert fake_discord.gateway_urls[-1].startswith("/resume?")
    assert "compress=zlib-stream" in fake_discord.gateway_urls[-1]

    # a plain drop (the bot reconnects at once) also resumes
    await fake_discord.drop_gateway()
    await fake_discord.wait_until(lambda: session.resumes == 2 and session.connection, what="a second resume")
    again = await fake_discord.run_command(alice, "hello")
    assert (await again.response()).type == 4


# --------------------------------------------------------------------------- strictness


async def test_second_answer_is_rejected_with_40060(
    fake_discord: FakeDiscord, bot: TinyBot, discord_error_log: ErrorLogCollector
) -> None:
    inter = await fake_discord.run_command(fake_discord.user("alice"), "twice")
    rejection = await fake_discord.wait_rejection(40060)
    assert rejection.status == 400
    assert rejection.request.response == {
        "message": "Interaction has already been acknowledged.",
        "code": 40060,
    }
    assert (await inter.original()).content == "first"
    assert [r.status for r in inter.callback_attempts] == [200, 400]
    await discord_error_log.wait_for("40060")


async def test_answer_after_three_seconds_is_refused(
    fake_discord: FakeDiscord, bot: TinyBot, discord_error_log: ErrorLogCollector
) -> None:
    inter = await fake_discord.run_command(fake_discord.user("alice"), "late")
    fake_discord.clock.advance(3.01)
    bot.release.set()
    rejection = await fake_discord.wait_rejection(10062)
    assert rejection.message == "Unknown interaction"
    assert not inter.acknowledged and inter.original_message is None
    await discord_error_log.wait_for("10062")


async def test_answer_within_three_seconds_is_accepted(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    inter = await fake_discord.run_command(fake_discord.user("alice"), "late")
    fake_discord.clock.advance(2.9)
    bot.release.set()
    assert (await inter.original()).content == "finally"


async def test_token_expires_after_fifteen_minutes(
    fake_discord: FakeDiscord, bot: TinyBot, discord_error_log: ErrorLogCollector
) -> None:
    inter = await fake_discord.run_command(fake_discord.user("alice"), "parked")
    assert (await inter.response()).type == 5
    parked = await fake_discord.wait_until(lambda: bot.deferred, what="the bot to park the interaction")
    fake_discord.clock.advance(14 * 60)
    assert inter.original_message is not None
    assert (await parked.original_response()).id == inter.original_message.id  # still valid
    fake_discord.clock.advance(61)
    bot.release.set()
    rejection = await fake_discord.wait_rejection(50027)
    assert rejection.status == 401
    assert inter.followups == []
    await discord_error_log.wait_for("50027")


async def test_ephemeral_messages_are_private(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    alice, bob = fake_discord.user("alice"), fake_discord.user("bob")
    inter = await fake_discord.run_command(alice, "hello")
    msg = await inter.original()
    assert msg.visible_for(alice) and not msg.visible_for(bob)
    with pytest.raises(InteractionRefused, match="not visible to bob"):
        await fake_discord.click(bob, msg, "counter:inc")
    # not even the bot can fetch an ephemeral message through the channel
    with pytest.raises(discord.NotFound):
        await bot.http.get_message(msg.channel_id, msg.id)
    assert [r.code for r in fake_discord.take_rejections()] == [10008]


async def test_click_on_absent_or_disabled_component_is_refused(
    fake_discord: FakeDiscord, bot: TinyBot
) -> None:
    alice = fake_discord.user("alice")
    msg = await (await fake_discord.run_command(alice, "hello")).original()
    with pytest.raises(InteractionRefused, match="no component 'counter:dec'"):
        await fake_discord.click(alice, msg, "counter:dec")
    channel_id = fake_discord.channel("general").id
    data = await post_raw(
        bot, channel_id, {"content": "x", "components": [row({**button("off"), "disabled": True})]}
    )
    with pytest.raises(InteractionRefused, match="disabled"):
        await fake_discord.click(alice, int(data["id"]), "off")
    assert len(fake_discord.interactions) == 1  # refused clicks never reached the bot


class ClickRecorder(discord.Client):
    """A plain client that records every component click it receives and answers it privately."""

    def __init__(self, fake: FakeDiscord) -> None:
        super().__init__(intents=discord.Intents.default())
        self.fake = fake  # to look up the messages it posts
        self.clicks: list[tuple[str, str]] = []  # (custom_id, content of the message it came with)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = str(data.get("custom_id"))
        self.clicks.append((custom_id, interaction.message.content if interaction.message else ""))
        await interaction.response.send_message(f"got {custom_id}", ephemeral=True)


async def edit_raw(client: discord.Client, channel_id: int, message_id: int, payload: dict[str, Any]) -> Any:
    route = discord.http.Route(
        "PATCH", "/channels/{channel_id}/messages/{message_id}", channel_id=channel_id, message_id=message_id
    )
    return await client.http.request(route, json=payload)


async def post_with(client: ClickRecorder, channel_id: int, payload: dict[str, Any]) -> FakeMessage:
    route = discord.http.Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id)
    data = await client.http.request(route, json=payload)
    return client.fake.messages[int(data["id"])]


@pytest.fixture
async def recorder(fake_discord: FakeDiscord, connect_bot: Any) -> ClickRecorder:
    client: ClickRecorder = await connect_bot(ClickRecorder(fake_discord))
    return client


async def test_click_from_a_stale_snapshot_fails_like_discord_and_never_reaches_the_bot(
    fake_discord: FakeDiscord, recorder: ClickRecorder
) -> None:
    alice = fake_discord.user("alice")
    channel_id = fake_discord.channel("general").id
    msg = await post_with(
        recorder, channel_id, {"content": "v1", "components": [row(button("keep"), button("b:1"))]}
    )
    seen = msg.snapshot()  # what alice's client shows
    assert seen.is_snapshot and seen.revision == 0 and seen.custom_ids == ["keep", "b:1"]
    # the bot edits the message: "b:1" becomes "b:2" while alice's client still shows "b:1"
    await edit_raw(
        recorder, channel_id, msg.id, {"content": "v2", "components": [row(button("keep"), button("b:2"))]}
    )
    assert msg.revision == 1 and msg.custom_ids == ["keep", "b:2"]
    assert seen.custom_ids == ["keep", "b:1"] and seen.content == "v1"  # the snapshot did not move
    assert msg.snapshot(0).custom_ids == ["keep", "b:1"]  # a past revision, rebuilt from history

    failed = await fake_discord.click(alice, seen, "b:1")
    assert failed.failed
    [record] = fake_discord.failed_clicks
    assert (record.user, record.message_id, record.custom_id) == (alice, msg.id, "b:1")
    assert (record.seen_revision, record.revision) == (0, 1)
    assert "no longer has 'b:1'" in record.reason
    with pytest.raises(InteractionFailed, match="never reached the bot"):
        await failed.response()

    # a button still on the message goes through, and the bot gets the message as it is now
    kept = await fake_discord.click(alice, seen, "keep")
    assert not kept.failed
    assert (await kept.original()).content == "got keep"
    assert recorder.clicks == [("keep", "v2")]  # the failed click came first and never arrived
    assert list(fake_discord.interactions) == [kept.id]

    # an id that was never on what alice saw is a test bug, as before
    with pytest.raises(InteractionRefused, match="no component 'b:2'"):
        await fake_discord.click(alice, seen, "b:2")
    # the live message is what a fresh client shows: its new button works
    fresh = await fake_discord.click(alice, msg, "b:2")
    await fresh.response()
    assert recorder.clicks[-1] == ("b:2", "v2")
    assert fake_discord.take_failed_clicks() == [record]


async def test_unconsumed_failed_click_fails_assert_clean(
    fake_discord: FakeDiscord, recorder: ClickRecorder
) -> None:
    alice = fake_discord.user("alice")
    channel_id = fake_discord.channel("general").id
    msg = await post_with(recorder, channel_id, {"content": "v1", "components": [row(button("b:1"))]})
    seen = msg.snapshot()
    await edit_raw(recorder, channel_id, msg.id, {"components": [row(button("b:2"))]})
    await fake_discord.click(alice, seen, "b:1")
    with pytest.raises(AssertionError, match=r"failed click .*'b:1'.*no longer has"):
        fake_discord.assert_clean()
    assert fake_discord.take_failed_clicks("b:2") == []  # filtered by custom_id
    assert [f.custom_id for f in fake_discord.take_failed_clicks("b:1")] == ["b:1"]
    fake_discord.assert_clean()
    assert recorder.clicks == []


async def test_stale_clicks_on_disabled_deleted_or_changed_selects_fail(
    fake_discord: FakeDiscord, recorder: ClickRecorder
) -> None:
    alice = fake_discord.user("alice")
    channel_id = fake_discord.channel("general").id
    pick = {
        "type": 3,
        "custom_id": "pick",
        "options": [{"label": "A", "value": "a"}, {"label": "B", "value": "b"}],
    }
    msg = await post_with(
        recorder, channel_id, {"content": "v1", "components": [row(button("go")), row(pick)]}
    )
    seen = msg.snapshot()
    # the bot disables "go" and drops option "b"
    new_pick = {**pick, "options": [{"label": "A", "value": "a"}]}
    await edit_raw(
        recorder,
        channel_id,
        msg.id,
        {"components": [row({**button("go"), "disabled": True}), row(new_pick)]},
    )
    assert (await fake_discord.click(alice, seen, "go")).failed
    assert (await fake_discord.click(alice, seen, "pick", values=["b"])).failed
    still = await fake_discord.click(alice, seen, "pick", values=["a"])
    assert not still.failed and (await still.original()).content == "got pick"
    reasons = [f.reason for f in fake_discord.take_failed_clicks()]
    assert reasons == ["'go' is disabled now", "values ['b'] are no longer options of 'pick' (['a'])"]
    # on the live message the client itself refuses, as before
    with pytest.raises(InteractionRefused, match="disabled"):
        await fake_discord.click(alice, msg, "go")
    with pytest.raises(InteractionRefused, match="not options"):
        await fake_discord.click(alice, msg, "pick", values=["b"])

    # the bot deletes the message while alice's client still shows it
    route = discord.http.Route(
        "DELETE", "/channels/{channel_id}/messages/{message_id}", channel_id=channel_id, message_id=msg.id
    )
    await recorder.http.request(route)
    gone = await fake_discord.click(alice, seen, "pick", values=["a"])
    assert gone.failed and gone.failure is not None and gone.failure.reason == "the message was deleted"
    with pytest.raises(InteractionRefused, match="was deleted"):
        await fake_discord.click(alice, msg, "pick", values=["a"])
    assert len(fake_discord.take_failed_clicks()) == 1
    assert recorder.clicks == [("pick", "v1")]  # only the still-valid pick reached the bot


LONG = "x" * 101


@pytest.mark.parametrize(
    ("components", "error_path", "error_code"),
    [
        pytest.param(
            [row(button(f"b{i}")) for i in range(6)], ["components"], "BASE_TYPE_MAX_LENGTH", id="6-rows"
        ),
        pytest.param(
            [row(*(button(f"b{i}") for i in range(6)))],
            ["components", "0", "components"],
            "BASE_TYPE_BAD_LENGTH",
            id="6-buttons",
        ),
        pytest.param(
            [row(button(LONG))],
            ["components", "0", "components", "0", "custom_id"],
            "BASE_TYPE_BAD_LENGTH",
            id="custom-id",
        ),
        pytest.param(
            [row(button("a", "L" * 81))],
            ["components", "0", "components", "0", "label"],
            "BASE_TYPE_MAX_LENGTH",
            id="label",
        ),
        pytest.param(
            [
                row(
                    {
                        "type": 3,
                        "custom_id": "s",
                        "options": [{"label": str(i), "value": str(i)} for i in range(26)],
                    }
                )
            ],
            ["components", "0", "components", "0", "options"],
            "BASE_TYPE_BAD_LENGTH",
            id="26-options",
        ),
        pytest.param(
            [row(button("a"), button("a"))], ["components"], "COMPONENT_CUSTOM_ID_DUPLICATED", id="dup-id"
        ),
        pytest.param(
            [row(button("a"), {"type": 3, "custom_id": "s", "options": [{"label": "o", "value": "o"}]})],
            ["components", "0", "components"],
            "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
            id="select-with-button",
        ),
        pytest.param([button("a")], ["components", "0"], "UNION_TYPE_CHOICES", id="bare-button"),
    ],
)
async def test_component_limits_are_enforced(
    fake_discord: FakeDiscord,
    bot: TinyBot,
    components: list[dict[str, Any]],
    error_path: list[str],
    error_code: str,
) -> None:
    channel_id = fake_discord.channel("general").id
    with pytest.raises(discord.HTTPException) as info:
        await post_raw(bot, channel_id, {"content": "bad", "components": components})
    assert info.value.status == 400 and info.value.code == 50035
    [rejection] = fake_discord.take_rejections(50035)
    assert rejection.request.response["message"] == "Invalid Form Body"
    node: Any = rejection.errors
    for part in error_path:
        node = node[part]
    assert error_code in [e["code"] for e in node["_errors"]]
    assert fake_discord.channel_messages(fake_discord.channel("general")) == []


async def test_valid_components_v2_layout_is_accepted(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    class Layout(discord.ui.LayoutView):
        text: discord.ui.TextDisplay[Any] = discord.ui.TextDisplay("Skyjo table")
        actions: discord.ui.ActionRow[Any] = discord.ui.ActionRow(
            discord.ui.Button(label="Join", custom_id="join")
        )

    channel = bot.get_channel(fake_discord.channel("general").id)
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send(view=Layout())
    stored = fake_discord.messages[sent.id]
    assert stored.text == "Skyjo table" and stored.custom_ids == ["join"]
    with pytest.raises(discord.HTTPException) as info:
        await post_raw(bot, channel.id, {"content": "no", "flags": 1 << 15, "components": stored.components})
    assert info.value.code == 50035
    [rejection] = fake_discord.take_rejections(50035)
    assert rejection.errors is not None
    [error] = rejection.errors["content"]["_errors"]
    assert error["code"] == "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2"


async def test_an_edit_may_set_components_v2_never_unset_it(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    """Discord's docs (Edit Message): IS_COMPONENTS_V2 can be set by an edit, which must then empty the
    message's content (null) and embeds ([]), and can never be unset; text displays hold 4,000
    characters in all."""
    channel_id = fake_discord.channel("general").id
    old = await post_raw(bot, channel_id, {"content": "old table", "embeds": [{"title": "Skyjo"}]})

    async def edit(payload: dict[str, Any]) -> Any:
        route = discord.http.Route(
            "PATCH",
            "/channels/{channel_id}/messages/{message_id}",
            channel_id=channel_id,
            message_id=old["id"],
        )
        return await bot.http.request(route, json=payload)

    layout = [{"type": 17, "components": [{"type": 10, "content": "new table"}]}]
    for kept in ({"content": None}, {"embeds": []}):  # one of the two left as it was: refused
        with pytest.raises(discord.HTTPException) as info:
            await edit({"flags": 1 << 15, "components": layout, **kept})
        assert info.value.code == 50035
    fake_discord.take_rejections(50035)
    stored = fake_discord.messages[int(old["id"])]
    assert stored.content == "old table" and stored.embeds and not stored.flags & (1 << 15)
    await edit({"flags": 1 << 15, "content": None, "embeds": [], "components": layout})
    assert stored.flags & (1 << 15) and stored.text == "new table" and not stored.embeds
    row = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "a", "custom_id": "a"}]}]
    with pytest.raises(discord.HTTPException) as info:
        await edit({"flags": 0, "components": row})
    assert info.value.code == 50035 and stored.text == "new table"
    too_long = [{"type": 17, "components": [{"type": 10, "content": "x" * 2001}] * 2}]
    with pytest.raises(discord.HTTPException) as info:
        await edit({"components": too_long})
    assert info.value.code == 50035 and stored.text == "new table"
    fake_discord.take_rejections(50035)


async def test_invalid_components_in_an_interaction_answer(
    fake_discord: FakeDiscord, bot: TinyBot, discord_error_log: ErrorLogCollector
) -> None:
    inter = await fake_discord.run_command(fake_discord.user("alice"), "badview")
    rejection = await fake_discord.wait_rejection(50035)
    assert rejection.errors is not None
    assert rejection.errors["data"]["components"]["_errors"][0]["code"] == "BASE_TYPE_MAX_LENGTH"
    assert not inter.acknowledged
    await discord_error_log.wait_for("50035")


async def test_other_message_limits(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    channel_id = fake_discord.channel("general").id
    cases: list[tuple[dict[str, Any], int]] = [
        ({"content": "x" * 2001}, 50035),
        ({"content": ""}, 50006),
        ({"embeds": [{"title": "t" * 257}]}, 50035),
        ({"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]}, 50035),
    ]
    for payload, code in cases:
        with pytest.raises(discord.HTTPException) as info:
            await post_raw(bot, channel_id, payload)
        assert info.value.code == code, payload
    assert [r.code for r in fake_discord.take_rejections()] == [code for _, code in cases]


async def test_unknown_routes_are_recorded_and_fail_the_check(
    fake_discord: FakeDiscord, bot: TinyBot
) -> None:
    with pytest.raises(discord.NotFound):
        await bot.http.request(discord.http.Route("GET", "/channels/{channel_id}/pins", channel_id=1))
    with pytest.raises(discord.NotFound):  # known path, unsupported method
        await bot.http.request(discord.http.Route("PUT", "/oauth2/applications/@me"))
    assert [r.key for r in fake_discord.unknown_routes] == [
        "GET /channels/1/pins",
        "PUT /oauth2/applications/@me",
    ]
    with pytest.raises(AssertionError, match="unknown route: GET /channels/1/pins"):
        fake_discord.assert_clean()
    fake_discord.unknown_routes.clear()
    fake_discord.assert_clean()


async def test_rejections_fail_the_check_until_consumed(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    with pytest.raises(discord.NotFound):
        await bot.http.get_message(fake_discord.channel("general").id, 42)
    with pytest.raises(AssertionError, match="Unknown Message"):
        fake_discord.assert_clean()
    assert [r.code for r in fake_discord.take_rejections(10008)] == [10008]
    fake_discord.assert_clean()


async def test_errors_in_the_bot_are_collected(
    fake_discord: FakeDiscord, bot: TinyBot, discord_error_log: ErrorLogCollector
) -> None:
    @bot.tree.command(name="boom", description="Raise")
    async def boom(interaction: discord.Interaction) -> None:
        raise RuntimeError("kaboom")

    await bot.tree.sync()
    await fake_discord.run_command(fake_discord.user("alice"), "boom")
    record = await discord_error_log.wait_for("kaboom")
    assert record.name.startswith("discord")
    assert discord_error_log.records == []


async def test_running_context_manager_and_bad_token(fake_discord: FakeDiscord) -> None:
    client = discord.Client(intents=discord.Intents.none())
    async with fake_discord.running(client) as running:
        assert running.is_ready()
        assert running.user is not None and running.user.name == "Skybo"
    assert client.is_closed()

    intruder = discord.Client(intents=discord.Intents.none())
    with pytest.raises(RuntimeError, match="stopped before it was ready") as info:
        async with fake_discord.running(intruder, token="not-the-token"):
            pass
    assert isinstance(info.value.__cause__, discord.LoginFailure)
    rejected = fake_discord.take_rejections()
    assert [r.status for r in rejected] == [401]


async def test_member_requests_are_answered_with_chunks(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    guild = bot.get_guild(fake_discord.guild.id)
    assert guild is not None
    found = await guild.query_members(query="ca", limit=5)
    assert [m.name for m in found] == ["carol"]
    found = await guild.query_members(user_ids=[fake_discord.user("bob").id])
    assert [m.name for m in found] == ["bob"]


async def test_commands_in_direct_messages(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    alice = fake_discord.user("alice")
    dm = fake_discord.dm_channel(alice)
    inter = await fake_discord.run_command(alice, "dice", channel=dm)
    board = await inter.original()
    assert board.channel_id == dm.id and board.guild_id is None
    roll = await fake_discord.click(alice, board, "roll:6")
    assert (await roll.original()).content == "rolled a d6"
