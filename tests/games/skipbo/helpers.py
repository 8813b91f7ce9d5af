"""Helpers for the Skip-Bo engine tests: rigged tables and whole random games."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from bot.games.skipbo.engine import DECK, Action, Options, Play, State

FULL_DECK = Counter(DECK)


def names(n: int) -> list[str]:
    return [f"p{i}" for i in range(n)]


def all_cards(game: State) -> Counter[int]:
    """Every card of the game, wherever it is (SB-DECK-1 conservation)."""
    cards: Counter[int] = Counter()
    for hand in game.hands:
        cards.update(hand)
    for stock in game.stocks:
        cards.update(stock)
    for piles in game.discard_piles:
        for pile in piles:
            cards.update(pile)
    for pile in game.building_piles:
        cards.update(pile)
    cards.update(game.set_aside)
    cards.update(game.draw_pile)
    return cards


def take(game: State, card: int) -> int:
    """Move one ``card`` out of the draw pile (or, failing that, any stock bottom) for rigging."""
    if card in game.draw_pile:
        game.draw_pile.remove(card)
        return card
    for stock in game.stocks:
        if card in stock[:-1]:
            stock.remove(card)
            return card
    raise AssertionError(f"no spare {card}")


def rig(
    game: State,
    seat: int,
    *,
    hand: Sequence[int] | None = None,
    stock_top: Sequence[int] | None = None,
    discards: dict[int, Sequence[int]] | None = None,
    piles: Sequence[int] | None = None,
) -> State:
    """Give ``seat`` the turn with exactly these cards (the other hands empty), keeping all 162
    cards in the game.

    ``stock_top`` lists cards put on top of the stock (last one on top); ``piles`` sets the value of
    each building slot (built of the right number cards from the draw pile).
    """
    game.turn = seat
    game.played_this_turn = False
    for other, held in enumerate(game.hands):  # the others hold nothing yet
        if other != seat:
            game.draw_pile.extend(held)
            held.clear()
    if hand is not None:
        game.draw_pile.extend(game.hands[seat])
        game.hands[seat] = [take(game, c) for c in hand]
    if stock_top is not None:
        for c in stock_top:
            game.stocks[seat].append(take(game, c))
    if discards is not None:
        for index, cards in discards.items():
            game.draw_pile.extend(game.discard_piles[seat][index])
            game.discard_piles[seat][index] = [take(game, c) for c in cards]
    if piles is not None:
        for slot, value in enumerate(piles):
            game.draw_pile.extend(game.building_piles[slot])
            game.building_piles[slot] = [take(game, c) for c in range(1, value + 1)]
            game.building_values[slot] = value
    assert all_cards(game) == FULL_DECK
    return game


def new(players: int = 2, seed: int = 1, **options: object) -> State:
    return State.new(names(players), seed, Options(**options))  # type: ignore[arg-type]


def random_playout(
    players: int, options: Options, seed: int, plays_first: float = 0.9, check: bool = True
) -> tuple[State, list[tuple[int, Action]]]:
    """A whole game of random legal moves (a play when there is one with probability
    ``plays_first``), checking the card count after every action."""
    game = State.new(names(players), seed, options)
    rng = random.Random(seed)
    log: list[tuple[int, Action]] = []
    for _ in range(20_000):
        if game.is_over:
            return game, log
        seat = game.seats_to_act()[0]
        actions = game.legal_actions(seat)
        assert actions, "the seat to act always has a legal action"
        plays = [a for a in actions if isinstance(a, Play)]
        action = rng.choice(plays if plays and rng.random() < plays_first else actions)
        game.apply(seat, action)
        log.append((seat, action))
        if check:
            assert all_cards(game) == FULL_DECK
    raise AssertionError("the game did not end")
