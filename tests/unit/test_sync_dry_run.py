"""``python -m bot sync --dry-run`` (issue 36, item 4): the slash commands' bulk overwrite, built by
discord.py from the bot's own tree, cogs and translator, checked against Discord's OpenAPI description
and its command rules without a token or the network; and ``sync`` refusing a payload that fails.

The payloads are compared with the tree the bot builds; a French option description planted at 101
characters must fail and be named by command, option and field.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from discord import app_commands

from bot import command_check
from bot.__main__ import main as cli
from bot.client import SkyboBot, create_bot
from bot.config import load_settings
from bot.i18n import catalogue, translate
from bot.run import _sync

REPO = Path(__file__).resolve().parents[2]
TURN_LIMIT_KEY = "cmd.opt.turn_limit.description"
# 101 characters, a real sentence: what a translator could write, one character too long for Discord.
TOO_LONG = (
    "Temps accordé à chaque tour avant que l'ordinateur ne joue à ta place (par défaut : celui du serveur)"
)
TOO_LONG_FR = "description_localizations.fr: Must be between 1 and 100 in length (101)"
PLANTED = f"skyjo > new > turn_limit: {TOO_LONG_FR}"


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(TOO_LONG) == 101
    monkeypatch.setitem(catalogue("fr"), TURN_LIMIT_KEY, TOO_LONG)


async def _tree() -> tuple[list[tuple[str, str, int]], int]:
    """Each top-level command of the bot's tree (its name, its French name, the options under it at
    every depth), and the commands' options in all, counted from discord.py's objects."""

    def under(command: Any) -> int:
        if isinstance(command, app_commands.Group):
            return sum(1 + under(child) for child in command.commands)
        return len(getattr(command, "parameters", ()))  # a user command (a ContextMenu) has none

    bot = create_bot(commands_only=True)
    async with bot:
        await bot.setup_hook()
        found = []
        for command in bot.tree.get_commands():
            key = command._locale_name.extras.get("key") if command._locale_name else None
            french = translate(key, "fr") if key else command.name
            found.append((command.name, french, under(command)))
    return found, sum(n for _, _, n in found)


async def test_the_dry_run_passes_and_names_every_command_in_both_languages(
    capsys: pytest.CaptureFixture[str],
) -> None:
    commands, options = await _tree()
    reports = await command_check.dry_run()
    assert [r.path for r in reports] == ["/applications/0/commands"]
    assert reports[0].problems == []
    # The slash commands, and the Activity's Entry Point command (type 4, which sync re-sends)
    assert reports[0].payload[-1] == command_check.DEFAULT_ENTRY_POINT
    assert command_check.counts(reports[0].payload)[:2] == (len(commands) + 1, options)

    assert await _main_dry_run() == 0
    out = capsys.readouterr().out
    assert f"{len(commands) + 1} commands, {options} options" in out
    assert "  Launch: the Activity's Entry Point command (type 4, handler 2)" in out
    for name, french, under in commands:
        assert f"  /{name} (fr: /{french}): {under} option" in out
    assert "locales: default (English, for every locale without its own), fr\n" in out
    assert "  fr: " in out and "  default: " in out  # the longest description of each
    assert "discord-api-spec" in out and out.rstrip().endswith("OK: nothing Discord would refuse")


async def _main_dry_run(guild: int | None = None) -> int:
    """``main_dry_run`` runs its own event loop: in a thread here, where a test's loop already runs."""
    return await asyncio.to_thread(command_check.main_dry_run, guild)


async def test_a_guild_dry_run_also_builds_the_guild_payload(capsys: pytest.CaptureFixture[str]) -> None:
    reports = await command_check.dry_run(guild_id=42)
    assert [r.path for r in reports] == ["/applications/0/commands", "/applications/0/guilds/42/commands"]
    # The bot has no guild-only command; the Entry Point command is global only.
    assert reports[1].payload == reports[0].payload[:-1]
    assert await _main_dry_run(42) == 0
    out = capsys.readouterr().out
    assert f"PUT /applications/0/guilds/42/commands: {len(reports[1].payload)} commands" in out


