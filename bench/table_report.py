"""The table bench's report (bench/table.py): one session's figures, several side by side, the
ramp's windows and the capacity they show (also the fleet bench's, bench/fleet.py).
"""

from __future__ import annotations

import os
import statistics
from typing import Any

from bench.table_players import CLICKS_PER_GAME, THINK, Window, _percentile

P99_TARGET_MS = 50.0  # the capacity: the most clicks per second of a window whose p99 stayed within


def _ms(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def _latency(latencies: list[float]) -> str:
    if not latencies:
        return "none answered"
    p = [statistics.median(latencies), _percentile(latencies, 0.95), _percentile(latencies, 0.99)]
    return "/".join(_ms(v) for v in [*p, max(latencies)]) + " ms"


def report_one(results: dict[str, Any]) -> list[str]:
    """The figures of one session (the output of ``make bench``)."""
    latencies = results.get("latencies") or []
    if not latencies:
        return ["   no click was answered"]
    db, measured = results["db"], results["measured"]
    lines = [
        f"   load: {results['active_games']} concurrent games (1 human + 1 computer each, computer moves"
        f" every 1.2 s); the human thinks {THINK[0]}-{THINK[1]} s (uniform) before each click,"
        f" {CLICKS_PER_GAME} clicks per game, all games at once",
        f"   {len(latencies)} clicks measured in {results['elapsed']:.1f} s"
        f" ({len(latencies) / results['elapsed']:.0f}/s; {results['unanswered']} unanswered,"
        f" {results['refused']} answered with a refusal; {results['refreshes']} on Refresh, the rest moves"
        " or the panel opened)",
        f"   click latency (INTERACTION_CREATE sent -> callback received, synchronous=FULL):"
        f" p50 {statistics.median(latencies):.1f} ms, p95 {_percentile(latencies, 0.95):.1f} ms,"
        f" p99 {_percentile(latencies, 0.99):.1f} ms, max {max(latencies):.1f} ms   (target p99 < 50 ms)",
    ]
    loop = results["loop"]
    cpu_per_click = loop["cpu"] * results["elapsed"] * 1000 / len(latencies)  # ms of the bot's CPU
    lines.append(
        f"   bot process: {loop['cpu']:.0%} of a core, {cpu_per_click:.1f} ms per click;"
        f" event loop lag: p50 {loop['lag_p50']:.1f} ms,"
        f" p99 {loop['lag_p99']:.1f} ms,"
        f" max {loop['lag_max']:.1f} ms; {loop['gc_count']} GC runs ({loop['gc_total']:.0f} ms in all,"
        f" longest {loop['gc_max']:.1f} ms),"
        f" {loop['gc_full']} full (longest {loop['gc_full_max']:.1f} ms)"
    )
    fake = results["fake_loop"]
    lines.append(
        f"   fake Discord + players process: {fake['cpu']:.0%} of a core; its event loop lag (counted in"
        f" the latency): p50 {fake['lag_p50']:.1f} ms,"
        f" p99 {fake['lag_p99']:.1f} ms, max {fake['lag_max']:.1f} ms (its garbage collector is off)"
    )
    lines.append(
        f"   storage: {db.writes} writes in {db.transactions} transactions"
        f" ({db.writes / max(1, db.transactions):.1f} per commit on average, at most {db.largest})"
    )
    lines.append(requests_line(results))
    lines.append(
        f"   bot memory per active game: {results['memory_per_game'] / 1024:.1f} KB   (target < 50 KB)"
        f"   [tracemalloc in the bot's process, fake Discord in another process: the last {measured}"
        f" tables opened while {results['active_games'] - measured} others are active;"
        f" over all {results['active_games']}: {results['memory_all'] / 1024:.1f} KB per game]"
    )
    return lines


def requests_per_click(results: dict[str, Any]) -> float:
    """The bot's REST requests to Discord per measured click (every route: callbacks, the
    interaction webhooks, the channel routes of table edits and mentions)."""
    return float(results["rest"]["all"]) / max(1, len(results.get("latencies") or []))


def requests_line(results: dict[str, Any]) -> str:
    """What the bot asked of Discord during the measured clicks, per click, by route."""
    clicks = max(1, len(results.get("latencies") or []))
    rest = results["rest"]
    routes = ", ".join(f"{route} {n / clicks:.2f}" for route, n in list(results["by_route"].items())[:6])
    return (
        f"   REST requests per click: {requests_per_click(results):.2f} (callbacks"
        f" {rest['callback'] / clicks:.2f}, interaction webhooks"
        f" {(rest['interaction'] - rest['callback']) / clicks:.2f}, channel routes"
        f" {rest['channel'] / clicks:.2f}): {routes}"
    )


def report(runs: list[dict[str, Any]]) -> list[str]:
    """Several sessions side by side, then the ramp of the first if it ran."""
    width = 30
    lines = [
        f"   load: 1 human + 1 computer per game (computer moves every 1.2 s), the human thinks"
        f" {THINK[0]}-{THINK[1]} s before each click, {CLICKS_PER_GAME} clicks per game, all games at once;"
        f" SQLite synchronous=FULL; {os.cpu_count()} cores. Latency: INTERACTION_CREATE sent -> answer"
        " received, in the fake's process. CPU: share of one core"
    ]

    def row(label: str, cells: list[str]) -> None:
        lines.append(f"   {label:<34}" + "".join(f"{c:>{width}}" for c in cells))

    row("concurrent games", [str(r.get("active_games", r["games"])) for r in runs])
    row("tables set up in", [f"{r['setup_s']:.1f} s" for r in runs])
    row(
        "clicks measured (per second)",
        [
            f"{len(r['latencies'])} in {r['elapsed']:.0f} s ({len(r['latencies']) / r['elapsed']:.0f}/s)"
            for r in runs
        ],
    )
    row(
        "unanswered / refused / Refresh",
        [f"{r['unanswered']} / {r['refused']} / {r['refreshes']}" for r in runs],
    )
    row("latency p50/p95/p99/max", [_latency(r.get("latencies") or []) for r in runs])
    row("bot CPU", [f"{r['loop']['cpu']:.0%}" for r in runs])
    row(
        "bot loop lag p50/p99/max",
        [
            f"{_ms(r['loop']['lag_p50'])}/{_ms(r['loop']['lag_p99'])}/{_ms(r['loop']['lag_max'])} ms"
            for r in runs
        ],
    )
    row(
        "bot GC runs (ms in all, longest)",
        [f"{r['loop']['gc_count']} ({r['loop']['gc_total']:.0f}, {_ms(r['loop']['gc_max'])})" for r in runs],
    )
    row(
        "fake+players CPU (loop lag p99)",
        [f"{r['fake_loop']['cpu']:.0%} ({_ms(r['fake_loop']['lag_p99'])} ms)" for r in runs],
    )
    row(
        "storage writes / commits",
        [f"{r['db'].writes} / {r['db'].transactions}" for r in runs],
    )
    row("REST requests per click", [f"{requests_per_click(r):.2f}" for r in runs])
    row(
        "bot memory per game (last, all)",
        [f"{r['memory_per_game'] / 1024:.1f} KB, {r['memory_all'] / 1024:.1f} KB" for r in runs],
    )
    ramped = next((r for r in runs if "ramp" in r), None)
    if ramped is not None:
        lines += report_ramp(ramped["ramp"], ramped["games"])
    return lines


def report_ramp(ramp: dict[str, Any], games: int) -> list[str]:
    """The ramp's windows and the capacity: the most clicks per second of a window (past the warm-up)
    whose p99 stayed within P99_TARGET_MS, every click answered."""
    windows = ramp["windows"]
    lines = [f"   ramp at {games} games (closed-loop players; the think range changes every window):"]
    for w in windows:
        lines.append(
            f"   {w.name:<9} think {w.think[0]:>4}-{w.think[1]:<4} s {w.seconds:5.1f} s:"
            f" {w.rate:6.1f} clicks/s, p50/p95/p99/max {_latency(w.latencies)},"
            f" bot CPU {w.cpu['bot']:.0%}, {w.unanswered} unanswered"
        )
    best = capacity(windows)
    peak = max(windows[1:], key=lambda w: w.rate, default=None)
    sustained = (
        f"{best.rate:.1f} clicks/s ({best.name}, p99 {_ms(best.p(0.99))} ms)" if best is not None else "none"
    )
    lines.append(
        f"   sustained by one process (p99 <= {P99_TARGET_MS:.0f} ms): {sustained};"
        + (f" peak {peak.rate:.1f} clicks/s ({peak.name}, p99 {_ms(peak.p(0.99))} ms);" if peak else "")
        + f" {ramp['refused']} refused, {ramp['stopped_early']} players whose game ended"
    )
    shown = best or peak
    if shown is not None and shown.clicks:
        routes = ", ".join(f"{route} {n / shown.clicks:.2f}" for route, n in list(shown.by_route.items())[:5])
        lines.append(
            f"   REST requests per click in {shown.name}: {shown.rest['all'] / shown.clicks:.2f}"
            f" (interaction routes {shown.rest['interaction'] / shown.clicks:.2f},"
            f" channel routes {shown.rest['channel'] / shown.clicks:.2f}): {routes}"
        )
    return lines


def capacity(windows: list[Window]) -> Window | None:
    """The window of the most clicks per second (past the first, the warm-up) whose p99 stayed within
    P99_TARGET_MS with every click answered (None: none did)."""
    within = [w for w in windows[1:] if w.latencies and w.p(0.99) <= P99_TARGET_MS and not w.unanswered]
    return max(within, key=lambda w: w.rate, default=None)
