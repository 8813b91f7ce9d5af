"""The fair-use settings (issue 23): MAX_TABLES_PER_USER, MAX_TABLES_PER_SERVER, TABLE_COOLDOWN_SECONDS."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import ConfigError, Limits, load_settings


def test_defaults_when_unset_or_empty() -> None:
    assert load_settings({}).limits == Limits(per_user=3, per_server=50, cooldown_seconds=10)
    empty = {"MAX_TABLES_PER_USER": "", "MAX_TABLES_PER_SERVER": " ", "TABLE_COOLDOWN_SECONDS": ""}
    assert load_settings(empty).limits == Limits()
    assert Limits() == Limits(3, 50, 10)  # what a bot built without settings (tests, sandbox) gets


def test_values_are_read_and_zero_turns_a_limit_off() -> None:
    env = {"MAX_TABLES_PER_USER": " 5 ", "MAX_TABLES_PER_SERVER": "200", "TABLE_COOLDOWN_SECONDS": "30"}
    assert load_settings(env).limits == Limits(per_user=5, per_server=200, cooldown_seconds=30)
    off = {"MAX_TABLES_PER_USER": "0", "MAX_TABLES_PER_SERVER": "0", "TABLE_COOLDOWN_SECONDS": "0"}
    assert load_settings(off).limits == Limits.none() == Limits(0, 0, 0)


@pytest.mark.parametrize("name", ["MAX_TABLES_PER_USER", "MAX_TABLES_PER_SERVER", "TABLE_COOLDOWN_SECONDS"])
@pytest.mark.parametrize("value", ["three", "2.5", "1e3", "0x10", "10s"])
def test_a_value_that_is_not_a_whole_number_is_refused_with_its_name(name: str, value: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings({name: value})
    assert str(info.value).startswith(f"{name} must be a whole number")


@pytest.mark.parametrize("name", ["MAX_TABLES_PER_USER", "MAX_TABLES_PER_SERVER", "TABLE_COOLDOWN_SECONDS"])
def test_a_negative_value_is_refused_with_its_name(name: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings({name: "-1"})
    assert str(info.value) == f"{name} must be 0 (no limit) or more, not -1"


def test_the_limits_are_in_the_settings_repr() -> None:
    text = repr(load_settings({"MAX_TABLES_PER_USER": "4"}))
    assert "per_user=4" in text and "per_server=50" in text and "cooldown_seconds=10" in text


def test_the_bot_stops_on_a_bad_value_with_one_line(tmp_path: Path) -> None:
    """``python -m bot`` reads the limits before anything else (even before asking for the token)."""
    env = {"PATH": "/usr/bin:/bin", "DISCORD_TOKEN": "", "MAX_TABLES_PER_SERVER": "lots"}
    out = subprocess.run(
        [sys.executable, "-m", "bot"], capture_output=True, text=True, env=env, cwd=str(tmp_path), check=False
    )
    assert out.returncode == 2
    assert (
        out.stderr
        == "configuration error: MAX_TABLES_PER_SERVER must be a whole number (0 for no limit), not 'lots'\n"
    )
