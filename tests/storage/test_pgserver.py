"""The local PostgreSQL harness (devtools/pgserver.py): a real server starts, serves the app's role,
isolates test databases, and leaves nothing behind when stopped, when start fails, or when its owner is
killed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from devtools.pgserver import PostgresServer, PostgresUnavailable, find_bindir, server_user
from tests.conftest import PgDatabase, postgres_unavailable

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def pg_bindir() -> Path:
    """The binaries, for tests that start a server their own way (same skip or failure policy)."""
    try:
        server_user()  # as root, the account the server runs as must exist too
        return find_bindir()
    except PostgresUnavailable as exc:
        postgres_unavailable(exc)
        raise


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _wait_until(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_app_role_connects_with_durable_settings(pg_database: PgDatabase) -> None:
    with psycopg.connect(pg_database.dsn, autocommit=True) as conn:
        user, db, superuser = conn.execute(
            "SELECT current_user, current_database(), rolsuper FROM pg_roles WHERE rolname = current_user"
        ).fetchone()
        # The app runs as an ordinary role, as in production: a test that needs superuser powers fails here.
        assert (user, db, superuser) == ("skybo", pg_database.name, False)
        names = ("fsync", "synchronous_commit", "full_page_writes")
        rows = conn.execute("SELECT name, setting FROM pg_settings WHERE name = ANY(%s)", (list(names),))
        settings = dict(rows.fetchall())
        assert settings == {"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on"}
        conn.execute("CREATE TABLE moves (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body TEXT)")
        with conn.transaction():
            conn.execute("INSERT INTO moves (body) VALUES (%s), (%s)", ("a", "b"))
    # Over loopback TCP too, from a new connection: the committed rows are there.
    with psycopg.connect(pg_database.tcp_dsn) as conn:
        assert conn.execute("SELECT body FROM moves ORDER BY id").fetchall() == [("a",), ("b",)]


def test_test_databases_are_isolated_copies_of_the_template(pg_server: PostgresServer) -> None:
    with psycopg.connect(pg_server.create_database("iso_template"), autocommit=True) as conn:
        conn.execute("CREATE TABLE migrated (x INT)")
    # (the connection is closed here: PostgreSQL copies no template that has one open)
    a, b = (pg_server.create_database(name, template="iso_template") for name in ("iso_a", "iso_b"))
    try:
        with psycopg.connect(a, autocommit=True) as conn:
            conn.execute("CREATE TABLE only_in_a (x INT)")
            conn.execute("INSERT INTO migrated VALUES (1)")
        with psycopg.connect(b) as conn:
            tables = {
                r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
            }
            assert tables == {"migrated"}
            assert conn.execute("SELECT count(*) FROM migrated").fetchone() == (0,)
    finally:
        for name in ("iso_a", "iso_b", "iso_template"):
            pg_server.drop_database(name)
    with pytest.raises(psycopg.OperationalError, match="does not exist"):
        psycopg.connect(a).close()


def test_stop_closes_the_server_and_removes_its_folder(pg_start: Callable[..., PostgresServer]) -> None:
    server = pg_start()
    print(f"PostgreSQL start: {server.timings}")
    pid, root, port, sock = server.postmaster_pid, server.root, server.port, server.socket_path
    assert pid is not None and _alive(pid)
    assert sock.is_socket() and _port_open(port)
    server.stop()
    assert not root.exists()
    assert not _alive(pid)
    assert not _port_open(port)
    server.stop()  # a second stop (the fixture's, atexit's) is harmless


def test_a_failed_start_says_why_and_leaves_nothing(pg_bindir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A folder of our own for the cluster's folder (one the server's account may enter, hence not
    # tmp_path): other test runs on the machine make theirs in /tmp at the same time.
    base = Path(tempfile.mkdtemp(prefix="skybo-pgtest-", dir="/tmp"))
    base.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    try:
        with pytest.raises(PostgresUnavailable, match="shared_buffers") as failed:
            PostgresServer.start(settings={"shared_buffers": "a lot"}, bindir=pg_bindir)
        assert "server log" in str(failed.value)  # the server's own complaint is in the message
        assert list(base.iterdir()) == []
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_a_killed_owner_leaves_no_server_behind(pg_bindir: Path) -> None:
    """SIGKILL runs no cleanup in the owner: the watchdog stops the server and removes the folder."""
    owner = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import json, time; from devtools.pgserver import PostgresServer; s = PostgresServer.start(); "
            "print(json.dumps([s.postmaster_pid, str(s.root), s.port]), flush=True); time.sleep(600)",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert owner.stdout is not None
        line = owner.stdout.readline()
        if not line:
            pytest.fail(f"the owner did not start a server: {owner.communicate(timeout=30)[1]}")
        pid, root, port = json.loads(line)
        assert _alive(pid) and _port_open(port)
        owner.send_signal(signal.SIGKILL)
        owner.wait(timeout=10)
        assert _wait_until(lambda: not Path(root).exists() and not _alive(pid), 20)
        assert not _port_open(port)
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()


def test_root_needs_an_unprivileged_account() -> None:
    assert server_user(euid=1000) is None  # not root: the server runs as ourselves
    with pytest.raises(PostgresUnavailable, match="SKYBO_PG_USER"):
        server_user(euid=0, name="skybo-no-such-user")
    with pytest.raises(PostgresUnavailable, match="refuses to run as root"):
        server_user(euid=0, name="root")


def test_a_wrong_bindir_is_an_error_not_a_fall_back(tmp_path: Path) -> None:
    with pytest.raises(PostgresUnavailable, match="lacks initdb"):
        find_bindir({"SKYBO_PG_BINDIR": str(tmp_path), "PATH": os.environ.get("PATH", "")})
