"""Table image benchmark: Skyjo tables of 4 and 8 players mid-game, composed and encoded as PNG."""

from __future__ import annotations

import random
import time
from typing import Any

from bot.engine.skyjo import (
    GAME_OVER,
    PLAY,
    REVEAL,
    ROUND_OVER,
    DiscardAndReveal,
    Draw,
    Game,
    NextRound,
    Options,
    Replace,
    Reveal,
    TakeDiscard,
)
from bot.render import skyjo_image

NAMES = ["Alice", "Bérénice", "Chen", "Dmitri", "Esperanza", "Farouk", "Gwendolyn", "Hiro"]


def mid_game(
    players: int,
    seed: int,
    turns: int,
    options: Options | None = None,
    draw_last: bool = True,
    round_number: int = 1,
) -> Game:
    """A game in round ``round_number`` after the initial reveals and ``turns`` turns of seeded
    random play (earlier rounds are played out the same way, so totals are not all zero).

    Players follow a rough greedy rule (keep low cards, replace their worst card, else reveal one)
    with seeded random choices, so grids look like real play; with ``draw_last`` the player to act
    has just drawn, so the drawn card shows.
    """
    rng = random.Random(seed)
    game = Game.new([f"p{i + 1}" for i in range(players)], seed, options)

    def place(seat: int, card: int) -> int | None:
        """Where a rough player puts ``card``: over their worst higher card, else often face down."""
        grid, up = game.grids[seat], game.face_up[seat]
        shown = [p for p, v in enumerate(grid) if v is not None and up[p]]
        worst = max(shown, key=lambda p: grid[p] or 0, default=None)
        if worst is not None and (grid[worst] or 0) > card + 2:
            return worst
        down = game.face_down_positions(seat)
        return rng.choice(down) if down and card <= 4 else None

    def turn() -> None:
        seat = game.turn
        assert seat is not None
        top = game.discard_pile[-1]
        pos = place(seat, top)
        if top <= 3 and pos is not None:
            game.apply(seat, TakeDiscard(pos))
            return
        game.apply(seat, Draw())
        assert game.drawn is not None
        pos = place(seat, game.drawn)
        down = game.face_down_positions(seat)
        if pos is not None:
            game.apply(seat, Replace(pos))
        elif down:
            game.apply(seat, DiscardAndReveal(rng.choice(down)))
        else:
            game.apply(seat, Replace(rng.choice(game.occupied_positions(seat))))

    def reveals() -> None:
        while game.phase == REVEAL:
            for seat in game.seats_to_act():
                game.apply(seat, Reveal(rng.choice(game.face_down_positions(seat))))

    reveals()
    while game.round < round_number and game.phase != GAME_OVER:
        if game.phase == ROUND_OVER:
            game.apply(0, NextRound())
            reveals()
        else:
            turn()
    for _ in range(turns):
        if game.phase != PLAY:
            break
        turn()
    if draw_last and game.phase == PLAY and game.drawn is None:
        assert game.turn is not None
        game.apply(game.turn, Draw())
    return game


def _measure(view: dict[str, Any], names: list[str], repeat: int) -> tuple[float, float, int]:
    """(mean ms per PNG, mean ms composing only, PNG size in bytes) after a warm-up."""
    for _ in range(5):
        skyjo_image.render_table(view, names)
    started = time.perf_counter()
    for _ in range(repeat):
        png = skyjo_image.render_table(view, names)
    total = (time.perf_counter() - started) / repeat * 1000
    started = time.perf_counter()
    for _ in range(repeat):
        skyjo_image.table_image(view, names)
    compose = (time.perf_counter() - started) / repeat * 1000
    return total, compose, len(png)


def run() -> None:
    for players, target in ((4, 15), (8, 30)):
        game = mid_game(players, seed=players, turns=3 * players)
        view = game.view(None)
        image = skyjo_image.table_image(view, NAMES[:players])
        total, compose, size = _measure(view, NAMES[:players], 100)
        print(
            f"skyjo table, {players} players ({image.width}x{image.height}): {total:.1f} ms per PNG "
            f"(composing {compose:.1f} ms, encoding {total - compose:.1f} ms; {size / 1024:.0f} kB; "
            f"target < {target} ms)"
        )
    game = mid_game(4, seed=4, turns=12)
    started = time.perf_counter()
    for _ in range(100):
        skyjo_image.render_grid(game.view(0), 0, NAMES[:4])
    print(f"skyjo private grid: {(time.perf_counter() - started) * 10:.1f} ms per PNG")
