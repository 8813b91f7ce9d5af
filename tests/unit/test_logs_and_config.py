"""The token never reaches a log line; settings are validated; the bot explains a missing token."""

from __future__ import annotations

import io
import json
import logging
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import discord
import pytest

from bot.config import ConfigError, load_settings
from bot.logs import QUIET_LOGGERS, KeyValueFormatter, RedactingFilter, setup_logging

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


def test_fake_discord_url_is_off_unless_set_and_must_be_an_address() -> None:
    """FAKE_DISCORD_URL (tests only, docs/deploy.md): unset, the bot talks to Discord; set, to that fake."""
    assert load_settings({}).fake_discord_url is None
    assert load_settings({"FAKE_DISCORD_URL": " "}).fake_discord_url is None
    assert (
        load_settings({"FAKE_DISCORD_URL": "http://fakecord:8080/"}).fake_discord_url
        == "http://fakecord:8080"
    )
    for bad in ("fakecord:8080", "ftp://fakecord", "http://fakecord:8080/api/v10", "http://a b"):
        with pytest.raises(ConfigError, match="FAKE_DISCORD_URL must be"):
            load_settings({"FAKE_DISCORD_URL": bad})


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


# --- issue 23 item 4: tokens and message contents never reach a log line, whatever the level --------

INTERACTION_TOKEN = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5OnNlY3JldA-0123456789abcdef"


def _record(name: str, msg: str, *args: object, **extra: object) -> logging.LogRecord:
    return logging.makeLogRecord({"name": name, "levelname": "DEBUG", "msg": msg, "args": args, **extra})


@pytest.mark.parametrize(
    "text",
    [
        f"POST https://discord.com/api/v10/interactions/1234/{INTERACTION_TOKEN}/callback has returned 204",
        f"PATCH https://discord.com/api/v10/webhooks/1234/{INTERACTION_TOKEN}/messages/%40original",
        f"{{'id': '1', 'token': '{INTERACTION_TOKEN}', 'version': 1}}",
        f'{{"id":"1","token":"{INTERACTION_TOKEN}","version":1}}',
        f"answer sent token={INTERACTION_TOKEN}&wait=true",
        f"Authorization: Bot {TOKEN}",
    ],
)
def test_interaction_tokens_are_redacted_in_any_text_without_being_listed(text: str) -> None:
    """Interaction tokens come with each click, so they cannot be listed: their places are known."""
    line = _format(_record("bot.ui.clicks", "answered %s", text))
    assert INTERACTION_TOKEN not in line and TOKEN not in line and "[redacted]" in line


def test_tokens_are_redacted_in_fields_and_tracebacks() -> None:
    try:
        raise RuntimeError(f"400, url='https://discord.com/api/v10/webhooks/1/{INTERACTION_TOKEN}'")
    except RuntimeError:
        record = _record("bot.ui.presenter", "edit failed", webhook_token=INTERACTION_TOKEN)
        record.exc_info = sys.exc_info()
    line = _format(record)
    assert INTERACTION_TOKEN not in line
    assert "webhook_token=[redacted]" in line and "webhooks/1/[redacted]" in line and "RuntimeError" in line


def test_a_gateway_event_is_logged_by_its_name_not_its_payload() -> None:
    """discord.py logs each gateway event at DEBUG: the line says which event it was, nothing of it."""
    panel = "Your hand — Skip-Bo"
    frame = {
        "op": 0,
        "t": "INTERACTION_CREATE",
        "s": 42,
        "d": {"token": INTERACTION_TOKEN, "message": {"content": panel, "components": [{"label": "7"}]}},
    }
    line = _format(_record("discord.gateway", "For Shard ID %s: WebSocket Event: %s", None, frame))
    assert line.endswith("discord.gateway For Shard ID None: WebSocket Event: op=0 t=INTERACTION_CREATE s=42")
    # A request body given as JSON text, and a discord.ui component (its repr shows its label).
    body = json.dumps({"content": panel})
    line = _format(_record("discord.http", "%s %s with %s has returned %s", "POST", "/x", body, 200))
    assert panel not in line and "<json: " in line
    button = discord.ui.Button(label="Hand card 7")
    line = _format(_record("discord.ui.view", "Ignoring exception in view %r for item %r", None, button))
    assert "Hand card 7" not in line and "<Button>" in line
    # Our own records keep their arguments (they never carry a payload).
    assert _format(_record("bot.service", "seats %s", [1, 2])).endswith("seats [1, 2]")


def test_setup_logging_keeps_payload_loggers_quiet_and_our_debug_lines() -> None:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    quiet = {name: logging.getLogger(name).level for name in QUIET_LOGGERS}
    stream = io.StringIO()
    try:
        setup_logging("DEBUG", secrets=[TOKEN], stream=stream)
        logging.getLogger("discord.http").debug("POST /x with %s has returned 200", '{"content": "7"}')
        logging.getLogger("aiosqlite").debug("executing %s", "partial(execute, 'INSERT', (1, 'state'))")
        logging.getLogger("bot.service").debug("timer armed", extra={"game_id": 3})
        logging.getLogger("discord.client").debug("Dispatching event %s", "interaction")
        logging.getLogger("bot.run").info("token %s", TOKEN)
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        for name, was in quiet.items():
            logging.getLogger(name).setLevel(was)
    lines = stream.getvalue().splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == [
        "DEBUG bot.service timer armed game_id=3",
        "DEBUG discord.client Dispatching event interaction",
        "INFO bot.run token [redacted]",
    ]
