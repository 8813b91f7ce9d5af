"""Structured logging: one line per record, ``key=value`` fields, and secrets scrubbed from every line."""

from __future__ import annotations

import logging
import sys
from typing import Any

# Attributes every LogRecord has; anything else on a record came from ``extra=`` and is printed.
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


class RedactingFilter(logging.Filter):
    """Replaces every secret (the bot token) in a record's text with ``[redacted]``."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s and len(s) >= 8]

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            text = record.getMessage()
            clean = self.scrub(text)
            if clean != text:
                record.msg, record.args = clean, None
            for key, value in list(vars(record).items()):
                if key not in _STANDARD and isinstance(value, str):
                    setattr(record, key, self.scrub(value))
        return True

    def scrub(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "[redacted]")
        return text


class KeyValueFormatter(logging.Formatter):
    """``2026-11-22T03:00:00 INFO bot.service game move applied game=12 seat=1 version=40``."""

    def format(self, record: logging.LogRecord) -> str:
        fields: dict[str, Any] = {k: v for k, v in vars(record).items() if k not in _STANDARD}
        when = self.formatTime(record, "%Y-%m-%dT%H:%M:%S")
        line = f"{when} {record.levelname} {record.name} {record.getMessage()}"
        if fields:
            line += " " + " ".join(f"{k}={_quote(v)}" for k, v in sorted(fields.items()))
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def _quote(value: Any) -> str:
    text = str(value)
    return repr(text) if (" " in text or not text) else text


def setup_logging(level: str = "INFO", secrets: list[str] | None = None) -> None:
    """Log to stderr in key=value lines, scrubbing ``secrets`` from everything, discord.py included."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(KeyValueFormatter())
    handler.addFilter(RedactingFilter(secrets or []))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("discord.http").setLevel(max(logging.INFO, logging.getLevelName(level)))
