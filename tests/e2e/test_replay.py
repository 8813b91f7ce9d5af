"""Replays (issue 28 item 5) through the fake Discord: ``/skyjo replay`` and ``/skipbo replay`` show a
finished game step by step from its action log, privately, with buttons that edit it in place."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bot.games.registry import BY_KIND
from bot.i18n import translate as t
from bot.render.images import picture_labels
from bot.service.ledger import GameLedger
from bot.ui import replay

from .conftest import forged_click, play_turns, reveal_own_cards, start_table
from .skipbo_helpers import Clicker, start_skipbo


def ids_of(message: Any) -> dict[str, str]:
    """The replay buttons of ``message`` by their letter (s, p, n, g; b, e, r)."""
    return {c.split(":")[-1]: c for c in message.custom_ids if c.startswith(replay.PREFIX)}


def disabled(message: Any) -> set[str]:
    return {c["custom_id"].split(":")[-1] for c in message.all_components() if c.get("disabled")}


async def picture_of(bot: Any, game_id: int, step: int, locale: str) -> bytes:
    """The picture a replay must show at ``step``: the spectator view drawn as the presenter draws it."""
    storage = bot.service.storage
    stored = await GameLedger(storage).get_game(game_id)
    frame = replay.frame_at(stored, await storage.games.actions(game_id), step)
    image = BY_KIND[stored.kind].image
    labels = picture_labels(stored.kind, image.DEFAULT_LABELS, locale)
    # A computer's name is a ComputerName: drawn as on the live table, its level on a second line.
    names = replay.seat_names(stored, locale)
    return bytes(image.render_table(frame.view, names, "dark", labels))


async def step_of(message: Any) -> tuple[int, int, int]:
    """(step, total, round) read from the caption's first line."""
    match = re.search(r"(\d+) (?:of|sur) (\d+)\D+(\d+)", message.text.splitlines()[0])
    assert match, message.text
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


async def click(fake: Any, user: Any, message: Any, which: str) -> Any:
    inter = await fake.click(user, message, ids_of(message)[which])
    shown = await inter.answer()
    assert shown.id == message.id, "a replay button edits the replay in place"
    assert shown.ephemeral and shown.visible_to == user.id
    return shown


async def refusal(fake: Any, user: Any, game: str, channel: Any = None, command: str = "skyjo") -> str:
    inter = await fake.run_command(user, command, "replay", options={"game": game}, channel=channel)
    answer = await inter.original()
    assert answer.ephemeral and answer.visible_to == user.id
    assert not answer.attachments and not answer.custom_ids
    return str(answer.text)


@pytest.mark.parametrize("username", ["alice", "carol"])
async def test_a_finished_skyjo_game_replays_step_by_step_privately(
    fake_discord: Any, skybo: Any, username: str
) -> None:
    fake = fake_discord
    bot = await skybo()
    user = fake.user(username)
    locale = user.locale
    table_message, game_id = await start_table(
        fake, bot, user, [], score_limit=100, finisher_multiplier=1, computers=1, turn_limit=0
    )
    table = bot.service.tables[game_id]
    await reveal_own_cards(fake, user, table_message, table)
    # A running game: a clear refusal, privately.
    assert await refusal(fake, user, str(game_id)) == t("replay.error.running", locale)
    await play_turns(fake, bot, game_id, table_message, [user], random.Random(7))
    await fake.wait_until(lambda: f"#{game_id}" in table_message.text, what="the final footer")

    inter = await fake.run_command(user, "skyjo", "replay", options={"game": f"#{game_id}"})
    shown = await inter.original()
    assert shown.ephemeral and shown.visible_to == user.id
    step, total, round_number = await step_of(shown)
    assert (step, round_number) == (0, 1) and total == len(await bot.service.storage.games.actions(game_id))
    assert disabled(shown) == {"s", "p", "b"}  # nothing before the deal, nor a round before the first
    # Step 0: every card face down in the spectator view, and that is the picture shown.
    stored = await GameLedger(bot.service.storage).get_game(game_id)
    frame = replay.frame_at(stored, await bot.service.storage.games.actions(game_id), 0)
    assert all(card == "down" for grid in frame.view["grids"] for card in grid)
    assert [a.filename for a in shown.attachments] == [replay.IMAGE]
    assert shown.attachments[0].data == await picture_of(bot, game_id, 0, locale)
    # The caption at the deal names no card but the discard pile's top.
    numbers = set(re.findall(r"-?\d+", "\n".join(shown.text.splitlines()[1:])))
    assert numbers <= {"1", str(frame.events[0]["discard_top"])}, shown.text

    shown = await click(fake, user, shown, "n")
    assert (await step_of(shown))[0] == 1
    assert shown.attachments[0].data == await picture_of(bot, game_id, 1, locale)
    shown = await click(fake, user, shown, "n")
    assert (await step_of(shown))[0] == 2
    shown = await click(fake, user, shown, "p")
    assert (await step_of(shown))[0] == 1
    # Next round: the first step of the next round, off in the last (tests/e2e/test_replay_moves.py).
    rounds = 1
    while "r" not in disabled(shown):
        before = await step_of(shown)
        shown = await click(fake, user, shown, "r")
        after = await step_of(shown)
        assert after[0] > before[0]
        assert after[2] == before[2] + 1
        rounds = max(rounds, after[2])
    assert rounds == stored_rounds(table) > 1
    shown = await click(fake, user, shown, "g")
    # The last step: the final state; nothing ahead, only ways back.
    assert t("replay.end", locale) in shown.text
    assert disabled(shown) == {"n", "e", "r", "g"}
    assert shown.attachments[0].data == await picture_of(bot, game_id, total, locale)
    final = replay.frame_at(stored, await bot.service.storage.games.actions(game_id), total)
    assert final.view == table.state.view(None)
    # A button still works with the game's id and step alone (nothing kept in memory).
    shown = await click(fake, user, shown, "p")
    assert (await step_of(shown))[0] == total - 1


