"""Benchmarks: `python -m bench [NAME...]` (`make bench`) runs the benchmarks named (all when none is).

Each benchmark prints its own figures. Benchmarks measure; they never assert a time. This package is a
tool of the repository, outside the bot (the image ships ``bot`` and ``cogs`` only): run it from the
repository root, where ``bench``, ``devtools`` (the throwaway PostgreSQL) and ``tests`` import. A
game's engine bench stays in its folder (``bot/games/<game>/bench.py``); this package only calls it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

# Each benchmark's module is imported only when it runs (some need a database driver or a browser).


def _activity() -> None:
    from bench.activity import run

    run()


def _backends() -> None:
    from bench.backends import run

    run()


def _fleet() -> None:
    from bench.fleet import run

    run()


def _render() -> None:
    from bench.render import run

    run()


def _storage() -> None:
    from bench.storage import run

    run()


def _table() -> None:
    from bench.table import run

    run()


def _game(name: str) -> Callable[[], None]:
    """A game's engine bench, from its folder (``Game.bench``), imported when it runs."""

    def run() -> None:
        from bot.games import registry

        bench = registry.BY_KIND[name].bench
        if bench is not None:
            bench()

    return run


def _games() -> dict[str, Callable[[], None]]:
    """Each game of the registry that has a bench, by its name (the registry is cheap to import: a
    game's bench module loads only when it runs)."""
    from bot.games import registry

    return {game.name: _game(game.name) for game in registry.games() if game.bench is not None}


BENCHMARKS: dict[str, Callable[[], None]] = {
    "activity": _activity,
    "backends": _backends,
    "fleet": _fleet,
    "render": _render,
    "storage": _storage,
    "table": _table,
} | _games()


def main(args: list[str]) -> int:
    wanted = set(args)
    names = sorted(BENCHMARKS)
    unknown = wanted - set(names)
    if unknown:
        print(
            f"unknown benchmark(s): {', '.join(sorted(unknown))}; known: {', '.join(names)}", file=sys.stderr
        )
        return 2
    for name in names:
        if wanted and name not in wanted:
            continue
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        BENCHMARKS[name]()
        print(f"   ({time.perf_counter() - started:.1f} s)", flush=True)
    return 0
