"""The table service's parts (bot/service/) keep their layering: ``types`` imports no other part, the
rules below the parts (``outcomes`` none, ``ledger`` only ``outcomes``, ``replay_file`` none,
``tournament_view`` only ``types``), the events' modules below the parts (``snapshots`` only ``types``,
``events`` only ``snapshots``, ``bus`` only ``events`` and ``types``), the owned services below the core
(``turn_clock`` and ``sweeper`` only ``types``, ``writer`` the rules, the events and the bus), ``core``
those services, every other part only ``types``, ``core``, ``events`` and ``snapshots`` (the
tournaments part also ``tournament_view``, the lobbies ``lobby_options``, their pure checks), so no
circle can form; and what one part asks of another (the abstract methods of ``ServiceCore``) is
implemented by exactly one part."""

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


# What a part may import: the shared types and core, and the events it publishes or hears (with the
# snapshot they carry).
PART = {"types", "core", "events", "snapshots", "computer_moves"}


def test_each_part_imports_only_the_shared_modules() -> None:
    allowed: dict[str, set[str]] = {
        "types": set(),
        "outcomes": set(),
        "ledger": {"outcomes"},
        "replay_file": set(),
        "tournament_view": {"types"},
        "tournaments": {"types", "core", "events", "tournament_view"},
        # The spine of issue 48: a snapshot reads the shared types, an event carries a snapshot, the bus
        # delivers events (and logs by the shared logger). Nothing of them imports a part.
        "snapshots": {"types"},
        "events": {"snapshots"},
        "bus": {"events", "types"},
        # The owned services (B2): the turn clock and the sweeper are pure helpers over the shared types;
        # the one writer of tables commits through the rules and publishes on the bus; the core makes
        # them.
        "turn_clock": {"types"},
        "computer_moves": {"types"},
        "sweeper": {"types"},
        "writer": {"types", "events", "snapshots", "ledger", "turn_clock", "bus"},
        "settings_book": {"types"},
        "prefs_cache": set(),
        "core": {"types", "ledger", "bus", "sweeper", "turn_clock", "writer", "settings_book", "prefs_cache"},
        # A lobby's options and who fits (issue 49): pure checks over the shared types, shared by
        # /<game> new and the set-up form, which the lobbies part runs.
        "lobby_options": {"types"},
        "lobbies": PART | {"lobby_options"},
    }
    parts = sorted(p for p in PARTS.glob("*.py") if p.name != "__init__.py")
    assert {p.stem for p in parts} >= {"types", "core", "lobbies", "clicks", "timers", "seats"}
    wrong = {
        p.stem: imports for p in parts if not (imports := _service_imports(p)) <= allowed.get(p.stem, PART)
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


def test_no_two_parts_define_the_same_method() -> None:
    """Parts are mixins of one class: a method two parts define is one of them silently (the first in
    the MRO), so a part subscribing ``self._on_table`` to the bus would subscribe another part's. Only
    the cooperative ``__init__`` and ``_stop_background`` (each calls ``super()``) may repeat."""
    cooperative = {"__init__", "_stop_background"}
    owners: dict[str, list[str]] = {}
    for part in TableService.__mro__[1:]:
        if part is ServiceCore or not issubclass(part, ServiceCore):
            continue
        for name, value in vars(part).items():
            if callable(value) and name not in cooperative and not name.startswith("__"):
                owners.setdefault(name, []).append(part.__name__)
    assert {name: parts for name, parts in owners.items() if len(parts) > 1} == {}


# The one place a part still calls another, with its reason (issue 48: the call graph between parts has
# no edge but these, and no two-way pair).
DOCUMENTED = {
    ("tournament_ends", "tournaments"): "a tournament table's end is recorded in a task of its own, then"
    " the tournament goes on (its next round, its end) under the tournament's lock: the tournaments"
    " part owns the record, the lock and the round; the ends part only hears TableEnded and retries",
}


def _part_classes() -> dict[str, set[str]]:
    """Each part's module -> the methods its class defines (a part: a class whose bases name
    ``ServiceCore``)."""
    found: dict[str, set[str]] = {}
    for path in sorted(PARTS.glob("*.py")):
        for cls in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(cls, ast.ClassDef) and any(ast.unparse(b) == "ServiceCore" for b in cls.bases):
                found[path.stem] = {
                    f.name for f in cls.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                }
    return found


def test_no_part_calls_another_part() -> None:
    """Read from the code: every ``self.<name>`` in a part's module whose ``<name>`` is a method of
    another part is an edge between parts (a call, or the method handed on). What a part needs of
    another is an event it hears or an owned service it is handed (docs/architecture.md); the
    composition (``TableService.resume`` in ``__init__.py``) is no part."""
    methods = _part_classes()
    assert len(methods) >= 10
    edges: set[tuple[str, str]] = set()
    for stem in methods:
        tree = ast.parse((PARTS / f"{stem}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
            ):
                edges |= {
                    (stem, other)
                    for other, defined in methods.items()
                    if other != stem and node.attr in defined and node.attr not in methods[stem]
                }
    assert edges - set(DOCUMENTED) == set(), sorted(edges - set(DOCUMENTED))
    assert not {(a, b) for a, b in edges | set(DOCUMENTED) if (b, a) in edges | set(DOCUMENTED)}
