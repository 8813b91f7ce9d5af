"""`python -m bot play skipbo`: a game of Skip-Bo in this terminal against computer players.

Input and output are injectable (``main(args, input_fn=..., console=...)``) so a whole game can be
scripted in a test. The table shows only what the human player's seat may see (their view).
"""

from __future__ import annotations

import argparse
import random
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console

from bot.engine.errors import GameError
from bot.games.skipbo import ai, engine
from bot.render.names import computer_name

HUMAN = 0
MAX_ACTIONS = 100_000


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bot play skipbo", description=__doc__)
    parser.add_argument("--opponents", type=int, default=3, help="computer players (1..5)")
    parser.add_argument("--level", default="normal", choices=sorted(ai.LEVELS), help="their level")
    parser.add_argument("--seed", type=int, default=None, help="seed of the game (random if absent)")
    parser.add_argument("--stock", type=int, default=0, help="stock size (0: official, else 5..30)")
    parser.add_argument("--teams", action="store_true", help="teams of two (3 or 5 opponents)")
    parser.add_argument("--rounds", action="store_true", help="several rounds scored up to the limit")
    parser.add_argument("--score-limit", type=int, default=500, help="the match limit with --rounds")
    return parser


def card_text(card: int | None) -> str:
    if card is None:
        return "-"
    return "SB" if card == engine.WILD else str(card)


def describe(action: engine.Action, names: Sequence[str], seat: int) -> str:
    """A short English description of an action of ``seat``."""
    if isinstance(action, engine.Play):
        where = {
            engine.HAND: "hand",
            engine.STOCK: "stock",
            engine.DISCARD: f"discard pile {action.index + 1}",
            engine.PARTNER_STOCK: "partner's stock",
            engine.PARTNER_DISCARD: f"partner's discard pile {action.index + 1}",
        }.get(action.source, action.source)
        as_value = f" as {action.value}" if action.card == engine.WILD else ""
        return f"play {card_text(action.card)} from {where} on building pile {action.pile + 1}{as_value}"
    if isinstance(action, engine.Discard):
        return f"discard {card_text(action.card)} on discard pile {action.pile + 1}"
    if isinstance(action, engine.EndTurn):
        return "end the turn (empty hand, nothing to draw)"
    if isinstance(action, engine.NextRound):
        return "deal the next round"
    return action.type


def describe_event(event: engine.Event, names: Sequence[str]) -> str | None:
    """One line for the events worth telling; None for the others."""
    if isinstance(event, engine.CardPlayed):
        src = event.source.replace("_", " ")
        index = f" {event.index + 1}" if "discard" in event.source else ""
        as_value = f" as {event.value}" if event.card == engine.WILD else ""
        return (
            f"{names[event.seat]} plays {card_text(event.card)} from {src}{index} "
            f"on building pile {event.pile + 1}{as_value}"
        )
    if isinstance(event, engine.CardDiscarded):
        return f"{names[event.seat]} discards {card_text(event.card)} on discard pile {event.pile + 1}"
    if isinstance(event, engine.PileCompleted):
        return f"building pile {event.pile + 1} is complete and set aside"
    if isinstance(event, engine.StockRevealed):
        return f"{names[event.seat]} turns up {card_text(event.card)} ({event.left} left in stock)"
    if isinstance(event, engine.DrawPileRefilled):
        return f"the draw pile is refilled with {event.size} cards"
    if isinstance(event, engine.RoundEnded):
        if event.stalled:
            return f"round {event.round} ends in a draw: nothing more can be played"
        who = " and ".join(names[s] for s in event.winners)
        return f"round {event.round}: {who} emptied the stock!"
    return None


