"""Structured logging: one line per record, ``key=value`` fields, and secrets kept out of every line.

What is kept out, at every level (``LOG_LEVEL=DEBUG`` included):

- the secrets given to :func:`setup_logging` (the bot token), wherever they appear;
- interaction and webhook tokens (15-minute credentials to post as the bot): in URL paths
  (``/webhooks/<id>/<token>``, ``/interactions/<id>/<token>/callback``), in ``token`` fields of a dict
  or JSON text (``'token': '...'``, ``"token":"..."``, ``token=...``), and anything shaped like a
  Discord bot token;
- message contents (a private panel's text and buttons: a player's grid or hand). Our own code never
  logs them; discord.py would, at DEBUG: the gateway dumps every event verbatim (an interaction's
  payload carries its token and the clicked panel), ``discord.http`` every request and answer body.
  So the payloads third-party libraries pass to a log call are replaced by their shape (a gateway
  event by its opcode, name and sequence number, which is what one reads them for), and the loggers
  whose DEBUG lines are only payloads or per-query noise stay at INFO (:data:`QUIET_LOGGERS`).

Our own DEBUG lines (``bot.*``, ``cogs.*``) and discord.py's useful ones (event dispatch, gateway
sequence, webhook status codes) are kept.

Levels of our own lines: INFO is what an operator follows, one line per table event that matters (a
lobby opened or cancelled, a game started, finished or ended by hand, a seat taken by a computer, tables
resumed) and the faults (retries, WARNING, ERROR with a traceback). What happens at every move is DEBUG
(a move committed, a click refused, a turn timed out, a long game's letter sent): at INFO a busy sandbox
printed one line per move and buried its "Ready" line. ``tests/e2e/test_operator_logs.py`` plays a game
to that rule.
"""

from __future__ import annotations

import enum
import logging
import re
import sys
from collections.abc import Mapping
from typing import IO, Any

# Attributes every LogRecord has; anything else on a record came from ``extra=`` and is printed.
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}

REDACTED = "[redacted]"

# Loggers kept at INFO (or quieter) whatever LOG_LEVEL says. discord.http's DEBUG lines are each
# request's URL (interaction tokens in webhook routes), body and answer (message contents); aiosqlite's
# are two lines per query naming the function it runs (half of a DEBUG log, and a query's parameters
# would be printed with it, game states included).
QUIET_LOGGERS = ("discord.http", "aiosqlite")

# Loggers whose records are third-party: their arguments may be whole payloads, so they are shaped.
_THIRD_PARTY = ("discord", "aiohttp", "aiosqlite", "websockets", "asyncio")

_TOKEN_PATTERNS = [
    # A webhook or interaction route: the segment after the id is the token (followed by /callback,
    # /messages/..., a query, a quote or the end of the URL).
    (re.compile(r"(/(?:webhooks|interactions)/\d+/)[^/?#\s'\"]+"), rf"\1{REDACTED}"),
    # A token field in a dict repr, JSON text, a query string or key=value: token, access_token, ...
    (
        re.compile(r"""(?i)(["']?\b\w*token["']?\s*[:=]\s*["']?)(?!\[redacted\])[^\s"',;&}\])]+"""),
        rf"\1{REDACTED}",
    ),
    # An Authorization header's value.
    (re.compile(r"""(?i)(authorization["']?\s*[:=]\s*["']?(?:Bot|Bearer)\s+)[^\s"',}]+"""), rf"\1{REDACTED}"),
    # Anything shaped like a Discord bot token (base64 user id . timestamp . hmac), even unlisted.
    (re.compile(r"\b[MNO][\w\-]{23,27}\.[\w\-]{6}\.[\w\-]{27,}"), REDACTED),
]


