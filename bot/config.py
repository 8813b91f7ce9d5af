"""Settings from the environment (and an optional .env file), validated once at start."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_DATABASE = Path("data") / "skybo.sqlite3"
SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(Exception):
    """A setting is missing or malformed; the message says how to fix it (never echoes the token)."""


@dataclass(frozen=True)
class Limits:
    """Fair use: how many tables one user may host and one server may have at once (open lobbies and
    games in play both count; 0: no limit), and the least time between two tables one user opens
    (``/<game> new`` and Rematch alike; 0: none). The defaults are what a bot shared by many servers
    needs; tests and the sandbox get them without saying anything."""

    per_user: int = 3
    per_server: int = 50
    cooldown_seconds: int = 10

    @classmethod
    def none(cls) -> Limits:
        """No cap and no cool-down (benchmarks, where one host opens hundreds of tables)."""
        return cls(per_user=0, per_server=0, cooldown_seconds=0)


# (environment variable, Limits field)
_LIMIT_SETTINGS = (
    ("MAX_TABLES_PER_USER", "per_user"),
    ("MAX_TABLES_PER_SERVER", "per_server"),
    ("TABLE_COOLDOWN_SECONDS", "cooldown_seconds"),
)


def _limits(env: dict[str, str]) -> Limits:
    values: dict[str, int] = {}
    for name, attribute in _LIMIT_SETTINGS:
        raw = (env.get(name) or "").strip()
        if not raw:
            continue  # unset or empty: the default
        try:
            value = int(raw, 10)
        except ValueError:
            raise ConfigError(f"{name} must be a whole number (0 for no limit), not {raw[:20]!r}") from None
        if value < 0:
            raise ConfigError(f"{name} must be 0 (no limit) or more, not {value}")
        values[attribute] = value
    return Limits(**values)


@dataclass(frozen=True)
class Settings:
    token: str | None
    database_path: Path
    synchronous: str
    log_level: str
    limits: Limits = field(default_factory=Limits)
    # A PostgreSQL server (DATABASE_URL=postgresql://...); None: SQLite at database_path.
    database_url: str | None = None

    def __repr__(self) -> str:  # the token must never reach a log line
        token = "set" if self.token else "missing"
        return (
            f"Settings(token={token}, database_path={self.database_path!s}, "
            f"synchronous={self.synchronous}, log_level={self.log_level}, limits={self.limits}, "
            f"database_url={shown_url(self.database_url)})"
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
    database_url, database_path = _database(env.get("DATABASE_URL"), database_path)
    synchronous = (env.get("SQLITE_SYNCHRONOUS") or "FULL").strip().upper()
    if synchronous not in SYNCHRONOUS_MODES:
        raise ConfigError(f"SQLITE_SYNCHRONOUS must be one of {', '.join(SYNCHRONOUS_MODES)}")
    log_level = (env.get("LOG_LEVEL") or "INFO").strip().upper()
    if log_level not in LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}")
    return Settings(token, database_path, synchronous, log_level, _limits(env), database_url)


SQLITE_URL = "sqlite:///"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def _database(url: str | None, path: Path) -> tuple[str | None, Path]:
    """``DATABASE_URL``: ``sqlite:///relative/path`` or ``sqlite:////absolute/path`` (SQLite at that
    path, as ``DATABASE_PATH`` says), or ``postgresql://user:pass@host:5432/db`` (a PostgreSQL server).
    Unset or empty: SQLite at ``DATABASE_PATH``. Returns ``(postgres url or None, sqlite path)``."""
    url = (url or "").strip()
    if not url:
        return None, path
    if url.startswith(SQLITE_URL):
        rest = url[len(SQLITE_URL) :]
        if not rest:
            raise ConfigError("DATABASE_URL=sqlite:/// needs a file path (sqlite:///data/skybo.sqlite3)")
        return None, Path(rest)
    if url.startswith(POSTGRES_SCHEMES):
        return url, path
    raise ConfigError(
        "DATABASE_URL must start with sqlite:/// (a SQLite file) or postgresql:// (a PostgreSQL server), "
        f"not {shown_url(url.split('://', 1)[0] + '://')!s}"
    )


def shown_url(url: str | None) -> str | None:
    """A database URL as logs and messages may show it: the password replaced by ``***``."""
    if url is None:
        return None
    return re.sub(r"(://[^:/@?#]*:)[^@/?#]*@", r"\1***@", url)
