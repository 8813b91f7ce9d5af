"""The tournament messages' words (bot/ui/tournament_texts.py): within Discord's 4,000 characters of a
Components V2 message for the biggest tournament, names escaped, a bye and a dropped player said, in
English and French; and their look, the table's: one Components V2 container within Discord's limits."""

from __future__ import annotations

import dataclasses
import re

from bot.render import messages
from bot.service.tournament_view import BY_HAND, LOST, PLAYED, TournamentView, records, still_in
from bot.storage.tournaments import (
    BYE,
    ENDED,
    PLAYING,
    RUNNING,
    SIGNUP,
    Tournament,
    TournamentPlayer,
    TournamentTable,
)
from bot.tournament import pairing
from bot.ui.tournaments import (
    BRACKET_FILE,
    COLOUR_WON,
    button_id,
    final_layout,
    final_text,
    private_standings,
    signup_layout,
    signup_text,
    standings_layout,
    standings_text,
)


def _view(count: int, *, status: str = RUNNING, name: str = "Player") -> TournamentView:
    held = Tournament(
        id=1, guild_id=1, channel_id=5, organiser_id=99, kind="skyjo", format="swiss", seats=2, rounds=3,
        turn_limit=None, starts_at=None, seed=4, rated=True, computers=False, status=status, round=1,
        signup_message_id=None, standings_message_id=None, final_message_id=None, winner_id=1, version=3,
    )  # fmt: skip
    players = [
        TournamentPlayer(i, f"{name} {i} *bold* @everyone", i, 1 if i == 2 else None)
        for i in range(1, count + 1)
    ]
    tables = [
        TournamentTable(1, 1, n, (2 * n - 1, 2 * n), 700 + n, 10 + n, ((2 * n - 1, 1), (2 * n, 2)), ENDED)
        for n in range(1, count // 2 + 1)
    ]
    if count % 2:
        tables.append(TournamentTable(1, 1, count // 2 + 1, (count,), None, None, None, BYE))
    tables[0] = TournamentTable(1, 1, 1, (1, 2), 701, 11, None, PLAYING)
    lines = pairing.standings([p.user_id for p in players], records(tables), held.seed)
    return TournamentView(held, players, tables, lines, still_in(held, players, tables))


def test_the_biggest_tournament_fits_a_message() -> None:
    view = _view(pairing.MAX_PLAYERS, name="A rather long display name")
    for locale in ("en-US", "fr"):
        for text in (signup_text(view, locale), standings_text(view, locale), final_text(view, locale)):
            assert 0 < len(text) <= messages.MAX_LAYOUT_TEXT - len("## ")


def test_the_standings_say_the_tables_the_bye_and_the_dropped() -> None:
    view = _view(5)
    text = standings_text(view, "en-US")
    assert "**Standings**, round 1 of 3" in text
    assert "Table 1: Player 1 \\*bold\\* \\@everyone, Player 2 \\*bold\\* \\@everyone, in <#701>" in text
    assert "Bye this round: Player 5 \\*bold\\* \\@everyone (2 points, as a win)" in text
    assert "(dropped)" in text and "@everyone" not in text.replace("\\@everyone", "")
    french = standings_text(view, "fr")
    assert "Au repos cette ronde : Player 5" in french and "(hors tournoi)" in french
    assert "manche" not in french  # a tournament's rounds are "rondes", a Skyjo round a "manche"
    assert "Classement" in french


def test_the_messages_have_the_tables_look_one_v2_container() -> None:
    """Each message is one container: its first line the heading, the rest under it, a knockout's
    bracket in a gallery, the sign-up's buttons inside, the accent saying the state; within Discord's
    40 components and 4,000 characters for the biggest tournament."""
    signing_up = _view(3, status=SIGNUP)
    (box,) = signup_layout(signing_up, "en-US").to_components()
    assert box["type"] == messages.CONTAINER and box["accent_color"] == messages.COLOUR_LOBBY
    heading, *_ = [c["content"] for c in box["components"] if c["type"] == messages.TEXT_DISPLAY]
    assert heading.startswith("## 🏆 Skyjo tournament\nSwiss, tables of up to 2, rounds: 3\n")
    ids = [c["custom_id"] for c in messages.walk([box]) if c.get("custom_id")]
    assert ids == [button_id(1, "join"), button_id(1, "leave"), button_id(1, "start")]
    (box,) = standings_layout(_view(5), "fr", picture=BRACKET_FILE).to_components()
    assert box["accent_color"] == messages.COLOUR_PLAYING
    gallery = [c for c in box["components"] if c["type"] == messages.MEDIA_GALLERY]
    assert gallery == [messages.media_gallery(f"attachment://{BRACKET_FILE}")]
    said = "\n".join(c["content"] for c in messages.walk([box]) if c["type"] == messages.TEXT_DISPLAY)
    assert "**Classement**" in said and "Au repos cette ronde : Player 5" in said
    (box,) = final_layout(_view(4), "en-US").to_components()
    assert box["accent_color"] == COLOUR_WON and "Winner" in box["components"][0]["content"]
    biggest = _view(pairing.MAX_PLAYERS, name="A rather long display name")
    for layout in (
        signup_layout(biggest, "fr"),
        standings_layout(biggest, "fr"),
        final_layout(biggest, "fr"),
    ):
        components = layout.to_components()
        assert len(list(messages.walk(components))) <= messages.MAX_LAYOUT_COMPONENTS
        assert messages.layout_text_size(components) <= messages.MAX_LAYOUT_TEXT


def test_a_sign_up_too_long_counts_the_names_it_leaves_out() -> None:
    view = _view(pairing.MAX_PLAYERS, name="N" * 90)
    for locale, more in (("en-US", "… and {} more"), ("fr", "… et {} de plus")):
        text = signup_text(view, locale)
        shown = text.count("N" * 90)
        assert 0 < shown < pairing.MAX_PLAYERS and len(text) <= messages.MAX_LAYOUT_TEXT - len("## ")
        assert more.format(pairing.MAX_PLAYERS - 1 - shown) in text  # one of them was dropped


def test_the_private_standings_hold_every_line_in_parts_within_the_budget() -> None:
    view = _view(pairing.MAX_PLAYERS, name="A rather long display name with ___ to escape")
    parts = private_standings(view, "en-US", 7)
    assert len(parts) > 1 and all(len(part) <= messages.MAX_LAYOUT_TEXT - len("## ") for part in parts)
    lines = [line for part in parts for line in part.splitlines() if re.match(r"^\**\d+\. ", line)]
    assert len(lines) == pairing.MAX_PLAYERS
    assert [line for line in lines if line.startswith("**")] == [
        line
        for line in lines
        if re.match(r"^\*\*\d+\. A rather long display name with \\_\\_\\_ to escape 7 ", line)
    ]


def test_the_final_says_how_tables_ended_and_lists_only_replayable_games() -> None:
    played, by_hand, lost = _view(8).tables[1:4]
    view = dataclasses.replace(
        _view(8), endings={played.game_id: PLAYED, by_hand.game_id: BY_HAND, lost.game_id: LOST}
    )
    text = final_text(view, "en-US")
    assert f"game #{played.game_id}" in text and "/skyjo replay" in text
    assert f"game #{by_hand.game_id}" not in text and f"game #{lost.game_id}" not in text
    assert "Round 1, table 3: Player 5" in text and "ended by hand (counted as it stood, no replay)" in text
    assert "its thread was lost (a draw, no replay)" in text
    assert "A table ended by hand counts as its game stood when it was stopped" in text
