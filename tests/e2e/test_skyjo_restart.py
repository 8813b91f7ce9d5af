"""The bot process stops in the middle of a game and a new one starts on the same database."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from bot.client import create_bot
from bot.service.ledger import GameLedger
from bot.storage import Storage
from bot.ui import followed_panels

from .conftest import (
    BOTH_BACKENDS,
    FAST,
    BotDatabase,
    act_of,
    button,
    open_panel,
    play_turns,
    refuse_meta_writes,
    settle,
    start_table,
    until_turn,
)


@BOTH_BACKENDS
async def test_a_game_resumes_after_a_restart_with_old_buttons_working(
    fake_discord: Any, skybo: Any, database: BotDatabase
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    rng = random.Random(3)

    first = database.bot()
    async with fake.running(first, sync_commands=True):
        table_message, game_id = await start_table(fake, first, alice, [bob], score_limit=10, computers=1)
        table = await until_turn(fake, first, game_id, table_message, alice, rng)
        old_panel = await open_panel(fake, alice, table_message)
        state_before = table.state.to_dict()
        version_before = table.version
        assert version_before > 4
    assert first.is_closed()

    # A new process on the same database: the same game, in the same state.
    second = await skybo()
    assert second.service.storage.db.where.startswith("PostgreSQL") == (database.kind == "postgres")
    table = second.service.tables[game_id]
    assert table.version == version_before
    assert table.state.to_dict() == state_before
    await fake.wait_until(lambda: "live again" in table_message.text, what="the table live again")

    # A panel drawn by the previous process still works: Draw on it applies in place.
    inter = await fake.click(alice, old_panel, button(old_panel, "dr"))
    assert (await inter.answer()).id == old_panel.id
    assert table.version == version_before + 1 and table.state.drawn is not None
    assert any(act_of(c) == "rp" for c in old_panel.custom_ids)
    inter = await fake.click(alice, old_panel, button(old_panel, "rp"))
    assert (await inter.answer()).id == old_panel.id
    # The computer player (next after Alice, or later) plays on without anyone clicking for it.
    ai_seat = next(s.seat for s in table.stored.seats if s.ai_level is not None)
    assert not table.recent or all(seat != ai_seat for seat, _ in list(table.recent)[:2])
    await fake.wait_until(
        lambda: any(seat == ai_seat for seat, _ in table.recent), what="a computer move after the restart"
    )
    # The table message's buttons (posted before the restart) work, and the game goes on to its end.
    await play_turns(fake, second, game_id, table_message, [alice, bob], rng)
    stored = await GameLedger(second.service.storage).get_game(game_id, verify=True)
    assert stored.status == "finished" and stored.verified
    assert len(await second.service.storage.games.actions(game_id)) == stored.version


async def test_next_round_votes_survive_a_restart(fake_discord: Any, skybo: Any, db_file: Path) -> None:
    """A player who asked for the next round is still counted after a restart: the round is dealt when
    the last human asks, not before, and the votes are gone once it is."""
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    rng = random.Random(5)

    first = create_bot(database_path=db_file, tuning=FAST)
    async with fake.running(first, sync_commands=True):
        table_message, game_id = await start_table(fake, first, alice, [bob], score_limit=1000)
        table = first.service.tables[game_id]
        alice_seat, bob_seat = table.seat_of(alice.id), table.seat_of(bob.id)

        def round_over() -> bool:
            return bool(table.state.phase == "round_over")

        await play_turns(fake, first, game_id, table_message, [alice, bob], rng, until=round_over)
        # A limit no single round reaches (at most 2 x 144 points): the game is never over here.
        assert table.state.round == 1 and round_over()

        def next_round() -> bool:
            return any(act_of(c) == "nx" for c in table_message.custom_ids)

        await fake.wait_until(next_round, what="the Next round button")
        await (await fake.click(alice, table_message, button(table_message, "nx"))).response()
        await fake.wait_until(lambda: table.votes == {alice_seat}, what="Alice's vote")
        assert table.round_waiting() == [bob_seat]
        version = table.version

    second = await skybo()
    table = second.service.tables[game_id]
    assert table.version == version and table.state.phase == "round_over"
    assert table.votes == {alice_seat} and table.round_waiting() == [bob_seat]

    # Alice asking again changes nothing; Bob asking deals the second round.
    again = await fake.click(alice, table_message, button(table_message, "nx"))
    assert "already" in (await again.answer()).text  # acknowledged first, then told privately
    assert table.version == version and table.state.phase == "round_over"
    await (await fake.click(bob, table_message, button(table_message, "nx"))).response()
    await fake.wait_until(lambda: table.version > version, what="the second round")
    assert table.state.round == 2 and table.version == version + 1
    assert not table.votes and "votes" not in table.stored.meta
    stored = await GameLedger(second.service.storage).get_game(game_id, verify=True)
    assert "votes" not in stored.meta


def sent_to(fake: Any, user: Any) -> list[Any]:
    """The turn mentions of ``user`` the bot posted, deleted ones included."""
    return [m for m in fake.messages.values() if m.content.startswith(f"<@{user.id}>")]


async def draw_and_place(fake: Any, user: Any, table_message: Any) -> None:
    """``user`` plays a Skyjo turn from a new panel: draw, then place the card on their first slot."""
    panel = await open_panel(fake, user, table_message)
    await (await fake.click(user, panel, button(panel, "dr"))).answer()
    await (await fake.click(user, panel, button(panel, "rp"))).answer()


async def test_a_restart_does_not_mention_the_same_turn_twice(
    fake_discord: Any, skybo: Any, db_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn mention is stored with the game: the new process neither mentions the player again for
    the turn in progress nor leaves the old mention behind once the turn is played."""
    # Nobody is taken to be looking at a panel: the turn's mention goes out (FollowedPanels.looking).
    monkeypatch.setattr(followed_panels, "LOOKING_MS", 0)
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    rng = random.Random(11)

    first = create_bot(database_path=db_file, tuning=FAST)
    async with fake.running(first, sync_commands=True):
        table_message, game_id = await start_table(fake, first, alice, [bob], score_limit=1000)
        table = await until_turn(fake, first, game_id, table_message, alice, rng)
        await first.presenter.flush()
        await fake.wait_until(
            lambda: [m for m in sent_to(fake, alice) if not m.deleted], what="Alice mentioned"
        )
        mention = next(m for m in sent_to(fake, alice) if not m.deleted)
        before = len(sent_to(fake, alice))
        turns = table.turns
        assert turns > 0 and table.stored.meta["mention"] == [alice.id, turns, mention.id]

    second = await skybo()
    table = second.service.tables[game_id]
    assert table.turns == turns
    await fake.wait_until(lambda: "live again" in table_message.text, what="the table live again")
    await second.presenter.flush()
    assert len(sent_to(fake, alice)) == before and not mention.deleted  # no second mention for this turn

    await draw_and_place(fake, alice, table_message)
    await fake.wait_until(lambda: mention.deleted, what="the old mention deleted after the restart")
    assert table.turns == turns + 1


