"""Skyjo engine benchmark: random legal play as published engines define it, plus state costs."""

from __future__ import annotations

import random
import time

from bot.games.skyjo import engine as skyjo
from bot.games.skyjo.engine import PLAY, REVEAL, DiscardAndReveal, Draw, Replace, Reveal, State, TakeDiscard

PLAYERS = ["p1", "p2", "p3", "p4"]
DRAW = Draw()


def random_game(seed: int) -> State:
    """One whole game with the published engines' random policy.

    Each turn: 50 % take the discard, else draw; after a draw 50 % replace, else discard and reveal;
    every position uniform among the legal ones; initial reveals uniform.
    """
    rng = random.Random(seed)
    game = State.new(PLAYERS, seed)
    rand, choice = rng.random, rng.choice
    apply = game.apply
    while True:
        phase = game.phase
        if phase == PLAY:
            seat = game.turn
            assert seat is not None
            if rand() < 0.5:
                apply(seat, TakeDiscard(choice(game.occupied_positions(seat))))
            else:
                apply(seat, DRAW)
                if rand() < 0.5:
                    apply(seat, Replace(choice(game.occupied_positions(seat))))
                else:
                    apply(seat, DiscardAndReveal(choice(game.face_down_positions(seat))))
        elif phase == REVEAL:
            for seat in game.seats_to_act():
                for _ in range(game.reveals_left[seat]):
                    apply(seat, Reveal(choice(game.face_down_positions(seat))))
        elif phase == skyjo.ROUND_OVER:
            apply(0, skyjo.NextRound())
        else:
            return game


def measure_random_play(games: int, seed: int = 1) -> tuple[float, float, float]:
    """(games per second, rounds per game, mean round score per player)."""
    rounds = 0
    points = 0
    scores = 0
    started = time.perf_counter()
    for index in range(games):
        game = random_game(seed * 1_000_003 + index)
        rounds += len(game.rounds)
        for result in game.rounds:
            points += sum(result.scores)
            scores += len(result.scores)
    elapsed = time.perf_counter() - started
    return games / elapsed, rounds / games, points / scores


def _per_call(func: object, repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        func()  # type: ignore[operator]
    return (time.perf_counter() - started) / repeat * 1e6


def run() -> None:
    rate, rounds, points = measure_random_play(3000)
    print(
        f"random play: {rate:,.0f} games/s, {rounds:.2f} rounds/game, {points:.1f} points/round "
        "(4 players to 100; target >= 700 games/s; peers: 1.30 rounds/game, 72.9 points/round)"
    )
    # A mid-game state: the costs the service pays on each click.
    rng = random.Random(7)
    game = State.new(PLAYERS, 7)
    for _ in range(40):
        seat = game.seats_to_act()[0]
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    data = game.to_dict()
    round_trip = _per_call(lambda: State.from_dict(game.to_dict()), 5000)
    to_dict = _per_call(game.to_dict, 5000)
    from_dict = _per_call(lambda: State.from_dict(data), 5000)
    view = _per_call(lambda: game.view(0), 5000)
    legal = _per_call(lambda: game.legal_actions(game.seats_to_act()[0]), 5000)
    print(
        f"to_dict + from_dict: {round_trip:.1f} µs (to_dict {to_dict:.1f} µs, from_dict {from_dict:.1f} µs)"
    )
    print(f"view: {view:.1f} µs; legal_actions: {legal:.1f} µs")
