"""Leaderboards, player cards and rating changes as plain data (an embed dict + button specs), localized.

Nothing here imports discord: ``cogs/stats.py`` turns a :class:`MessageBody` into a message (its
``embed`` is in Discord's JSON shape; ``extra["buttons"]`` holds button payloads, one row).

The rating shown everywhere (the end-of-game change lines, ``/leaderboard``, ``/stats`` and its
trend) is ONE figure, the board's order: the *shown rating* of :func:`bot.storage.ratings.shown_rating`.
It starts at 0 and follows the conservative estimate ``mu - 3 sigma`` (openskill's ordinal), but a game
a player did not win never raises it and a win never lowers it. The bare estimate would read wrong: it
rises as the uncertainty shrinks, so a loser saw "0.0 → 1.5 (+1.5)". The cards' footers say this in
the reader's language.

A new player's rating is **provisional** until :data:`bot.storage.ratings.PROVISIONAL_GAMES` (5) rated
games of a kind in a scope: no figure is shown (nor the trend), the card says "provisional" and why,
the board lists them in their place with "provisional" instead of the number, and the end-of-game line
says "provisional rating (1 of 5 games)". So one early loss never reads as a penalty.

Display names are the players' own: every one that goes into message text passes through
:func:`bot.render.names.escape_name`, so none becomes a mention, a link, a heading or reversed text.

Paging buttons carry ``lb:<kind>:<scope>:<page>`` (``lb:<game>:server:2``): the kind (a game of the
registry), ``server`` (the board of the guild the message is in) or ``global``, and the page to show
(from 1); a board without its computer players adds ``:h`` (``lb:<game>:global:2:h``, people only), so
the choice holds across
pages. Without it the computers are listed: a button posted before the choice existed keeps paging
the board it was on. A season's board (issue 41) has ``s<season id>`` for its scope
(``lb:<game>:s12:2``): a season of the server the message is in (the cog checks it at the click;
:mod:`bot.storage.seasons`). Anything else is refused by :func:`parse_board_id`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from bot.games import registry
from bot.games.places import Place
from bot.i18n import language_of
from bot.i18n import plural as counted
from bot.i18n import translate as t
from bot.render.messages import MessageBody, embed_size
from bot.render.names import escape_name
from bot.render.numbers import number
from bot.storage.ratings import PROVISIONAL_GAMES, HistoryEntry, LeaderboardPage, PlayerStats, RatingChange
from bot.storage.stats import KindOverview
from bot.ui.places import best_place

CARD_GAMES: tuple[str, ...] = tuple(game.name for game in registry.GAMES)  # a card's games, in order
LOWER_WINS: frozenset[str] = frozenset(g.name for g in registry.GAMES if g.lower_score_wins)

JSON = dict[str, Any]
SCOPES: tuple[str, ...] = ("server", "global")
PER_PAGE = 10
MAX_PAGE = 999_999
COLOUR_BOARD = 0xF1C40F
COLOUR_STATS = 0x5865F2
MAX_TITLE = 256
MAX_DESCRIPTION = 4096
MAX_FIELD_NAME = 256
MAX_FIELD = 1024
MAX_FOOTER = 2048
MAX_FIELDS = 25
MAX_NAME = 40  # a stored display name on a board line
SPARK_BLOCKS = "▁▂▃▄▅▆▇█"
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}
BUTTON_SECONDARY = 2

LEVEL_KEYS = {"easy": "table.ai.level.easy", "normal": "table.ai.level.normal", "hard": "table.ai.level.hard"}
# Plural forms, by :func:`plural`.
_GAMES_KEYS = {"one": "lb.games.one", "other": "lb.games.other"}
_WINS_KEYS = {"one": "lb.wins.one", "other": "lb.wins.other"}
_TREND_KEYS = {"one": "stats.trend.one", "other": "stats.trend.other"}

# The kind is a game of the registry (checked after the match: a game registered later has boards too).
BOARD_ID = re.compile(
    r"lb:(?P<kind>[a-z][a-z0-9_]{0,31}):(?P<scope>server|global|s[1-9][0-9]{0,17}):(?P<page>[1-9][0-9]{0,5})"
    r"(?P<people>:h)?"
)


def _board_match(custom_id: str) -> re.Match[str] | None:
    """The parts of a paging custom_id of a game the registry knows, else None (forged, foreign)."""
    match = BOARD_ID.fullmatch(custom_id)
    return match if match is not None and match["kind"] in registry.BY_KIND else None


# ---------------------------------------------------------------------------------- custom ids


@dataclass(frozen=True, slots=True)
class BoardId:
    """What a paging button shows: a kind's board in a scope, at a page (from 1), with or without
    its computer players."""

    kind: str
    scope: str
    page: int
    computers: bool = True

    def encode(self) -> str:
        return board_id(self.kind, self.scope, self.page, computers=self.computers)


def board_id(kind: str, scope: str, page: int, *, computers: bool = True) -> str:
    custom_id = f"lb:{kind}:{scope}:{int(page)}" + ("" if computers else ":h")
    if _board_match(custom_id) is None:
        raise ValueError(f"bad leaderboard button: {custom_id!r}")
    return custom_id


def parse_board_id(custom_id: object) -> BoardId | None:
    """The parts of a paging custom_id, or None when it is not exactly one (forged, foreign, too long)."""
    if not isinstance(custom_id, str) or len(custom_id) > 100:
        return None
    match = _board_match(custom_id)
    if match is None:
        return None
    return BoardId(match["kind"], match["scope"], int(match["page"]), computers=match["people"] is None)


# ---------------------------------------------------------------------------------- formatting


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def signed(value: float, locale: object, digits: int = 1) -> str:
    """A change with its sign: ``+2.2``, ``-1.0``, ``+0.0``."""
    text = number(value, locale, digits)
    return text if text.startswith("-") else "+" + text


def percent(part: int, whole: int, locale: object) -> str:
    value = round(100 * part / whole) if whole else 0
    return t("stats.percent", locale, value=value)


def plural(count: int, locale: object) -> str:
    """``"one"`` or ``"other"``: English says 1 game, French 0 or 1 partie."""
    if language_of(locale) == "fr":
        return "one" if abs(count) < 2 else "other"
    return "one" if abs(count) == 1 else "other"


def game_name(kind: str, locale: object) -> str:
    """The game's name as players write it (the same in every language), or the stored kind."""
    game = registry.find(kind)
    return game.title if game is not None else kind


