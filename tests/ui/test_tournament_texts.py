"""The tournament messages' words (bot/ui/tournaments.py): within Discord's 2,000 characters for the
biggest tournament, names escaped, a bye and a dropped player said, in English and French."""

from __future__ import annotations

from bot.service.tournaments import TournamentView, records, still_in
from bot.storage.tournaments import (
    BYE,
    ENDED,
    PLAYING,
    RUNNING,
    Tournament,
    TournamentPlayer,
    TournamentTable,
)
from bot.tournament import pairing
from bot.ui.tournaments import final_text, signup_text, standings_text


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
            assert 0 < len(text) <= 2000


def test_the_standings_say_the_tables_the_bye_and_the_dropped() -> None:
    view = _view(5)
    text = standings_text(view, "en-US")
    assert "**Standings**, round 1 of 3" in text
    assert "Table 1: Player 1 \\*bold\\* \\@everyone, Player 2 \\*bold\\* \\@everyone, in <#701>" in text
    assert "Bye this round: Player 5" in text
    assert "(dropped)" in text and "@everyone" not in text.replace("\\@everyone", "")
    french = standings_text(view, "fr")
    assert "Au repos cette manche : Player 5" in french and "(hors tournoi)" in french
    assert "Classement" in french
