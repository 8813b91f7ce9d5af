"""Per game kind ratings, per place and global, with stats and history: the rows, the boards, and the
writing of a finished game's rating changes (which the service computes: bot/service/outcomes.py).

Scope ``0`` is the global board; a positive scope is a place's board, a Discord guild id (a server
where the bot is) or channel id (a place where it has no server: a group DM's "friends" board, a DM,
a channel of a server only a user installed Skybo in; :mod:`bot.storage.venues` says which games count
where, and why those never count on the global board); a negative one is a season, ``-<season id>``
(:func:`bot.storage.seasons.season_scope`: the server's running season, whose rows are written beside
the server's and the global ones). A player key is
``user:<discord id>`` or ``ai:<level>``: every computer player of one level shares a row, so the
strength of each level shows on the board.

The model is openskill's (``mu``, ``sigma``), and what players see, and what the board is ordered by,
is the **shown rating** (stored in the ``conservative`` column); :mod:`bot.service.outcomes` computes
both and says why. Storage holds no model: :func:`write_ratings` creates missing rows, reads them
locked inside the finishing transaction, hands them to the service's ``RatingPlan.rate`` and writes
what it returns, rows and history, in that same transaction.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.storage.backend import Connection, Database
from bot.storage.venues import GLOBAL_SCOPE, Venue, rated_scopes

MAX_PAGE_SIZE = 100


def conservative(mu: float, sigma: float) -> float:
    """The conservative estimate mu - 3 sigma (openskill's ordinal), which the shown rating follows."""
    return mu - 3.0 * sigma


# A player's rating is **provisional** until they have this many rated games of a kind in a scope: the
# figure is not shown to players (``/stats``, the boards and the end-of-game lines say "provisional"),
# so a newcomer's first loss does not read as a penalty ("0.0 -> -2.8"). Five: a newcomer's sigma is
# still large (8.3), so each early game moves mu - 3 sigma by several points; after about five games of
# two to four players the sigma has shrunk by about a third and one game moves it far less, and five
# short games are one evening, so nobody waits long. Provisional players stay on the boards, in their
# place by the stored rating, with "provisional" instead of the number.
PROVISIONAL_GAMES = 5


def is_provisional(games: int | None) -> bool:
    """Whether a rating after ``games`` rated games is still provisional (None: unknown, shown)."""
    return games is not None and games < PROVISIONAL_GAMES


def user_key(user_id: int) -> str:
    return f"user:{int(user_id)}"


def ai_key(level: str) -> str:
    return f"ai:{level}"


@dataclass(frozen=True)
class RatingChange:
    """One player's rating change in one scope. ``shown_*`` is the shown rating (None for a change
    built by hand without it: it is then the conservative estimate, as for games rated before it)."""

    scope: int
    player: str
    display_name: str
    rank: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    shown_before: float | None = None
    shown_after: float | None = None
    games: int | None = None  # the player's rated games of this kind in this scope, this one included

    @property
    def provisional(self) -> bool:
        return is_provisional(self.games)

    @property
    def conservative_before(self) -> float:
        return self.mu_before - 3 * self.sigma_before

    @property
    def conservative_after(self) -> float:
        return self.mu_after - 3 * self.sigma_after

    @property
    def rating_before(self) -> float:
        """The shown rating before the game (what the board showed)."""
        return self.conservative_before if self.shown_before is None else self.shown_before

    @property
    def rating_after(self) -> float:
        return self.conservative_after if self.shown_after is None else self.shown_after


@dataclass(frozen=True)
class PlayerStats:
    """One row of the board. ``conservative`` is the shown rating (see :func:`shown_rating`; the name is
    its column's), ``rank`` the competition rank by it in its scope."""

    kind: str
    scope: int
    rank: int
    player: str
    display_name: str
    mu: float
    sigma: float
    conservative: float
    games: int
    wins: int
    round_count: int
    round_sum: int
    round_min: int | None
    round_max: int | None
    stats: Mapping[str, int]

    @property
    def user_id(self) -> int | None:
        return int(self.player[5:]) if self.player.startswith("user:") else None

    @property
    def ai_level(self) -> str | None:
        return self.player[3:] if self.player.startswith("ai:") else None

    @property
    def provisional(self) -> bool:
        """Fewer than :data:`PROVISIONAL_GAMES` rated games: the figure is not shown to players."""
        return is_provisional(self.games)

    @property
    def mean_round(self) -> float | None:
        return self.round_sum / self.round_count if self.round_count else None

    def best_round(self, lower_wins: bool) -> int | None:
        """The best round score: the lowest when the game's lower score wins (``Game.lower_score_wins``:
        the caller knows the game, storage does not)."""
        return self.round_min if lower_wins else self.round_max


@dataclass(frozen=True)
class LeaderboardPage:
    kind: str
    scope: int
    page: int
    per_page: int
    total: int  # rated players in this scope (people only on a board without computers)
    rows: list[PlayerStats]

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.total / self.per_page))


