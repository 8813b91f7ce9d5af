"""PostgreSQL fixtures for every test folder: one real local server per session, a fresh database per test.

``pg_server`` (session)
    A :class:`~devtools.pgserver.PostgresServer` started for the session and removed at its end. When
    it cannot start, the tests that use it are skipped with the reason and how to install PostgreSQL,
    unless ``SKYBO_REQUIRE_POSTGRES=1`` (set by ``.ci/run``) turns the skip into a failure.
``pg_template`` (session)
    The name of the database every test database is copied from. Empty here; override it (same name, in
    a conftest closer to the tests) to migrate it once per session, and close every connection to it
    before returning: PostgreSQL refuses to copy a database that has open connections.
``pg_database`` / ``pg_dsn``
    A fresh database copied from ``pg_template`` (owned by the app role ``skybo``, dropped after the
    test), and its URL through the unix socket.
``pg_password`` (session)
    The password of the role ``PASSWORD_ROLE`` (a member of the app role), the only one the server asks
    a password of: for the tests of right and wrong credentials.
``pg_start``
    ``pg_start(**kw)`` starts another server for the test (same skip or failure policy), stopped at the
    end of the test: for tests about the server itself.

And one guard for every run, ``tree_left_as_found`` (session, autouse): a test run leaves the checkout
as it found it. It notes ``git status`` (untracked files, and the ignored ones that are not caches, such
as ``data/skybo.sqlite3``) with each listed file's size and modification time at the start, and fails
the run at its end if that changed: a test writes into ``tmp_path``, never into a tracked file (golden
pictures and docs pictures are written only with ``UPDATE_GOLDEN=1`` / ``UPDATE_DOCS=1``, which turn the
guard off). Without git or outside a git checkout it does nothing; ``SKYBO_TREE_GUARD=0`` turns it off
(to edit files while a long run goes on).
"""

from __future__ import annotations

import itertools
import os
import secrets
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from devtools.pgserver import PASSWORD_ROLE, PostgresServer, PostgresUnavailable

_started: list[PostgresServer] = []  # the session's server, for the start time in the summary
_names = itertools.count(1)


def postgres_unavailable(exc: PostgresUnavailable) -> None:
    """Fail under CI, skip elsewhere: never a silent skip where PostgreSQL is promised."""
    if os.environ.get("SKYBO_REQUIRE_POSTGRES") == "1":
        pytest.fail(
            f"PostgreSQL is required (SKYBO_REQUIRE_POSTGRES=1) and did not start: {exc}", pytrace=False
        )
    pytest.skip(f"no local PostgreSQL server: {exc}")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    try:
        server = PostgresServer.start()
    except PostgresUnavailable as exc:
        postgres_unavailable(exc)
        raise  # not reached: skip and fail raise
    _started.append(server)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_template(pg_server: PostgresServer) -> str:
    pg_server.create_database("skybo_template")
    return "skybo_template"


@pytest.fixture(scope="session")
def pg_password(pg_server: PostgresServer) -> str:
    password = "pw-" + secrets.token_urlsafe(12)
    with pg_server.admin() as conn:
        conn.execute(f"CREATE ROLE {PASSWORD_ROLE} LOGIN PASSWORD '{password}' IN ROLE skybo")
    return password


@dataclass(frozen=True)
class PgDatabase:
    name: str
    dsn: str  # through the unix socket
    tcp_dsn: str  # over loopback TCP, as a remote server would be reached


@pytest.fixture
def pg_database(pg_server: PostgresServer, pg_template: str) -> Iterator[PgDatabase]:
    name = f"test_{next(_names)}"
    pg_server.create_database(name, template=pg_template)
    try:
        yield PgDatabase(name, pg_server.dsn(name), pg_server.dsn(name, tcp=True))
    finally:
        pg_server.drop_database(name)


@pytest.fixture
def pg_dsn(pg_database: PgDatabase) -> str:
    return pg_database.dsn


