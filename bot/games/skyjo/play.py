"""Skyjo in the terminal: ``python -m bot play skyjo [--opponents N] [--level easy|normal|hard] [--seed N]``.

The board is drawn from the human seat's view only, so nothing hidden is ever shown (GAME-INFO-1).
Input and output are injectable (``main(args, input_fn=..., console=...)``) so a test can play a game.
"""

from __future__ import annotations

import argparse
import random
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from bot.engine.errors import GameError
from bot.games.skyjo import ai, engine
from bot.render.names import computer_name

InputFn = Callable[[str], str]
HUMAN = 0
RECENT_EVENTS = 10


class Quit(Exception):
    """The player asked to leave (``q``) or the input ended."""


# --------------------------------------------------------------------------------------------------
# Positions: "b2" is column b, row 2; "5" is the fifth card counted column by column.


def position_name(pos: int, rows: int) -> str:
    column, row = divmod(pos, rows)
    return f"{chr(ord('a') + column)}{row + 1}"


def parse_position(text: str, columns: int, rows: int) -> int:
    """``b2`` or a number from 1 (column by column) -> a grid position; ValueError with a reason."""
    text = text.strip().lower()
    if not text:
        raise ValueError("type a card such as b2 (column b, row 2) or its number")
    if text.isdigit():
        number = int(text)
        if not 1 <= number <= columns * rows:
            raise ValueError(f"a card number goes from 1 to {columns * rows}")
        return number - 1
    last_column = chr(ord("a") + columns - 1)
    if len(text) == 2 and "a" <= text[0] <= last_column and text[1].isdigit():
        row = int(text[1])
        if 1 <= row <= rows:
            return (ord(text[0]) - ord("a")) * rows + row - 1
        raise ValueError(f"rows go from 1 to {rows}")
    raise ValueError(f"type a column a to {last_column} and a row 1 to {rows}, such as b2, or a card number")


# --------------------------------------------------------------------------------------------------
# Rendering (from a view only)


def _card_style(value: int) -> str:
    if value < 0:
        return "bold blue"
    if value == 0:
        return "bold cyan"
    if value <= 4:
        return "bold green"
    if value <= 8:
        return "bold yellow"
    return "bold red"


def _card(cell: engine.Cell) -> Text:
    if cell == engine.HIDDEN:
        return Text(" ▒▒ ", style="dim")
    if cell == engine.GONE:
        return Text("  · ", style="dim")
    assert isinstance(cell, int)
    return Text(f"{cell:>3} ", style=_card_style(cell))


def _known_sum(grid: Sequence[engine.Cell]) -> int:
    return sum(c for c in grid if isinstance(c, int))


def render_grid(view: dict[str, Any], seat: int) -> Panel:
    columns, rows = view["columns"], view["rows"]
    grid = view["grids"][seat]
    table = Table(show_header=True, header_style="bold", box=None, padding=(0, 0), show_edge=False)
    table.add_column("", justify="right")
    for c in range(columns):
        table.add_column(chr(ord("a") + c), justify="right")
    for r in range(rows):
        table.add_row(Text(f"{r + 1} ", style="bold"), *(_card(grid[c * rows + r]) for c in range(columns)))
    name = view["players"][seat]
    marks = []
    if view["turn"] == seat:
        marks.append("▶ ")
    title = f"{''.join(marks)}{name}"
    down = sum(1 for c in grid if c == engine.HIDDEN)
    info = Text(f"total {view['totals'][seat]}\nshows {_known_sum(grid)}, {down} down", style="dim")
    if view["finisher"] == seat:
        info.append("\nfinished", style="bold magenta")
    style = "green" if seat == view["viewer"] else "white"
    return Panel(Group(table, info), title=title, border_style=style, expand=False)


