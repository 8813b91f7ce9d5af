"""Skip-Bo engine speed: whole 4-player games of random legal moves, in one process."""

from __future__ import annotations

import random
import time

from bot.engine import skipbo as engine

PLAYERS = 4
SECONDS = 3.0


def random_game(seed: int, plays_first: bool) -> engine.Game:
    """One whole game where every seat picks a random legal action (with ``plays_first``, a random
    play onto a building pile whenever there is one, so that games run to a win)."""
    game = engine.Game.new([f"seat{i + 1}" for i in range(PLAYERS)], seed)
    rng = random.Random(f"bench:{seed}")
    while not game.is_over:
        seat = game.seats_to_act()[0]
        actions = game.legal_actions(seat)
        if plays_first:
            plays: list[engine.Action] = [a for a in actions if type(a) is engine.Play]
            actions = plays or actions
        game.apply(seat, rng.choice(actions))
    return game


def measure(plays_first: bool, seconds: float | None = None) -> tuple[int, float, int, int]:
    """Play games for about ``seconds`` (default ``SECONDS``) of CPU time: (games, elapsed, turns, draws)."""
    seconds = SECONDS if seconds is None else seconds
    games = turns = draws = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        game = random_game(games, plays_first)
        games += 1
        turns += game.turns
        draws += game.is_draw
    return games, time.process_time() - started, turns, draws


def run() -> None:
    for plays_first, label in ((False, "random legal"), (True, "random, plays first")):
        games, elapsed, turns, draws = measure(plays_first)
        print(
            f"   skipbo {label}: {games / elapsed:.1f} games/s "
            f"({games} games, {turns / games:.1f} turns/game, {100 * draws / games:.0f} % stalled; "
            f"{PLAYERS} players, one process, CPU time)",
            flush=True,
        )