def computer_name(level: str, locale: object) -> str:
    key = LEVEL_KEYS.get(level)
    return t("lb.computer", locale, level=t(key, locale) if key else escape_name(level))


def player_name(player: str, display_name: str, locale: object, *, mention: bool = True) -> str:
    """A board's name for a player key: a mention (or the stored name, escaped) for a person,
    "Computer (hard)"."""
    if player.startswith("ai:"):
        return computer_name(player[3:], locale)
    if mention and player.startswith("user:") and player[5:].isdigit():
        return f"<@{player[5:]}>"
    return escape_name(_clip(display_name.strip() or player, MAX_NAME))


def place(rank: int) -> str:
    return MEDALS.get(rank, f"**{rank}.**")


def sparkline(values: Sequence[float]) -> str:
    """Unicode blocks from lowest to highest of ``values`` (a flat series is a flat middle line)."""
    if not values:
        return ""
    low, high = min(values), max(values)
    if high - low < 1e-9:
        return SPARK_BLOCKS[3] * len(values)
    top = len(SPARK_BLOCKS) - 1
    return "".join(SPARK_BLOCKS[round((v - low) / (high - low) * top)] for v in values)


def trend_values(history: Sequence[HistoryEntry]) -> list[float]:
    """The shown rating before the oldest game shown, then after each game, oldest first.

    ``history`` is newest first (as :meth:`RatingRepository.history` returns it).
    """
    if not history:
        return []
    ordered = list(reversed(history))
    return [ordered[0].rating_before] + [h.rating_after for h in ordered]


# ---------------------------------------------------------------------------------- rating changes


def _change_scope(changes: Sequence[RatingChange], scope: int | None) -> int | None:
    if scope is not None:
        return scope
    scopes = {c.scope for c in changes}
    guilds = sorted(s for s in scopes if s > 0)  # a season's scope is negative: not the server's
    return guilds[0] if guilds else (0 if 0 in scopes else None)


def rating_change_lines(
    changes: Iterable[RatingChange],
    names_by_key: Mapping[str, str],
    locale: object,
    *,
    scope: int | None = None,
    measure: Literal["rating", "conservative", "mu"] = "rating",
) -> list[str]:
    """One line per player: ``Alice: 0.0 → 2.3 (+2.3)``, by finishing place, for the end-of-game table.

    The values are the shown rating, the number ``/leaderboard`` and ``/stats`` show: a player who
    did not win never sees it go up, the winner never sees it go down (see the module docstring).
    ``measure="conservative"`` shows the bare estimate mu - 3 sigma, ``"mu"`` openskill's mean (25.0
    for a newcomer); neither is what players are shown elsewhere. A finished game changes the
    server's board and the global one; the lines show one of them: ``scope`` if given, else the
    server's (the global one for a game outside a server). ``names_by_key`` maps a player key
    (``user:<id>``, ``ai:<level>``) to the player's display name as they chose it (raw: it is
    escaped here, so do not escape it first); a missing person falls back to the stored display
    name, a computer player to "Computer (level)".
    """
    changes = list(changes)
    chosen = _change_scope(changes, scope)
    lines: list[tuple[int, str, str]] = []
    for change in changes:
        if change.scope != chosen:
            continue
        given = names_by_key.get(change.player)
        if given is None:
            name = player_name(change.player, change.display_name, locale, mention=False)
        else:
            name = escape_name(_clip(given, MAX_NAME))
        if measure == "rating" and change.provisional:
            line = t("lb.change_provisional", locale, name=name, games=change.games, needed=PROVISIONAL_GAMES)
            lines.append((change.rank, name.lower(), line))
            continue
        if measure == "mu":
            before, after = change.mu_before, change.mu_after
        elif measure == "conservative":
            before, after = change.conservative_before, change.conservative_after
        else:
            before, after = change.rating_before, change.rating_after
        line = t(
            "lb.change",
            locale,
            name=name,
            before=number(before, locale),
            after=number(after, locale),
            delta=signed(after - before, locale),
        )
        lines.append((change.rank, name.lower(), line))
    return [line for _, _, line in sorted(lines)]


