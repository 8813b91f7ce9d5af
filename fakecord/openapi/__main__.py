"""``python -m fakecord.openapi refresh DIR``: take a newer copy of Discord's description."""

from __future__ import annotations

import sys
from pathlib import Path

from fakecord.openapi import refresh, version

USAGE = """usage: python -m fakecord.openapi refresh DIR
  DIR holds openapi.json, LICENSE and SOURCE.md (or: make discord-spec SPEC=DIR)"""


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "refresh":
        print(USAGE)
        return 2
    changed = refresh(Path(argv[1]))
    print(f"{version()}: " + (", ".join(changed) + " updated" if changed else "already up to date"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
