"""Start the Discord bot, or say clearly how to configure it."""

from __future__ import annotations

import sys

from bot.config import ConfigError, load_settings

HOW_TO_CONFIGURE = """Skybo needs a Discord bot token to connect to Discord.

  1. Create an application at https://discord.com/developers/applications and add a bot to it.
  2. Copy .env.example to .env and set DISCORD_TOKEN=<your bot token>
     (or export DISCORD_TOKEN in the environment).
  3. Run `make run` again.

Meanwhile you can play in this terminal: python -m bot play skyjo
"""


def main(args: list[str]) -> int:
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    if not settings.token:
        print("DISCORD_TOKEN is not set.\n\n" + HOW_TO_CONFIGURE, file=sys.stderr)
        return 2
    print(
        "The Discord client is not built yet (see the open issue 'Skyjo at a Discord table'). "
        "Meanwhile: python -m bot play skyjo",
        file=sys.stderr,
    )
    return 3


def main_sync(args: list[str]) -> int:
    return main(args)
