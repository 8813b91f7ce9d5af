"""Skip-Bo computer players (``easy``, ``normal``, ``hard``): pure functions of one seat's view.

A policy sees exactly what :meth:`bot.games.skipbo.engine.Game.view` gives its seat: its own hand, every
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
- ``hard`` searches every sequence of plays of the turn (hand, discard tops and the cards under them,
  Skip-Bo cards, the partner's cards in a team game) and scores where each sequence ends: the stock
  card played by the shortest way first of all, and the way that leaves the best odds of playing the
  next stock card too; then few Skip-Bo cards spent (they are kept for the stock), discard piles
  unclogged, the hand emptied, and no building pile left at or just below an opponent's stock card,
  counting their discard tops as bridges (the next player's above all). Short of cards to draw it
  builds and completes piles instead of blocking, and with nothing left to draw it never ends a turn
  without a play it could make, since a stalled game has no winner. It discards so as to
  keep its discard piles descending and its Skip-Bo cards and the cards leading to its stock in hand.
  Short of its stock card, it weighs the best end points of its plays and its best discards by a
  determinized look-ahead (:mod:`bot.games.skipbo.lookahead`): hidden cards sampled from the unseen pool,
  the opponents' turns played by a model of ``normal``, then its own next turn (docs/ai.md).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from bot.games.skipbo.engine import (
    DISCARD,
    DISCARD_PILES,
    HAND,
    HAND_SIZE,
    PARTNER_DISCARD,
    PARTNER_STOCK,
    PLAY,
    ROUND_OVER,
    STOCK,
    TOP_VALUE,
    WILD,
    Action,
    Discard,
    EndTurn,
    NextRound,
    Play,
)
from bot.games.skipbo.lookahead import (
    LOSS,
    WIN,
    World,
    chain_step,
    keep_alive_wild,
    sample_world,
    take_top,
    unseen_pool,
)

View: TypeAlias = dict[str, Any]
Policy: TypeAlias = Callable[[View, random.Random], Action]

EASY_PLAYS: Final = 0.8  # how often ``easy`` plays a number card it could play

# A card that can be played now: (source, index, card).
Card: TypeAlias = tuple[str, int, int]


# --------------------------------------------------------------------------------------------------
# What every level reads from the view


@dataclass(slots=True)
class Table:
    """The parts of a view a policy works with, for the seat ``me``."""

    me: int
    players: int
    hand: list[int]
    piles: list[int]  # value reached per building slot, 0 = free
    stock: int | None  # own stock top
    discards: list[list[int]]  # own discard piles, top last
    partner: int | None
    partner_stock: int | None
    partner_discards: list[list[int]]
    stock_tops: list[int | None]
    teams: list[int] | None
    drawable: int  # cards in the draw pile and set aside: what is left to draw before a stall
    discards_of: list[list[list[int]]]  # every seat's discard piles

    @classmethod
    def of(cls, view: View) -> Table:
        me = int(view["viewer"])
        partner = view.get("partner")
        tops: list[int | None] = list(view["stock_tops"])
        return cls(
            me=me,
            players=len(view["players"]),
            hand=list(view["hand"] or []),
            piles=list(view["building_piles"]),
            stock=tops[me],
            discards=[list(p) for p in view["discard_piles"][me]],
            partner=partner,
            partner_stock=None if partner is None else tops[partner],
            partner_discards=[] if partner is None else [list(p) for p in view["discard_piles"][partner]],
            stock_tops=tops,
            teams=view.get("teams"),
            drawable=int(view["draw_pile_size"]) + int(view["set_aside_size"]),
            discards_of=view["discard_piles"],
        )

    def playable_cards(self) -> list[Card]:
        """Every card that could be played now, hand cards once per value."""
        out: list[Card] = [(HAND, 0, c) for c in sorted(set(self.hand))]
        if self.stock is not None:
            out.append((STOCK, 0, self.stock))
        out.extend((DISCARD, i, p[-1]) for i, p in enumerate(self.discards) if p)
        if self.partner_stock is not None:
            out.append((PARTNER_STOCK, 0, self.partner_stock))
        out.extend((PARTNER_DISCARD, i, p[-1]) for i, p in enumerate(self.partner_discards) if p)
        return out

    def plays_of(self, source: str, index: int, card: int) -> list[Play]:
        """Every legal play of that card (a Skip-Bo card onto any pile, as the value it needs)."""
        return [
            Play(source, index, card, slot, v + 1)
            for slot, v in enumerate(self.piles)
            if card == WILD or card == v + 1
        ]

    def all_plays(self) -> list[Play]:
        return [p for src, i, c in self.playable_cards() for p in self.plays_of(src, i, c)]

    def opponents_in_order(self) -> list[int]:
        """The opponents' seats in the order they play after ``me`` (partners excluded)."""
        seats = [(self.me + d) % self.players for d in range(1, self.players)]
        return [s for s in seats if s != self.partner]

    def end_turn(self, discard: tuple[int, int] | None) -> Action:
        if discard is None:
            return EndTurn()
        return Discard(discard[0], discard[1])


