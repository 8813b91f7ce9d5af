"""``python -m bot backup DEST``: a consistent copy of the live SQLite database, safe while the bot runs.

Copying the file with ``cp`` while the bot writes can tear it (a page written half-way through the
copy, or commits still in the ``-wal`` file beside it). SQLite's online backup API
(:meth:`sqlite3.Connection.backup`) copies the pages inside ONE read transaction instead: the copy is
the database exactly as it was when the backup started, every commit before that moment included and
none after. The whole copy is one backup step (``pages=-1``): a step-by-step copy restarts whenever
another connection writes between two steps, so under a busy bot it could never finish. In WAL mode a
reader blocks no writer, so the bot keeps committing moves during the copy, and it needs no lock of
the bot's: the source is opened read-only.

The copy is written beside ``DEST`` under a temporary name, switched to ``journal_mode=DELETE`` (one
self-contained file, no ``-wal`` to carry along; the bot turns WAL back on when it opens it), checked
(``PRAGMA integrity_check`` and ``foreign_key_check``), flushed to disk, and only then renamed to
``DEST``: a ``DEST`` that exists is a complete, checked backup. ``DEST`` may be a folder (the copy is
named ``skybo-YYYYMMDD-HHMMSS.sqlite3`` in it, UTC); an existing file is never overwritten.

PostgreSQL has its own consistent dump, ``pg_dump``: with ``DATABASE_URL=postgresql://...`` this
command refuses and prints the ``pg_dump`` command to run instead (naming ``$DATABASE_URL``, never its
password).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

PROG = "backup"


class Refused(Exception):
    """Why no backup was written, in one line."""


@dataclass
class Report:
    source: Path
    dest: Path
    size: int
    schema_version: int
    games_by_status: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def line(self) -> str:
        games = sum(self.games_by_status.values())
        statuses = ", ".join(f"{n} {s}" for s, n in sorted(self.games_by_status.items()))
        counted = f"{games} game{'' if games == 1 else 's'}" + (f": {statuses}" if statuses else "")
        return (
            f"{PROG}: wrote {self.dest} ({_size(self.size)}, schema version {self.schema_version},"
            f" {counted}) from {self.source}"
            f" in {self.seconds:.2f} s; integrity check of the copy: ok"
        )


def _size(n: int) -> str:
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1024 * 1024):.1f} MiB"


def pg_dump_command(dest: str) -> str:
    """The command that backs up a PostgreSQL database: a custom-format dump, restored with
    ``pg_restore``. It names ``$DATABASE_URL`` so no password is ever printed."""
    return f'pg_dump --format=custom --no-owner --file={shlex.quote(dest)} "$DATABASE_URL"'


def destination(dest: Path, now: datetime | None = None) -> Path:
    """Where the copy goes: ``dest``, or a timestamped file in it when it is a folder; refuses a file
    that exists (the live database itself included) and a missing folder."""
    if dest.is_dir():
        stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
        dest = dest / f"skybo-{stamp}.sqlite3"
    if dest.exists():
        raise Refused(f"{dest} already exists: give a new file name or a folder (a backup never overwrites)")
    if not dest.parent.is_dir():
        raise Refused(f"{dest.parent} is not a folder: create it first, or give another destination")
    return dest


def _open_source(source: Path) -> sqlite3.Connection:
    """The live database, read-only (``mode=ro``: never created, never written)."""
    if not source.is_file():
        raise Refused(f"no database at {source} (give it with --database, or set DATABASE_PATH)")
    try:
        conn = sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as error:
        raise Refused(f"{source}: cannot open it read-only ({error})") from None
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        has_games = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'games'"
        ).fetchone()
    except sqlite3.DatabaseError as error:
        conn.close()
        raise Refused(f"{source}: not a SQLite database ({error})") from None
    if version == 0 or has_games is None:
        conn.close()
        raise Refused(f"{source}: not a Skybo database (no Skybo schema in it)")
    return conn


def _check(copy: sqlite3.Connection) -> None:
    problems = [str(r[0]) for r in copy.execute("PRAGMA integrity_check")]
    if problems != ["ok"]:
        raise Refused(f"the copy failed its integrity check: {'; '.join(problems[:5])}")
    orphans = copy.execute("PRAGMA foreign_key_check").fetchall()
    if orphans:
        raise Refused(f"the copy failed its foreign key check ({len(orphans)} rows point at nothing)")


def _fsync(path: Path, *, directory: bool = False) -> None:
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def backup(source: Path, dest: Path) -> Report:
    """Copy the live database ``source`` to ``dest`` (see the module doc); raises :class:`Refused`."""
    started = time.perf_counter()
    target = destination(dest)
    src = _open_source(source)
    try:
        fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    except OSError as error:
        src.close()
        raise Refused(f"cannot write in {target.parent}: {error.strerror or error}") from None
    os.close(fd)
    partial = Path(name)
    try:
        copy = sqlite3.connect(partial, isolation_level=None)
        try:
            src.backup(copy, pages=-1)  # one step: one read transaction, one consistent state
            copy.execute("PRAGMA journal_mode = DELETE")
            _check(copy)
            version = int(copy.execute("PRAGMA user_version").fetchone()[0])
            statuses = {
                str(s): int(n) for s, n in copy.execute("SELECT status, count(*) FROM games GROUP BY status")
            }
        finally:
            copy.close()
        _fsync(partial)
        if target.exists():  # created while we copied: still never overwritten
            raise Refused(f"{target} appeared during the backup: give a new file name")
        os.replace(partial, target)
        _fsync(target.parent, directory=True)
    except sqlite3.Error as error:
        raise Refused(f"the copy to {target} failed, nothing was kept: {error}") from None
    except OSError as error:
        raise Refused(f"cannot write the copy at {target}: {error.strerror or error}") from None
    finally:
        src.close()
        for leftover in (partial, *(Path(f"{partial}{s}") for s in ("-journal", "-wal", "-shm"))):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()
    return Report(source, target, target.stat().st_size, version, statuses, time.perf_counter() - started)


def main(args: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog=f"python -m bot {PROG}",
        description="Write a consistent, checked copy of the SQLite database, safe while the bot runs.",
    )
    parser.add_argument("dest", metavar="DEST", type=Path, help="the copy to write, or a folder for it")
    parser.add_argument(
        "--database", type=Path, default=None, help="the live SQLite file (default: DATABASE_PATH)"
    )
    options = parser.parse_args(args)
    dest: Path = options.dest
    source: Path | None = options.database
    if source is None:
        from bot.config import ConfigError, load_settings

        try:
            settings = load_settings()
        except ConfigError as error:
            print(
                f"{PROG}: the settings are invalid ({error}); give the file with --database", file=sys.stderr
            )
            return 1
        if settings.database_url is not None:
            print(
                f"{PROG}: refused: DATABASE_URL is a PostgreSQL database; back it up with pg_dump:"
                f" {pg_dump_command(str(dest))}",
                file=sys.stderr,
            )
            return 1
        source = settings.database_path
    try:
        report = backup(source, dest)
    except Refused as refusal:
        print(f"{PROG}: refused: {refusal}", file=sys.stderr)
        return 1
    print(report.line())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
