"""The pairing rules of bot/tournament/pairing.py, by property (hypothesis) and by hand (issue 41 item 3)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.tournament import pairing
from bot.tournament.pairing import RoundRecord, Seating, TableResult

FAST = settings(max_examples=60, deadline=None)


def _results(seating: Seating, draw: st.DataObject) -> RoundRecord:
    """Random places for every table of ``seating`` (ties allowed)."""
    tables = []
    for table in seating.tables:
        ranks = draw.draw(st.lists(st.integers(1, len(table)), min_size=len(table), max_size=len(table)))
        tables.append(
            TableResult(tuple((p, 1 + sum(r < ranks[i] for r in ranks)) for i, p in enumerate(table)))
        )
    return RoundRecord(tuple(tables), seating.byes)


def _partitions(players: Sequence[int], sizes: Counter[int]):  # type: ignore[no-untyped-def]
    """Every grouping of ``players`` into tables of ``sizes`` (brute force)."""
    if not players:
        yield []
        return
    head, others = players[0], list(players[1:])
    for size in [s for s, n in sizes.items() if n]:
        sizes[size] -= 1
        for rest in itertools.combinations(others, size - 1):
            remaining = [p for p in others if p not in rest]
            for below in _partitions(remaining, sizes):
                yield [(head, *rest), *below]
        sizes[size] += 1


def _check_seating(seating: Seating, active: Sequence[int], seats: int) -> None:
    seated = seating.seated
    assert len(seated) == len(set(seated)), "a player at two tables"
    assert sorted(seated) == sorted(active), "an active player neither seated nor given a bye"
    assert all(2 <= len(table) <= seats for table in seating.tables)


@FAST
@given(st.integers(2, 11), st.integers(2, 5), st.integers(1, 4), st.integers(0, 2**32), st.data())
def test_swiss_rounds_seat_everyone_once_and_spread_byes(
    count: int, seats: int, rounds: int, seed: int, data: st.DataObject
) -> None:
    players = list(range(1, count + 1))
    history: list[RoundRecord] = []
    for _ in range(rounds):
        ranked = [s.player for s in pairing.standings(players, history, seed)]
        seating = pairing.swiss_round(ranked, seats, pairing.met(history), pairing.byes_had(history))
        _check_seating(seating, players, seats)
        before = pairing.byes_had(history)
        for bye in seating.byes:
            assert before[bye] == min(before[p] for p in players), "a second bye while another has none"
        sizes = [len(t) for t in seating.tables]
        assert max(sizes) - min(sizes) <= 1
        history.append(_results(seating, data))
    byes = pairing.byes_had(history)
    assert max(byes[p] for p in players) - min(byes[p] for p in players) <= 1


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 9), st.integers(2, 4), st.sets(st.tuples(st.integers(1, 9), st.integers(1, 9))))
def test_swiss_grouping_has_the_fewest_rematches_brute_force(
    count: int, seats: int, pairs: set[tuple[int, int]]
) -> None:
    """Against every grouping of the same sizes: none with fewer rematches (so none when one has none)."""
    players = list(range(1, count + 1))
    met: dict[int, set[int]] = {}
    for a, b in pairs:
        if a != b and a <= count and b <= count:
            met.setdefault(a, set()).add(b)
            met.setdefault(b, set()).add(a)
    sizes = pairing.table_sizes(count, -(-count // seats))
    if sizes[-1] == 1:
        sizes.pop()
        players.pop()  # the bye, as swiss_round takes it: checked above
    found = pairing.group(players, sizes, met)
    assert sorted(p for t in found for p in t) == players
    best = min(pairing.rematches(g, met) for g in _partitions(players, Counter(sizes)))
    assert pairing.rematches(found, met) == best


@FAST
@given(st.integers(2, 12), st.integers(2, 4), st.integers(0, 2**32), st.data())
def test_same_seed_and_standings_same_pairing(count: int, seats: int, seed: int, data: st.DataObject) -> None:
    players = list(range(1, count + 1))
    history: list[RoundRecord] = []
    for _ in range(2):
        ranked = [s.player for s in pairing.standings(players, history, seed)]
        seating = pairing.swiss_round(ranked, seats, pairing.met(history), pairing.byes_had(history))
        history.append(_results(seating, data))
    twice = [
        pairing.swiss_round(
            [s.player for s in pairing.standings(list(reversed(players)), history, seed)],
            seats,
            pairing.met(history),
            pairing.byes_had(history),
        )
        for _ in range(2)
    ]
    assert twice[0] == twice[1]
    assert pairing.standings(players, history, seed) == pairing.standings(
        list(reversed(players)), history, seed
    )


@FAST
@given(st.integers(2, 4), st.integers(1, 3), st.integers(0, 2**32), st.data())
def test_knockout_advances_exactly_the_winners(
    seats: int, rounds: int, seed: int, data: st.DataObject
) -> None:
    count = data.draw(st.integers(seats ** (rounds - 1) + 1, seats**rounds))
    assert pairing.knockout_fits(count, seats, rounds)
    players = list(range(1, count + 1))
    history: list[RoundRecord] = []
    left = list(players)
    for played in range(rounds):
        ranked = [s.player for s in pairing.standings(players, history, seed) if s.player in left]
        seating = pairing.knockout_round(ranked, seats, rounds - played)
        _check_seating(seating, left, seats)
        assert len(seating.tables) + len(seating.byes) == seats ** (rounds - played - 1)
        record = _results(seating, data)
        winners = [pairing.advancing(t, ranked) for t in record.tables]
        for table, winner in zip(record.tables, winners, strict=True):
            best = min(place for _, place in table.places)
            assert dict(table.places)[winner] == best  # type: ignore[index]
        history.append(record)
        left = sorted([w for w in winners if w is not None] + list(seating.byes))
        assert len(left) == len(seating.tables) + len(seating.byes)
    assert len(left) == 1


def test_points_and_tie_breaks_by_hand() -> None:
    """A table of three (1st, shared 2nd) and a bye: 4, 1, 1 and 2 points; ties by opponents' points."""
    history = [RoundRecord((TableResult(((10, 1), (20, 2), (30, 2))),), byes=(40,))]
    lines = pairing.standings([10, 20, 30, 40], history, seed=7)
    assert [(s.player, s.points) for s in lines][:2] == [(10, 4), (40, 2)]
    assert {s.player: s.opponents_points for s in lines} == {10: 2, 20: 5, 30: 5, 40: 0}
    assert {s.player for s in lines[2:]} == {20, 30}  # equal on all: the seeded lots order them


