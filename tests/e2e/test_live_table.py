"""Tables that stay alive: private panels that follow the game without a click, and table buttons
whose ids survive every edit (issue 22).

A player's open panel is edited through the token of their last click while it is fresh (under 15
minutes): when the turn moves, when a round ends and when the game ends. Past that, the turn ping
tells them to open the panel again.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.ui.views import panel_content

from .conftest import (
    act_of,
    button,
    choose,
    enabled_buttons,
    play_turns,
    reveal_own_cards,
    settle,
    start_table,
)


def _panels_of(fake: Any, user: Any) -> list[Any]:
    """The user's private panels (ephemeral answers carrying game buttons or a final result), oldest first."""
    return sorted(
        (
            m
            for m in fake.messages.values()
            if m.ephemeral and m.visible_to == user.id and not m.deleted and m.interaction is not None
        ),
        key=lambda m: m.id,
    )


WRITES = {
    "POST /channels/{channel_id}/messages",
    "PATCH /channels/{channel_id}/messages/{message_id}",
    "POST /webhooks/{application_id}/{token}",
    "PATCH /webhooks/{application_id}/{token}/messages/{message_id}",
}


def assert_mentions_locked(fake: Any) -> int:
    """Every message the bot sent or edited carried ``allowed_mentions`` pinging no role and nobody
    by @everyone (names as written can never ping); returns how many were checked."""
    checked = 0
    for request in fake.requests:
        body = request.json
        if request.key == "POST /interactions/{interaction_id}/{token}/callback":
            if (body or {}).get("type") not in (4, 7):
                continue
            body = body.get("data")
        elif request.key not in WRITES:
            continue
        mentions = (body or {}).get("allowed_mentions")
        assert mentions is not None, f"{request.key} sent without allowed_mentions: {body}"
        assert not {"everyone", "roles"} & set(mentions.get("parse") or []), mentions
        assert not mentions.get("roles"), mentions
        checked += 1
    return checked


def _can_draw(panel: Any) -> bool:
    return any(act_of(b["custom_id"]) == "dr" for b in enabled_buttons(panel))


def _clicks_by(fake: Any, user: Any) -> int:
    return sum(1 for inter in fake.interactions.values() if inter.user is user)


