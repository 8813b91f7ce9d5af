"""The Skyjo rules engine (RULES.md, rules ``SKY-*``): pure, seeded, serialisable and replayable.

Grid positions are numbered column by column: ``pos = column * rows + row``, so with the default
4 x 3 grid positions 0, 1, 2 are the first column (top to bottom) and 9, 10, 11 the last.

Decisions where RULES.md is silent, taken here:

- A *line* (a column, or a row when row clearing is on) is cleared when every card still in it is
  face up with the same value and at least ``min(LINE_LEAST, full line length)`` cards remain
  (``LINE_LEAST`` is 3; the rules text says these numbers). So with the default grid a column
  needs its three cards; with row clearing a row of four needs four equal cards, or three once a
  column has gone.
- Line clearing applies after initial reveals too (it only matters for grids of two rows).
- The drawn card is public: every seat sees what the player holds before placing or discarding it.
- The discard pile is public (every card was put there face up); its order since the last reshuffle
  is in the view. The draw pile is only a size.
- The draw pile is rebuilt (SKY-DRAW-1) as soon as it is empty, so Draw is always possible.
- Between rounds the game waits in the ``round_over`` phase for a :class:`NextRound` action from
  any seat (the table decides when to deal; the action goes into the log like any other).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, TypeAlias

from bot.engine.base import Action as Action
from bot.engine.base import Event as Event
from bot.engine.base import OptionsBase
from bot.engine.errors import IllegalMove, InvalidOptions, WrongPhase
from bot.engine.skeleton import GAME_OVER as GAME_OVER
from bot.engine.skeleton import PLAY as PLAY
from bot.engine.skeleton import ROUND_OVER as ROUND_OVER
from bot.engine.skeleton import NextRound as NextRound
from bot.engine.skeleton import StateSkeleton, action_reader

KIND: Final = "skyjo"

# SKY-DECK-1: five -2, ten -1, fifteen 0, ten of each value 1..12.
DECK: Final[tuple[int, ...]] = tuple(
    [-2] * 5 + [-1] * 10 + [0] * 15 + [v for v in range(1, 13) for _ in range(10)]
)
DECK_SIZE: Final = len(DECK)
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 8
MAX_COLUMNS: Final = 5
MAX_ROWS: Final = 4
# SKY-PLAYERS-1: the editions and the most players each seats (Voyage, seed 002: the same game for 2 to 4).
EDITIONS: Final[dict[str, int]] = {"classic": MAX_PLAYERS, "voyage": 4}
# The fewest cards a line may still hold and be cleared (see the module docstring); the rules text says it.
LINE_LEAST: Final = 3

# Phases: the initial reveals, then the shared ones (PLAY, ROUND_OVER, GAME_OVER).
REVEAL: Final = "reveal"

# Cells of a grid in a view.
HIDDEN: Final = "down"
GONE: Final = "gone"
Cell: TypeAlias = int | str
JSON: TypeAlias = dict[str, Any]


# --------------------------------------------------------------------------------------------------
# Options


@dataclass(frozen=True, slots=True)
class Options(OptionsBase):
    """Table settings; the defaults are the official rules."""

    score_limit: int = 100  # SKY-GAME-1
    finisher_multiplier: int = 2  # SKY-END-3
    initial_reveals: int = 2  # SKY-SETUP-3
    columns: int = 4  # SKY-SETUP-1
    rows: int = 3
    row_clearing: bool = False  # SKY-ROW-1
    previous_finisher_starts: bool = False  # SKY-START-1 variant
    edition: str = "classic"  # SKY-PLAYERS-1: "classic" (2-8 players) or "voyage" (2-4)

    def validate(self, players: int) -> None:
        """Raise InvalidOptions if these settings cannot make a game for that many players."""

        def bad(name: str) -> InvalidOptions:
            return InvalidOptions("error.invalid_option", option=name)

        for name in ("score_limit", "finisher_multiplier", "initial_reveals", "columns", "rows"):
            if type(getattr(self, name)) is not int:
                raise bad(name)
        for name in ("row_clearing", "previous_finisher_starts"):
            if type(getattr(self, name)) is not bool:
                raise bad(name)
        if type(self.edition) is not str or self.edition not in EDITIONS:
            raise InvalidOptions("skyjo.error.edition", editions=", ".join(EDITIONS))
        if not 2 <= self.columns <= MAX_COLUMNS:
            raise bad("columns")
        if not 2 <= self.rows <= MAX_ROWS:
            raise bad("rows")
        if not 1 <= self.score_limit <= 10_000:
            raise bad("score_limit")
        if not 1 <= self.finisher_multiplier <= 10:
            raise bad("finisher_multiplier")
        if self.initial_reveals < 0:
            raise bad("initial_reveals")
        if self.initial_reveals >= self.columns * self.rows:  # one card at least stays face down
            raise InvalidOptions(
                "skyjo.error.reveals",
                count=self.initial_reveals,
                columns=self.columns,
                rows=self.rows,
                max=self.columns * self.rows - 1,
            )
        if players > EDITIONS[self.edition]:
            raise InvalidOptions(
                f"skyjo.error.edition_players.{self.edition}", min=MIN_PLAYERS, max=EDITIONS[self.edition]
            )
        # Every grid dealt, one discard and at least one card to draw.
        if players * self.columns * self.rows + 2 > DECK_SIZE:
            most = (DECK_SIZE - 2) // (self.columns * self.rows)
            raise InvalidOptions(
                "skyjo.error.grid_players", columns=self.columns, rows=self.rows, max=most, cards=DECK_SIZE
            )


# --------------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class Reveal(Action):
    """SKY-SETUP-3: turn one of the player's face-down cards during the initial reveals."""

    pos: int
    type: ClassVar[str] = "reveal"


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """SKY-TURN-2: draw the top card of the draw pile and look at it."""

    type: ClassVar[str] = "draw"


