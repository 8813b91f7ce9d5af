"""Benchmarks: `python -m bot bench [NAME...]` runs the benchmarks named (all when none is).

Each benchmark prints its own figures. Benchmarks measure; they never assert a time.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

# Each benchmark's module is imported only when it runs (some need a database driver or a browser).


def _backends() -> None:
    from bot.bench.backends import run

    run()


def _drivers() -> None:
    from bot.bench.drivers import run

    run()


def _fleet() -> None:
    from bot.bench.fleet import run

    run()


def _render() -> None:
    from bot.bench.render import run

    run()


def _skipbo() -> None:
    from bot.games.skipbo.bench import run

    run()


def _skyjo() -> None:
    from bot.games.skyjo.bench import run

    run()


def _storage() -> None:
    from bot.bench.storage import run

    run()


def _table() -> None:
    from bot.bench.table import run

    run()


BENCHMARKS: dict[str, Callable[[], None]] = {
    "backends": _backends,
    "drivers": _drivers,
    "fleet": _fleet,
    "render": _render,
    "skipbo": _skipbo,
    "skyjo": _skyjo,
    "storage": _storage,
    "table": _table,
}


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