async def test_a_stop_as_the_turn_passes_keeps_the_mention_it_was_posting(
    fake_discord: Any, skybo: Any, db_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot stops the moment Alice's move hands the turn to Bob, while Bob's mention is on its way.
    The presenter's stop gives what is under way its grace (``Presenter.close``, ``CLOSE_GRACE_S``):
    the mention is posted AND its id stored, so the next process neither mentions Bob again for that
    turn nor leaves that mention behind once he has played. Cancelled at once (the code before), the
    mention was lost, or posted and never deleted."""
    monkeypatch.setattr(followed_panels, "LOOKING_MS", 0)
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    rng = random.Random(11)

    first = create_bot(database_path=db_file, tuning=FAST)
    async with fake.running(first, sync_commands=True):
        table_message, game_id = await start_table(fake, first, alice, [bob], score_limit=1000)
        table = await until_turn(fake, first, game_id, table_message, alice, rng)
        await first.presenter.flush()
        earlier = sent_to(fake, bob)  # his mentions for earlier turns
        await draw_and_place(fake, alice, table_message)
        turns = table.turns
        assert table.turn_user() == bob.id
        # The bot stops now, as a deploy would stop it: no flush.

    (mention,) = [m for m in sent_to(fake, bob) if m not in earlier]
    storage = await Storage.open(db_file)
    try:
        stored = await GameLedger(storage).get_game(game_id)
    finally:
        await storage.close()
    assert stored.meta["mention"] == [bob.id, turns, mention.id]

    second = await skybo()
    await fake.wait_until(lambda: "live again" in table_message.text, what="the table live again")
    await second.presenter.flush()
    assert sent_to(fake, bob) == [*earlier, mention] and not mention.deleted  # not twice for this turn
    await draw_and_place(fake, bob, table_message)
    await fake.wait_until(lambda: mention.deleted, what="Bob's mention deleted once he played")


async def test_a_mention_the_database_could_not_forget_is_deleted_once_by_the_next_process(
    fake_discord: Any, skybo: Any, db_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn passes and the database goes away before the old mention is forgotten in the game's
    meta: the mention is left in the channel (the meta still names it), and the next process deletes
    it, once. Deleted then anyway (the code before), the next process, reading it in the meta, deleted
    it again: Discord's 404 (the knockout test under load, a stop right after the turn limits)."""
    monkeypatch.setattr(followed_panels, "LOOKING_MS", 0)
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    first = create_bot(database_path=db_file, tuning=FAST)
    async with fake.running(first, sync_commands=True):
        table_message, game_id = await start_table(fake, first, alice, [bob], score_limit=1000)
        table = await until_turn(fake, first, game_id, table_message, alice, random.Random(11))
        await first.presenter.flush()
        await fake.wait_until(
            lambda: [m for m in sent_to(fake, alice) if not m.deleted], what="Alice mentioned"
        )
        (mention,) = [m for m in sent_to(fake, alice) if not m.deleted]
        # The database refuses the games' meta writes (the moves' commits go through): the mention's
        # pass cannot forget Alice's mention when her move hands the turn to Bob.
        refused, take_back = refuse_meta_writes(monkeypatch, first)
        await draw_and_place(fake, alice, table_message)
        assert table.turn_user() == bob.id
        await fake.wait_until(lambda: refused, what="the mention's pass trying to forget it")
        await first.presenter.flush()
        take_back()
        assert table.stored.meta["mention"][2] == mention.id and not mention.deleted  # still named: kept

    second = await skybo()
    await fake.wait_until(lambda: mention.deleted, what="the old mention deleted by the next process")
    await second.presenter.flush()
    deletes = [r for r in fake.requests if r.method == "DELETE" and r.path.endswith(f"/{mention.id}")]
    assert [r.status for r in deletes] == [204]
    fake.assert_clean()


async def test_a_mention_posted_while_the_database_could_not_name_it_is_stored_later_not_posted_again(
    fake_discord: Any, skybo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database refuses the games' meta writes as Alice's move hands the turn to Bob: Bob's mention
    is posted, but its id cannot be stored. Once the database is back, the next change of that turn
    (Bob draws) stores it rather than mentioning Bob again, and Bob's move deletes it, once. (Before: a
    second mention of the same turn, and the first one stayed in the channel for good.)"""
    monkeypatch.setattr(followed_panels, "LOOKING_MS", 0)
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    bot = await skybo()
    table_message, game_id = await start_table(fake, bot, alice, [bob], score_limit=1000)
    table = await until_turn(fake, bot, game_id, table_message, alice, random.Random(11))
    await bot.presenter.flush()
    (alices,) = await fake.wait_until(
        lambda: [m for m in sent_to(fake, alice) if not m.deleted] or None, what="Alice mentioned"
    )
    earlier = sent_to(fake, bob)
    refused, take_back = refuse_meta_writes(monkeypatch, bot)
    await draw_and_place(fake, alice, table_message)
    assert table.turn_user() == bob.id
    (mention,) = await fake.wait_until(
        lambda: [m for m in sent_to(fake, bob) if m not in earlier] or None, what="Bob mentioned"
    )
    await settle(bot)
    assert refused and table.stored.meta["mention"][2] == alices.id  # Bob's not named: Alice's still is
    assert not alices.deleted
    take_back()

    # Bob draws: a change of the same turn. Its pass stores his mention, posts none, and deletes Alice's.
    panel = await open_panel(fake, bob, table_message)
    await (await fake.click(bob, panel, button(panel, "dr"))).answer()
    await fake.wait_until(
        lambda: table.stored.meta.get("mention") == [bob.id, table.turns, mention.id],
        what="Bob's mention stored",
    )
    await fake.wait_until(lambda: alices.deleted, what="Alice's mention deleted")
    await settle(bot)
    assert [m for m in sent_to(fake, bob) if m not in earlier] == [mention] and not mention.deleted
    await (await fake.click(bob, panel, button(panel, "rp"))).answer()
    await fake.wait_until(lambda: mention.deleted, what="Bob's mention deleted once he played")
    await settle(bot)
    for deleted in (alices, mention):
        deletes = [r for r in fake.requests if r.method == "DELETE" and r.path.endswith(f"/{deleted.id}")]
        assert [r.status for r in deletes] == [204]
    fake.assert_clean()


async def test_a_mention_the_database_could_not_name_is_deleted_when_a_computers_turn_follows(
    fake_discord: Any, skybo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice's mention is posted, but the database refuses the write naming it. She plays, and the turn
    goes to a computer player, which takes its time: her mention is deleted then, as the turn moves on,
    though the game's meta names no message to delete (before, only the meta was looked at: nothing was
    due at a computer's turn, and at the game's end the mention stayed for good)."""
    monkeypatch.setattr(followed_panels, "LOOKING_MS", 0)
    fake = fake_discord
    alice = fake.user("alice")
    bot = await skybo()
    table_message, game_id = await start_table(
        fake, bot, alice, [], computers=1, score_limit=1000, turn_limit=0
    )
    table = bot.service.tables[game_id]
    seat = table.seat_of(alice.id)

    def alice_to_draw() -> bool:
        return table.state.phase == "play" and table.state.turn == seat and table.state.drawn is None

    await play_turns(fake, bot, game_id, table_message, [alice], random.Random(11), until=alice_to_draw)
    await settle(bot)
    earlier = sent_to(fake, alice)
    # The writes naming a mention are refused; Alice plays, the computer at once: her turn comes again.
    naming = lambda meta: isinstance((meta.get("mention") or [None] * 3)[2], int)  # noqa: E731
    refused, _ = refuse_meta_writes(monkeypatch, bot, naming)
    await draw_and_place(fake, alice, table_message)
    await fake.wait_until(alice_to_draw, what="Alice's turn again")
    (mention,) = await fake.wait_until(
        lambda: [m for m in sent_to(fake, alice) if m not in earlier] or None, what="Alice mentioned"
    )
    await fake.wait_until(lambda: refused, what="its id refused")
    await settle(bot)
    assert table.stored.meta.get("mention") is None and not mention.deleted
    bot.service.ai_delay = 3600.0  # the computer thinks for an hour: its turn lasts the whole test
    await draw_and_place(fake, alice, table_message)
    assert table.turn_user() is None
    await fake.wait_until(lambda: mention.deleted, what="Alice's mention deleted at the computer's turn")
    deletes = [r for r in fake.requests if r.method == "DELETE" and r.path.endswith(f"/{mention.id}")]
    assert [r.status for r in deletes] == [204]
