"""Helpers of the Skip-Bo end-to-end tests: open a table, and click private panels like a player.

The clicker decides a move from the engine's legal actions (a simple, seeded, greedy player: its
stock card first, then number cards, Skip-Bo cards mostly when they free the stock, else a
discard) and then makes that move *through the panel*: the source button (an ``md`` mode click)
and then the target button (a building pile, or a discard pile). Every button it needs must be on
the panel and enabled, so a whole game also checks that the panel offers every legal move; after
every click the panel's hand buttons are compared with the clicker's hand in the engine (a panel
never shows anyone else's hand).
"""

from __future__ import annotations

import contextlib
import random
import re
from collections.abc import Callable
from typing import Any

from bot.client import SkyboBot
from bot.games.skipbo import engine as skipbo
from bot.games.skipbo.panel import ACT_OF_SOURCE, card_label, discard_arg, play_arg
from bot.service import Table
from bot.ui import ids
from fakecord import FakeMessage, FakeUser

from .conftest import act_of, enabled_buttons, open_panel
from .reading import fields_of, gallery_urls, legend_of, players_of, text_of

SEED = 20240611
# "Hand: 5 cards" in the full text ("5 cards" kept whole: messages.phrased), "✋5" on a player's
# line beside the picture; the guild's language (English) on the table.
HAND_LINE = re.compile(r"^(?:Hand: (\d+)[\u00a0 ]cards?|✋(\d+))$")
HAND_EVENT = re.compile(r"from their hand onto pile|played their whole hand|no card left in hand")
PANEL_TITLES = {"en-US": "Your hand — Skip-Bo", "fr": "Ta main — Skip-Bo"}  # one-round games
FINAL_TITLES = {"en-US": "**Skip-Bo: the game is over**", "fr": "**Skip-Bo : la partie est finie**"}
SKIPBO_GAME_ACTS = frozenset({"ph", "ps", "pd", "qs", "qd", "dc", "et", "nx"})
MODE_END, MODE_HAND, MODE_STOCK, MODE_DISCARD = 1, 100, 200, 210
MODE_PARTNER_STOCK, MODE_PARTNER_DISCARD = 300, 310
SOURCE_MODES = {
    skipbo.STOCK: MODE_STOCK,
    skipbo.DISCARD: MODE_DISCARD,
    skipbo.PARTNER_STOCK: MODE_PARTNER_STOCK,
    skipbo.PARTNER_DISCARD: MODE_PARTNER_DISCARD,
}


# ------------------------------------------------------------------------------------------ tables


async def open_skipbo_lobby(fake: Any, host: FakeUser, channel: Any = None, **options: Any) -> FakeMessage:
    inter = await fake.run_command(host, "skipbo", "new", options=options, channel=channel)
    message: FakeMessage = await inter.original()
    return message


async def start_skipbo(
    fake: Any,
    bot: SkyboBot,
    host: FakeUser,
    guests: list[FakeUser],
    *,
    add_computers: int = 0,
    seed: int = SEED,
    **options: Any,
) -> tuple[FakeMessage, int]:
    """``/skipbo new`` with ``options``; ``guests`` join, then the host adds ``add_computers`` computer
    players with the lobby button (so seats go: host, ``computers``, guests, added computers) and
    starts. The deal is seeded. Returns the table message and the game id."""
    bot.service.seed_source = lambda: seed
    lobby = await open_skipbo_lobby(fake, host, **options)
    assert not lobby.ephemeral, f"/skipbo new was refused: {lobby.text!r}"
    assert "Skip-Bo" in lobby.text
    for guest in guests:
        await (await fake.click(guest, lobby, _lobby_button(lobby, "jn"))).response()
        await fake.wait_until(lambda g=guest: g.global_name in lobby.text, what=f"{guest.username} seated")
    for _ in range(add_computers):
        robots = lobby.text.count("🤖")
        await (await fake.click(host, lobby, _lobby_button(lobby, "ai"))).response()
        await fake.wait_until(lambda r=robots: lobby.text.count("🤖") > r, what="a computer seated")
    await (await fake.click(host, lobby, _lobby_button(lobby, "st"))).response()
    game_id: int = await fake.wait_until(
        lambda: next((t.id for t in bot.service.tables.values() if t.stored.message_id == lobby.id), None),
        what="the game",
    )
    assert bot.service.tables[game_id].stored.kind == "skipbo"
    assert bot.service.tables[game_id].stored.seed == seed, "the deal was not seeded"
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table buttons")
    return lobby, game_id


