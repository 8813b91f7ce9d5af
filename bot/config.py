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
class Shards:
    """Which of Discord's shards this process runs (``SHARD_COUNT``, ``SHARD_IDS``).

    ``count`` None: one process, every shard, as many as Discord recommends (no sharding for a small
    bot). Otherwise ``count`` shards in all, of which this process runs ``ids`` (all of them when
    ``SHARD_IDS`` is unset). A guild belongs to shard ``(guild_id >> 22) % count`` (Discord's rule);
    a process loads, times and plays only the games of its shards' guilds.
    """

    count: int | None = None
    ids: tuple[int, ...] | None = None

    @property
    def shard_ids(self) -> tuple[int, ...] | None:
        """The shards this process runs; None: all of them."""
        if self.count is None:
            return None
        return self.ids if self.ids is not None else tuple(range(self.count))

    @property
    def partial(self) -> bool:
        """True when other processes must run the other shards (a fleet)."""
        ids = self.shard_ids
        return self.count is not None and ids is not None and len(ids) < self.count

    def owns(self, guild_id: int | None) -> bool:
        """True if this process runs the games of ``guild_id`` (a game without a guild: shard 0)."""
        ids = self.shard_ids
        if self.count is None or ids is None:
            return True
        return shard_of(guild_id, self.count) in ids

    def __str__(self) -> str:
        if self.count is None:
            return "all shards"
        ids = self.shard_ids or ()
        return f"shard{'' if len(ids) == 1 else 's'} {format_shard_ids(ids)} of {self.count}"


def shard_of(guild_id: int | None, count: int) -> int:
    """Discord's shard of a guild: ``(guild_id >> 22) % count``; direct messages are on shard 0."""
    return 0 if not guild_id else (int(guild_id) >> 22) % count


MAX_SHARDS = 4096


def parse_shard_ids(raw: str, count: int) -> tuple[int, ...]:
    """``0-3``, ``0,2`` or ``0-1,5``: the shard ids, sorted, each once, each below ``count``."""
    ids: set[int] = set()
    for part in raw.replace(" ", "").split(","):
        if not part:
            raise ConfigError(
                f"SHARD_IDS must be ids or ranges separated by commas (0-3 or 0,2), not {raw!r}"
            )
        low, dash, high = part.partition("-")
        try:
            first = int(low, 10)
            last = int(high, 10) if dash else first
        except ValueError:
            raise ConfigError(f"SHARD_IDS must be ids or ranges (0-3 or 0,2), not {raw[:40]!r}") from None
        if first < 0 or last < first:
            raise ConfigError(f"SHARD_IDS: {part!r} is not a shard id or an increasing range")
        if last >= count:
            raise ConfigError(
                f"SHARD_IDS: shard {last} does not exist with SHARD_COUNT={count} (ids go 0 to {count - 1})"
            )
        ids.update(range(first, last + 1))
    return tuple(sorted(ids))


def format_shard_ids(ids: tuple[int, ...]) -> str:
    """The ids as ``SHARD_IDS`` writes them: ``0-3``, ``0,2``."""
    runs: list[list[int]] = []  # [first, last] of each run of consecutive ids
    for shard in ids:
        if runs and runs[-1][1] == shard - 1:
            runs[-1][1] = shard
        else:
            runs.append([shard, shard])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def shards_from(count_raw: str | None, ids_raw: str | None) -> Shards:
    """``SHARD_COUNT`` and ``SHARD_IDS`` (or the same command-line flags) as :class:`Shards`."""
    count_text = (count_raw or "").strip()
    ids_text = (ids_raw or "").strip()
    if not count_text:
        if ids_text:
            raise ConfigError("SHARD_IDS needs SHARD_COUNT (how many shards there are in all)")
        return Shards()
    try:
        count = int(count_text, 10)
    except ValueError:
        raise ConfigError(f"SHARD_COUNT must be a whole number, not {count_text[:20]!r}") from None
    if not 1 <= count <= MAX_SHARDS:
        raise ConfigError(f"SHARD_COUNT must be between 1 and {MAX_SHARDS}, not {count}")
    return Shards(count, parse_shard_ids(ids_text, count) if ids_text else None)


MAX_PICTURE_PROCESSES = 16