@dataclass(frozen=True)
class HistoryEntry:
    game_id: int
    rank: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    created_at: int
    shown_before: float | None = None  # the shown rating (None: the conservative estimate)
    shown_after: float | None = None

    @property
    def rating_before(self) -> float:
        if self.shown_before is None:
            return conservative(self.mu_before, self.sigma_before)
        return self.shown_before

    @property
    def rating_after(self) -> float:
        if self.shown_after is None:
            return conservative(self.mu_after, self.sigma_after)
        return self.shown_after


@dataclass(frozen=True)
class RatingRow:
    """A player's board row in one kind and scope, as read (locked) in the finishing transaction, or as
    the service's rating computation wants it written."""

    display_name: str
    mu: float
    sigma: float
    shown: float  # the shown rating (the ``conservative`` column)
    games: int = 0
    wins: int = 0
    round_count: int = 0
    round_sum: int = 0
    round_min: int | None = None
    round_max: int | None = None
    stats: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class RatingWrite:
    """One player's new row after a game (``after``), and their best rank in it (for the history)."""

    player: str
    rank: int
    after: RatingRow


# ``rate(rows)``: every player's row before the game, by key (one scope) -> the rows to write.
Rate = Callable[[Mapping[str, RatingRow]], Sequence[RatingWrite]]


@dataclass(frozen=True)
class RatingPlan:
    """How the service rates a finished game: the kind and where it was played (``venue``: which boards
    it counts on, :func:`bot.storage.venues.rated_scopes`), the players' keys and names, the row a
    player without one starts from (``start``: the model's default), and ``rate``, the computation,
    run once per scope on the rows read inside the transaction. Storage runs it; it does not know it."""

    kind: str
    venue: Venue
    players: Mapping[str, str]  # player key -> display name
    start: RatingRow
    rate: Rate


def rating_changes_of(conn: Connection, game_id: int) -> list[RatingChange]:
    """The rating changes a finished game caused, as stored (in the caller's unit of work)."""
    rows = conn.execute(
        "SELECT h.scope, h.player, coalesce(r.display_name, h.player), h.rank, h.mu_before,"
        " h.sigma_before, h.mu_after, h.sigma_after, h.shown_before, h.shown_after,"
        " (SELECT count(*) FROM rating_history AS o WHERE o.kind = h.kind AND o.scope = h.scope"
        " AND o.player = h.player AND (o.created_at < h.created_at OR (o.created_at = h.created_at"
        " AND o.game_id <= h.game_id)))"
        " FROM rating_history AS h"
        " LEFT JOIN ratings AS r ON r.kind = h.kind AND r.scope = h.scope AND r.player = h.player"
        " WHERE h.game_id = ? ORDER BY h.scope, h.rank, h.player",
        (game_id,),
    ).fetchall()
    return [RatingChange(*r) for r in rows]


# The order write_ratings unpacks.
_ROW_COLUMNS = "mu, sigma, conservative, games, wins, round_count, round_sum, round_min, round_max, stats"


