"""Each player's display choices (``/skybo display``, issue 28 item 7) applied to what the bot shows.

- **The cards' look** of a picture: a picture drawn for one person (a replay they asked for) uses
  their choice; the public table picture, which everyone at the table sees, uses the colour-blind
  cards as soon as one human player of the table chose them (they lose nothing for the others: the
  same cards, a shape more in their corners).
- **The cards' look** of a private panel: a player who chose the colour-blind cards gets, on each
  card button, the shape its card has in the picture (▼ ● ■ ◆ ▲ ★, the game's ``ButtonSpec.mark``)
  before the label, in place of the coloured square that says only a colour (:func:`shaped`);
  everyone else keeps the coloured squares.
- **The table in words**: a player who chose ``table:text`` (they turned off embeds and previews in
  Discord, so they see neither the picture nor the table's embed) gets the whole public table in
  words in their private panel, under its usual lines (:mod:`bot.ui.in_words`).

Choices are read through the service's short cache (:mod:`bot.service.prefs`); a storage error while
reading them falls back to what the cache holds (the defaults if nothing), never to a failed answer.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from bot.games.base import ButtonSpec
from bot.service import Table, TableService
from bot.storage import StorageError
from bot.storage.prefs import DEFAULT_PREFS, UserPrefs
from bot.ui.in_words import MESSAGE_LIMIT, table_words

log = logging.getLogger(__name__)

CLASSIC, COLOURBLIND = "classic", "colourblind"
TEXT = "text"


async def prefs_of(service: TableService, user_ids: Iterable[int | None]) -> dict[int, UserPrefs]:
    """The users' choices, read into the service's cache; on a storage error, what the cache holds."""
    users = [u for u in user_ids if u is not None]
    try:
        return await service.prefs_of(users)
    except StorageError:
        log.warning("display choices not read", extra={"users": len(users)})
        return {u: service.cached_prefs(u) for u in users}


async def table_cards(service: TableService, table: Table) -> str:
    """The cards' look of the public table picture: colour-blind when a human player chose it."""
    prefs = await prefs_of(service, (seat.user_id for seat in table.stored.seats))
    return COLOURBLIND if any(p.cards == COLOURBLIND for p in prefs.values()) else CLASSIC


async def own_prefs(service: TableService, user_id: int) -> UserPrefs:
    """One user's choices (a picture drawn for them alone, a panel about to be shown)."""
    return (await prefs_of(service, (user_id,))).get(user_id, DEFAULT_PREFS)


def panel_cards(service: TableService, user_id: int | None) -> str:
    """The cards' look of this user's panel (from the cache, as :func:`wants_words`)."""
    return CLASSIC if user_id is None else service.cached_prefs(user_id).cards


def shaped(spec: ButtonSpec, cards: str) -> ButtonSpec:
    """A panel button in the cards' look ``cards``: with the colour-blind cards, a card's button shows
    its shape mark before its label instead of its colour emoji; any other button is unchanged."""
    if cards != COLOURBLIND or not spec.mark:
        return spec
    return replace(spec, label=f"{spec.mark} {spec.label}", emoji=None)


def wants_words(service: TableService, user_id: int | None) -> bool:
    """Whether this user's panel carries the table in words (from the cache: a panel is drawn under
    the channel's lock, where the database is not read)."""
    return user_id is not None and service.cached_prefs(user_id).table == TEXT


def with_words(content: str, kind: str, view: dict[str, Any], names: Sequence[str], locale: object) -> str:
    """A panel's ``content`` and, under it, the table in words, the whole within a message's limit."""
    room = MESSAGE_LIMIT - len(content) - 2
    words = table_words(kind, view, names, locale, room) if room > 0 else None
    return f"{content}\n\n{words}" if words else content
