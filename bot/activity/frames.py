"""The Activity's websocket frames (docs/activity.md, protocol 1): what the bot sends a page, built from a
seat's own view only, and what a page may send, read strictly.

Pure functions of a view and the game (:class:`bot.games.base.Game`): no service, no discord, no I/O, so
the backend that serves the pages and the tests' stand-in build the very same frames. A page's frame is
only ever built from ``view(seat)`` for that page's seat (``view(None)`` for a spectator): nothing here
can put another seat's hidden card in it, and :func:`table` refuses a view that is not that seat's.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from bot.games.base import Game
from bot.render.messages import recent_lines
from bot.render.names import page_name

JSON = dict[str, Any]
PROTOCOL: Final = 1  # a page speaking another major version reloads itself (docs/activity.md)
LANGUAGES: Final = ("en", "fr")
CARDS: Final = ("classic", "colourblind")  # the player's display choice (bot.render.images.CARD_THEMES)
MAX_PAGE_FRAME: Final = 512  # characters: a page's frames are tiny; anything longer is refused unread
KEY: Final = re.compile(r"^[A-Za-z0-9_-]{8,64}$")  # a move's idempotency key, chosen by the page
ACT: Final = re.compile(r"^[a-z]{2}$")  # the panel's two-letter acts (bot.games.buttons)
MAX_ARG: Final = 9999  # a custom_id's arg has at most 4 digits (bot.games.buttons.PATTERN)
RECENT: Final = 5  # the last moves a table frame tells
# Why a page's connection ends for good (``bye``) or for a while (``sleep``): codes, the page says them.
BYE_REASONS: Final = ("ended", "gone", "session", "elsewhere", "protocol")
SLEEP_REASONS: Final = ("restart", "waiting")
ENDINGS: Final = ("finished", "ended_by_hand", "gone", "cancelled", "quarantined")


# --------------------------------------------------------------------------------------------------
# Server -> page


def hello(
    *,
    user_id: int,
    user_name: str,
    seat: int | None,
    language: str,
    cards: str,
    kind: str,
    table_id: int,
) -> JSON:
    """The first frame of every connection: who the page's user is, where they sit (None: watching),
    their language and cards, and the game (its ``kind`` picks the page's board)."""
    if language not in LANGUAGES or cards not in CARDS:
        raise ValueError(f"bad language {language!r} or cards {cards!r}")
    return {
        "type": "hello",
        "protocol": PROTOCOL,
        "user": {"id": str(user_id), "name": page_name(user_name)},
        "seat": seat,
        "language": language,
        "cards": cards,
        "kind": kind,
        "table": str(table_id),
    }


def table(
    game: Game,
    view: JSON,
    *,
    version: int,
    seat: int | None,
    names: Sequence[str],
    locale: object,
    recent: Iterable[tuple[int, list[JSON]]] = (),
    computers: Iterable[int] = (),
    turn_ends_in: float | None = None,
    key: str | None = None,
) -> JSON:
    """The table as ``seat`` sees it at ``version``: its own ``view`` (``game``'s engine
    ``view(seat)``), the seats' names in ``locale``, the last moves in words, and the moves ``seat``
    may make now (``game.panel.moves``, read from the same view). ``recent``: the table's recent
    ``(seat, events)``; ``computers``: the seats a computer plays; ``turn_ends_in``: seconds left on
    the turn's timer (None: no timer); ``key``: the key of this page's move the frame answers."""
    if view.get("viewer") != seat:
        raise ValueError("a page's table frame is built from its own seat's view only")
    shown = [page_name(name, locale) for name in names]
    describe = game.describe_events
    lines = recent_lines(recent, shown, locale, describe, RECENT) if describe is not None else []
    return {
        "type": "table",
        "version": version,
        "seat": seat,
        "view": view,
        "names": shown,
        "computers": sorted(set(computers)),
        "to_act": list(view.get("to_act") or []),
        "scores": list(view.get("totals") or []),
        "turn_ends_in": None if turn_ends_in is None else round(max(0.0, turn_ends_in), 1),
        "recent": lines,
        "moves": game.panel.moves(view, seat),
        "key": key,
    }


def refused(reason: str, *, key: str | None = None) -> JSON:
    """A move or hint refused, nothing changed: ``reason`` in the page's language (the bot's words)."""
    return {"type": "refused", "reason": reason, "key": key}


def hint(text: str) -> JSON:
    """The hint asked for (the panels' hint: the normal computer player's move, in words)."""
    return {"type": "hint", "text": text}


def ended(results: JSON, *, how: str) -> JSON:
    """The game ended (``how``: :data:`ENDINGS`): the engine's public ``results()``."""
    if how not in ENDINGS:
        raise ValueError(f"bad ending {how!r}")
    return {"type": "ended", "how": how, "results": results}


def sleep(reason: str) -> JSON:
    """The bot goes away for a moment (a restart): the page reconnects by itself."""
    if reason not in SLEEP_REASONS:
        raise ValueError(f"bad reason {reason!r}")
    return {"type": "sleep", "reason": reason}


def bye(reason: str) -> JSON:
    """The connection ends for good (:data:`BYE_REASONS`): the page does not reconnect."""
    if reason not in BYE_REASONS:
        raise ValueError(f"bad reason {reason!r}")
    return {"type": "bye", "reason": reason}


def pong() -> JSON:
    return {"type": "pong"}


def encode(frame: JSON) -> str:
    """A frame as the text the websocket carries (compact JSON, UTF-8 kept)."""
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------------------------------
# Page -> server


class BadFrame(ValueError):
    """A page's frame that is not protocol 1 (the server answers ``bye("protocol")`` or ignores it)."""


@dataclass(frozen=True, slots=True)
class Move:
    """A move: the panel's ``act`` and ``arg`` (:func:`bot.games.base.Panel.action_for` reads them),
    the ``version`` the page saw, and the page's ``key`` for it (the same key is the same move)."""

    act: str
    arg: int
    version: int
    key: str


@dataclass(frozen=True, slots=True)
class HintAsk:
    version: int


@dataclass(frozen=True, slots=True)
class Ping:
    pass


def _int(value: Any, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise BadFrame("a number out of range")
    return value


def read(text: str | bytes) -> Move | HintAsk | Ping:
    """A page's frame, checked whole: a JSON object of a known type with exactly its fields, each of
    its type and range. Anything else raises :class:`BadFrame`."""
    if len(text) > MAX_PAGE_FRAME:
        raise BadFrame("too long")
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        raise BadFrame("not JSON") from None
    if not isinstance(data, dict):
        raise BadFrame("not an object")
    kind = data.get("type")
    if kind == "ping" and data.keys() == {"type"}:
        return Ping()
    if kind == "hint" and data.keys() == {"type", "version"}:
        return HintAsk(_int(data["version"], 0, 10**9))
    if kind == "move" and data.keys() == {"type", "act", "arg", "version", "key"}:
        act, key = data["act"], data["key"]
        if not isinstance(act, str) or not ACT.match(act) or not isinstance(key, str) or not KEY.match(key):
            raise BadFrame("a bad act or key")
        return Move(act, _int(data["arg"], -MAX_ARG, MAX_ARG), _int(data["version"], 0, 10**9), key)
    raise BadFrame("an unknown frame")


def service_key(user_id: int, key: str) -> int:
    """The idempotency key the service commits a page's move with (a click commits with its interaction
    id): 63 bits of SHA-256 over the user and the page's key, so that two users' keys never meet and a
    move sent twice is one move."""
    digest = hashlib.sha256(f"activity:{user_id}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
