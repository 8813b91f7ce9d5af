"""What a tournament's messages show, read from its stored rows (issue 41): :class:`TournamentView`, the
finished rounds' records for the pure rules, who is still in and who went out when, and how each ended
table's game ended.

Pure functions of the stored tournament, its players and tables (the rules are
``bot/tournament/pairing.py``'s); the tournaments part (:mod:`bot.service.tournaments`) seats rounds
with them and builds the view for the hall.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.service.types import ENDED_BY_HAND
from bot.storage.tournaments import BYE, ENDED, Tournament, TournamentPlayer, TournamentTable
from bot.tournament import pairing

# How a table's game ended (``TournamentView.endings``): played to its end (its results count, and it
# can be replayed), ended by hand (``/<game> end`` or the End vote: counted as it stood, unrated, not
# replayable), or lost with its channel (a draw for all).
PLAYED, BY_HAND, LOST = "played", "by_hand", "lost"


@dataclass(frozen=True)
class TournamentView:
    """All a message about a tournament shows."""

    tournament: Tournament
    players: list[TournamentPlayer]
    tables: list[TournamentTable]
    standings: list[pairing.Standing]
    still_in: list[int]  # knockout: the players not out (Swiss: every player not dropped)
    endings: dict[int, str] = field(default_factory=dict)  # an ended table's game id: PLAYED, BY_HAND, LOST
    beaten: dict[int, int] = field(default_factory=dict)  # knockout: who went out, and in which round

    def names(self) -> dict[int, str]:
        return {p.user_id: p.name for p in self.players}

    def round_tables(self, round_no: int) -> list[TournamentTable]:
        return [t for t in self.tables if t.round == round_no]


def records(tables: Sequence[TournamentTable]) -> list[pairing.RoundRecord]:
    """The finished rounds' records (tables ended, and byes), round by round, for the pure rules."""
    rounds: dict[int, list[TournamentTable]] = {}
    for table in tables:
        rounds.setdefault(table.round, []).append(table)
    return [
        pairing.RoundRecord(
            tuple(pairing.TableResult(t.result) for t in held if t.status == ENDED and t.result),
            tuple(t.players[0] for t in held if t.status == BYE),
        )
        for _, held in sorted(rounds.items())
    ]


def ending(status: str, note: str | None) -> str:
    """How an ended table's game ended, as ``tournament_ends._record`` counted it."""
    if status == "finished":
        return PLAYED
    return BY_HAND if (note or "").startswith(ENDED_BY_HAND) else LOST


def knocked_out(
    tournament: Tournament, players: Sequence[TournamentPlayer], tables: Sequence[TournamentTable]
) -> dict[int, int]:
    """A knockout's beaten players, each with the round they went out in: at each ended table every
    player but the one who goes on, decided as the table ends (the round's other tables change
    nothing of it). Swiss: nobody."""
    if tournament.format != pairing.KNOCKOUT:
        return {}
    history = records(tables)
    everyone = [p.user_id for p in players]
    beaten: dict[int, int] = {}
    for number in sorted({t.round for t in tables}):
        ranked = [s.player for s in pairing.standings(everyone, history[: number - 1], tournament.seed)]
        # Out of this round's tables: who was dropped by then (a win before the drop stands, so a
        # later drop never brings back a player that winner beat).
        out = {p.user_id for p in players if p.dropped_round is not None and p.dropped_round <= number}
        for table in tables:
            if table.round == number and table.status == ENDED and table.result:
                going_on = pairing.advancing(pairing.TableResult(table.result), ranked, out)
                for player in table.players:
                    if player != going_on:
                        beaten.setdefault(player, number)
    return beaten


def still_in(
    tournament: Tournament, players: Sequence[TournamentPlayer], tables: Sequence[TournamentTable]
) -> list[int]:
    """Who may still be seated: not dropped, and in a knockout not beaten (:func:`knocked_out`)."""
    beaten = knocked_out(tournament, players, tables)
    return [p.user_id for p in players if not p.dropped and p.user_id not in beaten]


__all__ = ["BY_HAND", "LOST", "PLAYED", "TournamentView", "ending", "knocked_out", "records", "still_in"]
