"""Each game's ``new`` as data (``bot/games/new_table.py``, issue 48): its declaration agrees with its
engine and with what the table service checks, and ``table_options`` turns what a player gave into
the table's options as the hand-written commands did (the commands Discord receives are compared byte
for byte by ``python -m bot sync --dry-run``; tests/e2e/test_option_ranges.py checks every value)."""

from __future__ import annotations

import pytest

from bot.games.base import Game
from bot.games.new_table import SHARED, Choice, NewTable, TableOption
from bot.games.registry import AI_LEVELS, GAMES
from bot.service import TURN_LIMITS
from tests.e2e.highcard import HIGHCARD

EVERY_GAME = [*GAMES, HIGHCARD]


@pytest.mark.parametrize("game", EVERY_GAME, ids=lambda g: g.name)
def test_the_declaration_is_the_engines_and_the_services(game: Game) -> None:
    new = game.new
    defaults = game.engine.Options()
    for option in new.options:
        assert hasattr(defaults, option.name), f"{game.name}: {option.name} is no engine option"
        if option.default is not None:
            assert getattr(defaults, option.name) == option.default, option.name
        assert option.name_key.startswith(f"cmd.{game.name}.new.opt.")
        assert option.description_key.startswith(f"cmd.{game.name}.new.")
    # One source for the bounds: what the service checks is what Discord is told.
    assert dict(game.option_ranges) == new.ranges
    declared = {o.name: o for o in new.declared}
    assert [o.name for o in new.declared][: len(new.options)] == [o.name for o in new.options]
    if "computers" in declared:
        assert declared["computers"].bounds == (0, game.max_players - 1)
    # The shared lists are the service's and the registry's, no more, no less.
    if "level" in declared:
        assert tuple(c.value for c in declared["level"].choices) == AI_LEVELS
    if "turn_limit" in declared:
        assert tuple(c.value for c in declared["turn_limit"].choices) == tuple(TURN_LIMITS)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_nothing_given_opens_the_official_table(game: Game) -> None:
    asked = game.new.table_options({})
    assert game.engine.Options(**asked.options) == game.engine.Options()
    assert (asked.computers, asked.level, asked.turn_limit, asked.thread) == (0, "normal", None, None)


def test_skipbo_leaves_the_stock_to_the_engine_unless_given() -> None:
    skipbo = next(g for g in GAMES if g.name == "skipbo")
    assert "stock_size" not in skipbo.new.table_options({"teams": True}).options
    given = {"stock_size": 10, "teams": True, "computers": 3, "turn_limit": 30, "thread": True}
    asked = skipbo.new.table_options(given)
    assert asked.options == {"stock_size": 10, "teams": True, "several_rounds": False}
    assert (asked.computers, asked.level, asked.turn_limit, asked.thread) == (3, "normal", 30, True)


def test_a_game_fixes_the_shared_options_it_does_not_offer() -> None:
    """The third game offers the computer players only: their level and the turn limit are its own,
    whatever a forged interaction sends; the thread is the server's setting."""
    asked = HIGHCARD.new.table_options({"computers": 1, "level": "hard", "turn_limit": 30, "rows": 9})
    assert (asked.options, asked.computers, asked.level, asked.turn_limit, asked.thread) == (
        {},
        1,
        "normal",
        0,
        None,
    )
    assert [o.name for o in HIGHCARD.new.declared] == ["computers"]


def test_a_declaration_that_cannot_be_a_command_is_refused() -> None:
    with pytest.raises(TypeError):
        TableOption("columns", float, 4.0, "Columns", "k", "k")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        TableOption("teams", bool, False, "Teams", "k", "k", bounds=(0, 1))
    with pytest.raises(TypeError):
        TableOption("edition", str, "classic", "Edition", "k", "k", choices=(Choice(1, "one", "k"),))
    with pytest.raises(ValueError):
        NewTable(4, (TableOption("computers", int, 0, "Computers", "k", "k"),))
    with pytest.raises(ValueError):
        NewTable(4, shared=("computers",), fixed={"computers": 2})
    with pytest.raises(ValueError):
        NewTable(4, shared=("colour",))
    assert set(SHARED) == {"computers", "level", "turn_limit", "thread"}
