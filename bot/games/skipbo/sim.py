"""`python -m bot simulate skipbo`: Skip-Bo computer players against each other, with win rates."""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from bot.engine.errors import GameError
from bot.games.skipbo import ai, engine, reading
from bot.sim.common import parse_lineup, play_games


class _Timer:
    """Wraps a policy to time its decisions: CPU time (mean and worst) and wall time."""

    def __init__(self, policy: ai.Policy) -> None:
        self.policy = policy
        self.calls = 0
        self.cpu = 0.0
        self.wall = 0.0
        self.worst = 0.0

    def __call__(self, view: reading.View, rng: random.Random) -> engine.Action:
        started, cpu_started = time.perf_counter(), time.process_time()
        action = self.policy(view, rng)
        cpu = time.process_time() - cpu_started
        self.wall += time.perf_counter() - started
        self.cpu += cpu
        self.worst = max(self.worst, cpu)
        self.calls += 1
        return action

    @property
    def mean_ms(self) -> float:
        return 1000 * self.cpu / self.calls if self.calls else 0.0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bot simulate skipbo", description=__doc__)
    parser.add_argument("--players", type=int, default=4, help="players at the table (2..6)")
    parser.add_argument("--games", type=int, default=1000, help="games to play")
    parser.add_argument("--ai", default="normal", help="levels per seat, e.g. hard,normal (last one repeats)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the whole run")
    parser.add_argument("--stock", type=int, default=0, help="stock size (0: official, else 5..30)")
    parser.add_argument("--teams", action="store_true", help="teams of two (4 or 6 players)")
    parser.add_argument("--rounds", action="store_true", help="several rounds scored up to 500")
    parser.add_argument("--profile", action="store_true", help="time every decision of each level (ms)")
    return parser


def simulate(
    players: int,
    games: int,
    lineup: Sequence[str],
    seed: int,
    options: engine.Options,
    out: TextIO,
    profile: bool = False,
) -> dict[str, object]:
    """Play the games and print one line per seat, then turns per game and speed; return the figures."""
    timers = {name: _Timer(ai.LEVELS[name]) for name in dict.fromkeys(lineup)}
    policies = [timers[name] if profile else ai.LEVELS[name] for name in lineup]
    wins = [0] * players
    draws = 0
    turns = 0
    started = time.perf_counter()
    for game in play_games(engine, policies, games, seed, options):
        for seat in game.winners():
            wins[seat] += 1
        draws += game.is_draw
        turns += game.turns
    elapsed = max(time.perf_counter() - started, 1e-9)
    for seat, name in enumerate(lineup):
        print(f"seat {seat + 1} {name}: {100 * wins[seat] / games:.1f} % wins", file=out)
    print(f"draws (SB-STALL-1): {100 * draws / games:.1f} %", file=out)
    print(f"turns per game: {turns / games:.1f}", file=out)
    print(f"games per second: {games / elapsed:.1f}", file=out)
    if profile:
        for name, timer in timers.items():
            print(
                f"{name} decision: {timer.calls} decisions, mean {timer.mean_ms:.2f} ms CPU"
                f" ({1000 * timer.wall / max(timer.calls, 1):.2f} ms wall),"
                f" max {1000 * timer.worst:.1f} ms CPU",
                file=out,
            )
    return {"wins": wins, "draws": draws, "turns": turns, "seconds": elapsed}


def main(args: Sequence[str], out: TextIO | None = None) -> int:
    parsed = build_parser().parse_args(list(args))
    stream = out or sys.stdout
    try:
        lineup = parse_lineup(parsed.ai, parsed.players, list(ai.LEVELS))
        options = engine.Options(stock_size=parsed.stock, teams=parsed.teams, several_rounds=parsed.rounds)
        options.validate(parsed.players)
        if parsed.games < 1 or not engine.MIN_PLAYERS <= parsed.players <= engine.MAX_PLAYERS:
            raise ValueError("need at least one game and 2 to 6 players")
    except (ValueError, GameError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    simulate(parsed.players, parsed.games, lineup, parsed.seed, options, stream, parsed.profile)
    return 0
