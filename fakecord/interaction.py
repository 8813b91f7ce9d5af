"""The handle on one interaction sent to the bot (command, click, modal, autocomplete); its
coroutines wait for the bot's answers.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from fakecord.clock import SnowflakeFactory
from fakecord.constants import WAIT_S
from fakecord.errors import InteractionFailed
from fakecord.records import CallbackRecord, FailedClick, RecordedRequest
from fakecord.sessions import GatewaySession
from fakecord.state import FakeChannel, FakeMessage, FakeUser

_T = TypeVar("_T")


class InteractionHost(Protocol):
    """What an interaction handle needs of the fake (the fake itself): a protocol, so that this
    module does not import the fake that imports it."""

    new_id: SnowflakeFactory
    clock: Any
    requests: list[RecordedRequest]

    async def wait_until(
        self, predicate: Callable[[], _T | None], timeout: float = WAIT_S, *, what: str = "a condition"
    ) -> _T: ...


class FakeInteraction:
    """A handle on one interaction sent to the bot; its coroutines wait for the bot's answers."""

    def __init__(
        self,
        fake: InteractionHost,
        *,
        type: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        message: FakeMessage | None = None,
        command_name: str | None = None,
        source: FakeInteraction | None = None,
    ) -> None:
        self.fake = fake
        self.id = fake.new_id()
        self.token = "fake-interaction-" + secrets.token_urlsafe(24)
        self.type = type
        self.user = user
        self.channel = channel
        self.data = data
        self.message = message  # the clicked message for component interactions
        self.command_name = command_name
        self.source = source  # a modal submit's: the interaction the bot answered with the modal
        self.created_at = fake.clock.now()
        self.callback: CallbackRecord | None = None
        self.callback_attempts: list[RecordedRequest] = []
        self.original_message: FakeMessage | None = None
        self.followups: list[FakeMessage] = []
        # Messages the bot wrote through the interaction's webhook (follow-ups, edits), in order.
        self.webhook_writes: list[FakeMessage] = []
        self.failure: FailedClick | None = None  # set when Discord failed the click (never sent)
        self.sessions: list[GatewaySession] = []  # the gateway sessions INTERACTION_CREATE went to
        # Where it happened, as the fake computed it when sending it (fakecord/places.py): the interaction
        # context (0 guild, 1 the bot's DM, 2 a group DM or a DM between users), the installations that
        # authorized it (authorizing_integration_owners), and whether Discord shows every message it makes
        # only to the user (a user-installed app where the server forbids external apps' public answers).
        self.context: int | None = None
        self.owners: dict[str, str] | None = None
        self.forced_ephemeral = False

    def __repr__(self) -> str:
        return f"<FakeInteraction id={self.id} type={self.type} user={self.user.username}>"

    @property
    def failed(self) -> bool:
        """True when the click never reached the bot (the user saw "This interaction failed")."""
        return self.failure is not None

    def _check_not_failed(self) -> None:
        # waiting would only time out: say why at once
        if self.failure is not None:
            raise InteractionFailed(f"the click never reached the bot: {self.failure!r}")

    @property
    def guild_id(self) -> int | None:
        return self.channel.guild_id

    @property
    def user_install_only(self) -> bool:
        """Only a user install authorized it (the app is not installed where it ran): Discord caps its
        follow-ups (USER_INSTALL_FOLLOWUP_LIMIT)."""
        return set(self.integration_owners()) == {"1"}

    @property
    def acknowledged(self) -> bool:
        return self.callback is not None

    def integration_owners(self) -> dict[str, str]:
        """Discord's ``authorizing_integration_owners``: installation type ("0" guild, "1" user) -> the
        guild's id ("0" in the bot's DM) or the authorizing user's id."""
        if self.owners is not None:
            return dict(self.owners)
        if self.guild_id is not None:
            return {"0": str(self.guild_id)}
        return {"1": str(self.user.id)}

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request the bot made with this interaction's id or token."""
        return [r for r in self.fake.requests if self.token in r.path]

    async def response(self, timeout: float = WAIT_S) -> CallbackRecord:
        """Waits for the bot's accepted initial answer (callback) and returns it."""
        self._check_not_failed()

        def ready() -> CallbackRecord | None:
            return self.callback

        return await self._wait(ready, timeout, f"an answer to {self!r}")

    async def _wait(self, ready: Callable[[], _T | None], timeout: float, what: str) -> _T:
        """``fake.wait_until``, its timeout saying what became of the interaction's callback: none
        came, or the ones Discord refused (a late one: 10062 after the 3 seconds)."""
        try:
            return await self.fake.wait_until(ready, timeout, what=what)
        except TimeoutError as exc:
            rejected = [r for r in self.callback_attempts if r.status >= 300]
            told = f"rejected callbacks: {rejected}" if rejected else "no callback was attempted"
            if self.callback is not None:
                told = f"callback type {self.callback.type} accepted"
            raise TimeoutError(f"{exc}; {told}") from None

    async def answer(self, timeout: float = WAIT_S) -> FakeMessage:
        """Waits for what the user sees as the bot's answer and returns the message showing it: the
        callback's own message when the callback carried the answer (types 4 and 7), else (a
        deferral: 5 "thinking", 6 nothing shown) the first message the bot then wrote through the
        interaction's webhook (an edit of the original response or a follow-up)."""
        record = await self.response(timeout)
        if record.type in (4, 7) and record.message is not None:
            return record.message

        def ready() -> FakeMessage | None:
            return self.webhook_writes[0] if self.webhook_writes else None

        return await self._wait(ready, timeout, f"the answer after the deferral of {self!r}")

    async def original(self, timeout: float = WAIT_S) -> FakeMessage:
        """Waits until the original response message exists and is no longer "thinking"."""
        self._check_not_failed()

        def ready() -> FakeMessage | None:
            msg = self.original_message
            if msg is not None and not msg.loading:
                return msg
            return None

        return await self._wait(ready, timeout, f"the original response of {self!r}")

    async def followup(self, index: int = 0, timeout: float = WAIT_S) -> FakeMessage:
        """Waits for the ``index``-th follow-up message (0-based) and returns it."""
        self._check_not_failed()

        def ready() -> FakeMessage | None:
            return self.followups[index] if len(self.followups) > index else None

        return await self._wait(ready, timeout, f"follow-up #{index} of {self!r}")

    @property
    def messages(self) -> list[FakeMessage]:
        """Original response (if any) then follow-ups."""
        out = [self.original_message] if self.original_message is not None else []
        return out + [m for m in self.followups if m is not self.original_message]
