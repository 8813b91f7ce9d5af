"""A throwaway local PostgreSQL server for the tests and the bench: initdb, start, databases, stop, remove.

``PostgresServer.start()`` runs ``initdb`` into a fresh temporary folder, starts the server with
``pg_ctl`` on a unix socket in that folder and on a free loopback port, and creates the app's role
(``skybo``, not a superuser, as in production). ``create_database(name, template=...)`` copies a template
in one ``CREATE DATABASE`` (a fresh migrated database per test costs a file copy, not a migration run).
``stop()`` shuts the server down and removes the folder.

It uses only PostgreSQL's own programs (initdb, pg_ctl, createuser, createdb, dropdb): no database driver
and no SQL here, which stay in ``bot/storage/``.

As root (CI, containers) the server runs as the ``postgres`` user (PostgreSQL refuses to run as root),
or the user named by ``SKYBO_PG_USER``; the folder then belongs to that user. We do not create the user
here: Debian's ``postgresql`` package does, and ``make postgres-deps`` (run by ``make test``) installs it
or creates the user when the binaries came without it.

Nothing is left behind: ``stop()`` runs on a normal end and from ``atexit``, and a watchdog process
(started before ``initdb``) stops the server and removes the folder as soon as its owner dies, even by
SIGKILL, because it waits for the end of a pipe that only the owner holds.

Command line: ``python -m devtools.pgserver bindir`` prints the folder of the binaries (exit status 1
without one: ``make postgres-deps`` uses it); ``python -m devtools.pgserver run`` starts a server,
prints its URLs and waits for Ctrl-C (to try ``DATABASE_URL=postgresql://...`` by hand).
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    import psycopg

INSTALL_HINT = (
    "install Debian's PostgreSQL server (`apt-get install postgresql`; `make test` does it when run as "
    "root) or set SKYBO_PG_BINDIR to a folder that holds initdb and pg_ctl"
)
SUPERUSER = "postgres"
APP_ROLE = "skybo"
# The one role that must give its password (scram-sha-256, over TCP and the socket): everything else is
# trusted, so the tests of wrong credentials create it (``CREATE ROLE ... PASSWORD``, SQL that belongs
# in the tests) and try good and bad passwords against a real server.
PASSWORD_ROLE = "skybo_password"
TERMINATE_WAIT_MS = 10_000  # how long an ended session may take to be gone (a busy machine)
# The programs we run; the client ones (createuser, createdb, dropdb) ship with the server's on Debian.
PROGRAMS = ("initdb", "pg_ctl", "postgres", "createuser", "createdb", "dropdb")
# Settings for a test server. fsync and synchronous_commit stay on: the durability claims and the bench
# figures need commits that really reach the disk. A small shared_buffers keeps several clusters cheap;
# max_connections leaves room for two pools (two bot processes) plus the fixtures' own connections.
TEST_SETTINGS: dict[str, str] = {
    "fsync": "on",
    "synchronous_commit": "on",
    "full_page_writes": "on",
    "shared_buffers": "32MB",
    "max_connections": "100",
    "timezone": "UTC",
    "log_timezone": "UTC",
    "log_min_messages": "warning",
    "log_line_prefix": "%m [%p] ",
}
START_TIMEOUT = 60  # seconds for pg_ctl to see the server accept connections (2 busy shared cores)
SOCKET_PATH_MAX = 100  # sun_path holds 107 bytes; the socket file's name adds ".s.PGSQL.<port>"

_WATCHDOG = r"""
import os, shutil, signal, sys, time
root = sys.argv[1]
sys.stdin.buffer.read()  # returns at end of file: the owner closed the pipe, or died
def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
try:
    with open(os.path.join(root, "data", "postmaster.pid")) as f:
        pid = int(f.readline())
except (OSError, ValueError):
    pid = 0