async def test_a_101_character_french_description_fails_and_is_named(
    planted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = await command_check.dry_run()
    said = [str(p) for p in reports[0].problems]
    assert PLANTED in said
    assert f"skipbo > new > turn_limit: {TOO_LONG_FR}" in said

    assert await _main_dry_run() == 1
    captured = capsys.readouterr()
    assert f"  {PLANTED}\n" in captured.out
    assert "dry run FAILED" in captured.err


def test_what_the_description_does_not_say() -> None:
    """Names (Discord's regex, lowercase), 8,000 characters per command, required options first."""
    assert command_check.name_problem("temps_par_tour") is None
    assert command_check.name_problem("lignes_retirées") is None
    assert command_check.name_problem("l'édition") is None
    assert command_check.name_problem("हिन्दी") is None  # Devanagari vowel signs are marks, not letters
    assert command_check.name_problem("turn limit") is not None
    assert command_check.name_problem("Skyjo") == "Must be lowercase (not S)"
    choice = {"name": "n" * 100, "value": "v" * 100}
    placed = {"integration_types": [0], "contexts": [0]}  # where it works (Skybo's rule, tested below)
    big = {
        **placed,
        "name": "big",
        "description": "d",
        "options": [
            {"type": 3, "name": f"o{i}", "description": "d" * 100, "choices": [choice] * 25} for i in range(2)
        ],
    }
    payload = [
        {
            **placed,
            "name": "Bad",
            "description": "x",
            "options": [
                {"type": 3, "name": "later", "description": "d"},
                {"type": 3, "name": "first", "description": "d", "required": True},
            ],
        },
        big,
    ]
    said = [str(p) for p in command_check.check("/applications/0/commands", payload)]
    assert said == [
        "Bad: name: Must be lowercase (not B)",
        "Bad > first: required: Required options must be listed before optional options",
        "big: Must be 8000 or fewer characters in all, the longest localization of each field counted"
        " (10208)",
    ]
    assert command_check.command_characters(big) == 3 + 1 + 2 * (2 + 100 + 25 * 200)


async def test_sync_refuses_a_bad_payload_before_logging_in(
    planted: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def no_network(self: SkyboBot, token: str) -> None:
        raise AssertionError("sync logged in with a payload Discord would refuse")

    monkeypatch.setattr(SkyboBot, "login", no_network)
    settings = load_settings({"DISCORD_TOKEN": "dummy.token.never-used"}, dotenv=False)
    assert await _sync(settings, None) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    refused = f"sync refused, nothing sent: Discord would refuse the commands ({PLANTED} and "
    assert lines[0].startswith(refused)
    assert "python -m bot sync --dry-run" in lines[0]


async def test_the_request_itself_is_checked_as_it_leaves(monkeypatch: pytest.MonkeyPatch) -> None:
    """``watch`` sees the very request discord.py sends: a good one goes through, a bad one never."""
    sent: list[tuple[str, Any]] = []

    async def wire(route: Any, **kwargs: Any) -> Any:
        sent.append((route.url, kwargs.get("json")))
        return []

    bot = create_bot(commands_only=True)
    async with bot:
        await bot.setup_hook()
        bot._connection.application_id = 7
        monkeypatch.setattr(bot.http, "request", wire)
        reports = command_check.watch(bot, send=True)
        assert await command_check.push(bot.tree, None) == []
        # the path, not the host: a test before this one may have pointed discord.py at a fake Discord
        assert [url.split("/api/v10", 1)[1] for url, _ in sent] == ["/applications/7/commands"]
        assert sent[0][1] == reports[0].payload and reports[0].problems == []

        monkeypatch.setitem(catalogue("fr"), TURN_LIMIT_KEY, TOO_LONG)
        with pytest.raises(command_check.NotSent) as stopped:
            await command_check.push(bot.tree, 9)
        assert stopped.value.report is not None
        assert PLANTED in [str(p) for p in stopped.value.report.problems]
        assert len(sent) == 1  # the guild request never reached the wire


def test_the_command_line_needs_no_token() -> None:
    env = {**os.environ, "DISCORD_TOKEN": ""}  # the dry run reads no settings: a .env changes nothing
    done = subprocess.run(
        [sys.executable, "-m", "bot", "sync", "--dry-run"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "OK: nothing Discord would refuse" in done.stdout


def test_help_lists_the_dry_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["help"]) == 0
    assert "sync --dry-run" in capsys.readouterr().out


# Where each command works (issue 49): docs/discord.md, "Where each command works".
EVERYWHERE = ([0, 1], [0, 1, 2])  # both installations; a server, the bot's DM, private channels
PLACES = {
    "skybo": ([0], [0, 1]),  # a server's own: the server install, a server and the bot's DM
    # The right-click challenges (cogs/challenges.py): the server install, servers' channels, for now.
    "Play Skyjo with …": ([0], [0]),
    "Play Skip-Bo with …": ([0], [0]),
    # The Activity's Entry Point: Discord makes it and the overwrite sends it back as made (issue 50).
    "Launch": (None, None),
}


async def test_every_command_says_where_it_works_and_a_bad_place_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The real payload declares each command's installations and contexts, as the table says, and
    passes; an unknown context, an empty list, a user install without contexts and a private channel
    without the user install are each refused and named."""
    payload = (await command_check.dry_run())[0].payload
    declared = {c["name"]: (c.get("integration_types"), c.get("contexts")) for c in payload}
    assert declared == {name: PLACES.get(name, EVERYWHERE) for name in declared}
    assert command_check.check("/applications/0/commands", payload) == []
    assert await _main_dry_run() == 0
    assert "  /skybo (fr: /skybo): " in (out := capsys.readouterr().out)
    assert "; installs: server; contexts: server, bot DM\n" in out
    assert "; installs: server, user; contexts: server, bot DM, private channel\n" in out

    def refused(name: str, **changed: Any) -> list[str]:
        planted = [{**c, **changed} if c["name"] == name else c for c in payload]
        return [str(p) for p in command_check.check("/applications/0/commands", planted)]

    assert refused("skyjo", contexts=[0, 3]) == [
        "skyjo: contexts.1: Value matches none of the allowed shapes: 3"
    ]
    assert refused("help", integration_types=[0, 2])[0].startswith(
        "help: integration_types.1: Value matches none"
    )
    assert refused("help", contexts=[]) == ["help: contexts: Must be 1 or more in length"]
    assert refused("help", contexts=None) == [
        "help: contexts: A command users may install must list at least one context"
    ]
    assert refused("stats", integration_types=None) == [
        "stats: integration_types: Must declare its installations (Skybo's rule: every command says where it "
        "works)"
    ]
    # The Entry Point as Discord stores it for a server-only app (every context: Discord's default) is
    # Discord's, not judged by Skybo's rule; a Skybo command placed so is.
    stored = {"name": "Launch", "type": 4, "handler": 2, "integration_types": [0], "contexts": [0, 1, 2]}
    ours = [c for c in payload if c.get("type") != 4]
    assert command_check.check("/applications/0/commands", [*ours, stored]) == []
    assert refused("skybo", contexts=[0, 1, 2]) == [
        "skybo: contexts: Only a user install reaches a private channel (context 2): declare integration "
        "type 1 too"
    ]


async def test_the_dry_run_fails_on_a_command_that_forgets_its_contexts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the whole dry run: ``/help`` declared for user installs with no context is named."""
    setup_hook = SkyboBot.setup_hook

    async def forgetful(self: SkyboBot) -> None:
        await setup_hook(self)
        command = self.tree.get_command("help")
        assert command is not None
        command.allowed_contexts = None

    monkeypatch.setattr(SkyboBot, "setup_hook", forgetful)
    assert await _main_dry_run() == 1
    out = capsys.readouterr().out
    assert "  help: contexts: A command users may install must list at least one context\n" in out
    assert (
        "/help (fr: /aide): 0 options, 65 of 8000 characters; installs: server, user; contexts: undeclared"
        in out
    )