def _lobby_button(lobby: FakeMessage, act: str) -> str:
    found: str | None = next((c for c in lobby.custom_ids if c.endswith(f":{act}")), None)
    assert found is not None, f"no {act!r} button on the lobby: {lobby.custom_ids}"
    return found


# ------------------------------------------------------------------------------------------ panels


def panel_buttons(panel: FakeMessage) -> list[tuple[ids.ButtonId, dict[str, Any]]]:
    out = []
    for comp in panel.all_components():
        parsed = ids.decode(comp.get("custom_id", ""))
        if comp.get("type") == 2 and parsed is not None:
            out.append((parsed, comp))
    return out


def hand_labels(panel: FakeMessage) -> list[str]:
    """The labels of the panel's hand buttons (row 1: ``md`` 100..199 on turn, ``rf`` 10..14 off turn)."""
    labels = []
    for parsed, comp in panel_buttons(panel):
        if (parsed.act == "md" and 100 <= parsed.arg < 200) or (parsed.act == "rf" and 10 <= parsed.arg < 15):
            labels.append(str(comp.get("label", "")).removeprefix("▶ "))
    return sorted(labels)


def engine_hand_labels(hand: list[int]) -> list[str]:
    return sorted(card_label(card) for card in hand)


def assert_panel_shows_own_hand(panel: FakeMessage, bot: SkyboBot, game_id: int, user: FakeUser) -> None:
    """The panel's hand buttons are exactly the clicker's hand in the engine (and nobody else's)."""
    table = bot.service.tables.get(game_id)
    if table is None or table.state.phase != skipbo.PLAY:
        return
    seat = table.seat_of(user.id)
    assert seat is not None
    want = engine_hand_labels(table.state.hands[seat])
    shown = hand_labels(panel)
    assert shown == want, f"{user.username}'s panel shows the hand {shown}, the engine has {want}"


def assert_table_hides_hands(table_message: FakeMessage, game: skipbo.State | None = None) -> None:
    """The public table gives each hand's size and nothing else of it (``game``: and the sizes are right).

    Beside the picture, each player's line is exactly: name (team, total), stock, hand size; without
    it (the full text), each player's field is exactly three lines: stock, hand size, discard piles.
    A hand is named elsewhere only by the moves' sentences (a card played from it, a hand played out).
    """
    if gallery_urls(table_message):
        shown = [line.split(" · ") for line in players_of(table_message)]
        # The lines, and the legend under them that says what their marks are (no hand's card).
        said = {" · ".join(parts) for parts in shown} | {f"-# {line}" for line in legend_of(table_message)}
        hands = [parts[2] if len(parts) == 3 else "" for parts in shown]
    else:
        shown = [value.split("\n") for value in fields_of(table_message).values()]
        said = set(fields_of(table_message).values())
        hands = [lines[1] if len(lines) == 3 else "" for lines in shown]
    if game is not None:
        assert len(shown) == len(game.players)
    for seat, (parts, hand) in enumerate(zip(shown, hands, strict=True)):
        assert len(parts) == 3, f"seat {seat} shows more than stock and hand size: {parts!r}"
        match = HAND_LINE.match(hand)
        assert match, f"seat {seat}'s hand line: {hand!r}"
        if game is not None:
            count = int(match[1] or match[2])
            assert count == len(game.hands[seat]), f"seat {seat}: {hand!r} {game.hands[seat]}"
    for line in text_of(table_message).split("\n"):
        if "hand" in line.lower() and line not in said and not HAND_LINE.match(line):
            assert HAND_EVENT.search(line), f"the table speaks of a hand: {line!r}"


def game_act_buttons(panel: FakeMessage) -> list[str]:
    """The enabled buttons of a panel that change the game or pick a source/target."""
    return [
        c["custom_id"]
        for c in enabled_buttons(panel)
        if act_of(c["custom_id"]) in SKIPBO_GAME_ACTS | {"md"} and ids.decode(c["custom_id"]) is not None
    ]


def find_button(panel: FakeMessage, act: str, arg: int) -> str:
    for parsed, comp in panel_buttons(panel):
        if parsed.act == act and parsed.arg == arg:
            assert not comp.get("disabled"), f"the {act}:{arg} button is disabled: {comp}"
            return str(comp["custom_id"])
    labels = [
        f"{p.act}:{p.arg}={c.get('label')}{' (off)' if c.get('disabled') else ''}"
        for p, c in panel_buttons(panel)
    ]
    raise AssertionError(f"no {act}:{arg} button on the panel {panel.text!r}: {labels}")


