"""The slash commands as Discord receives them, checked before they reach it (``python -m bot sync``).

Discord refuses a whole bulk overwrite (``PUT /applications/{id}/commands``) for one bad field, such as a
French option description of 101 characters. So the payload is checked first, and it is the payload
discord.py really sends: :func:`watch` wraps the bot's HTTP client, and ``CommandTree.sync`` (the same
tree, cogs and :class:`bot.client.CatalogueTranslator` as ``sync``) builds the request as it always
does. The wrapper checks that request and stops it there:

- ``python -m bot sync --dry-run`` (:func:`dry_run`): no token and no network. The bot loads its cogs
  and translator as ``login`` would, takes the placeholder application id 0, and every request stops in
  the wrapper. With ``--guild ID`` it also builds the guild payload (the global commands copied to the
  guild, as ``sync --guild`` does).
- ``python -m bot sync``: the dry run first, so a bad payload is refused before the bot even logs in.
  Then the wrapper checks the request ``sync`` is about to send and refuses it if that request fails
  (:class:`NotSent`).

The checks are Discord's OpenAPI description (:func:`fakecord.openapi.check_request`: types,
lengths, counts), plus what Discord's developer docs (Application Commands) say it checks and the
description does not:

- a chat-input command's or option's name, and each of its localized names, matches
  ``^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$`` and uses the lowercase form of each letter that
  has one;
- a slash command holds at most 8,000 characters: its name and description, those of every option
  (subcommands and groups included), and the name and value of every choice. For a localized field,
  only its longest text counts (the default or a localization). The limit was 4,000 until
  discord-api-docs#6668 (February 2024). Here a choice's name and its value both count, and a number
  counts as its digits: that is the larger reading of "name, description, and value properties";
- required options come before optional ones.

And Skybo's own rule (issue 49), which Discord does not make: every command says where it works. Its
``integration_types`` (0 server install, 1 user install) and ``contexts`` (0 a server's channel, 1 the
bot's DM, 2 a private channel: group DMs and DMs between users) are declared, never left to Discord's
defaults; the description checks that their values are its enums, each list unique and not empty. A
command users may install lists at least one context, and a command that declares private channels
declares the user install too (only a user install reaches one). ``bot/ui/installs.py`` holds the
declarations, docs/discord.md the table of them.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.http import Route

from fakecord import openapi

if TYPE_CHECKING:
    from bot.client import SkyboBot

PLACEHOLDER_APPLICATION_ID = 0  # the dry run never logs in, so it has no application id of its own
COMMAND_CHARACTERS = 8000  # Discord's limit per slash command (see the module docstring)
CHAT_INPUT = 1  # command type
SERVER_INSTALL, USER_INSTALL = 0, 1  # integration_types
PRIVATE_CHANNEL = 2  # contexts (0 a server's channel, 1 the bot's DM)
INSTALL_NAMES = {SERVER_INSTALL: "server", USER_INSTALL: "user"}
CONTEXT_NAMES = {0: "server", 1: "bot DM", PRIVATE_CHANNEL: "private channel"}
PRIMARY_ENTRY_POINT = 4  # the Activity's Entry Point command (discord.py 2.7 has no such type)
DISCORD_LAUNCH_ACTIVITY = 2  # an Entry Point's handler: Discord launches the Activity, the bot gets nothing
# What Discord creates when the developer enables Activities (the dry run shows it, as sync re-sends it).
DEFAULT_ENTRY_POINT: dict[str, Any] = {
    "name": "Launch",
    "type": PRIMARY_ENTRY_POINT,
    "handler": DISCORD_LAUNCH_ACTIVITY,
}
# The fields of a stored command that a bulk overwrite may send back.
_ENTRY_POINT_FIELDS = (
    "name",
    "name_localizations",
    "description",
    "description_localizations",
    "type",
    "handler",
    "default_member_permissions",
    "contexts",
    "integration_types",
    "nsfw",
)
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2  # option types
DEFAULT = "default"  # the locale of the unlocalized texts (English), which every other locale falls back to

_COMMANDS_PATH = re.compile(r"/applications/[^/]+(?:/guilds/[^/]+)?/commands")
_NAME_PUNCTUATION = frozenset("-_'")
# \p{sc=Deva} and \p{sc=Thai} (Unicode's Scripts.txt); Python's re has no script classes.
_SCRIPT_RANGES = (
    (0x0900, 0x0950),
    (0x0955, 0x0963),
    (0x0966, 0x097F),
    (0xA8E0, 0xA8FF),
    (0x11B00, 0x11B09),  # Devanagari
    (0x0E01, 0x0E3A),
    (0x0E40, 0x0E5B),  # Thai
)


# ---------------------------------------------------------------------------------- what Discord checks


def _name_character(char: str) -> bool:
    if char in _NAME_PUNCTUATION or unicodedata.category(char)[0] in "LN":
        return True
    return any(low <= ord(char) <= high for low, high in _SCRIPT_RANGES)


def name_problem(name: str) -> str | None:
    """Why Discord refuses ``name`` as a chat-input command or option name (its length aside, which the
    description checks), or None."""
    wrong = sorted({char for char in name if not _name_character(char)})
    if wrong:
        return f"Must hold only letters, digits, - _ and ' (not {' '.join(repr(c) for c in wrong)})"
    upper = sorted({char for char in name if char.lower() != char})
    if upper:
        return f"Must be lowercase (not {' '.join(upper)})"
    return None


def _texts(node: dict[str, Any], name: str) -> list[tuple[str, str]]:
    """(locale, text) of a localized field: the default first, then each localization."""
    found = [(DEFAULT, node[name])] if isinstance(node.get(name), str) else []
    localized = node.get(f"{name}_localizations")
    if isinstance(localized, dict):
        found += [(locale, text) for locale, text in localized.items() if isinstance(text, str)]
    return found


def _longest(node: dict[str, Any], name: str) -> int:
    return max((len(text) for _, text in _texts(node, name)), default=0)


def _options(node: dict[str, Any]) -> list[dict[str, Any]]:
    options = node.get("options")
    return [o for o in options if isinstance(o, dict)] if isinstance(options, list) else []


def command_characters(node: dict[str, Any]) -> int:
    """What counts towards :data:`COMMAND_CHARACTERS` in a command or option, its options included."""
    total = _longest(node, "name") + _longest(node, "description")
    choices = node.get("choices")
    for choice in choices if isinstance(choices, list) else []:
        if isinstance(choice, dict):
            total += _longest(choice, "name") + len(str(choice.get("value", "")))
    return total + sum(command_characters(option) for option in _options(node))


def _option_rules(options: list[Any], path: tuple[str | int, ...]) -> Iterator[openapi.Violation]:
    optional_seen = False
    for index, option in enumerate(options):
        if not isinstance(option, dict):
            continue
        where = (*path, index)
        yield from _name_rules(option, where)
        if option.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP):
            yield from _option_rules(option.get("options") or [], (*where, "options"))
        elif option.get("required"):
            if optional_seen:
                yield openapi.Violation(
                    (*where, "required"),
                    "APPLICATION_COMMAND_OPTIONS_ORDER",
                    "Required options must be listed before optional options",
                )
        else:
            optional_seen = True


def _name_rules(node: dict[str, Any], path: tuple[str | int, ...]) -> Iterator[openapi.Violation]:
    for locale, text in _texts(node, "name"):
        problem = name_problem(text)
        if problem is not None:
            where = (*path, "name") if locale == DEFAULT else (*path, "name_localizations", locale)
            yield openapi.Violation(where, "APPLICATION_COMMAND_INVALID_NAME", problem)


def place_rules(command: dict[str, Any], index: int) -> Iterator[openapi.Violation]:
    """Skybo's rule (module docstring): the command declares its installations and its contexts."""
    installs, contexts = command.get("integration_types"), command.get("contexts")
    if installs is None:
        yield openapi.Violation(
            (index, "integration_types"),
            "SKYBO_PLACES_UNDECLARED",
            "Must declare its installations (Skybo's rule: every command says where it works)",
        )
    users = isinstance(installs, list) and USER_INSTALL in installs
    if contexts is None:
        yield openapi.Violation(
            (index, "contexts"),
            "SKYBO_PLACES_UNDECLARED",
            "A command users may install must list at least one context"
            if users
            else "Must declare its contexts (Skybo's rule: every command says where it works)",
        )
    elif isinstance(contexts, list) and PRIVATE_CHANNEL in contexts and installs is not None and not users:
        yield openapi.Violation(
            (index, "contexts"),
            "SKYBO_PRIVATE_CHANNEL_WITHOUT_USER_INSTALL",
            "Only a user install reaches a private channel (context 2): declare integration type 1 too",
        )


