"""Skyjo as the shared table machinery sees it (the :class:`bot.games.base.Game` protocol)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bot import i18n
from bot.games.base import (
    JSON,
    CardFaces,
    DescribeEvents,
    Moves,
    Panel,
    Part,
    Picture,
    Policy,
    Rules,
    Suggestion,
    TableMessage,
    Words,
)
from bot.games.new_table import NewTable
from bot.games.skyjo import ai, engine
from bot.games.skyjo.options import NEW, OPTION_RANGES

STRINGS = Path(__file__).resolve().parent / "i18n"  # its catalogues: i18n/<language>/*.json
# Loaded with the game's code, so its words are there even where the registry is not imported (a
# test of one module of the game); the registry adds them too (a game's line there is enough).
i18n.add_folder(STRINGS)


class Skyjo:
    name = engine.KIND
    title = "Skyjo"
    prefix = "sk"
    engine = engine
    levels: Mapping[str, Policy] = ai.LEVELS
    min_players = engine.MIN_PLAYERS
    max_players = engine.MAX_PLAYERS
    option_ranges: Mapping[str, tuple[int, int]] = OPTION_RANGES
    new: NewTable = NEW  # /skyjo new as data (options.py)
    panel_button = "table.button.my_grid"
    lower_score_wins = True
    scored = True

    strings: Path | None = STRINGS
    # The Discord-facing parts are imported on first use: the engine-only tools never load them.
    panel: Part[Panel] = Part(f"{__package__}.panel")
    moves: Part[Moves] = Part(f"{__package__}.panel")  # the rules' side of the panel module
    message: Part[TableMessage] = Part(f"{__package__}.message")
    rules: Part[Rules] = Part(f"{__package__}.rules")
    image: Part[Picture] = Part(f"{__package__}.image")
    words: Part[Words] = Part(f"{__package__}.words", "words")
    suggestion: Part[Suggestion] = Part(f"{__package__}.panel", "suggestion")
    describe_events: Part[DescribeEvents] = Part(f"{__package__}.text", "describe_events")
    bench: Part[Callable[[], None]] = Part(f"{__package__}.bench", "run")
    card_faces: Part[CardFaces] = Part(f"{__package__}.faces", "card_faces")

    def stale_key(self, game: Any) -> tuple[Any, ...]:
        """The phase, round, turn and the drawn card (a drawn card changes what the grid's buttons mean)."""
        return (game.phase, game.round, game.turn, game.drawn)

    def opening_event(self, game: Any) -> JSON:
        return {"type": "round_started", "round": game.round, "discard_top": game.discard_pile[-1]}

    def stats_lines(self, stats: Mapping[str, float], rounds: int, locale: object) -> list[str]:
        """The columns cleared, summed over the player's rated games."""
        if "columns_cleared" not in stats:
            return []
        from bot.i18n import translate as t

        return [t("stats.counter.columns_cleared", locale, count=int(stats["columns_cleared"]))]

    def standing(self, game: Any) -> list[int]:
        """The totals of the rounds completed (the engine's ``standing``)."""
        return list(game.standing())

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
