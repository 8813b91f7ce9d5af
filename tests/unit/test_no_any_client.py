"""No module below the ui reaches up to the bot through ``Any`` (issue 48: commands stand above what they
drive).

The bot (``bot.client.SkyboBot``) stands above the ui; the ui, the cogs and the client itself are the
only modules that may take it from ``interaction.client``. A module below the ui (a game, the service,
storage, the tools of floor 0: everything ``tests/unit/test_imports.py``'s ``LAYERS`` puts under
``bot.ui``) that needs something of the bot is handed it typed, never as ``bot: Any``: so "go to
definition" works and the floors are what the import drawing shows. The test-only third game
(``tests/e2e/highcard``) is a game's folder and is read as one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.unit.test_imports import LAYERS, _room

ROOT = Path(__file__).resolve().parents[2]
MAY_TAKE_THE_CLIENT = ("bot/ui/", "cogs/", "bot/client.py")
THIRD_GAME = "tests/e2e/highcard"  # on the games' floor, like any game's folder
_UI_FLOOR = next(level for level, rooms in enumerate(LAYERS) if "bot.ui" in rooms)
BELOW_THE_UI = {room for rooms in LAYERS[:_UI_FLOOR] for room in rooms} - {"fakecord"}


def _files() -> Iterator[tuple[str, Path]]:
    """(path relative to the root, path) of every module of bot/, cogs/ and the third game."""
    for folder in ("bot", "cogs", THIRD_GAME):
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path


def _below_the_ui(relative: str) -> bool:
    if relative.startswith(THIRD_GAME + "/"):
        return True
    parts = Path(relative).with_suffix("").parts
    module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return _room(module) in BELOW_THE_UI


def _is_any(annotation: ast.expr | None) -> bool:
    """``Any``, ``typing.Any`` or the string ``"Any"``."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        annotation = ast.parse(annotation.value, mode="eval").body
    return (isinstance(annotation, ast.Name) and annotation.id == "Any") or (
        isinstance(annotation, ast.Attribute) and annotation.attr == "Any"
    )


def clients_taken(tree: ast.AST) -> list[int]:
    """The lines reading ``<interaction>.client`` (any name holding ``interaction``)."""
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr == "client"
        and isinstance(node.value, ast.Name)
        and "interaction" in node.value.id
    )


def bots_as_any(tree: ast.AST) -> list[int]:
    """The lines of a parameter, a variable or an attribute named ``bot`` annotated ``Any``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.arg == "bot" and _is_any(node.annotation):
            lines.append(node.lineno)
        elif isinstance(node, ast.AnnAssign) and _is_any(node.annotation):
            target = node.target
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
            if name == "bot":
                lines.append(node.lineno)
    return sorted(lines)


def test_the_scan_finds_both_ways_up() -> None:
    tree = ast.parse(
        "from typing import Any\n"
        "def public_locale(bot: Any, interaction: object) -> None: ...\n"
        "async def open_table(interaction: Any) -> None:\n"
        '    bot: "Any" = interaction.client\n'
        "    other: Any = interaction\n"
        "def typed(bot: int, client: Any) -> None: ...\n"
    )
    assert bots_as_any(tree) == [2, 4]
    assert clients_taken(tree) == [4]
    assert _below_the_ui("bot/games/commands.py") and _below_the_ui("bot/metrics.py")
    assert _below_the_ui("tests/e2e/highcard/parts.py")
    assert not _below_the_ui("bot/ui/answers.py") and not _below_the_ui("bot/client.py")


def test_only_the_ui_the_cogs_and_the_client_take_the_client() -> None:
    taken = {
        f"{relative}:{line}"
        for relative, path in _files()
        if not relative.startswith(MAY_TAKE_THE_CLIENT)
        for line in clients_taken(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert not taken, "interaction.client read below the ui: " + ", ".join(sorted(taken))


def test_no_bot_as_any_below_the_ui() -> None:
    found = {
        f"{relative}:{line}"
        for relative, path in _files()
        if _below_the_ui(relative)
        for line in bots_as_any(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert not found, "the bot reached as Any below the ui: " + ", ".join(sorted(found))
