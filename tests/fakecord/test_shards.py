"""The fake Discord shards as Discord's gateway does (issue 25, item 2), seen by plain discord.py clients.

Independent of the Skybo bot: a tiny client (:class:`Probe`) with one slash command says which
shard answered and records every gateway event type it received. Two guilds are made on purpose,
``alpha`` on shard 0 of 2 and ``beta`` on shard 1 of 2; the default guild lands wherever its id puts
it, and the expectations say so through :func:`shard_of` rather than assuming.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import discord
import pytest
from discord import app_commands

from fakecord import FakeDiscord, FakeGuild, GatewaySession, shard_of


class Probe(discord.Client):
    """A client with ``/where`` (answers which client and shard got the interaction) that records the
    gateway event types and interactions it received."""

    def __init__(self, label: str, **options: Any) -> None:
        super().__init__(intents=discord.Intents.default(), **options)
        self.label = label
        self.event_types: list[str] = []
        self.interaction_ids: list[int] = []
        self.tree = app_commands.CommandTree(self)
        probe = self

        @self.tree.command(name="where", description="which shard answers")
        async def where(interaction: discord.Interaction) -> None:
            shard = interaction.guild.shard_id if interaction.guild is not None else 0
            await interaction.response.send_message(f"{probe.label} shard {shard}")

    async def on_socket_event_type(self, event_type: str) -> None:
        self.event_types.append(event_type)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        self.interaction_ids.append(interaction.id)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py sleeps 5 s before every IDENTIFY but the first (max_concurrency 1); the fake
        has no identify rate limit, so the shards of an AutoShardedClient connect at once."""


class AutoProbe(discord.AutoShardedClient):
    """The same probe as one AutoShardedClient running several shards."""

    def __init__(self, **options: Any) -> None:
        super().__init__(intents=discord.Intents.default(), **options)
        self.interaction_ids: list[int] = []
        self.tree = app_commands.CommandTree(self)

        @self.tree.command(name="where", description="which shard answers")
        async def where(interaction: discord.Interaction) -> None:
            shard = interaction.guild.shard_id if interaction.guild is not None else 0
            await interaction.response.send_message(f"auto shard {shard}")

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        self.interaction_ids.append(interaction.id)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """No 5 s pause between the shards' IDENTIFYs (see :meth:`Probe.before_identify_hook`)."""


@dataclass
class World:
    fake: FakeDiscord
    alpha: FakeGuild  # on shard 0 of 2
    beta: FakeGuild  # on shard 1 of 2

    def guild_ids_on(self, shard_id: int, shard_count: int = 2) -> set[int]:
        return {g.id for g in self.fake.guilds.values() if shard_of(g.id, shard_count) == shard_id}


@pytest.fixture
async def world(fake_discord: FakeDiscord) -> World:
    alice, bob = fake_discord.user("alice"), fake_discord.user("bob")
    alpha = await fake_discord.add_guild(
        "Alpha", shard=(0, 2), channels=["alpha-general", "alpha-games"], members=[alice, bob]
    )
    beta = await fake_discord.add_guild(
        "Beta", shard=(1, 2), channels=["beta-general", "beta-games"], members=[alice, bob]
    )
    return World(fake_discord, alpha, beta)


@contextlib.asynccontextmanager
async def two_shards(fake: FakeDiscord) -> AsyncIterator[tuple[Probe, Probe]]:
    """Two clients, shards 0 and 1 of 2, running against the same fake at once."""
    first, second = Probe("first", shard_id=0, shard_count=2), Probe("second", shard_id=1, shard_count=2)
    async with fake.running(first, sync_commands=True), fake.running(second):
        yield first, second


def event_types(session: GatewaySession) -> list[str]:
    return [event["t"] for event in session.events]


def events_of(session: GatewaySession, event_type: str) -> list[dict[str, Any]]:
    return [event["d"] for event in session.events if event["t"] == event_type]


def refusal(exc: pytest.ExceptionInfo[RuntimeError]) -> discord.ConnectionClosed:
    """The gateway close the client died of (``running`` chains it to its RuntimeError)."""
    cause = exc.value.__cause__
    assert isinstance(cause, discord.ConnectionClosed), f"not a gateway close: {cause!r}"
    return cause


