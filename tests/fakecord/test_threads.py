"""Threads in the fake, as Discord has them (fakecord/routes_threads.py): started from a message or
without one, a channel of their own that discord.py resolves, posts and interactions in them, archived
and locked, their gateway events, and the permissions each step needs (403 50013 when missing)."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord import app_commands

from fakecord import FakeDiscord


class ThreadBot(discord.Client):
    """Answers /where with the channel it was run in; remembers the thread events."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default())
        self.tree = app_commands.CommandTree(self)
        self.created: list[int] = []
        self.updated: list[tuple[bool, bool]] = []

    async def setup_hook(self) -> None:
        @self.tree.command(name="where", description="Where am I")
        async def where(interaction: discord.Interaction) -> None:
            channel = interaction.channel
            parent = getattr(channel, "parent_id", None)
            kind = type(channel).__name__
            await interaction.response.send_message(f"{kind} {getattr(channel, 'id', None)} parent={parent}")

        await self.tree.sync()

    async def on_thread_create(self, thread: discord.Thread) -> None:
        self.created.append(thread.id)

    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        meta = payload.data["thread_metadata"]
        self.updated.append((meta["archived"], meta["locked"]))


@pytest.fixture
async def bot(connect_bot: Any) -> ThreadBot:
    bot: ThreadBot = await connect_bot(ThreadBot())
    return bot


async def start_in(
    bot: ThreadBot, fake: FakeDiscord, text: str = "lobby"
) -> tuple[discord.Message, discord.Thread]:
    channel = bot.get_channel(fake.channel("general").id)
    assert isinstance(channel, discord.TextChannel)
    message = await channel.send(text)
    thread = await message.create_thread(name="Skyjo — Alice, Bob")
    return message, thread


async def test_a_thread_started_from_a_message_is_a_channel_of_its_own(
    fake_discord: FakeDiscord, bot: ThreadBot
) -> None:
    message, thread = await start_in(bot, fake_discord)
    general = fake_discord.channel("general")
    # Discord: the thread has its starter message's id, a public thread under the parent
    assert thread.id == message.id and thread.parent_id == general.id
    assert thread.type is discord.ChannelType.public_thread and not thread.archived
    stored = fake_discord.channels[thread.id]
    assert stored.is_thread and stored.parent_id == general.id and stored in fake_discord.threads_of(general)
    assert fake_discord.messages[message.id].payload()["thread"]["id"] == str(thread.id)
    await fake_discord.wait_until(lambda: thread.id in bot.created, what="THREAD_CREATE")
    assert bot.get_channel(thread.id) is not None  # discord.py cached it from THREAD_CREATE

    # posts and edits in it, through a partial messageable as a bot that knows only the id
    partial = bot.get_partial_messageable(thread.id, guild_id=fake_discord.guild.id)
    posted = await partial.send("table")
    await posted.edit(content="table, edited")
    stored_post = fake_discord.messages[posted.id]
    assert stored_post.channel_id == thread.id and stored_post.content == "table, edited"
    assert stored.message_count == 1
    assert [m.id for m in fake_discord.messages.values() if m.channel_id == general.id] == [message.id]

    # a second thread from the same message is refused as Discord does
    with pytest.raises(discord.HTTPException) as refused:
        await message.create_thread(name="again")
    assert refused.value.code == 160004
    fake_discord.take_rejections(160004)


async def test_a_command_run_in_a_thread_has_the_thread_as_its_channel(
    fake_discord: FakeDiscord, bot: ThreadBot
) -> None:
    _, thread = await start_in(bot, fake_discord)
    inter = await fake_discord.run_command(
        fake_discord.user("alice"), "where", channel=fake_discord.channels[thread.id]
    )
    answer = await inter.answer()
    assert answer.content == f"Thread {thread.id} parent={fake_discord.channel('general').id}"
    assert answer.channel_id == thread.id


