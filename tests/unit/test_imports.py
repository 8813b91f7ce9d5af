"""The house's shape, read from the source (issue 27): no import circle among the modules of bot/,
cogs/ and fakecord/, and no file there over 600 lines but the rules engines.

Every ``import`` and ``from`` statement counts, wherever it stands (under ``if TYPE_CHECKING:`` or in
a function too): a circle hidden from the interpreter is still one for the reader. ``import a.b`` and
``from a import b`` with ``a.b`` a module import ``a.b``; ``from a import name`` imports ``a`` (its
``__init__`` for a package). The parent packages a submodule import runs are not counted: a package's
``__init__`` re-exporting its parts would otherwise make every part that imports a sibling a circle.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bot", "cogs", "fakecord")  # fakecord: the fake Discord, a package of its own
# The test-only third game: a game's folder, walked as part of the games' room (issue 48): it may import
# what a game may, and nothing a game may not.
THIRD_GAME = "tests.e2e.highcard"
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    """Every first-party module by dotted name (a package by its own name, for its ``__init__``)."""
    found: dict[str, Path] = {}
    for package in (*PACKAGES, THIRD_GAME.replace(".", "/")):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The first-party modules ``name`` (at ``path``) imports, relative imports resolved."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                anchor = package[: len(package) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in modules else base)
    return {module for module in found if module in modules and module != name}


@functools.cache
def _read_graph() -> tuple[tuple[str, frozenset[str]], ...]:
    modules = _modules()
    return tuple((name, frozenset(_imports(name, path, modules))) for name, path in modules.items())


def _graph() -> dict[str, set[str]]:
    """The import graph, read once per test process (several tests walk it)."""
    return {name: set(targets) for name, targets in _read_graph()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle (its modules in order, the first repeated at the end), or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[str] = []
        on_path: set[str] = set()
        stack = [(start, iter(sorted(graph[start])))]
        path.append(start)
        on_path.add(start)
        while stack:
            node, successors = stack[-1]
            following = next(successors, None)
            if following is None:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
            elif following in on_path:
                return [*path[path.index(following) :], following]
            elif following not in done:
                stack.append((following, iter(sorted(graph[following]))))
                path.append(following)
                on_path.add(following)
    return None


def test_the_walk_sees_the_imports() -> None:
    """The graph is read right: known edges are there (a plain, a relative-free ``from``, a cog)."""
    graph = _graph()
    assert "bot.service" in graph["bot.client"]
    assert "bot.ui.errors" in graph["bot.client"]  # from bot.ui import errors
    assert "bot.engine.errors" in graph["bot.service.lobbies"]
    assert any(module.startswith("bot.") for module in graph["cogs.games"])


def test_hidden_and_relative_imports_count(tmp_path: Path) -> None:
    """An import under ``if TYPE_CHECKING:`` or in a function counts; a relative one is resolved."""
    module = tmp_path / "presenter.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "from . import ids\n"
        "from .views import button\n"
        "from .. import service\n"
        "if TYPE_CHECKING:\n"
        "    from bot.client import SkyboBot\n"
        "def later() -> None:\n"
        "    import bot.kinds\n",
        encoding="utf-8",
    )
    known = dict.fromkeys(["bot.client", "bot.kinds", "bot.service", "bot.ui.ids", "bot.ui.views"], module)
    assert _imports("bot.ui.presenter", module, known) == set(known)


def test_the_cycle_finder_finds_one() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycle(graph) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_circle() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def _allowed_long(relative: str) -> bool:
    """The rules engines (``bot/games/<game>/engine.py``, and what they share in ``bot/engine/``)."""
    parts = relative.split("/")
    return parts[-1] == "engine.py" or "engine" in parts[:-1]


def test_no_file_over_600_lines() -> None:
    too_long = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_LINES and not _allowed_long(relative):
                too_long[relative] = lines
    assert too_long == {}, f"files over {MAX_LINES} lines (split them): {too_long}"


def test_every_module_says_what_it_holds() -> None:
    """Issue 48: files are split by idea, not by size, so each module of bot/ and cogs/ opens with a
    docstring whose first sentence names the one thing it holds (a reviewer reads them; this test makes
    sure none is missing or empty, and that the first sentence ends within its paragraph)."""
    missing = []
    for package in ("bot", "cogs"):
        for path in sorted((ROOT / package).rglob("*.py")):
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
            first = " ".join((doc or "").strip().split("\n\n")[0].split())
            says = first.endswith(".") or any(mark in first for mark in (". ", ": "))
            if len(first) < 12 or not says:
                missing.append(f"{path.relative_to(ROOT).as_posix()}: {first[:60]!r}")
    assert missing == [], "modules whose docstring does not say what they hold: " + "; ".join(missing)


def test_storage_imports_no_game_nor_the_service() -> None:
    """Issue 39 item 1: the service applies, storage stores. Nothing under bot/storage imports a game
    (bot.games: engines, registry, places) or the service: storage stands below the games, never
    above, and a click goes down and back up once. The engines' neutral base types (bot.engine) may
    be named."""
    graph = _graph()
    broken = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if (module == "bot.storage" or module.startswith("bot.storage."))
        for target in targets
        if target.split(".")[:2] in (["bot", "games"], ["bot", "service"])
    )
    assert not broken, "storage imports a game or the service: " + ", ".join(broken)


# The house's floors, from the ground up (issue 39: no arrow runs back up). A room is a top-level
# package (``cogs``, ``fakecord``) or a module or folder right under ``bot/``; a room imports only rooms
# of the floors below its own, never one beside it. So: render is the toolkit the games draw with and
# reads no registry (what shows every game, the leaderboards and ``/history``, is the ui's); the games
# stand on render and the engines, never on the ui (a game declares its ``new`` as data, the ui builds it);
# the discord.py patches know Discord and take their policies from whoever installs them; storage
# stands below the games. A new room is placed here by whoever adds it.
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "bot",
        "bot.engine",
        "bot.i18n",
        "bot.config",
        "bot.clock",
        "bot.logs",
        "bot.metrics",
        "bot.sim",
        "bot.tournament",
        "bot.discord_patches",
        "fakecord",
    ),
    ("bot.storage", "bot.render", "bot.lifecycle"),
    ("bot.games",),
    ("bot.service",),
    ("bot.ui", "bot.activity"),  # bot.activity: the Activity's page (issue 50), a surface like the ui
    ("bot.client",),
    ("bot.command_check",),  # below the sandbox, which syncs the commands as `sync` does (issue 50)
    ("cogs", "bot.sandbox"),
    ("bot.run",),
    ("bot.__main__",),
)


def _room(module: str) -> str:
    if module == THIRD_GAME or module.startswith(THIRD_GAME + "."):
        return "bot.games"
    parts = module.split(".")
    return parts[0] if parts[0] != "bot" or len(parts) == 1 else ".".join(parts[:2])


def _against_the_floors(graph: dict[str, set[str]]) -> list[str]:
    """Every import that does not run down a floor (``module -> target``), and every room no floor holds."""
    floor = {room: level for level, rooms in enumerate(LAYERS) for room in rooms}
    unplaced = sorted({_room(module) for module in graph} - set(floor))
    return [f"{room} is on no floor of LAYERS" for room in unplaced] + sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if _room(module) != _room(target)
        and _room(module) in floor
        and floor.get(_room(target), len(LAYERS)) >= floor[_room(module)]
    )


def test_the_floor_check_finds_an_arrow_up() -> None:
    graph = {
        "bot.render.boards": {"bot.games.registry", "bot.render.names"},
        "bot.discord_patches": {"bot.ui.on_time"},
        "bot.games.skyjo.commands": {"bot.ui.game_commands", "bot.games.commands"},
        "bot.storage.games": {"bot.render.names"},  # beside it: no
        "bot.ui.boards": {"bot.games.registry", "bot.render.names", "bot.ui.places"},
        "bot.newcomer": set(),
    }
    assert _against_the_floors(graph) == [
        "bot.newcomer is on no floor of LAYERS",
        "bot.discord_patches -> bot.ui.on_time",
        "bot.games.skyjo.commands -> bot.ui.game_commands",
        "bot.render.boards -> bot.games.registry",
        "bot.storage.games -> bot.render.names",
    ]


def test_the_third_game_is_walked_as_a_game() -> None:
    """The test-only game stands where a game's folder stands: what it imports is checked like a game's."""
    graph = _graph()
    assert _room("tests.e2e.highcard.parts") == "bot.games"
    assert "bot.games.base" in graph["tests.e2e.highcard.parts"]
    assert "tests.e2e.highcard.engine" in graph["tests.e2e.highcard"]


def test_every_import_runs_down_a_floor() -> None:
    broken = _against_the_floors(_graph())
    assert not broken, "imports that do not run down the floors of LAYERS: " + ", ".join(broken)


def test_the_service_holds_a_game_s_rules_only() -> None:
    """Issue 48, a thinner Game: the service sees a game as its rules (``GameRules``: engine, options,
    computers, moves, standing), never its surfaces or tools; it names neither the whole ``Game``
    protocol nor ``registry.whole`` (the ui's way to a game's surfaces). mypy holds every use to it."""
    named = []
    for path in sorted((ROOT / "bot" / "service").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in ("bot.games.base", "bot.games.registry"):
                named += [f"{path.name}: {a.name}" for a in node.names if a.name in ("Game", "whole")]
            if isinstance(node, ast.Attribute) and node.attr == "whole":
                named.append(f"{path.name}:{node.lineno} .whole")
    assert named == []
