"""The sandbox's places besides its server (issue 49): where Skybo is reached through a user install.

* **A group DM** of Alice, Bob and Chloé (Discord's type 3 channel): the bot is not in it; the three
  installed Skybo to their accounts, so its commands are offered there.
* **Friends' server**, with #lounge: Alice and Bob are members, the bot is not (nobody invited it);
  Alice's and Bob's installs reach it, as they reach any server that lets its members use external
  apps.

The fake Discord decides what works where (fakecord/places.py): which commands the page offers in a
place (:func:`offered`), what an interaction there carries, which routes answer the bot. The sandbox
adds nothing for these places: the bot plays its "token tables" there exactly as on Discord.
"""

from __future__ import annotations

from typing import Any

from fakecord import FakeChannel, FakeDiscord, FakeUser
from fakecord.clock import SnowflakeFactory

GROUP_DM_CHANNEL = 3
INSTALLED = ("alice", "bob", "chloe")  # installed Skybo to their accounts (user install)
GROUP_DM = ("alice", "bob", "chloe")  # the group DM's members, the first its owner
FRIENDS = "Friends' server"  # the server where the bot is not a member
FRIENDS_CHANNEL = "lounge"
FRIENDS_MEMBERS = ("alice", "bob")  # Alice owns it (the fake's owner of every server)


async def furnish(fake: FakeDiscord, first_id: int) -> None:
    """Adds the group DM and the server without the bot, and the users' installs. Their ids are
    ``first_id``, ``first_id + 1``... at every start (a snowflake in the past, clear of the world's), so
    that a game kept with ``--keep`` names the same places; the fake's ids then go on from its clock."""
    for username in INSTALLED:
        fake.install_for_user(fake.user(username))
    ids, fake.new_id = fake.new_id, SnowflakeFactory(first_id)
    try:
        fake.add_group_dm(*(fake.user(u) for u in GROUP_DM))
        members = [fake.user(u) for u in FRIENDS_MEMBERS]
        await fake.add_guild(FRIENDS, channels=[FRIENDS_CHANNEL], members=members, bot=False)
    finally:
        fake.new_id = ids


def group_dms(fake: FakeDiscord) -> list[FakeChannel]:
    return sorted((c for c in fake.channels.values() if c.type == GROUP_DM_CHANNEL), key=lambda c: c.id)


def group_dm_name(channel: FakeChannel) -> str:
    """A group DM's name, else its members' names (the page leaves its own user out, as Discord does)."""
    return channel.name or ", ".join(u.global_name or u.username for u in channel.recipients)


def find(fake: FakeDiscord, value: Any, user: FakeUser) -> FakeChannel | None:
    """A group DM (by id) or a text channel of a server other than the sandbox's (by id or name) that
    ``user`` is in; None if there is no such place. Raises ``KeyError`` if ``user`` is not in it."""
    for channel in group_dms(fake):
        if str(channel.id) == str(value):
            if user not in channel.recipients:
                raise KeyError(f"{user.global_name or user.username} is not in this group DM")
            return channel
    for guild in fake.guilds.values():
        if guild is fake.guild:
            continue
        for channel in guild.channels:
            if channel.type == 0 and (str(channel.id) == str(value) or channel.name == value):
                if user.id not in guild.members:
                    raise KeyError(f"{user.global_name or user.username} is not a member of {guild.name}")
                return channel
    return None


def view(fake: FakeDiscord) -> dict[str, Any]:
    """The places as the page lists them: the other servers (with whether the bot is in them) and the
    group DMs, each with its members' ids (a page lists only the places its user is in)."""
    servers = [
        {
            "id": str(guild.id),
            "name": guild.name,
            "bot": fake.bot_user.id in guild.members,
            "members": [str(i) for i in guild.members],
            "installed": [
                u.global_name or u.username
                for u in fake.users.values()
                if u.id in guild.members and u.id in fake.user_installs
            ],
            "channels": [{"id": str(c.id), "name": c.name} for c in guild.channels if c.type == 0],
        }
        for guild in fake.guilds.values()
        if guild is not fake.guild
    ]
    groups = [
        {"id": str(c.id), "name": group_dm_name(c), "members": [str(u.id) for u in c.recipients]}
        for c in group_dms(fake)
    ]
    return {"servers": servers, "group_dms": groups, "installs": sorted(str(i) for i in fake.user_installs)}


def offered(fake: FakeDiscord, user: FakeUser | None, channel: FakeChannel | None) -> list[str] | None:
    """The slash commands Discord's client offers ``user`` in ``channel`` (None: no place chosen yet)."""
    if user is None or channel is None:
        return None
    return [command["name"] for command in fake.offered_commands(user, channel)]
