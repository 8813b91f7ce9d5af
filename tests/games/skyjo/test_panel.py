"""The Skyjo panel fits Discord's limits and offers exactly the legal moves, nothing hidden."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games.skyjo.engine import Options, State
from bot.games.skyjo.panel import (
    GAME_ACTS,
    MODE_DISCARD,
    MODE_MAIN,
    MODE_TAKE,
    action_for,
    panel_hint,
    panel_rows,
)
from bot.ui.ids import MAX_CUSTOM_ID, MAX_LABEL, MAX_PER_ROW, MAX_ROWS, decode, encode

from .helpers import advance


def _game(players: int, columns: int, rows: int, seed: int, steps: int) -> State:
    game = State.new(
        [f"p{i}" for i in range(players)], seed, Options(columns=columns, rows=rows, score_limit=60)
    )
    return advance(game, random.Random(seed), steps, random_seat=True)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 6),
    st.integers(2, 5),
    st.integers(2, 4),
    st.integers(0, 10_000),
    st.integers(0, 250),
)
def test_panel_offers_exactly_the_legal_moves_within_discord_limits(
    players: int, columns: int, rows: int, seed: int, steps: int
) -> None:
    game = _game(players, columns, rows, seed, steps)
    view = game.view(None)
    for seat in range(players):
        offered = set()
        for mode in (MODE_MAIN, MODE_TAKE, MODE_DISCARD):
            layout = panel_rows(game.view(seat), seat, game_id=123456789012345678, version=999_999, mode=mode)
            assert 1 <= len(layout) <= MAX_ROWS
            ids = [b.custom_id for row in layout for b in row]
            assert len(ids) == len(set(ids)), "custom_ids must be unique on a message"
            for row in layout:
                assert 1 <= len(row) <= MAX_PER_ROW
                for button in row:
                    assert len(button.custom_id) <= MAX_CUSTOM_ID
                    assert 0 < len(button.label) <= MAX_LABEL
                    parsed = decode(button.custom_id)
                    assert parsed is not None and parsed.version == 999_999
                    if not button.disabled and parsed.act in GAME_ACTS:
                        offered.add(action_for(parsed.act, parsed.arg))
            # Face-down cards are only ever backs.
            grid_labels = [b.label for row in layout[:-1] for b in row]
            hidden = [p for p, cell in enumerate(view["grids"][seat]) if cell == "down"]
            assert grid_labels.count("?") == len(hidden)
        assert offered == set(game.legal_actions(seat))


def test_forged_custom_ids_do_not_parse() -> None:
    assert decode(encode("sk", 1, 2, "tk", 5)) is not None
    for forged in [
        "",
        "sk:1:2:tk",
        "sk:x:2:tk:5",
        "xx:1:2:tk:5",
        "sk:1:2:TK:5",
        "sk:1:2:tk:5:6",
        "sk:" + "9" * 95,
    ]:
        assert decode(forged) is None


def test_hint_names_who_is_playing_and_speaks_french() -> None:
    game = _game(3, 4, 3, seed=3, steps=6)
    names = ["Alice", "Bob", "Chloé"]
    assert game.phase == "play" and game.turn is not None
    waiting = next(s for s in range(3) if s != game.turn)
    hint = panel_hint(game.view(waiting), waiting, names)
    assert names[game.turn] in hint and "playing" in hint
    assert "joue" in panel_hint(game.view(waiting), waiting, names, locale="fr")