@dataclass(frozen=True, slots=True)
class TakeDiscard(Action):
    """SKY-TURN-1: take the discard top and exchange it with the card at ``pos``."""

    pos: int
    type: ClassVar[str] = "take"


@dataclass(frozen=True, slots=True)
class Replace(Action):
    """SKY-TURN-2 (a): exchange the drawn card with the card at ``pos``."""

    pos: int
    type: ClassVar[str] = "replace"


@dataclass(frozen=True, slots=True)
class DiscardAndReveal(Action):
    """SKY-TURN-2 (b): discard the drawn card and turn the face-down card at ``pos``."""

    pos: int
    type: ClassVar[str] = "discard"


action_from_dict: Final = action_reader(Reveal, Draw, TakeDiscard, Replace, DiscardAndReveal, NextRound)
_DRAW: Final = Draw()
_NEXT_ROUND: Final = NextRound()


# --------------------------------------------------------------------------------------------------
# Events


@dataclass(slots=True)
class RoundStarted(Event):
    round: int
    discard_top: int
    type: ClassVar[str] = "round_started"


@dataclass(slots=True)
class CardRevealed(Event):
    """A face-down card turned face up; ``how`` is ``initial``, ``turn`` or ``final``."""

    seat: int
    pos: int
    value: int
    how: str
    type: ClassVar[str] = "card_revealed"


@dataclass(slots=True)
class TurnStarted(Event):
    seat: int
    type: ClassVar[str] = "turn_started"


@dataclass(slots=True)
class CardDrawn(Event):
    seat: int
    value: int
    type: ClassVar[str] = "card_drawn"


@dataclass(slots=True)
class CardExchanged(Event):
    """``value`` went into ``pos``; ``replaced`` (face up or not before) went onto the discard pile."""

    seat: int
    pos: int
    value: int
    replaced: int
    replaced_was_face_up: bool
    source: str  # "discard" or "draw"
    type: ClassVar[str] = "card_exchanged"


@dataclass(slots=True)
class CardDiscarded(Event):
    seat: int
    value: int
    type: ClassVar[str] = "card_discarded"


@dataclass(slots=True)
class LineCleared(Event):
    """SKY-COL-1 / SKY-ROW-1: ``line`` is ``column`` or ``row``; ``index`` is its number from 0."""

    seat: int
    line: str
    index: int
    value: int
    count: int
    type: ClassVar[str] = "line_cleared"


@dataclass(slots=True)
class DrawPileRebuilt(Event):
    size: int
    type: ClassVar[str] = "draw_pile_rebuilt"


@dataclass(slots=True)
class RoundFinishing(Event):
    """SKY-END-1: ``seat`` has no face-down card left; everyone else plays one last turn."""

    seat: int
    type: ClassVar[str] = "round_finishing"


