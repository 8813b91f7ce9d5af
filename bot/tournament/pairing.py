"""A tournament's rules, pure: points from places, standings, Swiss and knockout seating (issue 41).

Everything here is a function of the players, the finished rounds and the tournament's stored seed:
the same inputs give the same standings and the same next round, on any machine (fair and verifiable).

The rules (docs/discord.md, "Tournaments", tells the players the same):

- **Points.** At a finished table each player scores, against every other seat (computer players
  included), 2 for finishing ahead of it, 1 for a shared place, 0 for finishing behind: at a table of
  two that is the chess-like win 2 / draw 1 / loss 0, at a table of four the winner scores 6. A bye
  scores ``BYE_POINTS`` (2, a win at a table of two).
- **Standings** rank by points, then the opponents' points (Buchholz: the sum of the current points
  of every human opponent met, once per meeting), then the number of tables won (first place, shared
  or not), then the drawing of lots: one shuffle of the player ids by ``random.Random(seed)``.
- **Table sizes.** A round of ``n`` players at tables of at most ``seats`` has as few tables as hold
  them (Swiss: ``ceil(n / seats)``; knockout: the bracket's, below), their sizes as even as possible
  (they differ by one seat at most, the larger first). A "table" of one is a bye: with Swiss that only
  happens for tables of two and an odd count. With ``computers: on`` (the service's choice) there is
  no bye: the player it would go to plays at a table of their own that computers fill (and the
  fairness below counts such a table as a bye).
- **Swiss.** The bye goes to the lowest-ranked of those with the fewest byes so far (so nobody gets a
  second bye while another active player has none). The others are grouped in rank order (each table
  started by the best-ranked player not yet seated), taking the first grouping in that order with the
  fewest rematches (two players who already shared a table): none when any grouping has none. The
  search is exact within ``SEARCH_BUDGET`` steps (always, for the sizes tested); past it a greedy
  grouping that adds the fewest rematches table by table is taken.
- **Knockout.** A bracket of ``rounds`` rounds holds ``seats ** rounds`` players and needs more than
  ``seats ** (rounds - 1)`` of them (else it would be a shorter one). Round ``r`` has
  ``seats ** (rounds - r)`` tables (fewer if fewer players are left); players are dealt to them in rank
  order like cards (a snake: 1 2 3 3 2 1 ...), the smallest tables (the byes) first, so the best-ranked
  get the byes. The best-placed player still in at each table goes on (a shared first place: the better
  ranked); a bye goes on.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

SWISS = "swiss"
KNOCKOUT = "knockout"
FORMATS = (SWISS, KNOCKOUT)
MIN_SEATS = 2
MAX_SEATS = 8
MAX_PLAYERS = 64
MAX_SWISS_ROUNDS = 12
BYE_POINTS = 2
SEARCH_BUDGET = 50_000


@dataclass(frozen=True, slots=True)
class TableResult:
    """One finished table: every seat's (player id, place), place 1 = first and ties sharing a place.
    Computer players have ids <= 0: they give and take points at the table but are in no standings."""

    places: tuple[tuple[int, int], ...]

    def points(self, player: int) -> int:
        mine = dict(self.places)[player]
        return sum(
            2 if mine < place else 1 if mine == place else 0
            for other, place in self.places
            if other != player
        )

    @property
    def humans(self) -> tuple[int, ...]:
        return tuple(player for player, _ in self.places if player > 0)


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A finished round: its tables' results and its byes."""

    tables: tuple[TableResult, ...]
    byes: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Seating:
    """A round to play: its tables (player ids, best-ranked first) and its byes."""

    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...] = ()

    @property
    def seated(self) -> tuple[int, ...]:
        return tuple(player for table in self.tables for player in table) + self.byes


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's line of the standings (``rank`` 1 = first)."""

    player: int
    rank: int
    points: int
    opponents_points: int
    firsts: int
    byes: int
    played: int


def lots(players: Collection[int], seed: int) -> dict[int, int]:
    """The drawing of lots: each player's position in one seeded shuffle of the sorted ids."""
    order = sorted(players)
    random.Random(seed).shuffle(order)
    return {player: position for position, player in enumerate(order)}


def met(rounds: Sequence[RoundRecord]) -> dict[int, set[int]]:
    """Every human's human opponents so far."""
    seen: dict[int, set[int]] = {}
    for record in rounds:
        for table in record.tables:
            for player in table.humans:
                seen.setdefault(player, set()).update(other for other in table.humans if other != player)
    return seen


