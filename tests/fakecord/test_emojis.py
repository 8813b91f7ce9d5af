"""Application emojis in the fake as Discord has them (issue 40 item 6): the routes through the real
discord.py client, Discord's limits (name, image size, duplicate name, 2,000 per application), a
component's custom emoji refused unless the application owns it, and the fake without the feature."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator

import discord
import pytest

from fakecord import FakeDiscord
from fakecord.routes_emojis import APPLICATION_EMOJI_LIMIT, EMOJI_IMAGE_LIMIT

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


class Poster(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default())


@pytest.fixture
async def client(fake_discord: FakeDiscord, connect_bot) -> AsyncIterator[Poster]:  # type: ignore[no-untyped-def]
    yield await connect_bot(Poster())


def _button_with(emoji: discord.PartialEmoji | str) -> discord.ui.View:
    view = discord.ui.View()
    view.add_item(discord.ui.Button(label="5", custom_id="card", emoji=emoji))
    return view


async def test_create_list_edit_delete_through_discord_py(fake_discord: FakeDiscord, client: Poster) -> None:
    fake = fake_discord
    made = await client.create_application_emoji(name="card_five", image=PNG)
    assert made.name == "card_five" and made.id in fake.app_emojis
    assert fake.emoji_image(made.id) == PNG and fake.emoji_image(1) is None
    [listed] = await client.fetch_application_emojis()
    assert (listed.id, listed.name) == (made.id, "card_five")
    assert (await client.fetch_application_emoji(made.id)).name == "card_five"
    edited = await made.edit(name="card_five_b")
    assert edited.name == "card_five_b" and fake.emoji_named("card_five_b") is not None
    await edited.delete()
    assert await client.fetch_application_emojis() == []
    with pytest.raises(discord.NotFound) as gone:
        await client.fetch_application_emoji(made.id)
    assert gone.value.code == 10014
    assert [r.code for r in fake.take_rejections()] == [10014]
    assert fake.description_violations == [] and fake.answer_violations == []


def _uri(data: bytes, kind: str = "png") -> str:
    return f"data:image/{kind};base64,{base64.b64encode(data).decode()}"


@pytest.mark.parametrize(
    ("name", "image", "field", "code"),
    [
        ("card-five", _uri(PNG), "name", "STRING_TYPE_REGEX"),
        ("card_five", _uri(b""), "image", "IMAGE_INVALID"),
        ("card_five", "https://example.com/five.png", "image", "IMAGE_INVALID"),
        ("card_five", _uri(PNG, "svg+xml"), "image", "IMAGE_INVALID"),
        ("card_five", _uri(PNG + bytes(EMOJI_IMAGE_LIMIT)), "image", "BINARY_TYPE_MAX_SIZE"),
    ],
)
async def test_a_bad_emoji_is_refused_with_the_field_named(
    fake_discord: FakeDiscord, client: Poster, name: str, image: str, field: str, code: str
) -> None:
    """discord.py refuses some of these itself (an image type it does not know): sent raw, as a bot
    of another library would."""
    with pytest.raises(discord.HTTPException) as refused:
        await client.http.create_application_emoji(client.application_id, name, image)
    assert (refused.value.status, refused.value.code) == (400, 50035)
    [rejection] = fake_discord.take_rejections(50035)
    assert rejection.errors is not None
    assert [e["code"] for e in rejection.errors[field]["_errors"]] == [code]
    assert fake_discord.app_emojis == {}


async def test_a_name_out_of_the_description_is_refused_by_it(
    fake_discord: FakeDiscord, client: Poster
) -> None:
    """A name of one character breaks the description's ``minLength`` (its judge answers first)."""
    with pytest.raises(discord.HTTPException) as refused:
        await client.create_application_emoji(name="x", image=PNG)
    assert refused.value.code == 50035
    [rejection] = fake_discord.take_rejections(50035)
    assert rejection.errors is not None and "name" in rejection.errors
    assert fake_discord.description_violations and fake_discord.app_emojis == {}
    fake_discord.description_violations.clear()


async def test_a_second_emoji_of_the_same_name_is_refused(fake_discord: FakeDiscord, client: Poster) -> None:
    await client.create_application_emoji(name="card_five", image=PNG)
    with pytest.raises(discord.HTTPException) as refused:
        await client.create_application_emoji(name="card_five", image=PNG)
    assert refused.value.code == 50035
    [rejection] = fake_discord.take_rejections(50035)
    assert rejection.errors == {
        "name": {
            "_errors": [
                {"code": "APPLICATION_EMOJI_NAME_ALREADY_TAKEN", "message": "Emoji name already taken."}
            ]
        }
    }
    assert len(fake_discord.app_emojis) == 1


async def test_the_application_holds_at_most_2000_emojis(fake_discord: FakeDiscord, client: Poster) -> None:
    from fakecord.state import FakeEmoji

    for number in range(APPLICATION_EMOJI_LIMIT):
        emoji_id = fake_discord.new_id()
        fake_discord.app_emojis[emoji_id] = FakeEmoji(
            emoji_id, f"e{number}", PNG, "image/png", fake_discord.bot_user
        )
    with pytest.raises(discord.HTTPException) as refused:
        await client.create_application_emoji(name="one_more", image=PNG)
    assert (refused.value.status, refused.value.code) == (400, 30008)
    fake_discord.take_rejections(30008)


async def test_a_button_shows_only_an_emoji_the_application_owns(
    fake_discord: FakeDiscord, client: Poster
) -> None:
    fake = fake_discord
    channel = client.get_channel(fake.channel("general").id)
    assert isinstance(channel, discord.TextChannel)
    stranger = discord.PartialEmoji(name="card_five", id=1234567890123)
    with pytest.raises(discord.HTTPException) as refused:
        await channel.send("cards", view=_button_with(stranger))
    assert refused.value.code == 50035
    [rejection] = fake.take_rejections(50035)
    path = rejection.errors["components"]["0"]["components"]["0"]["emoji"]["id"]  # type: ignore[index]
    assert path["_errors"][0]["code"] == "BUTTON_COMPONENT_INVALID_EMOJI"
    made = await client.create_application_emoji(name="card_five", image=PNG)
    sent = await channel.send("cards", view=_button_with(made))  # the bot's own emoji: fine
    await sent.edit(view=_button_with("🟨"))  # a Unicode emoji needs no owner
    shown = fake.messages[sent.id].components[0]["components"][0]["emoji"]
    assert shown == {"name": "🟨"}


async def test_the_fake_without_emoji_support(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = await FakeDiscord(emojis=False).start()
    fake.patch(monkeypatch)
    try:
        async with fake.running(Poster()) as client:
            with pytest.raises(discord.NotFound):
                await client.fetch_application_emojis()
            with pytest.raises(discord.NotFound):
                await client.create_application_emoji(name="card_five", image=PNG)
    finally:
        await fake.stop()
    assert [(r.status, r.code) for r in fake.take_rejections()] == [(404, 0), (404, 0)]
    assert fake.app_emojis == {}
    fake.assert_clean()
