"""``python -m bench [NAME...]``: run the benchmarks named (all when none is) and print their figures."""

from __future__ import annotations

import sys

from bench import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
