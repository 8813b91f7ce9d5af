"""The tokens a table where the bot is not a member is shown through (bot/ui/token_tables.py): the
freshest one per message, and the dead ones let go, so the map does not grow with every game played."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bot.clock import ManualClock
from bot.ui.token_tables import PRUNE_FROM, TOKEN_LIFE_MS, TokenTables


def surface() -> tuple[TokenTables, ManualClock]:
    clock = ManualClock(start_ms=1_000_000)
    bot: Any = SimpleNamespace(service=SimpleNamespace(clock=clock, tables={}))
    return TokenTables(bot, compose=None, followed=None), clock  # type: ignore[arg-type]


def interaction(name: str) -> Any:
    return SimpleNamespace(followup=name, message=None)


def test_the_freshest_token_is_kept_and_dies_after_15_minutes() -> None:
    tokens, clock = surface()
    tokens.opened(interaction("command"), 7)
    clock.advance(60)
    tokens.opened(interaction("click"), 7)
    live = tokens.live(7)
    assert live is not None and live.webhook == "click"
    clock.advance(TOKEN_LIFE_MS / 1000 - 1)
    assert tokens.live(7) is not None
    clock.advance(1)
    assert tokens.live(7) is None and tokens.live(8) is None


def test_dead_tokens_are_let_go_as_new_ones_come() -> None:
    tokens, clock = surface()
    for message_id in range(300):
        tokens.opened(interaction("old"), message_id)
    assert len(tokens._tokens) == 300  # all alive: none let go
    clock.advance(16 * 60)
    for message_id in range(1000, 1000 + 2 * 300 - 300):
        tokens.opened(interaction("new"), message_id)
    assert len(tokens._tokens) <= 2 * 300 - 300 + PRUNE_FROM
    assert all(token.webhook == "new" for token in tokens._tokens.values())
