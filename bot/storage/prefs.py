"""A player's own choices (issue 28), the same on every server: ``/skybo notify`` and ``/skybo display``.

One small row per user who changed something; a user without a row has :data:`DEFAULT_PREFS`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from bot.storage.backend import Connection, Database

CARD_THEMES: Final = ("classic", "colourblind")
TABLE_VIEWS: Final = ("picture", "text")


@dataclass(frozen=True)
class UserPrefs:
    """A user's choices; the defaults: a direct message when a long game's turn comes, the classic
    cards, the table as a picture."""

    notify: bool = True
    cards: str = "classic"
    table: str = "picture"

    def is_default(self) -> bool:
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
                f"SELECT user_id, notify, cards, table_view FROM user_prefs WHERE user_id IN ({marks})",
                tuple(ids),
            ).fetchall()
        )
        found = {int(r[0]): _prefs(*r[1:]) for r in rows}
        return {u: found.get(u, DEFAULT_PREFS) for u in ids}

    async def save(self, user_id: int, prefs: UserPrefs) -> None:
        """Store a user's choices whole (back to the defaults: the row is deleted)."""
        notify = None if prefs.notify else 0
        cards = None if prefs.cards == DEFAULT_PREFS.cards else prefs.cards
        table = None if prefs.table == DEFAULT_PREFS.table else prefs.table
        now = int(time.time() * 1000)

        def work(conn: Connection) -> None:
            if prefs.is_default():
                conn.execute("DELETE FROM user_prefs WHERE user_id = ?", (user_id,))
                return
            conn.execute(
                "INSERT INTO user_prefs (user_id, notify, cards, table_view, updated_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET notify = excluded.notify,"
                " cards = excluded.cards, table_view = excluded.table_view,"
                " updated_at = excluded.updated_at",
                (user_id, notify, cards, table, now),
            )

        await self.db.write(work)


def _prefs(notify: int | None, cards: str | None, table: str | None) -> UserPrefs:
    return UserPrefs(
        notify=notify is None or bool(notify),
        cards=cards if cards in CARD_THEMES else DEFAULT_PREFS.cards,
        table=table if table in TABLE_VIEWS else DEFAULT_PREFS.table,
    )
