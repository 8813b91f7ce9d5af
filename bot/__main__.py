"""Command line: run the bot, play in a terminal, simulate games, benchmark, export and replay games.

Each sub-command lives in its own module and receives the rest of the command line, so games and
tools plug in without touching this file's logic.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence

USAGE = """usage: python -m bot [COMMAND] [ARGS...]

commands:
  run                      start the Discord bot (the default; needs DISCORD_TOKEN)
  sandbox [--port N]       the real bot on a local stand-in for Discord, played in a browser
  play {skyjo,skipbo}      play a game in this terminal against computer players
  simulate {skyjo,skipbo}  computer players against each other, with statistics
  bench [NAME...]          run the benchmarks and print their figures
  export-game ID           print a stored game (seed, options, players, actions) as JSON
  replay FILE              replay an exported game in the terminal
  migrate-db --to URL      copy the SQLite database into an empty PostgreSQL one, verified
  backup DEST              copy the SQLite database while the bot runs, checked (PostgreSQL: pg_dump)
  sync [--guild ID]        register the slash commands with Discord
"""

GAMES = ("skyjo", "skipbo")


def _per_game(package: str) -> Callable[[list[str]], int]:
    def run(args: list[str]) -> int:
        if not args or args[0] not in GAMES:
            print(f"usage: python -m bot {package.rsplit('.', 1)[-1]} {{{','.join(GAMES)}}} [options]")
            return 2
        module = importlib.import_module(f"{package}.{args[0]}")
        return int(module.main(args[1:]) or 0)

    return run


def _entry(module_name: str, func: str = "main") -> Callable[[list[str]], int]:
    def run(args: list[str]) -> int:
        module = importlib.import_module(module_name)
        return int(getattr(module, func)(args) or 0)

    return run


SANDBOX_WITHOUT_TOKEN = "--sandbox-without-token"


def _run(args: list[str]) -> int:
    """``run``; with ``--sandbox-without-token`` (``make run``) a missing token starts the sandbox."""
    if SANDBOX_WITHOUT_TOKEN in args:
        args = [a for a in args if a != SANDBOX_WITHOUT_TOKEN]
        from bot.config import ConfigError, load_settings

        try:
            token = load_settings().token
        except ConfigError:
            token = "invalid settings: bot.run says why"
        if not token:
            from bot.sandbox.run import main as sandbox

            return sandbox(args, no_token=True)
    return _entry("bot.run")(args)


COMMANDS: dict[str, Callable[[list[str]], int]] = {
    "run": _run,
    "sandbox": _entry("bot.sandbox.run"),
    "play": _per_game("bot.play"),
    "simulate": _per_game("bot.sim"),
    "bench": _entry("bot.bench"),
    "export-game": _entry("bot.storage.export", "main_export"),
    "backup": _entry("bot.storage.sqlite.backup", "main"),
    "replay": _entry("bot.storage.export", "main_replay"),
    "migrate-db": _entry("bot.storage.migrate", "main"),
    "sync": _entry("bot.run", "main_sync"),
}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    command = args.pop(0) if args else "run"
    handler = COMMANDS.get(command)
    if handler is None:
        print(f"unknown command: {command}\n\n{USAGE}", file=sys.stderr)
        return 2
    return handler(args)


if __name__ == "__main__":
    raise SystemExit(main())
