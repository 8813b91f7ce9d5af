"""Helpers to build precise Skyjo positions for rule tests without breaking card conservation."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from bot.games.skyjo import engine as skyjo
from bot.games.skyjo.engine import Options, State


def all_cards(game: State) -> Counter[int]:
    """Every card of the game wherever it is (SKY-DECK-1 conservation)."""
    cards: Counter[int] = Counter()
    for grid in game.grids:
        cards.update(v for v in grid if v is not None)
    cards.update(game.draw_pile)
    cards.update(game.discard_pile)
    if game.drawn is not None:
        cards[game.drawn] += 1
    return cards


# Three grids that fit one deck together, with no column of equal cards, each with position 11 to
# fill with a drawn 0: A and C then score 10 and B 21 (seed 001's example uses A 10, B 24, C 10).
GRID_A = [0, 3, -1, 4, 0, 1, 2, -1, 0, 1, 1, 5]
GRID_B = [5, 2, -2, 6, 0, 3, 7, -1, 1, 2, -2, 9]
GRID_C = [8, -2, -1, 3, 0, -2, 4, 1, 0, -1, 0, 6]
ALL_UP_BUT_LAST = [True] * 11 + [False]

_pinned: dict[int, set[tuple[int, int]]] = {}


def _take(game: State, value: int, seat: int) -> None:
    """Remove one ``value`` card from outside ``seat``'s grid, refilling any gap from the draw pile."""
    if value in game.draw_pile:
        game.draw_pile.remove(value)
        return
    pinned = _pinned.setdefault(id(game), set())
    for other, grid in enumerate(game.grids):
        if other == seat:
            continue
        for pos, v in enumerate(grid):
            if v == value and (other, pos) not in pinned:
                spare = next(i for i, c in enumerate(game.draw_pile) if c != value)
                grid[pos] = game.draw_pile.pop(spare)
                return
    if value in game.discard_pile[:-1]:
        game.discard_pile.remove(value)
        return
    raise AssertionError(f"no {value} card left to place: the test asks for more than the deck has")


def set_grid(
    game: State, seat: int, values: Sequence[int] | dict[int, int], up: Sequence[bool] | None = None
) -> None:
    """Give ``seat`` those cards (a full grid column by column, or {position: value}) keeping the
    150 cards of the game: cards come from the draw pile, else from unpinned cards of other grids."""
    grid = game.grids[seat]
    wanted = dict(values) if isinstance(values, dict) else dict(enumerate(values))
    for pos in wanted:
        old = grid[pos]
        if old is not None:
            game.draw_pile.append(old)
        grid[pos] = None
    for pos, v in wanted.items():
        _take(game, v, seat)
        grid[pos] = v
        _pinned.setdefault(id(game), set()).add((seat, pos))
    if up is not None:
        game.face_up[seat] = list(up)
    elif not isinstance(values, dict):
        game.face_up[seat] = [False] * len(grid)


def set_discard(game: State, top: int) -> None:
    """Make ``top`` the only discard card."""
    game.draw_pile.extend(game.discard_pile)
    game.discard_pile = []
    _take(game, top, -1)
    game.discard_pile = [top]


def stack_draw(game: State, *tops: int) -> None:
    """Put ``tops`` on top of the draw pile, the first one drawn first."""
    for v in tops:
        _take(game, v, -1)
    game.draw_pile.extend(reversed(tops))


def playing_game(players: int = 3, seed: int = 1, options: Options | None = None, turn: int = 0) -> State:
    """A game past its initial reveals, with ``turn`` to play."""
    game = State.new([f"p{i}" for i in range(players)], seed, options or Options(initial_reveals=0))
    game.phase = skyjo.PLAY
    game.reveals_left = [0] * players
    game.turn = turn
    return game


def advance(game: State, rng: random.Random, steps: int, *, random_seat: bool = False) -> State:
    """Play up to ``steps`` random legal actions (stopping at the game's end) and return the game.

    The seat that acts is the first one allowed to, or a random one of them with ``random_seat``.
    """
    for _ in range(steps):
        if game.is_over:
            break
        seats = game.seats_to_act()
        seat = rng.choice(seats) if random_seat else seats[0]
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    return game
