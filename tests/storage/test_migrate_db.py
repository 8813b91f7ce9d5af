"""``python -m bot migrate-db``: a SQLite database moved into PostgreSQL (issue 24, "Moving an existing
server"), against the real local server of ``tests/conftest.py``.

One SQLite database is built per module (finished rated games on two servers, active games mid-play, an
empty active game, an open and a started lobby, a cancelled and a quarantined game) and copied into a
fresh PostgreSQL database per test. The source is only ever read, so the tests share it.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bot.service.ledger import GameLedger, replay_log
from bot.storage import ChannelBusy, Seat, ServerSettings, Storage, UserPrefs, user_key
from bot.storage.export import main_export
from bot.storage.games import snapshot_hash
from bot.storage.lobbies import LobbySeat
from bot.storage.migrate import main
from bot.storage.postgres.database import PostgresDatabase, apply_migrations, load_migrations
from tests.conftest import PgDatabase
from tests.storage.conftest import REPO, new_game, play, play_to_end, worker_env

PASSWORD = "s3cret-Pa55word"
KEY = 1_400_000_000_000_000_077  # an interaction id (a Discord snowflake)
TABLES = (
    "games",
    "game_seats",
    "game_actions",
    "game_results",
    "storage_state",
    "ratings",
    "rating_boards",
    "rating_history",
    "lobbies",
    "server_settings",
    "user_prefs",
    "activity_peers",
    "seasons",
    "tournaments",
    "tournament_players",
    "tournament_tables",
)


def _seats(*users: int, level: str = "hard") -> list[Seat]:
    humans = [Seat(i, f"User {u}", user_id=u) for i, u in enumerate(users)]
    return [*humans, Seat(len(users), f"Computer ({level})", ai_level=level)]


async def _build(path: Path) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    async with await Storage.open(path, synchronous="FULL") as storage:
        await storage.seasons.start(1, "Spring", 11, now=1)  # its games rated in its scope too (0008)
        for i, (guild, users) in enumerate([(1, (11, 12)), (1, (11, 13)), (2, (12,))]):
            game = await new_game(storage, channel=100 + i, guild=guild, seats=_seats(*users))
            await play_to_end(storage, game, seed=i)
        await storage.seasons.end(1, 11, now=2)  # with its podium
        await storage.seasons.start(1, "Summer", 11, now=3)  # running at the copy
        await storage.settings.save(
            1, ServerSettings(turn_limit=30, channels=(100, 101), language="fr", tournament_role=2**62 + 1)
        )
        await storage.prefs.save(11, UserPrefs(notify=False, cards="colourblind"))
        await storage.peers.advertise(2, [0, 1], "http://bot:8080")  # a fleet's leftover: copied as is
        active = []
        for i in range(2):
            game = await new_game(storage, channel=200 + i, guild=1, seats=_seats(11 + i))
            await play(storage, game, 12 + i, seed=10 + i)
            active.append(game.id)
        # A click's action carries its interaction id, the idempotency key (migration 0006).
        seat = game.state.seats_to_act()[0]
        await GameLedger(storage).apply_action(game, seat, game.state.legal_actions(seat)[0], key=KEY)
        facts["keyed"] = (game.id, game.version)
        empty = await new_game(storage, channel=210, guild=None, seats=_seats(14))
        active.append(empty.id)
        cancelled = await new_game(storage, channel=220, guild=1)
        await play(storage, cancelled, 5, seed=3)
        await storage.games.cancel_game(cancelled.id, "stopped by the host")
        broken = await new_game(storage, channel=230, guild=1)
        await play(storage, broken, 3, seed=4)
        await storage.games.quarantine(broken.id, "log_replay_failed:test")
        started = await storage.lobbies.create(
            guild_id=1, channel_id=240, kind="skyjo", host_id=11, options={}, seats=[LobbySeat("User 11", 11)]
        )
        dealt = await new_game(storage, channel=240, guild=1, seats=_seats(11))
        await storage.lobbies.close(started, "started", dealt.id)
        active.append(dealt.id)
        lobby = await storage.lobbies.create(
            guild_id=1,
            channel_id=300,
            kind="skyjo",
            host_id=12,
            options={"score_limit": 50},
            seats=[LobbySeat("User 12", 12), LobbySeat("Computer (easy)", ai_level="easy")],
        )
        cup = await storage.tournaments.create(
            guild_id=1, channel_id=400, organiser_id=11, kind="skyjo", format="swiss", seats=2, rounds=2,
            turn_limit=None, starts_at=None, seed=5, rated=True, computers=False,
        )  # fmt: skip
        for user in (11, 12, 13):
            cup = await storage.tournaments.join(cup, user, f"User {user}")
        cup = await storage.tournaments.seat_round(cup, 1, [(11, 12)], [13])
        table = (await storage.tournaments.tables(cup.id))[0]
        await storage.tournaments.table_ended(
            await storage.tournaments.table_playing(table, 401, dealt.id), [(11, 1), (12, 2)]
        )
        await GameLedger(storage).load_active()  # records the engine fingerprints in storage_state
        facts.update(
            empty=empty.id, active=active, lobby=lobby.id, cancelled=cancelled.id, quarantined=broken.id
        )
    return facts


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    path = tmp_path_factory.mktemp("migrate") / "skybo.sqlite3"
    facts = asyncio.run(_build(path))
    return path, facts


def _with_password(dsn: str) -> str:
    """The URL with a password. The test server trusts local connections (devtools/pgserver.py), so
    the server never asks for it: it only has to stay out of everything printed."""
    assert dsn.startswith("postgresql://skybo@")
    return dsn.replace("skybo@", f"skybo:{PASSWORD}@", 1)


def _norm(value: Any) -> Any:
    return float(value) if isinstance(value, float) else value


def _sqlite_rows(path: Path, table: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True) as conn:
        rows = conn.execute(f"SELECT * FROM {table}").fetchall()
    return sorted((tuple(_norm(v) for v in r) for r in rows), key=repr)


def _pg_rows(dsn: str, table: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(f"SELECT * FROM {table}").fetchall()
    return sorted((tuple(_norm(v) for v in r) for r in rows), key=repr)


def _pg_rows_of(dsn: str, query: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn) as conn:
        return sorted(conn.execute(query).fetchall(), key=repr)


def _pg_everything(dsn: str) -> dict[str, list[tuple[Any, ...]]]:
    with psycopg.connect(dsn) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
                " ORDER BY 1"
            )
        ]
    return {t: _pg_rows(dsn, t) for t in tables}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args), replay_log)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_copies_everything_verifies_it_and_the_games_continue(
    source: tuple[Path, dict[str, Any]], pg_database: PgDatabase, capsys: pytest.CaptureFixture[str]
) -> None:
    path, facts = source
    before = _digest(path)
    url = _with_password(pg_database.dsn)
    code, out, err = _run(capsys, "--from", str(path), "--to", url)
    assert code == 0, err
    assert PASSWORD not in out + err
    assert f"PostgreSQL database '{pg_database.name}'" in out
    assert "games: 4 active, 1 cancelled, 3 finished, 1 quarantined" in out
    assert "8 games replay from their logs to their snapshots" in out
    assert _digest(path) == before  # the source is only read

    with sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True) as conn:
        every = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert every == set(TABLES)  # a table a later migration adds is compared too
    for table in TABLES:
        source_rows = _sqlite_rows(path, table)
        assert source_rows, f"the source's {table} is empty: the test would prove nothing"
        assert _pg_rows(pg_database.dsn, table) == source_rows, table
    keyed_game, keyed_seq = facts["keyed"]
    assert _pg_rows_of(
        pg_database.dsn, "SELECT game_id, seq FROM game_actions WHERE idempotency_key IS NOT NULL"
    ) == [(keyed_game, keyed_seq)]
    assert _pg_rows_of(
        pg_database.dsn,
        f"SELECT idempotency_key FROM game_actions WHERE game_id = {keyed_game} AND seq = {keyed_seq}",
    ) == [(KEY,)]
    printed = {m[1]: int(m[2]) for m in re.finditer(r"^  (\w+) +(\d+) rows$", out, re.MULTILINE)}
    assert printed == {t: len(_sqlite_rows(path, t)) for t in TABLES}
    assert _pg_rows(pg_database.dsn, "rating_boards") == _sqlite_rows(
        path, "rating_boards"
    )  # no double count

    async def continue_on_postgres() -> None:
        async with Storage(await PostgresDatabase.open(pg_database.dsn)) as storage:
            loaded = await GameLedger(storage).load_active()
            assert sorted(g.id for g in loaded.games) == sorted(facts["active"])
            assert loaded.rebuilt == [] and loaded.quarantined == []
            lobby = await storage.lobbies.get(facts["lobby"])
            assert lobby.status == "open" and lobby.options == {"score_limit": 50}
            games = {g.id: g for g in loaded.games}
            first = games[facts["active"][0]]
            version = first.version
            await play(storage, games[facts["active"][1]], 3, seed=99)
            before_board = await storage.ratings.player_stats(user_key(11))
            played_before = {(s.kind, s.scope): s.games for s in before_board}
            assert played_before[("skyjo", 1)] == 2
            await play_to_end(storage, first, seed=7)
            assert first.status == "finished" and first.version > version
            assert first.finished is not None and first.finished.rating_changes
            after_board = await storage.ratings.player_stats(user_key(11))
            assert {(s.kind, s.scope): s.games for s in after_board}[("skyjo", 1)] == 3
            # New rows get ids after the copied ones.
            new = await new_game(storage, channel=500, guild=1)
            assert new.id > max(r[0] for r in _sqlite_rows(path, "games"))
            new_lobby = await storage.lobbies.create(
                guild_id=1, channel_id=501, kind="skyjo", host_id=11, options={}, seats=[LobbySeat("A", 11)]
            )
            assert new_lobby.id > max(r[0] for r in _sqlite_rows(path, "lobbies"))
            # The channel rule holds for the copied games too.
            with pytest.raises(ChannelBusy):
                await new_game(storage, channel=201)
            # A game with a new player ends: the board triggers count them once, on top of the copy.
            await play_to_end(storage, games[facts["empty"]], seed=8)
            assert games[facts["empty"]].finished is not None

    asyncio.run(continue_on_postgres())
    boards = {(k, s): n for k, s, n in _pg_rows(pg_database.dsn, "rating_boards")}
    counted = _pg_rows_of(pg_database.dsn, "SELECT kind, scope, count(*) FROM ratings GROUP BY kind, scope")
    assert boards == {(k, s): n for k, s, n in counted}
    copied_boards = {(k, s): n for k, s, n in _sqlite_rows(path, "rating_boards")}
    # That game has no server (bot.storage.venues): it counts on its channel's own board, a new one
    # holding user 14, and never on the global board.
    assert boards[("skyjo", 0)] == copied_boards[("skyjo", 0)]
    assert ("skyjo", 210) not in copied_boards and boards[("skyjo", 210)] >= 2


def test_a_second_run_or_a_non_empty_target_refuses_and_changes_nothing(
    source: tuple[Path, dict[str, Any]], pg_database: PgDatabase, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = source
    url = _with_password(pg_database.dsn)
    assert _run(capsys, "--from", str(path), "--to", url)[0] == 0
    copied = _pg_everything(pg_database.dsn)
    code, out, err = _run(capsys, "--from", str(path), "--to", url)
    assert code == 1 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "already holds Skybo data" in err and "games: 9" in err
    assert PASSWORD not in err
    assert _pg_everything(pg_database.dsn) == copied


def test_a_target_with_data_of_its_own_refuses_and_keeps_it(
    source: tuple[Path, dict[str, Any]], pg_database: PgDatabase, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = source

    async def own_game() -> int:
        async with Storage(await PostgresDatabase.open(pg_database.dsn)) as storage:
            return (await new_game(storage, channel=900)).id

    game_id = asyncio.run(own_game())
    before = _pg_everything(pg_database.dsn)
    code, out, err = _run(capsys, "--from", str(path), "--to", pg_database.dsn)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "already holds Skybo data (games: 1, game_seats: 2)" in err
    assert _pg_everything(pg_database.dsn) == before
    assert before["games"][0][0] == game_id


def test_an_empty_target_left_unmigrated_when_the_source_is_refused(
    pg_database: PgDatabase, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refusals before the copy: a missing file, a file that is not a Skybo database, an old schema, a
    URL that is not PostgreSQL, a server that refuses the connection. Each is one line, exit 1, and the
    target is not even migrated."""
    url = _with_password(pg_database.dsn)
    not_db = tmp_path / "notes.txt"
    not_db.write_text("hello, not a database\n" * 100)
    foreign = tmp_path / "other.sqlite3"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    old = tmp_path / "old.sqlite3"
    with sqlite3.connect(old) as conn:
        conn.execute("CREATE TABLE games (id INTEGER PRIMARY KEY)")
        conn.execute("PRAGMA user_version = 1")
    untouched = {p: _digest(p) for p in (not_db, foreign, old)}
    wrong_db = _with_password(pg_database.dsn.replace(f"/{pg_database.name}?", "/no_such_db?"))
    cases = [
        (["--from", str(tmp_path / "missing.sqlite3"), "--to", url], "no such file"),
        (["--from", str(not_db), "--to", url], "not a SQLite database"),
        (["--from", str(foreign), "--to", url], "not a Skybo database"),
        (["--from", str(old), "--to", url], "start the bot once on it"),
        (
            ["--from", str(old), "--to", f"mysql://skybo:{PASSWORD}@localhost/skybo"],
            "must be a PostgreSQL URL",
        ),
        (["--from", str(foreign), "--to", f"sqlite:///{foreign}"], "must be a PostgreSQL URL"),
    ]
    for args, expected in cases:
        code, out, err = _run(capsys, *args)
        assert (code, out) == (1, ""), args
        assert err.count("\n") == 1 and expected in err, err
        assert PASSWORD not in err
    assert {p: _digest(p) for p in untouched} == untouched  # opened read-only, never written
    assert _tables(pg_database.dsn) == 0  # not even migrated
    # A real Skybo file but a database the server does not have: one line naming it, no password.
    skybo = tmp_path / "skybo.sqlite3"

    async def make() -> None:
        async with await Storage.open(skybo, synchronous="FULL"):
            pass

    asyncio.run(make())
    code, out, err = _run(capsys, "--from", str(skybo), "--to", wrong_db)
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "'no_such_db'" in err and "no such database" in err
    assert PASSWORD not in err


