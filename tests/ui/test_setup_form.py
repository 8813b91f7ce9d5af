"""The set-up form's modal (bot/ui/setup_form.py, issue 49) as Discord would take it, and its answer read
back: every page of every game, in English and French, showing any values a lobby may hold, is a modal
Discord's description and its docs' modal rules accept (the fake's own checks), and the MODAL_SUBMIT
the fake's user sends for it unchanged reads back as exactly the values it showed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games.base import Game
from bot.games.registry import GAMES
from bot.ui import setup_form
from fakecord.errors import FormErrors
from fakecord.modals import numbered_modal, submit_data, validate_modal
from fakecord.openapi import check_request
from tests.e2e.highcard import HIGHCARD
from tests.games.test_new_table import given_values

EVERY_GAME = [*GAMES, HIGHCARD]
CALLBACK = "/interactions/1/token/callback"


def no_pick(ctype: int, value: Any, resolved: dict[str, dict[str, Any]]) -> str:
    raise AssertionError("the form has no user, role or channel select")


@pytest.mark.parametrize("game", EVERY_GAME, ids=lambda g: g.name)
@settings(max_examples=25, deadline=None)
@given(data=st.data(), locale=st.sampled_from(["en-US", "fr"]))
async def test_every_page_is_a_modal_discord_takes_and_reads_back_what_it_shows(
    game: Game, data: st.DataObject, locale: str
) -> None:
    values = data.draw(given_values(game))
    for page, fields in enumerate(game.new.form):
        built = setup_form.form_modal(game, 12345, page, values, locale)
        assert built.is_finished(), "discord.py keeps no form: its submit comes through the router"
        modal = built.to_dict()
        assert modal["custom_id"] == f"sf:12345:{page}" and len(modal["components"]) <= 5
        assert check_request("POST", CALLBACK, {"type": 9, "data": modal}) == []
        errors = FormErrors()
        validate_modal(modal, errors)
        assert not errors, errors.tree
        shown = {o.name: values[o.name] for f in fields for o in f.options}
        submitted = submit_data(numbered_modal(modal), {}, no_pick)  # the user changes nothing
        read = setup_form.given(game, page, submitted)
        # A yes-or-no the lobby leaves to its default (None) shows unticked: read back as no.
        assert read == {
            name: False if value is None and name == "thread" else value for name, value in shown.items()
        }


def test_a_text_that_is_no_number_goes_to_the_service_as_it_is() -> None:
    """The service refuses it with the reason it gives a value out of range (the same check)."""
    skyjo = next(g for g in GAMES if g.name == "skyjo")
    values = skyjo.new.given(skyjo.new.table_options({"turn_limit": 120, "thread": False}))
    modal = numbered_modal(setup_form.form_modal(skyjo, 1, 0, values, "en-US").to_dict())
    for text, read in (("abc", "abc"), (" 25 ", 25), ("5", 5), ("1e3", "1e3")):
        submitted = submit_data(modal, {"score_limit": text}, no_pick)
        assert setup_form.given(skyjo, 0, submitted)["score_limit"] == read