def command_rules(payload: list[Any]) -> list[openapi.Violation]:
    """What Discord refuses in a bulk overwrite that its OpenAPI description does not say, and Skybo's
    own rule on where each command works."""
    found: list[openapi.Violation] = []
    for index, command in enumerate(payload):
        # Skybo's rule judges Skybo's commands; the Entry Point is sent back as Discord made it (Discord
        # gives it every context, whatever the app's installations).
        if isinstance(command, dict) and command.get("type") != PRIMARY_ENTRY_POINT:
            found += place_rules(command, index)
        if not isinstance(command, dict) or command.get("type", CHAT_INPUT) != CHAT_INPUT:
            continue
        found += _name_rules(command, (index,))
        found += _option_rules(command.get("options") or [], (index, "options"))
        size = command_characters(command)
        if size > COMMAND_CHARACTERS:
            found.append(
                openapi.Violation(
                    (index,),
                    "APPLICATION_COMMAND_TOO_LARGE",
                    f"Must be {COMMAND_CHARACTERS} or fewer characters in all, the longest localization of "
                    f"each field counted ({size})",
                )
            )
    return found


# ---------------------------------------------------------------------------------- in words


@dataclass(frozen=True)
class Problem:
    """A violation said for a person: which command or option (by name), which field, what is wrong."""

    where: str  # "<game> > new > turn_limit"
    field: str  # "description_localizations.fr"
    message: str  # "Must be 100 or fewer in length (101)"
    violation: openapi.Violation

    def __str__(self) -> str:
        return ": ".join(part for part in (self.where, self.field, self.message) if part)


