"""The game-agnostic simulation loop shared by every game's simulator."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any

Policy = Callable[[dict[str, Any], random.Random], Any]


def parse_lineup(text: str, players: int, levels: Sequence[str]) -> list[str]:
    """``"hard,normal"`` -> one level per seat; a short list is padded with its last level."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise ValueError("--ai needs at least one level")
    for name in names:
        if name not in levels:
            raise ValueError(f"unknown level {name!r}; choose from {', '.join(levels)}")
    if len(names) > players:
        raise ValueError(f"{len(names)} levels for {players} players")
    return names + [names[-1]] * (players - len(names))


def play_game(
    engine: ModuleType,
    policies: Sequence[Policy],
    seed: int,
    options: Any = None,
    *,
    max_actions: int = 100_000,
) -> Any:
    """Play one whole game between ``policies`` (one per seat); return the finished game state.

    Every seat gets its own generator derived from the game seed, so a game is deterministic and
    one seat's choices never shift another's random draws.
    """
    players = [f"seat{i + 1}" for i in range(len(policies))]
    game = engine.Game.new(players, seed, options)
    rngs = [random.Random(f"sim:{seed}:{i}") for i in range(len(policies))]
    for _ in range(max_actions):
        if game.is_over:
            return game
        seat = game.seats_to_act()[0]
        action = policies[seat](game.view(seat), rngs[seat])
        game.apply(seat, action)
    raise RuntimeError(f"game with seed {seed} did not end within {max_actions} actions")


def play_games(
    engine: ModuleType,
    policies: Sequence[Policy],
    games: int,
    seed: int,
    options: Any = None,
) -> Iterator[Any]:
    """Yield ``games`` finished games, seeds derived from ``seed`` so a run is reproducible."""
    for index in range(games):
        yield play_game(engine, policies, seed * 1_000_003 + index, options)
