"""The table service's parts (bot/service/) keep their layering: ``types`` imports no other part, the
rules below the parts (``outcomes`` none, ``rules`` only ``outcomes``, ``replay_file`` none,
``tournament_view`` only ``types``), ``core`` only ``types`` and ``rules``, the events' modules below the
parts (``snapshots`` only ``types``, ``events`` only ``snapshots``, ``bus`` only ``events`` and ``types``),
every other part only ``types`` and ``core`` (the tournaments part also ``tournament_view``), so no circle
can form; and what one part asks of another (the abstract methods of ``ServiceCore``) is implemented by
exactly one part."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import bot.service
from bot.service import TableService
from bot.service.core import ServiceCore

PARTS = Path(bot.service.__file__).parent


def _service_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bot.service."):
            found.add(node.module.removeprefix("bot.service."))
        elif isinstance(node, ast.Import):
            found |= {
                a.name.removeprefix("bot.service.") for a in node.names if a.name.startswith("bot.service.")
            }
    return found


def test_each_part_imports_only_the_shared_modules() -> None:
    allowed: dict[str, set[str]] = {
        "types": set(),
        "outcomes": set(),
        "rules": {"outcomes"},
        "replay_file": set(),
        "tournament_view": {"types"},
        "core": {"types", "rules"},
        "tournaments": {"types", "core", "tournament_view"},
        # The spine of issue 48: a snapshot reads the shared types, an event carries a snapshot, the bus
        # delivers events (and logs by the shared logger). Nothing of them imports a part.
        "snapshots": {"types"},
        "events": {"snapshots"},
        "bus": {"events", "types"},
    }
    parts = sorted(p for p in PARTS.glob("*.py") if p.name != "__init__.py")
    assert {p.stem for p in parts} >= {"types", "core", "lobbies", "clicks", "votes", "timers", "seats"}
    wrong = {
        p.stem: imports
        for p in parts
        if not (imports := _service_imports(p)) <= allowed.get(p.stem, {"types", "core"})
    }
    assert wrong == {}


def test_every_need_of_a_part_is_met_by_exactly_one_part() -> None:
    assert not inspect.isabstract(TableService)
    needs = ServiceCore.__abstractmethods__
    assert needs
    for name in needs:
        owners = [
            part.__name__
            for part in TableService.__mro__[1:]
            if name in vars(part) and part is not ServiceCore
        ]
        assert len(owners) == 1, (name, owners)