def describe(payload: Any, violation: openapi.Violation) -> Problem:
    """The violation with the indexes of its path turned into command, option and choice names."""
    names: list[str] = []
    node: Any = payload
    path = list(violation.path)
    first = path[0] if path else None
    if isinstance(first, int) and isinstance(payload, list) and first < len(payload):
        node = payload[first]
        names.append(str(node.get("name", "?")) if isinstance(node, dict) else "?")
        del path[0]
    while len(path) >= 2 and path[0] in ("options", "choices"):
        kind, index = str(path[0]), path[1]
        items = node.get(kind) if isinstance(node, dict) else None
        if not (isinstance(index, int) and isinstance(items, list) and index < len(items)):
            break
        if not isinstance(items[index], dict):
            break
        node = items[index]
        name = str(node.get("name", "?"))
        names.append(f'choice "{name}"' if kind == "choices" else name)
        del path[:2]
    value = node
    for part in path:
        value = value.get(part) if isinstance(value, dict) and isinstance(part, str) else None
    message = violation.message.rstrip(".")
    if violation.code.endswith("_LENGTH") and isinstance(value, str):
        message += f" ({len(value)})"
    where = " > ".join(names) if names else ("(every command)" if isinstance(payload, list) else "")
    return Problem(where, ".".join(str(p) for p in path), message, violation)


def check(path: str, payload: Any) -> list[Problem]:
    """Everything Discord would refuse in ``PUT path`` with ``payload`` (path without ``/api/v10``)."""
    violations = openapi.check_request("PUT", path, payload)
    if isinstance(payload, list):
        violations += command_rules(payload)
    return [describe(payload, violation) for violation in violations]


# ---------------------------------------------------------------------------------- the request itself


@dataclass
class Report:
    """One bulk overwrite of the commands: where it goes, what it holds, what Discord would refuse."""

    path: str  # "/applications/0/commands", without /api/v10
    payload: Any
    problems: list[Problem] = field(default_factory=list)


class NotSent(Exception):
    """The request stopped before it left: the dry run, or a payload that fails the check."""

    def __init__(self, report: Report | None, what: str = "") -> None:
        super().__init__(what or (report.path if report else "a request"))
        self.report = report