def _between_turns(view: View) -> Action | None:
    """The action when there is no choice to make (between rounds), else None."""
    if view["phase"] == ROUND_OVER:
        return NextRound()
    if view["phase"] != PLAY or view["viewer"] is None:
        raise ValueError("no decision to take in this view")
    return None


def _starved_turn(view: View) -> bool:
    """Nothing left to draw (nor set aside to refill the draw pile) and no building play yet this
    turn: a turn ended now brings the game nearer to a stall (SB-STALL-1), a draw nobody wins."""
    return not (view["played_this_turn"] or view["draw_pile_size"] or view["set_aside_size"])


def _wild_to_keep_alive(table: Table) -> Play | None:
    """The play ``easy`` and ``normal`` make rather than let a starved game stall when they have
    no number card to play: a Skip-Bo card (from the hand, else a discard top) onto the highest pile
    a number card they hold can follow, else the highest pile. None without a Skip-Bo card."""
    choice = keep_alive_wild(table.hand, table.discards, table.piles)
    if choice is None:
        return None
    pile, slot = choice
    source, index = (HAND, 0) if pile < 0 else (DISCARD, pile)
    return Play(source, index, WILD, slot, table.piles[slot] + 1)


def _stock_play(table: Table) -> Play | None:
    """The stock card onto the fullest pile it fits (a Skip-Bo stock card nearest completion)."""
    if table.stock is None:
        return None
    plays = table.plays_of(STOCK, 0, table.stock)
    if not plays:
        return None
    return max(plays, key=lambda p: (p.value, -p.pile))


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


# --------------------------------------------------------------------------------------------------
# hard


WILD_COST: Final = 30.0  # a Skip-Bo card spent without freeing the stock card
DISCARD_PLAYED: Final = 4.0  # a card played off a discard pile (unclogging it)
HAND_PLAYED: Final = 1.0
HAND_EMPTIED: Final = 10.0  # five fresh cards
STOCK_PLAYED: Final = 1000.0
PARTNER_STOCK_PLAYED: Final = 400.0
THREAT_WEIGHTS: Final = (10.0, 4.0, 2.0, 1.0, 1.0)  # by how soon the opponent plays after us
GAP_WEIGHTS: Final = (1.0, 0.5, 0.25)  # the pile is 0, 1 or 2 cards below the opponent's need
OWN_STOCK_NEAR: Final = 3.0
EXTRA_PLAY: Final = 0.5  # a play before the stock card that it did not need
CONT_WEIGHT: Final = 100.0  # the chance to play the next stock card too (reaching this one a better way)
CONT_DISCOUNT: Final = (1.0, 0.6, 0.3)  # ... with 0, 1 or 2 Skip-Bo cards
STARVED: Final = 15  # fewer cards than this left to draw (draw pile and set aside): build, don't block
STARVED_COMPLETION: Final = 20.0  # a pile completed then (it refills the draw pile)
MAX_NODES: Final = 4000
MAX_END_POINTS: Final = 1500  # states the look-ahead lists as end points of the plays (bounds the time)

# A search state: pile values per slot, sorted hand, cards taken from each stack, stock flags, and
# whether the hand was emptied by a play (then five unknown cards come: the search stops there).
State: TypeAlias = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], bool, bool, bool]


