"""Skyjo computer players: ``easy``, ``normal`` (the published greedy baseline), ``hard`` (expected values).

Every policy is a pure function of one seat's view (``Game.view(seat)``) and a seeded generator: it never
sees face-down cards or the order of the draw pile, so a policy cannot cheat (GAME-INFO-1).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from bot.games.skyjo.engine import (
    DECK,
    GONE,
    HIDDEN,
    MAX_COLUMNS,
    MAX_ROWS,
    PLAY,
    REVEAL,
    ROUND_OVER,
    Action,
    DiscardAndReveal,
    Draw,
    NextRound,
    Replace,
    Reveal,
    TakeDiscard,
)

View = dict[str, Any]
Policy = Callable[[View, random.Random], Action]

LOW: Final = min(DECK)  # -2: card values index lists as ``value - LOW``
HIGH: Final = max(DECK)
VALUES: Final[tuple[int, ...]] = tuple(range(LOW, HIGH + 1))
DECK_COUNTS: Final[tuple[int, ...]] = tuple(DECK.count(v) for v in VALUES)

_DRAW: Final = Draw()
_NEXT_ROUND: Final = NextRound()
# Actions are immutable: build each once (a frozen dataclass costs more to create than a decision).
_CELLS: Final = MAX_COLUMNS * MAX_ROWS
_REVEAL: Final = tuple(Reveal(p) for p in range(_CELLS))
_TAKE: Final = tuple(TakeDiscard(p) for p in range(_CELLS))
_REPLACE: Final = tuple(Replace(p) for p in range(_CELLS))
_DISCARD: Final = tuple(DiscardAndReveal(p) for p in range(_CELLS))


# --------------------------------------------------------------------------------------------------
# Reading a view


def _own_grid(view: View) -> list[Any]:
    grid: list[Any] = view["grids"][view["viewer"]]
    return grid


def _face_down(grid: Sequence[Any]) -> list[int]:
    return [p for p, cell in enumerate(grid) if cell == HIDDEN]


def _occupied(grid: Sequence[Any]) -> list[int]:
    return [p for p, cell in enumerate(grid) if cell != GONE]


def _not_playing(view: View) -> Action:
    phase = view["phase"]
    if phase == ROUND_OVER:
        return _NEXT_ROUND
    raise ValueError(f"nothing to decide in phase {phase!r}")


def _start_options(view: View) -> tuple[bool, bool]:
    """(may take the discard, may draw) at the start of a turn."""
    return bool(view["discard_pile"]), view["draw_pile_size"] > 0


# --------------------------------------------------------------------------------------------------
# normal: the greedy baseline of published engines


def normal(view: View, rng: random.Random) -> Action:
    """The published greedy baseline, exactly.

    Initial reveals at random. Take the discard if it is <= 0 or lower than the highest face-up card,
    else draw. A drawn card lower than the highest face-up card replaces it; otherwise it is discarded
    and a random face-down card is revealed (with none left, it replaces the highest face-up card).
    A taken discard replaces the highest face-up card higher than it, else a random face-down card,
    else the highest face-up card. Ties between highest cards go to the first position.
    """
    # Written flat: the simulator runs this policy hundreds of thousands of times a second.
    phase = view["phase"]
    grid = view["grids"][view["viewer"]]
    if phase == PLAY:
        high_value = LOW - 1
        for cell in grid:
            if type(cell) is int and cell > high_value:
                high_value = cell
        # The first position of the highest face-up card (a face-down or gone cell never equals an int).
        high = grid.index(high_value) if high_value >= LOW else -1
        drawn = view["drawn"]
        if drawn is None:
            discard_pile = view["discard_pile"]
            if discard_pile:
                top = discard_pile[-1]
                if top <= 0 or top < high_value or not view["draw_pile_size"]:
                    if high_value > top:
                        return _TAKE[high]
                    down = _face_down(grid)
                    if down:
                        return _TAKE[rng.choice(down)]
                    return _TAKE[high if high >= 0 else _occupied(grid)[0]]
            return _DRAW
        if drawn < high_value:
            return _REPLACE[high]
        down = _face_down(grid)
        if down:
            return _DISCARD[rng.choice(down)]
        return _REPLACE[high if high >= 0 else _occupied(grid)[0]]
    if phase == REVEAL:
        return _REVEAL[rng.choice(_face_down(grid))]
    return _not_playing(view)


# --------------------------------------------------------------------------------------------------
# easy: legal, rarely sensible


def easy(view: View, rng: random.Random) -> Action:
    """A beginner: keeps any low-looking card but puts it anywhere, often on a good card.

    It takes the discard when it is 4 or less (else draws), keeps a drawn card of 5 or less, and
    places what it keeps on a random card of its grid, face up or face down.
    """
    phase = view["phase"]
    grid = _own_grid(view)
    if phase == PLAY:
        drawn = view["drawn"]
        if drawn is None:
            can_take, can_draw = _start_options(view)
            if can_take and (not can_draw or view["discard_pile"][-1] <= 4):
                return _TAKE[rng.choice(_occupied(grid))]
            return _DRAW
        down = _face_down(grid)
        if drawn <= 5 or not down:
            return _REPLACE[rng.choice(_occupied(grid))]
        return _DISCARD[rng.choice(down)]
    if phase == REVEAL:
        return _REVEAL[rng.choice(_face_down(grid))]
    return _not_playing(view)


# --------------------------------------------------------------------------------------------------
# hard: expected values over the unseen cards


@dataclass(frozen=True, slots=True)
class HardParams:
    """The knobs of ``hard`` (tuned with ``python -m bot simulate skyjo``; see docs/ai.md)."""

    # A face-up card v is worth v - q * max(0, v - keep) at the end: with turns left, high cards tend
    # to be replaced by cards near ``keep``. q grows with the turns left: q = q_max * T / (T + q_half).
    keep: float = 3.0
    q_max: float = 0.5
    q_half: float = 4.0
    # My turns left ~ turn_rate * (fewest face-down cards of an opponent).
    turn_rate: float = 1.3
    # Cards I will look at per turn left (discard top and drawn card), to complete a column.
    looks_per_turn: float = 1.5
    # Share of a completable column's value counted as already won, times its completion chance.
    column_weight: float = 0.7
    # An opponent's last turn improves them by this share of (worst card - keep).
    last_turn_gain: float = 0.6
    # Spread of an opponent's final score beyond their face-down cards' variance.
    score_spread: float = 3.0
    # Bonus (points) for ending the round when I am surely lowest (stops the others improving).
    finish_bonus: float = 3.0
    # Take the discard over drawing only if it is this much better in expectation.
    take_margin: float = 0.0
    # When every player is down to one face-down card (a standoff: see ``_standoff``), end the round
    # anyway on this share of turns.
    stall_break: float = 0.15


HARD_PARAMS = HardParams()


class _Table:
    """Everything ``hard`` derives from a view once per decision."""

    __slots__ = (
        "column_cells",
        "column_positions",
        "columns",
        "f_hidden",
        "f_value",
        "finishing",
        "looks",
        "mean",
        "multiplier",
        "need",
        "opponents",
        "params",
        "probs",
        "rows",
        "variance",
    )

    def __init__(self, view: View, params: HardParams) -> None:
        self.params = params
        seat: int = view["viewer"]
        grids: list[list[Any]] = view["grids"]
        rows: int = view["rows"]
        columns: int = view["columns"]
        self.rows, self.columns = rows, columns
        self.need = min(3, rows)
        self.multiplier: int = view["options"]["finisher_multiplier"]
        self.finishing = view["finisher"] is not None

        # The unseen pool: the full deck minus every card this seat can see.
        counts = list(DECK_COUNTS)
        for grid in grids:
            for cell in grid:
                if type(cell) is int:
                    counts[cell - LOW] -= 1
        for card in view["discard_pile"]:
            counts[card - LOW] -= 1
        drawn = view["drawn"]
        if drawn is not None:
            counts[drawn - LOW] -= 1
        counts = [max(0, c) for c in counts]  # a malformed view must not make odds negative
        total = sum(counts)
        if total <= 0:  # cannot happen with a real deck; keep the arithmetic safe
            counts, total = list(DECK_COUNTS), len(DECK)
        probs = [c / total for c in counts]
        mean = sum(p * v for p, v in zip(probs, VALUES, strict=True))
        self.probs = probs
        self.mean = mean
        self.variance = sum(p * (v - mean) ** 2 for p, v in zip(probs, VALUES, strict=True))

        # Opponents: known sum, face-down count, worst card.
        opponents: list[tuple[float, float]] = []
        fewest_down = 99
        for other, grid in enumerate(grids):
            if other == seat:
                continue
            known = 0
            down = 0
            worst = LOW - 1
            for cell in grid:
                if type(cell) is int:
                    known += cell
                    worst = max(worst, cell)
                elif cell == HIDDEN:
                    down += 1
            fewest_down = min(fewest_down, down)
            if down:
                worst = max(worst, round(mean))
            gain = params.last_turn_gain * max(0.0, worst - params.keep)
            opponents.append(
                (known + down * mean - gain, math.sqrt(down * self.variance) + params.score_spread)
            )
        self.opponents = opponents

        turns_left = 0.0 if self.finishing else params.turn_rate * fewest_down
        q = params.q_max * turns_left / (turns_left + params.q_half) if turns_left > 0 else 0.0
        keep = params.keep
        self.f_value = [v - q * max(0.0, v - keep) for v in VALUES]
        self.f_hidden = mean - q * max(0.0, mean - keep)
        self.looks = params.looks_per_turn * turns_left

        # My columns: per column the positions still present and their cells (None = face down).
        mine = grids[seat]
        self.column_cells: list[list[int | None]] = []
        self.column_positions: list[list[int]] = []
        for c in range(columns):
            positions = [p for p in range(c * rows, c * rows + rows) if mine[p] != GONE]
            self.column_positions.append(positions)
            self.column_cells.append([None if mine[p] == HIDDEN else mine[p] for p in positions])

    # ------------------------------------------------------------ column values

    def column_value(self, cells: Sequence[int | None]) -> float:
        """Expected end value of one column, counting future improvement and completion chances."""
        n = len(cells)
        if n == 0:
            return 0.0
        f_value, f_hidden = self.f_value, self.f_hidden
        total = 0.0
        ups: list[int] = []
        for cell in cells:
            if cell is None:
                total += f_hidden
            else:
                total += f_value[cell - LOW]
                ups.append(cell)
        hidden = n - len(ups)
        if hidden > 1 or not ups or n < self.need:
            return total
        first = ups[0]
        if hidden:
            # All face-up cards equal and one face-down: its own reveal may complete the column.
            for u in ups:
                if u != first:
                    return total
            target, free = first, 1.0
        else:
            if all(u == first for u in ups):
                return 0.0  # a complete column of equal cards leaves the grid (SKY-COL-1)
            for target in ups:
                if ups.count(target) == n - 1:
                    break
            else:
                return total
            free = 0.0
        if total <= 0:
            return total
        p = self.probs[target - LOW]
        if not p:
            return total
        chance = free * p
        if self.looks > 0:
            chance += (1.0 - chance) * self.params.column_weight * (1.0 - (1.0 - p) ** self.looks)
        return total * (1.0 - chance)

    def raw_column(self, cells: Sequence[int | None]) -> int:
        """The score of the face-up cards of a column (0 if they are all of it and it clears)."""
        known = [c for c in cells if c is not None]
        if len(known) == len(cells) >= self.need and all(c == known[0] for c in known):
            return 0
        return sum(known)

    # ------------------------------------------------------------ finishing

    def lowest_chance(self, score: float) -> float:
        """Chance that ``score`` is strictly below every opponent's final score."""
        chance = 1.0
        for mean, spread in self.opponents:
            z = (score + 0.5 - mean) / spread
            chance *= 0.5 * math.erfc(z / math.sqrt(2.0))
        return chance

    def finish_value(self, score: float) -> float:
        """What ending the round with ``score`` is worth to me (lower is better), doubling included."""
        lowest = self.lowest_chance(score)
        value = score
        if score > 0:
            value += (self.multiplier - 1) * score * (1.0 - lowest)
        return value - self.params.finish_bonus * lowest


