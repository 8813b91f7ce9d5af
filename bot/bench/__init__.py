"""Benchmarks: `python -m bot bench [NAME...]` runs every module of this package that has ``run()``.

Each module prints its own figures. Benchmarks measure; they never assert a time.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time


def main(args: list[str]) -> int:
    wanted = set(args)
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    unknown = wanted - set(names)
    if unknown:
        print(
            f"unknown benchmark(s): {', '.join(sorted(unknown))}; known: {', '.join(names)}", file=sys.stderr
        )
        return 2
    for name in names:
        if wanted and name not in wanted:
            continue
        module = importlib.import_module(f"{__name__}.{name}")
        if not hasattr(module, "run"):  # a part of other benchmarks (e.g. table_report), not one
            continue
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        module.run()
        print(f"   ({time.perf_counter() - started:.1f} s)", flush=True)
    return 0
