"""The import walk the rules of the house share: which modules a file imports, hidden imports included
(``tests/unit/test_tools_outside_the_bot.py``, ``tests/unit/test_fakecord_apart.py``,
``tests/storage/test_boundary.py``)."""

from __future__ import annotations

import ast


def imported(source: str, name: str, *, names: bool = False) -> list[tuple[int, str]]:
    """Every absolute module ``source`` (the file ``name``) imports, with its line (:func:`imports_in`)."""
    return imports_in(ast.parse(source, name), names=names)


def imports_in(tree: ast.AST, *, names: bool = False) -> list[tuple[int, str]]:
    """Every absolute module ``tree`` imports, with its line: ``import a.b`` and ``from a.b import c``
    give ``a.b`` (``a.b.c`` with ``names``, which says what a ``from`` takes), ``import_module("a.b")``
    and ``__import__("a.b")`` too; relative imports stay inside their package and are left out."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [f"{node.module}.{alias.name}" for alias in node.names] if names else [node.module]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name | ast.Attribute)
            and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr)
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            modules = [node.args[0].value]
        found += [(node.lineno, module) for module in modules]
    return found
