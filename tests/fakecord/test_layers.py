"""The fake Discord's package stays a house one can live in: no import circle between its modules
(type-only imports included) and no module over 600 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import fakecord

PACKAGE = Path(fakecord.__file__).parent
PREFIX = "fakecord."


def _imports() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.glob("*.py"):
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PREFIX):
                found.add(node.module.removeprefix(PREFIX))
            if isinstance(node, ast.ImportFrom) and node.level:
                found.add(node.module or "__init__")
        graph[path.stem] = found
    return graph


def test_the_modules_of_the_fake_import_each_other_without_a_circle() -> None:
    graph = _imports()
    assert "__init__" not in set().union(*graph.values())  # only importers outside use the package
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import circle: {' -> '.join((*path, module))}"
        if module in done:
            return
        for imported in graph[module]:
            visit(imported, (*path, module))
        done.add(module)

    for module in graph:
        visit(module, ())


def test_no_module_of_the_fake_is_over_600_lines() -> None:
    sizes = {path.name: len(path.read_text().splitlines()) for path in PACKAGE.glob("*.py")}
    assert max(sizes.values()) <= 600, sizes
