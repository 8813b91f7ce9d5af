"""The presenter is told one way (issue 48): only through the service's events.

Every surface (the channel's table messages, the followed panels, the mentions; a group DM's table and
the Activity next) subscribes to the service's bus once, where the bot is built, and hears every change
from there. Nothing outside the service tells a surface that a table changed: a click's handler, a
command or the client's start would be a second way in, one that a new surface would have to copy.
Read from the code (AST), so a new direct call fails here before it ships.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# What a surface is told, and (in bot/ui) the modules that are the surfaces themselves.
TOLD = {
    "table_changed",
    "lobby_changed",
    "lobby_moved",
    "table_gone",
    "lobby_gone",
    "remind",
    "seat_taken_over",
}
SURFACES = {
    "bot/ui/presenter.py",
    "bot/ui/slots.py",
    "bot/ui/table_messages.py",
    "bot/ui/mentions.py",
    "bot/ui/followed_panels.py",
    "bot/ui/token_tables.py",  # the tables where the bot is not a member: a listener of its own (issue 49)
}


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for package in ("bot", "cogs"):
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _calls(tree: ast.Module) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            yield node.lineno, node.func.attr


def test_nothing_outside_the_service_tells_a_surface_directly() -> None:
    told = [
        f"{name}:{line} .{attr}()"
        for name, tree in _modules()
        if not name.startswith("bot/service/") and name not in SURFACES
        for line, attr in _calls(tree)
        if attr in TOLD
    ]
    assert told == [], "told directly, not through the service's events: " + ", ".join(told)


def test_only_the_service_publishes() -> None:
    published = [
        f"{name}:{line}"
        for name, tree in _modules()
        if not name.startswith("bot/service/")
        for line, attr in _calls(tree)
        if attr == "publish"
    ]
    assert published == [], "an event published outside the service: " + ", ".join(published)


def test_the_service_no_longer_takes_a_listener() -> None:
    """The old way in (``ServiceOptions.listener``, the ``TableListener`` protocol) is gone: a surface
    can only subscribe to the bus."""
    names = {
        node.name if isinstance(node, ast.ClassDef) else node.target.id
        for name, tree in _modules()
        if name.startswith("bot/service/")
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        or (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name))
    }
    assert not names & {"TableListener", "QuietListener", "ListenerBridge", "listener"}


def test_the_client_attaches_the_presenter_to_each_service_it_builds() -> None:
    tree = ast.parse((ROOT / "bot/client.py").read_text(encoding="utf-8"))
    attaches = [line for line, attr in _calls(tree) if attr == "attach"]
    assert attaches, "bot/client.py never attaches the presenter to a service's bus"
