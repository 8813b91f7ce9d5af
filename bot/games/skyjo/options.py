"""The integer options a Skyjo table offers, with their bounds: ``SKYJO.option_ranges``, which the table
service checks and ``/skyjo new`` declares to Discord (tests/e2e/test_option_ranges.py). Pure data."""

from __future__ import annotations

from collections.abc import Mapping

from bot.games.skyjo import engine

# The engine takes wider settings (terminal games, simulations); a table offers these.
# Every grid the engine deals fits the private panel (one button row per grid row, at most 5
# buttons each, and a row of actions: Discord's 5 x 5). The reveals: as many as the default grid
# allows (one card stays face down); a smaller grid refuses more (Options.validate, one reason).
OPTION_RANGES: Mapping[str, tuple[int, int]] = {
    "score_limit": (10, 1000),
    "finisher_multiplier": (1, 5),
    "columns": (2, engine.MAX_COLUMNS),
    "rows": (2, engine.MAX_ROWS),
    "initial_reveals": (0, engine.Options().columns * engine.Options().rows - 1),
}
