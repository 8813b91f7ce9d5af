"""Determinized look-ahead for the ``hard`` Skip-Bo player (see :mod:`bot.games.skipbo.ai`).

Everything here works from one seat's view only. The cards the seat cannot see (the other hands, the
draw pile, every stock below its top card, the set-aside piles) form the *unseen pool*: the full deck
minus every visible card (the own hand, all discard piles, the stock tops, the building piles, whose
cards under the top are taken to be the number cards below it). A *sample* shuffles that pool with the
seeded generator, deals the opponents' hands from it and draws every later card (draws, revealed stock
cards) from its end. In a sample the rest of the turn, the opponents' turns (played by a model of the
``normal`` level) and the seat's next turn (a greedy chase of its stock card) are played out quickly
on plain lists, and the stock cards played are counted.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Final

from bot.games.skipbo.engine import DECK, HAND_SIZE, TOP_VALUE, WILD

_DECK_COUNTS: Final = [DECK.count(v) for v in range(TOP_VALUE + 1)]

# Outcome values of one sample, in stock cards.
WIN: Final = 40.0  # the seat empties its stock
LOSS: Final = 40.0  # an opponent empties theirs first
SHUFFLED: Final = 60  # cards of the pool shuffled per sample (hands dealt and cards drawn from its end)


def unseen_pool(view: dict[str, Any]) -> list[int]:
    """The cards the viewer cannot see, as a sorted list (a multiset)."""
    counts = list(_DECK_COUNTS)
    seen: list[int] = list(view["hand"] or [])
    for piles in view["discard_piles"]:
        for pile in piles:
            seen.extend(pile)
    seen.extend(t for t in view["stock_tops"] if t is not None)
    for card in seen:
        counts[card] -= 1
    # Building piles: the top is known; the cards below are taken as the numbers under it (a Skip-Bo
    # card played for one of them is not shown). The set-aside piles are whole runs 1..12.
    below: list[int] = []
    for value, top in zip(view["building_piles"], view["building_tops"], strict=True):
        if value:
            counts[WILD if top == WILD else value] -= 1
            below.extend(range(1, value))
    below.extend(v for _ in range(int(view["set_aside_size"]) // TOP_VALUE) for v in range(1, TOP_VALUE + 1))
    for card in below:
        if counts[card] > 0:
            counts[card] -= 1
        elif counts[WILD] > 0:
            counts[WILD] -= 1
    pool = [v for v in range(TOP_VALUE + 1) for _ in range(max(0, counts[v]))]
    return pool


@dataclass(slots=True)
class Seat:
    """One player's cards in a sample."""

    hand: list[int]
    top: int | None  # stock top
    left: int  # stock size
    discards: list[list[int]]


