"""The table in words (issue 28 item 7): the whole public table as plain text, for a player who turned
off images and embeds in Discord ("show embeds and link previews") and so sees neither the table's
picture nor its embed. Their private panel carries it (``/skybo display table:text``, bot/ui/display.py).

Pure: reads one seat's own view, which holds what everyone sees and that seat's hand (its panel shows
the hand anyway), never a face-down value (the view does not hold one). Every word comes from the
message catalogues; names are escaped for message text. A game without words here gets None.

The text fits the ``limit`` it is given (a Discord message holds 2000 characters, the panel's own
lines come first): a table too big for it in full loses the cards under the discard piles' tops and the
legend, then is cut at a line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.games.skipbo.table import status_line as skipbo_status
from bot.games.skyjo.text import status_line as skyjo_status
from bot.i18n import plural
from bot.i18n import translate as t
from bot.render.names import shown_names

JSON = dict[str, Any]
MESSAGE_LIMIT = 2000  # a Discord message's content
ELLIPSIS = "…"
UNDER_SHOWN = 2  # cards shown under a discard pile's top


def table_words(
    kind: str, view: JSON, names: Sequence[str], locale: object, limit: int = MESSAGE_LIMIT
) -> str | None:
    """The table of a game of ``kind`` in words from ``view`` (a seat's own view or a spectator's),
    at most ``limit`` characters; None for a game this module has no words for."""
    words = WORDS.get(kind)
    if words is None:
        return None
    shown = shown_names(names, locale)
    text = words(view, shown, locale, False)
    if len(text) > limit:
        text = words(view, shown, locale, True)
    if len(text) > limit:
        text = _cut(text, limit)
    return text


def _cut(text: str, limit: int) -> str:
    """``text`` cut at the last whole line that fits, with an ellipsis line."""
    lines = text.split("\n")
    kept: list[str] = []
    size = len(ELLIPSIS)
    for line in lines:
        if size + len(line) + 1 > limit:
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join([*kept, ELLIPSIS])[:limit]


def _value(card: int) -> str:
    return str(card)


# --------------------------------------------------------------------------------------------------
# Skyjo


def _skyjo_cell(cell: int | str) -> str:
    if cell == "down":
        return "?"
    if cell == "gone":
        return "—"
    return _value(int(cell))


def _skyjo(view: JSON, names: Sequence[str], locale: object, brief: bool) -> str:
    phase = view["phase"]
    lines = [t("display.words.title", locale, table=t("skyjo.table.header", locale, round=view["round"]))]
    lines.append(skyjo_status(view, names, locale))
    discard = view["discard_pile"]
    piles = t(
        "display.words.skyjo.piles",
        locale,
        discard=_value(discard[-1]) if discard else "—",
        size=view["draw_pile_size"],
    )
    if view.get("drawn") is not None and phase == "play":
        piles += " · " + t("display.words.skyjo.drawn", locale, value=_value(view["drawn"]))
    lines.append(piles)
    if not brief:
        lines.append(t("display.words.skyjo.legend", locale))
    rows = int(view["rows"])
    for seat, name in enumerate(names):
        grid = view["grids"][seat]
        showing = sum(c for c in grid if isinstance(c, int) and not isinstance(c, bool))
        marker = "▶ " if view.get("turn") == seat and phase == "play" else ""
        # "0 point" / "2 points" (French: singular for 0 and 1); showing: what the face-up cards add up to
        head = plural(
            "display.words.skyjo.player",
            view["totals"][seat],
            locale,
            marker=marker,
            player=name,
            showing=showing,
        )
        columns = [
            f"{c + 1}: " + " ".join(_skyjo_cell(cell) for cell in grid[c * rows : (c + 1) * rows])
            for c in range(int(view["columns"]))
        ]
        lines.append(head)
        lines.append("  " + " · ".join(columns))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# Skip-Bo


def _skipbo_card(card: int, locale: object) -> str:
    return t("skipbo.card.wild", locale) if card == 0 else _value(card)


def _skipbo_pile(pile: Sequence[int], locale: object, brief: bool) -> str:
    """A discard pile, its top first: the top, the cards under it, how many."""
    if not pile:
        return t("display.words.skipbo.empty", locale)
    shown = [_skipbo_card(c, locale) for c in reversed(pile[-1 - (0 if brief else UNDER_SHOWN) :])]
    cards = ", ".join(shown) + (f", {ELLIPSIS}" if len(pile) > len(shown) else "")
    if len(pile) == 1:
        return cards
    return t("display.words.skipbo.pile", locale, cards=cards, count=len(pile))


def _skipbo(view: JSON, names: Sequence[str], locale: object, brief: bool) -> str:
    options = view.get("options") or {}
    several = bool(options.get("several_rounds"))
    header = (
        t("skipbo.table.header_round", locale, round=view["round"])
        if several
        else t("skipbo.table.header", locale)
    )
    lines = [t("display.words.title", locale, table=header), skipbo_status(view, names, locale)]
    building = []
    for number, (value, top) in enumerate(zip(view["building_piles"], view["building_tops"], strict=True), 1):
        if top is None:
            reached = t("display.words.skipbo.empty", locale)
        elif top == 0:
            reached = t("display.words.skipbo.wild_as", locale, value=value)
        else:
            reached = _value(int(value))
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
                card=_skipbo_card(top, locale),
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
            f"{k}: {_skipbo_pile(pile, locale, brief)}"
            for k, pile in enumerate(view["discard_piles"][seat], 1)
        )
        lines.append(head)
        lines.append("  " + t("display.words.skipbo.discards", locale, piles=discards))
    hand = view.get("hand")
    if isinstance(hand, list) and view.get("viewer") is not None:
        cards = ", ".join(_skipbo_card(c, locale) for c in sorted(hand)) or t(
            "display.words.skipbo.empty", locale
        )
        lines.append(t("display.words.skipbo.hand", locale, cards=cards))
    return "\n".join(lines)


WORDS: dict[str, Callable[[JSON, Sequence[str], object, bool], str]] = {
    "skyjo": _skyjo,
    "skipbo": _skipbo,
}
