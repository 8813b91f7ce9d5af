"""Every slash command's options checked by the bot against what it declared, whatever Discord sent.

Discord checks a user's options against the synced command (names, types, choices, ranges) before the
bot sees them; a modified client or a replayed payload is not checked, and discord.py (2.7) trusts the
payload too:

- an unknown command or subcommand raises ``CommandNotFound``, a missing required option or a group
  without a subcommand ``CommandSignatureMismatch``: both reach the error funnel as unexpected errors
  (an ERROR log and an "internal error" apology);
- an unknown option name is ignored; the ``type`` an option says it has is ignored;
- string, integer and boolean values are passed to the command as they are (``IdentityTransformer``):
  a string or a float for an integer, an integer for a boolean, a value outside ``app_commands.Range``
  (``RangeTransformer`` does not check its bounds) or outside ``@app_commands.choices``;
- a user option whose value is not a snowflake raises ``ValueError`` while discord.py builds the
  namespace, outside any handler: no answer at all (the user reads "This interaction failed"); a
  snowflake missing from ``resolved`` becomes a bare ``discord.Object`` (no ``.bot``, no name).

:func:`check_interaction` runs first (``SkyboTree.interaction_check``, before discord.py reads the
options) and refuses, with a private localized reason, anything that does not match the command's own
declaration: the command path, each option's name (once), declared type, JSON value type, choices and
range, required options, and user options that Discord resolved. A command whose option *values* get a
better reason from the table service (``/<game> new``: :meth:`bot.service.TableService.check_lobby`,
with its combinations) says so with :data:`SERVICE_CHECKS_VALUES` in its ``extras``; its option
shapes and types are still checked here. Refusals are logged at INFO, like a forged click.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands
from discord.utils import escape_markdown, escape_mentions

from bot.i18n import language_of
from bot.i18n import translate as t
from bot.service import Refused

log = logging.getLogger(__name__)

SERVICE_CHECKS_VALUES = "values_checked_by_service"  # extras key of a command (see the module docstring)
SUBCOMMAND, GROUP = 1, 2
OptionType = discord.AppCommandOptionType
_KINDS = {
    OptionType.integer: "options.kind.integer",
    OptionType.number: "options.kind.number",
    OptionType.string: "options.kind.string",
    OptionType.boolean: "options.kind.boolean",
    OptionType.user: "options.kind.user",
}
_SNOWFLAKE_TYPES = {OptionType.user, OptionType.channel, OptionType.role, OptionType.mentionable}


class OptionRefused(app_commands.AppCommandError):
    """Raised from the tree's interaction check; the error funnel answers ``original``'s reason."""

    def __init__(self, refused: Refused) -> None:
        super().__init__(refused.key)
        self.original = refused


def _shown(name: object) -> str:
    """A name from the payload, safe to quote in a message (a crafted one may hold anything)."""
    return escape_mentions(escape_markdown(str(name)[:32]))


def _localized(text: object, locale: object) -> str:
    """A declared name (a ``locale_str`` with a catalogue key) as the reader's client shows it."""
    key = text.extras.get("key") if isinstance(text, app_commands.locale_str) else None
    if key and language_of(locale) != "en":
        translated = t(key, locale)
        if translated != key:
            return translated
    return str(text)


def command_of(tree: app_commands.CommandTree[Any], data: Mapping[str, Any]) -> Any:
    """The command ``data`` names, looked up as discord.py does (the guild's, then the global one)."""
    name, kind = data.get("name"), data.get("type", 1)
    if not isinstance(name, str) or kind not in (1, 2, 3):
        return None
    kind = discord.AppCommandType(kind)  # 1: a slash command, 2 and 3: a user or message context menu
    guild_id = data.get("guild_id")
    command = None
    if isinstance(guild_id, str) and guild_id.isdigit():
        command = tree.get_command(name, guild=discord.Object(int(guild_id)), type=kind)
    return command or tree.get_command(name, type=kind)


def _leaf(tree: app_commands.CommandTree[Any], data: Mapping[str, Any]) -> tuple[Any, list[Any]]:
    """The subcommand ``data`` runs and its options; Refused if the path is not a declared one."""
    command = command_of(tree, data)
    options: Any = data.get("options", [])
    while isinstance(command, app_commands.Group):
        if not isinstance(options, list) or len(options) != 1 or not isinstance(options[0], Mapping):
            raise Refused("options.command.unknown")
        sub = options[0]
        if sub.get("type") not in (SUBCOMMAND, GROUP) or not isinstance(sub.get("name"), str):
            raise Refused("options.command.unknown")
        command = command.get_command(sub["name"])
        options = sub.get("options", [])
        wanted = GROUP if isinstance(command, app_commands.Group) else SUBCOMMAND
        if command is not None and sub["type"] != wanted:
            raise Refused("options.command.unknown")
    if not isinstance(command, app_commands.Command):
        raise Refused("options.command.unknown")
    if not isinstance(options, list) or not all(isinstance(o, Mapping) for o in options):
        raise Refused("options.command.unknown")
    return command, options