async def test_an_open_panel_follows_the_game_without_a_click(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo(ai_delay=0.3)  # time to see the computer's turn
    alice = fake.user("alice")
    table_message, game_id = await start_table(
        fake, bot, alice, [], computers=1, level="easy", score_limit=10, turn_limit=0
    )
    table = bot.service.tables[game_id]
    seat = table.seat_of(alice.id)
    await reveal_own_cards(fake, alice, table_message, table)
    rng = random.Random(3)

    def alice_waits() -> bool:
        game = table.state
        return game.phase == "play" and game.turn != seat

    # Play until it is the computer's turn, then keep Alice's panel as she left it.
    await play_turns(fake, bot, game_id, table_message, [alice], rng, until=alice_waits)
    panel = _panels_of(fake, alice)[-1]
    assert not _can_draw(panel)
    clicks = _clicks_by(fake, alice)

    # The computer plays; Alice's panel turns to "your turn" with no click of hers.
    await fake.wait_until(
        lambda: table.state.turn == seat and _can_draw(panel), what="the panel showing her turn"
    )
    assert _clicks_by(fake, alice) == clicks
    await bot.presenter.flush()
    assert panel.content == panel_content(bot.service.panel_of(table, seat), "en-US")

    # Play to the end: the last panel Alice had open shows the result, again without a click.
    await play_turns(fake, bot, game_id, table_message, [alice], rng)
    last = _panels_of(fake, alice)[-1]
    await fake.wait_until(lambda: "the game is over" in last.text, what="the final result on her panel")
    assert ("You won" in last.text) or ("You finished 2nd of 2." in last.text)
    assert "Won by" in last.text
    assert not last.custom_ids  # nothing left to click on a finished game's panel
    assert assert_mentions_locked(fake) > 20


async def test_a_panel_past_fifteen_minutes_is_not_edited_and_the_ping_says_to_open_it(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    clock = ManualClock()
    bot = await skybo(clock=clock)
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=0, score_limit=100)
    table = bot.service.tables[game_id]
    a_seat = table.seat_of(alice.id)
    panels = {}
    for user in (alice, bob):
        panels[user.id] = await reveal_own_cards(fake, user, table_message, table)
    first, second = (alice, bob) if table.state.turn == a_seat else (bob, alice)
    # The waiting player's panel was edited to say who plays (both reveals are done).
    waiting_panel = panels[second.id]
    await fake.wait_until(lambda: "is playing" in waiting_panel.text, what="the waiting panel followed")
    before = waiting_panel.text

    # Sixteen minutes later (Discord's clock and the bot's), the first player plays their turn.
    await bot.presenter.flush()  # no edit in flight while the clocks jump
    clock.advance(16 * 60)
    fake.clock.advance(16 * 60)
    rng = random.Random(1)
    turns = table.turns
    await play_turns(fake, bot, game_id, table_message, [first], rng, until=lambda: table.turns > turns)
    await bot.presenter.flush()
    # The second player's old panel is left alone (its token is dead) and the ping says what to do.
    assert waiting_panel.text == before
    general = fake.channel("general")
    ping = await fake.wait_until(
        lambda: next(
            (
                m
                for m in reversed(fake.channel_messages(general))
                if f"<@{second.id}>" in m.content and "⏳" not in m.content and not m.deleted
            ),
            None,
        ),
        what="the turn ping",
    )
    assert "Open your panel" in ping.content
    assert assert_mentions_locked(fake) > 10  # the lobby's edits (Bob joining) included


def _ids_by_act(message: Any) -> dict[str, set[str]]:
    """Every in-game custom_id the message ever carried (all its revisions), by act."""
    seen: dict[str, set[str]] = {}
    for revision in range(message.revision + 1):
        for custom_id in message.snapshot(revision).custom_ids:
            act = act_of(custom_id)
            if act is not None:
                seen.setdefault(act, set()).add(custom_id)
    return seen


async def test_table_buttons_keep_their_ids_and_clicks_racing_edits_are_answered(
    fake_discord: Any, skybo: Any
) -> None:
    """Alice against three computer players for a whole game. Each time she acts, she clicks from the
    table as she saw it after her previous move, before the computers' burst of moves and edits:
    "My grid", "Rules" and "Next round" clicked that way all reach the bot and are answered."""
    fake = fake_discord
    bot = await skybo(ai_delay=0.01)
    alice = fake.user("alice")
    table_message, game_id = await start_table(
        fake, bot, alice, [], computers=3, level="easy", score_limit=300, turn_limit=0
    )
    table = bot.service.tables[game_id]
    seat = table.seat_of(alice.id)
    rng = random.Random(11)
    seen = table_message.snapshot()
    racing = 0

    def alice_to_act() -> bool:
        game = table.state
        if table.finished:
            return True
        if game.phase == "round_over":
            return seat in table.round_waiting()
        return seat in game.seats_to_act()

    while not table.finished:
        await fake.wait_until(alice_to_act, what="Alice's turn")
        if table.finished:
            break
        # The engine applies a move before its commit returns: wait for the commit in flight (it holds
        # the channel lock and then schedules the table's edit), so the flush shows the state she acts on.
        async with bot.service.lock(table.channel_id):
            pass
        await bot.presenter.flush()  # the table shows the state she acts on: her old view is older
        stale = seen.revision < table_message.revision
        racing += 2 if stale else 0
        rules = await fake.click(alice, seen, button(seen, "ru"))
        assert not rules.failed, "a click on Rules from an older table reached the bot"
        assert (await rules.response()).type == 4
        if table.state.phase == "round_over":
            # The first table she saw with Next round on it (edits may have followed it).
            snapshots = (table_message.snapshot(r) for r in range(seen.revision, table_message.revision + 1))
            shown = next(snap for snap in snapshots if any(act_of(c) == "nx" for c in snap.custom_ids))
            racing += shown.revision < table_message.revision
            vote = await fake.click(alice, shown, button(shown, "nx"))
            assert not vote.failed, "a click on Next round from an older table reached the bot"
            await vote.response()  # acknowledged first: the vote is counted just after
            await fake.wait_until(
                lambda: table.state.phase != "round_over" or table.seat_of(alice.id) in table.votes,
                what="Alice's vote",
            )
        else:
            inter = await fake.click(alice, seen, button(seen, "op"))
            assert not inter.failed, "a click on My grid from an older table reached the bot"
            panel = await inter.original()
            assert panel.ephemeral and panel.visible_to == alice.id
            version = table.version
            for _ in range(4):
                custom_id = choose(panel, rng)
                if custom_id is None or table.version > version + 1:
                    break
                await (await fake.click(alice, panel, custom_id)).answer()
                if act_of(custom_id) in ("tk", "rp", "dv", "rv"):
                    break
        seen = table_message.snapshot()  # what she sees right after her move

    assert racing >= 50, f"only {racing} clicks raced an edit"
    assert assert_mentions_locked(fake) > 100
    ids = _ids_by_act(table_message)
    for act in ("op", "ru", "lv"):
        assert len(ids[act]) == 1, f"the {act} button changed its id: {ids[act]}"
    rounds = table.state.round
    assert len(ids.get("nx", set())) == rounds - 1  # one Next round id per round that ended before the last
    assert table_message.revision > 100  # many edits


def hold_panel_edit(fake: Any, user: Any, panel: Any) -> Any:
    """Holds the bot's next edit of ``user``'s ``panel`` on its way: the panel is followed through the
    token of their last click on it. Returns the fake's rule (``held``, ``release()``)."""
    last = [i for i in fake.interactions.values() if i.user is user and i.original_message is panel][-1]
    return fake.hold("PATCH", f"/webhooks/{fake.application_id}/{last.token}/messages/@original")


async def held_request(fake: Any, hold: Any) -> Any:
    """The request ``hold`` holds, once the bot sent it (its status 0 until released)."""
    return await fake.wait_until(lambda: next(iter(hold.held), None), what="the held edit")


async def draw_and_discard(fake: Any, user: Any, panel: Any) -> None:
    """``user`` plays a whole Skyjo turn on ``panel``: draw, then discard the card and turn one over."""
    for act, arg in (("dr", None), ("md", 2), ("dv", None)):
        await (await fake.click(user, panel, button(panel, act, arg))).answer()


@pytest.mark.parametrize("channel_busy", [False, True])
async def test_a_click_answered_while_an_edit_of_the_same_panel_is_on_its_way_stays_on_screen(
    fake_discord: Any, skybo: Any, channel_busy: bool
) -> None:
    """The bot's edit of a panel is held on its way, and meanwhile its player clicks on it: the click is
    answered at once, and when the slow edit lands over it, the panel is sent again as the click left
    it (a half-made move stays half made). ``channel_busy``: the channel's lock is held while the
    clicks are answered, as the table's or a mention's render holds it a moment (a loaded machine
    stretches that moment: run Y): what the panel shows is then unknown to the follower, which sent the
    game as it stands over the half-made move."""
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=0, score_limit=100)
    table = bot.service.tables[game_id]
    panels = {}
    for user in (alice, bob):
        panels[user.id] = await reveal_own_cards(fake, user, table_message, table)
    mover, waiter = (alice, bob) if table.state.turn == table.seat_of(alice.id) else (bob, alice)
    waiting = panels[waiter.id]
    await bot.presenter.flush()
    # The waiter's panel is followed through the token of the click that last showed it; moves are
    # answered by edits of their own panels (other tokens), which the 429 must not slow.
    hold = hold_panel_edit(fake, waiter, waiting)

    # The mover plays a whole turn (draw, then discard): the waiter's panel edit is held on its way.
    await draw_and_discard(fake, mover, panels[mover.id])
    held = await held_request(fake, hold)
    # Meanwhile the waiter clicks Refresh, then starts a move (take the discard: pick a card next).
    await (await fake.click(waiter, waiting, button(waiting, "rf", -1))).response()
    if not channel_busy:
        await (await fake.click(waiter, waiting, button(waiting, "md", 1))).response()
    else:
        # The Pick's answer is held (a 429 for 0.5 s); meanwhile the channel's lock is taken, and held
        # until that click's handler is done: it learns its answer landed while the lock was held.
        callback = "/interactions/{interaction_id}/{token}/callback"
        fake.rate_limit("POST", callback, retry_after=0.5)
        pick = await fake.click(waiter, waiting, button(waiting, "md", 1))
        await fake.wait_until(
            lambda: any(r.status == 429 for r in fake.requests_to("POST", callback)), what="the held answer"
        )
        async with bot.service.lock(table.channel_id):
            await pick.response()
            await fake.wait_until(lambda: all(t.done() for t in bot.in_flight.tasks), what="its handler done")
    half_made = waiting.content
    assert held.status == 0
    hold.release()
    await fake.wait_until(lambda: held.status == 200, what="the held edit, landed")
    await settle(bot)  # the Pick click's handler included: it follows the panel again after its answer
    assert waiting.content == half_made
    assert any(act_of(c) == "tk" for c in waiting.custom_ids)  # the cards to replace, as the click left them


