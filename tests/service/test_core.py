"""The table service's core holds only what its parts share (issue 39 item 5), state with one owner is
that owner's own, and a listener of its bus that fails is only logged.

``ServiceCore.__init__`` makes the shared state (the tables and their channel locks, storage and the
rules over it, the lobby store, the clock, whether the service is closing) and keeps the
configuration it was made with (delays, limits, observer, shards, seeds); nothing else. A part's own
state is made in that part's ``__init__`` and read or written by that part's module alone: the others
ask it through the needs ``ServiceCore`` declares (``_schedule``, ``_forget``, ``prefs_of``...). An owner
object's private names (the sweeper's ``_due``...) are touched by that object alone: no module of
``bot/service`` reaches for ``something._name`` unless ``something`` is ``self``."""

from __future__ import annotations

import ast
import asyncio
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import bot.service
from bot.clock import ManualClock
from bot.service import TableService
from bot.service.core import ServiceCore
from bot.service.events import LobbyClosed
from bot.service.sweeper import FAILED_AGAIN_MS, Sweeper
from bot.storage.lobbies import Lobby

PARTS = Path(bot.service.__file__).parent

SHARED = {"storage", "ledger", "lobbies", "clock", "tables", "_locks", "_closed"}
# The services the core owns and hands every part (issue 48): the bus, the one writer of tables, the
# turn clock, the sweeper of deadlines, the servers' settings, the users' choices.
SERVICES = {"bus", "writer", "turn_clock", "sweeper", "settings_book", "user_prefs"}
CONFIGURATION = {"ai_delay", "round_delay", "limits", "observer", "owns", "seed_source"}
# The state each part owns (made in its __init__): its module, and what the owner keeps there.
OWNED = {
    "locale_writes": "prefs",  # users' languages being stored in the background
    "outbox": "letters",  # the postman, the letters on their way, their tasks
    "_reloader": "reloads",
    "_results_unsaved": "reloads",
    "_opening": "lobbies",  # fair use: one table opening at a time
    "_opened_at": "lobbies",  # fair use: each host's last opening
    "expired_lobbies": "lobbies",
    "tournament_desk": "tournaments",  # the tournaments' locks and hall
    "table_ends": "tournament_ends",  # the tasks recording a tournament table's end
}


def _tree(stem: str) -> ast.Module:
    return ast.parse((PARTS / f"{stem}.py").read_text(encoding="utf-8"))


