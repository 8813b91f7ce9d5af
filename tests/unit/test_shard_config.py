"""SHARD_COUNT / SHARD_IDS / METRICS_PORT: parsed once at start, every mistake one clear line."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.config import (
    ConfigError,
    Shards,
    format_shard_ids,
    load_settings,
    parse_shard_ids,
    shard_of,
    shards_from,
)

PG = "postgresql://skybo@db/skybo"


def settings(**env: str) -> object:
    return load_settings(env, dotenv=False)


def test_no_shard_setting_runs_every_shard_and_owns_every_guild() -> None:
    shards = load_settings({}, dotenv=False).shards
    assert shards == Shards() and shards.shard_ids is None and not shards.partial
    assert shards.owns(123 << 22) and shards.owns(None)
    assert str(shards) == "all shards"


@pytest.mark.parametrize(
    ("raw", "count", "ids"),
    [
        ("0-3", 4, (0, 1, 2, 3)),
        ("0,2", 4, (0, 2)),
        ("3, 1,1", 4, (1, 3)),
        ("0-1,5", 8, (0, 1, 5)),
        ("7", 8, (7,)),
    ],
)
def test_shard_ids_read_as_ids_and_ranges(raw: str, count: int, ids: tuple[int, ...]) -> None:
    assert parse_shard_ids(raw, count) == ids


@given(
    st.integers(1, 64).flatmap(lambda n: st.tuples(st.just(n), st.sets(st.integers(0, n - 1), min_size=1)))
)
def test_formatted_ids_read_back_the_same(case: tuple[int, set[int]]) -> None:
    count, ids = case
    text = format_shard_ids(tuple(sorted(ids)))
    assert parse_shard_ids(text, count) == tuple(sorted(ids))


@pytest.mark.parametrize(
    ("count", "ids", "says"),
    [
        ("", "0", "SHARD_IDS needs SHARD_COUNT"),
        ("two", "", "SHARD_COUNT must be a whole number"),
        ("0", "", "between 1 and 4096"),
        ("5000", "", "between 1 and 4096"),
        ("2", "2", "shard 2 does not exist with SHARD_COUNT=2"),
        ("4", "0-9", "shard 9 does not exist"),
        ("4", "3-1", "not a shard id or an increasing range"),
        ("4", "0,,1", "separated by commas"),
        ("4", "a-b", "ids or ranges"),
        ("4", "-1", "ids or ranges"),
    ],
)
def test_bad_shard_settings_are_refused_with_a_reason(count: str, ids: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        shards_from(count, ids)
    with pytest.raises(ConfigError, match=says):
        load_settings({"SHARD_COUNT": count, "SHARD_IDS": ids, "DATABASE_URL": PG}, dotenv=False)


def test_a_process_owns_the_guilds_of_its_shards_only() -> None:
    shards = shards_from("2", "1")
    assert shards.partial and shards.shard_ids == (1,)
    assert shards.owns(1 << 22) and not shards.owns(2 << 22) and not shards.owns(None)  # DMs: shard 0
    assert [shard_of(g << 22, 2) for g in range(4)] == [0, 1, 0, 1]
    assert str(shards) == "shard 1 of 2" and str(shards_from("4", "0-2")) == "shards 0-2 of 4"
    every = shards_from("2", "")
    assert every.shard_ids == (0, 1) and not every.partial and every.owns(2 << 22)


def test_part_of_the_shards_on_sqlite_is_refused_all_of_them_is_fine() -> None:
    with pytest.raises(ConfigError, match="SQLite serves one process only"):
        load_settings({"SHARD_COUNT": "2", "SHARD_IDS": "0"}, dotenv=False)
    assert load_settings({"SHARD_COUNT": "2", "SHARD_IDS": "0-1"}, dotenv=False).shards.shard_ids == (0, 1)
    assert load_settings(
        {"SHARD_COUNT": "2", "SHARD_IDS": "0", "DATABASE_URL": PG}, dotenv=False
    ).shards.partial


@pytest.mark.parametrize(("raw", "port"), [("", None), ("0", None), ("9100", 9100), (" 65535 ", 65535)])
def test_metrics_port_is_off_by_default(raw: str, port: int | None) -> None:
    assert load_settings({"METRICS_PORT": raw}, dotenv=False).metrics_port == port


@pytest.mark.parametrize("raw", ["http", "-1", "65536", "9100.5"])
def test_a_bad_metrics_port_is_refused(raw: str) -> None:
    with pytest.raises(ConfigError, match="METRICS_PORT"):
        load_settings({"METRICS_PORT": raw}, dotenv=False)


@pytest.mark.parametrize(("raw", "rate"), [("", 40.0), ("25", 25.0), ("500.5", 500.5)])
def test_rest_per_second_defaults_to_40(raw: str, rate: float) -> None:
    assert load_settings({"REST_PER_SECOND": raw}, dotenv=False).rest_per_second == rate


@pytest.mark.parametrize("raw", ["fast", "0", "-5", "20000"])
def test_a_bad_rest_per_second_is_refused(raw: str) -> None:
    with pytest.raises(ConfigError, match="REST_PER_SECOND"):
        load_settings({"REST_PER_SECOND": raw}, dotenv=False)


@pytest.mark.parametrize(("raw", "count"), [("", 1), ("0", 0), ("3", 3), ("16", 16)])
def test_picture_processes_default_to_one_worker(raw: str, count: int) -> None:
    assert load_settings({"PICTURE_PROCESSES": raw}, dotenv=False).picture_processes == count


@pytest.mark.parametrize("raw", ["many", "-1", "17", "1.5"])
def test_a_bad_picture_processes_is_refused(raw: str) -> None:
    with pytest.raises(ConfigError, match="PICTURE_PROCESSES"):
        load_settings({"PICTURE_PROCESSES": raw}, dotenv=False)


@pytest.mark.parametrize(("raw", "seconds"), [("", 30.0), ("0", 0.0), ("5", 5.0), (" 120.5 ", 120.5)])
def test_lease_retake_seconds_default_to_30(raw: str, seconds: float) -> None:
    assert load_settings({"LEASE_RETAKE_SECONDS": raw}, dotenv=False).lease_retake_s == seconds


@pytest.mark.parametrize("raw", ["soon", "-1", "3601", "nan", "inf"])
def test_a_bad_lease_retake_seconds_is_refused(raw: str) -> None:
    with pytest.raises(ConfigError, match="LEASE_RETAKE_SECONDS"):
        load_settings({"LEASE_RETAKE_SECONDS": raw}, dotenv=False)
