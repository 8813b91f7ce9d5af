"""``python -m bot run`` with a database it cannot use (or a shard another process holds) stops with ONE
line on stderr and exit code 2: no traceback, the token never printed, and before any contact with
Discord (issue 23 item 6, issue 25).

Each case runs the real command in a child process with a dummy token. The test machine has no
network, and discord.py logs "logging in using static token" before its first request: a run that
reached Discord would print that line and a traceback, so "exactly one line" also proves that the
storage was checked first.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.storage import Storage

REPO = Path(__file__).resolve().parents[2]
TOKEN = "MTIzNDU2Nzg5.dummy-token.never-printed-anywhere"
RUN_TIMEOUT_S = 90.0  # a start that fails on storage takes about a second; the machine is shared


def _migrated_database(path: Path) -> Path:
    """A database as a previous run of the bot left it (migrated, closed)."""

    async def make() -> None:
        storage = await Storage.open(path, synchronous="FULL")
        await storage.close()

    asyncio.run(make())
    return path


def _unprivileged() -> list[str]:
    """Root ignores permission bits (CAP_DAC_OVERRIDE), and CI runs as root: there the child runs with
    every capability dropped (setpriv, from util-linux). It stays uid 0 and owns the test's files, so
    the 0o444 / 0o555 modes below bind it like any user, and it can still read the project."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    assert setpriv, "running as root needs setpriv (util-linux) to drop CAP_DAC_OVERRIDE"
    return [setpriv, "--bounding-set", "-all", "--inh-caps", "-all"]