@pytest.fixture
def pg_start() -> Iterator[Callable[..., PostgresServer]]:
    servers: list[PostgresServer] = []

    def start(**kw: Any) -> PostgresServer:
        try:
            server = PostgresServer.start(**kw)
        except PostgresUnavailable as exc:
            postgres_unavailable(exc)
            raise
        servers.append(server)
        return server

    try:
        yield start
    finally:
        for server in servers:
            server.stop()


REPO = Path(__file__).resolve().parents[1]
# Ignored paths that a run may create or change: caches and the virtualenv, never the project's files.
CACHES = {"__pycache__", ".hypothesis", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".venv", "venv"}


def tree_state() -> list[tuple[str, int, int]] | None:
    """Every path ``git status`` lists (changed, untracked, ignored but not a cache) with its size and
    modification time; None without git, outside a git checkout, or with ``SKYBO_TREE_GUARD=0``."""
    if os.environ.get("SKYBO_TREE_GUARD") == "0" or "1" in (
        os.environ.get("UPDATE_GOLDEN"),
        os.environ.get("UPDATE_DOCS"),
    ):
        return None
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], cwd=REPO, capture_output=True, text=True, timeout=60
        )
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != REPO:
            return None
        # --no-optional-locks: a look that never takes the index lock from a git command running beside it
        status = subprocess.run(
            ["git", "--no-optional-locks", "status", "--porcelain=v1", "-z", "--ignored"],
            cwd=REPO,
            capture_output=True,
            timeout=60,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    state = []
    entries = iter(status.stdout.decode("utf-8", "surrogateescape").split("\0"))
    for entry in entries:
        if not entry:
            continue
        code, path = entry[:2], entry[3:]
        if code[0] in "RC":
            next(entries, None)  # a rename's second field: the path it came from
        if code == "!!" and (CACHES.intersection(Path(path).parts) or path.endswith(".egg-info/")):
            continue
        if path.endswith("/"):  # a folder git lists whole: its listing is the check (its time moves
            state.append((f"{code} {path}", 0, 0))  # when a __pycache__ appears in it)
            continue
        try:
            stat = (REPO / path).stat()
            state.append((f"{code} {path}", stat.st_size, stat.st_mtime_ns))
        except OSError:
            state.append((f"{code} {path}", -1, -1))  # listed as deleted
    return state


@pytest.fixture(scope="session", autouse=True)
def tree_left_as_found() -> Iterator[None]:
    before = tree_state()
    yield
    if before is None:
        return
    after = tree_state()
    if after is not None and after != before:
        was, now = set(before), set(after)
        changed = sorted({entry[0] for entry in was ^ now})
        pytest.fail(
            "the test run changed the checkout (a test must write into tmp_path; SKYBO_TREE_GUARD=0 turns "
            "this check off):\n  " + "\n  ".join(changed),
            pytrace=False,
        )


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from fakecord.openapi import COST, version

    if COST.checks:
        terminalreporter.write_line(
            f"Discord's description ({version()}) checked {COST.checks} requests and answers of the fake "
            f"Discord in {COST.seconds:.2f} s (compiling the validators included)"
        )
    for server in _started:
        steps = ", ".join(f"{k} {v:.2f} s" for k, v in server.timings.items() if k != "total")
        terminalreporter.write_line(
            f"PostgreSQL test server ({server.bindir}): started in {server.timings['total']:.2f} s ({steps})"
        )


# The longest test files first: pytest-xdist hands the tests out in collection order, so a long one
# collected last keeps one worker busy while the other has nothing left to run (`make test`'s wall time
# on two workers). Longest first is the classic remedy; the list is what `--durations` showed.
SLOW_FIRST = (
    "tests/e2e/test_kills.py",
    "tests/bench/test_fleet_bench.py",
    "tests/e2e/test_tournaments.py",
    "tests/e2e/test_fleet.py",
    "tests/browser/test_activity_bot.py",
    "tests/storage/test_shard_leases.py",
    "tests/e2e/test_db_faults.py",
    "tests/e2e/test_fakecord_service.py",
    "tests/games/skipbo/test_ai.py",
    "tests/storage/test_faults.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return SLOW_FIRST.index(path) if path in SLOW_FIRST else len(SLOW_FIRST)

    items.sort(key=rank)  # stable: the rest keep their order
