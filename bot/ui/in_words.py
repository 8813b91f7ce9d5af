"""The table in words (issue 28 item 7): the whole public table as plain text, for a player who turned
off images and embeds in Discord ("show embeds and link previews") and so sees neither the table's
picture nor its embed. Their private panel carries it (``/skybo display table:text``, bot/ui/display.py).

Pure: reads one seat's own view, which holds what everyone sees and that seat's hand (its panel shows
the hand anyway), never a face-down value (the view does not hold one). Every word comes from the
message catalogues; names are escaped for message text. Each game writes its own words (its
``Game.words``, in its folder); this module fits them to the room, finding them in the registry
(so it stands in the ui, above the games). A game without words gets None.

The text fits the ``limit`` it is given (a Discord message holds 2000 characters, the panel's own
lines come first): a table too big for it in full loses the cards under the discard piles' tops and the
legend, then is cut at a line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.games import registry
from bot.render.names import shown_names

JSON = dict[str, Any]
MESSAGE_LIMIT = 2000  # a Discord message's content
ELLIPSIS = "…"


def table_words(
    kind: str, view: JSON, names: Sequence[str], locale: object, limit: int = MESSAGE_LIMIT
) -> str | None:
    """The table of a game of ``kind`` in words from ``view`` (a seat's own view or a spectator's),
    at most ``limit`` characters; None for a game this module has no words for."""
    game = registry.find(kind)
    words = game.words if game is not None else None
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
