"""The fake Discord is a library of its own (issue 39 item 3): ``fakecord`` and the bot meet at one door.

The rules, read from the source (any ``import`` or ``from`` statement, in a function or under
``TYPE_CHECKING`` too, and ``import_module("...")``):

- ``fakecord/`` imports nothing of the repository but itself: not ``bot``, ``cogs``, ``bench``,
  ``devtools`` or ``tests`` (it is a wire-level fake of Discord, and knows no bot);
- ``cogs/`` never imports ``fakecord``, and ``bot/`` only from the sandbox (``bot/sandbox/``: ``make run``
  without a token plays the real bot against the fake) and in one more place: ``bot/command_check.py``
  imports ``fakecord.openapi``, Discord's own description and its checker, for ``python -m bot sync``
  (and ``--dry-run``). That is allowed because the product ships ``fakecord`` anyway (the sandbox needs
  it: ``pyproject.toml`` installs it, the Dockerfile copies it), and the description is one file with
  one checker, which judges the fake's answers and the bot's commands alike; a second copy, or a package
  of its own for 430 lines, would be two judges of one rule. Only ``fakecord.openapi`` though: the bot
  outside the sandbox never runs the fake itself.

A fresh interpreter that imports ``fakecord`` (and its ``openapi``) then holds no module of ``bot``
or ``cogs``: the rule holds at run time too, the tests' imports aside.
"""

from __future__ import annotations

import fnmatch
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.unit.importing import imported

REPO = Path(__file__).resolve().parents[2]
FAKE = "fakecord"
NOT_FOR_THE_FAKE = ("bot", "cogs", "bench", "devtools", "tests")
# Where the bot may import the fake: a folder (all of it) or one module and what it may take.
SANDBOX = Path("bot/sandbox")
DESCRIPTION_USERS = {Path("bot/command_check.py"): ("fakecord.openapi",)}


def _sources(package: str) -> list[Path]:
    return [
        path.relative_to(REPO)
        for path in sorted((REPO / package).rglob("*.py"))
        if "__pycache__" not in path.parts
    ]


def fake_imports_of_the_repository(source: str, name: str) -> list[str]:
    """Where the fake's ``source`` imports a package of the repository other than itself."""
    return [
        f"{name}:{line}: imports {module}"
        for line, module in imported(source, name)
        if module.split(".")[0] in NOT_FOR_THE_FAKE
    ]


def bot_imports_of_the_fake(source: str, relative: Path) -> list[str]:
    """Where a module of the bot or the cogs imports ``fakecord`` outside the places allowed."""
    if relative.is_relative_to(SANDBOX):
        return []
    allowed = DESCRIPTION_USERS.get(relative, ())
    found = []
    for line, module in imported(source, str(relative), names=True):
        if module.split(".")[0] != FAKE:
            continue
        if any(module == a or module.startswith(a + ".") for a in allowed):
            continue
        found.append(f"{relative}:{line}: imports {module}")
    return found


def test_the_fake_imports_nothing_of_the_bot() -> None:
    found: list[str] = []
    for relative in _sources(FAKE):
        found += fake_imports_of_the_repository((REPO / relative).read_text(encoding="utf-8"), str(relative))
    assert found == []


def test_the_bot_imports_the_fake_only_in_the_sandbox_and_the_command_check() -> None:
    found: list[str] = []
    users: set[Path] = set()
    for relative in _sources("bot") + _sources("cogs"):
        source = (REPO / relative).read_text(encoding="utf-8")
        found += bot_imports_of_the_fake(source, relative)
        if any(module.split(".")[0] == FAKE for _, module in imported(source, str(relative))):
            users.add(relative)
    assert found == []
    # The exceptions are what they say (not a stale entry): the sandbox's server and the command check.
    assert Path("bot/sandbox/server.py") in users and set(DESCRIPTION_USERS) <= users


def test_a_fresh_interpreter_with_the_fake_holds_no_module_of_the_bot() -> None:
    code = (
        "import sys, fakecord, fakecord.openapi, fakecord.openapi.__main__\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('bot', 'cogs', 'tests', 'bench')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_fake_is_a_top_level_package_with_its_description_and_readme() -> None:
    # (a checkout from before the move may keep an untracked __pycache__ there: only sources count)
    assert not list((REPO / "bot" / "sandbox" / "discord").rglob("*.py"))
    for name in ("__init__.py", "README.md", "openapi/openapi.json", "openapi/LICENSE", "openapi/SOURCE.md"):
        assert (REPO / FAKE / name).is_file(), name


def test_the_fake_is_installed_with_its_description() -> None:
    """The sandbox plays against the fake, so the package installs it, and its data files too: each file of
    ``fakecord/`` that is not Python matches a ``package-data`` pattern of its package (setuptools globs
    a pattern from the package's folder; a built wheel showed openapi.json, LICENSE and SOURCE.md in it)."""
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "fakecord*" in setuptools["packages"]["find"]["include"]
    data = setuptools["package-data"]
    missing = []
    for path in sorted((REPO / FAKE).rglob("*")):
        if not path.is_file() or path.suffix in (".py", ".pyc"):
            continue
        folder = path.parent
        while not (folder / "__init__.py").is_file():  # the package that holds the file
            folder = folder.parent
        package = ".".join(folder.relative_to(REPO).parts)
        relative = path.relative_to(folder).as_posix()
        patterns = [*data.get("*", []), *data.get(package, [])]
        if not any(fnmatch.fnmatchcase(relative, pattern) for pattern in patterns):
            missing.append(path.relative_to(REPO).as_posix())
    assert missing == []


# ------------------------------------------------------------------------------ the checks catch


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        ("import bot", "imports bot"),
        ("from bot.games import registry", "imports bot.games"),
        ("def f():\n    from cogs.skyjo import Skyjo", "imports cogs.skyjo"),
        ("if TYPE_CHECKING:\n    from bot.client import SkyboBot", "imports bot.client"),
        ("import importlib\nimportlib.import_module('bot.sandbox.server')", "imports bot.sandbox.server"),
        ("from tests.e2e.conftest import bot", "imports tests.e2e.conftest"),
    ],
)
def test_the_fake_check_catches(snippet: str, expected: str) -> None:
    (found,) = fake_imports_of_the_repository(snippet, "fakecord/x.py")
    assert expected in found


@pytest.mark.parametrize(
    "snippet", ["import discord", "from fakecord.clock import FakeClock", "import aiohttp", "import botocore"]
)
def test_the_fake_check_lets_the_fake_through(snippet: str) -> None:
    assert fake_imports_of_the_repository(snippet, "fakecord/x.py") == []


@pytest.mark.parametrize(
    ("path", "snippet", "bad"),
    [
        ("bot/ui/clicks.py", "from fakecord import FakeDiscord", True),
        ("bot/client.py", "def f():\n    import fakecord.state", True),
        ("cogs/stats.py", "from fakecord import openapi", True),
        ("bot/command_check.py", "from fakecord import openapi", False),
        ("bot/command_check.py", "from fakecord.openapi import check_request", False),
        ("bot/command_check.py", "from fakecord import FakeDiscord", True),
        ("bot/command_check.py", "from fakecord.fake import FakeDiscord", True),
        ("bot/sandbox/server.py", "from fakecord import FakeDiscord, RealClock", False),
        ("bot/sandbox/run.py", "import fakecord", False),
        ("bot/ui/views.py", "import fakecordial", False),
    ],
)
def test_the_bot_check(path: str, snippet: str, bad: bool) -> None:
    assert bool(bot_imports_of_the_fake(snippet, Path(path))) is bad
