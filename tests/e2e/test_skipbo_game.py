"""Skip-Bo through the fake Discord with the real bot: whole games, teams, a restart, bad input.

Players click their private panels (:class:`~tests.e2e.skipbo_helpers.Clicker`): every move is
the source button then the target button, so a whole game also checks that the panel offers each
move the engine allows and that a panel only ever shows its owner's hand. Deals are seeded
(``start_skipbo``) and so are the clickers, so each test plays the same game every run.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.games.skipbo import engine as skipbo
from bot.i18n import translate as t
from bot.service import Refused
from bot.service.ledger import GameLedger
from bot.storage.ratings import user_key
from bot.ui import ids
from fakecord import FakeMessage
from tests.e2e.reading import fields_of

from .conftest import (
    BOTH_BACKENDS,
    BotDatabase,
    act_of,
    button,
    forged_click,
    open_panel,
    private_answer,
)
from .skipbo_helpers import (
    MODE_HAND,
    MODE_PARTNER_DISCARD,
    MODE_PARTNER_STOCK,
    Clicker,
    assert_panel_shows_own_hand,
    assert_table_hides_hands,
    engine_hand_labels,
    game_act_buttons,
    hand_labels,
    panel_buttons,
    pick_action,
    press,
    start_skipbo,
    steps_for,
)

PARTNER_MODES = {MODE_PARTNER_STOCK} | {MODE_PARTNER_DISCARD + i for i in range(skipbo.DISCARD_PILES)}


# ------------------------------------------------------------------------------------------ helpers


async def game_over_on_table(fake: Any, table_message: FakeMessage) -> None:
    await fake.wait_until(
        lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="the Rematch button"
    )


class Frozen:
    """The table's state at one moment: a refused click must leave all of it as it was."""

    def __init__(self, bot: Any, game_id: int) -> None:
        self.bot, self.game_id = bot, game_id
        self.table = bot.service.tables[game_id]
        self.version = self.table.version
        self.state = self.table.state.to_dict()

    async def check(self, what: str) -> None:
        table = self.bot.service.tables[self.game_id]
        assert table is self.table and table.version == self.version, f"{what} changed the version"
        assert table.state.to_dict() == self.state, f"{what} changed the game"
        log = await self.bot.service.storage.games.actions(self.game_id)
        assert len(log) == self.version, f"{what} changed the action log"


# ------------------------------------------------------------------------------------------ 1. a whole game


