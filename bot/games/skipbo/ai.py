"""Skip-Bo computer players (``easy``, ``normal``, ``hard``): pure functions of one seat's view.

A policy sees exactly what :meth:`bot.games.skipbo.engine.State.view` gives its seat: its own hand, every
stock size and top, every discard pile, the building piles. It never sees another hand or the draw
pile, so two games that differ only there get the same decision.

- ``easy`` plays its stock card when it fits, otherwise usually (``EASY_PLAYS``) a random playable
  number card, and discards a random card on a random pile.
- ``normal`` plays its stock card (or its partner's) when it fits, or the one card (a number, else a
  Skip-Bo card) that makes it fit; otherwise it plays every number card it can from its discard
  piles and hand, keeping Skip-Bo cards for the stock; it discards its highest number card onto a
  pile with the same or the nearest higher top.
- No level lets a game stall while it could play (SB-STALL-1 makes it a draw that nobody wins):
  with nothing left to draw and no building play yet in its turn, ``easy`` plays a number card it
  can, and ``easy`` and ``normal`` otherwise a Skip-Bo card (the highest pile a card they hold can
  follow, else the highest pile). Without this, about one game of four ``normal`` players in nine
  ended in a stall.
- ``hard`` (:mod:`bot.games.skipbo.hard`) searches every sequence of plays of the turn (hand, discard
  tops and the cards under them, Skip-Bo cards, the partner's cards in a team game) and scores where
  each sequence ends: the stock card played by the shortest way first of all, and the way that leaves
  the best odds of playing the next stock card too; then few Skip-Bo cards spent (they are kept for the
  stock), discard piles unclogged, the hand emptied, and no building pile left at or just below an
  opponent's stock card, counting their discard tops as bridges (the next player's above all). Short of
  cards to draw it builds and completes piles instead of blocking, and with nothing left to draw it
  never ends a turn without a play it could make, since a stalled game has no winner. It discards so as
  to keep its discard piles descending and its Skip-Bo cards and the cards leading to its stock in hand.
  Short of its stock card, it weighs the best end points of its plays and its best discards by a
  determinized look-ahead (:mod:`bot.games.skipbo.lookahead`): hidden cards sampled from the unseen
  pool, the opponents' turns played by a model of ``normal``, then its own next turn (docs/ai.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final, TypeAlias

from bot.games.skipbo.engine import (
    DISCARD,
    DISCARD_PILES,
    HAND,
    PARTNER_DISCARD,
    PARTNER_STOCK,
    WILD,
    Action,
    Discard,
    EndTurn,
    Play,
)
from bot.games.skipbo.hard import decide_hard
from bot.games.skipbo.reading import (
    Table,
    View,
    _between_turns,
    _starved_turn,
    _stock_play,
    _wild_to_keep_alive,
)

Policy: TypeAlias = Callable[[View, random.Random], Action]

EASY_PLAYS: Final = 0.8  # how often ``easy`` plays a number card it could play


# --------------------------------------------------------------------------------------------------
# easy


def decide_easy(view: View, rng: random.Random) -> Action:
    """Stock card if it fits; else usually a random playable number card; else a random discard."""
    fixed = _between_turns(view)
    if fixed is not None:
        return fixed
    table = Table.of(view)
    stock = _stock_play(table)
    if stock is not None:
        return stock
    numbers = [p for p in table.all_plays() if p.card != WILD]
    starved = _starved_turn(view)
    if numbers and (starved or rng.random() < EASY_PLAYS):
        return rng.choice(numbers)
    wild = _wild_to_keep_alive(table) if starved else None
    if wild is not None:
        return wild
    if not table.hand:
        return EndTurn()
    return Discard(rng.choice(sorted(table.hand)), rng.randrange(DISCARD_PILES))


# --------------------------------------------------------------------------------------------------
# normal


def _step_to_stock(table: Table) -> Play | None:
    """One card (a number from the hand or a discard top, else a Skip-Bo card from the hand) that
    makes the stock card fit: the only plan ``normal`` makes."""
    s = table.stock
    if s is None or s == WILD:
        return None
    for slot, v in enumerate(table.piles):
        if v != s - 2:
            continue
        for src, i, card in table.playable_cards():
            if src in (HAND, DISCARD) and card == s - 1:
                return Play(src, i, card, slot, card)
        if WILD in table.hand:
            return Play(HAND, 0, WILD, slot, s - 1)
    return None


def _normal_discard(table: Table) -> tuple[int, int] | None:
    if not table.hand:
        return None
    numbers = [c for c in table.hand if c != WILD]
    card = max(numbers) if numbers else WILD
    tops = [p[-1] if p else None for p in table.discards]
    for i, top in enumerate(tops):
        if top == card:
            return card, i
    higher = [(top, i) for i, top in enumerate(tops) if top is not None and top != WILD and top > card]
    if higher:
        return card, min(higher)[1]
    for i, top in enumerate(tops):
        if top is None:
            return card, i
    return card, min((top if top is not None else 0, i) for i, top in enumerate(tops))[1]


def decide_normal(view: View, rng: random.Random) -> Action:
    """Stock card, a chain to the stock card, number cards from discards and hand, then discard."""
    fixed = _between_turns(view)
    if fixed is not None:
        return fixed
    table = Table.of(view)
    play = _stock_play(table)
    if play is None and table.partner_stock is not None:
        plays = table.plays_of(PARTNER_STOCK, 0, table.partner_stock)
        play = plays[0] if plays else None
    if play is None:
        play = _step_to_stock(table)
    if play is None:
        for src, i, c in table.playable_cards():
            if c != WILD and src in (DISCARD, HAND, PARTNER_DISCARD):
                plays = table.plays_of(src, i, c)
                if plays:
                    play = plays[0]
                    break
    if play is None and _starved_turn(view):
        play = _wild_to_keep_alive(table)
    if play is not None:
        return play
    return table.end_turn(_normal_discard(table))


LEVELS: Final[dict[str, Policy]] = {
    "easy": decide_easy,
    "normal": decide_normal,
    "hard": decide_hard,
}


def decide(level: str, view: View, rng: random.Random) -> Action:
    """The action of the ``level`` policy for the seat of ``view``."""
    return LEVELS[level](view, rng)