def stored_rounds(table: Any) -> int:
    return int(table.state.round)


@pytest.mark.parametrize("username", ["alice", "carol"])
async def test_replay_refusals_are_localized_and_private(
    fake_discord: Any, skybo: Any, username: str
) -> None:
    fake = fake_discord
    bot = await skybo()
    user = fake.user(username)
    locale = user.locale
    table_message, game_id = await start_table(fake, bot, user, [], score_limit=10, computers=1, turn_limit=0)
    await reveal_own_cards(fake, user, table_message, bot.service.tables[game_id])
    await play_turns(fake, bot, game_id, table_message, [user], random.Random(8))
    await fake.wait_until(lambda: f"#{game_id}" in table_message.text, what="the final footer")
    not_found = t("replay.error.not_found", locale)
    assert await refusal(fake, user, "abc") == t("replay.error.malformed", locale)
    assert await refusal(fake, user, str(game_id + 1000)) == not_found
    # A Skyjo game is no Skip-Bo game: /skipbo replay says which command replays it.
    other = t("replay.error.other_game", locale, id=game_id, game="Skyjo", kind="skyjo")
    assert await refusal(fake, user, str(game_id), command="skipbo") == other
    # Another server's game: the same refusal as an unknown id.
    await fake.add_guild("Elsewhere", channels=["elsewhere"], members=[user])
    assert await refusal(fake, user, str(game_id), channel=fake.channel("elsewhere")) == not_found


@pytest.mark.parametrize("username", ["alice", "carol"])
async def test_a_finished_skipbo_game_replays_without_showing_a_hand(
    fake_discord: Any, skybo: Any, username: str
) -> None:
    fake = fake_discord
    bot = await skybo()
    user = fake.user(username)
    locale = user.locale
    bob = fake.user("bob")  # two humans and a computer, as in test_skipbo_game
    table_message, game_id = await start_skipbo(
        fake, bot, user, [bob], stock_size=5, computers=1, turn_limit=0
    )
    table = bot.service.tables[game_id]
    await Clicker(fake, bot, game_id, table_message, [user, bob], random.Random(9)).play(max_moves=1500)
    await fake.wait_until(lambda: f"#{game_id}" in table_message.text, what="the final footer")
    storage = bot.service.storage
    actions = await storage.games.actions(game_id)
    stored = await GameLedger(storage).get_game(game_id)

    inter = await fake.run_command(user, "skipbo", "replay", options={"game": str(game_id)})
    shown = await inter.original()
    assert shown.ephemeral and shown.visible_to == user.id
    assert (await step_of(shown))[:2] == (0, len(actions))
    assert shown.attachments[0].data == await picture_of(bot, game_id, 0, locale)
    for _ in range(3):
        shown = await click(fake, user, shown, "n")
        step = (await step_of(shown))[0]
        frame = replay.frame_at(stored, actions, step)
        # The picture is the spectator's view: no hand is in it.
        assert frame.view["hand"] is None and frame.view["viewer"] is None
        assert shown.attachments[0].data == await picture_of(bot, game_id, step, locale)
    shown = await click(fake, user, shown, "g")
    assert t("replay.end", locale) in shown.text
    assert replay.frame_at(stored, actions, len(actions)).view == table.state.view(None)
    # A Skip-Bo game is no Skyjo game: /skyjo replay names /skipbo replay (in the reader's language).
    other = t("replay.error.other_game", locale, id=game_id, game="Skip-Bo", kind="skipbo")
    assert await refusal(fake, user, str(game_id)) == other
    assert f"/skipbo {t('cmd.replay.name', locale)}" in other


async def test_replay_buttons_work_after_a_restart_and_forged_ones_are_refused(
    fake_discord: Any, skybo: Any, database: Any
) -> None:
    fake = fake_discord
    alice = fake.user("alice")
    first = database.bot()
    async with fake.running(first, sync_commands=True):
        table_message, game_id = await start_table(
            fake, first, alice, [], score_limit=10, computers=1, turn_limit=0
        )
        await reveal_own_cards(fake, alice, table_message, first.service.tables[game_id])
        await play_turns(fake, first, game_id, table_message, [alice], random.Random(7))
        await fake.wait_until(lambda: f"#{game_id}" in table_message.text, what="the final footer")
        shown = await (
            await fake.run_command(alice, "skyjo", "replay", options={"game": str(game_id)})
        ).original()
        shown = await click(fake, alice, shown, "n")
    assert first.is_closed()

    # A new process: the replay's buttons carry the game and the step, nothing else is needed.
    await skybo()
    shown = await click(fake, alice, shown, "n")
    assert (await step_of(shown))[0] == 2
    # A forged or malformed replay id: a private refusal, the replay unchanged.
    text = shown.text
    for forged, key in (
        ("rpl:x:1:n", "replay.error.malformed"),
        (f"rpl:{game_id + 1000}:1:n", "replay.error.not_found"),
    ):
        inter = await forged_click(fake, alice, shown, forged)
        answer = await inter.answer()
        assert answer.ephemeral and answer.visible_to == alice.id and answer.id != shown.id
        assert answer.text == t(key, alice.locale)
    assert shown.text == text
