"""Command line: run the bot, play in a terminal, simulate games, export and replay games.

Each sub-command lives in its own module, imported when it runs, and receives the rest of the command
line.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

USAGE = """usage: python -m bot [COMMAND] [ARGS...]

commands:
  run                      start the Discord bot (the default; needs DISCORD_TOKEN)
  sandbox [--port N]       the real bot on a local stand-in for Discord, played in a browser
  play GAME                play a game in this terminal against computer players
  simulate GAME            computer players against each other, with statistics (GAME: one of
                           the registry's, which `python -m bot play` lists)
  export-game ID           print a stored game (seed, options, players, actions) as JSON
  replay FILE              replay an exported game in the terminal
  migrate-db --to URL      copy the SQLite database into an empty PostgreSQL one, verified
  backup DEST              copy the SQLite database while the bot runs, checked (PostgreSQL: pg_dump)
  sync [--guild ID]        register the slash commands with Discord, checked first
  sync --dry-run           build and check what sync would send (no token, no network; --guild ID too)
"""

Command = Callable[[list[str]], int]


def _per_game(command: str) -> Command:
    """``command GAME [options]``, run by the game itself (``Game.play`` / ``Game.simulate``); the games'
    registry loads engines and computer players only, never discord."""

    def run(args: list[str]) -> int:
        from bot.games.registry import BY_KIND

        if not args or args[0] not in BY_KIND:
            print(f"usage: python -m bot {command} {{{','.join(BY_KIND)}}} [options]")
            return 2
        game = BY_KIND[args[0]]
        return game.play(args[1:]) if command == "play" else game.simulate(args[1:])

    return run


# Each command imports its module when it runs: ``play`` and ``simulate`` never load discord.
def _run_bot(args: list[str]) -> int:
    from bot.run import main

    return main(args)


def _sandbox(args: list[str]) -> int:
    from bot.sandbox.run import main

    return main(args)


def _export_game(args: list[str]) -> int:
    from bot.storage.export import main_export

    return main_export(args)


def _replay(args: list[str]) -> int:
    from bot.service.replay_file import main_replay

    return main_replay(args)


def _backup(args: list[str]) -> int:
    from bot.storage.sqlite.backup import main

    return main(args)


def _migrate_db(args: list[str]) -> int:
    from bot.service.ledger import replay_log
    from bot.storage.migrate import main

    return main(args, replay_log)


def _sync(args: list[str]) -> int:
    from bot.run import main_sync

    return main_sync(args)


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
    return _run_bot(args)


COMMANDS: dict[str, Command] = {
    "run": _run,
    "sandbox": _sandbox,
    "play": _per_game("play"),
    "simulate": _per_game("simulate"),
    "export-game": _export_game,
    "backup": _backup,
    "replay": _replay,
    "migrate-db": _migrate_db,
    "sync": _sync,
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
