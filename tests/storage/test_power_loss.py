"""Power loss: with ``synchronous=FULL`` every acknowledged write survives; with ``NORMAL`` or ``OFF``
acknowledged writes are lost (issue 23 item 7).

Killing the process (tests/storage/test_faults.py) cannot show this: the operating system keeps the
page cache, so whatever SQLite handed to write() reaches the disk even if it was never fsynced. A power
loss throws away everything that was not fsynced. This test models exactly that with a SQLite VFS
(apsw, which lets Python sit between SQLite and the file system):

- every file the database uses (the database, its WAL, a rollback journal) has a *durable image*,
  what a disk that honours fsync holds;
- a write or truncate goes to the real file (so SQLite reads back what it wrote) and to a list of
  *pending* operations; xSync applies that file's pending operations to its durable image;
- a power loss at a random VFS operation takes the durable images as the disk after reboot, plus,
  in some variants, a random subset of the pending writes (a disk may have written some of them,
  in any order). File creation counts as durable (a journalling file system), and the WAL index
  (-shm) is rebuilt by SQLite from the WAL, as after any crash.

The connection is set up and written to by the bot's own code, not a copy of it: ``configure`` (the
pragmas: WAL, the synchronous mode, ...), ``apply_migrations`` and ``run_batch`` (BEGIN IMMEDIATE, a
SAVEPOINT per write, one COMMIT per group) from bot/storage/sqlite/database.py, handed an apsw connection
(same method names as sqlite3's). apsw carries its own SQLite build; the disk after reboot is opened
with the standard library's sqlite3, the one the bot runs on, which does the WAL recovery.
"""

from __future__ import annotations

import random
import sqlite3
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import apsw  # in the test extras (pyproject.toml), so `make test` installs it
import pytest

from bot.storage.sqlite.database import apply_migrations, configure, load_migrations, run_batch

GROUPS = 320  # write groups per run: about 1,500 WAL frames, so one automatic checkpoint runs too
CRASHES = 12  # power-loss moments per run
SUBSETS = 3  # variants per moment where the disk also kept random pending writes


@dataclass
class FileState:
    durable: bytearray | None  # None: the file does not exist on the disk after a power loss
    # since the last fsync, in order: ("write", offset, data) or ("truncate", size, b"")
    pending: list[tuple[str, int, bytes]] = field(default_factory=list)


def _apply(image: bytearray, op: tuple[str, int, bytes]) -> None:
    kind, offset, data = op
    if kind == "truncate":
        del image[offset:]
        return
    if len(image) < offset:
        image.extend(b"\0" * (offset - len(image)))
    image[offset : offset + len(data)] = data


class Disk:
    """What a power loss leaves: the durable image of each file, and the writes since its last fsync."""

    def __init__(self) -> None:
        self.files: dict[str, FileState] = {}
        self.ops = 0  # VFS operations so far (writes, truncates, syncs)
        self.crash_at: set[int] = set()
        self.crashes: list[tuple[int, dict[str, FileState]]] = []  # (op number, copy of the files)

    def opened(self, path: str) -> None:
        if path not in self.files:
            existing = Path(path).read_bytes() if Path(path).exists() else b""
            self.files[path] = FileState(bytearray(existing))

    def record(self, path: str, op: tuple[str, int, bytes]) -> None:
        self._tick()
        self.files[path].pending.append(op)

    def synced(self, path: str) -> None:
        self._tick()
        state = self.files[path]
        if state.durable is None:
            state.durable = bytearray()
        for op in state.pending:
            _apply(state.durable, op)
        state.pending.clear()

    def deleted(self, path: str) -> None:
        self.files[path] = FileState(None)

    def _tick(self) -> None:
        self.ops += 1
        if self.ops in self.crash_at:  # the power goes out just before this operation
            copy = {
                p: FileState(None if s.durable is None else bytearray(s.durable), list(s.pending))
                for p, s in self.files.items()
            }
            self.crashes.append((self.ops, copy))


def _power_loss_vfs(disk: Disk, name: str) -> Any:
    class File(apsw.VFSFile):  # type: ignore[misc,name-defined]
        def __init__(self, filename: Any, flags: list[int]) -> None:
            self.path = filename.filename() if isinstance(filename, apsw.URIFilename) else filename
            super().__init__("", filename, flags)
            if self.path is not None:
                disk.opened(self.path)

        def xWrite(self, data: bytes, offset: int) -> None:
            if self.path is not None:
                disk.record(self.path, ("write", offset, bytes(data)))
            super().xWrite(data, offset)

        def xTruncate(self, size: int) -> None:
            if self.path is not None:
                disk.record(self.path, ("truncate", size, b""))
            super().xTruncate(size)

        def xSync(self, flags: int) -> None:
            if self.path is not None:
                disk.synced(self.path)
            super().xSync(flags)

    class Vfs(apsw.VFS):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__(name, "")

        def xOpen(self, filename: Any, flags: list[int]) -> Any:
            return File(filename, flags)

        def xDelete(self, filename: str, syncdir: bool) -> None:
            disk.deleted(filename)
            super().xDelete(filename, syncdir)

    return Vfs()