async def test_two_humans_play_a_whole_game_each_in_their_language(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock)
    alice, carol = fake.user("alice"), fake.user("carol")  # carol reads French
    table_message, game_id = await start_skipbo(fake, bot, alice, [carol], stock_size=5, turn_limit=0)
    table = bot.service.tables[game_id]
    assert table.names() == ["Alice", "Carol"]
    assert {act_of(c) for c in table_message.custom_ids} == {"op", "ru", "lv"}
    assert "My hand" in table_message.button_labels  # the guild's language: English
    await bot.presenter.flush()
    assert_table_hides_hands(table_message, table.state)
    assert [a.filename for a in table_message.attachments] == ["skybo-table.png"]

    # Each panel in its reader's language; each shows its owner's hand only.
    alice_panel = await open_panel(fake, alice, table_message)
    carol_panel = await open_panel(fake, carol, table_message)
    assert alice_panel.text.startswith("Your hand — Skip-Bo")
    assert carol_panel.text.startswith("Ta main — Skip-Bo")
    assert "Refresh" in alice_panel.button_labels and "Actualiser" in carol_panel.button_labels
    assert any(label.startswith("Stock: ") for label in alice_panel.button_labels)
    assert any(label.startswith("Stock : ") for label in carol_panel.button_labels)
    assert_panel_shows_own_hand(alice_panel, bot, game_id, alice)
    assert_panel_shows_own_hand(carol_panel, bot, game_id, carol)
    # 15 minutes on, the bot can no longer edit these panels (their tokens are dead for it): the
    # panels opened later do not retire them (tests/e2e/test_panels_follow.py), they stay as they are.
    clock.advance(15 * 60)
    rules = await private_answer(await fake.click(carol, table_message, button(table_message, "ru")))
    assert rules.text.startswith("**Skip-Bo — les règles de cette table**")
    assert t("skipbo.rules.setup_stock", "fr", size=5) in rules.text

    clicker = Clicker(fake, bot, game_id, table_message, [alice, carol], random.Random(11), check_table=True)
    await clicker.play(max_moves=600)
    assert clicker.moves > 10 and clicker.acts.get("ps", 0) >= 5 and clicker.acts.get("dc", 0) > 0

    # The game is over and stored: finished, the log replays to the same state.
    await game_over_on_table(fake, table_message)
    stored = await GameLedger(bot.service.storage).get_game(game_id, verify=True)
    assert stored.status == "finished" and stored.verified and stored.kind == "skipbo"
    assert len(await bot.service.storage.games.actions(game_id)) == stored.version
    game: skipbo.State = stored.state
    assert game.is_over and len(game.winners()) == 1
    winner, loser = (alice, carol) if game.winners() == [0] else (carol, alice)
    assert not game.stocks[game.winners()[0]]

    # Ratings per game kind: Skip-Bo's board has both players, Skyjo's has nobody.
    ratings = bot.service.storage.ratings
    for user in (alice, carol):
        rows = await ratings.player_stats(user_key(user.id), kind="skipbo")
        assert rows and all(r.kind == "skipbo" and r.games == 1 for r in rows), rows
        assert await ratings.player_stats(user_key(user.id), kind="skyjo") == []
    won = next(r for r in await ratings.player_stats(user_key(winner.id), kind="skipbo"))
    assert won.wins == 1
    changes = await ratings.changes_for_game(game_id)
    assert {c.player for c in changes} == {user_key(alice.id), user_key(carol.id)}
    gained = {c.player: c.conservative_after - c.conservative_before for c in changes}
    assert gained[user_key(winner.id)] > gained[user_key(loser.id)]
    rows = await bot.service.storage.db.run(
        lambda c: c.execute(
            "SELECT DISTINCT kind FROM rating_history WHERE game_id = ?", (game_id,)
        ).fetchall()
    )
    assert rows == [("skipbo",)]

    # The end-of-game table: the winner, the standings and the rating changes, in the guild's language.
    await bot.presenter.flush()
    text = table_message.text
    assert f"Game over. Winner: {winner.global_name}." in text
    assert f"1. {winner.global_name} — stock emptied" in text
    fields = fields_of(table_message)
    assert "Rating changes" in fields
    lines = fields["Rating changes"].split("\n")
    assert len(lines) == 2 and lines[0] == f"{winner.global_name}: provisional rating (1 of 5 games)"
    assert lines[1].startswith(loser.global_name)
    assert {act_of(c) for c in table_message.custom_ids} == {"rm"}

    # After the end, a click on an old panel (one the bot could no longer edit) is answered privately,
    # in the clicker's language.
    refresh = button(carol_panel, "rf", -1)
    answer = await private_answer(await fake.click(carol, carol_panel, refresh))
    assert answer.text == t("table.error.game_finished", "fr")
    assert answer.text != t("table.error.game_finished", "en-US")


# ------------------------------------------------------------------------------------------ 2. teams


async def test_one_person_plays_a_whole_game_against_a_computer_from_the_lobby(
    fake_discord: Any, skybo: Any
) -> None:
    """The computer's moves are instant: the panel a click answers may be a move behind the engine
    (the clicker checks a hand against the version it shows), and the game still ends through clicks."""
    fake = fake_discord
    bot = await skybo()  # computers play at once (FAST: no delay)
    carol = fake.user("carol")
    table_message, game_id = await start_skipbo(
        fake, bot, carol, [], add_computers=1, stock_size=5, turn_limit=0
    )
    clicker = Clicker(fake, bot, game_id, table_message, [carol], random.Random(3))
    await clicker.play(max_moves=600)
    assert clicker.moves > 5 and clicker.acts.get("dc", 0) > 0
    stored = await GameLedger(bot.service.storage).get_game(game_id, verify=True)
    assert stored.status == "finished" and stored.verified and stored.state.is_over


