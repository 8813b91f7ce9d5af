"""What a finished game comes to: the results per seat and the rating changes, computed here, in the
service, and handed to storage to write in the transaction that ends the game.

The model is openskill's (Plackett-Luce): ``mu`` (the skill estimate) and ``sigma`` (its uncertainty),
updated as the library says. What players see, and what the board is ordered by, is the **shown
rating** (:func:`shown_rating`, stored in the ``conservative`` column): it starts at 0 and follows the
*conservative* estimate ``mu - 3 * sigma`` (openskill's ``ordinal``, the skill we are ~99.7 % sure the
player has at least), except that a game the player did not win never raises it and a game they won
never lowers it. Why: the conservative estimate rises as sigma shrinks, so a player who lost a game
could see "0.0 -> 1.5 (+1.5)"; and in a game of 3 or more, openskill raises the mu of a player who
came second. A player reads a rating as "winning raises it, losing lowers it", so the shown rating
does just that, and it catches up with the estimate at the next result that lets it (a figure held
after a loss joins the estimate at the next win). A newcomer with one lucky win still has a large
sigma and stays below a player who has proven the same mu over many games.

Storage reads the players' rows inside the finishing transaction (locked on PostgreSQL) and runs the
:class:`~bot.storage.ratings.RatingPlan` this module builds on them (:func:`rating_plan`): the
computation is the service's, the reading and writing storage's, and both happen in one transaction.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from bot.engine.base import GameState
from bot.storage import StorageError, StoredGame
from bot.storage.game_types import GameEnd
from bot.storage.ratings import RatingPlan, RatingRow, RatingWrite, conservative
from bot.storage.results import SeatResult
from bot.storage.venues import Venue

MODEL = PlackettLuce()
DEFAULT_MU: float = MODEL.mu
DEFAULT_SIGMA: float = MODEL.sigma
NEW_RATING: float = conservative(DEFAULT_MU, DEFAULT_SIGMA)  # ~0: where every shown rating starts

# Per-round lists that are scores, not counters.
_NOT_COUNTERS = frozenset({"scores", "raw_scores"})


def shown_rating(previous: float, mu: float, sigma: float, *, won: bool) -> float:
    """The rating a player sees after a game: the conservative estimate ``mu - 3 sigma``, held at
    ``previous`` when it would move against the result.

    A win (first place, ties included) never lowers it: ``max(previous, estimate)``. Any other place
    (second of eight as much as last, and a forfeit, rated tied last) never raises it:
    ``min(previous, estimate)``. So the figure stays within one result streak of the estimate: after a
    loss it is at most the estimate, after a win at least.
    """
    estimate = conservative(mu, sigma)
    return max(previous, estimate) if won else min(previous, estimate)


def forfeit_ranks(ranks: Sequence[int], forfeited: set[int]) -> list[int]:
    """The ranks a game is rated with when the seats in ``forfeited`` (a human who left or was
    replaced by a computer player) count as tied last, whatever the computer player then did: the
    others keep their order (competition ranking, ties kept), so a leaver can neither win nor gain."""
    kept = [r for seat, r in enumerate(ranks) if seat not in forfeited]
    last = len(kept) + 1
    return [last if seat in forfeited else 1 + sum(1 for k in kept if k < r) for seat, r in enumerate(ranks)]


def _is_int(value: object) -> bool:
    return type(value) is int


def seat_results_from_engine(results: Mapping[str, Any], seats: int) -> list[SeatResult]:
    """Turn an engine's ``results()`` into per-seat results, the same way for every game kind.

    Ranks come from ``ranks``; totals from ``totals`` (if any); round scores from ``rounds[i].scores``.
    Counters are generic: any per-round list of ``seats`` integers other than the scores (a game's
    count of lines cleared, say) is summed per seat, and an optional ``stats`` list of per-seat dicts of
    integers is added, so a new game's statistics need no storage change.
    """
    ranks = results.get("ranks")
    if not isinstance(ranks, list) or len(ranks) != seats or not all(_is_int(r) and r >= 1 for r in ranks):
        raise StorageError("the engine's results carry no ranks: is the game over?")
    totals = results.get("totals")
    if not (isinstance(totals, list) and len(totals) == seats and all(_is_int(t) for t in totals)):
        totals = [None] * seats
    round_scores: list[list[int]] = [[] for _ in range(seats)]
    counters: list[dict[str, int]] = [{} for _ in range(seats)]
    for played in results.get("rounds") or []:
        if not isinstance(played, dict):
            continue
        for key, value in played.items():
            if not (isinstance(value, list) and len(value) == seats and all(_is_int(v) for v in value)):
                continue
            if key == "scores":
                for seat, score in enumerate(value):
                    round_scores[seat].append(score)
            elif key not in _NOT_COUNTERS:
                for seat, count in enumerate(value):
                    counters[seat][key] = counters[seat].get(key, 0) + count
    extra = results.get("stats")
    if isinstance(extra, list) and len(extra) == seats:
        for seat, stats in enumerate(extra):
            if isinstance(stats, dict):
                for key, count in stats.items():
                    if isinstance(key, str) and _is_int(count):
                        counters[seat][key] = counters[seat].get(key, 0) + count
    return [
        SeatResult(seat, ranks[seat], totals[seat], tuple(round_scores[seat]), counters[seat])
        for seat in range(seats)
    ]


@dataclass(frozen=True)
class Participant:
    """One seat of a finished game, as the rating update sees it."""

    seat: int
    player: str
    display_name: str
    rank: int
    round_scores: Sequence[int] = ()
    stats: Mapping[str, int] = field(default_factory=dict)


def rate(participants: Sequence[Participant], before: Mapping[str, RatingRow]) -> list[RatingWrite]:
    """The new rows of one scope, from the rows ``before`` the game (by player key).

    Every seat is its own team for Plackett-Luce. Seats sharing a player key (two computer players of
    the same level) are rated as separate teams and their key's row moves by the mean of their
    updates; the row counts the game once, as a win when one of its seats won. The shown rating moves
    by :func:`shown_rating`, with "won" meaning first place (ties included).
    """
    by_key: dict[str, list[Participant]] = defaultdict(list)
    for p in participants:
        by_key[p.player].append(p)
    teams = [[MODEL.rating(mu=before[p.player].mu, sigma=before[p.player].sigma)] for p in participants]
    rated = MODEL.rate(teams, ranks=[float(p.rank) for p in participants])
    after_mu: dict[str, list[float]] = defaultdict(list)
    after_sigma: dict[str, list[float]] = defaultdict(list)
    for p, team in zip(participants, rated, strict=True):
        after_mu[p.player].append(float(team[0].mu))
        after_sigma[p.player].append(float(team[0].sigma))
    writes: list[RatingWrite] = []
    for key in sorted(by_key):
        seats = by_key[key]
        old = before[key]
        mu1 = old.mu + sum(m - old.mu for m in after_mu[key]) / len(seats)
        sigma1 = sum(after_sigma[key]) / len(seats)
        rounds = [s for p in seats for s in p.round_scores]
        r_min, r_max = old.round_min, old.round_max
        if rounds:
            r_min = min(rounds) if r_min is None else min(r_min, *rounds)
            r_max = max(rounds) if r_max is None else max(r_max, *rounds)
        stats = dict(old.stats)
        for p in seats:
            for name, count in p.stats.items():
                stats[name] = stats.get(name, 0) + int(count)
        best = min(p.rank for p in seats)
        after = RatingRow(
            seats[0].display_name,
            mu1,
            sigma1,
            shown_rating(old.shown, mu1, sigma1, won=best == 1),
            old.games + 1,
            old.wins + (1 if best == 1 else 0),
            old.round_count + len(rounds),
            old.round_sum + sum(rounds),
            r_min,
            r_max,
            stats,
        )
        writes.append(RatingWrite(key, best, after))
    return writes


def rating_plan(kind: str, venue: Venue, participants: Sequence[Participant]) -> RatingPlan | None:
    """How storage is to rate a finished game played in ``venue`` (None: fewer than two seats, nothing
    to rate). Which boards it counts on is the venue's (:func:`bot.storage.venues.rated_scopes`): a
    server's, the global one and the season's; off server, its channel's board only."""
    if len(participants) < 2:
        return None
    players: dict[str, str] = {}
    for p in participants:
        players.setdefault(p.player, p.display_name)
    seated = tuple(participants)
    start = RatingRow("", DEFAULT_MU, DEFAULT_SIGMA, NEW_RATING)
    return RatingPlan(kind, venue, players, start, lambda before: rate(seated, before))


