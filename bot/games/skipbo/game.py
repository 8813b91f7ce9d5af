"""Skip-Bo as the shared table machinery sees it (the :class:`bot.games.base.Game` protocol)."""

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
from bot.games.skipbo import ai, engine
from bot.games.skipbo.options import NEW, OPTION_RANGES

STRINGS = Path(__file__).resolve().parent / "i18n"  # its catalogues: i18n/<language>/*.json
# Loaded with the game's code, so its words are there even where the registry is not imported (a
# test of one module of the game); the registry adds them too (a game's line there is enough).
i18n.add_folder(STRINGS)

STOCK_LEFT = "stock_left"  # the rated stats' counter: the cards left in a seat's stock, summed over rounds


class SkipBo:
    name = engine.KIND
    title = "Skip-Bo"
    prefix = "sb"
    engine = engine
    levels: Mapping[str, Policy] = ai.LEVELS
    min_players = engine.MIN_PLAYERS
    max_players = engine.MAX_PLAYERS
    option_ranges: Mapping[str, tuple[int, int]] = OPTION_RANGES
    new: NewTable = NEW  # /skipbo new as data (options.py)
    panel_button = "table.button.my_hand"
    lower_score_wins = False
    # A Skip-Bo game is most often one round, scored 0 for everybody (points exist only with several
    # rounds): "best 0, mean 0.0" would say nothing, so its card shows the stock cards left instead.
    scored = False

    strings: Path | None = STRINGS
    # The Discord-facing parts are imported on first use: the engine-only tools never load them.
    panel: Part[Panel] = Part(f"{__package__}.panel")
    moves: Part[Moves] = Part(f"{__package__}.panel")  # the rules' side of the panel module
    message: Part[TableMessage] = Part(f"{__package__}.message")
    rules: Part[Rules] = Part(f"{__package__}.rules")
    image: Part[Picture] = Part(f"{__package__}.image")
    words: Part[Words] = Part(f"{__package__}.words", "words")
    suggestion: Part[Suggestion] = Part(f"{__package__}.panel", "suggestion")
    describe_events: Part[DescribeEvents] = Part(f"{__package__}.message", "describe_events")
    bench: Part[Callable[[], None]] = Part(f"{__package__}.bench", "run")
    card_faces: Part[CardFaces] = Part(f"{__package__}.faces", "card_faces")

    def stale_key(self, game: Any) -> tuple[Any, ...]:
        """The phase, round and turn (a play by the player whose turn it is changes only their own
        panel, which their own click marks stale anyway)."""
        return (game.phase, game.round, game.turn, None)

    def opening_event(self, game: Any) -> JSON:
        return {"type": "round_started", "round": game.round}

    def stats_lines(self, stats: Mapping[str, float], rounds: int, locale: object) -> list[str]:
        """The stock cards left at the end of a round, on average (a Skip-Bo game is most often one
        round, scored 0 for everybody, so its scores say nothing)."""
        if STOCK_LEFT not in stats or not rounds:
            return []
        from bot.i18n import translate as t
        from bot.render.numbers import number

        return [t("stats.skipbo.stock_left", locale, mean=number(int(stats[STOCK_LEFT]) / rounds, locale))]

    def standing(self, game: Any) -> list[int]:
        """The cards left in the stocks, after the totals with several rounds (the engine's ``standing``)."""
        return list(game.standing())

    def sides(self, options: Mapping[str, Any], players: int) -> list[int] | None:
        """SB-VAR-TEAM-1: with the teams option, partners are one side (a team wins or loses whole)."""
        return engine.team_numbers(bool(options.get("teams")), players)

    def play(self, args: list[str]) -> int:
        from bot.games.skipbo import play

        return int(play.main(args) or 0)

    def simulate(self, args: list[str]) -> int:
        from bot.games.skipbo import sim

        return int(sim.main(args) or 0)


SKIPBO = SkipBo()