if pid > 0 and alive(pid):
    try:
        os.kill(pid, signal.SIGQUIT)  # PostgreSQL's immediate shutdown: the data is thrown away anyway
        deadline = time.monotonic() + 10
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
shutil.rmtree(root, ignore_errors=True)
"""


class PostgresUnavailable(RuntimeError):
    """The local server could not be found or started; the message says why and how to fix it."""


def find_bindir(environ: Mapping[str, str] | None = None) -> Path:
    """The folder with PostgreSQL's server programs: SKYBO_PG_BINDIR, ``pg_config --bindir``, Debian's
    /usr/lib/postgresql/<newest>/bin, then PATH. Raises PostgresUnavailable when none holds them all."""
    env = os.environ if environ is None else environ
    wanted = env.get("SKYBO_PG_BINDIR")
    if wanted:
        # An explicit choice that does not work is an error, never a silent fall-back to another server.
        missing = [p for p in PROGRAMS if not os.access(Path(wanted) / p, os.X_OK)]
        if missing:
            raise PostgresUnavailable(f"SKYBO_PG_BINDIR={wanted} lacks {', '.join(missing)}")
        return Path(wanted)
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config", path=env.get("PATH"))
    if pg_config:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, timeout=10)
            if out.returncode == 0 and out.stdout.strip():
                candidates.append(Path(out.stdout.strip()))
    debian = glob.glob("/usr/lib/postgresql/*/bin")
    candidates += sorted((Path(p) for p in debian), key=_version_key, reverse=True)
    initdb = shutil.which("initdb", path=env.get("PATH"))
    if initdb:
        candidates.append(Path(initdb).resolve().parent)
    for folder in candidates:
        if all(os.access(folder / p, os.X_OK) for p in PROGRAMS):
            return folder
    raise PostgresUnavailable(f"no PostgreSQL server programs found ({', '.join(PROGRAMS)}): {INSTALL_HINT}")


def _version_key(bindir: Path) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", bindir.parent.name)) or (0,)


def server_user(euid: int | None = None, name: str | None = None) -> pwd.struct_passwd | None:
    """The account the server runs as: None (ourselves) unless we are root, then ``name``, SKYBO_PG_USER
    or ``postgres``. Raises PostgresUnavailable when that account does not exist."""
    if (os.geteuid() if euid is None else euid) != 0:
        return None
    wanted = name or os.environ.get("SKYBO_PG_USER") or "postgres"
    try:
        account = pwd.getpwnam(wanted)
    except KeyError:
        raise PostgresUnavailable(
            f"running as root, and PostgreSQL refuses root: it runs as user {wanted!r}, which does not "
            "exist. Install Debian's postgresql package (it creates `postgres`; `make test` installs it "
            "when run as root) or set SKYBO_PG_USER to an existing unprivileged user"
        ) from None
    if account.pw_uid == 0:
        raise PostgresUnavailable(f"user {wanted!r} is root, and PostgreSQL refuses to run as root")
    return account


def free_port() -> int:
    """A loopback port nobody listens on now (the server may still lose it to a race: start() retries)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PostgresServer:
    """A running throwaway cluster; ``stop()`` (or leaving the ``with`` block) removes it for good."""

    bindir: Path
    root: Path  # the temporary folder: data/, the unix socket and server.log
    port: int
    tcp: bool
    account: pwd.struct_passwd | None
    timings: dict[str, float] = field(default_factory=dict)  # seconds per step of start(), for reports
    _watchdog: subprocess.Popen[bytes] | None = None
    _stopped: bool = False

    # -- starting ---------------------------------------------------------------------------------------

    @classmethod
    def start(
        cls, *, tcp: bool = True, settings: Mapping[str, str] | None = None, bindir: Path | None = None
    ) -> PostgresServer:
        """initdb + start + the app role. Raises PostgresUnavailable (with the server's log) on failure,
        after removing everything it made."""
        began = time.perf_counter()
        folder = bindir or find_bindir()
        account = server_user()
        root = _make_root(account)
        server = cls(bindir=folder, root=root, port=0, tcp=tcp, account=account)
        atexit.register(server.stop)
        try:
            server._watchdog = subprocess.Popen(
                [sys.executable, "-c", _WATCHDOG, str(root)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # a Ctrl-C to our process group must not kill it before we stop
            )
            t = time.perf_counter()
            server._initdb()
            server.timings["initdb"] = time.perf_counter() - t
            t = time.perf_counter()
            server._configure_and_start(settings or {})
            server.timings["start"] = time.perf_counter() - t
            t = time.perf_counter()
            server._client(
                "createuser", "--no-superuser", "--no-createdb", "--no-createrole", "--login", APP_ROLE
            )
            server.timings["role"] = time.perf_counter() - t
        except BaseException:
            server.stop()
            raise
        server.timings["total"] = time.perf_counter() - began
        return server

    def _initdb(self) -> None:
        self._server_program(
            "initdb",
            "--pgdata",
            str(self.datadir),
            "--username",
            SUPERUSER,
            "--auth",
            # No passwords: the socket is in a folder only its owner (and root) can enter, and the
            # loopback port serves a throwaway cluster holding test data for the length of a run.
            "trust",
            "--encoding",
            "UTF8",
            "--locale",
            "C",
            "--no-sync",  # initdb's own fsync of the new cluster: a throwaway cluster does not need it
            "--no-instructions",
            timeout=180,
        )

    def _configure_and_start(self, settings: Mapping[str, str]) -> None:
        base_conf = (self.datadir / "postgresql.conf").read_text()
        hba = self.datadir / "pg_hba.conf"
        # The first matching line wins: PASSWORD_ROLE needs its password, initdb's trust lines follow.
        hba.write_text(
            f"local all {PASSWORD_ROLE} scram-sha-256\n"
            f"host all {PASSWORD_ROLE} 127.0.0.1/32 scram-sha-256\n" + hba.read_text()
        )
        for attempt in range(3):
            self.port = free_port() if self.tcp else 5432  # with no TCP, the port only names the socket
            values = {
                **TEST_SETTINGS,
                "listen_addresses": "127.0.0.1" if self.tcp else "",
                "port": str(self.port),
                "unix_socket_directories": str(self.root),
                **settings,
            }
            conf = "".join(f"{k} = '{v}'\n" for k, v in values.items())
            (self.datadir / "postgresql.conf").write_text(base_conf + "\n# skybo test server\n" + conf)
            try:
                self._server_program(
                    "pg_ctl",
                    "--pgdata",
                    str(self.datadir),
                    "--log",
                    str(self.log_path),
                    "--wait",
                    "--timeout",
                    str(START_TIMEOUT),
                    "--silent",
                    "start",
                    timeout=START_TIMEOUT + 30,
                )
                return
            except PostgresUnavailable:
                # Another process took the port between free_port() and the server's bind: try another.
                if attempt == 2 or "could not bind" not in self.log_tail():
                    raise

    # -- using ------------------------------------------------------------------------------------------

    @property
    def datadir(self) -> Path:
        return self.root / "data"

    @property
    def log_path(self) -> Path:
        return self.root / "server.log"

    @property
    def socket_path(self) -> Path:
        return self.root / f".s.PGSQL.{self.port}"

    @property
    def postmaster_pid(self) -> int | None:
        try:
            return int((self.datadir / "postmaster.pid").read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return None

    def dsn(
        self, dbname: str, *, user: str = APP_ROLE, tcp: bool = False, password: str | None = None
    ) -> str:
        """A libpq URL for ``dbname``: through the unix socket (the fastest), or over loopback TCP."""
        login = user if password is None else f"{user}:{quote(password, safe='')}"
        if tcp:
            if not self.tcp:
                raise ValueError("this server was started without TCP (tcp=False)")
            return f"postgresql://{login}@127.0.0.1:{self.port}/{dbname}"
        return f"postgresql://{login}@/{dbname}?host={quote(str(self.root), safe='/')}&port={self.port}"

    def admin(self) -> psycopg.Connection[Any]:
        """A connection as the server's superuser to its ``postgres`` database (autocommit): what a test
        does as the server's admin, such as ending sessions."""
        import psycopg  # the package is the bot's; only the tests that play the admin need it here

        return psycopg.connect(self.dsn("postgres", user=SUPERUSER), autocommit=True)

    @contextlib.contextmanager
    def connections_refused(self, dbname: str) -> Iterator[None]:
        """``dbname`` accepts no new connection for the block (those open stay): a database gone away,
        as its clients see it."""
        with self.admin() as conn:
            conn.execute(f'ALTER DATABASE "{dbname}" WITH ALLOW_CONNECTIONS false')
        try:
            yield
        finally:
            with self.admin() as conn:
                conn.execute(f'ALTER DATABASE "{dbname}" WITH ALLOW_CONNECTIONS true')

    def end_sessions_holding(self, lock_class: int) -> int:
        """Ends every session holding an advisory lock of ``lock_class`` (the first key of the two-key
        form), as a restart of the server or a cut of the network would; how many. Returns once they
        are gone: ``pg_terminate_backend`` without its wait only signals a session, which on a busy
        machine may still hold its locks (and show in ``pg_locks``) a while after."""
        with self.admin() as conn:
            rows = conn.execute(
                "SELECT pg_terminate_backend(pid, %s) FROM (SELECT DISTINCT pid FROM pg_locks"
                " WHERE locktype = 'advisory' AND classid = %s) held",
                (TERMINATE_WAIT_MS, lock_class),
            ).fetchall()
        assert all(ended for (ended,) in rows), f"a session outlived {TERMINATE_WAIT_MS} ms: {rows}"
        return len(rows)

    def create_database(self, name: str, *, template: str | None = None, owner: str = APP_ROLE) -> str:
        """Create ``name`` (owned by the app role) as a copy of ``template`` (template1 by default) and
        return its socket URL. PostgreSQL refuses to copy a template that has open connections."""
        args = ["--owner", owner]
        if template:
            args += ["--template", template]
        self._client("createdb", *args, name)
        return self.dsn(name)

    def drop_database(self, name: str) -> None:
        """Drop ``name``, closing the connections a test left open (``--force``)."""
        self._client("dropdb", "--force", "--if-exists", name)

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    # -- a server that goes away and comes back (tests/e2e/test_db_faults.py) -----------------------------

    def halt(self, mode: str = "fast") -> None:
        """Shut the server down with ``pg_ctl stop --mode`` (``fast``: every session is ended, open
        transactions roll back; ``immediate``: as a crash), keeping its data: :meth:`resume` starts it
        again on the same data folder and port. Returns once the postmaster is gone."""
        self._server_program(
            "pg_ctl", "--pgdata", str(self.datadir), "--mode", mode, "--wait", "--silent", "stop",
            timeout=START_TIMEOUT + 30,
        )  # fmt: skip

    def resume(self) -> None:
        """Start a halted server again (same data, settings and port); returns once it accepts
        connections. ``halt()`` then ``resume()`` at once is a restart."""
        self._server_program(
            "pg_ctl", "--pgdata", str(self.datadir), "--log", str(self.log_path), "--wait",
            "--timeout", str(START_TIMEOUT), "--silent", "start",
            timeout=START_TIMEOUT + 30,
        )  # fmt: skip

    # -- stopping ---------------------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop the server (immediate shutdown: the data is thrown away) and remove the folder. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        atexit.unregister(self.stop)
        try:
            if self.postmaster_pid is not None:
                try:
                    self._server_program(
                        "pg_ctl", "--pgdata", str(self.datadir), "--mode", "immediate", "--wait", "stop",
                        timeout=60,
                    )  # fmt: skip
                except PostgresUnavailable:
                    pid = self.postmaster_pid
                    if pid is not None:
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGKILL)  # its backends exit when they see it gone
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
            if self._watchdog is not None:
                # Closing the pipe wakes the watchdog, which finds nothing left to do and exits.
                with contextlib.suppress(OSError):
                    if self._watchdog.stdin is not None:
                        self._watchdog.stdin.close()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._watchdog.wait(timeout=15)

    def __enter__(self) -> PostgresServer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- running PostgreSQL's programs ------------------------------------------------------------------

    def _server_program(self, program: str, *args: str, timeout: float) -> None:
        """initdb and pg_ctl, as the server's account when we are root."""
        extra: dict[str, object] = {}
        env = _clean_env()
        if self.account is not None:
            extra = {"user": self.account.pw_uid, "group": self.account.pw_gid, "extra_groups": []}
            env["HOME"] = str(self.root)
        self._run([str(self.bindir / program), *args], env, timeout, extra)

    def _client(self, program: str, *args: str) -> None:
        """createuser, createdb, dropdb: as ourselves, as the cluster's superuser through the socket."""
        common = [
            "--host",
            str(self.root),
            "--port",
            str(self.port),
            "--username",
            SUPERUSER,
            "--no-password",
        ]
        self._run([str(self.bindir / program), *common, *args], _clean_env(), 60, {})

    def _run(
        self, command: Sequence[str], env: dict[str, str], timeout: float, extra: dict[str, object]
    ) -> None:
        try:
            done = subprocess.run(
                command,
                cwd=self.root,  # the server's account may not be allowed into our working folder
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
                **extra,  # type: ignore[call-overload]
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise PostgresUnavailable(f"`{' '.join(command)}` failed: {exc}") from exc
        if done.returncode != 0:
            output = (done.stdout + done.stderr).strip()
            log = self.log_tail()
            raise PostgresUnavailable(
                f"`{Path(command[0]).name} {' '.join(command[1:])}` exited with {done.returncode}: {output}"
                + (f"\nserver log ({self.log_path}):\n{log}" if log else "")
            )


def server_cpu(postmaster: int | None) -> float:
    """CPU seconds used so far by the postmaster ``postmaster`` (a pid, see ``PostgresServer.postmaster_pid``)
    and its children (the backends, the WAL writer...): what a benchmark charges to the server."""
    if postmaster is None:
        return 0.0
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        if int(entry) == postmaster or int(fields[1]) == postmaster:
            total += int(fields[11]) + int(fields[12])  # utime + stime, in clock ticks
    return total / os.sysconf("SC_CLK_TCK")


def _make_root(account: pwd.struct_passwd | None) -> Path:
    """A private folder for one cluster, owned by the account the server runs as."""
    base = tempfile.gettempdir()
    if len(base) > SOCKET_PATH_MAX - 40:
        base = "/tmp"  # the unix socket's path must stay short
    root = Path(tempfile.mkdtemp(prefix="skybo-pg-", dir=base))
    if account is not None:
        os.chown(root, account.pw_uid, account.pw_gid)
    root.chmod(0o700)
    return root


def _clean_env() -> dict[str, str]:
    # PG* variables (PGHOST, PGPORT, PGDATA, PGUSER, ...) would point the programs at another server.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["LC_ALL"] = "C"
    return env


def main(argv: Sequence[str]) -> int:
    command = argv[0] if argv else ""
    if command == "bindir":
        try:
            print(find_bindir())
        except PostgresUnavailable as exc:
            print(exc, file=sys.stderr)
            return 1
        return 0
    if command == "run":
        with PostgresServer.start() as server:
            server.create_database("skybo")
            print(f"PostgreSQL {server.bindir} started in {server.timings['total']:.2f} s")
            print(f"  DATABASE_URL={server.dsn('skybo')}")
            print(f"  DATABASE_URL={server.dsn('skybo', tcp=True)}")
            print("Ctrl-C stops it and removes", server.root)
            with contextlib.suppress(KeyboardInterrupt):
                signal.pause()
        return 0
    print("usage: python -m devtools.pgserver bindir|run", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