def test_the_shard_helper_picks_ids_on_the_asked_shard(fake_discord: FakeDiscord) -> None:
    for count in (1, 2, 3, 16):
        for shard_id in range(count):
            snowflake = fake_discord.new_id.on_shard(shard_id, count)
            assert (snowflake >> 22) % count == shard_id == shard_of(snowflake, count)
    assert shard_of(None, 4) == 0  # DMs: shard 0
    with pytest.raises(ValueError):
        fake_discord.new_id.on_shard(2, 2)


async def test_each_shard_gets_ready_and_guild_create_of_its_guilds_only(world: World) -> None:
    fake = world.fake
    async with two_shards(fake) as (first, second):
        sessions = {0: fake.session_on(0, 2), 1: fake.session_on(1, 2)}
        assert world.alpha.id in world.guild_ids_on(0) and world.beta.id in world.guild_ids_on(1)
        for shard_id, session in sessions.items():
            (ready,) = events_of(session, "READY")
            assert ready["shard"] == [shard_id, 2]
            assert {int(g["id"]) for g in ready["guilds"]} == world.guild_ids_on(shard_id)
            created = {int(g["id"]) for g in events_of(session, "GUILD_CREATE")}
            assert created == world.guild_ids_on(shard_id)
        # what each client knows: its own guilds, none of the other shard's
        assert {g.id for g in first.guilds} == world.guild_ids_on(0)
        assert {g.id for g in second.guilds} == world.guild_ids_on(1)
        assert first.get_guild(world.beta.id) is None and second.get_guild(world.alpha.id) is None
        assert fake.sessions_for(world.beta.id) == [sessions[1]]
        assert fake.sessions_for(None) == [sessions[0]]
        assert len(fake.gateway_closes) == 0


async def test_guild_events_go_to_the_shard_of_their_guild_only(world: World) -> None:
    fake = world.fake
    async with two_shards(fake) as (first, second):
        zero, one = fake.session_on(0, 2), fake.session_on(1, 2)
        before = {0: len(zero.events), 1: len(one.events)}

        # a channel of beta (shard 1) deleted, one of alpha (shard 0) updated
        beta_games = fake.channel("beta-games")
        await fake.delete_channel(beta_games)
        await fake.set_overwrite(
            fake.channel("alpha-games"), fake.bot_user, deny=discord.Permissions(send_messages=True)
        )
        # a user writes in alpha; the bot joins a new guild on shard 1; the bot leaves alpha
        await fake.send_user_message(fake.user("alice"), fake.channel("alpha-general"), "hello")
        gamma = await fake.add_guild("Gamma", shard=(1, 2), channels=["gamma-general"])
        await fake.remove_bot_from_guild(world.alpha)
        # a raw event is routed by its guild too
        await fake.dispatch("GUILD_UPDATE", {"id": str(world.beta.id), "name": "Beta renamed"})

        new_zero = event_types(zero)[before[0] :]
        new_one = event_types(one)[before[1] :]
        assert new_zero == ["CHANNEL_UPDATE", "MESSAGE_CREATE", "GUILD_DELETE"]
        assert new_one == ["CHANNEL_DELETE", "GUILD_CREATE", "GUILD_UPDATE"]
        assert events_of(one, "CHANNEL_DELETE")[0]["id"] == str(beta_games.id)
        assert events_of(zero, "GUILD_DELETE")[0] == {"id": str(world.alpha.id)}

        # and the clients acted on them: each on its own guilds
        await fake.wait_until(
            lambda: (
                first.get_guild(world.alpha.id) is None
                and second.get_guild(gamma.id) is not None
                and second.get_channel(beta_games.id) is None
            ),
            what="both clients to apply their events",
        )
        assert first.get_guild(gamma.id) is None
        renamed = second.get_guild(world.beta.id)
        assert renamed is not None and renamed.name == "Beta renamed"
        assert "CHANNEL_DELETE" not in first.event_types
        assert "MESSAGE_CREATE" not in second.event_types


