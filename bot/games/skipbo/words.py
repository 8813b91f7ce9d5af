"""The Skip-Bo table in words (bot.ui.in_words fits it to a panel): building piles, stocks, each
seat's discard piles (their tops first) and the viewer's hand; every word from the catalogues."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.games.skipbo.message import status_line
from bot.i18n import translate as t

JSON = dict[str, Any]
ELLIPSIS = "…"
UNDER_SHOWN = 2  # cards shown under a discard pile's top, unless brief


def _card(card: int, locale: object) -> str:
    return t("skipbo.card.wild", locale) if card == 0 else str(card)


def _pile(pile: Sequence[int], locale: object, brief: bool) -> str:
    """A discard pile, its top first: the top, the cards under it, how many."""
    if not pile:
        return t("display.words.skipbo.empty", locale)
    shown = [_card(c, locale) for c in reversed(pile[-1 - (0 if brief else UNDER_SHOWN) :])]
    cards = ", ".join(shown) + (f", {ELLIPSIS}" if len(pile) > len(shown) else "")
    if len(pile) == 1:
        return cards
    return t("display.words.skipbo.pile", locale, cards=cards, count=len(pile))


def words(view: JSON, names: Sequence[str], locale: object, brief: bool) -> str:
    options = view.get("options") or {}
    several = bool(options.get("several_rounds"))
    header = (
        t("skipbo.table.header_round", locale, round=view["round"])
        if several
        else t("skipbo.table.header", locale)
    )
    lines = [t("display.words.title", locale, table=header), status_line(view, names, locale)]
    building = []
    for number, (value, top) in enumerate(zip(view["building_piles"], view["building_tops"], strict=True), 1):
        if top is None:
            reached = t("display.words.skipbo.empty", locale)
        elif top == 0:
            reached = t("display.words.skipbo.wild_as", locale, value=value)
        else:
            reached = str(int(value))
        building.append(f"{number}: {reached}")
    lines.append(t("display.words.skipbo.building", locale, piles=" · ".join(building)))
    lines.append(t("display.words.skipbo.draw", locale, size=view["draw_pile_size"]))
    if not brief:
        lines.append(t("display.words.skipbo.legend", locale))
    teams = view.get("teams")
    for seat, name in enumerate(names):
        marker = "▶ " if view.get("turn") == seat and view["phase"] == "play" else ""
        team = f" ({t('display.words.skipbo.team', locale, team=teams[seat] + 1)})" if teams else ""
        top = view["stock_tops"][seat]
        stock = (
            t("display.words.skipbo.empty", locale)
            if top is None
            else t(
                "display.words.skipbo.stock",
                locale,
                card=_card(top, locale),
                count=view["stock_sizes"][seat],
            )
        )
        head = t(
            "display.words.skipbo.player",
            locale,
            marker=marker,
            player=name,
            team=team,
            stock=stock,
            hand=view["hand_sizes"][seat],
        )
        if several:
            head += " · " + t("display.words.skipbo.total", locale, total=view["totals"][seat])
        discards = " · ".join(
            f"{k}: {_pile(pile, locale, brief)}" for k, pile in enumerate(view["discard_piles"][seat], 1)
        )
        lines.append(head)
        lines.append("  " + t("display.words.skipbo.discards", locale, piles=discards))
    hand = view.get("hand")
    if isinstance(hand, list) and view.get("viewer") is not None:
        cards = ", ".join(_card(c, locale) for c in sorted(hand)) or t("display.words.skipbo.empty", locale)
        lines.append(t("display.words.skipbo.hand", locale, cards=cards))
    return "\n".join(lines)
