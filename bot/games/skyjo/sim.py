"""Skyjo simulator: ``python -m bot simulate skyjo --players 4 --games 2000 --ai hard,normal [--seed N]``."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from bot.games.skyjo import ai, engine
from bot.sim.common import Policy, TimedPolicy, parse_lineup, play_games

# Published engines' 4-player greedy self-play, for comparison with ``normal`` (see docs/ai.md).
PEER_ROUNDS_PER_GAME = 3.92
PEER_POINTS_PER_ROUND = 21.9

WIN_CONVENTION = "a shared win counts as a win for each winner, so win rates may add up to more than 100 %"


_CELL_EVENTS = frozenset({engine.CardExchanged, engine.CardRevealed})
# Events after which the discard pile is not what it was (the only list a turn changes besides a grid).
_PILE_EVENTS = frozenset(
    {engine.CardExchanged, engine.CardDiscarded, engine.LineCleared, engine.DrawPileRebuilt}
)
_LINE_CLEARED = engine.LineCleared
_CARD_DRAWN = engine.CardDrawn
_TURN_STARTED = engine.TurnStarted
_ROUND_EVENTS = frozenset({engine.RoundStarted, engine.RoundEnded})
_GONE = engine.GONE
_PLAY = engine.PLAY


class FastViews:
    """``game.view(seat)`` for the simulation loop, kept up to date from the events of each action.

    The engine's own ``view`` rebuilds every grid, the options and the past rounds on each call; here
    one view is kept and only what an action can change is refreshed: the grid cells its events name,
    the discard pile when an event put a card there or rebuilt the draw pile, the drawn card, the piles'
    sizes and the turn; totals and past rounds when a round starts or ends. Every view is a new dict
    whose lists are never changed afterwards (a changed grid or pile is a new list), so a view stays a
    snapshot. Tests check that every view equals the engine's own.
    """

    def __init__(self, game: engine.State) -> None:
        self.game = game
        self.rows = game.options.rows
        self.cells = game.options.columns * game.options.rows
        self.current: dict[str, Any] = game.view(None)

    def applied(self, seat: int, events: list[Any]) -> None:
        current = self.current
        game = self.game
        first = events[0]
        if first.__class__ is _CARD_DRAWN and len(events) == 1:
            # A plain draw (a third of all actions): only the drawn card and the draw pile change.
            current["drawn"] = first.value
            current["draw_pile_size"] = len(game.draw_pile)
            return
        last = events[-1]
        if last.__class__ is _TURN_STARTED and current["phase"] == _PLAY:
            # The turn passed during play (the engine ends a turn with TurnStarted, and any pile rebuild
            # or round end would come after it): a card went onto the discard pile, and only cells, the
            # pile, the drawn card, the finisher and the turn change.
            seat_next: int = last.seat
            current["turn"] = seat_next
            current["to_act"] = [seat_next]
            current["finisher"] = game.finisher
            current["drawn"] = game.drawn
            current["discard_pile"] = game.discard_pile[:]
            new_grids: list[list[engine.Cell]] = current["grids"][:]
            current["grids"] = new_grids
            copied = -1
            grid: list[engine.Cell] = []
            for event in events:
                kind = event.__class__
                if kind in _CELL_EVENTS:
                    if event.seat != copied:
                        copied = event.seat
                        grid = new_grids[copied] = new_grids[copied][:]
                    grid[event.pos] = event.value
                elif kind is _LINE_CLEARED:
                    if event.seat != copied:
                        copied = event.seat
                        grid = new_grids[copied] = new_grids[copied][:]
                    self._clear_line(grid, event)
            return
        grids: list[list[engine.Cell]] | None = None
        pile_changed = False
        for event in events:
            kind = event.__class__
            if kind in _PILE_EVENTS:
                pile_changed = True
            if kind in _CELL_EVENTS:
                if grids is None:
                    grids = current["grids"] = current["grids"][:]
                grid = grids[event.seat] = grids[event.seat][:]
                grid[event.pos] = event.value
            elif kind is _LINE_CLEARED:
                if grids is None:
                    grids = current["grids"] = current["grids"][:]
                grid = grids[event.seat] = grids[event.seat][:]
                self._clear_line(grid, event)
            elif kind in _ROUND_EVENTS:
                self.current = game.view(None)
                return
        phase = game.phase
        turn = game.turn
        if phase == _PLAY and current["phase"] == _PLAY:
            # Still playing: the initial reveals are over, and the only seat to act is the turn's.
            if turn != current["turn"]:
                current["turn"] = turn
                current["to_act"] = [turn]
        else:
            current["phase"] = phase
            current["turn"] = turn
            current["reveals_left"] = game.reveals_left[:]
            current["to_act"] = game.seats_to_act()
        current["finisher"] = game.finisher
        current["drawn"] = game.drawn
        current["draw_pile_size"] = len(game.draw_pile)
        if pile_changed:
            current["discard_pile"] = game.discard_pile[:]

    def _clear_line(self, grid: list[engine.Cell], event: engine.LineCleared) -> None:
        rows = self.rows
        if event.line == "column":
            start = event.index * rows
            positions = range(start, start + rows)
        else:
            positions = range(event.index, self.cells, rows)
        for p in positions:
            grid[p] = _GONE

    def next_seat(self) -> int | None:
        # Only a finished game has nobody to act (every phase before it names someone).
        to_act: list[int] = self.current["to_act"]
        return to_act[0] if to_act else None

    def next_view(self) -> tuple[int, dict[str, Any]] | None:
        """``(seat, view(seat))`` for the first seat to act, or None once the game is over."""
        current = self.current
        to_act: list[int] = current["to_act"]
        if not to_act:
            return None
        view = current.copy()
        seat = view["viewer"] = to_act[0]
        return seat, view

    def view(self, seat: int) -> dict[str, Any]:
        view = self.current.copy()
        view["viewer"] = seat
        return view


@dataclass
class Stats:
    """Figures gathered over many finished games."""

    seats: int
    games: int = 0
    rounds: int = 0
    wins: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    finished: list[int] = field(default_factory=list)
    doubled: list[int] = field(default_factory=list)
    columns: list[int] = field(default_factory=list)
    rounds_with_finisher: int = 0
    rounds_doubled: int = 0

    def __post_init__(self) -> None:
        for name in ("wins", "points", "finished", "doubled", "columns"):
            setattr(self, name, [0] * self.seats)

    def add(self, game: engine.State) -> None:
        self.games += 1
        for seat in game.winners():
            self.wins[seat] += 1
        for result in game.rounds:
            self.rounds += 1
            for seat in range(self.seats):
                self.points[seat] += result.scores[seat]
                self.columns[seat] += result.columns_cleared[seat]
            if result.finisher is not None:
                self.rounds_with_finisher += 1
                self.finished[result.finisher] += 1
                if result.doubled:
                    self.rounds_doubled += 1
                    self.doubled[result.finisher] += 1

    def lines(self, lineup: Sequence[str]) -> list[str]:
        games, rounds = max(self.games, 1), max(self.rounds, 1)
        out = []
        for seat, level in enumerate(lineup):
            finished = self.finished[seat]
            out.append(
                f"seat {seat + 1} {level}: {100 * self.wins[seat] / games:.1f} % wins, "
                f"{self.points[seat] / rounds:.1f} points/round, "
                f"finished {100 * finished / rounds:.1f} % of rounds "
                f"(doubled in {100 * self.doubled[seat] / max(finished, 1):.1f} % of those), "
                f"{self.columns[seat] / rounds:.2f} columns/round"
            )
        out.append(f"({WIN_CONVENTION})")
        levels = sorted(set(lineup), key=lineup.index)
        if len(levels) > 1:
            for level in levels:
                seats = [s for s, name in enumerate(lineup) if name == level]
                points = sum(self.points[s] for s in seats) / (rounds * len(seats))
                out.append(f"level {level}: {points:.1f} points/round over {len(seats)} seat(s)")
        out.append(f"rounds per game: {self.rounds / games:.2f}")
        doubled = 100 * self.rounds_doubled / max(self.rounds_with_finisher, 1)
        out.append(f"finisher doubled: {doubled:.1f} % of rounds")
        out.append(f"columns cleared: {sum(self.columns) / rounds:.2f} per round (all seats together)")
        if len(lineup) == 4 and set(lineup) == {"normal"}:
            out.append(
                f"peer engines, 4 greedy players: {PEER_ROUNDS_PER_GAME:.2f} rounds per game, "
                f"{PEER_POINTS_PER_ROUND:.1f} points/round; ours: {self.rounds / games:.2f} rounds per game, "
                f"{sum(self.points) / (rounds * self.seats):.1f} points/round"
            )
        return out


def simulate(
    lineup: Sequence[str],
    games: int,
    seed: int,
    options: engine.Options | None = None,
    *,
    policies: Sequence[Policy] | None = None,
    progress: Progress | None = None,
) -> Stats:
    """Play ``games`` games with one level per seat and gather the figures."""
    if policies is None:
        policies = [ai.LEVELS[level] for level in lineup]
    stats = Stats(len(lineup))
    task = progress.add_task("games", total=games) if progress is not None else None
    for game in play_games(engine, policies, games, seed, options, views=FastViews):
        stats.add(game)
        if progress is not None and task is not None and (stats.games % 10 == 0 or stats.games == games):
            progress.update(task, completed=stats.games)
    return stats


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot simulate skyjo", description="Skyjo computer players against each other."
    )
    parser.add_argument("--players", type=int, default=4, help="seats at the table (2 to 8; default 4)")
    parser.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    parser.add_argument(
        "--ai",
        default="hard,normal",
        help="levels per seat, comma separated; the last one fills the other seats (default hard,normal)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the run (default 1)")
    parser.add_argument("--profile", action="store_true", help="also print the mean decision time per level")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def main(args: list[str], console: Console | None = None) -> int:
    parser = _parser()
    try:
        ns = parser.parse_args(args)
    except SystemExit as stop:
        return int(stop.code or 0)
    out = console or Console(highlight=False, soft_wrap=True)
    try:
        if not engine.MIN_PLAYERS <= ns.players <= engine.MAX_PLAYERS:
            raise ValueError(f"--players must be {engine.MIN_PLAYERS} to {engine.MAX_PLAYERS}")
        if ns.games < 1:
            raise ValueError("--games must be at least 1")
        lineup = parse_lineup(ns.ai, ns.players, list(ai.LEVELS))
    except ValueError as error:
        print(f"simulate skyjo: {error}", file=sys.stderr)
        return 2

    timed = {level: TimedPolicy(ai.LEVELS[level]) for level in set(lineup)} if ns.profile else {}
    policies = [timed[level] for level in lineup] if ns.profile else [ai.LEVELS[level] for level in lineup]
    progress = None
    if not ns.quiet:
        progress = Progress(
            TextColumn("[bold]skyjo[/]"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
    started, cpu_started = time.perf_counter(), time.process_time()
    if progress is not None:
        with progress:
            stats = simulate(lineup, ns.games, ns.seed, policies=policies, progress=progress)
    else:
        stats = simulate(lineup, ns.games, ns.seed, policies=policies)
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started

    out.print(f"skyjo: {ns.games} games, {ns.players} players, seed {ns.seed}, lineup {','.join(lineup)}")
    for line in stats.lines(lineup):
        out.print(line)
    out.print(
        f"speed: {ns.games / elapsed:.1f} games/s ({elapsed:.1f} s wall); "
        f"{ns.games / max(cpu, 1e-9):.1f} games per CPU second ({cpu:.1f} s CPU, one core)"
    )
    for level, policy in sorted(timed.items()):
        out.print(
            f"decision time {level}: {policy.mean_ms:.3f} ms mean wall, {policy.mean_cpu_ms:.3f} ms CPU, "
            f"over {policy.calls} decisions"
        )
    return 0
