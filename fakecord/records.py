"""What the fake records: every request and its answer, rejections, failed clicks, accepted
callbacks, and the faults (429s, 5xx, requests held on their way) a test asked it to inject.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from fakecord.state import FakeMessage, FakeUser


@dataclass(eq=False)
class RecordedRequest:
    """One HTTP request the bot made, with the fake's answer."""

    method: str
    path: str
    route: str | None  # e.g. "/channels/{channel_id}/messages", None for unknown routes
    query: dict[str, str]
    json: Any
    files: dict[str, tuple[str | None, bytes]]
    headers: dict[str, str]
    clock: float
    status: int = 0
    response: Any = None
    # judged by Discord's description (app.py): the request's body, and the answer the fake gave
    request_judged: bool = False
    answer_judged: bool = False
    injected: bool = False  # answered by a fault a test injected (a 429 or a 5xx), not by a route

    @property
    def key(self) -> str:
        return f"{self.method} {self.route or self.path}"

    def __repr__(self) -> str:
        return f"<RecordedRequest {self.method} {self.path} -> {self.status}>"


RECORD_KEY = web.RequestKey("fake_discord_record", RecordedRequest)


@dataclass(eq=False)
class Rejection:
    """A non-2xx answer the fake gave because the bot broke a Discord rule."""

    request: RecordedRequest
    status: int
    code: int
    message: str
    errors: dict[str, Any] | None

    def __repr__(self) -> str:
        return (
            f"<Rejection {self.request.method} {self.request.path}: {self.status} {self.code} {self.message}>"
        )


@dataclass(eq=False)
class FailedClick:
    """A click Discord failed before it reached the bot: the user's client says "This interaction failed".

    Discord checks a clicked component against the message as Discord holds it (error
    COMPONENT_VALIDATION_FAILED): a user whose client still shows an older version of the message
    can click a button the bot has since removed, renamed or disabled.
    """

    user: FakeUser
    message_id: int
    custom_id: str
    reason: str
    seen_revision: int  # the message revision the user clicked on
    revision: int  # the revision Discord holds
    clock: float

    def __repr__(self) -> str:
        return (
            f"<FailedClick {self.user.username} on {self.custom_id!r} of message {self.message_id} "
            f"(seen r{self.seen_revision}, now r{self.revision}): {self.reason}>"
        )


@dataclass(eq=False)
class CallbackRecord:
    """An accepted interaction callback (``POST /interactions/{id}/{token}/callback``)."""

    type: int
    data: dict[str, Any]
    message: FakeMessage | None
    request: RecordedRequest


@dataclass
class FailureRule:
    """A 5xx answer a test injected with :meth:`FakeDiscord.fail`, for the next ``remaining`` calls."""

    method: str
    route: str
    remaining: int
    status: int
    applied: bool


@dataclass
class HoldRule:
    """A request a test holds on its way with :meth:`FakeDiscord.hold`: the next ``remaining`` calls
    are recorded (in :attr:`held` as they come, each ``status`` 0 until answered), then answered only
    once :meth:`release` is called."""

    method: str
    route: str
    remaining: int
    gate: asyncio.Event
    held: list[RecordedRequest] = field(default_factory=list)

    def release(self) -> None:
        """Let the held calls (and those still to come under this rule) go on."""
        self.gate.set()


@dataclass
class RateLimitRule:
    """A 429 a test injected with :meth:`FakeDiscord.rate_limit`, for the next ``remaining`` calls."""

    method: str
    route: str
    remaining: int
    retry_after: float
    is_global: bool
    scope: str
    retry_until: float | None = None  # the fake clock's time to retry at (then retry_after is what is left)
