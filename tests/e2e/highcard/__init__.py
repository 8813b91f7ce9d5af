"""A third game, test-only ("highest card wins"): a new game needs only its folder and its registry line.
``HIGHCARD`` implements :class:`bot.games.base.Game`, its ``/highcard new`` included (``new``, as data:
the computer players only); ``registry.register(HIGHCARD)`` is all a test does to play it."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bot.games.base import (
    CardFaces,
    DescribeEvents,
    Game,
    Moves,
    Panel,
    Picture,
    Policy,
    Rules,
    Suggestion,
    TableMessage,
    Words,
)
from bot.games.new_table import COMPUTERS, NewTable

from . import engine, parts


def _show(view: dict[str, Any], rng: random.Random) -> Any:
    return engine.Show()


class HighCard:
    name, title, prefix = engine.KIND, "Highest card", "hc"
    engine = engine
    levels: Mapping[str, Policy] = {"easy": _show, "normal": _show, "hard": _show}
    min_players, max_players = engine.MIN_PLAYERS, engine.MAX_PLAYERS
    option_ranges: Mapping[str, tuple[int, int]] = {}
    panel_button = "table.button.my_hand"
    lower_score_wins, scored = False, False
    panel: Panel = parts
    moves: Moves = parts
    message: TableMessage = parts
    rules: Rules = parts
    image: Picture | None = None
    # /highcard new: the computer players only (its words: i18n/<language>/highcard.json); they play
    # at the normal level, with no turn limit, in the channel or a thread as the server says.
    new = NewTable(engine.MAX_PLAYERS, shared=(COMPUTERS,), fixed={"level": "normal", "turn_limit": 0})
    strings: Path | None = Path(__file__).resolve().parent / "i18n"  # its commands' words; the rest: English
    words: Words | None = None
    suggestion: Suggestion | None = None
    describe_events: DescribeEvents | None = None
    bench: Callable[[], None] | None = None
    card_faces: CardFaces | None = None

    def stale_key(self, game: Any) -> tuple[Any, ...]:
        return (game.phase, game.turn)

    def opening_event(self, game: Any) -> dict[str, Any]:
        return {"type": "round_started", "round": 1}

    def stats_lines(self, stats: Mapping[str, float], rounds: int, locale: object) -> list[str]:
        return []

    def standing(self, game: Any) -> list[int]:
        return game.ranks() if game.is_over else [1] * len(game.players)  # the cards unshown decide nothing

    def sides(self, options: Mapping[str, Any], players: int) -> list[int] | None:
        return None

    def play(self, args: list[str]) -> int:
        return 2  # no terminal game: a table is all this test needs

    def simulate(self, args: list[str]) -> int:
        return 2


HIGHCARD: Game = HighCard()