def render_table(console: Console, view: dict[str, Any]) -> None:
    names: list[str] = view["players"]
    piles = "  ".join(f"[{i + 1}] {v if v else '-'}" for i, v in enumerate(view["building_piles"]))
    console.print(f"\n[bold]Round {view['round']}[/bold]  building piles: {piles}")
    console.print(f"draw pile: {view['draw_pile_size']}  set aside: {view['set_aside_size']}")
    teams = view["teams"]
    for seat, name in enumerate(names):
        discards = " | ".join(" ".join(card_text(c) for c in p) or "-" for p in view["discard_piles"][seat])
        team = f" (team {teams[seat] + 1})" if teams else ""
        marker = "*" if seat == view["turn"] else " "
        console.print(
            f"{marker} {name}{team}: stock {view['stock_sizes'][seat]} "
            f"(top {card_text(view['stock_tops'][seat])}), hand {view['hand_sizes'][seat]}, "
            f"discards: {discards}"
        )
    if view["hand"] is not None:
        console.print(f"[bold]your hand:[/bold] {' '.join(card_text(c) for c in view['hand'])}")
    if any(view["totals"]):
        console.print("totals: " + ", ".join(f"{n} {t}" for n, t in zip(names, view["totals"], strict=True)))


def main(
    args: Sequence[str],
    input_fn: Callable[[str], str] = input,
    console: Console | None = None,
) -> int:
    parsed = build_parser().parse_args(list(args))
    out = console or Console()
    if not 1 <= parsed.opponents <= engine.MAX_PLAYERS - 1:
        out.print("error: 1 to 5 opponents")
        return 2
    seed = parsed.seed if parsed.seed is not None else secrets.randbelow(2**31)
    # A computer player has the same name as at a Discord table (bot.render.names).
    names = ["you"] + [computer_name(i, parsed.level) for i in range(1, parsed.opponents + 1)]
    options = engine.Options(
        stock_size=parsed.stock,
        teams=parsed.teams,
        several_rounds=parsed.rounds,
        score_limit=parsed.score_limit,
    )
    try:
        game = engine.State.new(names, seed, options)
    except GameError as exc:
        out.print(f"error: {exc.key} {exc.params}")
        return 2
    policy = ai.LEVELS[parsed.level]
    rngs = {seat: random.Random(f"play:{seed}:{seat}") for seat in range(len(names))}
    players = "computer player" if parsed.opponents == 1 else "computer players"
    out.print(f"Skip-Bo, seed {seed}: you against {parsed.opponents} {parsed.level} {players}.")
    for _ in range(MAX_ACTIONS):
        if game.is_over:
            break
        seat = game.seats_to_act()[0]
        if seat == HUMAN or game.phase == engine.ROUND_OVER:
            action = _ask(game, out, input_fn, names)
            if action is None:
                out.print("bye.")
                return 0
            seat = HUMAN
        else:
            action = policy(game.view(seat), rngs[seat])
        try:
            events = game.apply(seat, action)
        except GameError as exc:  # a typed move the rules refuse: say why and ask again
            out.print(f"[red]not allowed:[/red] {exc.key}")
            continue
        for event in events:
            line = describe_event(event, names)
            if line:
                out.print(line)
    results = game.results()
    if results["draw"]:
        out.print("[bold]The game ends in a draw.[/bold]")
    else:
        winners = " and ".join(names[s] for s in results["winners"])
        out.print(f"[bold]{winners} won the game.[/bold]")
    out.print(f"ranks: {', '.join(f'{n} {r}' for n, r in zip(names, results['ranks'], strict=True))}")
    return 0


def _ask(
    game: engine.State, out: Console, input_fn: Callable[[str], str], names: Sequence[str]
) -> engine.Action | None:
    """Show the table and the legal moves of the human seat; read one; None to quit."""
    render_table(out, game.view(HUMAN))
    actions = game.legal_actions(HUMAN)
    for number, action in enumerate(actions, 1):
        out.print(f"  {number:>2}. {describe(action, names, HUMAN)}")
    while True:
        try:
            answer = input_fn("your move (number, q to quit): ").strip().lower()
        except EOFError:
            return None
        if answer in ("q", "quit", "exit"):
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(actions):
            return actions[int(answer) - 1]
        out.print(f"type a number from 1 to {len(actions)}, or q")
