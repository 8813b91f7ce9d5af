"""The game kinds the table knows, and what the shared table machinery needs from each.

The service, the presenter, timers, storage and the boards are written once; a game kind plugs in
through one :class:`GameKind`: its engine, its computer players, the custom_id prefix of its buttons,
and the modules that draw its private panel, its table text, its rules summary and its image. Those
modules are imported on first use, so the engine-only tools (simulator, terminal games) never load
the Discord-facing ones.

A panel module provides ``panel_rows(view, seat, game_id, version, mode, locale)``,
``panel_hint(view, seat, names, mode, locale)``, ``action_for(act, arg)`` and ``MODES`` (the panel
modes a custom_id may carry). A table module provides ``table_body(...)``, ``option_lines(options,
locale)`` and ``turn_mention(user_id, locale)`` like :mod:`bot.render.skyjo_table`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from bot.ai import skipbo as skipbo_ai
from bot.ai import skyjo as skyjo_ai
from bot.engine import skipbo, skyjo


@dataclass(frozen=True)
class GameKind:
    name: str  # "skyjo": the engine's KIND, stored with each game and lobby
    title: str  # "Skyjo": the game's name as players write it (the same in every language)
    prefix: str  # the custom_id prefix of its in-game buttons
    engine: ModuleType
    levels: Mapping[str, Callable[[Any, Any], Any]]  # computer player level -> policy(view, rng)
    panel_path: str
    table_path: str
    rules_path: str
    image_path: str | None = None
    default_options: Mapping[str, Any] | None = None

    @property
    def min_players(self) -> int:
        return int(self.engine.MIN_PLAYERS)

    @property
    def max_players(self) -> int:
        return int(self.engine.MAX_PLAYERS)

    @property
    def panel(self) -> ModuleType:
        return importlib.import_module(self.panel_path)

    @property
    def table(self) -> ModuleType:
        return importlib.import_module(self.table_path)

    @property
    def rules(self) -> ModuleType:
        return importlib.import_module(self.rules_path)

    @property
    def image(self) -> ModuleType | None:
        return importlib.import_module(self.image_path) if self.image_path else None

    def stale_key(self, game: Any) -> tuple[Any, ...]:
        """What, when it changes, makes every open panel of this game out of date.

        Skyjo: the phase, round, turn and the drawn card (a drawn card changes what the grid's
        buttons mean). Skip-Bo: the phase, round and turn (a play by the player whose turn it is
        changes only their own panel, which their own click marks stale anyway).
        """
        return (game.phase, game.round, game.turn, getattr(game, "drawn", None))

    def opening_event(self, game: Any) -> dict[str, Any]:
        """The first line of a new table's recent events."""
        event: dict[str, Any] = {"kind": "round_started", "round": game.round}
        if self.name == "skyjo":
            event["discard_top"] = game.discard_pile[-1]
        return event


KINDS: dict[str, GameKind] = {
    "skyjo": GameKind(
        name="skyjo",
        title="Skyjo",
        prefix="sk",
        engine=skyjo,
        levels=skyjo_ai.LEVELS,
        panel_path="bot.ui.skyjo_panel",
        table_path="bot.render.skyjo_table",
        rules_path="bot.render.skyjo_rules",
        image_path="bot.render.skyjo_image",
    ),
    "skipbo": GameKind(
        name="skipbo",
        title="Skip-Bo",
        prefix="sb",
        engine=skipbo,
        levels=skipbo_ai.LEVELS,
        panel_path="bot.ui.skipbo_panel",
        table_path="bot.render.skipbo_table",
        rules_path="bot.render.skipbo_rules",
        image_path="bot.render.skipbo_image",
    ),
}
BY_PREFIX: dict[str, GameKind] = {k.prefix: k for k in KINDS.values()}
AI_LEVELS = ("easy", "normal", "hard")  # every kind has these three


def get_kind(name: str) -> GameKind | None:
    return KINDS.get(name)
