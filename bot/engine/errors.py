"""Domain errors raised by the pure game engines, each carrying a stable message key."""

from __future__ import annotations

from typing import Any


class GameError(Exception):
    """An action or a setting the rules refuse.

    `key` is a stable message-catalogue key (for example ``error.not_your_turn``); `params` fill its
    placeholders. The message never contains a hidden card.
    """

    key: str = "error.illegal"

    def __init__(self, key: str | None = None, **params: Any) -> None:
        if key is not None:
            self.key = key
        self.params = params
        super().__init__(self.key if not params else f"{self.key} {params}")


class IllegalMove(GameError):
    """The action does not fit the rules in the current state."""

    key = "error.illegal_move"


class NotYourTurn(GameError):
    """The player tried to act while another player is to play."""

    key = "error.not_your_turn"


class WrongPhase(GameError):
    """The action belongs to another phase of the game (initial reveals, turns, between rounds)."""

    key = "error.wrong_phase"


class NotAPlayer(GameError):
    """The seat is not at this table."""

    key = "error.not_a_player"


class GameOver(GameError):
    """The game has ended: nothing more can be played."""

    key = "error.game_over"


class InvalidOptions(GameError):
    """The table settings are out of range."""

    key = "error.invalid_options"


class MalformedAction(GameError):
    """A serialised action could not be understood (unknown type, missing or bad field)."""

    key = "error.malformed_action"


class UnknownGameKind(GameError):
    """No engine exists for that game kind."""

    key = "error.unknown_game_kind"
