"""The game-agnostic simulation loop shared by every game's simulator."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any, Protocol

Policy = Callable[[dict[str, Any], random.Random], Any]


class Views(Protocol):
    """Hands out ``game.view(seat)`` for a running game; a game's simulator may cache between actions."""

    def next_seat(self) -> int | None:
        """The first seat to act now, or None once the game is over."""
        ...

    def view(self, seat: int) -> dict[str, Any]: ...

    def applied(self, seat: int, events: list[Any]) -> None: ...

    # Optional: ``next_view()`` -> ``(seat, view)`` of the first seat to act, or None once the game is
    # over; the loop then calls it instead of ``next_seat`` and ``view``.


class PlainViews:
    """The reference: every view straight from the engine."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.view = game.view

    def next_seat(self) -> int | None:
        return None if self.game.is_over else int(self.game.seats_to_act()[0])

    def applied(self, seat: int, events: list[Any]) -> None:
        pass


ViewsFactory = Callable[[Any], Views]


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


def seat_rng(seed: int, seat: int) -> random.Random:
    """The generator of one seat in the game with ``seed`` (its choices never shift another seat's)."""
    return random.Random(f"sim:{seed}:{seat}")


def play_game(
    engine: ModuleType,
    policies: Sequence[Policy],
    seed: int,
    options: Any = None,
    *,
    max_actions: int = 100_000,
    views: ViewsFactory = PlainViews,
) -> Any:
    """Play one whole game between ``policies`` (one per seat); return the finished game state.

    Every seat gets its own generator derived from the game seed, so a game is deterministic and
    one seat's choices never shift another's random draws. ``views`` builds the views the policies
    see; it must give exactly what ``game.view(seat)`` would (a cache is only a speed-up).
    """
    players = [f"seat{i + 1}" for i in range(len(policies))]
    game = engine.State.new(players, seed, options)
    rngs = [seat_rng(seed, i) for i in range(len(policies))]
    table = views(game)
    applied, apply = table.applied, game.apply
    # A views object may hand out the next seat and its view in one call (one call less per action).
    next_view: Callable[[], tuple[int, dict[str, Any]] | None] | None = getattr(table, "next_view", None)
    if next_view is not None:
        for _ in range(max_actions):
            turn = next_view()
            if turn is None:
                return game
            seat, seen = turn
            applied(seat, apply(seat, policies[seat](seen, rngs[seat])))
    else:
        view, next_seat = table.view, table.next_seat
        for _ in range(max_actions):
            to_act = next_seat()
            if to_act is None:
                return game
            applied(to_act, apply(to_act, policies[to_act](view(to_act), rngs[to_act])))
    raise RuntimeError(f"game with seed {seed} did not end within {max_actions} actions")


def game_seed(seed: int, index: int) -> int:
    """The seed of game number ``index`` of a run started with ``seed``."""
    return seed * 1_000_003 + index


def play_games(
    engine: ModuleType,
    policies: Sequence[Policy],
    games: int,
    seed: int,
    options: Any = None,
    *,
    views: ViewsFactory = PlainViews,
) -> Iterator[Any]:
    """Yield ``games`` finished games, seeds derived from ``seed`` so a run is reproducible."""
    for index in range(games):
        yield play_game(engine, policies, game_seed(seed, index), options, views=views)


class TimedPolicy:
    """Wraps a policy to measure its decisions (for ``--profile``): wall time and CPU time, since a
    shared machine inflates the first."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.calls = 0
        self.seconds = 0.0
        self.cpu_seconds = 0.0

    def __call__(self, view: dict[str, Any], rng: random.Random) -> Any:
        started, cpu_started = time.perf_counter(), time.process_time()
        action = self.policy(view, rng)
        self.cpu_seconds += time.process_time() - cpu_started
        self.seconds += time.perf_counter() - started
        self.calls += 1
        return action

    @property
    def mean_ms(self) -> float:
        return 1000 * self.seconds / self.calls if self.calls else 0.0

    @property
    def mean_cpu_ms(self) -> float:
        return 1000 * self.cpu_seconds / self.calls if self.calls else 0.0