async def press(fake: Any, user: FakeUser, panel: FakeMessage, act: str, arg: int) -> FakeMessage:
    """Click the panel's ``act``/``arg`` button; the panel is updated in place (a move: acknowledged
    first, then the panel is edited; a mode: type 7). A panel that does not offer it yet is waited
    for, as a player would: after a computer's instant turn the bot edits the panel to the new turn."""

    def offered() -> bool:
        return any(p.act == act and p.arg == arg and not c.get("disabled") for p, c in panel_buttons(panel))

    with contextlib.suppress(TimeoutError):
        await fake.wait_until(offered, timeout=3.0, what=f"the {act}:{arg} button on the panel")
    inter = await fake.click(user, panel, find_button(panel, act, arg))
    shown = await inter.answer()
    assert shown.id == panel.id, f"a panel click ({act}:{arg}) updates the panel in place, got {shown.text!r}"
    return panel


# ------------------------------------------------------------------------------------------ playing


def pick_action(game: skipbo.State, seat: int, rng: random.Random) -> skipbo.Action:
    """A simple player: its (or its partner's) stock card when it fits; else mostly a number card;
    a Skip-Bo card when it makes the stock card fit; else a discard (or the end of the turn)."""
    legal = game.legal_actions(seat)
    assert legal, f"seat {seat} has no legal action in phase {game.phase}"
    plays = [a for a in legal if isinstance(a, skipbo.Play)]
    stock = [a for a in plays if a.source in (skipbo.STOCK, skipbo.PARTNER_STOCK)]
    if stock:
        return rng.choice(stock)
    tops = {game.stocks[s][-1] for s in game.team_of(seat) if game.stocks[s]}
    freeing = [a for a in plays if a.card == skipbo.WILD and a.value + 1 in tops]
    if freeing:
        return rng.choice(freeing)
    numbers = [a for a in plays if a.card != skipbo.WILD]
    if numbers and rng.random() < 0.85:
        return rng.choice(numbers)
    if plays and rng.random() < 0.1:
        return rng.choice(plays)
    others = [a for a in legal if not isinstance(a, skipbo.Play)]
    return rng.choice(others or legal)


def steps_for(action: skipbo.Action, rng: random.Random) -> list[tuple[str, int]]:
    """The panel clicks that make ``action``: (act, arg) pairs, the source first."""
    if isinstance(action, skipbo.Play):
        if action.source == skipbo.HAND:
            mode = MODE_HAND + action.card
        elif action.source in (skipbo.STOCK, skipbo.PARTNER_STOCK):
            mode = SOURCE_MODES[action.source]
        else:
            mode = SOURCE_MODES[action.source] + action.index
        target = play_arg(action.index, action.pile, action.card, action.value)
        return [("md", mode), (ACT_OF_SOURCE[action.source], target)]
    if isinstance(action, skipbo.Discard):
        steps = [("md", MODE_END)] if rng.random() < 0.3 else []  # End turn first, sometimes
        return [*steps, ("md", MODE_HAND + action.card), ("dc", discard_arg(action.pile, action.card))]
    if isinstance(action, skipbo.EndTurn):
        return [("et", 0)]
    assert isinstance(action, skipbo.NextRound), action
    return [("nx", 0)]