def redact_tokens(text: str) -> str:
    """``text`` with every interaction, webhook and bot token pattern replaced by ``[redacted]``."""
    for pattern, replacement in _TOKEN_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def _shape(value: Any) -> Any:
    """What a third-party log call may print of one argument: scalars as they are, payloads by shape."""
    if value is None or isinstance(value, (int, float, enum.Enum)):
        return value
    if isinstance(value, str):
        stripped = value.lstrip()
        if stripped[:1] in ("{", "["):  # JSON text: a request or answer body
            return f"<json: {len(value)} chars>"
        return value
    if isinstance(value, Mapping):
        if "op" in value and "d" in value:  # a gateway frame: what it is, not what it carries
            return " ".join(
                f"{key}={value.get(key)}" for key in ("op", "t", "s") if value.get(key) is not None
            )
        return f"<{type(value).__name__}: {len(value)} keys>"
    if isinstance(value, tuple) and hasattr(value, "_fields") and hasattr(value, "type"):
        return f"<{type(value).__name__} type={value.type}>"  # aiohttp's WSMessage: its kind, not its data
    if isinstance(value, (list, tuple, set, frozenset)):
        return f"<{type(value).__name__}: {len(value)} items>"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<{len(value)} bytes>"
    return value


def _component_shape(value: Any) -> Any:
    """A discord.ui item or view by its type only: its repr carries its label (a card of a hand)."""
    value = _shape(value)
    if value is None or isinstance(value, (str, int, float, enum.Enum, BaseException)):
        return value
    return f"<{type(value).__name__}>"


class RedactingFilter(logging.Filter):
    """Keeps secrets out of a record: the given ``secrets`` (the bot token), interaction and webhook
    tokens in any text, third-party payloads, and the same in ``extra=`` fields and tracebacks."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s and len(s) >= 8]

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.split(".", 1)[0] in _THIRD_PARTY and record.args:
            shape = _component_shape if record.name.startswith("discord.ui") else _shape
            if isinstance(record.args, Mapping) and "%(" in str(record.msg):
                record.args = {k: shape(v) for k, v in record.args.items()}
            elif isinstance(record.args, Mapping):  # ``log("... %s", payload)``: the one argument
                record.args = (shape(record.args),)
            else:
                record.args = tuple(shape(a) for a in record.args)
        text = record.getMessage()
        clean = self.scrub(text)
        if clean != text:
            record.msg, record.args = clean, None
        for key, value in list(vars(record).items()):
            if key in _STANDARD or value is None or isinstance(value, (bool, int, float)):
                continue
            if key.lower().endswith("token"):  # printed as token=...: the value is the secret
                setattr(record, key, REDACTED)
                continue
            shown = value if isinstance(value, str) else str(value)
            clean = self.scrub(shown)
            if clean != shown:
                setattr(record, key, clean)
        if record.exc_info and not record.exc_text:
            # Formatted once here, scrubbed, and cached where formatters look for it: an exception's
            # text may quote a URL with a token (aiohttp) or a request's body.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.scrub(record.exc_text)
        if record.stack_info:
            record.stack_info = self.scrub(record.stack_info)
        return True

    def scrub(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return redact_tokens(text)


class KeyValueFormatter(logging.Formatter):
    """``2026-11-22T03:00:00 INFO bot.service game move applied game=12 seat=1 version=40``."""

    def format(self, record: logging.LogRecord) -> str:
        fields: dict[str, Any] = {k: v for k, v in vars(record).items() if k not in _STANDARD}
        when = self.formatTime(record, "%Y-%m-%dT%H:%M:%S")
        line = f"{when} {record.levelname} {record.name} {record.getMessage()}"
        if fields:
            line += " " + " ".join(f"{k}={_quote(v)}" for k, v in sorted(fields.items()))
        if record.exc_info or record.exc_text:
            # The text RedactingFilter scrubbed, when it ran; else the traceback as it is.
            line += "\n" + (record.exc_text or self.formatException(record.exc_info))  # type: ignore[arg-type]
        if record.stack_info:
            line += "\n" + self.formatStack(record.stack_info)
        return line


def _quote(value: Any) -> str:
    text = str(value)
    return repr(text) if (" " in text or not text) else text


def setup_logging(
    level: str = "INFO", secrets: list[str] | None = None, stream: IO[str] | None = None
) -> None:
    """Log to ``stream`` (default stderr) in key=value lines, keeping ``secrets``, interaction tokens
    and message contents out of everything, discord.py included (see the module docstring)."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(KeyValueFormatter())
    handler.addFilter(RedactingFilter(secrets or []))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.INFO, logging.getLevelName(level)))
