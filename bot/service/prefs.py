"""A player's own choices (``/skybo notify``, ``/skybo display``, issue 28), the same on every server.

What they change: whether a long game (a turn limit of an hour or more) sends the player a direct
message when their turn starts and before its deadline; the card theme of the pictures drawn for them
(the colour-blind one adds a shape to each colour); the table in words in their private panel, for
those who turn off embeds and previews in Discord.

The user's Discord language is kept with them too (:meth:`PrefsPart.note_locale`, at each of their
clicks and commands, written only when it changed): a long game's direct messages are in it.

Read when a turn starts and when a picture or a panel is drawn, so the service keeps what it read for
a minute (:data:`~bot.service.prefs_cache.PREFS_TTL_MS`, the core's ``user_prefs``): a change made in
this process shows at once; one made through another process of a fleet (another shard) shows here
within that minute.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import replace
from typing import Unpack

from bot.service.core import ServiceCore, ServiceOptions
from bot.service.types import Refused, log
from bot.storage import Storage
from bot.storage.prefs import CARD_THEMES, DEFAULT_PREFS, MAX_LOCALE, TABLE_VIEWS, UserPrefs


class PrefsPart(ServiceCore):
    """Read (with a short cache) and change a user's own choices."""

    def __init__(self, storage: Storage, **options: Unpack[ServiceOptions]) -> None:
        super().__init__(storage, **options)
        # Users' languages being stored, in the background (see note_locale).
        self.locale_writes: set[asyncio.Task[None]] = set()

    def _stop_background(self) -> list[asyncio.Task[None]]:
        return [*super()._stop_background(), *self.locale_writes]

    async def prefs_of(self, user_ids: Iterable[int | None]) -> dict[int, UserPrefs]:
        """Each user's choices (the defaults for the others); computers (None) are left out."""
        return await self.user_prefs.of(user_ids)

    def cached_prefs(self, user_id: int | None) -> UserPrefs:
        """What the cache holds for a user, however old (the defaults if nothing): for the places
        that cannot wait for the database (drawing a panel under the channel lock)."""
        cached = self.user_prefs.cached(user_id)
        return DEFAULT_PREFS if cached is None else cached

    async def change_prefs(
        self,
        user_id: int,
        *,
        notify: bool | None = None,
        cards: str | None = None,
        table: str | None = None,
    ) -> UserPrefs:
        """Apply the changes given (None: unchanged) and store them; Refused, changing nothing, for a
        value the command does not offer."""
        if cards is not None and cards not in CARD_THEMES:
            raise Refused("prefs.error.cards")
        if table is not None and table not in TABLE_VIEWS:
            raise Refused("prefs.error.table")
        current = await self.storage.prefs.get(user_id)
        new = current
        if notify is not None:
            new = replace(new, notify=bool(notify))
        if cards is not None:
            new = replace(new, cards=cards)
        if table is not None:
            new = replace(new, table=table)
        if new != current:
            await self.storage.prefs.save(user_id, new)
        self.user_prefs.changed(user_id, new)
        return new

    def note_locale(self, user_id: int, locale: object) -> None:
        """The language a user's click or command came in: stored (in the background) when it is not
        the one the bot knows, for the direct messages of long games."""
        text = str(locale)[:MAX_LOCALE] if locale is not None else None
        cached = self.user_prefs.cached(user_id)
        if not text or self._closed or (cached is not None and cached.locale == text):
            return
        task = asyncio.create_task(self._store_locale(user_id, text), name="note-locale")
        self.locale_writes.add(task)
        task.add_done_callback(self.locale_writes.discard)

    async def _store_locale(self, user_id: int, locale: str) -> None:
        try:
            current = (await self.prefs_of([user_id]))[user_id]
            if current.locale == locale:
                return
            await self.storage.prefs.set_locale(user_id, locale)
            # The choices as they are now: a /skybo notify may have changed them meanwhile.
            cached = self.user_prefs.cached(user_id)
            self.user_prefs.changed(user_id, replace(current if cached is None else cached, locale=locale))
        except Exception:  # a busy database: the next click tries again
            log.warning("user language not stored", extra={"user_id": user_id}, exc_info=True)
