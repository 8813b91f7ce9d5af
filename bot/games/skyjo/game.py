"""Skyjo as the shared table machinery sees it (the :class:`bot.games.base.Game` protocol)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.games.base import JSON, Panel, Picture, Policy, Rules, TableText
from bot.games.skyjo import ai, engine


class Skyjo:
    name = engine.KIND
    title = "Skyjo"
    prefix = "sk"
    engine = engine
    levels: Mapping[str, Policy] = ai.LEVELS
    min_players = engine.MIN_PLAYERS
    max_players = engine.MAX_PLAYERS
    default_options: Mapping[str, Any] | None = None
    # The engine takes wider settings (terminal games, simulations); a table offers these.
    # Every grid the engine deals fits the private panel (one button row per grid row, at most 5
    # buttons each, and a row of actions: Discord's 5 x 5). The reveals: as many as the default grid
    # allows (one card stays face down); a smaller grid refuses more (Options.validate, one reason).
    option_ranges: Mapping[str, tuple[int, int]] = {
        "score_limit": (10, 1000),
        "finisher_multiplier": (1, 5),
        "columns": (2, engine.MAX_COLUMNS),
        "rows": (2, engine.MAX_ROWS),
        "initial_reveals": (0, engine.Options().columns * engine.Options().rows - 1),
    }
    editions: tuple[str, ...] = tuple(engine.EDITIONS)  # the choices of /skyjo new's edition
    panel_button = "table.button.my_grid"
    lower_score_wins = True
    scored = True

    # The Discord-facing parts are imported on first use: the engine-only tools never load them.
    @property
    def panel(self) -> Panel:
        from bot.games.skyjo import panel

        return panel

    @property
    def table(self) -> TableText:
        from bot.games.skyjo import table

        return table

    @property
    def rules(self) -> Rules:
        from bot.games.skyjo import rules

        return rules

    @property
    def image(self) -> Picture:
        from bot.games.skyjo import image

        return image

    def stale_key(self, game: Any) -> tuple[Any, ...]:
        """The phase, round, turn and the drawn card (a drawn card changes what the grid's buttons mean)."""
        return (game.phase, game.round, game.turn, game.drawn)

    def opening_event(self, game: Any) -> JSON:
        return {"kind": "round_started", "round": game.round, "discard_top": game.discard_pile[-1]}

    def stats_lines(self, stats: Mapping[str, float], rounds: int, locale: object) -> list[str]:
        """The columns cleared, summed over the player's rated games."""
        if "columns_cleared" not in stats:
            return []
        from bot.i18n import translate as t

        return [t("stats.counter.columns_cleared", locale, count=int(stats["columns_cleared"]))]

    def sides(self, options: Mapping[str, Any], players: int) -> list[int] | None:
        """Every player for themself."""
        return None

    def play(self, args: list[str]) -> int:
        from bot.games.skyjo import play

        return int(play.main(args) or 0)

    def simulate(self, args: list[str]) -> int:
        from bot.games.skyjo import sim

        return int(sim.main(args) or 0)


SKYJO = Skyjo()
