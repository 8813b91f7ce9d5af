"""Each game's ``new`` as data (``bot/games/new_table.py``, issue 48): its declaration agrees with its
engine and with what the table service checks, and ``table_options`` turns what a player gave into
the table's options as the hand-written commands did (the commands Discord receives are compared byte
for byte by ``python -m bot sync --dry-run``; tests/e2e/test_option_ranges.py checks every value)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games.base import Game
from bot.games.new_table import MAX_FORM_FIELDS, SHARED, Choice, NewTable, TableOption
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


# ---------------------------------------------------------------------------------- the set-up form


def declared_value(option: TableOption) -> st.SearchStrategy[Any]:
    """Any value the declaration offers for ``option`` (what a player may give ``/<game> new``)."""
    if option.choices:
        return st.sampled_from([c.value for c in option.choices])
    if option.bounds is not None:
        return st.integers(*option.bounds)
    return st.booleans() if option.type is bool else st.text(min_size=1, max_size=5)


def given_values(game: Game) -> st.SearchStrategy[dict[str, Any]]:
    """A whole ``given``: every offered option, each with a declared value (or None when its default
    is "not given", as a lobby's own turn limit and thread never are)."""
    strategies = {}
    for option in game.new.declared:
        value = declared_value(option)
        strategies[option.name] = (
            value if option.default is not None or option.name in SHARED else (st.none() | value)
        )
    return st.fixed_dictionaries(strategies)


@pytest.mark.parametrize("game", EVERY_GAME, ids=lambda g: g.name)
def test_the_form_holds_every_option_once_in_modals_discord_takes(game: Game) -> None:
    """Issue 49: a modal holds at most 5 components; the form drops no option and shows none twice;
    a game whose options fit one modal has one page."""
    pages = game.new.form
    shown = [o.name for page in pages for f in page for o in f.options]
    assert sorted(shown) == sorted(o.name for o in game.new.declared)
    assert all(1 <= len(page) <= MAX_FORM_FIELDS for page in pages)
    assert len(pages) <= 2  # Set up… and More options…
    for page in pages:  # the yes-or-no options of a page share one component, the others one each
        assert sum(1 for f in page if f.switches) <= 1
        assert all(len(f.options) == 1 for f in page if not f.switches)


def test_the_common_options_come_first() -> None:
    skyjo = next(g for g in GAMES if g.name == "skyjo")
    first, more = ([o.name for f in page for o in f.options] for page in skyjo.new.form)
    assert first == ["edition", "score_limit", "computers", "level", "turn_limit"]
    assert set(more) == {o.name for o in skyjo.new.declared} - set(first)
    skipbo = next(g for g in GAMES if g.name == "skipbo")
    assert len(skipbo.new.form) == 1  # its seven options fit one modal (three yes-or-no in one group)


@pytest.mark.parametrize("game", EVERY_GAME, ids=lambda g: g.name)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_what_a_lobby_holds_reads_back_as_what_was_given(game: Game, data: st.DataObject) -> None:
    """``given`` is the inverse of ``table_options``: the form shows a lobby's values as the slash
    options that would open it."""
    wanted = data.draw(given_values(game))
    assert game.new.given(game.new.table_options(wanted)) == wanted


def test_a_form_that_cannot_be_shown_is_refused_when_declared() -> None:
    switch = [TableOption(f"s{i}", bool, False, "S", "k", "k") for i in range(3)]
    numbers = [TableOption(f"n{i}", int, 1, "N", "k", "k", bounds=(1, 9)) for i in range(6)]
    with pytest.raises(ValueError, match="components"):
        NewTable(4, (*numbers, *switch))  # ten components, no first page named
    with pytest.raises(ValueError, match="not offered"):
        NewTable(4, tuple(numbers), form_first=("colour",))
    with pytest.raises(ValueError, match="components"):
        NewTable(4, (*numbers, *switch), form_first=("n0",))  # the rest still does not fit
    fits = NewTable(4, (*numbers, *switch), form_first=("n0", "n1", "n2", "n3", "computers"))
    assert [len(page) for page in fits.form] == [5, 5]
