"""SKY-PLAYERS-1's editions and the grid and reveal options as the engine checks them (issue 28, item 1)."""

from __future__ import annotations

import pytest

from bot.engine.errors import InvalidOptions
from bot.games.base import seat_limit
from bot.games.skipbo import SKIPBO
from bot.games.skyjo import SKYJO
from bot.games.skyjo.engine import EDITIONS, Options, State


def test_sky_players_1_voyage_seats_2_to_4() -> None:
    """SKY-PLAYERS-1: the Voyage edition (seed 002) is the same game for 2 to 4 players."""
    assert EDITIONS == {"classic": 8, "voyage": 4}
    voyage = Options(edition="voyage")
    assert State.new(["a", "b", "c", "d"], 1, voyage).options.edition == "voyage"
    with pytest.raises(InvalidOptions) as refused:
        State.new(["a", "b", "c", "d", "e"], 1, voyage)
    assert refused.value.key == "skyjo.error.edition_players.voyage"
    assert refused.value.params == {"min": 2, "max": 4}
    assert len(State.new([f"p{i}" for i in range(8)], 1, Options()).players) == 8


def test_an_unknown_edition_is_refused() -> None:
    for edition in ("deluxe", "", 3, None):
        with pytest.raises(InvalidOptions) as refused:
            Options(edition=edition).validate(2)  # type: ignore[arg-type]
        assert refused.value.key == "skyjo.error.edition"


def test_options_stored_before_the_edition_read_as_classic() -> None:
    stored = {k: v for k, v in Options(columns=3).to_dict().items() if k != "edition"}
    assert Options.from_dict(stored) == Options(columns=3, edition="classic")
    assert Options.from_dict(Options(edition="voyage").to_dict()).edition == "voyage"


def test_sky_setup_3_reveals_never_the_whole_grid() -> None:
    Options(columns=2, rows=2, initial_reveals=3).validate(2)
    with pytest.raises(InvalidOptions) as refused:
        Options(columns=2, rows=2, initial_reveals=4).validate(2)
    assert refused.value.key == "skyjo.error.reveals"
    assert refused.value.params == {"count": 4, "columns": 2, "rows": 2, "max": 3}


def test_a_large_grid_seats_fewer_players() -> None:
    """Every grid dealt, a discard and a card to draw: a 5 x 4 grid leaves cards for 7 players."""
    Options(columns=5, rows=4).validate(7)
    with pytest.raises(InvalidOptions) as refused:
        Options(columns=5, rows=4).validate(8)
    assert refused.value.key == "skyjo.error.grid_players" and refused.value.params["max"] == 7


def test_seat_limit_asks_the_engine() -> None:
    assert seat_limit(SKYJO, Options().to_dict()) == (8, None)
    limit, why = seat_limit(SKYJO, {**Options(edition="voyage").to_dict(), "turn_limit": 120})
    assert limit == 4 and why.key == "skyjo.error.edition_players.voyage"
    limit, why = seat_limit(SKYJO, Options(columns=5, rows=4).to_dict())
    assert limit == 7 and why.key == "skyjo.error.grid_players"
    # Skip-Bo teams need 4 or 6: a lobby of 5 still has a seat for the 6th.
    assert seat_limit(SKIPBO, SKIPBO.engine.Options(teams=True).to_dict()) == (6, None)
