"""The fleet bench (bench/fleet.py) at tiny sizes, on a real PostgreSQL: one bot process and then
two, each against a fake Discord in a process of its own, both apply and answer every click, their
figures are positive and what they count agrees with what was stored."""

from __future__ import annotations

import asyncio

import pytest

from bench import fleet
from devtools.pgserver import PostgresServer

pytestmark = pytest.mark.timeout(600)  # a bound for a stuck run, never a speed check

GAMES = 8


def test_one_and_two_processes_answer_every_click(
    pg_server: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fleet, "GUILDS_PER_SHARD", 1)
    monkeypatch.setattr(fleet, "WARMUP", ((0.1, 0.4), 1.0))
    monkeypatch.setattr(fleet, "THINK", (0.3, 0.8))
    monkeypatch.setattr(fleet, "STEADY_S", 2.0)
    monkeypatch.setattr(fleet, "RAMP_BELOW", ())
    monkeypatch.setattr(fleet, "RAMP_ABOVE", ((0.02, 0.1),))
    monkeypatch.setattr(fleet, "RAMP_STEP_S", 1.5)

    results = asyncio.run(fleet.measure(pg_server, GAMES))

    assert [(r.name, r.processes) for r in results] == [("1 process", 1), ("2 processes", 2)]
    for result in results:
        assert result.games == GAMES
        assert result.exit_codes == [0] * result.processes  # each stopped cleanly, its shards released
        assert result.log_errors == []
        assert [w.name for w in result.windows] == ["warm-up", "steady", "ramp 1"]
        for window in result.windows:
            assert window.unanswered == 0
            assert window.clicks > 0 and window.rate > 0
            assert all(ms > 0 for ms in window.latencies)
            assert 0 < window.p(0.5) <= window.p(0.99) <= max(window.latencies)
            assert window.rest["all"] >= window.rest["interaction"] + window.rest["channel"]
            bots = {name: share for name, share in window.cpu.items() if name.startswith("bot ")}
            assert len(bots) == result.processes
            assert window.cpu["postgresql"] >= 0 and 0 < window.cpu["machine"] <= 1
        # The tables' public messages, edited as the games go: over the run, not in each window (a run of
        # moves is one edit, held up to 3 pauses: a 1.5-s window on a loaded machine saw none).
        assert sum(w.rest["channel"] for w in result.windows) > 0
        # every click is answered through its interaction (a move: the acknowledgement, then the edit)
        clicks = sum(w.clicks for w in result.windows)
        assert sum(w.rest["interaction"] for w in result.windows) >= clicks
        # (Whether the window of short think times carries more clicks per second than the steady one
        # depends on the machine having cores to spare: a figure `make bench` prints, not asserted here.)
        assert sum(share for w in result.windows for n, share in w.cpu.items() if n.startswith("bot ")) > 0
        assert result.peak.rate >= result.windows[2].rate
        # Every move clicked (all clicks but Refresh, the one panel opening of each player and the
        # refusals) is in the action logs, with the warm-up's and the computer players' moves.
        moves = sum(w.clicks - w.refreshes for w in result.windows) - GAMES - result.refused
        assert moves > 0
        assert result.stored_actions >= moves + GAMES * 1  # and at least one warm-up move per game
    lines = fleet.report(results)
    assert "1 process" in lines[1] and "2 processes" in lines[1]
    assert any(line.strip().startswith("capacity") for line in lines)
    assert "2 processes / 1 process: steady clicks/s x" in lines[-1]
    text = "\n".join(lines)
    assert text.count("steady window, REST by route: ") == 2
    assert "POST /interactions/{interaction_id}/{token}/callback" in text
