"""The Hint button (issue 28 item 4) through the fake Discord: the normal computer player's move for
the clicker, privately on their panel, in their language; the game then finishes unrated."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.games.registry import BY_KIND
from bot.i18n import translate as t
from bot.service.ledger import GameLedger

from .conftest import act_of, button, forged_click, open_panel, play_turns, reveal_own_cards, start_table
from .skipbo_helpers import Clicker, start_skipbo

UNRATED = "Unrated: a hint was taken."  # the table speaks the guild's language (English)


def legal_hints(table: Any, seat: int, locale: str) -> set[str]:
    """Every legal move of the seat in words, as a hint would say it."""
    view = table.state.view(seat)
    describe = table.game.panel.suggestion
    lines = set()
    for action in table.state.legal_actions(seat):
        notice = describe(view, seat, action)
        if notice is not None:
            lines.add(t(notice[0], locale, **notice[1]))
    return lines


async def ratings_of(bot: Any, game_id: int) -> tuple[int, int]:
    """(rating rows of the game, its rated flag)."""
    rows = await bot.service.storage.db.run(
        lambda c: c.execute("SELECT count(*) FROM rating_history WHERE game_id = ?", (game_id,)).fetchone()
    )
    rated = await bot.service.storage.db.run(
        lambda c: c.execute("SELECT rated FROM games WHERE id = ?", (game_id,)).fetchone()
    )
    return int(rows[0]), int(rated[0])


async def take_hint(fake: Any, bot: Any, user: Any, panel: Any, game_id: int) -> str:
    """Click Hint on ``panel`` (labelled unrated before the click); returns the hint line. Checks it
    names a legal move, changes no game state, and is shown in place, privately."""
    table = bot.service.tables[game_id]
    seat = table.seat_of(user.id)
    hint_id = button(panel, "hn")
    label = next(c["label"] for c in panel.all_components() if c.get("custom_id") == hint_id)
    assert label == t("hints.button", user.locale)
    assert label in ("Hint (unrated)", "Indice (non classée)")
    version, legal = table.version, legal_hints(table, seat, user.locale)
    inter = await fake.click(user, panel, hint_id)
    shown = await inter.original()
    assert shown.id == panel.id and shown.ephemeral and shown.visible_to == user.id
    line = shown.text.splitlines()[1]
    assert line.startswith(("Hint: ", "Indice : ")), shown.text
    assert line in legal, (line, legal)
    assert table.version == version  # no action committed
    assert table.stored.meta["hints"] == [seat]
    stored = await GameLedger(bot.service.storage).get_game(game_id)
    assert stored.meta["hints"] == [seat]  # durable
    return line


@pytest.mark.parametrize("username", ["alice", "carol"])
async def test_a_skyjo_hint_names_a_legal_move_and_the_game_ends_unrated(
    fake_discord: Any, skybo: Any, username: str
) -> None:
    fake = fake_discord
    bot = await skybo()
    user = fake.user(username)
    table_message, game_id = await start_table(fake, bot, user, [], score_limit=10, computers=1, turn_limit=0)
    table = bot.service.tables[game_id]
    seat = table.seat_of(user.id)
    panel = await reveal_own_cards(fake, user, table_message, table)
    # Not their turn: no Hint button, and a forged one is refused with a reason, nothing stored.
    await fake.wait_until(lambda: table.state.phase == "play" and table.state.turn == seat, what="the turn")
    panel = await open_panel(fake, user, table_message)
    assert UNRATED not in table_message.text
    line = await take_hint(fake, bot, user, panel, game_id)
    assert ("column" in line) or ("draw" in line) or ("colonne" in line) or ("pioche" in line)
    await fake.wait_until(lambda: UNRATED in table_message.text, what="the table says unrated")
    # After the draw, in the discard mode the Hint button is gone (only the main mode has it).
    await (await fake.click(user, panel, button(panel, "dr"))).answer()
    assert "hn" in {act_of(c) for c in panel.custom_ids}
    await (await fake.click(user, panel, button(panel, "md", 2))).original()
    assert "hn" not in {act_of(c) for c in panel.custom_ids}
    await (await fake.click(user, panel, button(panel, "md", 0))).original()
    await take_hint(fake, bot, user, panel, game_id)  # a second hint: the same meta

    await play_turns(fake, bot, game_id, table_message, [user], random.Random(3))
    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="Rematch")
    assert await ratings_of(bot, game_id) == (0, 0)
    await fake.wait_until(lambda: "Final standings" in table_message.text, what="the result")
    assert UNRATED in table_message.text and "Rating changes" not in table_message.text


async def test_a_skyjo_game_without_hints_stays_rated_and_bad_hints_change_nothing(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock)
    alice = fake.user("alice")
    table_message, game_id = await start_table(
        fake, bot, alice, [], score_limit=10, computers=1, turn_limit=0
    )
    table = bot.service.tables[game_id]
    seat = table.seat_of(alice.id)
    panel = await reveal_own_cards(fake, alice, table_message, table)
    await fake.wait_until(lambda: table.state.phase == "play" and table.state.turn == seat, what="the turn")
    panel = await open_panel(fake, alice, table_message)
    # A stale hint (on an older panel the bot could no longer edit, 15 minutes on, so that the newer
    # one does not retire it; the game moved since): the fresh panel, no hint, nothing stored.
    clock.advance(15 * 60)
    newer = await open_panel(fake, alice, table_message)
    await (await fake.click(alice, newer, button(newer, "dr"))).answer()
    stale = await (await fake.click(alice, panel, button(panel, "hn"))).original()
    assert t("table.notice.already_done", alice.locale) in stale.text  # she drew since
    assert not any(line.startswith("Hint") for line in stale.text.splitlines())
    # A hint for someone else's turn (forged: no such button then): refused, nothing stored.
    await (await fake.click(alice, newer, button(newer, "rp"))).answer()
    if table.state.turn != seat and table.state.phase == "play":
        assert "hn" not in {act_of(c) for c in newer.custom_ids}
        forged = button(newer, "rf", -1).replace(":rf:-1", ":hn:0")
        refused = await (await forged_click(fake, alice, newer, forged)).original()
        assert refused.ephemeral and refused.text == t("table.error.forged", alice.locale)
    assert "hints" not in table.stored.meta

    await play_turns(fake, bot, game_id, table_message, [alice], random.Random(4))
    await fake.wait_until(lambda: "Final standings" in table_message.text, what="the result")
    rows, rated = await ratings_of(bot, game_id)
    assert rows > 0 and rated == 1
    assert UNRATED not in table_message.text


@pytest.mark.parametrize("username", ["alice", "carol"])
async def test_a_skipbo_hint_names_a_legal_move_and_the_game_ends_unrated(
    fake_discord: Any, skybo: Any, username: str
) -> None:
    fake = fake_discord
    bot = await skybo()
    user = fake.user(username)
    bob = fake.user("bob")  # two humans and a computer, as in test_skipbo_game
    table_message, game_id = await start_skipbo(
        fake, bot, user, [bob], stock_size=5, computers=1, turn_limit=0
    )
    table = bot.service.tables[game_id]
    seat = table.seat_of(user.id)
    clicker = Clicker(fake, bot, game_id, table_message, [user, bob], random.Random(9))
    await clicker.play(until=lambda: table.state.phase == "play" and table.state.turn == seat)
    panel = await open_panel(fake, user, table_message)
    line = await take_hint(fake, bot, user, panel, game_id)
    assert ("pile" in line) or ("turn" in line) or ("tour" in line)
    await fake.wait_until(lambda: UNRATED in table_message.text, what="the table says unrated")
    await clicker.play()
    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="Rematch")
    assert await ratings_of(bot, game_id) == (0, 0)
    assert UNRATED in table_message.text


async def test_the_hint_asks_the_normal_player_with_the_seat_s_own_view_only(
    fake_discord: Any, skybo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The policy gets ``game.view(seat)`` (viewer == seat, face-down cards hidden), nothing more."""
    fake = fake_discord
    bot = await skybo()
    alice = fake.user("alice")
    table_message, game_id = await start_table(fake, bot, alice, [], computers=1, turn_limit=0)
    table = bot.service.tables[game_id]
    seat = table.seat_of(alice.id)
    await reveal_own_cards(fake, alice, table_message, table)
    await fake.wait_until(lambda: table.state.phase == "play" and table.state.turn == seat, what="the turn")
    panel = await open_panel(fake, alice, table_message)
    seen: list[dict[str, Any]] = []
    normal = BY_KIND["skyjo"].levels["normal"]

    def spy(view: dict[str, Any], rng: random.Random) -> Any:
        seen.append(view)
        return normal(view, rng)

    monkeypatch.setitem(BY_KIND["skyjo"].levels, "normal", spy)  # type: ignore[index]
    await take_hint(fake, bot, alice, panel, game_id)
    assert seen == [table.state.view(seat)]
    view = seen[0]
    assert view["viewer"] == seat
    hidden = [pos for pos, up in enumerate(table.state.face_up[seat]) if not up]
    assert hidden and all(view["grids"][seat][pos] == "down" for pos in hidden)
    assert "draw_pile" not in view and "deck" not in view