class _Planner:
    """Depth-first search over the plays of one turn, memoised on the state reached."""

    def __init__(self, table: Table, odds: list[float] | None = None) -> None:
        self.table = table
        self.odds = odds if CONT_WEIGHT else None  # chances of each value for the next stock card
        # Stacks: own discard piles, then the partner's; a stack is played from its end.
        self.stacks: list[list[int]] = table.discards + table.partner_discards
        self.root_hand = len(table.hand)
        self.root_wilds = table.hand.count(WILD)
        # Per opponent: how much leaving a building pile at each value (index) would help them to
        # their stock card, weighted by how soon they play after us.
        self.threats: list[tuple[list[float], float]] = []
        # Short of cards to draw, building (and completing piles to refill the draw pile) matters
        # more than holding the opponents back: a stalled game is won by nobody (SB-STALL-1).
        self.starved = table.drawable < STARVED
        for rank, seat in enumerate([] if self.starved else table.opponents_in_order()):
            top = table.stock_tops[seat]
            if top is not None and top != WILD:
                weight = THREAT_WEIGHTS[min(rank, len(THREAT_WEIGHTS) - 1)]
                self.threats.append((_threat_by_value(top, table.discards_of[seat]), weight))
        self.memo: dict[tuple[Any, ...], float] = {}
        self.root_piles = tuple(table.piles)

    def completions(self, piles: tuple[int, ...]) -> int:
        """How many piles went past 12 since the root (a pile's value only drops by completing)."""
        return sum(1 for a, b in zip(self.root_piles, piles, strict=True) if b < a)

    def evaluate(self, state: State) -> float:
        piles, hand, taken, stock_done, partner_done, emptied = state
        score = 0.0
        wilds_used = self.root_wilds - hand.count(WILD)
        from_hand = self.root_hand - len(hand)
        from_stacks = sum(taken)
        for k, n in enumerate(taken):
            if n:
                stack = self.stacks[k]
                wilds_used += sum(1 for c in stack[len(stack) - n :] if c == WILD)
        score -= wilds_used * WILD_COST
        if stock_done or partner_done:
            # Reach a stock card by the shortest way: every other play can wait until the next
            # stock card is known.
            score += STOCK_PLAYED if stock_done else PARTNER_STOCK_PLAYED
            score -= EXTRA_PLAY * (from_hand + from_stacks)
            if stock_done and self.odds is not None:
                score += CONT_WEIGHT * self.continuation(piles, hand, taken)
        else:
            score += from_hand * HAND_PLAYED + from_stacks * DISCARD_PLAYED
            if emptied:
                score += HAND_EMPTIED
            if self.starved:
                score += STARVED_COMPLETION * self.completions(piles)
        for by_value, weight in self.threats:
            score -= weight * max(by_value[v] for v in piles)
        s = self.table.stock
        if not stock_done and s is not None and s != WILD:
            near = max(
                (GAP_WEIGHTS[g] for v in piles if 0 <= (g := s - 1 - v) < len(GAP_WEIGHTS)), default=0.0
            )
            score += OWN_STOCK_NEAR * near
        return score

    def continuation(self, piles: tuple[int, ...], hand: tuple[int, ...], taken: tuple[int, ...]) -> float:
        """The chance that the next stock card (drawn from the unseen pool) can be played too, from
        the cards left; a card that needs Skip-Bo cards counts less."""
        assert self.odds is not None
        reach = _reach_costs(
            piles, hand, [st[: len(st) - n] for st, n in zip(self.stacks, taken, strict=True)]
        )
        total = self.odds[WILD]
        for value in range(1, TOP_VALUE + 1):
            cost = reach[value]
            if 0 <= cost < len(CONT_DISCOUNT):
                total += self.odds[value] * CONT_DISCOUNT[cost]
        return total

    def moves(self, state: State) -> list[tuple[Play, State]]:
        piles, hand, taken, stock_done, partner_done, _ = state
        cards: list[tuple[str, int, int]] = []
        table = self.table
        if not stock_done and table.stock is not None:
            cards.append((STOCK, 0, table.stock))
        if not partner_done and table.partner_stock is not None:
            cards.append((PARTNER_STOCK, 0, table.partner_stock))
        for k, stack in enumerate(self.stacks):
            n = taken[k]
            if n < len(stack):
                src, i = (DISCARD, k) if k < DISCARD_PILES else (PARTNER_DISCARD, k - DISCARD_PILES)
                cards.append((src, i, stack[-1 - n]))
        previous = None
        for c in hand:
            if c != previous:
                cards.append((HAND, 0, c))
            previous = c
        out: list[tuple[Play, State]] = []
        for src, i, card in cards:
            seen: set[int] = set()
            for slot, v in enumerate(piles):
                value = v + 1
                if value in seen or (card != WILD and card != value):
                    continue
                seen.add(value)
                new_piles = list(piles)
                new_piles[slot] = 0 if value == TOP_VALUE else value
                new_hand = hand
                new_taken = taken
                stock = stock_done
                partner = partner_done
                emptied = state[5]
                if src == HAND:
                    h = list(hand)
                    h.remove(card)
                    new_hand = tuple(h)
                    emptied = not h
                elif src == STOCK:
                    stock = True
                elif src == PARTNER_STOCK:
                    partner = True
                else:
                    k = i if src == DISCARD else i + DISCARD_PILES
                    t = list(taken)
                    t[k] += 1
                    new_taken = tuple(t)
                child: State = (tuple(new_piles), new_hand, new_taken, stock, partner, emptied)
                out.append((Play(src, i, card, slot, value), child))
        return out

    def best(self, state: State) -> float:
        key = (tuple(sorted(state[0])), *state[1:])
        known = self.memo.get(key)
        if known is not None:
            return known
        value = self.evaluate(state)
        # A played stock card brings an unknown card: plan again after that. An emptied hand brings
        # five unknown ones, but the stock and discard piles may still be played meanwhile.
        if not (state[3] or state[4]) and len(self.memo) < MAX_NODES:
            for _, child in self.moves(state):
                v = self.best(child)
                if v > value:
                    value = v
        self.memo[key] = value
        return value

    def root(self) -> State:
        """The state at the start of the search: nothing played yet."""
        t = self.table
        return (tuple(t.piles), tuple(sorted(t.hand)), (0,) * len(self.stacks), False, False, False)

    def first_move(self) -> Play | None:
        """The first play of the best sequence, or None when stopping now is best."""
        return self.first_move_value()[0]

    def first_move_value(self, must_play: bool = False) -> tuple[Play | None, float]:
        """The first play of the best sequence (None when stopping now is best, unless ``must_play``;
        None too when there is no play at all) and its score."""
        root = self.root()
        best_value = -math.inf if must_play else self.evaluate(root) + 1e-9
        best_move: Play | None = None
        for move, child in self.moves(root):
            v = self.best(child)
            if v > best_value:
                best_value, best_move = v, move
        return best_move, best_value


