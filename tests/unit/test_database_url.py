"""``DATABASE_URL`` chooses the backend: ``sqlite:///path`` (the default, from ``DATABASE_PATH``) or
``postgresql://...``; a bad URL or a server that cannot be reached stops ``python -m bot run`` with one
line that names the host and the database and never the password (issue 24 item 2)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import ConfigError, load_settings, shown_url

TOKEN = "MTIzNDU2Nzg5.dummy-token.never-printed-anywhere"
PASSWORD = "s3cret-pw-never-shown"


def test_sqlite_urls_set_the_path_and_postgresql_urls_are_kept() -> None:
    assert load_settings({}, dotenv=False).database_url is None
    relative = load_settings({"DATABASE_URL": "sqlite:///games/skybo.sqlite3"}, dotenv=False)
    assert relative.database_url is None and relative.database_path == Path("games/skybo.sqlite3")
    absolute = load_settings({"DATABASE_URL": "sqlite:////srv/skybo.sqlite3"}, dotenv=False)
    assert absolute.database_path == Path("/srv/skybo.sqlite3")
    url = f"postgresql://skybo:{PASSWORD}@db.example:5432/skybo"
    settings = load_settings({"DATABASE_URL": url}, dotenv=False)
    assert settings.database_url == url
    assert PASSWORD not in repr(settings) and "skybo:***@db.example:5432/skybo" in repr(settings)
    assert load_settings({"DATABASE_URL": "postgres://h/db"}, dotenv=False).database_url == "postgres://h/db"


@pytest.mark.parametrize("url", ["mysql://u:p@h/db", "sqlite:///", "skybo.sqlite3", "http://x"])
def test_a_bad_database_url_is_refused_with_a_reason(url: str) -> None:
    with pytest.raises(ConfigError, match="DATABASE_URL") as refused:
        load_settings({"DATABASE_URL": url}, dotenv=False)
    assert ":p@" not in str(refused.value)


def test_shown_url_hides_only_the_password() -> None:
    assert shown_url(f"postgresql://me:{PASSWORD}@h:1/db") == "postgresql://me:***@h:1/db"
    assert shown_url("postgresql://me@h/db") == "postgresql://me@h/db"
    assert shown_url(None) is None


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # closed again when the block ends: nothing listens there


def test_an_unreachable_postgresql_stops_the_start_with_one_line_without_the_password(tmp_path: Path) -> None:
    port = _closed_port()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DISCORD_TOKEN": TOKEN,
        "DATABASE_URL": f"postgresql://skybo:{PASSWORD}@127.0.0.1:{port}/skybo_games",
    }
    result = subprocess.run(
        [sys.executable, "-m", "bot", "run"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    lines = result.stderr.splitlines()
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("storage error: "), lines[0]
    assert f"127.0.0.1:{port}" in lines[0] and "skybo_games" in lines[0], lines[0]
    everything = result.stderr + result.stdout
    assert PASSWORD not in everything and TOKEN not in everything and "Traceback" not in everything
    assert not (tmp_path / "data").exists()  # no SQLite file made on the side