def render_board(view: dict[str, Any], recent: Sequence[str]) -> Group:
    """The table as the human sees it: every grid, the piles, totals, whose turn, the last events."""
    grids = Table.grid(padding=(0, 1))
    panels = [render_grid(view, seat) for seat in range(len(view["players"]))]
    per_line = 4
    for start in range(0, len(panels), per_line):
        grids.add_row(*panels[start : start + per_line])
    piles = Text()
    piles.append(f"Round {view['round']}   ")
    discard = view["discard_pile"]
    piles.append("discard pile: ")
    if discard:
        piles.append(f"{discard[-1]}", style=_card_style(discard[-1]))
    else:
        piles.append("empty")
    piles.append(f"   draw pile: {view['draw_pile_size']} cards")
    if view["drawn"] is not None:
        piles.append("   drawn card: ")
        piles.append(f"{view['drawn']}", style=_card_style(view["drawn"]))
    turn = view["turn"]
    if turn is not None:
        piles.append(f"   turn: {view['players'][turn]}")
    if view["finisher"] is not None:
        piles.append(f"   last turns ({view['players'][view['finisher']]} finished)", style="bold magenta")
    parts: list[Any] = [grids, piles]
    if recent:
        parts.append(Text("\n".join(f"· {line}" for line in recent), style="italic"))
    return Group(*parts)


def describe(event: engine.Event, players: Sequence[str], rows: int, you: int | None = None) -> str | None:
    """One event in words, or None for events the board already shows; seat ``you`` reads "You ..."."""

    def name(seat: int) -> str:
        return "You" if seat == you else players[seat]

    def verb(seat: int, word: str) -> str:
        # "turns" -> "turn" for "You"; "has" -> "have"
        if seat != you:
            return word
        return "have" if word == "has" else word[:-1]

    if isinstance(event, engine.RoundStarted):
        return f"Round {event.round} is dealt; the discard pile shows {event.discard_top}."
    if isinstance(event, engine.CardRevealed):
        where = position_name(event.pos, rows)
        if event.how == "final":
            owner = "Your" if event.seat == you else f"{players[event.seat]}'s"
            return f"{owner} {where} is turned up at the end: {event.value}."
        return f"{name(event.seat)} {verb(event.seat, 'turns')} up {event.value} at {where}."
    if isinstance(event, engine.CardDrawn):
        return f"{name(event.seat)} {verb(event.seat, 'draws')} {event.value}."
    if isinstance(event, engine.CardExchanged):
        source = "the discard" if event.source == "discard" else "the drawn card"
        replaced = f"{event.replaced}" if event.replaced_was_face_up else f"a face-down {event.replaced}"
        return (
            f"{name(event.seat)} {verb(event.seat, 'puts')} {source} {event.value} at "
            f"{position_name(event.pos, rows)} and {verb(event.seat, 'discards')} {replaced}."
        )
    if isinstance(event, engine.CardDiscarded):
        return f"{name(event.seat)} {verb(event.seat, 'discards')} {event.value}."
    if isinstance(event, engine.LineCleared):
        line = chr(ord("a") + event.index) if event.line == "column" else str(event.index + 1)
        return (
            f"{name(event.seat)} {verb(event.seat, 'clears')} {event.line} {line}: "
            f"{event.count} × {event.value} leave the grid!"
        )
    if isinstance(event, engine.DrawPileRebuilt):
        return f"The discard pile is shuffled into a new draw pile of {event.size} cards."
    if isinstance(event, engine.RoundFinishing):
        who = f"{name(event.seat)} {verb(event.seat, 'has')}"
        return f"{who} no face-down card left: the others play one last turn."
    return None


def render_round(event: engine.RoundEnded, players: Sequence[str]) -> Table:
    table = Table(title=f"Round {event.round} scores", title_style="bold")
    table.add_column("player")
    table.add_column("grid", justify="right")
    table.add_column("round", justify="right")
    table.add_column("total", justify="right")
    for seat, name in enumerate(players):
        note = ""
        if event.finisher == seat:
            note = " (finisher, doubled)" if event.doubled else " (finisher)"
        table.add_row(
            f"{name}{note}", str(event.raw_scores[seat]), str(event.scores[seat]), str(event.totals[seat])
        )
    return table


