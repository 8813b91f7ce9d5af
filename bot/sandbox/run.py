"""``python -m bot sandbox``: the real bot against a local stand-in for Discord, played in a browser."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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
    out.add_argument("--host", default=DEFAULT_HOST, help=f"address of the page (default {DEFAULT_HOST})")
    out.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port of the page (default {DEFAULT_PORT})"
    )
    out.add_argument(
        "--database",
        type=Path,
        default=DEFAULT_DATABASE,
        help=f"SQLite file, emptied at every start (default {DEFAULT_DATABASE})",
    )
    out.add_argument("--ai-delay", type=float, default=None, help="a computer player's pause (seconds)")
    out.add_argument("--round-delay", type=float, default=None, help="the pause between rounds (seconds)")
    out.add_argument("--log-level", default=os.environ.get("LOG_LEVEL") or "INFO", help="default INFO")
    return out


def fresh_database(path: Path) -> None:
    """The fake Discord lives in memory, so a database from an earlier run would point at channels
    and messages that no longer exist: start empty (``Restart bot`` in the page shows a resume)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            Path(f"{path}{suffix}").unlink()


def bot_factory(database: Path, **tuning: Any) -> Any:
    from bot.client import BotTuning, create_bot

    settings = BotTuning(**{k: v for k, v in tuning.items() if v is not None})
    return lambda: create_bot(database_path=database, synchronous="NORMAL", tuning=settings)


async def serve(options: argparse.Namespace) -> int:
    from bot.storage import Storage, StorageError, translate_os_error

    # A database the bot cannot use stops the sandbox with one line, like `python -m bot run`: opened
    # once here (each bot of the sandbox opens its own later, at every "Restart bot").
    try:
        fresh_database(options.database)
        await (await Storage.open(options.database, synchronous="NORMAL")).close()
    except OSError as exc:
        print(f"storage error: {translate_os_error(exc, options.database)}", file=sys.stderr)
        return 2
    except StorageError as exc:
        print(f"storage error: {exc}", file=sys.stderr)
        return 2
    factory = bot_factory(options.database, ai_delay=options.ai_delay, round_delay=options.round_delay)
    sandbox = Sandbox(factory, host=options.host, port=options.port)
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
    print(f"Ready: open {sandbox.url} (Ctrl+C stops it).", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
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
    print(f"Database: {options.database} (emptied at each start).", flush=True)
    from bot.logs import setup_logging

    setup_logging(str(options.log_level).upper())
    try:
        return asyncio.run(serve(options))
    except KeyboardInterrupt:
        return 0
