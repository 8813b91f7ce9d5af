"""A right-click challenge (issue 49, bot/ui/challenges.py): "Play <game> with …" on a person opens
``/<game> new``'s lobby with the clicker as host and a seat held for that person; only they may take it
(the free seats stay open to anyone), their Join takes it and the host starts; they are told by a
direct message, else (their messages closed) by a mention in the lobby's first post, pinging them
alone. Challenging oneself, a bot, or in a channel that has a table already is refused privately in
the clicker's language, nothing opened. The hold is stored with the lobby: a restart keeps it.

An English server (Skip-Bo, 6 seats; both backends, with a restart) and a French one (Skyjo)."""

from __future__ import annotations

import dataclasses
from typing import Any

from bot.clock import ManualClock
from bot.i18n import translate as t
from bot.storage.lobbies import CHALLENGE, HELD_UNTIL, INVITED
from fakecord import FakeInteraction, FakeMessage, FakeUser

from .conftest import BOTH_BACKENDS, FAST, BotDatabase, act_of, private_answer

SKYJO, SKIPBO = "Play Skyjo with …", "Play Skip-Bo with …"


def lobby_button(lobby: FakeMessage, act: str) -> str:
    return next(c for c in lobby.custom_ids if c.endswith(f":{act}"))


def held_line(host: FakeUser, player: FakeUser, locale: str) -> str:
    return t("challenge.lobby.held", locale, host=f"<@{host.id}>", player=f"<@{player.id}>")


def allowed_mentions(fake: Any, inter: FakeInteraction) -> dict[str, Any]:
    """What the bot's callback to ``inter`` (the lobby's first post) allows to ping."""
    [callback] = [r for r in fake.requests if r.path.endswith("/callback") and f"/{inter.id}/" in r.path]
    return dict(callback.json["data"].get("allowed_mentions") or {})


def computers(lobby: FakeMessage) -> int:
    """The computer players the lobby shows (their seat lines: ``table.lobby.seat_computer``)."""
    return sum("🤖 ·" in line for line in lobby.text.splitlines())


def letters_to(fake: Any, user: FakeUser) -> list[FakeMessage]:
    channel = fake.dm_channels.get(user.id)
    return [m for m in fake.messages.values() if channel is not None and m.channel_id == channel.id]


@BOTH_BACKENDS
async def test_the_held_seat_is_only_theirs_survives_a_restart_and_closed_messages_get_a_mention(
    fake_discord: Any, skybo: Any, database: BotDatabase
) -> None:
    """Alice challenges Bob, whose direct messages are closed: the lobby mentions him (him alone).
    Carol and three computers take the free seats; the owner's Join and a fourth computer are refused
    (only Bob's seat is left), before and after a restart; Bob's Join takes it and Alice starts."""
    fake = fake_discord
    alice, bob, carol, owner = fake.user("alice"), fake.user("bob"), fake.user("carol"), fake.owner
    bob.dms_closed = True
    clock = ManualClock()
    first = database.bot(dataclasses.replace(FAST, clock=clock))
    async with fake.running(first, sync_commands=True):
        inter = await fake.run_user_command(alice, SKIPBO, bob)
        lobby = await inter.original()
        assert not lobby.ephemeral and "Skip-Bo" in lobby.text
        assert held_line(alice, bob, "en-US") in lobby.text
        assert [int(u) for u in allowed_mentions(fake, inter)["users"]] == [bob.id]  # Bob alone
        assert not allowed_mentions(fake, inter).get("parse")
        assert len(fake.take_rejections(50007)) == 1 and not letters_to(fake, bob)
        stored = await first.service.lobbies.open_in_channel(lobby.channel_id)
        assert stored is not None and stored.host_id == alice.id and stored.kind == "skipbo"
        assert stored.options[CHALLENGE] is True and stored.options[INVITED][0]["user_id"] == bob.id

        await (await fake.click(carol, lobby, lobby_button(lobby, "jn"))).response()  # a free seat
        await fake.wait_until(lambda: carol.global_name in lobby.text, what="Carol seated")
        for count in (1, 2, 3):
            await (await fake.click(alice, lobby, lobby_button(lobby, "ai"))).response()
            await fake.wait_until(lambda n=count: computers(lobby) == n, what="a computer seated")
        until = f"<t:{stored.options[HELD_UNTIL] // 1000}:R>"
        refused = t("table.error.seat_held.one", owner.locale, players=bob.global_name, until=until)
        answer = await private_answer(await fake.click(owner, lobby, lobby_button(lobby, "jn")))
        assert refused in answer.text
        answer = await private_answer(await fake.click(alice, lobby, lobby_button(lobby, "ai")))
        no_computer = "table.error.seat_held_computer.one"
        assert t(no_computer, alice.locale, players=bob.global_name, until=until) in answer.text
        before = await first.service.lobbies.get(stored.id)
        assert [s.user_id for s in before.seats if s.ai_level is None] == [alice.id, carol.id]
        assert len(before.seats) == 5
    assert first.is_closed()

    bot = await skybo(clock=ManualClock(clock.now_ms() + 60_000))  # a new process, a minute later
    answer = await private_answer(await fake.click(owner, lobby, lobby_button(lobby, "jn")))
    assert refused in answer.text
    assert (await bot.service.lobbies.get(stored.id)).version == before.version, "a refusal changes nothing"
    await (await fake.click(bob, lobby, lobby_button(lobby, "jn"))).response()
    await fake.wait_until(lambda: held_line(alice, bob, "en-US") not in lobby.text, what="Bob seated")
    await (await fake.click(alice, lobby, lobby_button(lobby, "st"))).response()
    table = await fake.wait_until(lambda: bot.service.table_in_channel(lobby.channel_id), what="the game")
    assert [s.user_id for s in table.stored.seats if s.ai_level is None] == [alice.id, carol.id, bob.id]
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table buttons")