def write_ratings(
    conn: Connection, *, game_id: int, plan: RatingPlan, now: int, row_lock: str = ""
) -> list[RatingChange]:
    """Write the ratings, stats and history of one finished game, in the caller's transaction; the
    new figures are ``plan.rate``'s (the service's computation) from the rows read here.

    This is a read-modify-write, and on PostgreSQL another process may rate the same player at the
    same moment. So, scope by scope (ascending), the rows are first created at ``plan.start`` if
    missing (one statement, keys in order: a concurrent creator of the same row is waited for, not
    overwritten), then read with ``row_lock`` (the backend's :attr:`Database.row_lock`, ``" FOR
    UPDATE"`` on PostgreSQL) in key order, so a second game's update waits for the first's commit and
    starts from its figures; every process locks in the same order, so they cannot deadlock on these
    rows. A row created here counts on the board exactly as an inserted one did (same trigger).
    """
    kind, start = plan.kind, plan.start
    # A server's game: the global scope, the server's and its running season's; an off-server game:
    # its channel's board only (bot.storage.venues).
    scopes = rated_scopes(conn, plan.venue, row_lock)
    keys = sorted(plan.players)
    marks = ",".join("?" * len(keys))
    changes: list[RatingChange] = []
    new_rows = ",".join(["(?,?,?,?,?,?,?,0,0,0,0,NULL,NULL,'{}',?)"] * len(keys))
    for scope in scopes:
        defaults = [(kind, scope, k, plan.players[k], start.mu, start.sigma, start.shown, now) for k in keys]
        conn.execute(
            "INSERT INTO ratings (kind, scope, player, display_name, mu, sigma, conservative, games, wins,"
            f" round_count, round_sum, round_min, round_max, stats, updated_at) VALUES {new_rows}"
            " ON CONFLICT (kind, scope, player) DO NOTHING",
            [value for row in defaults for value in row],
        )
        before: dict[str, RatingRow] = {}
        for row in conn.execute(
            f"SELECT player, {_ROW_COLUMNS} FROM ratings"
            f" WHERE kind = ? AND scope = ? AND player IN ({marks}) ORDER BY player{row_lock}",
            (kind, scope, *keys),
        ):
            player, mu, sigma, shown, games, wins, r_count, r_sum, r_min, r_max, stats_text = row
            before[player] = RatingRow(
                plan.players[player],
                float(mu),
                float(sigma),
                float(shown),
                int(games),
                int(wins),
                int(r_count),
                int(r_sum),
                r_min,
                r_max,
                json.loads(stats_text) if stats_text else {},
            )
        updates: list[tuple[Any, ...]] = []
        history: list[tuple[Any, ...]] = []
        for write in plan.rate(before):
            key, new, old = write.player, write.after, before[write.player]
            updates.append(
                (
                    new.display_name,
                    new.mu,
                    new.sigma,
                    new.shown,
                    new.games,
                    new.wins,
                    new.round_count,
                    new.round_sum,
                    new.round_min,
                    new.round_max,
                    json.dumps(dict(new.stats), sort_keys=True),
                    now,
                    kind,
                    scope,
                    key,
                )
            )
            history.append(
                (
                    game_id,
                    kind,
                    scope,
                    key,
                    write.rank,
                    old.mu,
                    old.sigma,
                    new.mu,
                    new.sigma,
                    now,
                    old.shown,
                    new.shown,
                )
            )
            changes.append(
                RatingChange(
                    scope,
                    key,
                    new.display_name,
                    write.rank,
                    old.mu,
                    old.sigma,
                    new.mu,
                    new.sigma,
                    old.shown,
                    new.shown,
                    new.games,
                )
            )
        conn.executemany(
            "UPDATE ratings SET display_name = ?, mu = ?, sigma = ?, conservative = ?, games = ?, wins = ?,"
            " round_count = ?, round_sum = ?, round_min = ?, round_max = ?, stats = ?, updated_at = ?"
            " WHERE kind = ? AND scope = ? AND player = ?",
            updates,
        )
        conn.executemany(
            "INSERT INTO rating_history (game_id, kind, scope, player, rank, mu_before, sigma_before,"
            " mu_after, sigma_after, created_at, shown_before, shown_after) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            history,
        )
    return changes


_SELECT_STATS = (
    "player, display_name, mu, sigma, conservative, games, wins, round_count, round_sum, round_min,"
    " round_max, stats"
)


_SELECT_STATS_R = ", ".join(f"r.{c.strip()}" for c in _SELECT_STATS.split(","))


def _stats(kind: str, scope: int, rank: int, row: Sequence[Any]) -> PlayerStats:
    player, name, mu, sigma, conservative, games, wins, r_count, r_sum, r_min, r_max, stats = row
    return PlayerStats(
        kind,
        scope,
        rank,
        player,
        name,
        mu,
        sigma,
        conservative,
        games,
        wins,
        r_count,
        r_sum,
        r_min,
        r_max,
        json.loads(stats),
    )


