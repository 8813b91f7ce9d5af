"""``python -m bot sandbox``: the real bot against a local stand-in for Discord, played in a browser."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

from bot.sandbox.server import DEFAULT_DATABASE, DEFAULT_HOST, DEFAULT_PORT, Sandbox


def parser() -> argparse.ArgumentParser:
    out = argparse.ArgumentParser(
        prog="python -m bot sandbox",
        description="Run the real bot against a local stand-in for Discord and play it in a browser.",
    )
    host = os.environ.get("SANDBOX_HOST") or DEFAULT_HOST
    out.add_argument(
        "--host",
        default=host,
        help=f"address of the page (default SANDBOX_HOST, else {DEFAULT_HOST}; the image sets 0.0.0.0)",
    )
    out.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port of the page (default {DEFAULT_PORT})"
    )
    out.add_argument(
        "--database",
        type=Path,
        default=DEFAULT_DATABASE,
        help=f"SQLite file, emptied at every start unless --keep (default {DEFAULT_DATABASE})",
    )
    out.add_argument(
        "--keep",
        action="store_true",
        default=os.environ.get("SANDBOX_KEEP", "").strip().lower() in ("1", "true", "yes"),
        help="keep the database between starts (default SANDBOX_KEEP, else no): the games resume and"
        " their tables are posted again; the fake Discord's messages are not kept",
    )
    out.add_argument(
        "--database-url",
        default=None,
        help="a PostgreSQL server instead (postgresql://user:pass@host/db; default: DATABASE_URL when it"
        " is one): the sandbox uses its own schema there (skybo_sandbox), emptied at every start",
    )
    out.add_argument("--ai-delay", type=float, default=None, help="a computer player's pause (seconds)")
    out.add_argument("--round-delay", type=float, default=None, help="the pause between rounds (seconds)")
    out.add_argument("--log-level", default=os.environ.get("LOG_LEVEL") or "INFO", help="default INFO")
    return out


def bot_factory(
    database: Path,
    url: str | None = None,
    *,
    metrics_port: int | None = None,
    metrics_host: str = "127.0.0.1",
    **tuning: Any,
) -> Any:
    """What the sandbox starts (again at every "Restart bot"): the real bot on the sandbox's database,
    SQLite at ``database`` or PostgreSQL at ``url`` (already scoped to the sandbox's schema); with
    ``metrics_port``, serving /healthz and /metrics there as ``python -m bot run`` does."""
    from bot.client import BotTuning, create_bot

    settings = BotTuning(**{k: v for k, v in tuning.items() if v is not None})

    def make() -> Any:
        bot = create_bot(
            database_path=database,
            database_url=url,
            synchronous="NORMAL",
            tuning=settings,
            metrics_port=metrics_port,
            metrics_host=metrics_host,
        )
        bot.sync_card_emojis = True  # the card faces on the panels' buttons, as `python -m bot sync` does
        return bot

    return make


def postgres_url(options: argparse.Namespace) -> str | None:
    """The PostgreSQL URL the sandbox runs on: ``--database-url``, else a postgresql:// DATABASE_URL;
    None: SQLite. Raises ``ConfigError`` for a DATABASE_URL that is neither."""
    from bot.config import POSTGRES_SCHEMES, ConfigError, load_settings

    if options.database_url:
        if not str(options.database_url).startswith(POSTGRES_SCHEMES):
            raise ConfigError("--database-url takes a postgresql:// URL (a SQLite file is --database)")
        return str(options.database_url)
    return load_settings().database_url


class _Counter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.NOTSET)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


async def start_up_logged(quiet: float = 0.3, at_most: float = 3.0) -> None:
    """Waits for the bot's start-up lines (the gateway's, tables resumed...) to be written: until nothing
    is logged for ``quiet`` seconds, ``at_most`` in all. The "Ready: open http://..." line that follows
    is then the last line of the terminal, where one looks for it, and stays so until something happens
    at a table (one INFO line per table event, never one per move: bot/logs.py)."""
    counter = _Counter()
    root = logging.getLogger()
    root.addHandler(counter)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + at_most
        seen, since = -1, loop.time()
        while loop.time() < deadline:
            if counter.count != seen:
                seen, since = counter.count, loop.time()
            elif loop.time() - since >= quiet:
                return
            await asyncio.sleep(0.05)
    finally:
        root.removeHandler(counter)


async def serve(options: argparse.Namespace) -> int:
    from bot.config import ConfigError, load_settings
    from bot.storage import StorageError, translate_os_error
    from bot.storage import sandbox as sandbox_storage

    # A database the bot cannot use stops the sandbox with one line, like `python -m bot run`: emptied
    # and opened once here (each bot of the sandbox opens its own later, at every "Restart bot").
    try:
        url = postgres_url(options)
        settings = load_settings()
        where = await sandbox_storage.fresh(options.database, url, keep=options.keep)
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"storage error: {translate_os_error(exc, options.database)}", file=sys.stderr)
        return 2
    except StorageError as exc:
        print(f"storage error: {exc}", file=sys.stderr)
        return 2
    kept = "kept between starts: --keep" if options.keep else "emptied at each start"
    print(f"Database: {where} ({kept}).", flush=True)
    factory = bot_factory(
        options.database,
        None if url is None else sandbox_storage.postgres_url(url),
        metrics_port=settings.metrics_port,
        metrics_host=settings.metrics_host,
        ai_delay=options.ai_delay,
        round_delay=options.round_delay,
    )
    sandbox = Sandbox(factory, host=options.host, port=options.port)
    # Ctrl+C / SIGTERM from here on is heard as "stop" (a signal during the start stops the sandbox as
    # soon as it is up, cleanly, rather than interrupting the start half-way with threads left open).
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await sandbox.start()
    except OSError as exc:
        await sandbox.stop()
        print(f"cannot open the sandbox page on {options.host}:{options.port}: {exc}", file=sys.stderr)
        return 2
    except StorageError as exc:
        await sandbox.stop()
        print(f"storage error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        await sandbox.stop()
        print(f"the bot did not start in the sandbox: {exc!r} (the log above says why)", file=sys.stderr)
        return 2
    await start_up_logged()
    print(f"Ready: open {sandbox.url} (Ctrl+C stops it).", flush=True)
    try:
        await stop.wait()
    finally:
        await sandbox.stop()
    return 0


def main(args: list[str], *, no_token: bool = False) -> int:
    """``no_token``: started by ``make run`` because DISCORD_TOKEN is not set; the first line says so."""
    options = parser().parse_args(args)
    url = f"http://{options.host}:{options.port}/"
    if no_token:
        print(f"DISCORD_TOKEN is not set: starting the local sandbox instead on {url} (docs/sandbox.md).")
    else:
        print(f"Skybo sandbox on {url}: the real bot, a local stand-in for Discord, no token needed.")
    from bot.logs import setup_logging

    setup_logging(str(options.log_level).upper())
    try:
        return asyncio.run(serve(options))
    except KeyboardInterrupt:
        return 0
