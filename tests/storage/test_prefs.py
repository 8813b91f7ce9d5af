"""A user's own choices (``/skybo notify``, ``/skybo display``, issue 28) on both backends: stored
whole, read back many at once, and a user back to the defaults keeps no row."""

from __future__ import annotations

from bot.storage import Storage, UserPrefs
from bot.storage.prefs import DEFAULT_PREFS
from tests.storage.conftest import Backend


async def test_a_user_without_choices_has_the_defaults(any_storage: Storage) -> None:
    assert await any_storage.prefs.get(1) == DEFAULT_PREFS
    assert await any_storage.prefs.many([]) == {}


async def test_choices_are_saved_changed_and_reset(any_storage: Storage, backend: Backend) -> None:
    big = 2**62  # Discord ids need 64 bits
    quiet = UserPrefs(notify=False)
    shapes = UserPrefs(cards="colourblind", table="text")
    await any_storage.prefs.save(big, quiet)
    await any_storage.prefs.save(2, shapes)
    assert await any_storage.prefs.many([big, 2, 3, 2]) == {big: quiet, 2: shapes, 3: DEFAULT_PREFS}
    await any_storage.prefs.save(big, UserPrefs(notify=False, table="text"))
    assert await any_storage.prefs.get(big) == UserPrefs(notify=False, table="text")
    await any_storage.prefs.save(2, DEFAULT_PREFS)
    assert await any_storage.prefs.get(2) == DEFAULT_PREFS
    assert backend.execute("SELECT user_id FROM user_prefs") == [(big,)]


async def test_a_users_language_is_kept_beside_their_choices(any_storage: Storage, backend: Backend) -> None:
    """The Discord language seen last (issue 28 item 3: a long game's direct messages are written in
    it): stored alone, kept when the choices change or go back to the defaults, not a choice."""
    big = 2**62
    await any_storage.prefs.set_locale(big, "fr")
    read = await any_storage.prefs.get(big)
    assert read.locale == "fr" and read == DEFAULT_PREFS and read.is_default()
    await any_storage.prefs.save(big, UserPrefs(notify=False, locale="fr"))
    await any_storage.prefs.set_locale(big, "en-GB")  # the choices stay
    read = await any_storage.prefs.get(big)
    assert read == UserPrefs(notify=False) and read.locale == "en-GB"
    await any_storage.prefs.save(big, UserPrefs(locale="en-GB"))  # defaults, the language known: a row
    assert (await any_storage.prefs.get(big)).locale == "en-GB"
    assert backend.execute("SELECT user_id, notify, locale FROM user_prefs") == [(big, None, "en-GB")]
    await any_storage.prefs.set_locale(3, "x" * 40)  # never longer than a locale can be
    assert (await any_storage.prefs.many([3]))[3].locale == "x" * 16
    await any_storage.prefs.save(big, DEFAULT_PREFS)  # nothing left to keep: no row
    assert backend.execute("SELECT user_id FROM user_prefs") == [(3,)]
