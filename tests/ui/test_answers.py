"""One owner for a click's answer, and the presenter composed by idea (issue 48).

Read from the code: only :mod:`bot.ui.answers` tells the followed panels about an answer (through
``FollowedPanels.answering``; the three-call handshake it replaced is gone), and the presenter and its
surfaces hold each other by composition, each module saying in its first line the one thing it holds.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

from bot.ui.presenter import Presenter

ROOT = Path(__file__).resolve().parents[2]
# The handshake between the click handlers and the presenter before issue 48.
HANDSHAKE = {"panel_click_started", "panel_click_done", "panel_missed"}
SURFACES = {
    "bot.ui.slots": "Slots",
    "bot.ui.posting": "Posting",
    "bot.ui.table_messages": "TableMessages",
    "bot.ui.followed_panels": "FollowedPanels",
    "bot.ui.mentions": "Mentions",
    "bot.ui.answers": "Answers",
    "bot.ui.presenter": "Presenter",
}


def _attribute_calls(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }


def _sources() -> list[Path]:
    return sorted([*(ROOT / "bot").rglob("*.py"), *(ROOT / "cogs").rglob("*.py")])


def test_only_the_answers_tell_the_followed_panels() -> None:
    callers = set()
    for path in _sources():
        calls = _attribute_calls(path)
        assert not calls & HANDSHAKE, f"{path.relative_to(ROOT)} calls {calls & HANDSHAKE}"
        if "answering" in calls:
            callers.add(path.relative_to(ROOT).as_posix())
    assert callers == {"bot/ui/answers.py"}


def test_the_click_handlers_answer_nothing_themselves() -> None:
    """``TableUI`` asks the service; every answer it gives goes through :class:`Answers` (it may
    only ask whether a click is answered already)."""
    tree = ast.parse((ROOT / "bot/ui/clicks.py").read_text(encoding="utf-8"))
    answered = {
        f"{node.func.value.attr}.{node.func.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Attribute)
        and node.func.value.attr in {"response", "followup"}
    }
    assert answered <= {"response.is_done"}, answered


def test_the_presenter_is_composed_of_surfaces_that_inherit_nothing() -> None:
    for module, name in SURFACES.items():
        cls = getattr(importlib.import_module(module), name)
        assert cls.__bases__ == (object,), f"{name} inherits {cls.__bases__}"
    # It is told one way (issue 48): it hears a service's bus once attached, and offers nobody the old
    # listener's methods to call by hand.
    told = {"table_changed", "lobby_changed", "lobby_moved", "remind", "seat_taken_over"}
    told |= {"table_gone", "lobby_gone"}
    public = {name for name in dir(Presenter) if not name.startswith("_")}
    assert "attach" in public and not told & public, told & public


def test_each_surface_module_says_the_one_thing_it_holds() -> None:
    for module in [*SURFACES, "bot.ui.clicks"]:
        doc = importlib.import_module(module).__doc__
        assert doc, module
        first = doc.splitlines()[0]
        assert first.endswith(".") and ". " not in first, (module, first)
        assert len(Path(inspect.getfile(importlib.import_module(module))).read_text().splitlines()) <= 600