class World:
    """One sample of the hidden cards and a quick play-out of the coming turns on it."""

    __slots__ = ("drawable", "piles", "pool", "seats")

    def __init__(self, piles: list[int], seats: list[Seat], pool: list[int], drawable: int) -> None:
        self.piles = piles
        self.seats = seats
        self.pool = pool
        self.drawable = drawable  # cards left to draw before the draw pile runs dry

    def copy(self) -> World:
        return World(
            list(self.piles),
            [Seat(list(s.hand), s.top, s.left, [list(p) for p in s.discards]) for s in self.seats],
            list(self.pool),
            self.drawable,
        )

    # ------------------------------------------------------------------ mechanics

    def draw(self, hand: list[int], count: int) -> None:
        pool = self.pool
        while count > 0 and self.drawable > 0 and pool:
            hand.append(pool.pop())
            self.drawable -= 1
            count -= 1

    def place(self, slot: int) -> None:
        """A card went onto building pile ``slot``."""
        value = self.piles[slot] + 1
        if value == TOP_VALUE:
            self.piles[slot] = 0
            self.drawable += TOP_VALUE  # the completed pile refills the draw pile later
        else:
            self.piles[slot] = value

    def play_stock(self, seat: Seat, slot: int) -> bool:
        """Play the stock top onto ``slot``; True when the stock is empty (a win)."""
        self.place(slot)
        seat.left -= 1
        if seat.left <= 0:
            seat.top = None
            return True
        seat.top = self.pool.pop() if self.pool else TOP_VALUE
        return False

    # ------------------------------------------------------------------ the normal level

    def normal_turn(self, seat: Seat) -> tuple[int, bool]:
        """The ``normal`` level's whole turn: stock cards played, and whether it won."""
        piles, hand, discards = self.piles, seat.hand, seat.discards
        if len(hand) < HAND_SIZE:
            self.draw(hand, HAND_SIZE - len(hand))
        played = 0
        placed = False  # a building play this turn
        while True:
            s = seat.top
            if s is not None:
                slot = -1
                if s == WILD:
                    slot = max(range(4), key=lambda k: (piles[k], -k))
                elif s - 1 in piles:
                    slot = piles.index(s - 1)
                if slot >= 0:
                    played += 1
                    if self.play_stock(seat, slot):
                        return played, True
                    if not hand:
                        self.draw(hand, HAND_SIZE)
                    continue
                if s != WILD and s >= 2 and s - 2 in piles and _take(s - 1, hand, discards, False):
                    self.place(piles.index(s - 2))
                    placed = True
                    if not hand:
                        self.draw(hand, HAND_SIZE)
                    continue
            done = False
            for card in sorted(set(hand)):
                if card != WILD and card - 1 in piles:
                    hand.remove(card)
                    self.place(piles.index(card - 1))
                    done = True
                    break
            if not done:
                for pile in discards:
                    if pile and pile[-1] != WILD and pile[-1] - 1 in piles:
                        self.place(piles.index(pile.pop() - 1))
                        done = True
                        break
            if not done and not (placed or played) and self.drawable <= 0:
                done = self.keep_alive(hand, discards)  # nothing to draw: rather than stall
            if not done:
                break
            placed = True
            if not hand:
                self.draw(hand, HAND_SIZE)
        if hand:
            normal_discard(hand, discards)
        return played, False

    def keep_alive(self, hand: list[int], discards: list[list[int]]) -> bool:
        """``normal``'s Skip-Bo card played rather than let a starved game stall
        (:func:`keep_alive_wild`); False without one."""
        choice = keep_alive_wild(hand, discards, self.piles)
        if choice is None:
            return False
        source, slot = choice
        if source < 0:
            hand.remove(WILD)
        else:
            discards[source].pop()
        self.place(slot)
        return True

    # ------------------------------------------------------------------ the seat itself

    def chase_stock(self, seat: Seat) -> tuple[int, bool]:
        """Greedily play the stock card, through the shortest chain of cards that frees it (hand
        numbers, then discard tops, then Skip-Bo cards), as long as one exists."""
        piles, hand, discards = self.piles, seat.hand, seat.discards
        played = 0
        while seat.top is not None:
            s = seat.top
            if s == WILD:
                slot = max(range(4), key=lambda k: (piles[k], -k))
                played += 1
                if self.play_stock(seat, slot):
                    return played, True
                continue
            if s - 1 in piles:
                played += 1
                if self.play_stock(seat, piles.index(s - 1)):
                    return played, True
                continue
            best: tuple[int, int, int] | None = None  # (wilds, length, slot)
            for slot, v in enumerate(piles):
                if v >= s - 1:
                    continue
                wilds = _chain_cost(v + 1, s - 1, hand, discards)
                if wilds >= 0 and (best is None or (wilds, s - 1 - v) < best[:2]):
                    best = (wilds, s - 1 - v, slot)
            if best is None:
                break
            slot = best[2]
            for need in range(piles[slot] + 1, s):
                _take(need, hand, discards, wild_from_discards=True)
                self.place(slot)
                if not hand:
                    self.draw(hand, HAND_SIZE)
        return played, False


def keep_alive_wild(hand: list[int], discards: list[list[int]], piles: list[int]) -> tuple[int, int] | None:
    """The Skip-Bo card ``easy`` and ``normal`` play to keep a starved game going, as (the discard
    pile it comes from, -1 for the hand; the building slot it goes on), or None without one. It comes
    from the hand, else the first discard top that is one; it goes on the highest pile that one of
    their cards (hand or discard tops) can follow next, else the highest pile, first slot on ties."""
    if WILD in hand:
        source = -1
    else:
        found = next((i for i, p in enumerate(discards) if p and p[-1] == WILD), None)
        if found is None:
            return None
        source = found
    follow = set(hand) | {p[-1] for p in discards if p}
    slot = max(range(len(piles)), key=lambda k: (piles[k] + 2 in follow, piles[k], -k))
    return source, slot