def byes_had(rounds: Sequence[RoundRecord]) -> Counter[int]:
    return Counter(player for record in rounds for player in record.byes)


def alone_had(rounds: Sequence[RoundRecord]) -> Counter[int]:
    """How often each player sat alone with computers (``computers: on`` gives no bye: the player a
    bye would go to plays the computers instead), counted as byes when the next one is given."""
    return Counter(table.humans[0] for record in rounds for table in record.tables if len(table.humans) == 1)


def standings(players: Sequence[int], rounds: Sequence[RoundRecord], seed: int) -> list[Standing]:
    """Every player's standing after ``rounds`` (the order of the rules above)."""
    points = dict.fromkeys(players, 0)
    firsts = dict.fromkeys(players, 0)
    played = dict.fromkeys(players, 0)
    opponents: dict[int, list[int]] = {player: [] for player in players}
    for record in rounds:
        for player in record.byes:
            if player in points:
                points[player] += BYE_POINTS
        for table in record.tables:
            for player, place in table.places:
                if player not in points:
                    continue
                points[player] += table.points(player)
                played[player] += 1
                firsts[player] += place == 1
                opponents[player].extend(
                    other for other in table.humans if other != player and other in points
                )
    buchholz = {player: sum(points[other] for other in opponents[player]) for player in players}
    drawn = lots(players, seed)
    order = sorted(players, key=lambda p: (-points[p], -buchholz[p], -firsts[p], drawn[p]))
    byes = byes_had(rounds)
    return [
        Standing(player, rank, points[player], buchholz[player], firsts[player], byes[player], played[player])
        for rank, player in enumerate(order, start=1)
    ]