def entry_point(commands: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The app's Entry Point command among its global ``commands`` as Discord stores them (``GET
    /applications/{id}/commands``), as a bulk overwrite sends it back; None: the app has none (its
    Activity is not enabled)."""
    for command in commands:
        if command.get("type") == PRIMARY_ENTRY_POINT:
            return {k: command[k] for k in _ENTRY_POINT_FIELDS if command.get(k) is not None}
    return None


async def stored_entry_point(bot: SkyboBot) -> dict[str, Any] | None:
    """The Entry Point command Discord keeps for the app (read with the bot's token), if any."""
    assert bot.application_id is not None
    return entry_point(await bot.http.get_global_commands(bot.application_id))  # type: ignore[arg-type]


def watch(bot: SkyboBot, *, send: bool, entry: dict[str, Any] | None = None) -> list[Report]:
    """Checks every bulk overwrite of the commands the bot's HTTP client is about to send, and raises
    :class:`NotSent` instead of sending one that fails (or any request at all when ``send`` is False).
    ``entry``: the Entry Point command, added to the global overwrite (discord.py does not know type 4,
    and Discord refuses an overwrite that leaves the app's own out: 50240). Returns the list the reports
    are added to."""
    reports: list[Report] = []
    request = bot.http.request

    async def checked(route: Route, **kwargs: Any) -> Any:
        path = route.url.removeprefix(Route.BASE)
        if route.method == "PUT" and _COMMANDS_PATH.fullmatch(path):
            if entry is not None and "/guilds/" not in path and isinstance(kwargs.get("json"), list):
                kwargs["json"] = [*kwargs["json"], entry]
            payload = kwargs.get("json")
            report = Report(path, payload, check(path, payload))
            reports.append(report)
            if report.problems or not send:
                raise NotSent(report)
        elif not send:
            raise NotSent(None, f"{route.method} {path}")
        return await request(route, **kwargs)

    bot.http.request = checked  # type: ignore[method-assign]
    return reports


async def push(tree: app_commands.CommandTree[Any], guild_id: int | None) -> list[app_commands.AppCommand]:
    """What ``python -m bot sync`` does: every command to every server, or (``guild_id``) the global
    commands copied to one server, where they show at once."""
    if guild_id is None:
        return await tree.sync()
    guild = discord.Object(id=guild_id)
    tree.copy_global_to(guild=guild)
    return await tree.sync(guild=guild)


async def _stopped(sync: Awaitable[Any]) -> None:
    try:
        await sync
    except NotSent as stop:
        if stop.report is None:  # never: the dry run only builds the commands' bulk overwrite
            raise RuntimeError(f"the dry run would have sent {stop}") from None
    else:
        raise RuntimeError("the dry run reached Discord")


async def dry_run(guild_id: int | None = None) -> list[Report]:
    """The bulk overwrite ``python -m bot sync`` would send (and, with ``guild_id``, the one
    ``sync --guild`` would send too), built by discord.py and checked, without a token or the network."""
    from bot.client import create_bot

    bot = create_bot(commands_only=True)
    async with bot:
        await bot.setup_hook()  # what login runs once Discord accepts the token: translator and cogs
        bot._connection.application_id = PLACEHOLDER_APPLICATION_ID
        reports = watch(bot, send=False, entry=DEFAULT_ENTRY_POINT)
        await _stopped(push(bot.tree, None))
        if guild_id is not None:
            await _stopped(push(bot.tree, guild_id))
    return reports


# ---------------------------------------------------------------------------------- the summary


def _walk(node: dict[str, Any], names: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """Each option under ``node`` with the names leading to it, depth first."""
    for option in _options(node):
        where = (*names, str(option.get("name", "?")))
        yield where, option
        yield from _walk(option, where)


def counts(payload: list[dict[str, Any]]) -> tuple[int, int, int]:
    """Commands, options (subcommands, groups and their options, at every depth), choices."""
    options = [option for command in payload for _, option in _walk(command, ())]
    choices = sum(len(option.get("choices") or []) for option in options)
    return len(payload), len(options), choices


def locales(payload: list[dict[str, Any]]) -> list[str]:
    """:data:`DEFAULT`, then every locale the payload localizes something into."""
    found: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key.endswith("_localizations") and isinstance(value, dict):
                    found.update(value)
                else:
                    visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(payload)
    return [DEFAULT, *sorted(found)]


def longest_descriptions(payload: list[dict[str, Any]]) -> dict[str, tuple[int, str]]:
    """Per locale, the longest description: (its length, the command or option it describes)."""
    best: dict[str, tuple[int, str]] = {}
    for command in payload:
        nodes = [((str(command.get("name", "?")),), command), *_walk(command, (str(command.get("name")),))]
        for names, node in nodes:
            for locale, text in _texts(node, "description"):
                if len(text) > best.get(locale, (-1, ""))[0]:
                    best[locale] = (len(text), " > ".join(names))
    return best


def _localized_name(node: dict[str, Any], locale: str) -> str:
    return dict(_texts(node, "name")).get(locale) or str(node.get("name", "?"))


def places(command: dict[str, Any]) -> str:
    """Where a command works, in words: "installs: server, user; contexts: server, bot DM, private
    channel" (an undeclared one: "undeclared")."""

    def named(values: Any, names: dict[int, str]) -> str:
        if not isinstance(values, list):
            return "undeclared"
        return ", ".join(names.get(value, repr(value)) for value in values) or "none"

    installs = named(command.get("integration_types"), INSTALL_NAMES)
    return f"installs: {installs}; contexts: {named(command.get('contexts'), CONTEXT_NAMES)}"


def summary(report: Report) -> list[str]:
    """What a bulk overwrite holds, in a few lines: counts, locales, each command in each locale, the
    longest description per locale."""
    payload = report.payload
    commands, options, choices = counts(payload)
    found = locales(payload)
    others = found[1:]
    lines = [
        f"PUT {report.path}: {commands} commands, {options} options (subcommands, groups and their "
        f"options, nested ones counted), {choices} choices",
        f"locales: {DEFAULT} (English, for every locale without its own), {', '.join(others) or 'none'}",
    ]
    for command in payload:
        if command.get("type") == PRIMARY_ENTRY_POINT:
            lines.append(
                f"  {command.get('name')}: the Activity's Entry Point command (type 4, handler "
                f"{command.get('handler')}), re-sent as Discord keeps it once Activities are enabled"
            )
            continue
        localized = ", ".join(f"{locale}: /{_localized_name(command, locale)}" for locale in others)
        held = sum(1 for _ in _walk(command, ()))
        lines.append(
            f"  /{command.get('name')} ({localized}): {held} option{'' if held == 1 else 's'}, "
            f"{command_characters(command)} of {COMMAND_CHARACTERS} characters; {places(command)}"
        )
    lines.append("longest description:")
    for locale, (length, where) in longest_descriptions(payload).items():
        lines.append(f"  {locale}: {length} characters, {where}")
    return lines


def refusal(problems: list[Problem]) -> str:
    """The one line ``python -m bot sync`` prints when it refuses to send the commands."""
    more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
    first = f" ({problems[0]}{more})" if problems else ""
    return (
        f"sync refused, nothing sent: Discord would refuse the commands{first}; "
        "`python -m bot sync --dry-run` lists every problem"
    )


def main_dry_run(guild_id: int | None) -> int:
    """``python -m bot sync --dry-run [--guild ID]``: 0 if Discord would take every payload, else 1."""
    import asyncio

    reports = asyncio.run(dry_run(guild_id))
    print("dry run: the commands `python -m bot sync` would send, built by discord.py, not sent")
    print(f"checked against {openapi.version()}, Discord's command rules and Skybo's (where each works)")
    failed = False
    for number, report in enumerate(reports):
        if number and report.payload == reports[0].payload:
            print(f"PUT {report.path}: the same {len(report.payload)} commands as the global ones")
            continue
        for line in summary(report):
            print(line)
        if report.problems:
            failed = True
            count = len(report.problems)
            print(f"{count} problem{'s' if count > 1 else ''}: Discord would refuse this whole payload")
            for problem in report.problems:
                print(f"  {problem}")
    drawn, seconds, emoji_problems = card_emojis_check()
    print(
        f"card emojis: {drawn} faces drawn in {seconds:.2f} s, each upload checked against the description"
        " (which of them Discord already has needs the token: `python -m bot sync` uploads only those)"
    )
    for trouble in emoji_problems:
        failed = True
        print(f"  {trouble}")
    if failed:
        print(
            "dry run FAILED: fix the catalogue texts, the commands or the card faces above", file=sys.stderr
        )
        return 1
    print("OK: nothing Discord would refuse")
    return 0


def card_emojis_check() -> tuple[int, float, list[str]]:
    """The card faces ``python -m bot sync`` uploads (bot/ui/card_emojis.py), drawn: how many, the
    seconds drawing took, and what Discord would refuse (its rules on names and sizes, and each
    ``POST /applications/{id}/emojis`` body as discord.py builds it, judged by the description)."""
    from bot.ui import card_emojis

    faces, seconds = card_emojis.drawn()
    problems = card_emojis.problems(faces)
    for face in faces:
        body = {"name": face.name, "image": discord.utils._bytes_to_base64_data(face.png)}
        problems += [
            f"{face.name}: {v}" for v in openapi.check_request("POST", "/applications/1/emojis", body)
        ]
    return len(faces), seconds, problems
