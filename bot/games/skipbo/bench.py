"""Skip-Bo engine speed: whole 4-player games of random legal moves, in one process.

Two figures per kind of self-play: games per second of wall time (what a user waits for) and games
per second of CPU time of this process (steadier on a shared machine). The target of issue 4 is
at least 100 games per second on one core for the self-play that plays whenever it can: uniformly
random legal moves nearly never complete a pile, so those games all end stalled (SB-STALL-1).
"""

from __future__ import annotations

import random
import time

from bot.games.skipbo import engine

PLAYERS = 4
SECONDS = 3.0
TARGET = 100.0  # games per second, plays-first self-play (issue 4)


def random_game(seed: int, plays_first: bool) -> engine.State:
    """One whole game where every seat picks a random legal action (with ``plays_first``, a random
    play onto a building pile whenever there is one, so that games run to a win)."""
    game = engine.State.new([f"seat{i + 1}" for i in range(PLAYERS)], seed)
    uniform = random.Random(f"bench:{seed}").random
    legal_actions, apply, seats_to_act = game.legal_actions, game.apply, game.seats_to_act
    play = engine.Play
    while True:
        to_act = seats_to_act()
        if not to_act:
            return game
        seat = to_act[0]
        actions = legal_actions(seat)
        count = len(actions)
        if plays_first and type(actions[0]) is play:
            # The plays come first (Game.legal_actions): find where they end by bisection.
            low, high = 1, count
            while low < high:
                mid = (low + high) // 2
                if type(actions[mid]) is play:
                    low = mid + 1
                else:
                    high = mid
            count = low
        apply(seat, actions[int(uniform() * count)])


def measure(plays_first: bool, seconds: float | None = None) -> tuple[int, float, float, int, int]:
    """Play games for about ``seconds`` (default ``SECONDS``) of CPU time:
    (games, CPU seconds, wall seconds, turns, draws)."""
    seconds = SECONDS if seconds is None else seconds
    games = turns = draws = 0
    started_cpu = time.process_time()
    started_wall = time.perf_counter()
    while time.process_time() - started_cpu < seconds:
        game = random_game(games, plays_first)
        games += 1
        turns += game.turns
        draws += game.is_draw
    return games, time.process_time() - started_cpu, time.perf_counter() - started_wall, turns, draws


def run() -> None:
    for plays_first, label in (
        (False, "random legal"),  # uniformly random legal moves
        (True, "random, plays first"),  # a random play onto a building pile whenever there is one
    ):
        games, cpu, wall, turns, draws = measure(plays_first)
        target = f"; target >= {TARGET:.0f} games/s" if plays_first else ""
        print(
            f"   skipbo {label}: {games / wall:.1f} games/s wall time, "
            f"{games / cpu:.1f} games/s CPU time ({games} games, {turns / games:.1f} turns/game, "
            f"{100 * draws / games:.0f} % stalled; {PLAYERS} players, one process{target})",
            flush=True,
        )
