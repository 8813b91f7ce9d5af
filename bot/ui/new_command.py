"""``/<game> new`` built from the game's declaration (:class:`bot.games.new_table.NewTable`), and the
lobby it opens.

A game declares its ``new`` as data, below the ui. :func:`new_command` turns that data into the
discord.py command: a callback whose signature holds each declared option with its real annotation
(``app_commands.Range[int, least, most]``, ``bool``, ``str``, ``int | None`` for one without a
default), then its localized name, description and choices (``locale_str`` with the option's
catalogue keys). The command Discord receives is the one the game's hand-written callback made
before the data (the JSON of :func:`bot.command_check.dry_run`, which ``python -m bot sync --dry-run``
runs, byte for byte). What was given is answered by :meth:`bot.ui.answers.Answers.open_lobby`: the
game's :meth:`~bot.games.new_table.NewTable.table_options` of it, the table service's ``open_lobby``
(which checks every value), then the lobby's public message.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

from bot.games.base import Game
from bot.games.new_table import TURN_LIMIT_OPTION, TableOption
from bot.ui import command_options

# What ``/<game> new`` does with what was given (option name -> value, every declared one).
Answer = Callable[[discord.Interaction[Any], Mapping[str, Any]], Awaitable[None]]


def named(option: TableOption) -> app_commands.locale_str:
    """The option's name as Discord shows it: its English, localized by its catalogue key."""
    return _(option.name, key=option.name_key)


def described(option: TableOption) -> app_commands.locale_str:
    return _(option.description, key=option.description_key)


def choices(option: TableOption) -> list[app_commands.Choice[Any]]:
    """The option's choices, each name localized by its key."""
    return [app_commands.Choice(name=_(c.name, key=c.key), value=c.value) for c in option.choices]


# The turn limit as ``/skybo settings`` and ``/tournament`` offer it too: the same names and choices.
TURN_LIMIT = named(TURN_LIMIT_OPTION)
TURN_LIMIT_CHOICES = choices(TURN_LIMIT_OPTION)


_RANGE: Any = app_commands.Range  # ``Range[int, least, most]`` with bounds known only when it runs


def _annotation(option: TableOption) -> Any:
    """What a hand-written callback would annotate the option with (discord.py reads the type from it,
    and an integer's bounds from ``app_commands.Range``); ``| None`` when it has no default."""
    annotation: Any = option.type
    if option.bounds is not None:
        least, most = option.bounds
        annotation = _RANGE[int, least, most]
    return annotation | None if option.default is None else annotation


def _signature(options: tuple[TableOption, ...]) -> inspect.Signature:
    parameters = [
        inspect.Parameter(
            "interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction
        )
    ]
    parameters += [
        inspect.Parameter(
            o.name, inspect.Parameter.KEYWORD_ONLY, default=o.default, annotation=_annotation(o)
        )
        for o in options
    ]
    return inspect.Signature(parameters)


def new_command(
    game: Game, description: app_commands.locale_str, answer: Answer
) -> app_commands.Command[Any, ..., None]:
    """``/<game> new`` from ``game.new``, each option in the declared order; ``answer`` is called with
    what was given. Its values are checked by the table service, with reasons of its own (a turn limit
    from the list, a table too small for the computers...): the command says so in its ``extras``."""
    declared = game.new.declared

    async def new(interaction: discord.Interaction[Any], **given: Any) -> None:
        await answer(interaction, given)

    new.__signature__ = _signature(declared)  # type: ignore[attr-defined]  # discord.py reads it
    callback: Any = app_commands.rename(**{o.name: named(o) for o in declared})(new)
    callback = app_commands.describe(**{o.name: described(o) for o in declared})(callback)
    callback = app_commands.choices(**{o.name: choices(o) for o in declared if o.choices})(callback)
    return app_commands.Command(
        name=_("new", key="cmd.new.name"),
        description=description,
        callback=callback,
        extras={command_options.SERVICE_CHECKS_VALUES: True},
    )
