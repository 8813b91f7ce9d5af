"""The last words of a private panel (issue 22): how the game ended for its seat, in both languages."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.games.skipbo import engine as skipbo
from bot.games.skyjo import engine as skyjo
from bot.service import Table
from bot.storage import Seat, StoredGame
from bot.storage.game_types import canonical_json
from bot.ui.views import final_panel_content
from tests.games.skipbo.test_engine import _stalled_table


def _table(kind: str, game: Any, names: list[str], status: str = "finished") -> Table:
    seats = tuple(Seat(i, name, user_id=100 + i) for i, name in enumerate(names))
    stored = StoredGame(
        id=1, guild_id=1, channel_id=1, kind=kind, seed=1, options={}, seats=seats, status=status,
        rated=True, host_id=100, message_id=None, version=1, meta={}, note=None, created_at=0,
        updated_at=0, finished_at=0, state=game, snapshot=canonical_json(game.to_dict()),
    )  # fmt: skip
    return Table(stored, [1] * len(seats))


def _finished_skyjo(seed: int) -> Any:
    game = skyjo.new_game(["a", "b", "c"], seed=seed, options=skyjo.Options(score_limit=10))
    rng = random.Random(seed)
    while not game.is_over:
        seat = game.seats_to_act()[0]
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    return game


@pytest.mark.parametrize("seed", range(8))
def test_each_seat_reads_who_won_and_its_own_place(seed: int) -> None:
    game = _finished_skyjo(seed)
    table = _table("skyjo", game, ["Ann", "@everyone", "Zoé"])
    results = game.results()
    for seat in range(3):
        text = final_panel_content(table, seat, "en-US")
        assert text.startswith("**Skyjo: the game is over**")
        assert "Won by " in text
        if seat in results["winners"]:
            assert "You won!" in text and "You finished" not in text
        else:
            rank = results["ranks"][seat]
            assert f"You finished {rank}{'nd' if rank == 2 else 'rd'} of 3." in text
        assert "@everyone" not in text.replace("\\@everyone", "")  # the name is escaped
    french = final_panel_content(table, 0, "fr")
    assert french.startswith("**Skyjo : la partie est finie**") and "Victoire de " in french


def test_a_stalled_skipbo_game_is_a_draw_for_everyone() -> None:
    """SB-STALL-1: every seat ranks first, but nobody won: no seat reads "You won"."""
    game = _stalled_table()
    for seat, card in ((0, 9), (1, 10), (2, 10)):
        game.apply(seat, skipbo.Discard(card, 0))
    assert game.is_over and game.results()["ranks"] == [1, 1, 1]
    table = _table("skipbo", game, ["Ann", "Bob", "Cid"])
    for seat in range(3):
        text = final_panel_content(table, seat, "en-US")
        assert "the game is a draw" in text and "You won" not in text and "Won by" not in text
    assert "la partie est nulle" in final_panel_content(table, 0, "fr")


def test_a_game_ended_by_hand_says_so() -> None:
    table = _table("skyjo", _finished_skyjo(1), ["Ann", "Bob", "Cid"], status="cancelled")
    text = final_panel_content(table, 1, "en-US")
    assert "stopped early" in text and "Won by" not in text
    # Who stopped it, when known (/skyjo end): tests/e2e/test_refusals.py plays it.
    table.ended_by = 42
    text = final_panel_content(table, 1, "en-US")
    assert "stopped early by <@42> (/skyjo end)" in text and "Won by" not in text
