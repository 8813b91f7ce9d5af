"""bench/activity.py at a tiny size: every figure printed (never its timings)."""

from __future__ import annotations

import pytest

from bench import activity


def test_the_activity_bench_prints_its_figures(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(activity, "TABLES", 2)
    monkeypatch.setattr(activity, "MOVES", 3)
    monkeypatch.setattr(activity, "PAGES_MEASURED", 3)
    activity.run()
    out = capsys.readouterr().out
    assert "2 Skyjo tables, 3 pages each, 6 moves made in the pages" in out
    for figure in (
        "commit -> page frame sent: p50",
        "commit -> table message edit sent",
        "frames per move: ",
        "memory per open page: ",
    ):
        assert figure in out
    assert "(0 samples)" not in out