async def test_a_french_server_refuses_privately_and_tells_the_challenged_by_direct_message(
    fake_discord: Any, skybo: Any
) -> None:
    """The user commands are synced with their French names, for servers only, and /help names them.
    Carol (French) is
    refused challenging herself and the bot; nothing opens. Alice challenges Carol: the lobby (in
    French, the server's language) holds her seat and pings nobody, Carol gets a direct message in her
    language; the owner's challenge in that channel is refused; Carol's Join takes her seat, Alice starts."""
    fake = fake_discord
    fake.guild.preferred_locale = "fr"
    alice, bob, carol, owner = fake.user("alice"), fake.user("bob"), fake.user("carol"), fake.owner
    bot = await skybo()
    for name, french in ((SKYJO, "Jouer au Skyjo avec …"), (SKIPBO, "Jouer au Skip-Bo avec …")):
        command = fake.registered_command(name, kind=2)
        assert command is not None and command["name_localizations"] == {"fr": french}
        assert command["integration_types"] == [0] and command["contexts"] == [0]

    helped = await private_answer(await fake.run_command(carol, "help"))  # /help names them, in French
    assert "**Jouer au Skyjo avec …** ou **Jouer au Skip-Bo avec …**" in helped.text

    mine = await private_answer(await fake.run_user_command(carol, SKYJO, carol))
    assert mine.text == t("challenge.error.self", "fr")
    robot = await private_answer(await fake.run_user_command(carol, SKYJO, fake.bot_user))
    assert robot.text == t("challenge.error.bot", "fr", player=f"<@{fake.bot_user.id}>")
    assert await bot.service.lobbies.open_in_channel(fake.channel("general").id) is None
    # Her language, as her last command came in (for the letter): stored in the background.
    await fake.wait_until(
        lambda: getattr(bot.service.user_prefs.cached(carol.id), "locale", None) == "fr",
        what="Carol's language noted",
    )

    inter = await fake.run_user_command(alice, SKYJO, carol)
    lobby = await inter.original()
    assert held_line(alice, carol, "fr") in lobby.text and "Skyjo" in lobby.text
    assert not allowed_mentions(fake, inter).get("users"), "told by letter: the lobby pings nobody"
    [letter] = await fake.wait_until(lambda: letters_to(fake, carol) or None, what="Carol's letter")
    assert f"{alice.global_name} te défie au jeu Skyjo dans <#{lobby.channel_id}>" in letter.text

    busy = await private_answer(await fake.run_user_command(owner, SKIPBO, bob))
    assert t("table.error.channel_taken", owner.locale, game="Skyjo") in busy.text
    assert str(lobby.id) in busy.text, "the refusal links to the lobby holding the channel"
    assert not letters_to(fake, bob), "a refused challenge tells nobody"
    still = await bot.service.lobbies.open_in_channel(lobby.channel_id)
    assert still is not None and still.host_id == alice.id and still.kind == "skyjo"

    await (await fake.click(carol, lobby, lobby_button(lobby, "jn"))).response()
    await fake.wait_until(lambda: held_line(alice, carol, "fr") not in lobby.text, what="Carol seated")
    await (await fake.click(alice, lobby, lobby_button(lobby, "st"))).response()
    table = await fake.wait_until(lambda: bot.service.table_in_channel(lobby.channel_id), what="the game")
    assert [s.user_id for s in table.stored.seats] == [alice.id, carol.id]
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table buttons")