async def test_archive_unarchive_by_posting_and_locked_threads(
    fake_discord: FakeDiscord, bot: ThreadBot
) -> None:
    _, thread = await start_in(bot, fake_discord)
    posted = await thread.send("table")
    archived = await thread.edit(archived=True)
    assert archived.archived and fake_discord.channels[thread.id].archived
    await fake_discord.wait_until(lambda: (True, False) in bot.updated, what="THREAD_UPDATE archived")
    # an archived thread: its messages are not edited, no command runs there
    with pytest.raises(discord.HTTPException) as refused:
        await posted.edit(content="late")
    assert refused.value.code == 50083
    fake_discord.take_rejections(50083)
    from fakecord import InteractionRefused

    with pytest.raises(InteractionRefused):
        await fake_discord.run_command(
            fake_discord.user("alice"), "where", channel=fake_discord.channels[thread.id]
        )
    # posting unarchives it
    partial = bot.get_partial_messageable(thread.id, guild_id=fake_discord.guild.id)
    await partial.send("back")
    assert not fake_discord.channels[thread.id].archived
    # a moderator locks it: the bot (with Manage Threads) may still post, without it not
    await fake_discord.archive_thread(fake_discord.channels[thread.id], locked=True)
    await fake_discord.set_overwrite(
        fake_discord.channel("general"), fake_discord.bot_user, deny=discord.Permissions(manage_threads=True)
    )
    with pytest.raises(discord.HTTPException) as locked:
        await partial.send("locked out")
    assert locked.value.code == 160005
    fake_discord.take_rejections(160005)


async def test_missing_thread_permissions_are_refused_with_50013(
    fake_discord: FakeDiscord, bot: ThreadBot
) -> None:
    general = fake_discord.channel("general")
    _, thread = await start_in(bot, fake_discord, "first")
    # the bot may archive the thread it started without Manage Threads, but not lock it
    await fake_discord.set_overwrite(
        general, fake_discord.bot_user, deny=discord.Permissions(manage_threads=True)
    )
    with pytest.raises(discord.Forbidden):
        await thread.edit(archived=True, locked=True)
    assert (await thread.edit(archived=True)).archived
    # no Send Messages in Threads: no post in a thread (Send Messages alone is not enough)
    _, second = await start_in(bot, fake_discord, "second")
    await fake_discord.set_overwrite(
        general,
        fake_discord.bot_user,
        deny=discord.Permissions(send_messages_in_threads=True, manage_threads=True),
    )
    with pytest.raises(discord.Forbidden):
        await second.send("no")
    # no Create Public Threads: no thread, from a message or without one
    await fake_discord.set_overwrite(
        general, fake_discord.bot_user, deny=discord.Permissions(create_public_threads=True)
    )
    channel = bot.get_channel(general.id)
    assert isinstance(channel, discord.TextChannel)
    message = await channel.send("third")
    with pytest.raises(discord.Forbidden):
        await message.create_thread(name="refused")
    with pytest.raises(discord.Forbidden):
        await channel.create_thread(name="refused", type=discord.ChannelType.public_thread)
    assert len(fake_discord.take_rejections(50013)) == 4
    assert len(fake_discord.threads_of(general)) == 2


async def test_a_thread_without_a_message_and_after_a_reconnect(
    fake_discord: FakeDiscord, bot: ThreadBot
) -> None:
    channel = bot.get_channel(fake_discord.channel("games").id)
    assert isinstance(channel, discord.TextChannel)
    thread = await channel.create_thread(name="Table 1", type=discord.ChannelType.public_thread)
    assert thread.type is discord.ChannelType.public_thread and thread.parent_id == channel.id
    assert fake_discord.channels[thread.id].owner_id == fake_discord.bot_user.id
    # GUILD_CREATE lists the active threads: a bot identifying anew knows it
    guild_payload = fake_discord.guild.payload()
    assert [t["id"] for t in guild_payload["threads"]] == [str(thread.id)]
    await thread.edit(archived=True)
    assert fake_discord.guild.payload()["threads"] == []


async def test_a_deleted_thread_or_parent_takes_the_thread_with_it(
    fake_discord: FakeDiscord, bot: ThreadBot
) -> None:
    general = fake_discord.channel("general")
    _, first = await start_in(bot, fake_discord, "first")
    _, second = await start_in(bot, fake_discord, "second")
    await fake_discord.delete_channel(fake_discord.channels[first.id])
    await fake_discord.wait_until(lambda: bot.get_channel(first.id) is None, what="THREAD_DELETE")
    assert [t.id for t in fake_discord.threads_of(general)] == [second.id]
    partial = bot.get_partial_messageable(first.id, guild_id=fake_discord.guild.id)
    with pytest.raises(discord.NotFound):
        await partial.send("gone")
    await fake_discord.delete_channel(general)  # its threads go with it
    assert second.id not in fake_discord.channels
    assert len(fake_discord.take_rejections(10003)) == 1