# ---------------------------------------------------------------------------------- the board


def _button(custom_id: str, label: str, *, disabled: bool) -> JSON:
    return {
        "type": 2,
        "style": BUTTON_SECONDARY,
        "disabled": disabled,
        "label": label[:80],
        "custom_id": custom_id,
    }


def paging_buttons(
    kind: str, scope: str, page: int, pages: int, locale: object, *, computers: bool = True
) -> list[JSON]:
    """Previous / Next (page from 1); none when the board fits one page. Their ids always differ."""
    if pages <= 1:
        return []
    page = min(max(1, page), pages)
    return [
        _button(
            board_id(kind, scope, max(1, page - 1), computers=computers),
            t("lb.button.previous", locale),
            disabled=page <= 1,
        ),
        _button(
            board_id(kind, scope, min(pages, page + 1) if page < pages else page, computers=computers),
            t("lb.button.next", locale),
            disabled=page >= pages,
        ),
    ]


def board_line(row: PlayerStats, locale: object, *, mention: bool) -> str:
    return t(
        "lb.row",
        locale,
        place=place(row.rank),
        name=player_name(row.player, row.display_name, locale, mention=mention),
        rating=t("lb.provisional", locale) if row.provisional else number(row.conservative, locale),
        games=t(_GAMES_KEYS[plural(row.games, locale)], locale, count=row.games),
        wins=t(_WINS_KEYS[plural(row.wins, locale)], locale, count=row.wins),
    )


def season_board_scope(season_id: int) -> str:
    """The scope word of a season's board in its paging buttons."""
    return f"s{int(season_id)}"


def leaderboard_body(
    board: LeaderboardPage,
    scope: str,
    locale: object,
    *,
    computers: bool = True,
    past_end: bool = False,
    where: str | None = None,
) -> MessageBody:
    """The public board message: a page of ranked players and the paging buttons.

    ``computers=False``: ``board`` holds people only (see
    :meth:`bot.storage.ratings.RatingRepository.leaderboard`); the footer says the computer players
    are hidden, and the buttons keep that choice.

    ``past_end``: the page asked for was past the end and ``board`` is the last page instead; a first
    line says how many pages there are.

    ``board.page`` counts from 0 (storage); the footer and the buttons count from 1. In the server
    scope people are mentions (members of the server; a mention in an embed pings nobody), on the
    global board their stored names (most are members of other servers, whose mentions would not
    resolve). A season's board (``scope`` from :func:`season_board_scope`) is the server's, titled
    ``where`` (the season said in words).
    """
    kind = board.kind
    game = game_name(kind, locale)
    if where is None:
        where = t("lb.scope.server" if scope == "server" else "lb.scope.global", locale)
    title = t("lb.title", locale, game=game, scope=where)
    pages = board.pages
    page = board.page + 1
    if not board.rows:
        description = t("lb.empty" if board.total == 0 else "lb.past_end", locale, game=game)
    else:
        mention = scope != "global"
        description = "\n".join(board_line(row, locale, mention=mention) for row in board.rows)
        if past_end:
            description = counted("lb.only_pages", pages, locale) + "\n\n" + description
    footer = t("lb.footer", locale, page=page, pages=pages, players=board.total)
    if not computers:
        footer = t("lb.people.hidden", locale) + "\n" + footer
    embed: JSON = {
        "title": _clip(title, MAX_TITLE),
        "description": _clip(description, MAX_DESCRIPTION),
        "color": COLOUR_BOARD,
        "footer": {"text": _clip(footer, MAX_FOOTER)},
    }
    buttons = paging_buttons(kind, scope, page, pages, locale, computers=computers) if board.rows else []
    return MessageBody(embed=embed, extra={"buttons": buttons})