class Clicker:
    """Humans playing a Skip-Bo table by clicking their panels; counts what it did."""

    def __init__(
        self, fake: Any, bot: SkyboBot, game_id: int, table_message: FakeMessage, humans: list[FakeUser],
        rng: random.Random, *, check_table: bool = False,
    ) -> None:  # fmt: skip
        self.fake, self.bot, self.game_id = fake, bot, game_id
        self.check_table = check_table  # check the public table at the start of each human turn
        self.table_message, self.humans, self.rng = table_message, humans, rng
        self.clicks = 0
        self.moves = 0
        self.acts: dict[str, int] = {}  # game acts clicked, by act
        self.seen_modes: set[int] = set()  # md args of enabled buttons seen on panels
        self.panels: dict[int, FakeMessage] = {}  # user id -> the last panel of that user
        self.opener = open_panel  # how a player opens their panel from the table

    def record_panel(self, panel: FakeMessage, user: FakeUser, shown_at: int | None = None) -> None:
        """Check a panel just answered; ``shown_at``: the version it shows. Its hand is compared with
        the engine's only while the table is still at that version and no move is being committed: a
        computer's instant move after the click (and the new turn's draw) moves the engine on before
        the answer reaches the player, and the panel follows it later."""
        over = self.game_id not in self.bot.service.tables
        if over and panel.text.startswith(FINAL_TITLES[user.locale]):  # the click ended the game
            assert not panel.custom_ids, "a finished game's panel has nothing left to click"
            return
        # Else a panel of the game going on, even when the game is over by now: a move is answered as
        # soon as it is committed (issue 40), and a computer's instant last move may end the game
        # before this check runs (the panel then follows it to its final result).
        title = PANEL_TITLES[user.locale]
        assert panel.text.startswith(title), f"{user.username}'s panel: {panel.text!r}"
        for parsed, comp in panel_buttons(panel):
            if parsed.act == "md" and not comp.get("disabled"):
                self.seen_modes.add(parsed.arg)
        table = self.bot.service.tables.get(self.game_id)
        if table is None or self.bot.service.lock(table.channel_id).locked():
            return  # a move being committed: the engine's state runs ahead of its version meanwhile
        if shown_at is None or table.version == shown_at:
            assert_panel_shows_own_hand(panel, self.bot, self.game_id, user)

    def to_act(self) -> list[FakeUser]:
        table = self.bot.service.tables.get(self.game_id)
        if table is None:
            return []
        return [
            u
            for u in self.humans
            if (seat := table.seat_of(u.id)) is not None
            and seat in table.state.seats_to_act()
            and seat not in table.replaced()
            and not (table.state.phase == skipbo.ROUND_OVER and seat in table.votes)
        ]

    async def play(self, *, until: Callable[[], bool] | None = None, max_moves: int = 2000) -> int:
        """Play until the game is over (or ``until()``); returns the number of moves made."""
        start = self.moves
        while self.moves - start < max_moves:
            table = self.bot.service.tables.get(self.game_id)
            if table is None or (until is not None and until()):
                return self.moves - start
            humans = self.to_act()
            if not humans:
                await self.fake.wait_until(
                    self._moved(table, table.version), what=f"a computer move at version {table.version}"
                )
                continue
            await self.turn(humans[0], until=until)
        raise AssertionError(f"the game did not end after {max_moves} moves")

    def _moved(self, table: Table, version: int) -> Callable[[], bool]:
        def moved() -> bool:
            return self.bot.service.tables.get(self.game_id) is not table or table.version != version

        return moved

    async def turn(self, user: FakeUser, *, until: Callable[[], bool] | None = None) -> None:
        """``user`` opens a panel and plays until their turn (or their part of the pause) is over."""
        table = self.bot.service.tables[self.game_id]
        seat = table.seat_of(user.id)
        assert seat is not None
        # (Opening the panel waits for the service's lock, so the last computer move is committed
        # and the presenter told of it: the engine state can run ahead of the commit in between.)
        opened_at = table.version
        panel = await self.opener(self.fake, user, self.table_message)
        self.panels[user.id] = panel
        self.record_panel(panel, user, opened_at)
        if self.check_table:
            await self.bot.presenter.flush()
            assert_table_hides_hands(self.table_message, table.state)
        for _ in range(60):  # a turn is a few plays and a discard
            if self.bot.service.tables.get(self.game_id) is not table or user not in self.to_act():
                return
            if until is not None and until():
                return
            action = pick_action(table.state, seat, self.rng)
            steps = steps_for(action, self.rng)
            if len(steps) > 1 and self.rng.random() < 0.1:  # change one's mind once
                await press(self.fake, user, panel, *steps[0])
                await press(self.fake, user, panel, "md", 0)
                self.clicks += 2
            version = table.version
            for act, arg in steps:
                before = table.version
                await press(self.fake, user, panel, act, arg)
                self.clicks += 1
                self.record_panel(panel, user, before + (act in SKIPBO_GAME_ACTS))
                if act in SKIPBO_GAME_ACTS:
                    self.acts[act] = self.acts.get(act, 0) + 1
            assert table.version > version or isinstance(action, skipbo.NextRound), (
                f"{action} clicked on the panel but nothing was committed: {panel.text!r}"
            )
            self.moves += 1
        raise AssertionError(f"{user.username}'s turn did not end after 60 moves")
