"""The product apart from its tools (issue 39): benchmarks and the tests' PostgreSQL live outside ``bot/``.

The rule, read from the source:

- no module of ``bot/`` or ``cogs/`` imports ``bench``, ``devtools`` or ``tests`` (any ``import`` or
  ``from`` statement, in a function or under ``TYPE_CHECKING`` too, and ``import_module("...")``);
- no file or folder under ``bot/`` or ``cogs/`` has a name containing ``bench`` or ``pgserver``, or is
  named ``testing``, but one: ``bench.py`` directly in a game's folder (``bot/games/<game>/bench.py``,
  ``<game>`` a package), the game's own engine bench, which ``bench/`` calls;
- the image: the Dockerfile copies the product, which is ``bot/``, ``cogs/`` and ``fakecord/`` (the fake
  Discord, a package of its own that the sandbox of ``make run`` without a token needs: see
  test_fakecord_apart.py), and nothing of ``bench/``, ``devtools/`` or ``tests/`` (nor the whole
  context); ``.dockerignore`` leaves those out.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.importing import imported
from tests.unit.test_containers import DOCKERFILE, DOCKERIGNORE, Dockerfile, ignored

REPO = Path(__file__).resolve().parents[2]
PRODUCT = ("bot", "cogs")  # the bot; the image also ships IMAGE_ALSO, which it imports
IMAGE_ALSO = ("fakecord",)  # the fake Discord of the sandbox, a library of its own
TOOLS = ("bench", "devtools", "tests")  # top-level packages of the repository the product must not need
TOOL_NAMES = ("bench", "pgserver")  # a file or folder of the product must not have these in its name
TOOL_FOLDERS = ("testing",)


def tool_imports(source: str, name: str) -> list[str]:
    """Where ``source`` imports one of ``TOOLS``."""
    return [f"{name}:{line}: imports {m}" for line, m in imported(source, name) if m.split(".")[0] in TOOLS]


def is_game_bench(relative: Path) -> bool:
    """``bot/games/<game>/bench.py`` with ``<game>`` a package: a game's own engine bench."""
    parts = relative.parts
    return (
        len(parts) == 4
        and parts[:2] == ("bot", "games")
        and parts[3] == "bench.py"
        and (REPO / "bot" / "games" / parts[2] / "__init__.py").is_file()
    )


def misnamed(relative: Path) -> bool:
    """Whether a path of the product, or a folder on it, is named for a benchmark or a test server (and
    is not a game's bench)."""
    if is_game_bench(relative):
        return False
    for part in relative.parts:
        name = part.lower()
        if any(word in name for word in TOOL_NAMES) or Path(name).stem in TOOL_FOLDERS:
            return True
    return False


def _product_paths() -> Iterator[Path]:
    for package in PRODUCT:
        for path in sorted((REPO / package).rglob("*")):
            if "__pycache__" not in path.parts:
                yield path.relative_to(REPO)


def test_the_product_imports_no_tool() -> None:
    found: list[str] = []
    for relative in _product_paths():
        if relative.suffix == ".py":
            found += tool_imports((REPO / relative).read_text(encoding="utf-8"), str(relative))
    assert found == []


def test_no_benchmark_or_test_server_in_the_product() -> None:
    assert [str(p) for p in _product_paths() if misnamed(p)] == []


def test_each_game_keeps_its_engine_bench_and_nothing_else_is_allowed() -> None:
    """The one exception is what it says: today, one bench.py per game folder."""
    allowed = sorted(str(p) for p in _product_paths() if is_game_bench(p))
    assert allowed == ["bot/games/skipbo/bench.py", "bot/games/skyjo/bench.py"]


def test_the_tools_are_at_the_top_and_the_driver_bench_is_gone() -> None:
    for module in ("bench/__init__.py", "bench/__main__.py", "devtools/pgserver.py"):
        assert (REPO / module).is_file(), module
    assert not (REPO / "bot" / "storage" / "postgres" / "driver_bench.py").exists()
    assert "asyncpg" not in (REPO / "pyproject.toml").read_text(encoding="utf-8")


def test_the_image_copies_no_tool() -> None:
    dockerfile = Dockerfile.parse(DOCKERFILE.read_text(encoding="utf-8"))
    sources: list[str] = []
    for instruction in dockerfile.all("COPY"):
        words = instruction.args.split()
        if any(w.startswith("--from") for w in words):
            continue
        sources += [w.rstrip("/") for w in words if not w.startswith("--")][:-1]
    assert [package for package in (*PRODUCT, *IMAGE_ALSO) if package not in sources] == []
    assert [s for s in sources if s in (".", "*") or s.split("/")[0] in TOOLS] == []
    dockerignore = DOCKERIGNORE.read_text(encoding="utf-8")
    assert [tool for tool in TOOLS if not ignored(tool, dockerignore)] == []


# ------------------------------------------------------------------------------ the checks catch


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        ("import bench", "imports bench"),
        ("from bench.table import run", "imports bench.table"),
        ("def f():\n    from devtools.pgserver import PostgresServer", "imports devtools.pgserver"),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import tests.e2e", "imports tests.e2e"),
        ("import importlib\nimportlib.import_module('devtools.pgserver')", "imports devtools.pgserver"),
    ],
)
def test_the_import_check_catches(snippet: str, expected: str) -> None:
    (found,) = tool_imports(snippet, "x.py")
    assert expected in found


@pytest.mark.parametrize(
    "snippet", ["from bot.games.skyjo import bench", "import benchmarks_of_someone", "from . import bench"]
)
def test_the_import_check_lets_the_product_through(snippet: str) -> None:
    assert tool_imports(snippet, "x.py") == []


@pytest.mark.parametrize(
    ("path", "bad"),
    [
        ("bot/bench/__init__.py", True),
        ("bot/bench", True),
        ("bot/storage/sqlite/bench.py", True),
        ("bot/storage/postgres/driver_bench.py", True),
        ("bot/testing", True),
        ("bot/testing/pgserver.py", True),
        ("cogs/benchmarks.py", True),
        ("bot/games/skyjo/bench.py", False),
        ("bot/games/skyjo/bench_extra.py", True),
        ("bot/games/skyjo/parts/bench.py", True),
        ("bot/games/nosuchgame/bench.py", True),
        ("bot/games/skyjo/engine.py", False),
        ("bot/sim/common.py", False),
    ],
)
def test_the_name_check(path: str, bad: bool) -> None:
    assert misnamed(Path(path)) is bad