# Positional ``?`` only (the dialect subset, see bot.storage.backend), so the parameters follow the text:
# kind, scope, limit, offset (the page); the first row's rank (``higher``); the offset; kind, scope.
# ``{people}`` is empty for the whole board, or ``_PEOPLE`` (with its table's alias) for people only.
_PAGE_SQL = (
    "WITH page AS MATERIALIZED (SELECT player, conservative FROM ratings AS p WHERE kind = ? AND scope = ?"
    "{page_people} ORDER BY {order} LIMIT ? OFFSET ?),"
    " ranked AS (SELECT player, conservative, rank() OVER (ORDER BY conservative DESC) AS page_rank"
    " FROM page)"
    " SELECT CASE WHEN ranked.page_rank = 1 THEN 1 + {higher} ELSE ? + ranked.page_rank END, {columns}"
    " FROM ranked JOIN ratings AS r ON r.kind = ? AND r.scope = ? AND r.player = ranked.player"
    " ORDER BY r.conservative DESC, r.games DESC, r.player"
)
_COUNT = (
    "(SELECT count(*) FROM ratings AS c"
    " WHERE c.kind = ? AND c.scope = ?{count_people} AND c.conservative {op} ranked.conservative)"
)
# A person's key is ``user:<id>``; a computer's ``ai:<level>`` (literal text: no ``?`` nor ``%``).
_PEOPLE = " AND substr({alias}.player, 1, 3) <> 'ai:'"


def _page_sql(order: str, higher: str, *, people: bool) -> str:
    return _PAGE_SQL.format(
        order=order,
        page_people=_PEOPLE.format(alias="p") if people else "",
        higher=higher.format(count_people=_PEOPLE.format(alias="c") if people else ""),
        columns=_SELECT_STATS_R,
    )


_HIGHER = _COUNT.format(op=">", count_people="{count_people}")  # parameters: kind, scope
_DEEP_HIGHER = "? - " + _COUNT.format(op="<=", count_people="{count_people}")  # total, kind, scope
_TOP_ORDER = "conservative DESC, games DESC, player"
_DEEP_ORDER = "conservative, games, player DESC"
_PAGE = _page_sql(_TOP_ORDER, _HIGHER, people=False)
_DEEP_PAGE = _page_sql(_DEEP_ORDER, _DEEP_HIGHER, people=False)
_PEOPLE_PAGE = _page_sql(_TOP_ORDER, _HIGHER, people=True)
_PEOPLE_DEEP_PAGE = _page_sql(_DEEP_ORDER, _DEEP_HIGHER, people=True)
# The computer players of a board: a handful of rows (one per level). ``player < 'b'`` lets both
# backends walk the primary key (kind, scope, player) from the start of the scope: "ai:..." sorts before
# "b" and "user:..." after it in any collation (the first letters differ), and the substr keeps it exact.
_COMPUTERS = (
    "SELECT count(*) FROM ratings WHERE kind = ? AND scope = ? AND player < 'b'"
    " AND substr(player, 1, 3) = 'ai:'"
)


def leaderboard_page(
    conn: Connection, kind: str, scope: int, page: int, per_page: int, *, computers: bool = True
) -> LeaderboardPage:
    """One page of a board, ranked in SQL (competition ranking: equal shown ratings share a rank).

    A window over the whole scope costs ~1.6 us a row in SQLite (160 ms for 100,000 players), so the
    window runs over the page only: the page is read along the covering ``ratings_board`` index, and
    ``rank() OVER`` the page plus the offset gives each row's rank; rows tied with the page's first
    rating may have ties on the previous page, so theirs is ``1 + count(rated strictly higher)``
    (a range count on the same index). In the deeper half of the board the index is walked from the
    bottom and "strictly higher" is the total minus "at most as high", so no walk exceeds half the
    board. The total comes from ``rating_boards``, kept by triggers.

    ``computers=False`` is the board of people: the computer players (``ai:<level>``) are left out of
    the page, the counts and the total, so people rank 1, 2, 3... among people and the pages hold
    only them. Every walk and count stays on the same index (``player`` is in it); the total is the
    board's minus its few computer rows.
    """
    offset = page * per_page
    count = conn.execute(
        "SELECT players FROM rating_boards WHERE kind = ? AND scope = ?", (kind, scope)
    ).fetchone()
    total = int(count[0]) if count else 0
    if not computers and total:
        total -= int(conn.execute(_COMPUTERS, (kind, scope)).fetchone()[0])
    if offset >= total:
        return LeaderboardPage(kind, scope, page, per_page, total, [])
    if 2 * offset >= total:  # the deep half: the page is the reverse walk's rows, from the bottom
        limit, skip = min(per_page, total - offset), max(0, total - offset - per_page)
        sql = _DEEP_PAGE if computers else _PEOPLE_DEEP_PAGE
        params: tuple[object, ...] = (kind, scope, limit, skip, total, kind, scope, offset, kind, scope)
    else:
        sql = _PAGE if computers else _PEOPLE_PAGE
        params = (kind, scope, per_page, offset, kind, scope, offset, kind, scope)
    rows = conn.execute(sql, params).fetchall()
    return LeaderboardPage(
        kind, scope, page, per_page, total, [_stats(kind, scope, r[0], r[1:]) for r in rows]
    )