@dataclass(frozen=True)
class Settings:
    token: str | None
    database_path: Path
    synchronous: str
    log_level: str
    limits: Limits = field(default_factory=Limits)
    # A PostgreSQL server (DATABASE_URL=postgresql://...); None: SQLite at database_path.
    database_url: str | None = None
    shards: Shards = field(default_factory=Shards)
    metrics_port: int | None = None  # METRICS_PORT: /healthz and /metrics; None: off
    metrics_host: str = "127.0.0.1"  # METRICS_HOST: where they listen (0.0.0.0 in a container)
    # REST_PER_SECOND: bot-token requests per second for the whole bot, shared by a fleet's processes
    # (bot.ui.rest_budget; Discord allows 50 per application).
    rest_per_second: float = 40.0
    # PICTURE_PROCESSES: worker processes drawing the table pictures (bot.render.pictures); 0: threads.
    picture_processes: int = 1
    # LEASE_RETAKE_SECONDS: a fleet's process whose shard locks' connection dropped tries to take its
    # shards back this long before it stops (bot.storage.postgres.leases); 0: it stops at once.
    lease_retake_s: float = 30.0
    # FAKE_DISCORD_URL: a fake Discord to talk to instead of Discord (tests only: python -m fakecord serve;
    # bot.discord_patches.point_at_fake); None: Discord itself, always in production.
    fake_discord_url: str | None = None

    def __repr__(self) -> str:  # the token must never reach a log line
        token = "set" if self.token else "missing"
        return (
            f"Settings(token={token}, database_path={self.database_path!s}, "
            f"synchronous={self.synchronous}, log_level={self.log_level}, limits={self.limits}, "
            f"database_url={shown_url(self.database_url)}, shards={self.shards}, "
            f"metrics_port={self.metrics_port}, metrics_host={self.metrics_host}, "
            f"rest_per_second={self.rest_per_second}, picture_processes={self.picture_processes}, "
            f"lease_retake_s={self.lease_retake_s}, fake_discord_url={self.fake_discord_url})"
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
    shards = shards_from(env.get("SHARD_COUNT"), env.get("SHARD_IDS"))
    check_shards_with_database(shards, database_url)
    return Settings(
        token,
        database_path,
        synchronous,
        log_level,
        _limits(env),
        database_url,
        shards,
        _metrics_port(env),
        (env.get("METRICS_HOST") or "").strip() or "127.0.0.1",
        _rest_per_second(env),
        _picture_processes(env),
        _lease_retake_s(env),
        _fake_discord_url(env),
    )


def _fake_discord_url(env: dict[str, str]) -> str | None:
    """``FAKE_DISCORD_URL``: ``http://host:port`` of a fake Discord (``python -m fakecord serve``), for
    tests; unset or empty: Discord."""
    raw = (env.get("FAKE_DISCORD_URL") or "").strip()
    if not raw:
        return None
    if not re.fullmatch(r"https?://[A-Za-z0-9.\-]+(:\d{1,5})?/?", raw):
        raise ConfigError(
            "FAKE_DISCORD_URL must be the address of a fake Discord, http://host:port (tests only; "
            f"leave it unset to talk to Discord), not {raw[:60]!r}"
        )
    return raw.rstrip("/")


MAX_LEASE_RETAKE_S = 3600.0


def _lease_retake_s(env: dict[str, str]) -> float:
    raw = (env.get("LEASE_RETAKE_SECONDS") or "").strip()
    if not raw:
        return 30.0
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"LEASE_RETAKE_SECONDS must be a number of seconds, not {raw[:20]!r}") from None
    if not 0 <= value <= MAX_LEASE_RETAKE_S:
        raise ConfigError(f"LEASE_RETAKE_SECONDS must be between 0 and {MAX_LEASE_RETAKE_S:.0f}, not {raw}")
    return value


def _picture_processes(env: dict[str, str]) -> int:
    raw = (env.get("PICTURE_PROCESSES") or "").strip()
    if not raw:
        return 1
    if not raw.isdigit() or not 0 <= int(raw) <= MAX_PICTURE_PROCESSES:
        raise ConfigError(
            f"PICTURE_PROCESSES must be a whole number from 0 (draw on threads) to {MAX_PICTURE_PROCESSES},"
            f" not {raw[:20]!r}"
        )
    return int(raw)


def _rest_per_second(env: dict[str, str]) -> float:
    raw = (env.get("REST_PER_SECOND") or "").strip()
    if not raw:
        return 40.0
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(
            f"REST_PER_SECOND must be a number of requests per second, not {raw[:20]!r}"
        ) from None
    if not 1 <= value <= 10_000:
        raise ConfigError(
            f"REST_PER_SECOND must be between 1 and 10000 (Discord allows 50 unless it raised yours), "
            f"not {raw}"
        )
    return value


def check_shards_with_database(shards: Shards, database_url: str | None) -> None:
    """Part of the shards here means other processes run the rest, on one shared database: SQLite
    serves one process only."""
    if shards.partial and database_url is None:
        raise ConfigError(
            f"SHARD_IDS runs {shards} in this process, so other processes must run the rest, but SQLite "
            "serves one process only: set DATABASE_URL=postgresql://... for a fleet, or run every shard "
            "here (leave SHARD_IDS unset)"
        )


def _metrics_port(env: dict[str, str]) -> int | None:
    raw = (env.get("METRICS_PORT") or "").strip()
    if not raw or raw == "0":
        return None
    try:
        port = int(raw, 10)
    except ValueError:
        raise ConfigError(
            f"METRICS_PORT must be a port number (1-65535, or 0 for off), not {raw[:20]!r}"
        ) from None
    if not 1 <= port <= 65535:
        raise ConfigError(f"METRICS_PORT must be between 1 and 65535 (0 for off), not {port}")
    return port


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
