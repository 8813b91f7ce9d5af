"""The token never reaches a log line; settings are validated; the bot explains a missing token."""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from bot.config import ConfigError, load_settings
from bot.logs import KeyValueFormatter, RedactingFilter

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.fake-token-for-tests-0123456789"


def _format(record: logging.LogRecord) -> str:
    RedactingFilter([TOKEN]).filter(record)
    return KeyValueFormatter().format(record)


def test_token_is_scrubbed_from_messages_arguments_and_fields() -> None:
    record = logging.makeLogRecord(
        {
            "name": "x",
            "levelname": "INFO",
            "msg": "connecting with %s",
            "args": (TOKEN,),
            "header": f"Bot {TOKEN}",
        }
    )
    line = _format(record)
    assert TOKEN not in line
    assert "connecting with [redacted]" in line and "header='Bot [redacted]'" in line


def test_fields_are_printed_as_key_values() -> None:
    record = logging.makeLogRecord(
        {"name": "bot.service", "levelname": "INFO", "msg": "move applied", "game": 12, "seat": 1}
    )
    assert _format(record).endswith("bot.service move applied game=12 seat=1")


def test_settings_repr_never_shows_the_token() -> None:
    settings = load_settings({"DISCORD_TOKEN": TOKEN})
    assert TOKEN not in repr(settings) and "token=set" in repr(settings)


@pytest.mark.parametrize("env", [{"SQLITE_SYNCHRONOUS": "sometimes"}, {"LOG_LEVEL": "LOUD"}])
def test_bad_settings_are_refused_with_a_reason(env: dict[str, str]) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(env)
    assert "must be one of" in str(info.value)


def test_defaults() -> None:
    settings = load_settings({})
    assert str(settings.database_path).endswith("skybo.sqlite3")
    assert settings.synchronous == "FULL" and settings.token is None


def test_running_without_a_token_exits_with_instructions(tmp_path: object) -> None:
    env = {"PATH": "/usr/bin:/bin", "DISCORD_TOKEN": ""}
    out = subprocess.run(
        [sys.executable, "-m", "bot"], capture_output=True, text=True, env=env, cwd=str(tmp_path), check=False
    )
    assert out.returncode == 2
    assert "DISCORD_TOKEN is not set" in out.stderr and ".env" in out.stderr


def test_make_run_without_a_token_starts_the_sandbox_and_says_so_first(tmp_path: Path) -> None:
    """``make run`` is ``python -m bot run --sandbox-without-token``: no token, the local sandbox."""
    env = {"PATH": "/usr/bin:/bin", "DISCORD_TOKEN": "", "LOG_LEVEL": "WARNING"}
    database = tmp_path / "data" / "sandbox.sqlite3"
    command = [sys.executable, "-m", "bot", "run", "--sandbox-without-token", "--port", "0"]
    process = subprocess.Popen(
        [*command, "--database", str(database)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=str(tmp_path),
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("DISCORD_TOKEN is not set: starting the local sandbox instead"), first
        ready = ""
        while not ready.startswith("Ready: open "):
            ready = process.stdout.readline()
            assert ready, "the sandbox stopped before it was ready"
        url = ready.split()[2]
        with urllib.request.urlopen(url, timeout=5) as page:
            assert "Skybo sandbox" in page.read().decode()
        assert database.exists()  # the bot opened its database under data/
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=15) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
