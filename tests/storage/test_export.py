"""`python -m bot export-game ID` and `python -m bot replay FILE`: any stored game reproduces."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.service.replay_file import main_replay
from bot.storage import Storage
from bot.storage.export import main_export
from tests.storage.conftest import REPO, new_game, play, worker_env


def _stored_game(db_path: Path, moves: int) -> tuple[int, dict]:
    async def build() -> tuple[int, dict]:
        async with await Storage.open(db_path) as storage:
            stored = await new_game(storage)
            await play(storage, stored, moves, seed=5)
            return stored.id, stored.state.results()

    return asyncio.run(build())


def test_export_game_cli_prints_the_game_as_json(db_path: Path) -> None:
    game_id, _ = _stored_game(db_path, 25)
    env = worker_env() | {"DATABASE_PATH": str(db_path)}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "export-game", str(game_id)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    exported = json.loads(done.stdout)
    assert exported["kind"] == "skyjo" and exported["seed"] == 100 * 7 + 1
    assert exported["options"]["score_limit"] == 100
    assert [p["display_name"] for p in exported["players"]] == ["Alice", "Computer (hard)"]
    assert [a["seq"] for a in exported["actions"]] == list(range(1, 26))
    assert all(isinstance(a["action"], dict) and "type" in a["action"] for a in exported["actions"])


def test_replay_rebuilds_the_game_and_prints_each_step(
    db_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game_id, results = _stored_game(db_path, 40)
    assert main_export([str(game_id), "--database", str(db_path)]) == 0
    export_file = tmp_path / "game.json"
    export_file.write_text(capsys.readouterr().out)
    assert main_replay([str(export_file)]) == 0
    out = capsys.readouterr().out
    action_lines = [line for line in out.splitlines() if line.startswith("#")]
    assert len(action_lines) == 40
    assert action_lines[0].startswith("#1 seat ") and "(Alice)" in out
    assert "card_revealed" in out  # the events, in words
    final = next(line for line in out.splitlines() if line.startswith("results: "))
    assert json.loads(final.removeprefix("results: ")) == results
    assert "matches the stored snapshot" in out
    # --json prints the events as JSON
    assert main_replay([str(export_file), "--json"]) == 0
    assert '{"type": "card_revealed"' in capsys.readouterr().out


def test_replay_reports_a_refused_action_and_a_wrong_state(
    db_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game_id, _ = _stored_game(db_path, 10)
    assert main_export([str(game_id), "--database", str(db_path)]) == 0
    exported = json.loads(capsys.readouterr().out)
    altered = dict(exported, snapshot_hash="0" * 32)
    (tmp_path / "altered.json").write_text(json.dumps(altered))
    assert main_replay([str(tmp_path / "altered.json")]) == 0
    assert "DIFFERS" in capsys.readouterr().out
    broken = dict(
        exported,
        actions=[*exported["actions"], {"seq": 11, "seat": 0, "action": {"type": "reveal", "pos": 99}}],
    )
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    assert main_replay([str(tmp_path / "broken.json")]) == 1
    assert "#11 seat 0 (Alice): reveal pos=99 -> REFUSED" in capsys.readouterr().out


def test_export_of_a_missing_game_or_database(
    db_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _stored_game(db_path, 1)
    assert main_export(["999", "--database", str(db_path)]) == 1
    assert "game 999 does not exist" in capsys.readouterr().err
    assert main_export(["1", "--database", str(tmp_path / "nope.sqlite3")]) == 1
    assert not (tmp_path / "nope.sqlite3").exists()  # a read-only tool creates nothing
    assert main_replay([str(tmp_path / "missing.json")]) == 2