async def test_a_panel_edit_held_across_a_whole_turn_does_not_undo_a_click_answered_after_it(
    fake_discord: Any, skybo: Any
) -> None:
    """Three players. The edit telling Bob's panel that the player before him is playing is held on its
    way (a slow network) while that player plays a whole turn; then, on Bob's turn, Bob clicks Refresh
    and starts a move (a half-made move); then the held edit lands, older than the click's answer. The
    panel ends as the click left it: the follower goes on from what the click's answer showed, not from
    the older edit (run Z1: it took the edit's turn for what the panel shows, saw the game moved, and
    sent "Your turn: draw a card..." over the half-made move)."""
    fake = fake_discord
    bot = await skybo()
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    table_message, game_id = await start_table(fake, bot, alice, [bob, carol], turn_limit=0, score_limit=100)
    table = bot.service.tables[game_id]
    users = {user.id: user for user in (alice, bob, carol)}
    panels = {user.id: await reveal_own_cards(fake, user, table_message, table) for user in users.values()}
    seats = len(table.stored.seats)
    bob_seat = table.seat_of(bob.id)
    before_bob = (bob_seat - 1) % seats  # plays while the edit is held

    async def whole_turn() -> None:  # whoever's turn it is
        user = users[table.stored.seats[table.state.turn].user_id]
        panel = panels[user.id]
        await fake.wait_until(  # the panel's edit saying it is their turn
            lambda: any(act_of(c) == "dr" for c in panel.custom_ids), what=f"{user.username}'s turn"
        )
        await draw_and_discard(fake, user, panel)

    while table.state.turn != (bob_seat - 2) % seats:  # whose turn's end sends the edit
        await whole_turn()
    await settle(bot)
    # Bob's panel is followed through the token of his last click.
    hold = hold_panel_edit(fake, bob, panels[bob.id])
    await whole_turn()
    held = await held_request(fake, hold)
    assert held.status == 0 and table.state.turn == before_bob
    await whole_turn()  # the player before Bob: now it is Bob's turn
    assert table.state.turn == bob_seat
    waiting = panels[bob.id]
    await (await fake.click(bob, waiting, button(waiting, "rf", -1))).response()
    await (await fake.click(bob, waiting, button(waiting, "md", 1))).response()  # take the discard...
    half_made = waiting.content
    hold.release()
    await fake.wait_until(lambda: held.status == 200, what="the held edit, landed")
    await settle(bot)
    assert waiting.content == half_made
    assert any(
        act_of(c) == "tk" for c in waiting.custom_ids
    )  # ... the cards to replace, as the click left them


