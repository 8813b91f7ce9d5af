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
"""

from __future__ import annotations

import itertools
import os
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from devtools.pgserver import PASSWORD_ROLE, SUPERUSER, PostgresServer, PostgresUnavailable

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
    import psycopg

    password = "pw-" + secrets.token_urlsafe(12)
    with psycopg.connect(pg_server.dsn("postgres", user=SUPERUSER), autocommit=True) as conn:
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
