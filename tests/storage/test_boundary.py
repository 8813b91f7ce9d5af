"""The storage boundary (issue 24): no SQL and no database driver outside ``bot/storage/``; the shared
repositories speak only the dialect subset that SQLite and PostgreSQL both accept (see
``bot/storage/backend.py``), so a second backend needs no second copy of any query."""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.storage import (
    GameRepository,
    LobbyRepository,
    RatingRepository,
    ResultRepository,
    SettingsRepository,
    StatsRepository,
    Storage,
)
from tests.unit.importing import imports_in

REPO = Path(__file__).resolve().parents[2]
STORAGE = REPO / "bot" / "storage"
# Where the backends live: the only places that may import a driver or write driver-specific SQL.
BACKENDS = (STORAGE / "sqlite", STORAGE / "postgres")
# Files outside bot/storage/ allowed to break the boundary, each with its reason (a test checks that
# they still exist, so an entry does not outlive its file).
EXEMPT: dict[str, str] = {}
DRIVERS = frozenset({"sqlite3", "aiosqlite", "apsw", "psycopg", "psycopg2", "psycopg_pool", "asyncpg"})

# A string that starts like a SQL statement (after an opening parenthesis, for a subquery fragment).
# Keywords in capitals, as every statement of the project is written: "Select a card from your hand"
# and "commit failed" are prose.
SQL_START = re.compile(
    r"^\s*\(?\s*(?:"
    r"SELECT\b[\s\S]*\bFROM\b|INSERT\s+(?:OR\s+\w+\s+)?INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b"
    r"|REPLACE\s+INTO\b|(?:CREATE|DROP|ALTER)\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|TRIGGER|VIEW)\b"
    r"|WITH\s+\w+\s+AS\b|PRAGMA\b|BEGIN(?:\s+(?:IMMEDIATE|EXCLUSIVE|DEFERRED|TRANSACTION))?\s*;?\s*$"
    r"|COMMIT\b|ROLLBACK\b|SAVEPOINT\b|RELEASE\s+\w+\s*$|VACUUM\b|ANALYZE\b)"
)
# SQLite-only constructs, or text a ``?`` -> ``%s`` placeholder translation would break.
NOT_IN_SUBSET = (
    (re.compile(r"\?\d"), "numbered placeholder ?N"),
    (re.compile(r":[a-z_]\w*", re.IGNORECASE), "named placeholder :name"),
    (re.compile(r"%"), "a literal % (pass LIKE patterns as parameters)"),
    (re.compile(r"\bINSERT\s+OR\b|\bREPLACE\s+INTO\b", re.IGNORECASE), "INSERT OR ... / REPLACE INTO"),
    (re.compile(r"\bPRAGMA\b|\bBEGIN\s+IMMEDIATE\b|\bWITHOUT\s+ROWID\b", re.IGNORECASE), "SQLite-only"),
    (re.compile(r"\b(?:min|max)\([^()]*,", re.IGNORECASE), "scalar min/max (least/greatest in PostgreSQL)"),
    (re.compile(r"\b(?:ifnull|iif|printf|strftime|julianday|group_concat|instr)\(", re.IGNORECASE), "SQLite"),
)


def _python_files(*roots: Path) -> Iterator[Path]:
    for root in roots:
        yield from sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def _text(node: ast.expr) -> str | None:
    """A string literal's text; an f-string's with ``{}`` for each hole (``f"SELECT {cols} FROM t"``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def _strings(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = _text(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if text is not None:
            yield node.lineno, text


def _imported_drivers(tree: ast.AST) -> Iterator[tuple[int, str]]:
    return ((line, name) for line, name in imports_in(tree) if name.split(".")[0] in DRIVERS)


def _reaches_past_storage(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """``<x>.db.run(...)`` / ``<x>.db.write(...)``: a unit of work (a connection) outside storage."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("run", "write")
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "db"
        ):
            yield node.lineno, f".db.{node.attr}"


def boundary_violations(source: str, name: str) -> list[str]:
    """What a module outside ``bot/storage/`` must not have: a driver import, a SQL string, a unit of work."""
    tree = ast.parse(source, name)
    found = [f"{name}:{line}: imports {driver}" for line, driver in _imported_drivers(tree)]
    found += [
        f"{name}:{line}: SQL {text.strip()[:60]!r}" for line, text in _strings(tree) if SQL_START.match(text)
    ]
    found += [f"{name}:{line}: runs SQL through {what}" for line, what in _reaches_past_storage(tree)]
    return found


def dialect_violations(source: str, name: str) -> list[str]:
    """What a shared repository must not have: a driver import, ``lastrowid``, SQL outside the subset."""
    tree = ast.parse(source, name)
    found = [f"{name}:{line}: imports {driver}" for line, driver in _imported_drivers(tree)]
    found += [
        f"{name}:{node.lineno}: uses lastrowid (use INSERT ... RETURNING id)"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "lastrowid"
    ]
    for line, text in _strings(tree):
        if not SQL_START.match(text):
            continue
        for pattern, why in NOT_IN_SUBSET:
            if pattern.search(text):
                found.append(f"{name}:{line}: {why}: {text.strip()[:60]!r}")
    return found