async def test_a_click_that_ends_the_game_while_an_edit_of_its_panel_is_on_its_way_leaves_the_end_on_screen(
    fake_discord: Any, skybo: Any
) -> None:
    """The edit telling Bob's panel that it is his last turn is held on its way (a slow network) while
    Bob clicks Refresh and plays that turn, whose last click ends the game: its answer shows him the
    end. Then the held edit lands over it, older than the click's answer. The panel is sent once more,
    as the game stands: the end, with no button (519b851: the follower sent the click's state again,
    as a panel of moves from before the end, over the result)."""
    fake = fake_discord
    bot = await skybo()
    bot.service.seed_source = lambda: 11  # a seeded deal: the same game every run
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob], turn_limit=0, score_limit=10)
    table = bot.service.tables[game_id]
    users = {user.id: user for user in (alice, bob)}
    panels = {user.id: await reveal_own_cards(fake, user, table_message, table) for user in users.values()}

    async def turn_with_the_others_edit_held() -> tuple[Any, Any, Any]:
        """Whoever's turn it is reveals a card; the edit it causes on the other's panel is held."""
        mover = users[table.stored.seats[table.state.turn].user_id]
        other = alice if mover is bob else bob
        await fake.wait_until(lambda: _can_draw(panels[mover.id]), what=f"{mover.username}'s turn")
        await settle(bot)
        hold = hold_panel_edit(fake, other, panels[other.id])
        await draw_and_discard(fake, mover, panels[mover.id])
        return other, hold, await held_request(fake, hold)

    while True:  # until a player has no card face down: the other's turn is the round's last
        other, hold, held = await turn_with_the_others_edit_held()
        if table.state.finisher is not None:
            break
        hold.release()
        await fake.wait_until(lambda: held.status == 200, what="the held edit, landed")  # noqa: B023
    assert held.status == 0 and table.state.turn == table.seat_of(other.id) and not table.finished
    panel = panels[other.id]
    await (await fake.click(other, panel, button(panel, "rf", -1))).response()  # it still says "wait"
    await draw_and_discard(fake, other, panel)  # the round's last turn: the game ends (a limit of 10)
    assert table.finished
    the_end = panel.content
    assert not enabled_buttons(panel)
    hold.release()
    await fake.wait_until(lambda: held.status == 200, what="the held edit, landed")
    await settle(bot)
    assert panel.content == the_end
    assert not enabled_buttons(panel)