def test_a_computer_counts_at_the_table_but_not_in_the_standings() -> None:
    history = [RoundRecord((TableResult(((1, 2), (0, 1), (2, 3))),))]
    lines = pairing.standings([1, 2], history, seed=1)
    assert [(s.player, s.points, s.firsts) for s in lines] == [(1, 2, 0), (2, 0, 0)]


def test_knockout_byes_go_to_the_best_ranked() -> None:
    seating = pairing.knockout_round([1, 2, 3, 4, 5], seats=2, rounds_left=3)
    assert seating.byes == (1, 2, 3)
    assert seating.tables == ((4, 5),)


def test_absurd_options_have_a_reason() -> None:
    assert pairing.option_problem("swiss", 1, 3) == "seats"
    assert pairing.option_problem("swiss", 9, 3) == "seats"
    assert pairing.option_problem("swiss", 2, 0) == "rounds"
    assert pairing.option_problem("knockout", 2, 7) == "knockout_rounds"
    assert pairing.option_problem("knockout", 4, 2) is None
    assert pairing.start_problem("knockout", 4, 2, 4) == "bracket"
    assert pairing.start_problem("knockout", 4, 2, 8) is None
    assert pairing.capacity("knockout", 4, 2) == 16


def test_a_player_alone_with_computers_counts_as_a_bye_for_the_next_one() -> None:
    """``computers: on`` gives no bye: the player it would go to plays the computers alone; who sat alone
    is not the next one alone while another has not (pairing.alone_had, as byes_had)."""
    alone = pairing.TableResult(((5, 1), (-1, 2)))
    pair = pairing.TableResult(((1, 1), (2, 2)))
    history = [pairing.RoundRecord((pair, pairing.TableResult(((3, 2), (4, 1))), alone))]
    assert pairing.alone_had(history) == {5: 1} and pairing.byes_had(history) == {}
    seating = pairing.swiss_round([1, 2, 3, 4, 5], 2, pairing.met(history), pairing.alone_had(history))
    assert seating.byes and seating.byes != (5,)
