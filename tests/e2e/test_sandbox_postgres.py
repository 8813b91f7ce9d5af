"""The sandbox on PostgreSQL (``DATABASE_URL=postgresql://... make run`` without a token): a whole
Skyjo game stored in PostgreSQL, across a "Restart bot" with the old buttons still working; its own
schema, emptied at each start, never the bot's tables; one clear line for wrong credentials."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

from bot.sandbox.run import bot_factory
from bot.sandbox.server import Sandbox
from bot.service.ledger import GameLedger
from bot.storage import sandbox as sandbox_storage
from devtools.pgserver import PASSWORD_ROLE, PostgresServer
from tests.conftest import PgDatabase

from .conftest import act_of, button, open_panel, play_turns, start_table, until_turn

REPO = Path(__file__).resolve().parents[2]


def rows(url: str, sql: str) -> list[Any]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql).fetchall()


async def test_a_whole_skyjo_game_in_the_sandbox_is_stored_in_postgresql_and_survives_a_restart(
    pg_database: PgDatabase, tmp_path: Path
) -> None:
    url = pg_database.tcp_dsn
    # A bot's own game in the same database (schema public), which the sandbox must never touch.
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE games (id BIGINT PRIMARY KEY, status TEXT)")
        conn.execute("INSERT INTO games VALUES (1, 'active')")
    where = await sandbox_storage.fresh(tmp_path / "unused.sqlite3", url)
    assert where.endswith("schema skybo_sandbox") and pg_database.name in where

    factory = bot_factory(
        tmp_path / "unused.sqlite3",
        sandbox_storage.postgres_url(url),
        ai_delay=0.0,
        round_delay=30.0,
        edit_interval=0.0,
    )
    running = Sandbox(factory, port=0)
    await running.start()
    try:
        fake = running.fake
        alice, bob = fake.user("alice"), fake.user("bob")
        rng = random.Random(11)
        first = running.bot
        assert "PostgreSQL" in first.storage.db.where
        table_message, game_id = await start_table(fake, first, alice, [bob], score_limit=20, computers=1)
        table = await until_turn(fake, first, game_id, table_message, alice, rng)
        old_panel = await open_panel(fake, alice, table_message)
        version_before, state_before = table.version, table.state.to_dict()

        # "Restart bot": a new bot on the same PostgreSQL schema; the game is there, in the same state.
        await running.restart_bot()
        second = running.bot
        assert second is not first
        table = second.service.tables[game_id]
        assert table.version == version_before and table.state.to_dict() == state_before
        await fake.wait_until(lambda: "live again" in table_message.text, what="the table live again")

        # The panel drawn before the restart still works, and so does the table message's button.
        inter = await fake.click(alice, old_panel, button(old_panel, "dr"))
        assert (await inter.answer()).id == old_panel.id
        assert table.version == version_before + 1
        assert any(act_of(c) == "rp" for c in old_panel.custom_ids)
        await play_turns(fake, second, game_id, table_message, [alice, bob], rng)
        stored = await GameLedger(second.service.storage).get_game(game_id, verify=True)
        assert stored.status == "finished" and stored.verified
    finally:
        await running.stop()
        assert not running.problems, running.problems

    # Stored in the sandbox's schema of the PostgreSQL database, with its log and its results.
    scoped = sandbox_storage.postgres_url(url)
    assert rows(scoped, f"SELECT status, version FROM games WHERE id = {game_id}") == [
        ("finished", stored.version)
    ]
    assert rows(scoped, f"SELECT count(*) FROM game_actions WHERE game_id = {game_id}") == [(stored.version,)]
    assert rows(scoped, f"SELECT count(*) FROM game_results WHERE game_id = {game_id}") == [(3,)]
    assert rows(url, "SELECT id, status FROM public.games") == [(1, "active")]
    # The next start empties the sandbox's schema only.
    await sandbox_storage.fresh(tmp_path / "unused.sqlite3", url)
    assert rows(scoped, "SELECT count(*) FROM games") == [(0,)]
    assert rows(url, "SELECT id, status FROM public.games") == [(1, "active")]


def _stopped_output(process: subprocess.Popen[str], grace: float = 30.0) -> str:
    """The rest of ``process``'s output once it exits after the SIGINT just sent. One still running
    ``grace`` seconds later is a failure that says where it was stuck: SIGABRT makes its fault handler
    (PYTHONFAULTHANDLER, set by :func:`_make_run`) print every thread's stack before it dies."""
    try:
        out, _ = process.communicate(timeout=grace)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        out, _ = process.communicate(timeout=30)
        raise AssertionError(f"the sandbox did not stop within {grace} s of Ctrl+C:\n{out}") from None
    return out


def _make_run(database_url: str, tmp_path: Path) -> subprocess.Popen[str]:
    """``make run`` without a token: ``python -m bot run --sandbox-without-token`` (the Makefile's line)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "PYTHONPATH": str(REPO),
        "DATABASE_URL": database_url,
        "PYTHONFAULTHANDLER": "1",  # a stuck stop is diagnosed (_stopped_output)
    }
    return subprocess.Popen(
        [sys.executable, "-m", "bot", "run", "--sandbox-without-token", "--port", "0"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_make_run_without_a_token_starts_the_sandbox_on_database_url(
    pg_server: PostgresServer, pg_database: PgDatabase, pg_password: str, tmp_path: Path
) -> None:
    url = pg_server.dsn(pg_database.name, user=PASSWORD_ROLE, password=pg_password, tcp=True)
    process = _make_run(url, tmp_path)
    assert process.stdout is not None
    seen: list[str] = []
    deadline = time.monotonic() + 60
    try:
        for line in process.stdout:
            seen.append(line)
            if line.startswith("Ready: open http://") or time.monotonic() > deadline:
                break
    finally:
        process.send_signal(signal.SIGINT)
        out = _stopped_output(process)
    output = "".join(seen) + out
    assert process.returncode == 0, output
    assert any(line.startswith("Ready: open http://") for line in seen), output
    database_line = next(line for line in seen if line.startswith("Database: "))
    assert f"PostgreSQL database '{pg_database.name}' on 127.0.0.1:{pg_server.port}" in database_line
    assert "schema skybo_sandbox (emptied at each start)" in database_line
    assert pg_password not in output and "Traceback" not in output
    assert not (tmp_path / "data").exists()  # no SQLite file on the side
    tables = rows(
        pg_server.dsn(pg_database.name),
        "SELECT count(*) FROM pg_tables WHERE schemaname = 'skybo_sandbox'",
    )
    assert tables[0][0] >= 8


def test_make_run_with_wrong_credentials_stops_with_one_line(
    pg_server: PostgresServer, pg_database: PgDatabase, pg_password: str, tmp_path: Path
) -> None:
    wrong = pg_password + "x"
    process = _make_run(
        pg_server.dsn(pg_database.name, user=PASSWORD_ROLE, password=wrong, tcp=True), tmp_path
    )
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 2, out
    errors = [line for line in out.splitlines() if line.startswith("storage error: ")]
    assert len(errors) == 1, out
    assert "refused the credentials of skybo_password" in errors[0] and pg_database.name in errors[0]
    assert wrong not in out and "Traceback" not in out
