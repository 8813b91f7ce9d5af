"""Moving through a replay (issue 38 item 8), both games, through the fake Discord: a step counter in
the asker's language, End of round / Next round / End of game jumps that stop where rounds end and
start (bot/ui/replay.py says where), and the deal said once at step 0; and back (issue 47 item 10):
Previous round to the start of each round before, Start to the deal."""

from __future__ import annotations

import random
import re
from typing import Any

from bot.games.registry import BY_KIND
from bot.i18n import translate as t
from bot.ui import replay

from .conftest import forged_click, play_turns, reveal_own_cards, start_table
from .skipbo_helpers import Clicker, start_skipbo

COUNTER = {"en": r"step (\d+) of (\d+), round (\d+)", "fr": r"étape (\d+) sur (\d+), manche (\d+)"}
# By steps: Start, Previous, Next, End of game; by rounds: Previous round, End of round, Next round.
LETTERS = [["s", "p", "n", "g"], ["b", "e", "r"]]
LABELS = [
    ["replay.start", "replay.previous", "replay.next", "replay.game_end"],
    ["replay.previous_round", "replay.round_end", "replay.next_round"],
]


def game_at(stored: Any, actions: list[Any], step: int) -> Any:
    """The engine's game after the first ``step`` actions (what a replay step shows)."""
    engine = BY_KIND[stored.kind].engine
    game = engine.State.new(
        [s.engine_name for s in stored.seats], stored.seed, engine.Options.from_dict(stored.options)
    )
    for action in actions[:step]:
        game.apply(action.seat, engine.action_from_dict(action.action))
    return game


def round_over(game: Any) -> bool:
    return bool(game.is_over or game.phase == "round_over")


def counter(message: Any, lang: str) -> tuple[int, int, int]:
    """(step, total, round) as the caption's first line says them in ``lang``."""
    match = re.search(COUNTER[lang], message.text.splitlines()[0])
    assert match, message.text
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def rows(message: Any) -> list[list[dict[str, Any]]]:
    found = [list(c["components"]) for c in message.all_components() if c.get("type") == 1]
    assert len(found) == 2, message.components
    return found


def row(message: Any) -> list[dict[str, Any]]:
    """Every replay button, row after row."""
    return [button for line in rows(message) for button in line]


def enabled(message: Any) -> set[str]:
    return {c["custom_id"].split(":")[-1] for c in row(message) if not c.get("disabled")}


TURN = re.compile(r".+ to play\.|À .+ de jouer\.")  # replay.turn, in English and French


async def press(fake: Any, user: Any, message: Any, letter: str) -> Any:
    custom_id = next(c["custom_id"] for c in row(message) if c["custom_id"].endswith(f":{letter}"))
    shown = await (await fake.click(user, message, custom_id)).answer()
    assert shown.id == message.id and shown.ephemeral and shown.visible_to == user.id
    return shown