def _type_ok(kind: OptionType, value: Any, resolved: Mapping[str, Any]) -> bool:
    if kind is OptionType.boolean:
        return isinstance(value, bool)
    if kind is OptionType.integer:
        return type(value) is int
    if kind is OptionType.number:
        return type(value) in (int, float) and math.isfinite(value)
    if kind is OptionType.string:
        return isinstance(value, str)
    if kind in _SNOWFLAKE_TYPES:
        if not (isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20):
            return False
        # Discord sends what a snowflake option names in ``resolved``: a user option, its user.
        section = {OptionType.user: "users", OptionType.channel: "channels", OptionType.role: "roles"}
        if kind in section:
            return isinstance(resolved.get(section[kind]), Mapping) and value in resolved[section[kind]]
        return True
    return True  # an attachment: the bot declares none


def _check_value(param: app_commands.Parameter, value: Any, locale: object) -> None:
    name = _localized(param.locale_name or param.display_name, locale)
    if param.choices:
        if value not in [choice.value for choice in param.choices]:
            # A choice keeps its localizable name only privately (discord.py 2.7 has no public one).
            names = [getattr(choice, "_locale_name", None) or choice.name for choice in param.choices]
            shown = ", ".join(_localized(name, locale) for name in names)
            raise Refused("options.option.choice", option=name, choices=shown)
        return
    low, high = param.min_value, param.max_value
    if param.type in (OptionType.integer, OptionType.number):
        if (low is not None and value < low) or (high is not None and value > high):
            raise Refused("table.error.option_range", option=name, min=low, max=high)
    elif param.type is OptionType.string and (
        (low is not None and len(value) < low) or (high is not None and len(value) > high)
    ):
        raise Refused("options.option.length", option=name, min=low or 0, max=high or 6000)


def check_options(tree: app_commands.CommandTree[Any], interaction: discord.Interaction[Any]) -> Any:
    """The command an application command interaction runs, or Refused: see the module docstring."""
    data: Any = interaction.data
    if not isinstance(data, Mapping):
        raise Refused("options.command.unknown")
    if data.get("type", 1) != 1:  # a context menu has no options: Discord resolves its target
        command = command_of(tree, data)
        if command is None:
            raise Refused("options.command.unknown")
        return command
    command, options = _leaf(tree, data)
    locale = interaction.locale
    resolved: Any = data.get("resolved")
    if not isinstance(resolved, Mapping):
        resolved = {}
    params = {p.display_name: p for p in command.parameters}
    seen: set[str] = set()
    for option in options:
        name = option.get("name")
        param = params.get(name) if isinstance(name, str) else None
        if param is None:
            raise Refused("options.option.unknown", option=_shown(name))
        shown = _localized(param.locale_name or param.display_name, locale)
        if name in seen:
            raise Refused("options.option.twice", option=shown)
        seen.add(name)
        value = option.get("value")
        if option.get("type") != param.type.value or not _type_ok(param.type, value, resolved):
            kind = t(_KINDS.get(param.type, "options.kind.other"), locale)
            raise Refused("options.option.type", option=shown, kind=kind)
        if not command.extras.get(SERVICE_CHECKS_VALUES):
            _check_value(param, value, locale)
    for param in params.values():
        if param.required and param.display_name not in seen:
            raise Refused(
                "options.option.missing", option=_localized(param.locale_name or param.display_name, locale)
            )
    return command


def _has_autocomplete(tree: app_commands.CommandTree[Any], interaction: discord.Interaction[Any]) -> bool:
    data: Any = interaction.data
    try:
        command, options = _leaf(tree, data) if isinstance(data, Mapping) else (None, [])
    except Refused:
        return False
    focused = next((o.get("name") for o in options if o.get("focused")), None)
    param = next((p for p in command.parameters if p.display_name == focused), None) if command else None
    return param is not None and param.autocomplete


async def check_interaction(
    tree: app_commands.CommandTree[Any], interaction: discord.Interaction[Any]
) -> bool:
    """``CommandTree.interaction_check``: True to let discord.py run the command.

    A refused command raises :class:`OptionRefused` (the funnel answers it privately). An autocomplete
    request for an option without autocomplete (today: every option) gets no suggestion here, where
    discord.py would log an ERROR for it."""
    if interaction.type is discord.InteractionType.autocomplete:
        if _has_autocomplete(tree, interaction):
            return True
        await interaction.response.autocomplete([])
        return False
    try:
        check_options(tree, interaction)
    except Refused as refused:
        data: Any = interaction.data
        name = data.get("name") if isinstance(data, Mapping) else None
        log.info(
            "command options refused",
            extra={"user_id": interaction.user.id, "command": str(name)[:32], "reason": refused.key},
        )
        raise OptionRefused(refused) from None
    return True
