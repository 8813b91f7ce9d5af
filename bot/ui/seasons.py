"""What players read of seasons (issue 41): the podium posted at a season's end (a picture drawn by
:mod:`bot.render.podium` and its words, one Components V2 container as every table, lobby and
tournament message: issue 40), a season board's title, and the seasons of a ``/stats`` card.

Plain data, no discord (as :mod:`bot.ui.boards`): ``cogs/settings.py`` and ``cogs/stats.py`` send them.
The games are read from the registry (a podium's kinds are stored names), so this is the ui's, above the
games, and the picture's words are given in the reader's language.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.i18n import translate as t
from bot.render.messages import JSON, MessageBody, layout_of
from bot.render.names import escape_name
from bot.render.numbers import number
from bot.render.podium import Column, Step, draw_podium
from bot.storage.ratings import PlayerStats, is_provisional
from bot.storage.seasons import PodiumPlace, Season
from bot.ui.boards import CARD_GAMES, MAX_NAME, game_name, place

PODIUM_FILE = "podium.png"
COLOUR_PODIUM = 0xD4AF37
MAX_SEASONS_SHOWN = 10  # seasons on a /stats card (the latest)
MAX_FIELD = 1024


def _ordered_kinds(kinds: Sequence[str]) -> list[str]:
    """The registry's order, then any stored kind it no longer knows."""
    return [k for k in CARD_GAMES if k in kinds] + sorted(k for k in kinds if k not in CARD_GAMES)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _figure(step: PodiumPlace, locale: object) -> str:
    """A podium's figure: the season rating, or "provisional" before its fifth game of the season (as
    on the boards: an early loss never reads as a penalty)."""
    return t("lb.provisional", locale) if is_provisional(step.games) else number(step.rating, locale)


def matching_names(seasons: Sequence[Season], typed: str, *, ended_only: bool = False) -> list[str]:
    """The names of ``seasons`` (in their order) that contain ``typed``, case-folded; at most 25 (an
    autocomplete's limit)."""
    wanted = typed.casefold().strip()
    names = [s.name for s in seasons if not (ended_only and s.running) and wanted in s.name.casefold()]
    return names[:25]


def season_where(season: Season, locale: object) -> str:
    """A season's board said in a leaderboard title: "season Spring" / "Spring (ended)"."""
    key = "season.board.running" if season.running else "season.board.ended"
    return t(key, locale, name=escape_name(season.name))


def podium_picture(season: Season, locale: object) -> bytes:
    """The podium as a PNG: each game's three best people of the season, with their season rating (the
    figure alone: a step is narrow, and the words under the picture and the board say the rest)."""
    podium = season.podium or {}
    columns = [
        Column(
            game_name(kind, locale),
            [
                Step(p.place, _clip(p.display_name, MAX_NAME), _figure(p, locale))
                for p in podium[kind]
            ],
        )
        for kind in _ordered_kinds(list(podium))
    ]  # fmt: skip
    title = t("season.podium.title", locale, name=season.name)
    return draw_podium(title, columns, t("season.podium.empty", locale))


def podium_layout(season: Season, locale: object, *, just_ended: bool) -> list[JSON]:
    """The podium's message as one Components V2 container (:func:`bot.render.messages.layout_of`):
    its title as a heading, each game's best in text (mentions of the people, which ping nobody: the
    caller allows no mention), the picture in a media gallery (attached as :data:`PODIUM_FILE`), and
    the footer in small print; the caller sends it as a :class:`bot.discord_patches.LayoutPayload`."""
    podium = season.podium or {}
    lines: list[str] = []
    for kind in _ordered_kinds(list(podium)):
        steps = ", ".join(
            t("season.podium.line", locale, place=place(p.place), name=f"<@{p.player[5:]}>",
              rating=_figure(p, locale))
            if p.player.startswith("user:") else escape_name(p.display_name)
            for p in podium[kind]
        )  # fmt: skip
        lines.append(t("season.podium.game", locale, game=game_name(kind, locale), steps=steps))
    if not lines:
        lines.append(t("season.podium.empty", locale))
    title_key = "season.ended.title" if just_ended else "season.podium.again"
    embed: dict[str, Any] = {
        "title": _clip(t(title_key, locale, name=escape_name(season.name)), 256),
        "description": "\n".join(lines),  # layout_of keeps the text within Discord's 4,000
        "image": {"url": f"attachment://{PODIUM_FILE}"},
        "footer": {"text": t("season.ended.footer", locale)},
    }
    return layout_of(MessageBody(embed=embed), accent=COLOUR_PODIUM)


def stats_seasons_field(
    seasons: Sequence[Season], rows: Sequence[PlayerStats], locale: object
) -> dict[str, Any] | None:
    """The ``/stats`` field of a player's seasons on this server: per season (latest first), their
    place and shown rating in each game they played in it; None when they played in none."""
    by_scope: dict[int, list[PlayerStats]] = {}
    for row in rows:
        by_scope.setdefault(row.scope, []).append(row)
    order = {kind: i for i, kind in enumerate(CARD_GAMES)}
    lines: list[str] = []
    for season in seasons[:MAX_SEASONS_SHOWN]:
        played = sorted(by_scope.get(season.scope, []), key=lambda r: (order.get(r.kind, len(order)), r.kind))
        if not played:
            continue
        parts = [
            t(
                "season.stats.kind",
                locale,
                game=game_name(r.kind, locale),
                place=place(r.rank),
                rating=t("lb.provisional", locale) if r.provisional else number(r.conservative, locale),
            )
            for r in played
        ]
        key = "season.stats.running" if season.running else "season.stats.ended"
        lines.append(t(key, locale, name=escape_name(season.name), games=", ".join(parts)))
    if not lines:
        return None
    return {
        "name": t("season.stats.title", locale),
        "value": _clip("\n".join(lines), MAX_FIELD),
        "inline": False,
    }


__all__ = [
    "PODIUM_FILE",
    "matching_names",
    "podium_layout",
    "podium_picture",
    "season_where",
    "stats_seasons_field",
]
