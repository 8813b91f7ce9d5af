"""The Skip-Bo rules engine (RULES.md, rules ``SB-*``): pure, seeded, serialisable and replayable.

Cards are integers: 1..12 are number cards and ``WILD`` (0) is a Skip-Bo card.

Decisions where RULES.md is silent, taken here:

- **Action encoding.** :class:`Play` names its ``source`` (``hand``, ``stock``, ``discard``,
  ``partner_stock``, ``partner_discard``), the discard pile ``index`` for the discard sources (0
  otherwise), the ``card`` played (a hand card is named by its value, so a button stays meaningful
  whatever the order of the hand; for the other sources it must be the visible top card), the
  building pile slot ``pile`` (0..3) and the ``value`` the card takes there. The engine checks that
  ``value`` is exactly what the pile needs next and, for a number card, that it is the card itself:
  a Skip-Bo card played "as" a wrong value, or a stale click on a pile that has moved on, is refused.
- **Building piles are four fixed slots.** An empty slot is a free space: playing a 1 (or a Skip-Bo
  card as 1) there starts a new pile (SB-BUILD-1), so at most four piles ever exist (SB-BUILD-2);
  slot 4 does not exist. A completed pile leaves its slot empty.
- **Hands start empty**; every player draws up to 5 at the start of their own turn (SB-TURN-1).
- **Empty hand.** Whenever the hand becomes empty after a play, 5 cards are drawn at once (SB-TURN-3).
  If nothing can be drawn the player may still play from the stock and discard piles, then ends the
  turn with :class:`EndTurn`, legal only with an empty hand (SB-TURN-4).
- **Refilling** (SB-DRAW-1) happens when a card must be drawn and the draw pile is empty.
- **Stall** (SB-STALL-1): at the end of each turn with no card played onto a building pile while the
  draw pile is empty and cannot be refilled, a counter goes up (any other turn resets it); when it
  reaches the number of players the game ends as a draw, with several rounds too (the whole match
  ends, whatever the totals: otherwise a table that keeps stalling would never finish).
- **Teams** (SB-VAR-TEAM-1): with ``n`` players (4 or 6) the team of a seat is ``seat % (n // 2)`` and
  the partner is ``(seat + n // 2) % n``, so seats alternate between teams and partners sit apart
  (4 players: 0+2 against 1+3; 6 players: three teams 0+3, 1+4, 2+5).
- **Scores** (SB-VAR-SCORE-1): in a team game both partners are credited with their team's score, so
  partners always have equal totals. The match ends after the round where a total reaches the limit;
  the highest total wins (equal totals share the win).
- **Results of a single round**: the winner (or winning team) ranks first, the others by the number
  of cards left in their (team's) stock. With several rounds the ranks follow the totals. A stalled
  game is a draw: no winner, everybody first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, TypeAlias

from bot.engine.base import Action as Action
from bot.engine.base import Event as Event
from bot.engine.base import OptionsBase
from bot.engine.errors import IllegalMove, InvalidOptions
from bot.engine.skeleton import GAME_OVER as GAME_OVER
from bot.engine.skeleton import PLAY as PLAY
from bot.engine.skeleton import ROUND_OVER as ROUND_OVER
from bot.engine.skeleton import NextRound as NextRound
from bot.engine.skeleton import StateSkeleton, action_reader

KIND: Final = "skipbo"

WILD: Final = 0
TOP_VALUE: Final = 12
# SB-DECK-1: twelve of each value 1..12 and 18 Skip-Bo cards.
DECK: Final[tuple[int, ...]] = tuple([v for v in range(1, 13) for _ in range(12)] + [WILD] * 18)
DECK_SIZE: Final = len(DECK)
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 6
HAND_SIZE: Final = 5
BUILDING_PILES: Final = 4
DISCARD_PILES: Final = 4
MIN_STOCK: Final = 5
MAX_STOCK: Final = 30

# Sources of a played card.
HAND: Final = "hand"
STOCK: Final = "stock"
DISCARD: Final = "discard"
PARTNER_STOCK: Final = "partner_stock"
PARTNER_DISCARD: Final = "partner_discard"
SOURCES: Final = (HAND, STOCK, DISCARD, PARTNER_STOCK, PARTNER_DISCARD)

JSON: TypeAlias = dict[str, Any]


def default_stock_size(players: int) -> int:
    """SB-SETUP-1: 30 cards with 2 to 4 players, 20 with 5 or 6."""
    return 30 if players <= 4 else 20


# --------------------------------------------------------------------------------------------------
# Options


TEAM_PLAYERS = (4, 6)  # SB-VAR-TEAM-1: teams of two, at 4 or 6 players


@dataclass(frozen=True, slots=True)
class Options(OptionsBase):
    """Table settings; the defaults are the official rules."""

    stock_size: int = 0  # 0: the official size (SB-SETUP-1); else 5..30 (SB-VAR-FAST-1)
    teams: bool = False  # SB-VAR-TEAM-1
    several_rounds: bool = False  # SB-VAR-SCORE-1
    score_limit: int = 500  # SB-VAR-SCORE-1

    def validate(self, players: int) -> None:
        """Raise InvalidOptions if these settings cannot make a game for that many players."""

        def bad(name: str) -> InvalidOptions:
            return InvalidOptions("error.invalid_option", option=name)

        for name in ("stock_size", "score_limit"):
            if type(getattr(self, name)) is not int:
                raise bad(name)
        for name in ("teams", "several_rounds"):
            if type(getattr(self, name)) is not bool:
                raise bad(name)
        if self.stock_size != 0 and not MIN_STOCK <= self.stock_size <= MAX_STOCK:
            raise bad("stock_size")
        if not 1 <= self.score_limit <= 10_000:
            raise bad("score_limit")
        if self.teams and players not in TEAM_PLAYERS:
            # Said as it is (not "the setting 'teams' is not valid"): Start in a lobby of 3 shows it.
            raise InvalidOptions("skipbo.error.teams_players", players=players)
        # Every stock dealt and at least a first hand for everyone.
        if players * (self.stock_for(players) + HAND_SIZE) > DECK_SIZE:
            raise bad("stock_too_large")

    def stock_for(self, players: int) -> int:
        return self.stock_size or default_stock_size(players)


# --------------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class Play(Action):
    """SB-TURN-2 / SB-BUILD-1: play ``card`` from ``source`` onto building pile ``pile`` as ``value``.

    ``index`` is the discard pile (0..3) for the discard sources and 0 otherwise. ``value`` is the
    value the card takes on the pile: the card itself for a number card, the value a Skip-Bo card
    stands for otherwise; it must be the pile's next value.
    """

    source: str
    index: int
    card: int
    pile: int
    value: int
    type: ClassVar[str] = "play"


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """SB-TURN-4: end the turn by putting hand card ``card`` onto the player's discard pile ``pile``.

    ``source`` is always ``hand``; it is named so that an attempt to discard from elsewhere (a stock
    card, SB-TURN-4) gets its own clear refusal.
    """

    card: int
    pile: int
    source: str = HAND
    type: ClassVar[str] = "discard"


@dataclass(frozen=True, slots=True)
class EndTurn(Action):
    """SB-TURN-4: end the turn without a discard, only with an empty hand and nothing to draw."""

    type: ClassVar[str] = "end_turn"


action_from_dict: Final = action_reader(Play, Discard, EndTurn, NextRound)


_END_TURN: Final = EndTurn()
_NEXT_ROUND: Final = NextRound()
# Actions are immutable, so legal_actions hands out shared instances instead of building new ones:
# _NUMBER_PLAYS[source][index][card][pile] and _WILD_PLAYS[source][index][pile][value].
_DISCARDS: Final[tuple[tuple[Discard, ...], ...]] = tuple(
    tuple(Discard(card, pile) for pile in range(DISCARD_PILES)) for card in range(TOP_VALUE + 1)
)
_NUMBER_PLAYS: Final[dict[str, list[list[list[Play]]]]] = {
    src: [
        [[Play(src, i, card, pile, card) for pile in range(BUILDING_PILES)] for card in range(TOP_VALUE + 1)]
        for i in range(DISCARD_PILES)
    ]
    for src in SOURCES
}
_WILD_PLAYS: Final[dict[str, list[list[list[Play]]]]] = {
    src: [
        [[Play(src, i, WILD, pile, v) for v in range(TOP_VALUE + 1)] for pile in range(BUILDING_PILES)]
        for i in range(DISCARD_PILES)
    ]
    for src in SOURCES
}


# Every discard of a hand, by the hand's sorted distinct values (a few thousand at most).
_HAND_DISCARDS: Final[dict[tuple[int, ...], tuple[Discard, ...]]] = {}


# --------------------------------------------------------------------------------------------------
# Events


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """SB-SETUP-1 / SB-START-1: stocks dealt, their top cards face up, ``first`` plays first."""

    round: int
    first: int
    stock_tops: tuple[int, ...]
    draw_pile_size: int
    type: ClassVar[str] = "round_started"


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    seat: int
    type: ClassVar[str] = "turn_started"


@dataclass(frozen=True, slots=True)
class CardsDrawn(Event):
    """SB-TURN-1 / SB-TURN-3: ``count`` cards drawn (their values are private); ``why`` is ``turn``
    or ``empty_hand``."""

    seat: int
    count: int
    why: str
    type: ClassVar[str] = "cards_drawn"


@dataclass(frozen=True, slots=True)
class DrawPileRefilled(Event):
    """SB-DRAW-1: ``source`` is ``set_aside`` (completed piles) or ``building`` (under the tops)."""

    size: int
    source: str
    type: ClassVar[str] = "draw_pile_refilled"


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    """A card went onto a building pile. ``owner`` is the seat whose stock or discard pile it came
    from (the partner's in a team game), the player themself otherwise."""

    seat: int
    source: str
    owner: int
    index: int
    card: int
    pile: int
    value: int
    type: ClassVar[str] = "card_played"


@dataclass(frozen=True, slots=True)
class StockRevealed(Event):
    """SB-SETUP-1: the next stock card of ``seat`` is turned face up; ``left`` cards remain."""

    seat: int
    card: int
    left: int
    type: ClassVar[str] = "stock_revealed"


@dataclass(frozen=True, slots=True)
class PileCompleted(Event):
    """SB-BUILD-2: building pile ``pile`` reached 12 and was set aside."""

    pile: int
    type: ClassVar[str] = "pile_completed"


@dataclass(frozen=True, slots=True)
class CardDiscarded(Event):
    seat: int
    card: int
    pile: int
    type: ClassVar[str] = "card_discarded"


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    """SB-TURN-4: a turn ended without a discard (empty hand, nothing to draw)."""

    seat: int
    type: ClassVar[str] = "turn_ended"


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    """SB-WIN-1 / SB-STALL-1: ``winners`` (a seat, or both partners) or a stalled round."""

    round: int
    winners: tuple[int, ...]
    stalled: bool
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    type: ClassVar[str] = "round_ended"


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    winners: tuple[int, ...]
    draw: bool
    totals: tuple[int, ...]
    type: ClassVar[str] = "game_ended"


# --------------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One finished round: its winners (none when stalled), scores and the stocks left per seat."""

    winners: tuple[int, ...]
    stalled: bool
    scores: tuple[int, ...]
    stock_left: tuple[int, ...]

    def to_dict(self) -> JSON:
        return {
            "winners": list(self.winners),
            "stalled": self.stalled,
            "scores": list(self.scores),
            "stock_left": list(self.stock_left),
        }

    @classmethod
    def from_dict(cls, data: JSON) -> RoundResult:
        return cls(
            tuple(data["winners"]), bool(data["stalled"]), tuple(data["scores"]), tuple(data["stock_left"])
        )


def team_numbers(teams: bool, players: int) -> list[int] | None:
    """SB-VAR-TEAM-1: the team number of each of ``players`` seats (seats alternate between teams), or
    None without teams."""
    if not teams or players < 2:
        return None
    half = players // 2
    return [s % half for s in range(players)]


def competition_ranks(keys: Sequence[int]) -> list[int]:
    """Competition ranks, lowest key first (equal keys share a rank)."""
    return [1 + sum(1 for other in keys if other < k) for k in keys]


def round_score(stock_left: Sequence[int], winners: Sequence[int]) -> int:
    """SB-VAR-SCORE-1: 25 plus 5 for each card left in the opponents' stock piles."""
    return 25 + 5 * sum(n for seat, n in enumerate(stock_left) if seat not in winners)


# --------------------------------------------------------------------------------------------------
# The game state


@dataclass(eq=True, slots=True)
class State(StateSkeleton[Options], kind=KIND, seats=(MIN_PLAYERS, MAX_PLAYERS), options=Options):
    """The whole state of a Skip-Bo game, hidden cards included. Only ``view`` may leave the engine.

    Every pile is a list whose top is the last item.
    """

    turn: int | None = None
    first: int = 0
    hands: list[list[int]] = field(default_factory=list)
    stocks: list[list[int]] = field(default_factory=list)
    discard_piles: list[list[list[int]]] = field(default_factory=list)  # per seat, 4 piles
    building_piles: list[list[int]] = field(default_factory=list)  # 4 slots: the cards in each
    building_values: list[int] = field(default_factory=list)  # value reached per slot, 0 = free
    set_aside: list[int] = field(default_factory=list)  # completed piles (SB-BUILD-2)
    draw_pile: list[int] = field(default_factory=list)
    played_this_turn: bool = False
    stall_turns: int = 0
    turns: int = 0  # turns started since the game began (all rounds)
    refills: int = 0  # draw pile refills this round, to seed each shuffle
    totals: list[int] = field(default_factory=list)
    rounds: list[RoundResult] = field(default_factory=list)

    # ---------------------------------------------------------------- creation

    def _deal(self) -> list[Event]:
        """SB-SETUP-1..2, SB-START-1: the stocks dealt, the first player drawn, the first turn begun."""
        self.round += 1
        n = len(self.players)
        deck = list(DECK)
        self._rng("deal").shuffle(deck)
        size = self.options.stock_for(n)
        self.stocks = [deck[i * size : (i + 1) * size] for i in range(n)]
        self.draw_pile = deck[n * size :]
        self.hands = [[] for _ in range(n)]
        self.discard_piles = [[[] for _ in range(DISCARD_PILES)] for _ in range(n)]
        self.building_piles = [[] for _ in range(BUILDING_PILES)]
        self.building_values = [0] * BUILDING_PILES
        self.set_aside = []
        self.refills = 0
        self.stall_turns = 0
        self.phase = PLAY
        self.first = self._rng("first").randrange(n)  # SB-START-1
        events: list[Event] = [
            RoundStarted(self.round, self.first, tuple(s[-1] for s in self.stocks), len(self.draw_pile))
        ]
        self._start_turn(self.first, events)
        return events

    # ---------------------------------------------------------------- queries

    @property
    def card_count(self) -> int:
        """Every card of the game wherever it is (162 at all times, SB-DECK-1)."""
        return (
            sum(len(h) for h in self.hands)
            + sum(len(s) for s in self.stocks)
            + sum(len(p) for piles in self.discard_piles for p in piles)
            + sum(len(p) for p in self.building_piles)
            + len(self.set_aside)
            + len(self.draw_pile)
        )

    def partner(self, seat: int) -> int | None:
        """SB-VAR-TEAM-1: the partner seated half a table away, or None without teams."""
        if not self.options.teams:
            return None
        n = len(self.players)
        return (seat + n // 2) % n

    def team_of(self, seat: int) -> tuple[int, ...]:
        """The seats that win together with ``seat``: the seat alone, or both partners."""
        mate = self.partner(seat)
        return (seat,) if mate is None else tuple(sorted((seat, mate)))

    def teams(self) -> list[int] | None:
        """The team number of each seat, or None without teams."""
        return team_numbers(self.options.teams, len(self.players))

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (empty when it is not theirs to act): the plays first
        (hand cards in increasing order, the stock, the discard piles, the partner's stock and discard
        piles; each onto the slots in order), then the discards (or the end of the turn)."""
        if type(seat) is not int or not 0 <= seat < len(self.players):
            return []
        phase = self.phase
        if phase == ROUND_OVER:
            return [_NEXT_ROUND]
        if phase != PLAY or seat != self.turn:
            return []
        # The hot path of every simulation, hence the unrolled loops over the four slots.
        values = self.building_values
        nexts = (values[0] + 1, values[1] + 1, values[2] + 1, values[3] + 1)
        n0, n1, n2, n3 = nexts
        out: list[Action] = []
        append = out.append
        hand = self.hands[seat]
        tops: list[tuple[str, int, int]] = []
        if hand:
            hand_key = tuple(sorted(set(hand)))
            number = _NUMBER_PLAYS[HAND][0]
            for card in hand_key:
                if card == WILD:
                    wild = _WILD_PLAYS[HAND][0]
                    append(wild[0][n0])
                    append(wild[1][n1])
                    append(wild[2][n2])
                    append(wild[3][n3])
                elif card in nexts:
                    plays = number[card]
                    if card == n0:
                        append(plays[0])
                    if card == n1:
                        append(plays[1])
                    if card == n2:
                        append(plays[2])
                    if card == n3:
                        append(plays[3])
        # The other sources' top cards that fit somewhere, in order.
        stock = self.stocks[seat]
        if stock and ((card := stock[-1]) == WILD or card in nexts):
            tops.append((STOCK, 0, card))
        for i, pile in enumerate(self.discard_piles[seat]):
            if pile and ((card := pile[-1]) == WILD or card in nexts):
                tops.append((DISCARD, i, card))
        if self.options.teams:
            mate = self.partner(seat)
            assert mate is not None
            stock = self.stocks[mate]
            if stock and ((card := stock[-1]) == WILD or card in nexts):
                tops.append((PARTNER_STOCK, 0, card))
            for i, pile in enumerate(self.discard_piles[mate]):
                if pile and ((card := pile[-1]) == WILD or card in nexts):
                    tops.append((PARTNER_DISCARD, i, card))
        for src, i, card in tops:
            if card == WILD:
                wild = _WILD_PLAYS[src][i]
                append(wild[0][n0])
                append(wild[1][n1])
                append(wild[2][n2])
                append(wild[3][n3])
            else:
                plays = _NUMBER_PLAYS[src][i][card]
                if card == n0:
                    append(plays[0])
                if card == n1:
                    append(plays[1])
                if card == n2:
                    append(plays[2])
                if card == n3:
                    append(plays[3])
        if hand:
            discards = _HAND_DISCARDS.get(hand_key)
            if discards is None:
                discards = _HAND_DISCARDS[hand_key] = tuple(d for c in hand_key for d in _DISCARDS[c])
            out.extend(discards)
        else:
            append(_END_TURN)
        return out

    # ---------------------------------------------------------------- applying

    def _end_turn_empty_handed(self, seat: int, action: EndTurn, events: list[Event]) -> None:
        if self.hands[seat]:
            raise IllegalMove("error.skipbo.must_discard")
        events.append(TurnEnded(seat))
        self._end_turn(seat, events)

    def _play(self, seat: int, action: Play, events: list[Event]) -> None:
        # Validate everything first: nothing changes until the move is known to be legal.
        source, index, card, slot, value = action.source, action.index, action.card, action.pile, action.value
        if source not in SOURCES:
            raise IllegalMove("error.skipbo.bad_source")
        if type(slot) is not int or not 0 <= slot < BUILDING_PILES:
            raise IllegalMove("error.skipbo.bad_pile")
        if type(card) is not int or not WILD <= card <= TOP_VALUE:
            raise IllegalMove("error.skipbo.bad_card")
        values = self.building_values
        needed = values[slot] + 1
        if type(value) is not int or value != needed:
            raise IllegalMove("error.skipbo.wrong_value", needed=needed)
        if card != WILD and card != value:
            raise IllegalMove("error.skipbo.wrong_value", needed=value)
        owner = seat
        pile: list[int]
        if source == HAND:
            if index != 0:
                raise IllegalMove("error.skipbo.bad_source")
            pile = self.hands[seat]
            if card not in pile:
                raise IllegalMove("error.skipbo.card_not_in_hand")
            pile.remove(card)
        else:
            if source in (PARTNER_STOCK, PARTNER_DISCARD):
                mate = self.partner(seat)
                if mate is None:
                    raise IllegalMove("error.skipbo.no_partner")
                owner = mate
            if source in (STOCK, PARTNER_STOCK):
                if index != 0:
                    raise IllegalMove("error.skipbo.bad_source")
                pile = self.stocks[owner]
            else:
                if type(index) is not int or not 0 <= index < DISCARD_PILES:
                    raise IllegalMove("error.skipbo.bad_discard_pile")
                pile = self.discard_piles[owner][index]
            if not pile:
                raise IllegalMove("error.skipbo.empty_source")
            if pile[-1] != card:
                raise IllegalMove("error.skipbo.wrong_card")
            pile.pop()
        # Apply.
        building = self.building_piles[slot]
        building.append(card)
        self.played_this_turn = True
        events.append(CardPlayed(seat, source, owner, index, card, slot, value))
        if value == TOP_VALUE:  # SB-BUILD-2
            self.set_aside.extend(building)
            self.building_piles[slot] = []
            values[slot] = 0
            events.append(PileCompleted(slot))
        else:
            values[slot] = value
        if source in (STOCK, PARTNER_STOCK):
            if pile:
                events.append(StockRevealed(owner, pile[-1], len(pile)))
            # SB-WIN-1, SB-VAR-TEAM-1 (a stock that is not empty cannot have won).
            elif all(not self.stocks[s] for s in self.team_of(owner)):
                self._end_round(self.team_of(owner), events)
                return
        if not self.hands[seat]:  # SB-TURN-3 (also retried after a completion made drawing possible)
            self._draw(seat, HAND_SIZE, "empty_hand", events)

    def _discard(self, seat: int, action: Discard, events: list[Event]) -> None:
        if action.source != HAND:
            raise IllegalMove("error.skipbo.discard_from_hand_only")
        pile, card = action.pile, action.card
        if type(pile) is not int or not 0 <= pile < DISCARD_PILES:
            raise IllegalMove("error.skipbo.bad_discard_pile")
        hand = self.hands[seat]
        if type(card) is not int or card not in hand:
            raise IllegalMove("error.skipbo.card_not_in_hand")
        hand.remove(card)
        self.discard_piles[seat][pile].append(card)
        events.append(CardDiscarded(seat, card, pile))
        self._end_turn(seat, events)

    def _refillable(self) -> bool:
        return bool(self.set_aside) or any(len(p) > 1 for p in self.building_piles)

    def _refill(self, events: list[Event]) -> bool:
        """SB-DRAW-1: the set-aside piles, else the cards under each building pile's top, shuffled."""
        if self.set_aside:
            cards, self.set_aside, source = self.set_aside, [], "set_aside"
        else:
            cards = []
            for pile in self.building_piles:
                if len(pile) > 1:
                    cards.extend(pile[:-1])
                    del pile[:-1]
            source = "building"
        if not cards:
            return False
        self.refills += 1
        self._rng("refill", self.refills).shuffle(cards)
        self.draw_pile = cards
        events.append(DrawPileRefilled(len(cards), source))
        return True

    def _draw(self, seat: int, count: int, why: str, events: list[Event]) -> None:
        hand, drawn = self.hands[seat], 0
        while drawn < count:
            if not self.draw_pile and not self._refill(events):
                break
            take = min(count - drawn, len(self.draw_pile))
            hand.extend(self.draw_pile[-take:])
            del self.draw_pile[-take:]
            drawn += take
        if drawn:
            events.append(CardsDrawn(seat, drawn, why))

    def _start_turn(self, seat: int, events: list[Event]) -> None:
        self.turn = seat
        self.turns += 1
        self.played_this_turn = False
        events.append(TurnStarted(seat))
        missing = HAND_SIZE - len(self.hands[seat])
        if missing > 0:  # SB-TURN-1
            self._draw(seat, missing, "turn", events)

    def _end_turn(self, seat: int, events: list[Event]) -> None:
        # SB-STALL-1: count the turns in a row with no building play and nothing left to draw.
        if self.played_this_turn or self.draw_pile or self._refillable():
            self.stall_turns = 0
        else:
            self.stall_turns += 1
            if self.stall_turns >= len(self.players):
                self._end_round((), events)
                return
        self._start_turn((seat + 1) % len(self.players), events)

    def _end_round(self, winners: tuple[int, ...], events: list[Event]) -> None:
        """SB-WIN-1 / SB-STALL-1, and SB-VAR-SCORE-1 with several rounds."""
        n = len(self.players)
        self.turn = None
        stalled = not winners
        stock_left = tuple(len(s) for s in self.stocks)
        scores = [0] * n
        if self.options.several_rounds and not stalled:
            score = round_score(stock_left, winners)
            for s in winners:
                scores[s] = score
        self.totals = [t + s for t, s in zip(self.totals, scores, strict=True)]
        self.rounds.append(RoundResult(winners, stalled, tuple(scores), stock_left))
        events.append(RoundEnded(self.round, winners, stalled, tuple(scores), tuple(self.totals)))
        if stalled or not self.options.several_rounds or max(self.totals) >= self.options.score_limit:
            self.phase = GAME_OVER
            events.append(GameEnded(tuple(self.winners()), self.is_draw, tuple(self.totals)))
        else:
            self.phase = ROUND_OVER

    # ---------------------------------------------------------------- results

    @property
    def is_draw(self) -> bool:
        """A game over with no winner (a stalled single round, SB-STALL-1)."""
        return self.phase == GAME_OVER and not self.winners()

    def winners(self) -> list[int]:
        """The winning seats (both partners in a team game); empty until the game is over, and
        after a stall (a draw)."""
        if self.phase != GAME_OVER or self.rounds[-1].stalled:
            return []
        if self.options.several_rounds:
            best = max(self.totals)
            return [s for s, t in enumerate(self.totals) if t == best]
        return list(self.rounds[-1].winners)

    def ranks(self) -> list[int]:
        """Ranks once the game is over (empty before): see the module docstring."""
        if self.phase != GAME_OVER:
            return []
        n = len(self.players)
        last = self.rounds[-1]
        if last.stalled:
            return [1] * n
        if self.options.several_rounds:
            return competition_ranks([-t for t in self.totals])
        left = [sum(last.stock_left[s] for s in self.team_of(seat)) for seat in range(n)]
        keys = [-1 if seat in last.winners else left[seat] for seat in range(n)]
        return competition_ranks(keys)

    def standing(self) -> list[int]:
        """The ranks of the game as it stands, for a game stopped before its end (a tournament's
        table ended by hand); once the game is over, its final ranks (:meth:`ranks`).

        Fewer cards left in the (team's) stock is better, the order a single round ends with. With
        several rounds the totals of the rounds scored come first (highest first) and the stocks of
        the round in progress (or just ended) break their ties. Stock sizes are public, so nothing
        hidden decides a place; partners share their team's rank (SB-VAR-TEAM-1)."""
        if self.phase == GAME_OVER:
            return self.ranks()
        n = len(self.players)
        left = [sum(len(self.stocks[s]) for s in self.team_of(seat)) for seat in range(n)]
        totals = self.totals if self.options.several_rounds else [0] * n
        keys = [(-totals[seat], left[seat]) for seat in range(n)]
        return [1 + sum(1 for other in keys if other < key) for key in keys]

    def results(self) -> JSON:
        """Winners, ranks, totals, and every round's scores (with several rounds)."""
        return {
            "kind": KIND,
            "over": self.phase == GAME_OVER,
            "players": list(self.players),
            "teams": self.teams(),
            "totals": list(self.totals),
            "rounds": [r.to_dict() for r in self.rounds],
            "ranks": self.ranks(),
            "winners": self.winners(),
            "draw": self.is_draw,
            "turns": self.turns,
        }

    # ---------------------------------------------------------------- views

    def view(self, viewer: int | None = None) -> JSON:
        """What ``viewer`` (a seat, or None for a spectator) may see, JSON-safe (SB-INFO-1, GAME-INFO-1).

        Only the viewer's own hand is shown (sorted, so not even the order of the draws shows); other
        hands are sizes, the draw pile and the set-aside piles are sizes. Stock sizes and tops, every
        discard pile and the building piles are public.
        """
        seat = viewer if type(viewer) is int and 0 <= viewer < len(self.players) else None
        return {
            **self._view_head(seat),
            "first": self.first,
            "teams": self.teams(),
            "partner": None if seat is None else self.partner(seat),
            "hand": None if seat is None else sorted(self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands],
            "stock_sizes": [len(s) for s in self.stocks],
            "stock_tops": [s[-1] if s else None for s in self.stocks],
            "discard_piles": [[list(p) for p in piles] for piles in self.discard_piles],
            "building_piles": list(self.building_values),
            "building_tops": [p[-1] if p else None for p in self.building_piles],
            "draw_pile_size": len(self.draw_pile),
            "set_aside_size": len(self.set_aside),
            "played_this_turn": self.played_this_turn,
            "stall_turns": self.stall_turns,
            "turns": self.turns,
            "to_act": self.seats_to_act(),
            "totals": list(self.totals),
            "rounds": [r.to_dict() for r in self.rounds],
            "winners": self.winners(),
            "draw": self.is_draw,
        }

    # ---------------------------------------------------------------- serialisation

    def to_dict(self) -> JSON:
        """The whole state, hidden cards included: for storage only, never for a viewer."""
        return {
            **self._dict_head(),
            "turn": self.turn,
            "first": self.first,
            "hands": [list(h) for h in self.hands],
            "stocks": [list(s) for s in self.stocks],
            "discard_piles": [[list(p) for p in piles] for piles in self.discard_piles],
            "building_piles": [list(p) for p in self.building_piles],
            "building_values": list(self.building_values),
            "set_aside": list(self.set_aside),
            "draw_pile": list(self.draw_pile),
            "played_this_turn": self.played_this_turn,
            "stall_turns": self.stall_turns,
            "turns": self.turns,
            "refills": self.refills,
            "totals": list(self.totals),
            "rounds": [r.to_dict() for r in self.rounds],
        }

    @classmethod
    def from_dict(cls, data: JSON) -> State:
        return cls(
            **cls._head_from(data),
            turn=data["turn"],
            first=data["first"],
            hands=[list(h) for h in data["hands"]],
            stocks=[list(s) for s in data["stocks"]],
            discard_piles=[[list(p) for p in piles] for piles in data["discard_piles"]],
            building_piles=[list(p) for p in data["building_piles"]],
            building_values=list(data["building_values"]),
            set_aside=list(data["set_aside"]),
            draw_pile=list(data["draw_pile"]),
            played_this_turn=data["played_this_turn"],
            stall_turns=data["stall_turns"],
            turns=data["turns"],
            refills=data["refills"],
            totals=list(data["totals"]),
            rounds=[RoundResult.from_dict(r) for r in data["rounds"]],
        )


# What ``State.apply`` does with each action of a turn (after the skeleton's checks).
State.TURN_ACTIONS = {Play: State._play, Discard: State._discard, EndTurn: State._end_turn_empty_handed}

replay: Final = State.replay
new_game: Final = State.new