# ---------------------------------------------------------------------------------- a player's card


def trend_line(history: Sequence[HistoryEntry], locale: object) -> str | None:
    """``Last 10 games: +3.1 ▁▂▄▃▆█`` (the change in rating and its path), or None without history."""
    values = trend_values(history)
    if len(values) < 2:
        return None
    count = len(values) - 1
    return t(
        _TREND_KEYS[plural(count, locale)],
        locale,
        count=count,
        change=signed(values[-1] - values[0], locale),
        spark=sparkline(values),
    )


def recent_places(history: Sequence[HistoryEntry], places: Sequence[Place | None] = ()) -> str:
    """The medals of the latest places, newest first: the player's place in each game by
    :func:`bot.games.places.places` (their team's in a team game: the place ``/history`` and the
    final standings give), else the rank the game was rated with."""
    ranks = [
        where.place if where is not None else h.rank
        for h, where in zip(history, [*places, *[None] * (len(history) - len(places))], strict=True)
    ]
    return " ".join(MEDALS.get(rank, f"#{rank}") for rank in ranks)


def kind_lines(overview: KindOverview, locale: object) -> list[str]:
    """The lines of one game kind on a player's card."""
    row = overview.stats
    if row is None or row.games <= 0:
        return [t("stats.none_kind", locale)]
    lines = [
        t(
            "stats.games",
            locale,
            games=row.games,
            wins=row.wins,
            rate=percent(row.wins, row.games, locale),
        ),
    ]
    if row.provisional:  # no figure (nor its trend) before PROVISIONAL_GAMES games: the rule, said
        lines.append(t("stats.rating_provisional", locale, games=row.games, needed=PROVISIONAL_GAMES))
    else:
        lines.append(
            t(
                "stats.rating",
                locale,
                rating=number(row.conservative, locale),
                rank=row.rank,
                players=max(overview.players, row.rank),
            )
        )
    trend = None if row.provisional else trend_line(overview.history, locale)
    if trend:
        lines.append(trend)
    if overview.history:
        shown = [None if f is None else best_place(*f) for f in overview.finishes]
        lines.append(t("stats.recent", locale, places=recent_places(overview.history, shown)))
    game = registry.find(overview.kind)
    scored = game is not None and game.scored  # its round scores and final totals mean something
    best_round = row.best_round(game is not None and game.lower_score_wins)
    if scored and row.round_count and best_round is not None and row.mean_round is not None:
        lines.append(
            t(
                "stats.rounds",
                locale,
                count=row.round_count,
                best=best_round,
                mean=number(row.mean_round, locale),
            )
        )
    if scored and overview.best_total is not None and overview.mean_total is not None:
        lines.append(
            t(
                "stats.totals",
                locale,
                best=overview.best_total,
                mean=number(overview.mean_total, locale),
            )
        )
    if game is not None:  # the game's own figures (Game.stats_lines)
        lines.extend(game.stats_lines(row.stats, row.round_count, locale))
    if overview.history:
        seconds = int(overview.history[0].created_at) // 1000
        lines.append(t("stats.last_played", locale, time=f"<t:{seconds}:R>"))
    return lines


def stats_body(name: str, overviews: Sequence[KindOverview], scope: str, locale: object) -> MessageBody:
    """A player's card: per game kind, games, wins, rating and trend, and the figures that mean
    something for that kind (rounds and final totals of a scored game, and the game's own lines).

    ``name`` is the player's display name as they chose it (escaped here); kinds without a rated game
    are listed only when no kind has one (then the card just says so).
    """
    where = t("stats.scope.server" if scope == "server" else "stats.scope.global", locale)
    played = [o for o in overviews if o.played]
    description = where if played else f"{where}\n\n{t('stats.none', locale)}"
    fields = [
        {
            "name": _clip(game_name(o.kind, locale), MAX_FIELD_NAME),
            "value": _clip("\n".join(kind_lines(o, locale)), MAX_FIELD),
            "inline": False,
        }
        for o in played[:MAX_FIELDS]
    ]
    embed: JSON = {
        "title": _clip(t("stats.title", locale, name=escape_name(_clip(name, MAX_NAME))), MAX_TITLE),
        "description": _clip(description, MAX_DESCRIPTION),
        "color": COLOUR_STATS,
        "fields": fields,
        "footer": {"text": _clip(t("stats.footer", locale), MAX_FOOTER)},
    }
    return MessageBody(embed=embed)


__all__ = [
    "CARD_GAMES",
    "LOWER_WINS",
    "PER_PAGE",
    "SCOPES",
    "BoardId",
    "board_id",
    "embed_size",
    "leaderboard_body",
    "parse_board_id",
    "player_name",
    "rating_change_lines",
    "season_board_scope",
    "sparkline",
    "stats_body",
    "trend_line",
]