def _take(need: int, hand: list[int], discards: list[list[int]], wild_from_discards: bool) -> bool:
    """Take a card to play as ``need``: the number from the hand, else from a discard top, else a
    Skip-Bo card from the hand (or, with ``wild_from_discards``, from a discard top). False if none."""
    if need in hand:
        hand.remove(need)
        return True
    for pile in discards:
        if pile and pile[-1] == need:
            pile.pop()
            return True
    if WILD in hand:
        hand.remove(WILD)
        return True
    if wild_from_discards:
        for pile in discards:
            if pile and pile[-1] == WILD:
                pile.pop()
                return True
    return False


def chain_step(need: int, counts: list[int], stacks: list[list[int]], depth: list[int]) -> int:
    """Take a card to play as ``need`` when counting a chain: the number from the hand ``counts``,
    else from a stack's top (``depth[k]`` cards of stack ``k`` are left), else a Skip-Bo card from
    the hand, else from a stack's top. 0 for a number, 1 for a Skip-Bo card, -1 if none is left."""
    if counts[need]:
        counts[need] -= 1
        return 0
    if take_top(need, stacks, depth):
        return 0
    if counts[WILD]:
        counts[WILD] -= 1
        return 1
    return 1 if take_top(WILD, stacks, depth) else -1


def take_top(card: int, stacks: list[list[int]], depth: list[int]) -> bool:
    """Take ``card`` from the first stack whose top (of its ``depth`` cards left) it is."""
    for k, pile in enumerate(stacks):
        if depth[k] and pile[depth[k] - 1] == card:
            depth[k] -= 1
            return True
    return False


def _chain_cost(first: int, last: int, hand: list[int], discards: list[list[int]]) -> int:
    """Skip-Bo cards needed to play the values first..last from hand and discard piles, or -1 if
    they cannot all be played (without counting the fresh cards an emptied hand would bring)."""
    counts = [0] * (TOP_VALUE + 1)
    for c in hand:
        counts[c] += 1
    depth = [len(p) for p in discards]
    wilds = 0
    for need in range(first, last + 1):
        cost = chain_step(need, counts, discards, depth)
        if cost < 0:
            return -1
        wilds += cost
    return wilds


def normal_discard(hand: list[int], discards: list[list[int]]) -> None:
    """The ``normal`` level's discard: its highest number card onto an equal or the nearest higher
    top, else a free pile, else the lowest top."""
    numbers = [c for c in hand if c != WILD]
    card = max(numbers) if numbers else WILD
    hand.remove(card)
    tops = [p[-1] if p else None for p in discards]
    if card in tops:
        discards[tops.index(card)].append(card)
        return
    higher = [(t, i) for i, t in enumerate(tops) if t is not None and t != WILD and t > card]
    if higher:
        discards[min(higher)[1]].append(card)
        return
    if None in tops:
        discards[tops.index(None)].append(card)
        return
    discards[min((t if t is not None else 0, i) for i, t in enumerate(tops))[1]].append(card)


def sample_world(view: dict[str, Any], pool: list[int], rng: random.Random) -> World:
    """One determinization of the view: the pool shuffled, the opponents' hands dealt from it."""
    me = int(view["viewer"])
    cards = list(pool)
    # Only the end of the pool is ever dealt or drawn in a play-out: shuffle that much of it (a
    # partial Fisher-Yates shuffle, uniform over the cards that end up there).
    n = len(cards)
    rand = rng.random
    for i in range(n - 1, max(0, n - SHUFFLED), -1):
        j = int(rand() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]
    seats: list[Seat] = []
    for s, size in enumerate(view["hand_sizes"]):
        if s == me:
            hand = list(view["hand"] or [])
        else:
            hand = cards[len(cards) - size :] if size else []
            del cards[len(cards) - size :]
        seats.append(
            Seat(
                hand,
                view["stock_tops"][s],
                int(view["stock_sizes"][s]),
                [list(p) for p in view["discard_piles"][s]],
            )
        )
    drawable = int(view["draw_pile_size"]) + int(view["set_aside_size"])
    return World(list(view["building_piles"]), seats, cards, drawable)
