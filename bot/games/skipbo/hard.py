"""The ``hard`` Skip-Bo computer player: a search of the turn's plays, scored, and a determinized
look-ahead short of the stock card (see :mod:`bot.games.skipbo.ai` and docs/ai.md)."""

from __future__ import annotations

import math
import random
from typing import Any, Final, TypeAlias

from bot.games.skipbo.engine import (
    DISCARD,
    DISCARD_PILES,
    HAND,
    HAND_SIZE,
    PARTNER_DISCARD,
    PARTNER_STOCK,
    STOCK,
    TOP_VALUE,
    WILD,
    Action,
    Discard,
    EndTurn,
    Play,
)
from bot.games.skipbo.lookahead import (
    LOSS,
    WIN,
    World,
    chain_step,
    sample_world,
    take_top,
    unseen_pool,
)
from bot.games.skipbo.reading import (
    Table,
    View,
    _between_turns,
    _starved_turn,
)

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