def _reach_costs(piles: tuple[int, ...], hand: tuple[int, ...], stacks: list[list[int]]) -> list[int]:
    """For each stock value 1..12 (index), the fewest Skip-Bo cards needed to make a building pile
    ready for it from these cards (-1: out of reach), going up each pile by the cheapest cards."""
    reach = [-1] * (TOP_VALUE + 1)
    base = [0] * (TOP_VALUE + 1)
    for c in hand:
        base[c] += 1
    for v in piles:
        reach[v + 1] = 0
        counts = list(base)
        depth = [len(st) for st in stacks]
        wilds = 0
        for need in range(v + 1, TOP_VALUE):
            cost = chain_step(need, counts, stacks, depth)
            if cost < 0:
                break
            wilds += cost
            if reach[need + 1] < 0 or wilds < reach[need + 1]:
                reach[need + 1] = wilds
    return reach


def _threat_by_value(stock: int, discards: list[list[int]]) -> list[float]:
    """For each building pile value (index), how near it leaves an opponent to their stock card:
    by the cards still missing in between once their discard piles' tops (and the cards under them)
    are played, 1 with none missing, then by ``GAP_WEIGHTS``."""
    out = [0.0] * (TOP_VALUE + 1)
    for v in range(stock):
        depth = [len(p) for p in discards]
        missing = 0
        for need in range(v + 1, stock):
            if not take_top(need, discards, depth):
                missing += 1
        if missing < len(GAP_WEIGHTS):
            out[v] = GAP_WEIGHTS[missing]
    return out


