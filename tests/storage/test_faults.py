"""Crashes and a second process: SIGKILL at random moments loses no acknowledged action, corrupts
nothing, and play goes on; a second writer is refused (another bot) or waits (a tool), and a
lock held too long surfaces as DatabaseBusy, never as a raw "database is locked"."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from bot.games.skyjo import engine as skyjo
from bot.storage import Seat, Storage
from bot.storage.games import canonical_json, snapshot_hash
from tests.storage.conftest import REPO, worker_command, worker_env

KILLS = 24
GAMES = 6


def _check_database(path: Path, acked: dict[tuple[int, int], tuple[int, str]]) -> tuple[int, int]:
    """Every acknowledged action is there; every game's snapshot equals a replay of its log."""
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        log = {
            (g, seq): (seat, action)
            for g, seq, seat, action in conn.execute("SELECT game_id, seq, seat, action FROM game_actions")
        }
        missing = [key for key in acked if log.get(key) != acked[key]]
        assert missing == [], f"acknowledged actions lost: {missing[:5]}"
        games = conn.execute(
            "SELECT id, seed, options, version, snapshot, snapshot_hash, status FROM games"
        ).fetchall()
        active = 0
        for game_id, seed, options, version, snapshot, digest, status in games:
            seats = [
                Seat(s, name, user, level)
                for s, user, level, name in conn.execute(
                    "SELECT seat, user_id, ai_level, display_name FROM game_seats"
                    " WHERE game_id = ? ORDER BY seat",
                    (game_id,),
                )
            ]
            actions = sorted((seq, seat, a) for (g, seq), (seat, a) in log.items() if g == game_id)
            assert [a[0] for a in actions] == list(range(1, len(actions) + 1))
            assert version == len(actions)
            replayed = skyjo.replay(
                [s.engine_name for s in seats],
                seed,
                skyjo.Options.from_dict(json.loads(options)),
                [(seat, skyjo.action_from_dict(json.loads(a))) for _, seat, a in actions],
            )
            assert canonical_json(replayed.to_dict()) == snapshot, f"game {game_id} snapshot != replay"
            assert snapshot_hash(snapshot) == digest
            assert status in ("active", "finished")
            assert replayed.is_over == (status == "finished")
            active += status == "active"
        finished_with_results = conn.execute("SELECT count(DISTINCT game_id) FROM game_results").fetchone()[0]
        assert finished_with_results == sum(1 for g in games if g[6] == "finished")
        return active, len(games)


def test_sigkill_at_random_moments_loses_no_acknowledged_action(tmp_path: Path) -> None:
    path = tmp_path / "fault.sqlite3"
    rng = random.Random(20240605)
    acked: dict[tuple[int, int], tuple[int, str]] = {}
    last_version: dict[int, int] = {}
    finished: set[int] = set()
    resumed = 0  # acknowledged actions in games that existed before the last kill
    kills = 0
    # Each life plays a drawn number of acknowledged actions, not a drawn time: how far play gets does
    # not depend on the machine's speed (a loaded run once finished no game in 24 timed lives). The
    # last life plays until a game finishes, on everything the kills left.
    while kills <= KILLS:
        last_life = kills == KILLS
        proc = subprocess.Popen(
            worker_command("fault_worker.py", path, kills + 1, GAMES),
            cwd=REPO,
            env=worker_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        read: list[str] = []  # the lines read before the kill
        if kills % 4 == 3 and not last_life:
            time.sleep(rng.uniform(0.0, 0.4))  # anywhere: during start, load, repair or play
        else:
            line = proc.stdout.readline()
            assert line.startswith("LOADED"), line + proc.stderr.read() if proc.stderr else ""
            assert "quarantined=0" in line, line
            acks = rng.randint(5, 45)  # then killed while it plays: mostly mid-commit
            while line and (acks > 0 or (last_life and not line.startswith("FIN"))):
                line = proc.stdout.readline()
                read.append(line)
                acks -= line.startswith("ACK")
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == -signal.SIGKILL, err
        assert "Traceback" not in err, err
        kills += 1
        for line in "".join([*read, out]).splitlines(keepends=True):
            if not line.endswith("\n"):
                continue  # cut off mid-line by the kill: not an acknowledgement
            parts = line.split(" ", 4)
            if parts[0] == "ACK":
                game_id, version, seat = int(parts[1]), int(parts[2]), int(parts[3])
                previous = last_version.get(game_id)
                if previous is not None:
                    # play resumes from the durable state: never behind what was acknowledged
                    assert version > previous, (game_id, previous, version)
                    resumed += 1
                last_version[game_id] = version
                acked[(game_id, version)] = (seat, parts[4].rstrip("\n"))
            elif parts[0] == "FIN":
                finished.add(int(parts[1].strip()))
        active, _ = _check_database(path, acked)
        assert active <= GAMES
    assert kills >= 20
    assert len(acked) > 200, len(acked)
    assert resumed > 50, "play did not go on after restarts"
    assert finished, "no game finished"
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM ratings WHERE scope = 0").fetchone()[0] > 0


# ------------------------------------------------------------------------------------------ second writer


def _spawn(*args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        worker_command("writer_worker.py", *args),
        cwd=REPO,
        env=worker_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def test_a_second_bot_process_is_refused(db_path: Path) -> None:
    async with await Storage.open(db_path):
        proc = _spawn("open", db_path)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 3, err
        assert out.startswith("REFUSED DatabaseInUse") and "another process" in out
    proc = _spawn("open", db_path)  # once the bot has closed it, the file is free
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and out.startswith("OPENED"), err


def _hold_write_lock(path: Path, proc: subprocess.Popen[str], seconds: float) -> None:
    """Take the write lock once the other process is about to write, and keep it ``seconds``."""
    assert proc.stdout is not None and proc.stdin is not None
    assert proc.stdout.readline().strip() == "STARTING"
    with sqlite3.connect(path, isolation_level=None) as conn:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE games SET updated_at = updated_at")
        proc.stdin.write("go\n")
        proc.stdin.flush()
        time.sleep(seconds)
        conn.execute("COMMIT")


async def test_a_second_writer_waits_for_the_lock(db_path: Path) -> None:
    async with await Storage.open(db_path) as storage:
        proc = _spawn("write", db_path, 555, 5000)
        _hold_write_lock(db_path, proc, 0.6)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert out.startswith("OK ")
        assert float(out.split()[1]) >= 0.4  # it waited on busy_timeout instead of failing
        assert await storage.games.active_in_channel(555) is not None


async def test_a_lock_held_too_long_is_a_clear_busy_error(db_path: Path) -> None:
    async with await Storage.open(db_path) as storage:
        proc = _spawn("write", db_path, 556, 200)
        _hold_write_lock(db_path, proc, 1.2)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 4, err
        assert out.startswith("BUSY DatabaseBusy: the database stayed busy for more than 200 ms")
        assert "database is locked" not in out + err and "Traceback" not in err
        assert await storage.games.active_in_channel(556) is None  # and it wrote nothing
