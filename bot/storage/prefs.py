"""A player's own choices (issue 28), the same on every server: ``/skybo notify`` and ``/skybo display``.

One small row per user who changed something or whose language the bot knows (a long game's direct
messages are written in it); a user without a row has :data:`DEFAULT_PREFS`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from bot.storage.backend import Connection, Database

CARD_THEMES: Final = ("classic", "colourblind")
TABLE_VIEWS: Final = ("picture", "text")
MAX_LOCALE: Final = 16  # Discord's locales are at most 6 characters ("es-419")


@dataclass(frozen=True)
class UserPrefs:
    """A user's choices; the defaults: a direct message when a long game's turn comes, the classic
    cards, the table as a picture. ``locale`` is not a choice but what the bot last saw of the user's
    Discord language (None: never seen): it takes no part in comparisons."""

    notify: bool = True
    cards: str = "classic"
    table: str = "picture"
    locale: str | None = field(default=None, compare=False)

    def is_default(self) -> bool:
        """The default choices (whatever the language)."""
        return self == DEFAULT_PREFS


DEFAULT_PREFS: Final = UserPrefs()


class PrefsRepository:
    """Reads and writes of ``user_prefs``; each method is one hop of the database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, user_id: int) -> UserPrefs:
        return (await self.many((user_id,)))[user_id]

    async def many(self, user_ids: Iterable[int]) -> dict[int, UserPrefs]:
        """Each user's choices (the defaults for those without a row)."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        rows = await self.db.run(
            lambda c: c.execute(
                "SELECT user_id, notify, cards, table_view, locale FROM user_prefs"
                f" WHERE user_id IN ({marks})",
                tuple(ids),
            ).fetchall()
        )
        found = {int(r[0]): _prefs(*r[1:]) for r in rows}
        return {u: found.get(u, DEFAULT_PREFS) for u in ids}

    async def save(self, user_id: int, prefs: UserPrefs) -> None:
        """Store a user's choices whole, and their language if given (None keeps the stored one: it may
        have been written since these choices were read); back to the defaults with no language known:
        the row is deleted."""
        notify = None if prefs.notify else 0
        cards = None if prefs.cards == DEFAULT_PREFS.cards else prefs.cards
        table = None if prefs.table == DEFAULT_PREFS.table else prefs.table
        now = int(time.time() * 1000)

        def work(conn: Connection) -> None:
            if prefs.is_default() and prefs.locale is None:
                conn.execute("DELETE FROM user_prefs WHERE user_id = ?", (user_id,))
                return
            conn.execute(
                "INSERT INTO user_prefs (user_id, notify, cards, table_view, locale, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET notify = excluded.notify,"
                " cards = excluded.cards, table_view = excluded.table_view,"
                " locale = COALESCE(excluded.locale, user_prefs.locale),"
                " updated_at = excluded.updated_at",
                (user_id, notify, cards, table, prefs.locale, now),
            )

        await self.db.write(work)

    async def set_locale(self, user_id: int, locale: str | None) -> None:
        """Store the user's Discord language, their choices unchanged (a row with the defaults if none)."""
        now = int(time.time() * 1000)
        shown = None if locale is None else str(locale)[:MAX_LOCALE]

        def work(conn: Connection) -> None:
            conn.execute(
                "INSERT INTO user_prefs (user_id, locale, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET locale = excluded.locale,"
                " updated_at = excluded.updated_at",
                (user_id, shown, now),
            )

        await self.db.write(work)


def _prefs(notify: int | None, cards: str | None, table: str | None, locale: str | None) -> UserPrefs:
    return UserPrefs(
        notify=notify is None or bool(notify),
        cards=cards if cards in CARD_THEMES else DEFAULT_PREFS.cards,
        table=table if table in TABLE_VIEWS else DEFAULT_PREFS.table,
        locale=locale or None,
    )