def _run_bot(
    cwd: Path,
    database: Path | str,
    prefix: list[str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd),
        "DISCORD_TOKEN": TOKEN,
        "DATABASE_PATH": str(database),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    command = [*(prefix or []), sys.executable, "-m", "bot", "run"]
    # cwd is the test's folder: no .env of the developer's is read.
    return subprocess.run(
        command,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        preexec_fn=preexec_fn,
        check=False,
    )


def _assert_one_clear_line(result: subprocess.CompletedProcess[str], path: Path | str, problem: str) -> None:
    lines = result.stderr.splitlines()
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert len(lines) == 1, f"expected one line on stderr, got:\n{result.stderr}"
    assert lines[0].startswith(f"storage error: {path}: "), lines[0]
    assert problem in lines[0], lines[0]
    assert "Traceback" not in result.stderr + result.stdout
    assert TOKEN not in result.stderr + result.stdout
    assert result.stdout == ""


@contextlib.contextmanager
def _mode(path: Path, mode: int) -> Iterator[None]:
    """``path`` with ``mode`` for the duration (then writable again, so the test folder can be removed)."""
    before = path.stat().st_mode & 0o777
    path.chmod(mode)
    try:
        yield
    finally:
        path.chmod(before)


def test_a_read_only_database_file_stops_the_start_with_one_line(tmp_path: Path) -> None:
    database = _migrated_database(tmp_path / "data" / "skybo.sqlite3")
    with _mode(database, 0o444):
        result = _run_bot(tmp_path, database, _unprivileged())
    _assert_one_clear_line(result, database, "cannot write there (read-only file, folder or file system")
    assert "set DATABASE_PATH to a writable place" in result.stderr


def test_a_database_in_a_read_only_folder_stops_the_start_with_one_line(tmp_path: Path) -> None:
    database = _migrated_database(tmp_path / "data" / "skybo.sqlite3")
    with _mode(database.parent, 0o555):
        result = _run_bot(tmp_path, database, _unprivileged())
    _assert_one_clear_line(result, database, "cannot write there")


def test_a_new_database_in_a_read_only_folder_stops_the_start_with_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "readonly"
    folder.mkdir()
    database = folder / "sub" / "skybo.sqlite3"  # the bot would create "sub" and the file
    with _mode(folder, 0o555):
        result = _run_bot(tmp_path, database, _unprivileged())
    _assert_one_clear_line(result, database, "cannot write there")
    assert not (folder / "sub").exists()


def _small_full_disk(mountpoint: Path, source: Path) -> list[str] | None:
    """A command prefix that runs the child in a private mount namespace where ``mountpoint`` is a
    256 KiB tmpfs holding a copy of ``source`` (as ``skybo.sqlite3``) and filled up to the last byte,
    or None when this machine allows no such mount (no CAP_SYS_ADMIN and no user namespaces).

    A real file system that is full, not a simulation: ENOSPC comes from the kernel. The namespace is
    private to the child, so nothing stays mounted, whatever happens to the test."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    script = (
        'set -e; mount -t tmpfs -o size=256k tmpfs "$1"; cp "$2" "$1/skybo.sqlite3"; '
        'dd if=/dev/zero of="$1/ballast" bs=4096 2>/dev/null || true; shift 2; exec "$@"'
    )
    prefix = [unshare, "--mount", "--propagation", "private"]
    if os.geteuid() != 0:
        prefix.append("--map-root-user")
    prefix += ["sh", "-c", script, "sh", str(mountpoint), str(source)]
    probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=30, check=False)
    return prefix if probe.returncode == 0 else None


def _file_size_limit() -> None:
    """In the child (fallback when no small file system can be mounted): files may not grow past 1000
    bytes, and exceeding that is an EFBIG error instead of a fatal SIGXFSZ; the first thing the start
    grows is the WAL index (-shm), which SQLite reports as SQLITE_IOERR_SHMSIZE, as on a full disk."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))


def test_a_full_disk_stops_the_start_with_one_line(tmp_path: Path) -> None:
    """The bot ran before, then the disk filled up: starting must not accept moves it cannot store.

    On a small tmpfs filled to the brim where the machine allows mounting one (CI does: it runs as
    root), else under RLIMIT_FSIZE; the same message either way."""
    source = _migrated_database(tmp_path / "before" / "skybo.sqlite3")
    mountpoint = tmp_path / "disk"
    mountpoint.mkdir()
    prefix = _small_full_disk(mountpoint, source)
    if prefix is not None:
        database = mountpoint / "skybo.sqlite3"
        result = _run_bot(tmp_path, database, prefix)
    else:
        database = mountpoint / "skybo.sqlite3"
        shutil.copyfile(source, database)
        result = _run_bot(tmp_path, database, preexec_fn=_file_size_limit)
    _assert_one_clear_line(result, database, "the disk (or the user's quota) is full")
    assert "free some space" in result.stderr


def test_a_file_that_is_not_a_database_stops_the_start_with_one_line(tmp_path: Path) -> None:
    database = tmp_path / "skybo.sqlite3"
    database.write_bytes(b"these are my holiday notes, not a database\n" * 200)
    result = _run_bot(tmp_path, database)
    _assert_one_clear_line(result, database, "not a Skybo database, or a damaged one")
    assert database.read_bytes().startswith(b"these are my holiday notes")  # left as it was


def test_a_database_held_by_another_bot_stops_the_start_with_one_line(tmp_path: Path) -> None:
    database = _migrated_database(tmp_path / "skybo.sqlite3")
    lock = os.open(f"{database}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # what a running bot holds
        result = _run_bot(tmp_path, database)
    finally:
        os.close(lock)
    _assert_one_clear_line(result, database, "already open in another process")


@pytest.mark.parametrize("name", ["file", "folder"])
def test_a_path_that_cannot_be_created_stops_the_start_with_one_line(tmp_path: Path, name: str) -> None:
    """DATABASE_PATH goes through a regular file: no folder can be made there."""
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a folder should be\n")
    database = blocker / "skybo.sqlite3" if name == "file" else blocker / "sub" / "skybo.sqlite3"
    result = _run_bot(tmp_path, database)
    _assert_one_clear_line(result, database, "cannot open or create the database file")


async def test_a_shard_held_by_another_process_stops_the_start_with_one_line(
    tmp_path: Path, pg_dsn: str
) -> None:
    """A fleet process asking for a shard another live process runs: one line, before Discord."""
    storage = await Storage.open(url=pg_dsn)  # migrated, as by the process that runs the shard
    lease = await storage.hold_shards(2, (1,))
    try:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp_path),
            "DISCORD_TOKEN": TOKEN,
            "DATABASE_URL": pg_dsn,
            "SHARD_COUNT": "2",
            "SHARD_IDS": "0-1",
        }
        result = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "bot", "run"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
    finally:
        assert lease is not None
        await lease.release()
        await storage.close()
    lines = result.stderr.splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert lines[0].startswith("shards: ") and "shard 1 of 2 already run in another live process" in lines[0]
    assert "Traceback" not in result.stderr and TOKEN not in result.stderr + result.stdout