async def test_an_interaction_reaches_only_the_client_of_its_guilds_shard(world: World) -> None:
    fake = world.fake
    alice = fake.user("alice")
    async with two_shards(fake) as (first, second):
        in_beta = await fake.run_command(alice, "where", channel=fake.channel("beta-general"))
        assert (await in_beta.answer()).content == "second shard 1"
        in_alpha = await fake.run_command(alice, "where", channel=fake.channel("alpha-general"))
        assert (await in_alpha.answer()).content == "first shard 0"
        in_dm = await fake.run_command(alice, "where", channel=fake.dm_channel(alice))
        assert (await in_dm.answer()).content == "first shard 0"  # DMs: shard 0

        assert first.interaction_ids == [in_alpha.id, in_dm.id]
        assert second.interaction_ids == [in_beta.id]
        assert in_beta.sessions == [fake.session_on(1, 2)]
        assert in_alpha.sessions == in_dm.sessions == [fake.session_on(0, 2)]
        one = fake.session_on(1, 2)
        assert [int(d["id"]) for d in events_of(one, "INTERACTION_CREATE")] == [in_beta.id]


async def test_one_shard_resumes_after_an_outage_while_the_other_runs_on(world: World) -> None:
    fake = world.fake
    alice = fake.user("alice")
    async with two_shards(fake) as (first, second):
        one = fake.session_on(1, 2)
        async with fake.gateway_outage(session=one):
            assert not one.live and fake.session_on(0, 2).live
            in_alpha = await fake.run_command(alice, "where", channel=fake.channel("alpha-general"))
            assert (await in_alpha.answer()).content == "first shard 0"  # shard 0 never noticed
            in_beta = await fake.run_command(alice, "where", channel=fake.channel("beta-general"))
            assert in_beta.sessions == [one] and in_beta.callback is None  # queued for shard 1's RESUME
        assert (await in_beta.answer()).content == "second shard 1"  # replayed after the RESUME
        assert one.resumes == 1 and fake.session_on(1, 2) is one and one.live
        assert first.interaction_ids == [in_alpha.id] and second.interaction_ids == [in_beta.id]


@pytest.mark.parametrize(
    "shard", [(2, 2), (0, 0), (5, 3)], ids=["id-equals-count", "no-shards", "id-past-count"]
)
async def test_an_out_of_range_shard_is_closed_with_4010(
    fake_discord: FakeDiscord, shard: tuple[int, int]
) -> None:
    client = Probe("bad", shard_id=shard[0], shard_count=shard[1])
    with pytest.raises(RuntimeError, match="stopped before it was ready") as exc:
        async with fake_discord.running(client):
            pass
    assert refusal(exc).code == 4010  # discord.py gives up: 4010 is not a code it reconnects on
    assert client.is_closed()
    assert fake_discord.gateway_closes == [(4010, "Invalid shard.")]
    (violation,) = fake_discord.take_protocol_violations("out of range")
    assert f"[{shard[0]}, {shard[1]}]" in violation
    assert fake_discord.sessions == {}  # no session was made


async def test_a_second_session_on_a_live_shard_is_refused_and_the_first_keeps_it(world: World) -> None:
    fake = world.fake
    async with two_shards(fake) as (_, second):
        holder = fake.session_on(1, 2)
        intruder = Probe("intruder", shard_id=1, shard_count=2)
        with pytest.raises(RuntimeError) as exc:
            async with fake.running(intruder):
                pass
        assert refusal(exc).code == 4010
        (violation,) = fake.take_protocol_violations("a second session on one shard")
        assert "IDENTIFY on shard [1, 2]" in violation
        # another shard count while shards of 2 are live: refused too
        other_layout = Probe("other", shard_id=0, shard_count=3)
        with pytest.raises(RuntimeError) as exc:
            async with fake.running(other_layout):
                pass
        assert refusal(exc).code == 4010
        assert len(fake.take_protocol_violations("the shard counts disagree")) == 1
        assert fake.gateway_closes == [(4010, "Invalid shard."), (4010, "Invalid shard.")]

        # the holder still has its shard and answers there
        assert fake.session_on(1, 2) is holder and holder.live
        inter = await fake.run_command(fake.user("bob"), "where", channel=fake.channel("beta-general"))
        assert (await inter.answer()).content == "second shard 1"
        assert second.interaction_ids == [inter.id]


