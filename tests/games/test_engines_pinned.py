"""Stored games replay identically (issue 48, E2): whole seeded games of each engine, and all that they
put out, hashed: every action and its JSON (read back too), the events, each seat's view and the
spectator's, the stored state, the results, the seats to act and the legal actions, and the refusal
of a few bad moves (its error and key). The hashes were taken on the engines before they shared a
skeleton (:mod:`bot.engine.skeleton`); a change of any of these, however small, changes a hash.

A hash that changes on purpose (a rule changed) is taken again with ``PRINT_PINS=1``, and the
change said in the commit: stored games of that kind are then verified by replay at the next start
(``engine_fingerprint``)."""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from bot.engine.errors import GameError
from bot.games.skipbo import engine as skipbo
from bot.games.skyjo import engine as skyjo
from bot.storage.game_types import canonical_json

# (engine, players, options, seed): a few tables each, their options varied.
TABLES: dict[str, list[tuple[ModuleType, int, dict[str, Any], int]]] = {
    "skyjo": [
        (skyjo, 2, {"score_limit": 50}, 11),
        (
            skyjo,
            3,
            {"columns": 2, "rows": 2, "row_clearing": True, "initial_reveals": 0, "score_limit": 40},
            12,
        ),
        (skyjo, 5, {"previous_finisher_starts": True, "finisher_multiplier": 3, "score_limit": 40}, 13),
    ],
    "skipbo": [
        (skipbo, 2, {"stock_size": 8}, 21),
        (skipbo, 4, {"teams": True, "stock_size": 6, "several_rounds": True, "score_limit": 60}, 22),
        (skipbo, 3, {"stock_size": 5, "several_rounds": True, "score_limit": 100}, 23),
    ],
}
# Taken again once, on purpose (issue 48, names): an event's JSON names its wire name ``type``, not
# ``kind``. With that one key read back as ``kind``, both games still gave the hashes taken before the
# skeleton (skyjo 16f260c2..., skipbo fc4546a1...): nothing else changed.
PINS = {
    "skyjo": "79fdfb4b4989dcf4f1e8899a8c8aab5d0a5dbc454484f36dc862af36e9e221a4",
    "skipbo": "b6c7d67312517b378551aa98fae6c159c76bf5824d2503592129f35d28f8d2a9",
}
MAX_STEPS = 600
# Serialised actions, well-formed or not, read by each engine (what it makes of them is pinned too).
READ: list[Any] = [
    None, [], "draw", {}, {"type": 1}, {"type": "draw"}, {"type": "draw", "pos": 1}, {"type": "reveal"},
    {"type": "reveal", "pos": 3}, {"type": "reveal", "pos": "3"}, {"type": "reveal", "pos": True},
    {"type": "reveal", "pos": 3, "x": 0}, {"type": "take", "pos": -1}, {"type": "replace", "pos": 99},
    {"type": "discard", "pos": 2}, {"type": "next_round"}, {"type": "next_round", "pos": 1},
    {"type": "end_turn"}, {"type": "end_turn", "x": 1},
    {"type": "play", "source": "hand", "index": 0, "card": 1, "pile": 0, "value": 1},
    {"type": "play", "source": 1, "index": 0, "card": 1, "pile": 0, "value": 1},
    {"type": "play", "source": "hand", "index": 0, "card": 1, "pile": 0},
    {"type": "play", "source": "hand", "index": 0, "card": 1.0, "pile": 0, "value": 1},
    {"type": "play", "source": "hand", "index": 0, "card": 1, "pile": 0, "value": 1, "x": 1},
    {"type": "discard", "card": 1, "pile": 0}, {"type": "discard", "card": 1, "pile": 0, "source": "stock"},
    {"type": "discard", "card": 1, "pile": 0, "x": "hand"},
    {"type": "discard", "card": 1, "pile": 0, "source": 2},
    {"type": "discard", "card": False, "pile": 0}, {"type": "discard", "card": 1},
]  # fmt: skip


def _refusal(game: Any, seat: Any, action: Any) -> list[Any]:
    """What ``apply`` answers to a bad move: its error's class and key (and that nothing changed)."""
    before = game.to_dict()
    try:
        game.apply(seat, action)
    except GameError as error:
        assert game.to_dict() == before
        return [type(error).__name__, error.key, error.params]
    raise AssertionError(f"{action!r} by {seat!r} was not refused")


def _read(engine: ModuleType, out: Callable[[Any], None]) -> None:
    for data in READ:
        try:
            out(["read", engine.action_from_dict(data).to_dict()])
        except GameError as error:
            out(["unread", type(error).__name__, error.key, error.params])


def _playout(
    engine: ModuleType, players: int, options: dict[str, Any], seed: int, out: Callable[[Any], None]
) -> None:
    names = [f"p{i}" for i in range(players)]
    game = engine.State.new(names, seed, engine.Options(**options))
    rng = random.Random(seed)
    log = []
    for _ in range(MAX_STEPS):
        out(["views", [game.view(v) for v in (None, *range(players))]])
        out(["state", game.to_dict(), game.results(), game.seats_to_act(), game.is_over])
        if game.is_over:
            break
        seats = game.seats_to_act()
        idle = [s for s in range(players) if s not in seats]
        out(["legal", [[a.to_dict() for a in game.legal_actions(s)] for s in range(players)]])
        seat = rng.choice(seats)
        legal = game.legal_actions(seat)
        # Mostly the first legal action (a play before a discard), else any: games that move on.
        action = legal[0] if rng.random() < 0.6 else rng.choice(legal)
        out(["refused", _refusal(game, players, action), _refusal(game, -1, action)])
        if idle:
            out(["refused", _refusal(game, idle[0], action)])
        if game.phase != "round_over":
            out(["refused", _refusal(game, seat, engine.NextRound())])
        data = action.to_dict()
        assert engine.action_from_dict(data) == action
        events = game.apply(seat, action)
        log.append((seat, action))
        out(["moved", seat, data, [e.to_dict() for e in events]])
    assert game.is_over, "the pinned game must end within MAX_STEPS"
    again = engine.replay(names, seed, engine.Options(**options), log)
    assert again == game
    assert engine.State.from_dict(game.to_dict()) == game


@pytest.mark.parametrize("which", sorted(TABLES))
def test_whole_games_put_out_what_they_did_before_the_skeleton(which: str) -> None:
    digest = hashlib.sha256()

    def out(item: Any) -> None:
        digest.update(canonical_json(item).encode())
        digest.update(b"\n")

    _read(TABLES[which][0][0], out)
    for engine, players, options, seed in TABLES[which]:
        _playout(engine, players, options, seed, out)
    if os.environ.get("PRINT_PINS"):
        print(f"{which}: {digest.hexdigest()}")
    assert digest.hexdigest() == PINS[which]
