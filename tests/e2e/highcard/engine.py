"""Highest card wins: each seat is dealt one face-down card and shows it in turn; the highest wins."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from bot.engine.base import Action, Event, OptionsBase, check_seating, derived_rng
from bot.engine.errors import GameOver, MalformedAction, NotYourTurn

KIND, MIN_PLAYERS, MAX_PLAYERS = "highcard", 2, 4
PLAY, GAME_OVER = "play", "game_over"


@dataclass(frozen=True)
class Options(OptionsBase):
    def validate(self, players: int) -> None:
        check_seating([str(n) for n in range(players)], 0, MIN_PLAYERS, MAX_PLAYERS)


@dataclass(frozen=True)
class Show(Action):
    type: ClassVar[str] = "show"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type}


@dataclass(frozen=True)
class NextRound(Action):  # one round only: never legal, but the protocol names it
    type: ClassVar[str] = "next_round"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type}


@dataclass(frozen=True)
class CardShown(Event):
    seat: int
    card: int
    kind: ClassVar[str] = "card_shown"


class Game:
    def __init__(self, players: Sequence[str], seed: int, options: Options, cards: list[int]) -> None:
        self.players, self.seed, self.options, self.cards = list(players), seed, options, cards
        self.shown: list[int | None] = [None] * len(players)
        self.round, self.turns = 1, 0

    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Options | None = None) -> Game:
        check_seating(players, seed, MIN_PLAYERS, MAX_PLAYERS)
        return cls(
            players,
            seed,
            options or Options(),
            derived_rng(KIND, seed, 1, "deal").sample(range(1, 11), len(players)),
        )

    @property
    def turn(self) -> int | None:
        return None if self.is_over else self.shown.index(None)

    @property
    def phase(self) -> str:
        return GAME_OVER if self.is_over else PLAY

    @property
    def is_over(self) -> bool:
        return None not in self.shown

    def seats_to_act(self) -> list[int]:
        return [] if self.turn is None else [self.turn]

    def legal_actions(self, seat: int) -> list[Action]:
        return [Show()] if seat == self.turn else []

    def apply(self, seat: int, action: Action) -> list[Event]:
        if self.is_over:
            raise GameOver()
        if seat != self.turn or not isinstance(action, Show):
            raise NotYourTurn()
        self.shown[seat] = self.cards[seat]
        self.turns += 1
        return [CardShown(seat, self.cards[seat])]

    def ranks(self) -> list[int]:
        return [1 + sum(other > card for other in self.cards) for card in self.cards]

    def view(self, viewer: int | None = None) -> dict[str, Any]:
        mine = self.cards[viewer] if viewer is not None and 0 <= viewer < len(self.players) else None
        return {"phase": self.phase, "round": 1, "turn": self.turn, "players": list(self.players),
                "shown": list(self.shown), "mine": mine, "viewer": viewer}  # fmt: skip

    def results(self) -> dict[str, Any]:
        ranks = self.ranks()
        return {"kind": KIND, "over": self.is_over, "players": list(self.players), "totals": list(self.cards),
                "ranks": ranks, "winners": [s for s, r in enumerate(ranks) if r == 1]}  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return {"players": self.players, "seed": self.seed, "options": self.options.to_dict(),
                "cards": self.cards, "shown": self.shown, "turns": self.turns}  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        game = cls(data["players"], data["seed"], Options.from_dict(data["options"]), data["cards"])
        game.shown, game.turns = data["shown"], data["turns"]
        return game


def action_from_dict(data: Any) -> Action:
    if data == {"type": "show"}:
        return Show()
    raise MalformedAction()


def replay(
    players: Sequence[str], seed: int, options: Options | None, actions: Iterable[tuple[int, Action]]
) -> Game:
    game = Game.new(players, seed, options)
    for seat, action in actions:
        game.apply(seat, action)
    return game