def _init_assigned(cls_node: ast.ClassDef) -> set[str]:
    """The ``self.<name>`` its ``__init__`` assigns."""
    init = next((n for n in cls_node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    names: set[str] = set()
    for node in ast.walk(init) if init is not None else ():
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and ast.unparse(target.value) == "self":
                names.add(target.attr)
    return names


def _part_classes() -> dict[str, tuple[str, ast.ClassDef]]:
    """Every mixin of TableService: its name -> (module stem, class node)."""
    found: dict[str, tuple[str, ast.ClassDef]] = {}
    for path in PARTS.glob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and any(
                isinstance(b, ast.Name) and b.id == "ServiceCore" for b in node.bases
            ):
                found[node.name] = (path.stem, node)
    return found


def _self_attributes(tree: ast.AST) -> set[str]:
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"
    }


def test_the_core_makes_only_the_shared_state_and_the_configuration() -> None:
    core = next(n for n in _tree("core").body if isinstance(n, ast.ClassDef) and n.name == "ServiceCore")
    assert _init_assigned(core) == SHARED | CONFIGURATION | SERVICES


def test_every_part_state_is_listed_with_its_owner() -> None:
    owned = {name: stem for stem, node in _part_classes().values() for name in _init_assigned(node)}
    assert owned == OWNED
    assert set(_part_classes()) == {c.__name__ for c in TableService.__mro__[1:-3]}  # the mixins
    assert not set(OWNED) & (SHARED | CONFIGURATION | SERVICES)


def test_no_part_touches_another_part_state() -> None:
    for path in sorted(PARTS.glob("*.py")):
        touched = _self_attributes(ast.parse(path.read_text(encoding="utf-8")))
        foreign = {name for name in touched & set(OWNED) if OWNED[name] != path.stem}
        assert foreign == set(), path.name


def test_private_names_are_reached_through_self_only() -> None:
    """An owner object's private state (``Sweeper._due``, ``Outbox._going``...) is its own: no module of
    the service writes ``x._name`` for an ``x`` other than ``self`` (or ``cls``, ``super()``)."""
    reached: list[str] = []
    for path in sorted(PARTS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Attribute) or not node.attr.startswith("_"):
                continue
            if node.attr.startswith("__"):
                continue
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in {"self", "cls"}:
                continue
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                continue
            reached.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert reached == []


def _service(**options: Any) -> TableService:
    storage: Any = SimpleNamespace(lobbies=None, prefs=None, settings=None, games=None)
    return TableService(storage, clock=ManualClock(0), **options)


async def test_a_listener_failure_is_logged_and_the_service_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    """A surface is a listener of the service's bus (issue 48): what it raises is logged under its name,
    never the publisher's failure, and the next event is heard."""
    heard: list[int] = []

    def broken(event: LobbyClosed) -> None:
        heard.append(event.lobby_id)
        raise RuntimeError("boom")

    service = _service()
    service.bus.subscribe(LobbyClosed, broken, name="broken surface")
    lobby = Lobby(7, 1, 10, "skyjo", 1, None, {}, [], "cancelled", None, 2)
    with caplog.at_level(logging.ERROR, logger="bot.service"):
        service.bus.publish(LobbyClosed(lobby=lobby, how="expired"))
        service.bus.publish(LobbyClosed(lobby=lobby, how="expired"))
    assert [(r.getMessage(), getattr(r, "listener", None)) for r in caplog.records] == [
        ("event listener failed", "broken surface")
    ] * 2
    assert heard == [7, 7]
    await service.close()


async def test_the_sweeper_acts_on_what_is_due_forgets_what_it_is_told_and_retries_a_failure() -> None:
    clock = ManualClock(0)
    acted: list[tuple[str, int]] = []
    fail = {("game", 2)}

    async def act(key: tuple[str, int]) -> None:
        acted.append(key)
        if key in fail:
            fail.discard(key)
            raise RuntimeError("a busy database")

    sweeper = Sweeper(clock)
    sweeper.handle("game", lambda game_id: act(("game", game_id)))
    sweeper.handle("lobby", lambda lobby_id: act(("lobby", lobby_id)))
    sweeper.schedule(("game", 1), 1000)
    sweeper.schedule(("game", 2), 1000)
    sweeper.schedule(("lobby", 3), 1000)
    sweeper.forget(("lobby", 3))
    sweeper.schedule(("game", 1), 2000)  # later than before: the new deadline holds
    clock.advance(1.5)
    for _ in range(20):
        await asyncio.sleep(0)
    assert acted == [("game", 2)]
    assert dict(sweeper.due) == {("game", 1): 2000, ("game", 2): 1500 + FAILED_AGAIN_MS}
    clock.advance(0.5)
    for _ in range(20):
        await asyncio.sleep(0)
    assert acted == [("game", 2), ("game", 1)]
    tasks = sweeper.stop()
    sweeper.schedule(("game", 9), 0)  # stopped: nothing more
    assert ("game", 9) not in sweeper.due
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_close_stops_the_background_of_every_part() -> None:
    service = _service()
    service.sweeper.schedule(("lobby", 1), 10**12)  # starts the sweeper
    blocker = asyncio.Event()
    service.outbox.send((1, 2, 0, "turn"), blocker.wait)
    service._reload_later(SimpleNamespace())  # type: ignore[arg-type]  # starts the reloader
    service._run(blocker.wait())  # a tournament table's end being recorded (tournament_ends)
    await asyncio.sleep(0)
    running = service._stop_background()
    assert len(running) == 4 and not any(task.done() for task in running)
    await service.close()
    assert all(task.done() for task in running)
    assert not service.outbox.busy
    service.sweeper.schedule(("lobby", 2), 0)
    assert ("lobby", 2) not in service.sweeper.due


def test_the_needs_the_core_declares_are_its_abstract_methods() -> None:
    """What issue 48's spine replaced is no need any more (the writer, the sweeper, the turn clock, the
    events, the composition of the start); what is left goes with piece C2 (the organisers)."""
    left = {"_go_on", "_record", "_tournament_lock"}
    assert left == ServiceCore.__abstractmethods__
