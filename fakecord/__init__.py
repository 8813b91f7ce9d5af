"""fakecord: a wire-level fake of Discord (REST API v10 and gateway), judged by Discord's own OpenAPI
description, for the end-to-end tests, the benches and the sandbox.

:class:`FakeDiscord` is the server; each module of the package holds one part of it (see fake.py), and
``openapi`` holds the description and its checker. A library of its own: it imports nothing from
``bot`` or ``cogs`` (``tests/unit/test_fakecord_apart.py``); README.md says how to use it.
"""

from fakecord.clock import FakeClock, RealClock, shard_of
from fakecord.constants import (
    BOT_DM_CONTEXT,
    CALLBACK_DEADLINE,
    FLAG_EPHEMERAL,
    GUILD_CONTEXT,
    GUILD_INSTALL,
    PRIVATE_CHANNEL_CONTEXT,
    USER_INSTALL,
    USER_INSTALL_FOLLOWUP_LIMIT,
)
from fakecord.errors import (
    DiscordAPIError,
    ErrorLogCollector,
    FakeDiscordError,
    InteractionFailed,
    InteractionRefused,
)
from fakecord.fake import FakeDiscord
from fakecord.interaction import FakeInteraction
from fakecord.records import CallbackRecord, FailedClick, RecordedRequest, Rejection
from fakecord.routes_activities import FakeActivityInstance
from fakecord.sessions import GatewaySession
from fakecord.state import (
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    MessageInteraction,
)
from fakecord.validation import walk_components

__all__ = [
    "BOT_DM_CONTEXT",
    "CALLBACK_DEADLINE",
    "FLAG_EPHEMERAL",
    "GUILD_CONTEXT",
    "GUILD_INSTALL",
    "PRIVATE_CHANNEL_CONTEXT",
    "USER_INSTALL",
    "USER_INSTALL_FOLLOWUP_LIMIT",
    "CallbackRecord",
    "DiscordAPIError",
    "ErrorLogCollector",
    "FailedClick",
    "FakeActivityInstance",
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
