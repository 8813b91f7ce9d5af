"""`python -m bot backup DEST`: a consistent copy of the live SQLite database while the bot writes to it
(SQLite's online backup API), checked, never overwriting; PostgreSQL is sent to pg_dump."""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.service.ledger import GameLedger
from bot.storage import Storage, StoredGame
from bot.storage.sqlite.backup import main
from tests.storage.conftest import REPO, new_game, play, play_to_end, worker_env

GAMES = 6


def _rows(path: Path) -> dict[int, tuple[int, str, str, int]]:
    """``id -> (version, status, snapshot_hash, actions logged)`` read straight from a file."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        logged = dict(conn.execute("SELECT game_id, count(*) FROM game_actions GROUP BY game_id").fetchall())
        return {
            int(gid): (int(version), str(status), str(digest), int(logged.get(gid, 0)))
            for gid, version, status, digest in conn.execute(
                "SELECT id, version, status, snapshot_hash FROM games"
            )
        }


class Writer:
    """The bot's side: moves applied one after another on the open Storage, each committed."""

    def __init__(self, storage: Storage, games: list[StoredGame]) -> None:
        self.storage = storage
        self.games = games
        self.commits = 0
        self.stop = asyncio.Event()

    async def run(self) -> None:
        rng = random.Random(7)
        while not self.stop.is_set():
            playing = [g for g in self.games if not g.state.is_over]
            assert playing, "every game ended: give the writer longer games"
            stored = rng.choice(playing)
            seat = rng.choice(stored.state.seats_to_act())
            await GameLedger(self.storage).apply_action(
                stored, seat, rng.choice(stored.state.legal_actions(seat))
            )
            self.commits += 1


async def test_a_backup_while_the_bot_writes_is_consistent_and_complete(
    db_path: Path, tmp_path: Path
) -> None:
    backups = tmp_path / "backups"
    backups.mkdir()
    # The bot's own way in: the process lock taken, synchronous=FULL, writes group-committed.
    storage = await Storage.open(db_path, synchronous="FULL")
    try:
        finished = await new_game(storage, channel=99)
        await play_to_end(storage, finished, seed=3)  # results and ratings rows in the copy too
        games = [await new_game(storage, channel=100 + i) for i in range(GAMES)]
        for i, stored in enumerate(games):
            await play(storage, stored, 20, seed=i)
        writer = Writer(storage, games)
        task = asyncio.create_task(writer.run())
        taken: list[tuple[Path, dict[int, int], int, int]] = []
        try:
            while writer.commits < 5:  # the writer is under way before the first backup
                await asyncio.sleep(0.005)
            for n in range(8):
                # Every write committed before the backup starts: stored.version moves only after a
                # commit returned, so this is at most what the database holds now.
                committed = {g.id: g.version for g in games} | {finished.id: finished.version}
                before = writer.commits
                dest = backups / f"copy-{n}.sqlite3"
                code = await asyncio.to_thread(main, [str(dest), "--database", str(db_path)])
                assert code == 0
                taken.append((dest, committed, before, writer.commits))
        finally:
            writer.stop.set()
            await task
        final = {g.id: g.version for g in games}
    finally:
        await storage.close()

    # The writer went on while backups were being taken (the live database was never paused).
    assert any(after > before for _, _, before, after in taken)
    assert writer.commits > taken[0][2]
    for dest, committed, _, _ in taken:
        assert not Path(f"{dest}-wal").exists() and not Path(f"{dest}-journal").exists()
        rows = _rows(dest)
        assert set(rows) == set(committed)
        for game_id, (version, _status, _, logged) in rows.items():
            assert version >= committed[game_id], f"game {game_id}: a committed move is missing"
            assert version == logged  # the snapshot and the log are from the same instant
            assert version <= final.get(game_id, version)
        assert rows[finished.id][1] == "finished"
        # The copy opens as a database of the bot, and every game replays from its log to its snapshot.
        async with await Storage.open(dest, synchronous="FULL") as copy:
            loaded = await GameLedger(copy).load_active(verify="full")
            assert loaded.rebuilt == [] and loaded.quarantined == []
            assert sorted(g.id for g in loaded.games) == sorted(g.id for g in games)
            for game_id in rows:
                assert (await GameLedger(copy).get_game(game_id, verify=True)).verified
            assert len(await copy.results.for_game(finished.id)) == 2
        assert _rows(dest) == rows  # verified as it was: nothing had to be repaired


def test_the_command_prints_what_it_wrote(db_path: Path, tmp_path: Path) -> None:
    async def build() -> int:
        async with await Storage.open(db_path) as storage:
            stored = await new_game(storage)
            await play(storage, stored, 15)
            return stored.id

    asyncio.run(build())
    folder = tmp_path / "backups"
    folder.mkdir()
    env = worker_env() | {"DATABASE_PATH": str(db_path)}
    env.pop("DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "bot.storage.sqlite.backup", str(folder)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (written,) = folder.iterdir()  # a folder as DEST: a timestamped file in it
    assert written.name.startswith("skybo-") and written.suffix == ".sqlite3"
    line = done.stdout.strip()
    assert line.startswith(f"backup: wrote {written} (")
    assert "1 game: 1 active" in line and "integrity check of the copy: ok" in line
    assert _rows(written)[1][0] == 15


def test_postgresql_is_refused_with_the_pg_dump_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    monkeypatch.setenv("DATABASE_URL", "postgresql://skybo:s3cret-pw@db:5432/skybo")
    assert main(["nightly.dump"]) == 1
    out = capsys.readouterr()
    assert out.out == ""
    (line,) = out.err.splitlines()
    assert line == (
        "backup: refused: DATABASE_URL is a PostgreSQL database; back it up with pg_dump:"
        ' pg_dump --format=custom --no-owner --file=nightly.dump "$DATABASE_URL"'
    )
    assert "s3cret" not in out.err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("case", ["exists", "no_folder", "itself", "no_source", "not_skybo", "not_sqlite"])
def test_a_bad_destination_or_source_is_refused_in_one_line(
    case: str, db_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async def build() -> None:
        async with await Storage.open(db_path) as storage:
            await new_game(storage)

    asyncio.run(build())
    source, dest = db_path, tmp_path / "copy.sqlite3"
    expected = ""
    if case == "exists":
        dest.write_bytes(b"an older backup")
        expected = "already exists"
    elif case == "no_folder":
        dest = tmp_path / "missing" / "copy.sqlite3"
        expected = "is not a folder"
    elif case == "itself":
        dest = db_path
        expected = "already exists"  # the live file exists: refused before anything else
    elif case == "no_source":
        source = tmp_path / "nothing.sqlite3"
        expected = "no database at"
    elif case == "not_sqlite":
        source = tmp_path / "notes.txt"
        source.write_text("not a database, but long enough to have a header: " * 4)
        expected = "not a SQLite database"
    else:
        source = tmp_path / "other.sqlite3"
        with contextlib.closing(sqlite3.connect(source)) as conn:
            conn.execute("CREATE TABLE t (x)")
        expected = "not a Skybo database"
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert main([str(dest), "--database", str(source)]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("backup: refused: ") and expected in line
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before  # nothing written, nothing overwritten, no partial file left
