"""What every game's ``/<game> new`` shares, for the game's own ``commands.py`` (``bot/games/<game>/``).

A game's slash commands are one group, ``/<game>``, built by :mod:`cogs.games` from the registry: the
shared ``replay``, ``rules``, ``end`` and ``kick``, and the game's own ``new`` with its options, which
it declares in its folder with :func:`table_options` (the computer players, their level, the turn
limit and the thread, the same for every game) and answers with :func:`open_table`. It stands beside
the games' shared types (``base.py``, ``buttons.py``), below the ui: it imports discord alone, nothing of the
games, the registry or ``bot.ui`` (a game's folder imports it; the ui and the service are reached
through ``interaction.client``, the bot, at run time).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

# Table options every game's /new has (Discord: lowercase, no spaces), localized like every name.
COMPUTERS = _("computers", key="cmd.opt.computers")
LEVEL = _("level", key="cmd.opt.level")
TURN_LIMIT = _("turn_limit", key="cmd.opt.turn_limit")
# A thread per game (docs/discord.md, "Threads"): not given, the server's /skybo settings threads.
THREAD = _("thread", key="cmd.opt.thread")
TURN_LIMIT_HELP = _(
    "Time per turn before the computer plays it (default: the server's, else 2 min)",
    key="cmd.opt.turn_limit.description",
)
LEVEL_CHOICES = [
    app_commands.Choice(name=_("easy", key="cmd.level.easy"), value="easy"),
    app_commands.Choice(name=_("normal", key="cmd.level.normal"), value="normal"),
    app_commands.Choice(name=_("hard", key="cmd.level.hard"), value="hard"),
]
# Exactly the service's TURN_LIMITS (a test holds them equal): Discord offers nothing the table refuses.
TURN_LIMIT_CHOICES = [
    app_commands.Choice(name=_("no limit", key="cmd.turn_limit.off"), value=0),
    app_commands.Choice(name=_("30 s", key="cmd.turn_limit.30"), value=30),
    app_commands.Choice(name=_("45 s", key="cmd.turn_limit.45"), value=45),
    app_commands.Choice(name=_("1 min", key="cmd.turn_limit.60"), value=60),
    app_commands.Choice(name=_("90 s", key="cmd.turn_limit.90"), value=90),
    app_commands.Choice(name=_("2 min (default)", key="cmd.turn_limit.120"), value=120),
    app_commands.Choice(name=_("3 min", key="cmd.turn_limit.180"), value=180),
    app_commands.Choice(name=_("5 min", key="cmd.turn_limit.300"), value=300),
    app_commands.Choice(name=_("10 min", key="cmd.turn_limit.600"), value=600),
    app_commands.Choice(name=_("15 min", key="cmd.turn_limit.900"), value=900),
    # A long game from an hour (bot.service.letters): 16 choices of Discord's 25.
    app_commands.Choice(
        name=_("1 hour (long game: a direct message at your turn)", key="cmd.turn_limit.3600"), value=3600
    ),
    app_commands.Choice(name=_("2 hours (long game)", key="cmd.turn_limit.7200"), value=7200),
    app_commands.Choice(name=_("4 hours (long game)", key="cmd.turn_limit.14400"), value=14400),
    app_commands.Choice(name=_("8 hours (long game)", key="cmd.turn_limit.28800"), value=28800),
    app_commands.Choice(name=_("12 hours (long game)", key="cmd.turn_limit.43200"), value=43200),
    app_commands.Choice(name=_("24 hours (long game)", key="cmd.turn_limit.86400"), value=86400),
]
F = TypeVar("F", bound=Callable[..., Any])


def table_options(new: F) -> F:
    """The names, descriptions and choices of the options every ``/<game> new`` ends with:
    ``computers``, ``level``, ``turn_limit`` and ``thread`` (the game's callback declares them last,
    with its own most computers: ``app_commands.Range[int, 0, max_players - 1]``, and ``thread: bool |
    None = None``)."""
    new = app_commands.rename(computers=COMPUTERS, level=LEVEL, turn_limit=TURN_LIMIT, thread=THREAD)(new)
    new = app_commands.describe(
        computers=_("How many computer players sit at the table", key="cmd.new.computers"),
        level=_("How well the computer players play", key="cmd.new.level"),
        turn_limit=TURN_LIMIT_HELP,
        thread=_(
            "Play the game in a thread of its own (default: the server's setting)", key="cmd.new.thread"
        ),
    )(new)
    new = app_commands.choices(level=LEVEL_CHOICES)(new)
    return app_commands.choices(turn_limit=TURN_LIMIT_CHOICES)(new)


def public_locale(bot: Any, interaction: discord.Interaction[Any]) -> object:
    """The language of a public answer: the server's fixed one (``/skybo settings``), else its own."""
    return bot.service.public_locale(interaction.guild_id, interaction.guild_locale)


async def open_table(
    interaction: discord.Interaction[Any],
    kind: str,
    options: Mapping[str, Any],
    *,
    computers: int,
    level: str,
    turn_limit: int | None,
    thread: bool | None = None,
) -> None:
    """``/<game> new``: open the lobby (the service checks everything) and post its public message;
    no ``turn_limit`` or ``thread``: the server's default (``/skybo settings``)."""
    bot: Any = interaction.client  # the SkyboBot (bot.ui.host.Host), not imported: see the docstring
    user = interaction.user
    lobby = await bot.service.open_lobby(
        kind=kind,
        guild_id=interaction.guild_id,
        channel_id=interaction.channel_id or 0,
        host_id=user.id,
        host_name=getattr(user, "display_name", None) or user.name,
        options=dict(options),
        computers=computers,
        level=level,
        locale=public_locale(bot, interaction),  # the computers' names, shown in public
        turn_limit=turn_limit,
        thread=thread,
    )
    await bot.answers.post_lobby(interaction, lobby)
