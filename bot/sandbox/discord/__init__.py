"""A wire-level fake of Discord (REST API v10 and gateway) for the end-to-end tests and the sandbox.

:class:`FakeDiscord` is the server; each module of the package holds one part of it (see fake.py).
"""

from bot.sandbox.discord.clock import FakeClock, RealClock, shard_of
from bot.sandbox.discord.constants import CALLBACK_DEADLINE, FLAG_EPHEMERAL
from bot.sandbox.discord.errors import (
    DiscordAPIError,
    ErrorLogCollector,
    FakeDiscordError,
    InteractionFailed,
    InteractionRefused,
)
from bot.sandbox.discord.fake import FakeDiscord
from bot.sandbox.discord.interaction import FakeInteraction
from bot.sandbox.discord.records import CallbackRecord, FailedClick, RecordedRequest, Rejection
from bot.sandbox.discord.sessions import GatewaySession
from bot.sandbox.discord.state import (
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    MessageInteraction,
)
from bot.sandbox.discord.validation import walk_components

__all__ = [
    "CALLBACK_DEADLINE",
    "FLAG_EPHEMERAL",
    "CallbackRecord",
    "DiscordAPIError",
    "ErrorLogCollector",
    "FailedClick",
    "FakeAttachment",
    "FakeChannel",
    "FakeClock",
    "FakeDiscord",
    "FakeDiscordError",
    "FakeGuild",
    "FakeInteraction",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "GatewaySession",
    "InteractionFailed",
    "InteractionRefused",
    "MessageInteraction",
    "RealClock",
    "RecordedRequest",
    "Rejection",
    "shard_of",
    "walk_components",
]