def player_rows(
    conn: Connection, player: str, kind: str | None, scope: int | None, *, people: bool = False
) -> list[PlayerStats]:
    """A player's rows with their rank; ``people``: ranked among people only (the computers left out,
    as on the board of people)."""
    among = _PEOPLE.format(alias="better") if people else ""
    sql = (
        "SELECT kind, scope, (SELECT count(*) FROM ratings AS better WHERE better.kind = r.kind"
        f" AND better.scope = r.scope AND better.conservative > r.conservative{among}) + 1,"
        f" {_SELECT_STATS} FROM ratings AS r WHERE player = ?"
    )
    params: list[Any] = [player]
    if kind is not None:
        sql += " AND kind = ?"
        params.append(kind)
    if scope is not None:
        sql += " AND scope = ?"
        params.append(scope)
    sql += " ORDER BY kind, scope"
    return [_stats(r[0], r[1], r[2], r[3:]) for r in conn.execute(sql, params).fetchall()]


def history_rows(conn: Connection, player: str, kind: str, scope: int, limit: int) -> list[HistoryEntry]:
    """A player's latest rating changes of one kind in one scope, newest first."""
    rows = conn.execute(
        "SELECT game_id, rank, mu_before, sigma_before, mu_after, sigma_after, created_at, shown_before,"
        " shown_after FROM rating_history WHERE kind = ? AND scope = ? AND player = ?"
        " ORDER BY created_at DESC, game_id DESC LIMIT ?",
        (kind, scope, player, max(1, int(limit))),
    ).fetchall()
    return [HistoryEntry(*r) for r in rows]


class RatingRepository:
    """Board and player queries. Updates happen in ``GameRepository.finish_game``'s transaction."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def leaderboard(
        self,
        kind: str,
        guild_id: int | None = None,
        *,
        page: int = 0,
        per_page: int = 10,
        computers: bool = True,
        scope: int | None = None,
    ) -> LeaderboardPage:
        """One page (from 0) of the board of ``kind`` in a guild, or the global board (``guild_id=None``),
        or in ``scope`` when given (a season's: :func:`bot.storage.seasons.season_scope`; a place's:
        :attr:`bot.storage.venues.Venue.board`, e.g. a group DM's friends board).

        ``computers=False``: people only, ranked and counted among people (so humans are not crowded
        out by the computer players, who play far more games).
        """
        page = max(0, int(page))
        per_page = min(MAX_PAGE_SIZE, max(1, int(per_page)))
        if scope is None:
            scope = GLOBAL_SCOPE if guild_id is None else int(guild_id)
        where = int(scope)
        return await self.db.run(
            lambda c: leaderboard_page(c, kind, where, page, per_page, computers=computers)
        )

    async def player_stats(
        self,
        player: str,
        *,
        kind: str | None = None,
        guild_id: int | None = None,
        global_: bool | None = None,
    ) -> list[PlayerStats]:
        """A player's rows (``user_key(id)`` or ``ai_key(level)``), per kind and scope, with their rank.

        Filter by ``kind``; by scope with ``guild_id`` (that guild) or ``global_=True`` (the global board).
        """
        scope = GLOBAL_SCOPE if global_ else (int(guild_id) if guild_id is not None else None)
        return await self.db.run(lambda c: player_rows(c, player, kind, scope))

    async def history(
        self,
        player: str,
        kind: str,
        guild_id: int | None = None,
        *,
        limit: int = 20,
        scope: int | None = None,
    ) -> list[HistoryEntry]:
        """The player's latest rating changes in that scope (``scope``: a season's), newest first."""
        if scope is None:
            scope = GLOBAL_SCOPE if guild_id is None else int(guild_id)

        return await self.db.run(lambda conn: history_rows(conn, player, kind, scope, limit))

    async def changes_for_game(self, game_id: int) -> list[RatingChange]:
        """The rating changes a finished game caused, for the end-of-game message."""

        return await self.db.run(lambda conn: rating_changes_of(conn, game_id))