async def test_teams_option_is_accepted_by_skipbo_new(fake_discord: Any, skybo: Any) -> None:
    """``/skipbo new teams:True`` opens a lobby (the 4 seats come after, in the lobby); starting it
    with a seat count teams cannot use is refused privately then."""
    fake = fake_discord
    await skybo()
    alice = fake.user("alice")
    inter = await fake.run_command(alice, "skipbo", "new", options={"teams": True, "stock_size": 5})
    answer = await inter.original()
    assert not answer.ephemeral, f"/skipbo new teams:True was refused: {answer.text!r}"
    start = next(c for c in answer.custom_ids if c.endswith(":st"))
    bob = fake.user("bob")
    await (await fake.click(bob, answer, answer.custom_ids[0])).response()
    await fake.wait_until(lambda: "Bob" in answer.text, what="Bob in the lobby")
    refusal = await (await fake.click(alice, answer, start)).answer()  # 2 seats: no teams
    assert refusal.ephemeral and refusal.text == "Teams of two need 4 or 6 players; there are 2."
    assert any(c.endswith(":st") for c in answer.custom_ids)  # still a lobby


async def test_a_team_game_shows_partners_and_offers_the_partner_piles(
    fake_discord: Any, skybo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    bot = await skybo(images=False)
    alice, bob = fake.user("alice"), fake.user("bob")
    # Seats: Alice, Computer 1, Bob, Computer 2: Alice & Bob against the two computers.
    table_message, game_id = await start_skipbo(
        fake, bot, alice, [bob], add_computers=1, stock_size=5, teams=True, computers=1, turn_limit=0
    )
    table = bot.service.tables[game_id]
    names = table.names()
    assert len(names) == 4 and names[0] == "Alice" and names[2] == "Bob"
    assert table.state.options.teams and table.state.partner(0) == 2 and table.state.partner(1) == 3

    # The table says who plays with whom. (Compared once the computers stopped at a human's turn and
    # the table was drawn: before, a computer's move after the drawing made the live hand one card
    # smaller than the message's, on a loaded machine.)
    await fake.wait_until(lambda: table.ai_level(table.state.turn) is None, what="a human's turn")

    def drawn_as_it_stands() -> bool:
        try:
            assert_table_hides_hands(table_message, table.state)
        except AssertionError:
            return False
        return True

    await fake.wait_until(drawn_as_it_stands, what="the table drawn as the game stands")
    text = table_message.text
    assert f"Teams: Alice & Bob · {names[1]} & {names[3]}" in text
    fields = [name.replace("\u00a0", " ") for name in fields_of(table_message)]  # pictures off: full text
    assert fields[0].endswith("Alice (team 1)") and fields[2].endswith("Bob (team 1)"), fields
    assert fields[1].endswith("(team 2)") and fields[3].endswith("(team 2)"), fields
    assert_table_hides_hands(table_message, table.state)

    rules = await private_answer(await fake.click(alice, table_message, button(table_message, "ru")))
    assert (
        t("skipbo.rules.teams", "en-US") in rules.text and t("skipbo.rules.win_team", "en-US") in rules.text
    )

    # A human's panel has a row for the partner's stock and discard piles.
    panel = await open_panel(fake, bob, table_message)
    partner = [
        (p, c)
        for p, c in panel_buttons(panel)
        if (p.act == "md" and p.arg in PARTNER_MODES) or (p.act == "rf" and 30 <= p.arg <= 34)
    ]
    assert len(partner) == 5, f"the partner's row: {panel.button_labels}"
    assert any(str(c.get("label")).startswith("Partner's stock: ") for _, c in partner)
    assert_panel_shows_own_hand(panel, bot, game_id, bob)
    assert sorted(hand_labels(panel)) != engine_hand_labels(table.state.hands[0]) or (
        sorted(table.state.hands[0]) == sorted(table.state.hands[2])
    )

    # Play to the end: at some point a human's panel offers the partner's cards and they are played.
    clicker = Clicker(fake, bot, game_id, table_message, [alice, bob], random.Random(5), check_table=True)
    await clicker.play(max_moves=1500)
    offered = clicker.seen_modes & PARTNER_MODES
    assert offered, "no panel ever offered the partner's stock or discard piles"
    assert clicker.acts.get("qs", 0) + clicker.acts.get("qd", 0) > 0, clicker.acts

    await game_over_on_table(fake, table_message)
    stored = await GameLedger(bot.service.storage).get_game(game_id, verify=True)
    assert stored.status == "finished" and stored.verified
    game: skipbo.State = stored.state
    winners = game.winners()
    assert winners in ([0, 2], [1, 3]), f"a team wins together: {winners}"
    assert all(not game.stocks[s] for s in winners)
    await bot.presenter.flush()
    assert f"Game over. Winner: {names[winners[0]]}, {names[winners[1]]}." in table_message.text
    changes = await bot.service.storage.ratings.changes_for_game(game_id)
    assert {user_key(alice.id), user_key(bob.id)} <= {c.player for c in changes}
    ranks = {c.player: c.rank for c in changes}
    assert ranks[user_key(alice.id)] == ranks[user_key(bob.id)], "partners share their rank"


# ------------------------------------------------------------------------------------------ 3. a restart


@BOTH_BACKENDS
async def test_a_game_resumes_after_a_restart_with_old_panels_working(
    fake_discord: Any, skybo: Any, database: BotDatabase
) -> None:
    fake = fake_discord
    alice, bob = fake.user("alice"), fake.user("bob")
    rng = random.Random(3)

    first = database.bot()
    async with fake.running(first, sync_commands=True):
        table_message, game_id = await start_skipbo(
            fake, first, alice, [bob], stock_size=5, computers=1, turn_limit=0
        )
        table = first.service.tables[game_id]
        seat = table.seat_of(alice.id)
        assert seat == 0

        def alice_to_begin() -> bool:
            game = table.state
            return game.phase == skipbo.PLAY and game.turn == seat and not game.played_this_turn

        clicker = Clicker(fake, first, game_id, table_message, [alice, bob], rng)
        await clicker.play(until=alice_to_begin, max_moves=300)
        await clicker.play(until=lambda: table.version > 12 and alice_to_begin(), max_moves=300)
        old_panel = await open_panel(fake, alice, table_message)
        state_before = table.state.to_dict()
        version_before = table.version
        ai_seat = next(s.seat for s in table.stored.seats if s.ai_level is not None)
    assert first.is_closed()

    # A new process on the same database: the same game, in the same state.
    second = await skybo()
    table = second.service.tables[game_id]
    assert table.version == version_before
    assert table.state.to_dict() == state_before
    await fake.wait_until(lambda: "live again" in table_message.text, what="the table live again")

    # The panel drawn by the previous process still works: Alice makes her next move on it.
    action = pick_action(table.state, seat, rng)
    for act, arg in steps_for(action, rng):
        await press(fake, alice, old_panel, act, arg)
        assert "out of date" not in old_panel.text
    assert table.version == version_before + 1
    log = await second.service.storage.games.actions(game_id)
    assert log[-1].seat == seat and log[-1].action == action.to_dict()
    await second.presenter.flush()
    assert "live again" not in table_message.text

    # The table message posted before the restart works too, the computer plays on by itself, and
    # the game goes on to its end.
    clicker = Clicker(fake, second, game_id, table_message, [alice, bob], rng)
    await clicker.play(max_moves=600)
    stored = await GameLedger(second.service.storage).get_game(game_id, verify=True)
    assert stored.status == "finished" and stored.verified
    log = await second.service.storage.games.actions(game_id)
    assert len(log) == stored.version
    assert any(a.seat == ai_seat for a in log[version_before:]), "the computer played after the restart"
    await game_over_on_table(fake, table_message)


# ------------------------------------------------------------------------------------------ 4. bad input


async def test_bad_input_changes_nothing_and_hands_stay_private(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(images=False, clock=clock)
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    table_message, game_id = await start_skipbo(fake, bot, alice, [carol], stock_size=5, turn_limit=0)
    table = bot.service.tables[game_id]
    a_seat, c_seat = table.seat_of(alice.id), table.seat_of(carol.id)
    assert (a_seat, c_seat) == (0, 1)
    clicker = Clicker(fake, bot, game_id, table_message, [alice, carol], random.Random(8))

    def age_panels() -> None:
        """15 minutes on: the bot can no longer edit Carol's panels so far, so the one she uses next
        does not retire them (tests/e2e/test_panels_follow.py): they keep their buttons, out of date."""
        clock.advance(15 * 60)

    def carol_can_play() -> bool:
        game = table.state
        return (
            game.phase == skipbo.PLAY
            and game.turn == c_seat
            and not game.played_this_turn
            and len({a.card for a in game.legal_actions(c_seat) if isinstance(a, skipbo.Play)}) >= 1
            and len(game.hands[c_seat]) == skipbo.HAND_SIZE
        )

    await clicker.play(until=carol_can_play, max_moves=300)
    assert carol_can_play(), "the game ended before Carol could play a card"

    # --- A non-player: "My hand" and "Leave" are refused privately, nothing changes.
    frozen = Frozen(bot, game_id)
    for act in ("op", "lv"):
        answer = await private_answer(await fake.click(bob, table_message, button(table_message, act)))
        assert answer.text == "You are not playing at this table."
    await frozen.check("a non-player's click")

    # --- Hands are private: Carol's panel shows her hand, not Alice's; Bob cannot see it at all.
    stale = await open_panel(fake, carol, table_message)
    assert not stale.visible_for(bob) and not stale.visible_for(alice)
    assert hand_labels(stale) == engine_hand_labels(table.state.hands[c_seat])
    assert hand_labels(stale) != engine_hand_labels(table.state.hands[a_seat]) or sorted(
        table.state.hands[a_seat]
    ) == sorted(table.state.hands[c_seat])
    alice_panel = await open_panel(fake, alice, table_message)
    assert hand_labels(alice_panel) == engine_hand_labels(table.state.hands[a_seat])
    assert not game_act_buttons(alice_panel), "a panel out of turn offers no move"
    await bot.presenter.flush()
    assert_table_hides_hands(table_message, table.state)

    # --- A stale panel: Carol picks a hand card on one panel, then plays from another one.
    card = table.state.hands[c_seat][0]
    await press(fake, carol, stale, "md", MODE_HAND + card)
    assert any(act_of(c) == "dc" for c in stale.custom_ids)
    stale_discard = next(c for c in stale.custom_ids if act_of(c) == "dc")
    age_panels()
    fresh = await open_panel(fake, carol, table_message)
    play = next(a for a in table.state.legal_actions(c_seat) if isinstance(a, skipbo.Play))
    for act, arg in steps_for(play, random.Random(0)):
        await press(fake, carol, fresh, act, arg)
    frozen = Frozen(bot, game_id)
    age_panels()
    inter = await fake.click(carol, stale, stale_discard)
    assert (await inter.answer()).id == stale.id, "a stale panel is replaced in place"
    assert t("table.notice.already_done", "fr") in stale.text  # "C'est déjà fait — voici ton panneau…"
    assert stale.text.startswith("Ta main")
    assert {ids.decode(c).version for c in stale.custom_ids} == {table.version}  # type: ignore[union-attr]
    await frozen.check("a click on a stale panel")
    assert_panel_shows_own_hand(stale, bot, game_id, carol)

    # --- A double click on a discard: one discard, the other click is told gently it is done.
    if not table.state.hands[c_seat]:  # (the play emptied the hand: 5 new cards were drawn)
        raise AssertionError("Carol has no card to discard")
    card = table.state.hands[c_seat][0]
    out_of_turn = await open_panel(fake, carol, table_message)
    await press(fake, carol, out_of_turn, "md", MODE_HAND + card)
    late_discard = next(c for c in out_of_turn.custom_ids if act_of(c) == "dc")
    age_panels()
    await press(fake, carol, fresh, "md", MODE_HAND + card)
    discard = next(c for c in fresh.custom_ids if act_of(c) == "dc")
    version = table.version
    inters = await asyncio.gather(*(fake.click(carol, fresh, discard) for _ in range(2)))
    shown = await asyncio.gather(*(i.answer() for i in inters))
    assert all(m.id == fresh.id for m in shown)  # both acknowledged, then the panel edited in place
    assert table.version == version + 1 and table.state.turn == a_seat
    # Each click's panel: its callback (the panel itself, issue 40) or, deferred, its edit.
    texts = [
        str(r.json.get("content") or (r.json.get("data") or {}).get("content"))
        for i in inters
        for r in i.requests
    ]
    assert sum(t("table.notice.already_done", "fr") in text for text in texts) == 1, texts
    log = await bot.service.storage.games.actions(game_id)
    pile = ids.decode(discard).arg // 100  # type: ignore[union-attr]
    assert len(log) == table.version and log[-1].action == skipbo.Discard(card, pile).to_dict()

    # --- Out of turn: Carol's panel from her turn, clicked on Alice's turn: refused, fresh panel.
    frozen = Frozen(bot, game_id)
    age_panels()
    inter = await fake.click(carol, out_of_turn, late_discard)
    assert (await inter.answer()).id == out_of_turn.id
    assert t("table.notice.already_done", "fr") in out_of_turn.text  # Carol discarded since
    assert "Alice joue" in out_of_turn.text
    assert not game_act_buttons(out_of_turn), "the fresh panel offers no move out of turn"
    await frozen.check("a click out of turn")

    # --- Forged clicks (ids not on the message): a stock card discarded, a card on the wrong pile,
    # a play out of turn. Each is refused in the clicker's language and changes nothing.
    game = table.state
    hand = game.hands[a_seat]
    stock_top = game.stocks[a_seat][-1]
    not_in_hand = stock_top if stock_top not in hand else next(c for c in range(13) if c not in hand)
    number = next((c for c in hand if c != skipbo.WILD), None)
    assert number is not None, f"Alice's hand holds only Skip-Bo cards: {hand}"
    nexts = [v + 1 for v in game.building_values]
    wrong_pile = next(p for p in range(skipbo.BUILDING_PILES) if nexts[p] != number)
    alice_panel = await open_panel(fake, alice, table_message)
    v = table.version
    forged = {
        "a stock card discarded": (alice, f"sb:{game_id}:{v}:dc:{100 + not_in_hand}"),
        "a card on the wrong pile": (alice, f"sb:{game_id}:{v}:ph:{wrong_pile * 100 + number}"),
        "a stock card on the wrong pile": (alice, f"sb:{game_id}:{v}:ps:{wrong_pile * 100 + number}"),
        "a play out of turn": (carol, f"sb:{game_id}:{v}:ph:{number}"),
        "a mode that does not exist": (alice, f"sb:{game_id}:{v}:md:999"),
    }
    frozen = Frozen(bot, game_id)
    for what, (user, custom_id) in forged.items():
        clicked = alice_panel if user is alice else out_of_turn
        answer = await private_answer(await forged_click(fake, user, clicked, custom_id))
        assert answer.text == t("table.error.forged", user.locale), what
        await frozen.check(what)
    answer = await private_answer(
        await forged_click(fake, bob, table_message, f"sb:{game_id}:{v}:ph:{number}")
    )
    assert answer.text == "That button is not valid."

    # Past the message check (a forged id that got through), the engine refuses with its own reason.
    service = bot.service
    with pytest.raises(Refused) as refused:
        await service.click(game_id, v, alice.id, "dc", 100 + not_in_hand)
    assert refused.value.key == "error.skipbo.card_not_in_hand"
    assert t(refused.value.key, "fr") == "Tu n'as pas cette carte en main."
    with pytest.raises(Refused) as refused:
        await service.click(game_id, v, alice.id, "ph", wrong_pile * 100 + number)
    assert refused.value.key == "error.skipbo.wrong_value"
    expected = f"That pile takes a card of value {nexts[wrong_pile]} next."
    assert t(refused.value.key, "en-US", **refused.value.params) == expected
    with pytest.raises(Refused) as refused:
        await service.click(game_id, v, carol.id, "ph", number)
    assert refused.value.key == "error.not_your_turn"
    assert t(refused.value.key, "fr") == "Ce n'est pas ton tour."
    await frozen.check("the service-level refusals")

    # The game goes on to its end, and no refused click ever reached the log.
    await clicker.play(max_moves=600)
    stored = await GameLedger(bot.service.storage).get_game(game_id, verify=True)
    assert stored.status == "finished" and stored.verified
    assert len(await bot.service.storage.games.actions(game_id)) == stored.version
