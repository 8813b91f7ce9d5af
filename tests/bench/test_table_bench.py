"""The table bench (bench/table.py) at tiny sizes: two sessions (two counts of games) side by side,
the first with a ramp of the think time; each answers every click, its figures are positive and the
report (bench/table_report.py) shows them in the columns and the ramp's capacity line. Also its
command line."""

from __future__ import annotations

import pytest

from bench import table, table_report

pytestmark = pytest.mark.timeout(120)

COUNTS = (2, 3)
CLICKS = 3


def test_two_counts_side_by_side_and_a_ramp(monkeypatch: pytest.MonkeyPatch) -> None:
    # The fake's process (spawned) reads the think time from the environment; the ramp's plan is sent
    # to it from this process.
    monkeypatch.setenv("SKYBO_BENCH_THINK", "0.05,0.2")
    monkeypatch.setattr(table, "RAMP_WARMUP", ((0.05, 0.2), 0.6))
    monkeypatch.setattr(table, "RAMP", ((0.3, 0.6), (0.01, 0.05)))
    monkeypatch.setattr(table, "RAMP_STEP_S", 1.2)
    monkeypatch.setattr(table, "SETTLE_S", 0.3)  # the bot waits less before measuring memory
    monkeypatch.setattr(table, "SAMPLE_S", 0.05)

    runs = table.measure(COUNTS, CLICKS, ramp=True)

    assert [r["games"] for r in runs] == list(COUNTS)
    for games, result in zip(COUNTS, runs, strict=True):
        assert result["active_games"] == games
        assert result["measured"] == max(1, round(games * table.MEASURED))  # the last half of them
        assert result["unanswered"] == 0
        assert result["clicks"] == games * CLICKS == len(result["latencies"])
        assert all(ms > 0 for ms in result["latencies"])
        assert result["setup_s"] > 0 and result["elapsed"] > 0
        assert result["loop"]["cpu"] > 0
        assert result["memory_all"] > 0  # the tables hold memory (the per-game figure of the last
        # MEASURED tables is a small difference of two heaps: noisy at this size)
        assert result["db"].writes > 0
    assert "ramp" not in runs[1]  # the ramp runs in the first session only
    windows = runs[0]["ramp"]["windows"]
    assert [w.name for w in windows] == ["warm-up", "ramp 1", "ramp 2"]
    for window in windows:
        assert window.unanswered == 0
        assert window.clicks > 0 and window.rate > 0
        assert 0 < window.p(0.5) <= window.p(0.99) <= max(window.latencies)
        assert window.cpu["bot"] > 0
    # shorter think times: more clicks per second (two players, the bot far from its capacity)
    assert windows[2].rate > windows[1].rate
    best = table_report.capacity(windows)
    assert best is None or best in windows[1:]

    lines = table_report.report(runs)
    assert lines[1].split()[-2:] == [str(n) for n in COUNTS]  # concurrent games, one column each
    latency = next(line for line in lines if line.strip().startswith("latency p50/p95/p99/max"))
    assert latency.count(" ms") == len(COUNTS)
    assert any(line.strip().startswith("ramp at 2 games") for line in lines)
    assert any(line.strip().startswith("sustained by one process (p99 <= 50 ms): ") for line in lines)
    assert lines[-1].strip().startswith("REST requests per click in ramp ")
    per_click = next(line for line in lines if line.strip().startswith("REST requests per click  "))
    assert len(per_click.split()) == 4 + len(COUNTS)  # one figure per session
    for result in runs:
        # Every click is answered by at least its callback; the line of one session says so by route.
        assert result["rest"]["callback"] >= result["clicks"]
        assert table_report.requests_per_click(result) >= 1.0
        line = table_report.requests_line(result)
        assert "POST /interactions/{interaction_id}/{token}/callback" in line


def test_command_line_counts() -> None:
    assert table._counts("200,1000") == [200, 1000]
    assert table._counts("7") == [7]
    with pytest.raises(ValueError):
        table._counts("0")
    with pytest.raises(SystemExit):
        table.main(["--games", "x"])
