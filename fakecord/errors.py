"""The fake's errors: what it raises at a test, what it answers the bot (Discord's JSON errors, the
nested "Invalid Form Body"), and the collector of the ERROR logs a test must not leave behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from typing import Any

from fakecord.constants import WAIT_S


class FakeDiscordError(Exception):
    """Base class of the errors the fake raises *test-side*."""


class InteractionRefused(FakeDiscordError):
    """A user action that Discord's client would not allow (e.g. clicking an invisible message)."""


class InteractionFailed(FakeDiscordError):
    """Waiting for the bot's answer to a click that failed before reaching it (see :class:`FailedClick`)."""


class DiscordAPIError(Exception):
    """Raised inside a route handler to answer with a Discord error body."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


def unknown_message() -> DiscordAPIError:
    return DiscordAPIError(404, 10008, "Unknown Message")


def unknown_channel() -> DiscordAPIError:
    return DiscordAPIError(404, 10003, "Unknown Channel")


class FormErrors:
    """Accumulates Discord's nested ``{"field": {"0": {"_errors": [...]}}}`` error tree."""

    def __init__(self) -> None:
        self.tree: dict[str, Any] = {}

    def add(self, path: Iterable[str | int], code: str, message: str) -> None:
        node = self.tree
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def max_length(self, path: list[str | int], value: Any, limit: int) -> None:
        if isinstance(value, str | list) and len(value) > limit:
            self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")

    def __bool__(self) -> bool:
        return bool(self.tree)

    def raise_if_any(self) -> None:
        if self.tree:
            raise DiscordAPIError(400, 50035, "Invalid Form Body", self.tree)


class ErrorLogCollector(logging.Handler):
    """A logging handler keeping ERROR+ records so that the test can fail on them."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    @staticmethod
    def _describe(record: logging.LogRecord) -> str:
        text = f"{record.name}: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            text += f" [{record.exc_info[1]!r}]"
        return text

    def _matches(self, record: logging.LogRecord, needle: str) -> bool:
        return needle in self._describe(record) or (
            record.exc_info is not None
            and needle
            in repr(record.exc_info[1]) + repr(record.exc_info[1].__cause__ if record.exc_info[1] else None)
        )

    def expect(self, needle: str) -> logging.LogRecord:
        """Consumes the first collected record mentioning ``needle`` (message or exception)."""
        for record in self.records:
            if self._matches(record, needle):
                self.records.remove(record)
                return record
        raise AssertionError(f"no ERROR log mentioning {needle!r}; got {self.summary()}")

    async def wait_for(self, needle: str, timeout: float = WAIT_S) -> logging.LogRecord:
        """Like :meth:`expect`, waiting (polling every 10 ms) for the record to be logged."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            with contextlib.suppress(AssertionError):
                return self.expect(needle)
            if loop.time() > deadline:
                return self.expect(needle)
            await asyncio.sleep(0.01)

    def take(self) -> list[logging.LogRecord]:
        taken, self.records = self.records, []
        return taken

    def summary(self) -> list[str]:
        return [self._describe(r) for r in self.records]