def test_no_driver_and_no_sql_outside_storage() -> None:
    found: list[str] = []
    for path in _python_files(REPO / "bot", REPO / "cogs"):
        if path.is_relative_to(STORAGE) or str(path.relative_to(REPO)) in EXEMPT:
            continue
        found += boundary_violations(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
    assert found == []


def test_exemptions_are_not_stale() -> None:
    assert [name for name in EXEMPT if not (REPO / name).is_file()] == []


def test_shared_repositories_speak_the_dialect_subset() -> None:
    checked = []
    for path in _python_files(STORAGE):
        if any(path.is_relative_to(backend) for backend in BACKENDS):
            continue
        checked.append(path.name)
        assert dialect_violations(path.read_text(encoding="utf-8"), str(path.relative_to(REPO))) == []
    assert {"games.py", "lobbies.py", "ratings.py", "results.py", "stats.py", "export.py"} <= set(checked)


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        ("import aiosqlite", "imports aiosqlite"),
        ("import sqlite3 as db", "imports sqlite3"),
        ("from psycopg.rows import dict_row", "imports psycopg.rows"),
        ("import importlib\nimportlib.import_module('asyncpg')", "imports asyncpg"),
        ("q = 'SELECT id FROM games WHERE channel_id = ?'", "SQL 'SELECT id FROM games"),
        ("q = f'SELECT {cols} FROM games'", "SQL 'SELECT {} FROM games'"),
        ("q = ('INSERT INTO ratings (kind)'\n ' VALUES (?)')", "SQL 'INSERT INTO ratings"),
        ("q = '  UPDATE games SET note = ?'", "SQL 'UPDATE games SET"),
        ("q = 'DELETE FROM lobbies'", "SQL 'DELETE FROM lobbies'"),
        ("q = 'PRAGMA user_version'", "SQL 'PRAGMA user_version'"),
        ("async def f(storage):\n    await storage.db.run(lambda c: c)", "runs SQL through .db.run"),
    ],
)
def test_the_boundary_check_catches(snippet: str, expected: str) -> None:
    (found,) = boundary_violations(snippet, "x.py")
    assert expected in found


@pytest.mark.parametrize(
    "text",
    [
        "Select a card from your hand",  # a sentence, not a statement
        "Update the table: set it aside",
        "commit failed",
        "the games you played",
        "storage.db.stats",
    ],
)
def test_the_boundary_check_lets_prose_through(text: str) -> None:
    assert boundary_violations(f"x = {text!r}", "x.py") == []


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        ("q = 'SELECT a FROM t WHERE k = ?1'", "numbered placeholder"),
        ("q = \"SELECT a FROM t WHERE k LIKE 'engine:%'\"", "literal %"),
        ("q = 'INSERT OR IGNORE INTO t (a) VALUES (?)'", "INSERT OR"),
        ("q = 'SELECT max(0, a - b) FROM t'", "scalar min/max"),
        ("q = 'SELECT a FROM t WHERE k = :key'", "named placeholder"),
        ("q = 'BEGIN IMMEDIATE'", "SQLite-only"),
        ("def f(c):\n    return c.execute('INSERT INTO t (a) VALUES (1)').lastrowid", "lastrowid"),
        ("import sqlite3", "imports sqlite3"),
    ],
)
def test_the_dialect_check_catches(snippet: str, expected: str) -> None:
    (found,) = dialect_violations(snippet, "x.py")
    assert expected in found


def test_the_dialect_check_accepts_the_subset() -> None:
    ok = (
        "q = 'INSERT INTO t (a) VALUES (?) ON CONFLICT (a) DO UPDATE SET a = excluded.a RETURNING id'\n"
        "r = 'SELECT max(seq), count(*) FROM t WHERE k LIKE ? AND s = \\'active\\''\n"
        "log = 'moved %d games'\n"
    )
    assert dialect_violations(ok, "x.py") == []


def test_the_storage_interface_names_every_public_method() -> None:
    """Storage's docstring is the interface a backend must keep whole: every public method of every
    repository is named there, so a method added without documenting the interface fails here."""
    doc = inspect.getdoc(Storage) or ""
    repositories = (
        GameRepository,
        LobbyRepository,
        ResultRepository,
        RatingRepository,
        StatsRepository,
        SettingsRepository,
    )
    missing = [
        f"{repo.__name__}.{name}"
        for repo in repositories
        for name, member in vars(repo).items()
        if not name.startswith("_") and callable(member) and f"``{name}``" not in doc
    ]
    assert missing == []


async def test_storage_has_every_repository(storage: Storage) -> None:
    assert isinstance(storage.games, GameRepository)
    assert isinstance(storage.lobbies, LobbyRepository)
    assert isinstance(storage.results, ResultRepository)
    assert isinstance(storage.ratings, RatingRepository)
    assert isinstance(storage.stats, StatsRepository)
    assert isinstance(storage.settings, SettingsRepository)
    for repository in (storage.games, storage.lobbies, storage.results, storage.ratings, storage.stats):
        assert repository.db is storage.db  # one database, one transaction stream