def _discard_options(
    hand: list[int], discards: list[list[int]], stock: int | None, piles: list[int]
) -> list[tuple[float, int, int]]:
    """Every (cost, hand card, discard pile), cheapest first: keep Skip-Bo cards and the cards that
    lead to the stock card, keep every discard pile descending, stack equal cards, high cards on
    free piles."""
    useful: set[int] = set()
    if stock is not None and stock != WILD:
        for v in piles:
            useful.update(range(v + 1, stock))
    out: list[tuple[float, int, int]] = []
    for card in sorted(set(hand)):
        keep = 0.0
        if card == WILD:
            keep = 60.0
        elif card in useful:
            keep = 5.0
        if hand.count(card) > 1:
            keep -= 1.5
        for i, pile in enumerate(discards):
            if not pile:
                cost = 3.0 - 2.0 * card / TOP_VALUE
            else:
                top = pile[-1]
                if top == WILD:
                    cost = 20.0
                elif top == card:
                    cost = 0.0
                elif top == card + 1:
                    cost = 0.5
                elif top > card:
                    cost = 1.0 + 0.4 * (top - card - 1)
                else:
                    cost = 8.0 + (card - top)
            out.append((keep + cost, card, i))
    out.sort()
    return out


def _hard_discard(table: Table) -> tuple[int, int] | None:
    """The cheapest discard by :func:`_discard_options` (the plain heuristic)."""
    if not table.hand:
        return None
    _, card, pile = _discard_options(table.hand, table.discards, table.stock, table.piles)[0]
    return card, pile


def decide_hard(view: View, rng: random.Random) -> Action:
    """Search the turn's plays; unless the stock card is reached, weigh the best end points and the
    discards by look-ahead over sampled hidden cards (see the module docstring)."""
    fixed = _between_turns(view)
    if fixed is not None:
        return fixed
    table = Table.of(view)
    pool = unseen_pool(view)
    planner = _Planner(table, _odds(pool))
    if table.partner is not None or not LOOKAHEAD:  # team games: the plain search and discard
        play = planner.first_move()
        if play is not None:
            return play
        action = table.end_turn(_hard_discard(table))
    else:
        action = _lookahead(view, table, planner, pool, rng)
    if isinstance(action, Play):
        return action
    return _keep_alive(view, planner) or action


def _odds(pool: list[int]) -> list[float] | None:
    """The chance of each card value (index) for a card drawn from ``pool``."""
    if not pool:
        return None
    odds = [0.0] * (TOP_VALUE + 1)
    share = 1.0 / len(pool)
    for c in pool:
        odds[c] += share
    return odds


def _keep_alive(view: View, planner: _Planner) -> Play | None:
    """With nothing left to draw, a turn without a building play brings the game nearer to a stall,
    a draw that nobody wins (SB-STALL-1): rather than end such a turn without playing, play the
    first card of the best sequence that plays at least one (a Skip-Bo card if need be)."""
    if not KEEP_ALIVE or not _starved_turn(view):
        return None
    return planner.first_move_value(must_play=True)[0]


LOOKAHEAD = True  # experiment switches: look-ahead at all, and for the plays (else discards only)
PLAY_LOOKAHEAD = True
KEEP_ALIVE = True  # and the play that keeps a starved game from stalling
SAMPLES: Final = 8  # sampled deals of the hidden cards per look-ahead
PLAY_CANDIDATES: Final = 6  # end points of the turn's plays weighed by look-ahead
DISCARD_CANDIDATES: Final = 6  # discards weighed by look-ahead
OPPONENT_WEIGHT: Final = 0.5  # an opponent's stock card against one of ours
PLAN_WEIGHT: Final = 0.3  # the search's own score of an end point, as a tie-break
DISCARD_COST_WEIGHT: Final = 0.05  # the heuristic cost of a discard, as a tie-break


