"""A replay button's id (issue 47 item 10): the two new letters pass the forgery check, and so do the
five of replays posted before (their buttons must keep working after a deploy); nothing else does."""

from __future__ import annotations

import pytest

from bot.ui import replay


@pytest.mark.parametrize("letter", list("pnerg"))
def test_the_ids_of_replays_posted_before_still_work(letter: str) -> None:
    assert replay.parse_button(f"rpl:12:3:{letter}") == (12, 3)


@pytest.mark.parametrize("letter", ["s", "b"])
def test_start_and_previous_round_ids_are_accepted(letter: str) -> None:
    assert replay.parse_button(replay.button_id(12, 0, letter)) == (12, 0)


@pytest.mark.parametrize("custom_id", ["rpl:12:3:z", "rpl:12:3:S", "rpl:12:3:sb", "rpl:12:3:", "rpl:12:3:bb"])
def test_any_other_letter_is_forged(custom_id: str) -> None:
    assert replay.parse_button(custom_id) is None