def table_sizes(count: int, tables: int) -> list[int]:
    """``count`` players at ``tables`` tables, as even as possible, the larger first."""
    base, extra = divmod(count, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def swiss_round(
    ranked: Sequence[int], seats: int, met: Mapping[int, Collection[int]], byes: Mapping[int, int]
) -> Seating:
    """The next Swiss round for the active players ``ranked`` (best first)."""
    if len(ranked) < 2:
        raise ValueError("a round needs two players")
    sizes = table_sizes(len(ranked), -(-len(ranked) // seats))
    given: tuple[int, ...] = ()
    rest = list(ranked)
    if sizes[-1] == 1:
        sizes.pop()
        fewest = min(byes.get(player, 0) for player in ranked)
        bye = next(player for player in reversed(ranked) if byes.get(player, 0) == fewest)
        given = (bye,)
        rest.remove(bye)
    return Seating(group(rest, sizes, met), given)


def rematches(tables: Sequence[Sequence[int]], met: Mapping[int, Collection[int]]) -> int:
    """How many pairs at the same table already met."""
    return sum(
        1 for table in tables for i, a in enumerate(table) for b in table[i + 1 :] if b in met.get(a, ())
    )


def group(
    ranked: Sequence[int], sizes: Sequence[int], met: Mapping[int, Collection[int]]
) -> tuple[tuple[int, ...], ...]:
    """``ranked`` at tables of ``sizes``: the first grouping in rank order with the fewest rematches."""
    most = sum(size * (size - 1) // 2 for size in sizes)
    budget = [SEARCH_BUDGET]
    for allowed in range(most + 1):
        found = _search(list(ranked), Counter(sizes), met, allowed, budget)
        if found is not None:
            return tuple(found)
        if budget[0] <= 0:
            break
    return _greedy(ranked, sizes, met)


def _search(
    left: list[int], sizes: Counter[int], met: Mapping[int, Collection[int]], allowed: int, budget: list[int]
) -> list[tuple[int, ...]] | None:
    """Depth first: the table of the best-ranked player left, of each size still to fill (larger first),
    its other members in rank order; ``allowed`` rematches in all."""
    if not left:
        return []
    head, others = left[0], left[1:]
    for size in sorted((s for s, n in sizes.items() if n), reverse=True):
        sizes[size] -= 1
        for members, cost in _members(others, size - 1, [head], met, allowed, budget):
            remaining = [player for player in others if player not in members]
            below = _search(remaining, sizes, met, allowed - cost, budget)
            if below is not None:
                sizes[size] += 1
                return [(head, *members), *below]
            if budget[0] <= 0:
                sizes[size] += 1
                return None
        sizes[size] += 1
    return None


def _members(
    pool: list[int],
    wanted: int,
    table: list[int],
    met: Mapping[int, Collection[int]],
    allowed: int,
    budget: list[int],
) -> Iterator[tuple[tuple[int, ...], int]]:
    """Each choice of ``wanted`` players from ``pool`` (in rank order) joining ``table`` with at most
    ``allowed`` rematches, with its rematch count."""
    if wanted == 0:
        yield (), 0
        return
    for index, player in enumerate(pool[: len(pool) - wanted + 1]):
        budget[0] -= 1
        if budget[0] <= 0:
            return
        cost = sum(1 for seated in table if player in met.get(seated, ()))
        if cost > allowed:
            continue
        for rest, more in _members(
            pool[index + 1 :], wanted - 1, [*table, player], met, allowed - cost, budget
        ):
            yield (player, *rest), cost + more


def _greedy(
    ranked: Sequence[int], sizes: Sequence[int], met: Mapping[int, Collection[int]]
) -> tuple[tuple[int, ...], ...]:
    left = list(ranked)
    tables = []
    for size in sizes:
        table = [left.pop(0)]
        while len(table) < size:
            best = min(left, key=lambda p: (sum(1 for s in table if p in met.get(s, ())), left.index(p)))
            left.remove(best)
            table.append(best)
        tables.append(tuple(table))
    return tuple(tables)


def knockout_fits(players: int, seats: int, rounds: int) -> bool:
    """Whether ``players`` fill a bracket of ``rounds`` rounds at tables of ``seats``."""
    return bool(seats ** (rounds - 1) < players <= seats**rounds)


def knockout_round(ranked: Sequence[int], seats: int, rounds_left: int) -> Seating:
    """Round of a bracket with ``rounds_left`` rounds to play (this one included) for the players still
    in, ``ranked`` best first: dealt like cards to the tables, the byes first."""
    if not ranked:
        raise ValueError("nobody is left")
    count = min(seats ** (rounds_left - 1), len(ranked))
    sizes = sorted(table_sizes(len(ranked), count))
    tables: list[list[int]] = [[] for _ in sizes]
    order = list(range(count)) + list(reversed(range(count)))
    turn = 0
    for player in ranked:
        while len(tables[order[turn % len(order)]]) >= sizes[order[turn % len(order)]]:
            turn += 1
        tables[order[turn % len(order)]].append(player)
        turn += 1
    return Seating(
        tuple(tuple(table) for table in tables if len(table) > 1),
        tuple(table[0] for table in tables if len(table) == 1),
    )


def advancing(result: TableResult, ranked: Sequence[int], out: Collection[int] = ()) -> int | None:
    """Who goes on from a knockout table: the best-placed human not ``out`` (dropped), a shared place
    going to the better ranked in ``ranked``; None when none is left."""
    position = {player: index for index, player in enumerate(ranked)}
    candidates = [
        (place, position.get(player, len(position)), player)
        for player, place in result.places
        if player > 0 and player not in out
    ]
    return min(candidates)[2] if candidates else None


def option_problem(form: str, seats: int, rounds: int) -> str | None:
    """Why these options make no tournament (a key of the ``tournament.bad.*`` strings), or None."""
    if form not in FORMATS:
        return "format"
    if not MIN_SEATS <= seats <= MAX_SEATS:
        return "seats"
    if rounds < 1:
        return "rounds"
    if form == SWISS and rounds > MAX_SWISS_ROUNDS:
        return "rounds"
    if form == KNOCKOUT and seats ** (rounds - 1) >= MAX_PLAYERS:
        return "knockout_rounds"
    return None


def capacity(form: str, seats: int, rounds: int) -> int:
    """How many players can sign up."""
    return min(MAX_PLAYERS, seats**rounds) if form == KNOCKOUT else MAX_PLAYERS


def start_problem(form: str, seats: int, rounds: int, players: int) -> str | None:
    """Why ``players`` cannot start this tournament (a ``tournament.bad.*`` key), or None."""
    if players < 2:
        return "too_few"
    if form == KNOCKOUT and not knockout_fits(players, seats, rounds):
        return "bracket"
    return None


__all__ = [
    "BYE_POINTS",
    "FORMATS",
    "KNOCKOUT",
    "MAX_PLAYERS",
    "MAX_SEATS",
    "MIN_SEATS",
    "SWISS",
    "RoundRecord",
    "Seating",
    "Standing",
    "TableResult",
    "advancing",
    "alone_had",
    "byes_had",
    "capacity",
    "group",
    "knockout_fits",
    "knockout_round",
    "lots",
    "met",
    "option_problem",
    "rematches",
    "standings",
    "start_problem",
    "swiss_round",
    "table_sizes",
]