async def walk(fake: Any, bot: Any, user: Any, command: str, game_id: int) -> int:
    """Replay the game as ``user`` (in their language), round by round with End of round and Next
    round; checks every stop against the engine. Returns the rounds seen."""
    lang = "fr" if str(user.locale).startswith("fr") else "en"
    storage = bot.service.storage
    stored = await bot.service.ledger.get_game(game_id)
    actions = list(await storage.games.actions(game_id))
    total = len(actions)
    shown = await (await fake.run_command(user, command, "replay", options={"game": str(game_id)})).original()
    # Seven buttons on two rows (Discord takes five a row), labelled in the asker's language, their ids
    # checked by the one pattern (the five letters of replays posted before, and two more).
    assert [[c["custom_id"].split(":")[-1] for c in line] for line in rows(shown)] == LETTERS
    assert [[c["label"] for c in line] for line in rows(shown)] == [
        [t(key, user.locale) for key in line] for line in LABELS
    ]
    assert all(replay.parse_button(c["custom_id"]) is not None for c in row(shown))
    # Step 0: the counter, and the deal said once (the opening event's line only).
    assert counter(shown, lang) == (0, total, 1)
    # (and, the cards dealt, who plays first: the picture has no header strip; replay.turn)
    lines = shown.text.splitlines()[1:]
    body = [line for line in lines if not TURN.fullmatch(line)]
    dealt = game_at(stored, actions, 0)
    assert len(lines) - len(body) == (1 if dealt.phase == "play" and dealt.turn is not None else 0)
    assert len(body) == 1 and t("replay.deal", user.locale) not in shown.text, shown.text
    assert enabled(shown) == {"n", "e", "r", "g"} - (
        set() if game_at(stored, actions, total).round > 1 else {"r"}
    )
    rounds = 1
    while True:
        step, _, number = counter(shown, lang)
        if "e" in enabled(shown):
            shown = await press(fake, user, shown, "e")
            end, _, same = counter(shown, lang)
            # The end of the round shown: its scoring step, not one past it, still that round.
            assert end > step and same == number
            assert round_over(game_at(stored, actions, end)) and not round_over(
                game_at(stored, actions, end - 1)
            )
        if "r" not in enabled(shown):
            break
        end = counter(shown, lang)[0]
        shown = await press(fake, user, shown, "r")
        start, _, number = counter(shown, lang)
        # The next round's deal: the step right after the end of the round before.
        assert start == end + 1 and number == rounds + 1
        assert game_at(stored, actions, start).round == number and not round_over(
            game_at(stored, actions, start)
        )
        rounds = number
    # The last round ended with the game: nothing left but going back.
    assert counter(shown, lang)[:2] == (total, total)
    assert enabled(shown) == {"s", "p"} | ({"b"} if rounds > 1 else set())
    assert t("replay.end", user.locale) in shown.text
    # End of game from anywhere: the last step.
    shown = await press(fake, user, await press(fake, user, shown, "p"), "p")
    assert counter(shown, lang)[0] == total - 2
    shown = await press(fake, user, shown, "g")
    assert counter(shown, lang)[0] == total
    # Back by rounds: each Previous round is the deal of the round before, down to the first.
    starts = [0] + [n for n in range(1, total + 1) if game_at(stored, actions, n).round > game_at(
        stored, actions, n - 1).round]  # fmt: skip
    assert len(starts) == rounds
    number = rounds
    while "b" in enabled(shown):
        shown = await press(fake, user, shown, "b")
        step, _, shown_round = counter(shown, lang)
        assert shown_round == number - 1 and step == starts[number - 2]
        number = shown_round
    assert number == 1
    if rounds > 1:  # (a one-round game has no round before: Previous round stays off)
        assert counter(shown, lang)[0] == 0 and enabled(shown) == {"n", "e", "r", "g"}
    # Start, from the end: the deal, with nothing before it.
    if "g" in enabled(shown):
        shown = await press(fake, user, shown, "g")
    shown = await press(fake, user, shown, "s")
    assert counter(shown, lang)[0] == 0 and not {"s", "p", "b"} & enabled(shown)
    # A forged letter or game is refused privately, the replay unchanged.
    text = shown.text
    for forged, key in (
        (f"rpl:{game_id}:1:z", "replay.error.malformed"),
        (f"rpl:{game_id}:1:q", "replay.error.malformed"),
        (f"rpl:{game_id + 1000}:1:g", "replay.error.not_found"),
        (f"rpl:{game_id + 1000}:1:e", "replay.error.not_found"),
    ):
        answer = await (await forged_click(fake, user, shown, forged)).answer()
        assert answer.ephemeral and answer.id != shown.id and answer.text == t(key, user.locale)
    assert shown.text == text
    return rounds


async def test_a_skyjo_replay_moves_by_rounds_with_a_step_counter_in_english_and_french(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo(images=False)
    alice, carol = fake.user("alice"), fake.user("carol")  # English, French
    table_message, game_id = await start_table(
        fake, bot, alice, [], score_limit=100, finisher_multiplier=1, computers=1, turn_limit=0
    )
    await reveal_own_cards(fake, alice, table_message, bot.service.tables[game_id])
    await play_turns(fake, bot, game_id, table_message, [alice], random.Random(7))
    await fake.wait_until(lambda: f"#{game_id}" in table_message.text, what="the final footer")
    assert await walk(fake, bot, alice, "skyjo", game_id) > 1
    assert await walk(fake, bot, carol, "skyjo", game_id) > 1


async def test_a_skipbo_replay_moves_by_rounds_with_a_step_counter_in_english_and_french(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo(images=False)
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    table_message, game_id = await start_skipbo(
        fake, bot, alice, [bob], stock_size=5, computers=1, turn_limit=0
    )
    await Clicker(fake, bot, game_id, table_message, [alice, bob], random.Random(9)).play(max_moves=3000)
    await fake.wait_until(lambda: f"#{game_id}" in table_message.text, what="the final footer")
    assert await walk(fake, bot, alice, "skipbo", game_id) >= 1
    assert await walk(fake, bot, carol, "skipbo", game_id) >= 1
