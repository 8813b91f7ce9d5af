"""The fake Discord's pytest fixtures: for the tests of the fake itself (this folder) and, imported by
``tests/e2e/conftest.py``, for the end-to-end tests that run the real bot against it.

Fixtures
--------
``fake_discord``
    A started :class:`~fakecord.FakeDiscord` with discord.py patched to
    talk to it (``Route.BASE`` and ``DiscordWebSocket.DEFAULT_GATEWAY``).  At teardown it
    stops every client started through it, shuts the server down and calls
    ``fake.assert_clean()``: the test errors if the bot hit an unknown route, got a
    rejection the test did not consume (``fake.take_rejections()`` /
    ``await fake.wait_rejection(code)``), left a failed click unconsumed (a click on a
    ``message.snapshot()`` whose component the bot has since removed or disabled:
    ``fake.take_failed_clicks()``), or broke the gateway protocol.

``connect_bot``
    ``await connect_bot(bot)`` starts any ``discord.Client`` / ``commands.Bot`` against
    the fake, waits until it is ready (guild_ready_timeout forced to 0.1 s) and returns
    it; the client is closed at teardown.  Same keyword arguments as
    ``FakeDiscord.running`` (e.g. ``sync_commands=True``).  Inside a test you can also
    write ``async with fake_discord.running(bot): ...``.

``@pytest.mark.real_clock``
    The fake's interaction deadlines (3 s to answer, 15 minutes for the token) run on the wall
    clock (:class:`RealClock`) instead of the manual ``fake.clock``: a late answer really fails.

``@pytest.mark.fake_discord(**kwargs)``
    The fixture's :class:`~fakecord.FakeDiscord` is built with these keyword arguments, e.g.
    ``integration_types=(0, 1)`` for an application users may install (fakecord/places.py).

``discord_error_log`` (autouse)
    Collects every ERROR-or-worse log record (root logger: discord.py, the bot, aiohttp)
    during the test; any record left at teardown fails the test.  A test that provokes
    an error on purpose consumes it with ``discord_error_log.expect("substring")``.

The real bot is layered on top in ``tests/e2e/conftest.py`` (``skybo``, ``database``). Nothing here
imports ``bot``: these fixtures drive any discord.py client, as the tests of this folder do.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import discord
import pytest

from fakecord import ErrorLogCollector, FakeDiscord, RealClock


@pytest.fixture(autouse=True)
def discord_error_log() -> Iterator[ErrorLogCollector]:
    collector = ErrorLogCollector()
    # the root logger sees discord.py, aiohttp, asyncio and the bot; loggers that do not
    # propagate (a bot may configure its own) get the handler directly
    targets = [logging.getLogger()] + [
        logger
        for logger in logging.root.manager.loggerDict.values()
        if isinstance(logger, logging.Logger) and not logger.propagate
    ]
    for logger in targets:
        logger.addHandler(collector)
    try:
        yield collector
    finally:
        for logger in targets:
            logger.removeHandler(collector)
    if collector.records:
        pytest.fail(
            "ERROR log records during the test:\n  " + "\n  ".join(collector.summary()), pytrace=False
        )


@pytest.fixture
async def fake_discord(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[FakeDiscord]:
    # @pytest.mark.real_clock: interaction deadlines on the wall clock instead of the manual one.
    # @pytest.mark.fake_discord(**kwargs): the fake's own arguments.
    marker = request.node.get_closest_marker("fake_discord")
    kwargs: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    fake = FakeDiscord(clock=RealClock() if request.node.get_closest_marker("real_clock") else None, **kwargs)
    await fake.start()
    fake.patch(monkeypatch)
    try:
        yield fake
    finally:
        await fake.stop()
    fake.assert_clean()


@pytest.fixture
async def connect_bot(
    fake_discord: FakeDiscord,
) -> AsyncIterator[Callable[..., Awaitable[Any]]]:
    async with contextlib.AsyncExitStack() as stack:

        async def connect(client: discord.Client, **kwargs: Any) -> Any:
            return await stack.enter_async_context(fake_discord.running(client, **kwargs))

        yield connect
