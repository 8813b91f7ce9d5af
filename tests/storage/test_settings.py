"""Server settings (``/skybo settings``, issue 28) on both backends: stored whole, read back, and a
server back to the defaults keeps no row."""

from __future__ import annotations

from bot.storage import ServerSettings, Storage
from bot.storage.settings import DEFAULTS
from tests.storage.conftest import Backend


async def test_a_server_without_settings_has_the_defaults(any_storage: Storage) -> None:
    assert await any_storage.settings.get(1) == DEFAULTS
    assert await any_storage.settings.all() == {}


async def test_settings_are_saved_changed_and_reset(any_storage: Storage, backend: Backend) -> None:
    big = 2**62  # Discord ids need 64 bits
    chosen = ServerSettings(turn_limit=30, channels=(big, 7), language="fr", rate_computers=False)
    await any_storage.settings.save(big, chosen)
    await any_storage.settings.save(2, ServerSettings(turn_limit=0))
    assert await any_storage.settings.get(big) == chosen
    changed = ServerSettings(turn_limit=None, channels=None, language="en")  # computers rated again
    await any_storage.settings.save(big, changed)
    assert await any_storage.settings.all() == {big: changed, 2: ServerSettings(turn_limit=0)}
    await any_storage.settings.save(big, DEFAULTS)
    assert await any_storage.settings.get(big) == DEFAULTS
    assert backend.execute("SELECT guild_id FROM server_settings") == [(2,)]


async def test_a_thread_per_game_is_stored_alone_and_read_back(
    any_storage: Storage, backend: Backend
) -> None:
    """``/skybo settings threads:on`` (migration 0007): a row of its own, back to no row when off."""
    await any_storage.settings.save(3, ServerSettings(threads=True))
    assert await any_storage.settings.get(3) == ServerSettings(threads=True)
    assert await any_storage.settings.all() == {3: ServerSettings(threads=True)}
    assert backend.execute("SELECT threads FROM server_settings WHERE guild_id = 3") == [(1,)]
    await any_storage.settings.save(3, ServerSettings(threads=False))
    assert await any_storage.settings.all() == {}


async def test_the_tournament_role_is_stored_with_64_bits_and_cleared(
    any_storage: Storage, backend: Backend
) -> None:
    """``/skybo settings tournament_role:<role>`` (migration 0010): a role id needs 64 bits; cleared,
    a server back to the defaults keeps no row."""
    role = 2**62 + 5
    await any_storage.settings.save(4, ServerSettings(tournament_role=role, threads=True))
    assert await any_storage.settings.get(4) == ServerSettings(tournament_role=role, threads=True)
    assert await any_storage.settings.all() == {4: ServerSettings(tournament_role=role, threads=True)}
    assert backend.execute("SELECT tournament_role FROM server_settings WHERE guild_id = 4") == [(role,)]
    await any_storage.settings.save(4, ServerSettings(threads=True))
    assert await any_storage.settings.get(4) == ServerSettings(threads=True)
    await any_storage.settings.save(4, DEFAULTS)
    assert await any_storage.settings.all() == {}
