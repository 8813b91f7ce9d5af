"""A short cache of users' own choices (``/skybo notify``, ``/skybo display``), made by the service's core
and handed to every part that reads them (the letters, the tournaments' notices, the prefs part)."""

from __future__ import annotations

from collections.abc import Iterable

from bot.clock import Clock
from bot.storage import Storage
from bot.storage.prefs import UserPrefs

PREFS_TTL_MS = 60_000


class PrefsCache:
    """Users' choices as read (for :data:`PREFS_TTL_MS`) or changed here."""

    def __init__(self, storage: Storage, clock: Clock) -> None:
        self._storage = storage
        self._clock = clock
        self._of_user: dict[int, tuple[int, UserPrefs]] = {}  # user -> (when read, ms; their choices)
        # Changes made here per user: a read that a change overtook does not overwrite the cache with it.
        self._changes: dict[int, int] = {}

    async def of(self, user_ids: Iterable[int | None]) -> dict[int, UserPrefs]:
        """Each user's choices (the defaults for the others); computers (None) are left out."""
        now = self._clock.now_ms()
        wanted = {u for u in user_ids if u is not None}
        found: dict[int, UserPrefs] = {}
        missing = []
        for user in wanted:
            cached = self._of_user.get(user)
            if cached is not None and now - cached[0] < PREFS_TTL_MS:
                found[user] = cached[1]
            else:
                missing.append(user)
        if missing:
            changes = {user: self._changes.get(user, 0) for user in missing}
            read = await self._storage.prefs.many(missing)
            for user, prefs in read.items():
                cached = self._of_user.get(user)
                if cached is not None and self._changes.get(user, 0) != changes[user]:
                    found[user] = cached[1]  # changed here while this was read: the change is newer
                    continue
                self._of_user[user] = (now, prefs)
                found[user] = prefs
        return found

    def cached(self, user_id: int | None) -> UserPrefs | None:
        """What the cache holds for a user, however old (None: nothing)."""
        cached = None if user_id is None else self._of_user.get(user_id)
        return None if cached is None else cached[1]

    def changed(self, user_id: int, prefs: UserPrefs) -> None:
        """A change made here: the user's choices now."""
        self._of_user[user_id] = (self._clock.now_ms(), prefs)
        self._changes[user_id] = self._changes.get(user_id, 0) + 1
