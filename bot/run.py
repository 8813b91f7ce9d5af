"""Start the Discord bot (``python -m bot``), or register its slash commands (``python -m bot sync``)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys

from bot.activity.sessions import ActivitySettings
from bot.config import ConfigError, Settings, load_settings

log = logging.getLogger(__name__)

HOW_TO_CONFIGURE = """Skybo needs a Discord bot token to connect to Discord.

  1. Create an application at https://discord.com/developers/applications and add a bot to it.
  2. Copy .env.example to .env and set DISCORD_TOKEN=<your bot token>
     (or export DISCORD_TOKEN in the environment).
  3. Run `make run` again.

Meanwhile you can play in this terminal: python -m bot play GAME (`python -m bot play` lists them)
"""


def _settings(overrides: dict[str, str] | None = None) -> Settings | int:
    """The settings (environment, ``.env``), with ``overrides`` (command-line flags) on top."""
    try:
        if overrides:
            from dotenv import load_dotenv

            load_dotenv(override=False)
            settings = load_settings({**os.environ, **overrides}, dotenv=False)
        else:
            settings = load_settings()
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    if not settings.token:
        print("DISCORD_TOKEN is not set.\n\n" + HOW_TO_CONFIGURE, file=sys.stderr)
        return 2
    return settings


def _point_at_fake(settings: Settings) -> None:
    """``FAKE_DISCORD_URL`` set (tests only): discord.py talks to that fake Discord, said in the log."""
    if settings.fake_discord_url:
        from bot.discord_patches import point_at_fake

        api, gateway = point_at_fake(settings.fake_discord_url)
        log.warning(
            "FAKE_DISCORD_URL is set: talking to a fake Discord at %s (API %s, gateway %s), not to Discord",
            settings.fake_discord_url,
            api,
            gateway,
        )


async def _run(settings: Settings, activity: ActivitySettings | None = None) -> int:
    import discord

    from bot.client import BotTuning, create_bot
    from bot.lifecycle import run_until_stopped
    from bot.storage import ShardsLost, ShardsTaken, Storage, StorageError

    assert settings.token is not None
    _point_at_fake(settings)
    # The storage opens before anything talks to Discord: a database that cannot be used (read-only,
    # disk full, another bot on it...) stops the start with one line, without logging in.
    try:
        storage = await Storage.open(
            settings.database_path, synchronous=settings.synchronous, url=settings.database_url
        )
    except StorageError as exc:
        print(f"storage error: {exc}", file=sys.stderr)
        return 2
    lease = None
    try:
        shards = settings.shards
        if shards.count is not None and shards.shard_ids is not None:
            # Before logging in: a shard another live process runs is refused, never driven twice.
            try:
                lease = await storage.hold_shards(
                    shards.count, shards.shard_ids, retake_s=settings.lease_retake_s
                )
            except ShardsTaken as exc:
                print(f"shards: {exc}", file=sys.stderr)
                return 2
        bot = create_bot(
            storage=storage,
            tuning=BotTuning(
                rest_per_second=settings.rest_per_second, picture_processes=settings.picture_processes
            ),
            limits=settings.limits,
            metrics_port=settings.metrics_port,
            metrics_host=settings.metrics_host,
            shards=shards,
            activity=activity,
        )
        bot.shard_lease = lease
        try:
            await bot.start_metrics()
        except OSError as exc:
            print(
                f"METRICS_PORT={settings.metrics_port}: cannot listen on {settings.metrics_host}: "
                f"{os.strerror(exc.errno) if exc.errno else exc}",
                file=sys.stderr,
            )
            return 2
        async with bot:
            # SIGTERM / SIGINT: no new interaction, those in flight finished, then a clean exit
            # (bot.lifecycle), within STOP_GRACE seconds.
            await run_until_stopped(bot, settings.token)
        if bot.lease_lost:  # stopped itself: another process may run those shards now
            print(f"shards: lost the hold on {shards}; stopped (start it again)", file=sys.stderr)
            return 1
    except discord.LoginFailure:
        print("Discord refused the token (DISCORD_TOKEN): check it in the developer portal.", file=sys.stderr)
        return 2
    except discord.PrivilegedIntentsRequired:
        print("Discord refused the intents the bot asked for.", file=sys.stderr)
        return 2
    except ShardsLost:  # while starting: another process may run those shards now
        print(f"shards: lost the hold on {shards}; stopped (start it again)", file=sys.stderr)
        return 1
    except StorageError as exc:
        print(f"storage error: {exc}", file=sys.stderr)
        return 2
    finally:
        if lease is not None:
            await lease.release()
        await storage.close()
    return 0


def parser() -> argparse.ArgumentParser:
    out = argparse.ArgumentParser(
        prog="python -m bot run", description="Run the bot on Discord (settings: README, Configuration)."
    )
    out.add_argument("--shard-count", metavar="N", help="shards in all (overrides SHARD_COUNT)")
    out.add_argument(
        "--shard-ids", metavar="IDS", help="the shards this process runs, 0-3 or 0,2 (overrides SHARD_IDS)"
    )
    return out


def main(args: list[str]) -> int:
    options = parser().parse_args(args)
    overrides = {
        name: value
        for name, value in (("SHARD_COUNT", options.shard_count), ("SHARD_IDS", options.shard_ids))
        if value is not None
    }
    settings = _settings(overrides)
    if isinstance(settings, int):
        return settings
    try:  # after _settings: its .env is in the environment
        activity = ActivitySettings.from_env(os.environ)
    except ValueError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    from bot.logs import setup_logging

    secrets = [settings.token or "", *((activity.client_secret,) if activity is not None else ())]
    setup_logging(settings.log_level, secrets=secrets)
    try:
        return asyncio.run(_run(settings, activity))
    except KeyboardInterrupt:
        return 0


USER_INSTALL_OFF = (
    "User Install is off for this application (Developer Portal > Installation): {commands} synced for "
    "servers only. Tick User Install and sync again to let players add Skybo to their account "
    '(docs/discord.md, "Install Skybo to your account").'
)


async def _sync(settings: Settings, guild_id: int | None) -> int:
    """Registers the commands, checked first (bot.command_check): a payload Discord would refuse is
    refused here, with one line, and never sent."""
    import discord

    from bot.client import create_bot
    from bot.command_check import NotSent, dry_run, push, refusal, stored_entry_point, watch
    from bot.ui import card_emojis

    assert settings.token is not None
    # Before logging in: the same payload, built without the network, must pass.
    problems = [problem for report in await dry_run(guild_id) for problem in report.problems]
    if problems:
        print(refusal(problems), file=sys.stderr)
        return 1
    _point_at_fake(settings)
    bot = create_bot(commands_only=True)
    try:
        async with bot:
            await bot.login(settings.token)
            # The Activity's Entry Point command, kept by Discord once Activities are enabled: re-sent.
            entry = await stored_entry_point(bot)
            watch(bot, send=True, entry=entry)  # and the request itself, checked as it leaves
            synced = await push(bot.tree, guild_id)
            try:
                emojis = await card_emojis.sync(bot)  # the card faces, when missing or changed
            except ValueError as refused:  # a face Discord would refuse: nothing of them sent
                print(f"sync of the card emojis refused, nothing sent: {refused}", file=sys.stderr)
                return 1
    except discord.LoginFailure:
        print("Discord refused the token (DISCORD_TOKEN).", file=sys.stderr)
        return 2
    except NotSent as stopped:
        print(refusal(stopped.report.problems if stopped.report else []), file=sys.stderr)
        return 1
    where = f"guild {guild_id}" if guild_id is not None else "every server (global; may take up to an hour)"
    print(f"synced {len(synced)} command(s) to {where}: {', '.join('/' + c.name for c in synced)}")
    if bot.narrowed:
        print(USER_INSTALL_OFF.format(commands=", ".join("/" + name for name in bot.narrowed)))
    print(emojis.line())
    return 0


def main_sync(args: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot sync",
        description="Register the slash commands and upload the card faces as application emojis.",
    )
    parser.add_argument("--guild", type=int, default=None, help="sync to this server only (instant)")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="build the payload sync would send and check it against Discord's rules; no token, no network",
    )
    options = parser.parse_args(args)
    if options.dry_run:
        from bot.command_check import main_dry_run

        return main_dry_run(options.guild)
    settings = _settings()
    if isinstance(settings, int):
        return settings
    from bot.logs import setup_logging

    setup_logging(settings.log_level, secrets=[settings.token or ""])
    return asyncio.run(_sync(settings, options.guild))