async def test_a_restarted_shard_takes_over_from_its_dead_session(world: World) -> None:
    fake = world.fake
    first = Probe("first", shard_id=0, shard_count=2)
    async with fake.running(first, sync_commands=True):
        async with fake.running(Probe("second", shard_id=1, shard_count=2)):
            old = fake.session_on(1, 2)
        assert not old.live  # the process of shard 1 is gone, shard 0 runs on
        restarted = Probe("restarted", shard_id=1, shard_count=2)
        async with fake.running(restarted):
            new = fake.session_on(1, 2)
            assert new is not old and old.retired and new.live
            assert fake.sessions_for(world.beta.id) == [new]
            inter = await fake.run_command(fake.user("alice"), "where", channel=fake.channel("beta-general"))
            assert (await inter.answer()).content == "restarted shard 1"
            assert restarted.interaction_ids == [inter.id]
            assert first.interaction_ids == []
    assert fake.protocol_violations == []


async def test_overlap_allowed_models_discord_every_matching_session_receives(world: World) -> None:
    fake = world.fake
    fake.allow_shard_overlap = True
    twin = Probe("twin", shard_id=1, shard_count=2)
    async with two_shards(fake) as (_, second), fake.running(twin):
        sessions = fake.sessions_for(world.beta.id)
        assert len(sessions) == 2 and all(s.shard == (1, 2) and s.live for s in sessions)
        await fake.delete_channel(fake.channel("beta-games"))
        for session in sessions:
            assert event_types(session)[-1] == "CHANNEL_DELETE"
        await fake.wait_until(
            lambda: "CHANNEL_DELETE" in second.event_types and "CHANNEL_DELETE" in twin.event_types,
            what="both clients of shard 1 to receive CHANNEL_DELETE",
        )
    assert fake.protocol_violations == []


async def test_an_autosharded_client_runs_both_shards(world: World) -> None:
    fake = world.fake
    client = AutoProbe(shard_ids=[0, 1], shard_count=2)
    async with fake.running(client, sync_commands=True):
        assert {s.shard for s in fake.sessions.values()} == {(0, 2), (1, 2)}
        assert {g.id for g in client.guilds} == set(fake.guilds)
        beta = client.get_guild(world.beta.id)
        assert beta is not None and beta.shard_id == 1
        alice = fake.user("alice")
        in_beta = await fake.run_command(alice, "where", channel=fake.channel("beta-general"))
        in_alpha = await fake.run_command(alice, "where", channel=fake.channel("alpha-general"))
        assert (await in_beta.answer()).content == "auto shard 1"
        assert (await in_alpha.answer()).content == "auto shard 0"
        assert in_beta.sessions == [fake.session_on(1, 2)] and in_alpha.sessions == [fake.session_on(0, 2)]
        assert client.interaction_ids == [in_beta.id, in_alpha.id]


async def test_the_recommended_shard_count_comes_from_gateway_bot(world: World) -> None:
    fake = world.fake
    fake.recommended_shards = 2
    client = AutoProbe()  # no shard_count: discord.py asks GET /gateway/bot
    async with fake.running(client):
        assert client.shard_count == 2
        assert sorted(s.shard for s in fake.sessions.values()) == [(0, 2), (1, 2)]
        assert {g.id for g in client.guilds} == set(fake.guilds)
    (answer,) = [r.response for r in fake.requests_to("GET", "/gateway/bot")]
    assert isinstance(answer, dict)
    assert answer["shards"] == 2 and answer["session_start_limit"]["max_concurrency"] == 1


async def test_sharding_required_closes_an_unsharded_identify_with_4011(world: World) -> None:
    fake = world.fake
    fake.sharding_required = True
    for unsharded in (Probe("plain"), Probe("one", shard_id=0, shard_count=1)):
        with pytest.raises(RuntimeError) as exc:
            async with fake.running(unsharded):
                pass
        assert refusal(exc).code == 4011
    assert fake.gateway_closes == [(4011, "Sharding required."), (4011, "Sharding required.")]
    assert fake.sessions == {} and fake.protocol_violations == []  # Discord's verdict, not a bug
    async with two_shards(fake) as (first, second):  # sharded, the same bot is let in
        assert first.is_ready() and second.is_ready()