@dataclass(slots=True)
class RoundEnded(Event):
    round: int
    raw_scores: list[int]
    scores: list[int]
    finisher: int | None
    doubled: bool
    totals: list[int]
    type: ClassVar[str] = "round_ended"


@dataclass(slots=True)
class GameEnded(Event):
    totals: list[int]
    winners: list[int]
    type: ClassVar[str] = "game_ended"


# --------------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One scored round: ``raw_scores`` are the grid sums, ``scores`` after the finisher's penalty."""

    raw_scores: tuple[int, ...]
    scores: tuple[int, ...]
    finisher: int | None
    doubled: bool
    columns_cleared: tuple[int, ...]

    def to_dict(self) -> JSON:
        return {
            "raw_scores": list(self.raw_scores),
            "scores": list(self.scores),
            "finisher": self.finisher,
            "doubled": self.doubled,
            "columns_cleared": list(self.columns_cleared),
        }

    @classmethod
    def from_dict(cls, data: JSON) -> RoundResult:
        return cls(
            tuple(data["raw_scores"]),
            tuple(data["scores"]),
            data["finisher"],
            data["doubled"],
            tuple(data["columns_cleared"]),
        )


def score_round(raw_scores: Sequence[int], finisher: int | None, multiplier: int) -> tuple[list[int], bool]:
    """SKY-END-3: the finisher's score is multiplied unless strictly lowest, or zero or negative."""
    scores = list(raw_scores)
    if finisher is None:
        return scores, False
    mine = scores[finisher]
    strictly_lowest = all(mine < s for i, s in enumerate(scores) if i != finisher)
    if mine > 0 and not strictly_lowest:
        scores[finisher] = mine * multiplier
        return scores, multiplier != 1
    return scores, False


def ranks_of(totals: Sequence[int]) -> list[int]:
    """Competition ranks, lowest total first (SKY-GAME-2: equal totals share a rank)."""
    return [1 + sum(1 for other in totals if other < t) for t in totals]


# --------------------------------------------------------------------------------------------------
# The game state

_Line: TypeAlias = tuple[str, int, tuple[int, ...]]
_LINES: dict[tuple[int, int], tuple[tuple[_Line, ...], tuple[_Line, ...]]] = {}


def _lines(columns: int, rows: int) -> tuple[tuple[_Line, ...], tuple[_Line, ...]]:
    """The positions of every column and every row of a grid (cached: grids come in few sizes)."""
    key = (columns, rows)
    if key not in _LINES:
        cells = columns * rows
        _LINES[key] = (
            tuple(("column", c, tuple(range(c * rows, c * rows + rows))) for c in range(columns)),
            tuple(("row", r, tuple(range(r, cells, rows))) for r in range(rows)),
        )
    return _LINES[key]


_LINES_AT: dict[tuple[int, int, bool], tuple[tuple[_Line, ...], ...]] = {}
# The bit length of every pile size a shuffle meets (DECK_SIZE at most), for ``_shuffle``.
_BIT_LENGTHS: Final[tuple[int, ...]] = tuple(n.bit_length() for n in range(DECK_SIZE + 1))