def _expected_reveal(table: _Table, cells: list[int | None], index: int) -> float:
    """Expected column value after turning the face-down card at ``index``."""
    probs = table.probs
    value = 0.0
    saved = cells[index]
    for v, p in zip(VALUES, probs, strict=True):
        if p:
            cells[index] = v
            value += p * table.column_value(cells)
    cells[index] = saved
    return value


class _Grid:
    """My grid as columns, with the value of every single change."""

    def __init__(self, table: _Table) -> None:
        self.table = table
        self.cells = table.column_cells
        self.positions = table.column_positions
        self.base = [table.column_value(cells) for cells in self.cells]
        self.total = sum(self.base)
        self.hidden = sum(1 for cells in self.cells for c in cells if c is None)
        # Face-down positions and the expected grid value after revealing each.
        self.reveals: list[tuple[float, int]] = []
        for c, cells in enumerate(self.cells):
            for i, cell in enumerate(cells):
                if cell is None:
                    self.reveals.append((self._reveal_value(c, i), self.positions[c][i]))

    def finishing_move(self) -> bool:
        """Whether turning or replacing my face-down card would end the round."""
        return self.hidden == 1 and not self.table.finishing

    def _known_sum_except(self, column: int) -> int:
        total = 0
        for c, cells in enumerate(self.cells):
            if c != column:
                total += self.table.raw_column(cells)
        return total

    def _reveal_value(self, column: int, index: int) -> float:
        cells = self.cells[column]
        if self.finishing_move():
            # Turning my last card ends the round: score it exactly, with the doubling risk.
            rest = self._known_sum_except(column)
            value = 0.0
            saved = cells[index]
            for v, p in zip(VALUES, self.table.probs, strict=True):
                if p:
                    cells[index] = v
                    value += p * self.table.finish_value(rest + self.table.raw_column(cells))
            cells[index] = saved
            return value
        return self.total - self.base[column] + _expected_reveal(self.table, cells, index)

    def place_value(self, card: int, column: int, index: int) -> float:
        """Expected grid value after putting ``card`` at ``cells[column][index]``."""
        cells = self.cells[column]
        saved = cells[index]
        cells[index] = card
        if saved is None and self.finishing_move():
            score = self._known_sum_except(column) + self.table.raw_column(cells)
            value = self.table.finish_value(score)
        else:
            value = self.total - self.base[column] + self.table.column_value(cells)
        cells[index] = saved
        return value

    def place_at(self, card: int, pos: int) -> float:
        """Expected grid value after putting ``card`` at grid position ``pos``."""
        column = pos // self.table.rows
        return self.place_value(card, column, self.positions[column].index(pos))

    def best_place(self, card: int) -> tuple[float, int]:
        best = (math.inf, -1)
        for c, cells in enumerate(self.cells):
            for i in range(len(cells)):
                value = self.place_value(card, c, i)
                if value < best[0]:
                    best = (value, self.positions[c][i])
        return best

    def best_reveal(self) -> tuple[float, int]:
        return min(self.reveals) if self.reveals else (math.inf, -1)


