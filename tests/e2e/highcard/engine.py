"""Highest card wins: each seat is dealt one face-down card and shows it in turn; the highest wins.

A game's engine on the shared skeleton (:mod:`bot.engine.skeleton`), which it proves is a game's and not
the two real engines': its state says its deal, its one action and what each seat sees."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from bot.engine.base import Action, Event, OptionsBase, check_seating
from bot.engine.skeleton import GAME_OVER, StateSkeleton, action_reader
from bot.engine.skeleton import NextRound as NextRound  # the engine protocol names it

KIND, MIN_PLAYERS, MAX_PLAYERS = "highcard", 2, 4


@dataclass(frozen=True)
class Options(OptionsBase):
    def validate(self, players: int) -> None:
        check_seating([str(n) for n in range(players)], 0, MIN_PLAYERS, MAX_PLAYERS)


@dataclass(frozen=True)
class Show(Action):
    type: ClassVar[str] = "show"


@dataclass(frozen=True)
class CardShown(Event):
    seat: int
    card: int
    type: ClassVar[str] = "card_shown"


action_from_dict = action_reader(Show)  # one round only: NextRound is never legal, never read


@dataclass(eq=True, slots=True)
class State(StateSkeleton[Options], kind=KIND, seats=(MIN_PLAYERS, MAX_PLAYERS), options=Options):
    turn: int | None = None
    totals: list[int] = field(default_factory=list)
    cards: list[int] = field(default_factory=list)
    shown: list[int | None] = field(default_factory=list)
    turns: int = 0

    def _deal(self) -> list[Event]:
        self.round += 1
        self.cards = self._rng("deal").sample(range(1, 11), len(self.players))
        self.shown, self.turn = [None] * len(self.players), 0
        return []

    def _show(self, seat: int, action: Show, events: list[Event]) -> None:
        self.shown[seat] = self.cards[seat]
        self.turns += 1
        events.append(CardShown(seat, self.cards[seat]))
        if None in self.shown:
            self.turn = seat + 1
        else:
            self.turn, self.phase, self.totals = None, GAME_OVER, list(self.cards)

    def legal_actions(self, seat: int) -> list[Action]:
        return [Show()] if seat == self.turn else []

    def ranks(self) -> list[int]:
        return [1 + sum(other > card for other in self.cards) for card in self.cards]

    def view(self, viewer: int | None = None) -> dict[str, Any]:
        mine = self.cards[viewer] if viewer is not None and 0 <= viewer < len(self.players) else None
        return {**self._view_head(viewer), "shown": list(self.shown), "mine": mine}

    def results(self) -> dict[str, Any]:
        ranks = self.ranks()
        return {
            "kind": KIND,
            "over": self.is_over,
            "players": list(self.players),
            "totals": list(self.cards),
            "ranks": ranks,
            "winners": [s for s, r in enumerate(ranks) if r == 1],
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            **self._dict_head(),
            "turn": self.turn,
            "totals": list(self.totals),
            "cards": list(self.cards),
            "shown": list(self.shown),
            "turns": self.turns,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> State:
        return cls(
            **cls._head_from(data),
            turn=data["turn"],
            totals=list(data["totals"]),
            cards=list(data["cards"]),
            shown=list(data["shown"]),
            turns=data["turns"],
        )


State.TURN_ACTIONS = {Show: State._show}
replay = State.replay