def _after_reboot(files: dict[str, FileState], folder: Path, rng: random.Random | None) -> Path:
    """Write the disk as the power loss left it into ``folder``; with ``rng``, each pending write of
    each file also made it to the disk with probability 1/2 (in order; a dropped one is a hole)."""
    folder.mkdir()
    for path, state in files.items():
        if path.endswith("-shm") or state.durable is None:
            continue
        image = bytearray(state.durable)
        if rng is not None:
            for op in state.pending:
                if rng.random() < 0.5:
                    _apply(image, op)
        (folder / Path(path).name).write_bytes(bytes(image))
    return folder / "power.sqlite3"


def _payload(n: int) -> bytes:
    """Row n's content: 100 bytes to 9 KiB (some rows span pages), checkable after the reboot."""
    size = 100 + (n * 7919) % 9000
    return (f"write {n};".encode() * (size // 8 + 1))[:size]


class Corrupt(Exception):
    """The disk after the power loss holds a damaged database (possible with OFF: SQLite's docs)."""


def _surviving(path: Path) -> dict[int, bytes]:
    """The writes found on the disk after the reboot, each checked whole; Corrupt if it is damaged."""
    if not path.exists():
        return {}
    with sqlite3.connect(path) as conn:
        try:
            check = conn.execute("PRAGMA integrity_check").fetchone()[0]
            rows = conn.execute("SELECT n, payload, crc FROM acked").fetchall()
        except sqlite3.DatabaseError as error:
            if "no such table" in str(error):  # the table itself was never made durable
                return {}
            raise Corrupt(str(error)) from error
        if check != "ok":
            raise Corrupt(check)
    for n, payload, crc in rows:
        assert payload == _payload(n) and crc == zlib.crc32(payload), f"row {n} is torn"
    return {n: payload for n, payload, _ in rows}


@dataclass
class Outcome:
    moments: int
    lost: int  # power-loss moments after which an acknowledged write was missing
    corrupt: int  # disks after reboot (all variants) holding a damaged database


def _run(tmp_path: Path, synchronous: str, seed: int) -> Outcome:
    rng = random.Random(seed)
    disk = Disk()
    name = f"powerloss-{synchronous}-{seed}"
    vfs = _power_loss_vfs(disk, name)  # registered while referenced
    folder = tmp_path / "live"
    folder.mkdir()
    conn = apsw.Connection(str(folder / "power.sqlite3"), vfs=name)
    bot_conn: Any = conn  # the bot's functions are typed for sqlite3; apsw has the same calls
    configure(bot_conn, synchronous, 5000, readonly=False)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    apply_migrations(bot_conn, load_migrations())
    conn.execute("CREATE TABLE acked (n INTEGER PRIMARY KEY, payload BLOB NOT NULL, crc INTEGER NOT NULL)")
    start = disk.ops
    disk.crash_at = set(rng.sample(range(start + 1, start + GROUPS * 8), CRASHES))
    # Each group: its writes, the VFS operation count before it began and when its COMMIT returned.
    groups: list[tuple[set[int], int, int]] = []
    n = 0
    for _ in range(GROUPS):
        group: list[Callable[[Any], Any]] = []
        numbers = []
        for _ in range(rng.randint(1, 4)):
            n += 1
            numbers.append(n)

            def write(c: Any, n: int = n) -> int:
                payload = _payload(n)
                c.execute("INSERT INTO acked VALUES (?, ?, ?)", (n, payload, zlib.crc32(payload)))
                return n

            group.append(write)
        begun = disk.ops
        outcomes = run_batch(bot_conn, group)
        assert all(outcome == 0 for outcome, _ in outcomes)  # COMMITTED
        groups.append((set(numbers), begun, disk.ops))
    conn.close()
    vfs.unregister()
    assert len(disk.crashes) == CRASHES, "the run was too short for the chosen power-loss moments"

    lost = corrupt = 0
    for index, (moment, files) in enumerate(disk.crashes):
        acked = set().union(*(g for g, _, done in groups if done < moment))
        in_flight = set().union(*(g for g, begun, done in groups if begun < moment <= done))
        variants = [None] + [random.Random(seed * 1000 + index * 10 + v) for v in range(SUBSETS)]
        missing_any = False
        for v, subset in enumerate(variants):
            try:
                survived = set(_surviving(_after_reboot(files, tmp_path / f"reboot-{index}-{v}", subset)))
            except Corrupt:
                corrupt += 1
                missing_any = True
                continue
            # A group is all or nothing, and nothing comes from after the power loss.
            assert survived <= acked | in_flight
            assert survived & in_flight in (set(), in_flight)
            missing_any |= bool(acked - survived)
        lost += missing_any
    return Outcome(len(disk.crashes), lost, corrupt)


@pytest.mark.parametrize("synchronous", ["FULL", "EXTRA"])
def test_full_keeps_every_acknowledged_write_through_a_power_loss(tmp_path: Path, synchronous: str) -> None:
    outcome = _run(tmp_path, synchronous, seed=23)
    assert outcome.corrupt == 0
    assert outcome.lost == 0, f"{outcome.lost} of {outcome.moments} power losses lost acknowledged writes"


@pytest.mark.parametrize("synchronous", ["NORMAL", "OFF"])
def test_normal_and_off_lose_acknowledged_writes_in_a_power_loss(tmp_path: Path, synchronous: str) -> None:
    """The control: the same run with fsync skipped at commit loses writes the bot had acknowledged,
    so the test above would catch a FULL that stopped syncing."""
    outcome = _run(tmp_path, synchronous, seed=23)
    assert outcome.lost > 0, f"none of {outcome.moments} power losses lost an acknowledged write"