def test_the_command_line_entry_and_the_default_source(
    source: tuple[Path, dict[str, Any]], pg_database: PgDatabase
) -> None:
    """``python -m bot migrate-db`` is wired, and reads DATABASE_PATH when --from is not given."""
    path, _ = source
    done = subprocess.run(
        [sys.executable, "-m", "bot", "migrate-db", "--to", _with_password(pg_database.tcp_dsn)],
        cwd=REPO,
        env=worker_env() | {"DATABASE_PATH": str(path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    version = len(load_migrations())
    assert f"copying {path} (schema version {version})" in done.stdout and "committed in" in done.stdout
    assert PASSWORD not in done.stdout + done.stderr
    assert len(_pg_rows(pg_database.dsn, "game_actions")) == len(_sqlite_rows(path, "game_actions"))


def test_export_game_reads_a_postgresql_database(
    source: tuple[Path, dict[str, Any]], pg_database: PgDatabase, capsys: pytest.CaptureFixture[str]
) -> None:
    """``export-game --database-url``, or the settings' DATABASE_URL: the same export as from SQLite."""

    path, facts = source
    assert main(["--from", str(path), "--to", pg_database.dsn], replay_log) == 0
    capsys.readouterr()
    game_id = facts["active"][0]
    assert main_export([str(game_id), "--database", str(path)]) == 0
    from_sqlite = capsys.readouterr().out
    assert main_export([str(game_id), "--database-url", _with_password(pg_database.dsn)]) == 0
    captured = capsys.readouterr()
    assert captured.out == from_sqlite and '"game_id": ' + str(game_id) in captured.out
    assert main_export(["99999", "--database-url", _with_password(pg_database.dsn)]) == 1
    err = capsys.readouterr().err
    assert "game 99999 does not exist" in err and PASSWORD not in err
    # Without an option, the settings' DATABASE_URL (as the bot opens it), over TCP here.
    done = subprocess.run(
        [sys.executable, "-m", "bot", "export-game", str(game_id)],
        cwd=REPO,
        env=worker_env() | {"DATABASE_URL": _with_password(pg_database.tcp_dsn), "DATABASE_PATH": "/nowhere"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == from_sqlite


def _tables(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_a_game_that_does_not_replay_fails_the_verification_and_nothing_is_kept(
    source: tuple[Path, dict[str, Any]],
    pg_database: PgDatabase,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, facts = source
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(path.read_bytes())
    with sqlite3.connect(damaged) as conn:
        # Another game's state, with a matching hash: only a replay of the log can tell.
        (other,) = conn.execute("SELECT snapshot FROM games WHERE id = ?", (facts["active"][1],)).fetchone()
        conn.execute(
            "UPDATE games SET snapshot = ?, snapshot_hash = ? WHERE id = ?",
            (other, snapshot_hash(other), facts["active"][0]),
        )
    code, out, err = _run(capsys, "--from", str(damaged), "--to", pg_database.dsn)
    assert code == 1 and "verifying:" in out and "committed" not in out
    assert err.count("\n") == 1 and "did not verify, nothing was kept" in err
    assert f"game {facts['active'][0]}: " in err and "another state than its snapshot" in err
    assert _tables(pg_database.dsn) == 0  # not even the migrations were kept


def test_a_trigger_it_does_not_know_refuses(
    source: tuple[Path, dict[str, Any]], pg_database: PgDatabase, capsys: pytest.CaptureFixture[str]
) -> None:
    """A later migration's trigger could count copied rows twice: refused until DERIVED knows it."""
    path, _ = source
    with psycopg.connect(pg_database.dsn, autocommit=True) as conn:
        apply_migrations(conn, load_migrations())
        conn.execute(
            "CREATE FUNCTION noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$"
        )
        conn.execute(
            "CREATE TRIGGER results_seen AFTER INSERT ON game_results FOR EACH ROW EXECUTE FUNCTION noop()"
        )
    code, out, err = _run(capsys, "--from", str(path), "--to", pg_database.dsn)
    assert (code, out) == (1, "")
    assert "game_results has a trigger (results_seen)" in err
    assert len(_pg_rows(pg_database.dsn, "games")) == 0


def test_a_bot_still_running_on_the_source_does_not_break_the_copy(
    source: tuple[Path, dict[str, Any]],
    pg_database: PgDatabase,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The bot's process lock held and its last writes still in the WAL: the read-only copy runs anyway
    and holds those writes; what the bot writes afterwards is not in it (hence: stop the bot first)."""
    path, facts = source
    running = tmp_path / "running.sqlite3"
    running.write_bytes(path.read_bytes())

    async def with_bot_running() -> int:
        async with await Storage.open(running, synchronous="FULL") as storage:  # holds the file's lock
            loaded = await GameLedger(storage).load_active()
            game = next(g for g in loaded.games if g.id == facts["active"][1])
            await play(storage, game, 4, seed=21)  # in the WAL, not yet checkpointed
            code = main(["--from", str(running), "--to", pg_database.dsn], replay_log)
            await play(storage, game, 2, seed=22)  # after the copy: not in it
            return code

    assert asyncio.run(with_bot_running()) == 0
    assert "verified: " in capsys.readouterr().out
    versions = dict(_pg_rows_of(pg_database.dsn, "SELECT id, version FROM games"))
    assert versions[facts["active"][1]] == _sqlite_version(path, facts["active"][1]) + 4
    assert _sqlite_version(running, facts["active"][1]) == versions[facts["active"][1]] + 2


def _sqlite_version(path: Path, game_id: int) -> int:
    with sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True) as conn:
        return int(conn.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()[0])