def _shuffle(rng: random.Random, cards: list[int]) -> None:
    """``rng.shuffle(cards)``, draw for draw: the same ``getrandbits`` calls as CPython's
    ``Random.shuffle`` (with ``_randbelow_with_getrandbits``), so every deal stays the same, without
    two Python calls per card (a deal shuffles 150 cards). Tests compare it with ``Random.shuffle``."""
    getrandbits = rng.getrandbits
    bits = _BIT_LENGTHS
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = bits[n] if n <= DECK_SIZE else n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _lines_at(columns: int, rows: int, row_clearing: bool) -> tuple[tuple[_Line, ...], ...]:
    """Per position, the lines through it that a card placed there may complete (cached)."""
    key = (columns, rows, row_clearing)
    found = _LINES_AT.get(key)
    if found is None:
        column_lines, row_lines = _lines(columns, rows)
        found = _LINES_AT[key] = tuple(
            (column_lines[pos // rows], row_lines[pos % rows])
            if row_clearing
            else (column_lines[pos // rows],)
            for pos in range(columns * rows)
        )
    return found


@dataclass(eq=True, slots=True)
class State(StateSkeleton[Options], kind=KIND, seats=(MIN_PLAYERS, MAX_PLAYERS), options=Options):
    """The whole state of a Skyjo game, hidden cards included. Only ``view`` may leave the engine."""

    phase: str = REVEAL  # the first phase: the initial reveals
    # Per seat, per position: the card value, or None where a line was cleared (SKY-COL-3).
    grids: list[list[int | None]] = field(default_factory=list)
    face_up: list[list[bool]] = field(default_factory=list)
    draw_pile: list[int] = field(default_factory=list)  # top is the last item
    discard_pile: list[int] = field(default_factory=list)  # top is the last item
    drawn: int | None = None
    turn: int | None = None
    finisher: int | None = None
    reveals_left: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    rounds: list[RoundResult] = field(default_factory=list)
    cleared: list[int] = field(default_factory=list)  # columns cleared per seat this round
    rebuilds: int = 0  # draw pile rebuilds so far this round, to seed each shuffle

    # ---------------------------------------------------------------- creation

    def _deal(self) -> list[Event]:
        """SKY-SETUP-1..3: every grid dealt face down, one card to the discard pile, the reveals."""
        self.round += 1
        deck = list(DECK)
        _shuffle(self._rng("deal"), deck)
        cells = self.options.columns * self.options.rows
        n = len(self.players)
        self.grids = [deck[i * cells : (i + 1) * cells] for i in range(n)]  # type: ignore[misc]
        self.face_up = [[False] * cells for _ in range(n)]
        rest = deck[n * cells :]
        self.discard_pile = [rest.pop()]  # SKY-SETUP-2
        self.draw_pile = rest
        self.drawn = None
        self.turn = None
        self.finisher = None
        self.cleared = [0] * n
        self.rebuilds = 0
        self.reveals_left = [self.options.initial_reveals] * n
        self.phase = REVEAL
        events: list[Event] = [RoundStarted(self.round, self.discard_pile[-1])]
        if self.options.initial_reveals == 0:
            self._start_play(events)
        return events

    # ---------------------------------------------------------------- queries

    @property
    def cells(self) -> int:
        return self.options.columns * self.options.rows

    def face_down_positions(self, seat: int) -> list[int]:
        grid = self.grids[seat]
        return [p for p, u in enumerate(self.face_up[seat]) if not u and grid[p] is not None]

    def occupied_positions(self, seat: int) -> list[int]:
        return [p for p, v in enumerate(self.grids[seat]) if v is not None]

    def _seats_to_act_in(self, phase: str) -> list[int]:
        """During the initial reveals, every seat with a card left to turn."""
        if phase == REVEAL:
            return [s for s, left in enumerate(self.reveals_left) if left > 0]
        return []

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (empty when it is not theirs to act)."""
        if type(seat) is not int or not 0 <= seat < len(self.players):
            return []
        if self.phase == REVEAL:
            if self.reveals_left[seat] <= 0:
                return []
            return [Reveal(p) for p in self.face_down_positions(seat)]
        if self.phase == PLAY:
            if seat != self.turn:
                return []
            if self.drawn is None:
                out: list[Action] = [_DRAW] if self.draw_pile else []
                if self.discard_pile:
                    out.extend(TakeDiscard(p) for p in self.occupied_positions(seat))
                return out
            out = [Replace(p) for p in self.occupied_positions(seat)]
            out.extend(DiscardAndReveal(p) for p in self.face_down_positions(seat))
            return out
        if self.phase == ROUND_OVER:
            return [_NEXT_ROUND]
        return []

    # ---------------------------------------------------------------- applying

    def _after_action(self, events: list[Event]) -> None:
        """SKY-DRAW-1: the draw pile is rebuilt as soon as it is empty."""
        if not self.draw_pile and self.phase == PLAY:
            self._rebuild_draw_pile(events)

    def _reveal(self, seat: int, action: Reveal, events: list[Event]) -> None:
        self._check_reveal(seat, action)
        self._initial_reveal(seat, action.pos, events)

    def _check_pos(self, seat: int, pos: object) -> int:
        if type(pos) is not int or not 0 <= pos < len(self.grids[seat]):
            raise IllegalMove("error.bad_position")
        if self.grids[seat][pos] is None:
            raise IllegalMove("error.position_cleared")
        return pos

    def _check_face_down(self, seat: int, pos: object) -> int:
        p = self._check_pos(seat, pos)
        if self.face_up[seat][p]:
            raise IllegalMove("error.card_already_face_up")
        return p

    def _check_reveal(self, seat: int, action: Reveal) -> None:
        if self.phase != REVEAL:
            raise WrongPhase("error.not_reveal_phase")
        if self.reveals_left[seat] <= 0:
            raise IllegalMove("error.no_reveals_left")
        self._check_face_down(seat, action.pos)

    def _initial_reveal(self, seat: int, pos: int, events: list[Event]) -> None:
        self.face_up[seat][pos] = True
        value = self.grids[seat][pos]
        assert value is not None
        events.append(CardRevealed(seat, pos, value, "initial"))
        self._clear_lines(seat, pos, events)
        self.reveals_left[seat] -= 1
        if not any(self.reveals_left):
            self._start_play(events)

    def _start_play(self, events: list[Event]) -> None:
        """SKY-START-1: highest face-up sum, then highest single card, then earliest seat."""
        self.phase = PLAY
        previous = self.rounds[-1].finisher if self.rounds else None
        if self.options.previous_finisher_starts and previous is not None:
            first = previous
        else:
            best: tuple[int, int, int] | None = None
            first = 0
            for seat, (grid, up) in enumerate(zip(self.grids, self.face_up, strict=True)):
                shown = [v for v, u in zip(grid, up, strict=True) if u and v is not None]
                key = (sum(shown), max(shown, default=-99), -seat)
                if best is None or key > best:
                    best, first = key, seat
        self.turn = first
        events.append(TurnStarted(first))

    def _draw(self, seat: int, action: Action, events: list[Event]) -> None:
        if self.drawn is not None:
            raise IllegalMove("error.already_drawn")
        if not self.draw_pile:
            raise IllegalMove("error.draw_pile_empty")
        self.drawn = self.draw_pile.pop()
        events.append(CardDrawn(seat, self.drawn))

    def _take_discard(self, seat: int, action: Action, events: list[Event]) -> None:
        if self.drawn is not None:
            raise IllegalMove("error.must_place_drawn_card")
        if not self.discard_pile:
            raise IllegalMove("error.discard_pile_empty")
        pos = action.pos  # type: ignore[attr-defined]
        if type(pos) is not int or not 0 <= pos < len(self.grids[seat]) or self.grids[seat][pos] is None:
            self._check_pos(seat, pos)  # raises the right error
        self._exchange(seat, pos, self.discard_pile.pop(), "discard", events)
        self._end_turn(seat, events)

    def _replace(self, seat: int, action: Action, events: list[Event]) -> None:
        if self.drawn is None:
            raise IllegalMove("error.nothing_drawn")
        pos = action.pos  # type: ignore[attr-defined]
        if type(pos) is not int or not 0 <= pos < len(self.grids[seat]) or self.grids[seat][pos] is None:
            self._check_pos(seat, pos)  # raises the right error
        card, self.drawn = self.drawn, None
        self._exchange(seat, pos, card, "draw", events)
        self._end_turn(seat, events)

    def _discard_and_reveal(self, seat: int, action: Action, events: list[Event]) -> None:
        if self.drawn is None:
            raise IllegalMove("error.nothing_drawn")
        pos = self._check_face_down(seat, action.pos)  # type: ignore[attr-defined]
        card, self.drawn = self.drawn, None
        self.discard_pile.append(card)
        events.append(CardDiscarded(seat, card))
        self.face_up[seat][pos] = True
        value = self.grids[seat][pos]
        assert value is not None
        events.append(CardRevealed(seat, pos, value, "turn"))
        self._clear_lines(seat, pos, events)
        self._end_turn(seat, events)

    def _exchange(self, seat: int, pos: int, card: int, source: str, events: list[Event]) -> None:
        # SKY-TURN-1 / SKY-COL-2: the replaced card goes onto the discard pile before any cleared line.
        grid, up = self.grids[seat], self.face_up[seat]
        replaced = grid[pos]
        assert replaced is not None
        was_up = up[pos]
        grid[pos] = card
        up[pos] = True
        self.discard_pile.append(replaced)
        events.append(CardExchanged(seat, pos, card, replaced, was_up, source))
        self._clear_lines(seat, pos, events)

    def _clear_lines(self, seat: int, pos: int, events: list[Event]) -> None:
        """SKY-COL-1 (and SKY-ROW-1 when on): clear the lines through ``pos`` that qualify."""
        options = self.options
        key = (options.columns, options.rows, options.row_clearing)
        lines = (_LINES_AT.get(key) or _lines_at(*key))[pos]
        grid, up = self.grids[seat], self.face_up[seat]
        value = grid[pos]
        candidates: list[_Line] = []
        for line in lines:
            # Cheap early reject (almost every call): a face-down card or another value in the line.
            for p in line[2]:
                v = grid[p]
                if v is not None and (v != value or not up[p]):
                    break
            else:
                candidates.append(line)
        if candidates:
            self._clear(seat, candidates, events)

    def _clear(self, seat: int, lines: list[_Line], events: list[Event]) -> None:
        grid, up = self.grids[seat], self.face_up[seat]
        # Decide every qualifying line first, so a card shared by a column and a row counts for both.
        doomed: list[tuple[str, int, list[int], int]] = []
        for name, index, positions in lines:
            if not up[positions[0]] and grid[positions[0]] is not None:
                continue  # fast path: a face-down card blocks the line
            present = [p for p in positions if grid[p] is not None]
            if len(present) < min(LINE_LEAST, len(positions)):
                continue
            first = grid[present[0]]
            if all(up[p] and grid[p] == first for p in present):
                assert first is not None
                doomed.append((name, index, present, first))
        for name, index, present, value in doomed:
            count = 0
            for p in present:
                v = grid[p]
                if v is not None:
                    self.discard_pile.append(v)
                    grid[p] = None
                    up[p] = False
                    count += 1
            if name == "column":
                self.cleared[seat] += 1
            events.append(LineCleared(seat, name, index, value, count))

    def _end_turn(self, seat: int, events: list[Event]) -> None:
        """SKY-END-1 / SKY-TURN-4: note the finisher, pass the turn or end the round."""
        # Cleared cells are the only other face-"down" ones, so equal counts mean no face-down card.
        if self.finisher is None and self.face_up[seat].count(False) == self.grids[seat].count(None):
            self.finisher = seat
            events.append(RoundFinishing(seat))
        nxt = (seat + 1) % len(self.players)
        if nxt == self.finisher:
            self._end_round(events)
        else:
            self.turn = nxt
            events.append(TurnStarted(nxt))

    def _rebuild_draw_pile(self, events: list[Event]) -> None:
        """SKY-DRAW-1: every discard but the top one, shuffled, becomes the draw pile."""
        if len(self.discard_pile) < 2:
            return
        top = self.discard_pile.pop()
        pile, self.discard_pile = self.discard_pile, [top]
        self.rebuilds += 1
        _shuffle(self._rng("rebuild", self.rebuilds), pile)
        self.draw_pile = pile
        events.append(DrawPileRebuilt(len(pile)))

    def _end_round(self, events: list[Event]) -> None:
        """SKY-END-2..4 and SKY-GAME-1..2."""
        self.turn = None
        rows, columns = self.options.rows, self.options.columns
        for seat, (grid, up) in enumerate(zip(self.grids, self.face_up, strict=True)):
            for p, v in enumerate(grid):
                if v is not None and not up[p]:
                    up[p] = True
                    events.append(CardRevealed(seat, p, v, "final"))
            # SKY-COL-4: columns (and rows) completed by the final reveal are cleared too.
            column_lines, row_lines = _lines(columns, rows)
            self._clear(
                seat, list(column_lines) + (list(row_lines) if self.options.row_clearing else []), events
            )
        raw = [sum(v for v in grid if v is not None) for grid in self.grids]
        scores, doubled = score_round(raw, self.finisher, self.options.finisher_multiplier)
        self.totals = [t + s for t, s in zip(self.totals, scores, strict=True)]
        self.rounds.append(
            RoundResult(tuple(raw), tuple(scores), self.finisher, doubled, tuple(self.cleared))
        )
        events.append(RoundEnded(self.round, raw, scores, self.finisher, doubled, list(self.totals)))
        if max(self.totals) >= self.options.score_limit:
            self.phase = GAME_OVER
            events.append(GameEnded(list(self.totals), self.winners()))
        else:
            self.phase = ROUND_OVER

    # ---------------------------------------------------------------- results

    def winners(self) -> list[int]:
        """SKY-GAME-2: the seats with the lowest total (empty until the game is over)."""
        if self.phase != GAME_OVER:
            return []
        low = min(self.totals)
        return [s for s, t in enumerate(self.totals) if t == low]

    def standing(self) -> list[int]:
        """The ranks of the game as it stands, for a game stopped before its end (a tournament's
        table ended by hand): the totals of the rounds completed so far, lowest first, equal totals
        sharing a rank (SKY-GAME-2's order); once the game is over, its final ranks.

        A round in progress counts for nothing. Its grids are partly face down, and hidden cards must
        never decide a place; the visible cards alone would not be fair either: a player who turned
        over their low cards would lead one who kept them hidden, with no better game. So a game
        stopped in its first round ranks everybody first (a draw), and the finisher's penalty of a
        round not ended is never guessed."""
        return ranks_of(self.totals)

    def results(self) -> JSON:
        """Round scores, totals, ranks and winners (ranks and winners only once the game is over)."""
        over = self.phase == GAME_OVER
        return {
            "kind": KIND,
            "over": over,
            "players": list(self.players),
            "totals": list(self.totals),
            "rounds": [r.to_dict() for r in self.rounds],
            "ranks": ranks_of(self.totals) if over else [],
            "winners": self.winners(),
        }

    # ---------------------------------------------------------------- views

    def view(self, viewer: int | None = None) -> JSON:
        """What ``viewer`` (a seat, or None for a spectator) may see, JSON-safe (GAME-INFO-1).

        Face-down values are hidden from everyone, their owner included, and the draw pile is only a
        size, so in Skyjo every seat sees the same table.
        """
        grids: list[list[Cell]] = []
        for grid, up in zip(self.grids, self.face_up, strict=True):
            grids.append([GONE if v is None else (v if u else HIDDEN) for v, u in zip(grid, up, strict=True)])
        return {
            **self._view_head(viewer),
            "finisher": self.finisher,
            "columns": self.options.columns,
            "rows": self.options.rows,
            "grids": grids,
            "discard_pile": list(self.discard_pile),
            "draw_pile_size": len(self.draw_pile),
            "drawn": self.drawn,
            "reveals_left": list(self.reveals_left),
            "to_act": self.seats_to_act(),
            "totals": list(self.totals),
            "rounds": [r.to_dict() for r in self.rounds],
            "winners": self.winners(),
        }

    # ---------------------------------------------------------------- serialisation

    def to_dict(self) -> JSON:
        """The whole state, hidden cards included: for storage only, never for a viewer."""
        return {
            **self._dict_head(),
            "grids": [list(g) for g in self.grids],
            "face_up": [list(u) for u in self.face_up],
            "draw_pile": list(self.draw_pile),
            "discard_pile": list(self.discard_pile),
            "drawn": self.drawn,
            "turn": self.turn,
            "finisher": self.finisher,
            "reveals_left": list(self.reveals_left),
            "totals": list(self.totals),
            "rounds": [r.to_dict() for r in self.rounds],
            "cleared": list(self.cleared),
            "rebuilds": self.rebuilds,
        }

    @classmethod
    def from_dict(cls, data: JSON) -> State:
        return cls(
            **cls._head_from(data),
            grids=[list(g) for g in data["grids"]],
            face_up=[list(u) for u in data["face_up"]],
            draw_pile=list(data["draw_pile"]),
            discard_pile=list(data["discard_pile"]),
            drawn=data["drawn"],
            turn=data["turn"],
            finisher=data["finisher"],
            reveals_left=list(data["reveals_left"]),
            totals=list(data["totals"]),
            rounds=[RoundResult.from_dict(r) for r in data["rounds"]],
            cleared=list(data["cleared"]),
            rebuilds=data["rebuilds"],
        )


# What ``State.apply`` does with each kind of action (after the skeleton's checks).
State.TURN_ACTIONS = {
    Draw: State._draw,
    TakeDiscard: State._take_discard,
    Replace: State._replace,
    DiscardAndReveal: State._discard_and_reveal,
}
State.OTHER_ACTIONS = {Reveal: State._reveal}  # SKY-SETUP-3: by any seat with reveals left

replay: Final = State.replay
new_game: Final = State.new
