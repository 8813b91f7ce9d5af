"""Highest card wins at a Discord table: its panel, its table message and its rules, in one module
(it satisfies the Panel, TableMessage and Rules protocols of :mod:`bot.games.base` at once)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from bot.games.base import ButtonSpec
from bot.games.buttons import encode
from bot.render.messages import MessageBody, recent_lines, shown_seat_names

from .engine import Show

SHOW = "sw"
MODES = frozenset({0})
GAME_ACTS = frozenset({SHOW})


def panel_rows(
    view: dict[str, Any], seat: int, game_id: int, version: int, mode: int = 0, locale: object = None
) -> list[list[ButtonSpec]]:
    label = f"Show my {view['mine']}"
    return [[ButtonSpec(encode("hc", game_id, version, SHOW), label, "success", view["turn"] != seat)]]


def panel_title(view: dict[str, Any], locale: object = None) -> str:
    return "Highest card wins"


def panel_hint(
    view: dict[str, Any], seat: int, names: Sequence[str], mode: int = 0, locale: object = None
) -> str:
    return "Your turn: show your card." if view["turn"] == seat else "Wait for your turn."


def action_for(act: str, arg: int) -> Any:
    return Show() if act == SHOW else None


def moves(view: dict[str, Any], seat: int | None) -> list[dict[str, Any]]:
    return [{"act": SHOW, "arg": 0}] if seat is not None and view["turn"] == seat else []


def describe(events: Sequence[dict[str, Any]], names: Sequence[str], locale: object) -> list[str]:
    return [f"{names[e['seat']]} showed a {e['card']}" for e in events if e["type"] == "card_shown"]


def table_body(
    view: dict[str, Any],
    names: Sequence[str],
    *,
    locale: object,
    recent: Iterable[tuple[int, list[dict[str, Any]]]] = (),
    replaced: Iterable[int] = (),
    waiting_round: Sequence[int] = (),
    resumed: bool = False,
    ended_by: int | None = None,
    image_url: str | None = None,
) -> MessageBody:
    shown = shown_seat_names(names, replaced, locale)
    cards = [
        f"{name}: {card if card is not None else '?'}"
        for name, card in zip(shown, view["shown"], strict=True)
    ]
    if view["phase"] == "game_over":
        best = max(view["shown"])
        status = "Winner: " + ", ".join(n for n, c in zip(shown, view["shown"], strict=True) if c == best)
    else:
        status = f"{shown[view['turn']]} to play"
    lines = [status, *cards, *recent_lines(recent, shown, locale, describe)]
    return MessageBody(embed={"title": "Highest card wins", "description": "\n".join(lines)})


def option_lines(options: dict[str, Any], locale: object) -> list[str]:
    return ["One card each; the highest wins."]


def turn_mention(user_id: int, locale: object) -> str:
    return f"<@{user_id}>, your turn."


def rules_text(options: Any, locale: object = None) -> str:
    return "Highest card wins: show your card in turn; the highest card wins."