def game_end(
    stored: StoredGame, state: GameState, snapshot: str, meta: Mapping[str, Any] | None = None
) -> GameEnd:
    """What the end of ``stored`` (its final ``state``, whose canonical JSON is ``snapshot``; ``meta``:
    the metadata committed with the final action, else ``stored.meta``) writes:
    the results per seat and, for a rated game, the rating plan. Someone took a hint (the service's
    meta "hints"): the game finishes unrated. A seat the service handed to a computer player (meta
    "replaced": the human left, was kicked or missed too many turns) is rated as a forfeit; its
    result row stays the game's result."""
    results = seat_results_from_engine(state.results(), len(stored.seats))
    meta = stored.meta if meta is None else meta
    if not stored.rated:
        return GameEnd(snapshot, results)
    if meta.get("hints"):
        return GameEnd(snapshot, results, unrate=True)
    replaced = {int(k) for k in (meta.get("replaced") or {})}
    ranks = forfeit_ranks([r.rank for r in results], replaced)
    participants = [
        Participant(s.seat, s.player_key, s.display_name, rank, r.round_scores, r.stats)
        for s, r, rank in zip(stored.seats, results, ranks, strict=True)
    ]
    return GameEnd(snapshot, results, rating_plan(stored.kind, stored.venue, participants))