def _standoff(view: View) -> bool:
    """Every player has at most one face-down card and nobody has finished: careful players can
    swap cards forever rather than end a close round, so someone has to end it."""
    if view["finisher"] is not None:
        return False
    return all(sum(1 for cell in grid if cell == HIDDEN) <= 1 for grid in view["grids"])


def _hard_turn(view: View, rng: random.Random, params: HardParams) -> Action:
    grid = _Grid(_Table(view, params))
    drawn = view["drawn"]
    end_it = grid.finishing_move() and _standoff(view) and rng.random() < params.stall_break
    if drawn is not None:
        if end_it:
            reveal, down = grid.reveals[0]
            return _DISCARD[down] if reveal < grid.place_at(drawn, down) else _REPLACE[down]
        place, pos = grid.best_place(drawn)
        reveal, down = grid.best_reveal()
        if down >= 0 and reveal < place:
            return _DISCARD[down]
        return _REPLACE[pos]
    can_take, can_draw = _start_options(view)
    if not can_take:
        return _DRAW
    if end_it:
        return _TAKE[grid.reveals[0][1]]
    take, pos = grid.best_place(view["discard_pile"][-1])
    if not can_draw:
        return _TAKE[pos]
    reveal = grid.best_reveal()[0]
    draw = 0.0
    for v, p in zip(VALUES, grid.table.probs, strict=True):
        if p:
            draw += p * min(grid.best_place(v)[0], reveal)
    if take + params.take_margin < draw:
        return _TAKE[pos]
    return _DRAW


def make_hard(params: HardParams = HARD_PARAMS) -> Policy:
    """A ``hard`` policy with the given knobs (for tuning; ``LEVELS["hard"]`` uses the defaults)."""

    def hard(view: View, rng: random.Random) -> Action:
        """Expected values over the unseen cards, columns of three, and finishing control."""
        phase = view["phase"]
        if phase == PLAY:
            return _hard_turn(view, rng, params)
        if phase == REVEAL:
            grid = _Grid(_Table(view, params))
            best = min(value for value, _ in grid.reveals)
            choices = [pos for value, pos in grid.reveals if value <= best + 1e-9]
            return _REVEAL[rng.choice(choices)]
        return _not_playing(view)

    return hard


hard = make_hard()

LEVELS: Final[dict[str, Policy]] = {"easy": easy, "normal": normal, "hard": hard}