def render_standings(totals: Sequence[int], winners: Sequence[int], players: Sequence[str]) -> Table:
    table = Table(title="Final standings", title_style="bold")
    table.add_column("rank", justify="right")
    table.add_column("player")
    table.add_column("total", justify="right")
    ranks = engine.ranks_of(totals)
    for seat in sorted(range(len(players)), key=lambda s: (totals[s], s)):
        crown = " 🏆" if seat in winners else ""
        table.add_row(str(ranks[seat]), f"{players[seat]}{crown}", str(totals[seat]))
    return table


# --------------------------------------------------------------------------------------------------
# The game loop


class TerminalGame:
    """One game between the human (seat 0) and computer players."""

    def __init__(
        self,
        opponents: int,
        level: str,
        seed: int,
        input_fn: InputFn,
        console: Console,
        name: str = "You",
    ) -> None:
        # A computer player has the same name as at a Discord table (bot.render.names).
        self.players = [name] + [computer_name(i, level) for i in range(1, opponents + 1)]
        self.game = engine.State.new(self.players, seed)
        self.policy = ai.LEVELS[level]
        self.rngs = [random.Random(f"play:{seed}:{seat}") for seat in range(len(self.players))]
        self.input_fn = input_fn
        self.console = console
        self.recent: deque[str] = deque(maxlen=RECENT_EVENTS)
        self.rows = self.game.options.rows
        self.columns = self.game.options.columns

    # ------------------------------------------------------------ helpers

    def ask(self, prompt: str) -> str:
        try:
            answer = self.input_fn(prompt)
        except EOFError:
            raise Quit() from None
        if answer.strip().lower() in ("q", "quit", "exit"):
            raise Quit()
        return answer

    def apply(self, seat: int, action: engine.Action) -> None:
        for event in self.game.apply(seat, action):
            self.note(event)

    def note(self, event: engine.Event) -> None:
        if isinstance(event, engine.RoundEnded):
            self.console.print(render_board(self.game.view(HUMAN), list(self.recent)))
            self.recent.clear()
            self.console.print(render_round(event, self.players))
            return
        if isinstance(event, engine.GameEnded):
            return
        line = describe(event, self.players, self.rows, you=HUMAN)
        if line is not None:
            self.recent.append(line)

    def show(self) -> None:
        self.console.print(render_board(self.game.view(HUMAN), list(self.recent)))
        self.recent.clear()

    def ask_position(self, prompt: str, allowed: Sequence[int], why_not: Callable[[int], str]) -> int:
        while True:
            answer = self.ask(prompt)
            try:
                pos = parse_position(answer, self.columns, self.rows)
            except ValueError as error:
                self.console.print(f"[red]{error}[/]")
                continue
            if pos in allowed:
                return pos
            self.console.print(f"[red]{why_not(pos)}[/]")

    def _why_not_occupied(self, pos: int) -> str:
        return f"{position_name(pos, self.rows)} has left the grid (its column was cleared)"

    def _why_not_face_down(self, pos: int) -> str:
        if self.game.view(HUMAN)["grids"][HUMAN][pos] == engine.GONE:
            return self._why_not_occupied(pos)
        return f"{position_name(pos, self.rows)} is already face up: choose a face-down card"

    def _positions(self, kind: type[engine.Action]) -> list[int]:
        return [a.pos for a in self.game.legal_actions(HUMAN) if type(a) is kind]  # type: ignore[attr-defined]

    # ------------------------------------------------------------ the human's choices

    def human_reveal(self) -> None:
        self.show()
        left = self.game.reveals_left[HUMAN]
        pos = self.ask_position(
            f"Turn up a card ({left} to go; e.g. b2): ",
            self._positions(engine.Reveal),
            self._why_not_face_down,
        )
        self.apply(HUMAN, engine.Reveal(pos))

    def human_turn(self) -> None:
        self.show()
        view = self.game.view(HUMAN)
        top = view["discard_pile"][-1] if view["discard_pile"] else None
        while True:
            answer = self.ask(f"Take the discard {top} (t) or draw a card (d)? ").strip().lower()
            if answer in ("t", "take") and top is not None:
                pos = self.ask_position(
                    f"Put the {top} where? (e.g. b2): ",
                    self._positions(engine.TakeDiscard),
                    self._why_not_occupied,
                )
                self.apply(HUMAN, engine.TakeDiscard(pos))
                return
            if answer in ("d", "draw"):
                break
            self.console.print("[red]answer t to take the discard or d to draw (q quits)[/]")
        self.apply(HUMAN, engine.Draw())
        drawn = self.game.drawn
        self.console.print(f"You drew [{_card_style(drawn or 0)}]{drawn}[/].")
        while True:
            answer = self.ask(f"Put the {drawn} where (e.g. b2), or x to discard it and turn up a card? ")
            if answer.strip().lower() in ("x", "discard"):
                pos = self.ask_position(
                    "Turn up which face-down card? ",
                    self._positions(engine.DiscardAndReveal),
                    self._why_not_face_down,
                )
                self.apply(HUMAN, engine.DiscardAndReveal(pos))
                return
            try:
                pos = parse_position(answer, self.columns, self.rows)
            except ValueError as error:
                self.console.print(f"[red]{error}, or x to discard[/]")
                continue
            if pos not in self._positions(engine.Replace):
                self.console.print(f"[red]{self._why_not_occupied(pos)}[/]")
                continue
            self.apply(HUMAN, engine.Replace(pos))
            return

    # ------------------------------------------------------------ the loop

    def bot(self, seat: int) -> None:
        self.apply(seat, self.policy(self.game.view(seat), self.rngs[seat]))

    def play(self) -> None:
        game = self.game
        opponents = len(self.players) - 1
        players = "computer player" if opponents == 1 else "computer players"
        self.console.print(
            f"[bold]Skyjo[/] against {opponents} {self.policy.__name__} {players}. "
            "Lowest total wins; the game ends when a total reaches "
            f"{game.options.score_limit}. Cards are named by column and row (b2) or by number; q quits."
        )
        while not game.is_over:
            phase = game.phase
            if phase == engine.REVEAL:
                for seat in game.seats_to_act():
                    if seat != HUMAN:
                        self.bot(seat)
                if HUMAN in game.seats_to_act():
                    self.human_reveal()
            elif phase == engine.PLAY:
                turn = game.turn
                assert turn is not None
                if turn == HUMAN:
                    self.human_turn()
                else:
                    self.bot(turn)
            elif phase == engine.ROUND_OVER:
                self.ask("Press Enter to deal the next round (q quits). ")
                self.apply(HUMAN, engine.NextRound())
        self.console.print(render_standings(game.totals, game.winners(), self.players))
        seats = game.winners()
        names = " and ".join("You" if s == HUMAN else self.players[s] for s in seats)
        verb = "wins" if len(seats) == 1 and seats[0] != HUMAN else "win"
        self.console.print(f"[bold]{names} {verb}![/]")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot play skyjo", description="Play Skyjo in this terminal against computer players."
    )
    parser.add_argument("--opponents", type=int, default=3, help="computer players, 1 to 7 (default 3)")
    parser.add_argument(
        "--level", choices=sorted(ai.LEVELS), default="normal", help="their level (default normal)"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of the deal (default: random)")
    parser.add_argument("--name", default="You", help="your name on the board")
    return parser


def main(args: list[str], input_fn: InputFn = input, console: Console | None = None) -> int:
    try:
        ns = _parser().parse_args(args)
    except SystemExit as stop:
        return int(stop.code or 0)
    out = console or Console()
    if not 1 <= ns.opponents <= engine.MAX_PLAYERS - 1:
        out.print(f"[red]--opponents must be 1 to {engine.MAX_PLAYERS - 1}[/]")
        return 2
    seed = ns.seed if ns.seed is not None else random.SystemRandom().randrange(2**31)
    try:
        game = TerminalGame(ns.opponents, ns.level, seed, input_fn, out, name=ns.name)
    except GameError as error:
        out.print(f"[red]cannot start the game: {error}[/]")
        return 2
    try:
        game.play()
    except Quit:
        out.print(f"Game left. Replay this deal with --seed {seed}.")
        return 1
    return 0