def _end_points(planner: _Planner) -> list[tuple[float, State, Play | None]]:
    """The states the turn's plays can stop at (short of the stock card), with the first play of a
    way there, best by the search's score first; the root (play nothing more) always included."""
    root = planner.root()
    seen: dict[tuple[Any, ...], tuple[State, Play | None]] = {}
    stack: list[tuple[State, Play | None]] = [(root, None)]
    while stack and len(seen) < MAX_END_POINTS:
        state, first = stack.pop()
        key = (tuple(sorted(state[0])), *state[1:])
        if key in seen or state[3] or state[4]:
            continue
        seen[key] = (state, first)
        if state[5]:
            continue  # five unknown cards come: the look-ahead draws them
        for move, child in planner.moves(state):
            stack.append((child, first or move))
    scored = sorted(
        ((planner.evaluate(st), st, first) for st, first in seen.values()),
        key=lambda x: -x[0],
    )
    out = scored[:PLAY_CANDIDATES]
    if all(first is not None for _, _, first in out):
        out.append(next(x for x in scored if x[2] is None))
    return out


def _lookahead(view: View, table: Table, planner: _Planner, pool: list[int], rng: random.Random) -> Action:
    play, value = planner.first_move_value()
    if play is not None and (value > STOCK_PLAYED / 2 or not PLAY_LOOKAHEAD):
        return play  # the stock card is within reach: go for it by the shortest way
    me = table.me
    order = table.opponents_in_order()
    worlds = [sample_world(view, pool, rng) for _ in range(SAMPLES)]
    candidates = _end_points(planner)
    if PLAY_LOOKAHEAD and len(candidates) > 1:
        best_score, best_first = -1e18, None
        for plan_score, state, first in candidates:
            total = 0.0
            for world in worlds:
                total += _play_out(world.copy(), me, order, planner, state)
            score = total / len(worlds) + PLAN_WEIGHT * plan_score
            if score > best_score:
                best_score, best_first = score, first
        if best_first is not None:
            return best_first
    if not table.hand:
        return EndTurn()
    options = _discard_options(table.hand, table.discards, table.stock, table.piles)[:DISCARD_CANDIDATES]
    if len(options) == 1:
        return Discard(options[0][1], options[0][2])
    totals = [0.0] * len(options)
    for world in worlds:
        w = world.copy()
        lost = False
        for seat in order:
            _, won = w.normal_turn(w.seats[seat])
            if won:
                lost = True
                break
        if lost:
            continue
        for k, (_, card, pile) in enumerate(options):
            trial = w.copy()
            mine = trial.seats[me]
            mine.hand.remove(card)
            mine.discards[pile].append(card)
            trial.draw(mine.hand, HAND_SIZE - len(mine.hand))
            played, won = trial.chase_stock(mine)
            totals[k] += played + (WIN if won else 0.0)
    best = max(
        range(len(options)), key=lambda k: (totals[k] / len(worlds) - DISCARD_COST_WEIGHT * options[k][0], -k)
    )
    return Discard(options[best][1], options[best][2])


def _play_out(world: World, me: int, order: list[int], planner: _Planner, state: State) -> float:
    """Stop the plays at ``state``, discard by the heuristic, let the opponents play their turns
    and chase the stock card on the next turn; our stock cards minus the opponents' (weighted)."""
    piles, hand, taken, _, _, emptied = state
    mine = world.seats[me]
    world.piles = list(piles)
    mine.hand = list(hand)
    mine.discards = [p[: len(p) - n] for p, n in zip(mine.discards, taken[:DISCARD_PILES], strict=True)]
    score = 0.0
    if emptied and not mine.hand:
        world.draw(mine.hand, HAND_SIZE)
        played, won = world.chase_stock(mine)
        if won:
            return played + WIN
        score += played
    if mine.hand:
        _, card, pile = _discard_options(mine.hand, mine.discards, mine.top, world.piles)[0]
        mine.hand.remove(card)
        mine.discards[pile].append(card)
    for seat in order:
        played, won = world.normal_turn(world.seats[seat])
        score -= OPPONENT_WEIGHT * played
        if won:
            return score - LOSS
    world.draw(mine.hand, HAND_SIZE - len(mine.hand))
    played, won = world.chase_stock(mine)
    return score + played + (WIN if won else 0.0)


LEVELS: Final[dict[str, Policy]] = {
    "easy": decide_easy,
    "normal": decide_normal,
    "hard": decide_hard,
}


def decide(level: str, view: View, rng: random.Random) -> Action:
    """The action of the ``level`` policy for the seat of ``view``."""
    return LEVELS[level](view, rng)
