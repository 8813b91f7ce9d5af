"""What every Skip-Bo computer player reads from its seat's view: the playable cards, the stock
card's fit, and the moves that need no thought (between turns, a starved game)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

from bot.games.skipbo.engine import (
    DISCARD,
    HAND,
    PARTNER_DISCARD,
    PARTNER_STOCK,
    PLAY,
    ROUND_OVER,
    STOCK,
    WILD,
    Action,
    Discard,
    EndTurn,
    NextRound,
    Play,
)
from bot.games.skipbo.lookahead import (
    keep_alive_wild,
)

View: TypeAlias = dict[str, Any]

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
