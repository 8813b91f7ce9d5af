"""Settings from the environment (and an optional .env file), validated once at start."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_DATABASE = Path("data") / "skybo.sqlite3"
SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(Exception):
    """A setting is missing or malformed; the message says how to fix it (never echoes the token)."""


@dataclass(frozen=True)
class Settings:
    token: str | None
    database_path: Path
    synchronous: str
    log_level: str

    def __repr__(self) -> str:  # the token must never reach a log line
        token = "set" if self.token else "missing"
        return (
            f"Settings(token={token}, database_path={self.database_path!s}, "
            f"synchronous={self.synchronous}, log_level={self.log_level})"
        )


def load_settings(env: dict[str, str] | None = None, *, dotenv: bool = True) -> Settings:
    """Read the settings from ``env`` (default: the process environment, after loading ``.env``)."""
    if env is None:
        if dotenv:
            from dotenv import load_dotenv

            load_dotenv(override=False)
        env = dict(os.environ)
    token = (env.get("DISCORD_TOKEN") or "").strip() or None
    database_path = Path(env.get("DATABASE_PATH") or DEFAULT_DATABASE)
    synchronous = (env.get("SQLITE_SYNCHRONOUS") or "FULL").strip().upper()
    if synchronous not in SYNCHRONOUS_MODES:
        raise ConfigError(f"SQLITE_SYNCHRONOUS must be one of {', '.join(SYNCHRONOUS_MODES)}")
    log_level = (env.get("LOG_LEVEL") or "INFO").strip().upper()
    if log_level not in LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}")
    return Settings(token, database_path, synchronous, log_level)
