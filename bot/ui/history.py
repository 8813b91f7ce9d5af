"""``/history``: a player's latest finished games on a server, one line each, as an embed.

Each line gives the game's id (what a replay will take, and what the final table message shows in
its footer), the date as a Discord timestamp (every reader sees it in their own time zone and
language), the game, the place (the player's team's place in a team game, by
:func:`bot.games.places.places`, as ``/stats`` and the final standings give it) and, where
scores mean something, the final total.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.games import registry
from bot.games.places import Place
from bot.i18n import plural
from bot.i18n import translate as t
from bot.render.messages import MessageBody
from bot.render.names import escape_name
from bot.storage.results import PlayedGame
from bot.ui.places import seat_place

JSON = dict[str, Any]
COLOUR_HISTORY = 0x5865F2
HISTORY_GAMES = 10  # the latest games listed
MAX_NAME = 40
_ORDINALS = {1: "history.ordinal.first", 2: "history.ordinal.second", 3: "history.ordinal.third"}


def place(rank: int, players: int, locale: object, *, teams: bool = False) -> str:
    """ "2nd of 4" / "2e sur 4", or in a team game "2nd of 2 teams" / "2e sur 2 équipes" (a table
    seats at most eight, so the ordinal forms are few)."""
    key = (
        "history.ordinal.first_team" if teams and rank == 1 else _ORDINALS.get(rank, "history.ordinal.other")
    )
    ordinal = t(key, locale, rank=rank)  # a team's place agrees with "team" (French: "1re sur 2 équipes")
    return t("history.place_teams" if teams else "history.place", locale, rank=ordinal, players=players)


def shown_place(where: Place, locale: object) -> str:
    """A player's place as :func:`bot.games.places.places` gives it (their team's in a team game)."""
    return place(where.place, where.of, locale, teams=where.team)


def played_place(game: PlayedGame) -> Place:
    """Where the player placed in ``game``: their side's place (:mod:`bot.ui.places`), or the
    seat's stored rank among the seats when the game's ranks were not read."""
    if game.game is not None and 0 <= game.seat < len(game.game.ranks):
        return seat_place(game.game, game.seat)
    return Place(game.rank, game.players)


def game_line(played: PlayedGame, locale: object) -> str:
    game = registry.find(played.kind)
    params = {
        "id": played.game_id,
        "date": f"<t:{played.finished_at // 1000}:d>",
        "game": game.title if game is not None else escape_name(played.kind),
        "place": shown_place(played_place(played), locale),
    }
    # A total means something where the game is scored (Game.scored), or where several rounds were (an
    # unscored game's one round scores 0 for everybody).
    if played.total is not None and ((game is not None and game.scored) or played.rounds > 1):
        score = plural("history.score", played.total, locale)
        return t("history.line_score", locale, score=score, **params)
    return t("history.line", locale, **params)


def history_body(name: str, games: Sequence[PlayedGame], locale: object) -> MessageBody:
    """``name`` (as they chose it; escaped here) and their latest games, newest first."""
    player = escape_name(name[:MAX_NAME])
    if games:
        description = "\n".join(game_line(g, locale) for g in games)
    else:
        description = t("history.none", locale, player=player)
    embed: JSON = {
        "title": t("history.title", locale, player=player)[:256],
        "description": description[:4096],
        "color": COLOUR_HISTORY,
    }
    if games:
        embed["footer"] = {"text": t("history.footer", locale)}
    return MessageBody(embed=embed)
