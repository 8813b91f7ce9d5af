"""Health and metrics for a supervisor: ``/healthz`` and ``/metrics`` on ``METRICS_PORT`` (off by default).

``/healthz`` answers 200 when the process can do its job, 503 when it cannot, with a JSON body saying
which check failed:

- ``gateway``: connected to Discord and ready (every shard this process runs);
- ``database``: a read through the storage answers within 2 s;
- ``shards``: the shard leases are held (a fleet on PostgreSQL; "not a fleet" otherwise);
- ``tables``: every table of this process can be served: none waits for the database after a commit
  and its reload both failed (``"2 waiting for the database"``; see bot/service/reloads.py).

``/metrics`` is Prometheus' text format (``prometheus_client``), one registry per bot:

- ``skybo_interactions_total{kind, outcome}``: interactions by kind (command, component, modal,
  autocomplete) and outcome (handled, error, dropped while stopping);
- ``skybo_apply_commit_seconds{kind}``: apply-and-commit latency of game actions (a histogram), and
  ``skybo_commit_failures_total{kind}``;
- ``skybo_commit_retries_total{kind, outcome}``: commits made once more after a transient fault (a
  dropped connection, a busy lock), by outcome: ``applied``, ``already_applied`` (the first had landed,
  recognised by its idempotency key) or ``failed``;
- ``skybo_tables_waiting_for_database``: tables this process cannot serve now (a gauge), and
  ``skybo_table_reloads_total{outcome}``: their reloads, ``ok`` or ``failed``;
- ``skybo_active_games{kind}``: games this process drives now;
- ``skybo_timer_firings_total{what}``: turn deadlines and lobby expiries acted on;
- ``skybo_database_errors_total{where}``: storage errors met by actions and health checks;
- ``skybo_gateway_latency_seconds``: the heartbeat round trip (discord.py's ``latency``);
- ``skybo_shards_owned``: how many shards this process runs.

Nothing here names a player, a card or a secret: the figures are counts and times.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import Awaitable, Iterator, Mapping
from typing import Any, Protocol

from aiohttp import web
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

log = logging.getLogger(__name__)

INTERACTION_KINDS = {2: "command", 3: "component", 4: "autocomplete", 5: "modal"}
HEALTH_DB_TIMEOUT_S = 2.0
# Apply-and-commit buckets (seconds): a click's commit is milliseconds; a busy disk, tens.
COMMIT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


# What the figures read of the bot (``bot.client.SkyboBot``, floors above): described here, not
# imported, so this module stays on the ground floor and is handed the bot typed, never as ``Any``.
class _Stored(Protocol):
    @property
    def kind(self) -> str: ...


class _Table(Protocol):
    @property
    def finished(self) -> bool: ...
    @property
    def stored(self) -> _Stored: ...


class _Service(Protocol):
    @property
    def tables(self) -> Mapping[int, _Table]: ...
    def tables_waiting(self) -> int: ...


class _Storage(Protocol):
    def ping(self) -> Awaitable[None]: ...


class _Lease(Protocol):
    @property
    def state(self) -> str: ...


class _InFlight(Protocol):
    @property
    def stopping(self) -> bool: ...


class Watched(Protocol):
    """The bot as the health checks and the live figures read it. ``service`` is read with ``getattr``:
    a bot not set up yet has none."""

    @property
    def metrics(self) -> Metrics: ...
    @property
    def in_flight(self) -> _InFlight: ...
    @property
    def storage(self) -> _Storage | None: ...
    @property
    def shard_lease(self) -> _Lease | None: ...
    @property
    def latency(self) -> float: ...
    def is_ready(self) -> bool: ...
    def is_closed(self) -> bool: ...
    def may_serve(self) -> bool: ...
    def shards_run(self) -> tuple[int, ...]: ...


class Metrics:
    """The figures of one bot process, in a registry of its own (several bots may share a process in
    tests and benches)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.interactions = Counter(
            "skybo_interactions",
            "Interactions received, by kind and outcome",
            ["kind", "outcome"],
            registry=self.registry,
        )
        self.commit_seconds = Histogram(
            "skybo_apply_commit_seconds",
            "Apply-and-commit latency of game actions",
            ["kind"],
            buckets=COMMIT_BUCKETS,
            registry=self.registry,
        )
        self.commit_failures = Counter(
            "skybo_commit_failures", "Game actions whose commit failed", ["kind"], registry=self.registry
        )
        self.timer_firings = Counter(
            "skybo_timer_firings", "Deadlines acted on (turns, lobbies)", ["what"], registry=self.registry
        )
        self.database_errors = Counter(
            "skybo_database_errors", "Storage errors met", ["where"], registry=self.registry
        )
        self.commit_retries = Counter(
            "skybo_commit_retries",
            "Commits made once more after a transient fault, by outcome",
            ["kind", "outcome"],
            registry=self.registry,
        )
        self.table_reloads = Counter(
            "skybo_table_reloads",
            "Reloads of tables waiting for the database, by outcome",
            ["outcome"],
            registry=self.registry,
        )
        self.panel_edits = Counter(
            "skybo_panel_edits",
            "Edits of players' open panels between their clicks, by reason: the game moved on, a click's"
            " answer may have been overtaken or been older than the game, a replaced panel retired",
            ["reason"],
            registry=self.registry,
        )

    # -- what the service and the interaction gate report ------------------------------------------

    def interaction(self, type_: int | None, outcome: str) -> None:
        self.interactions.labels(INTERACTION_KINDS.get(type_ or 0, "other"), outcome).inc()

    def committed(self, kind: str, seconds: float) -> None:
        self.commit_seconds.labels(kind).observe(seconds)

    def commit_failed(self, kind: str) -> None:
        self.commit_failures.labels(kind).inc()
        self.database_errors.labels("commit").inc()

    def commit_retried(self, kind: str, outcome: str) -> None:
        self.commit_retries.labels(kind, outcome).inc()

    def table_reloaded(self, outcome: str) -> None:
        self.table_reloads.labels(outcome).inc()
        if outcome != "ok":
            self.database_errors.labels("reload").inc()

    def panel_edited(self, reason: str) -> None:
        """A followed panel edited (bot.ui.followed_panels): ``game``, ``click`` or ``retire``."""
        self.panel_edits.labels(reason).inc()

    def timer_fired(self, what: str) -> None:
        self.timer_firings.labels(what).inc()

    # -- what is read when scraped -----------------------------------------------------------------

    def watch(self, bot: Watched) -> None:
        """Read the bot's live figures at each scrape: active games, gateway latency, shards."""
        self.registry.register(_LiveCollector(bot))

    def text(self) -> bytes:
        return generate_latest(self.registry)


class _LiveCollector(Collector):
    def __init__(self, bot: Watched) -> None:
        self.bot = bot

    def collect(self) -> Iterator[GaugeMetricFamily]:
        games = GaugeMetricFamily("skybo_active_games", "Games this process drives", labels=["kind"])
        counts: dict[str, int] = {}
        service: _Service | None = getattr(self.bot, "service", None)
        for table in list(getattr(service, "tables", {}).values()):
            if not table.finished:
                counts[table.stored.kind] = counts.get(table.stored.kind, 0) + 1
        for kind, count in sorted(counts.items()):
            games.add_metric([kind], count)
        yield games
        waiting = (
            service.tables_waiting() if service is not None and hasattr(service, "tables_waiting") else 0
        )
        yield GaugeMetricFamily(
            "skybo_tables_waiting_for_database",
            "Tables this process cannot serve now: their commit and their reload failed",
            value=waiting,
        )
        latency = float(getattr(self.bot, "latency", math.nan))
        yield GaugeMetricFamily(
            "skybo_gateway_latency_seconds",
            "Heartbeat round trip to Discord's gateway",
            value=latency if math.isfinite(latency) else math.nan,
        )
        shards = self.bot.shards_run() if hasattr(self.bot, "shards_run") else ()
        yield GaugeMetricFamily("skybo_shards_owned", "Shards this process runs", value=len(shards))


async def health(bot: Watched) -> tuple[bool, dict[str, str]]:
    """(healthy, check -> "ok" or why not) for ``/healthz``."""
    checks: dict[str, str] = {}
    if bot.in_flight.stopping:
        checks["gateway"] = "stopping"
    else:
        checks["gateway"] = "ok" if bot.is_ready() and not bot.is_closed() else "not connected"
    storage = getattr(bot, "storage", None)
    if storage is None:
        checks["database"] = "not open"
    else:
        try:
            await asyncio.wait_for(storage.ping(), HEALTH_DB_TIMEOUT_S)
            checks["database"] = "ok"
        except Exception as error:  # any failure is the answer, not a crash of the endpoint
            bot.metrics.database_errors.labels("health").inc()
            checks["database"] = f"unreachable ({type(error).__name__})"
    lease = getattr(bot, "shard_lease", None)
    if lease is None:
        checks["shards"] = "ok (not a fleet)"  # every shard in this one process: nothing to hold
    else:
        checks["shards"] = _shards_check(bot, lease)
    service: _Service | None = getattr(bot, "service", None)
    waiting = service.tables_waiting() if service is not None else 0
    checks["tables"] = "ok" if not waiting else f"{waiting} waiting for the database"
    healthy = all(value.startswith("ok") for value in checks.values())
    return healthy, checks


def _shards_check(bot: Watched, lease: _Lease) -> str:
    """A fleet's process: "ok" only while it serves its shards, as its clicks are dropped whenever it
    does not (``SkyboBot.may_serve``): the locks lost or being taken back, and also once taken (back),
    during the new holder's wait (bot.storage.postgres.leases) and while its games load again."""
    if bot.may_serve():
        return "ok"
    if lease.state == "held":
        return "not serving yet (shards just taken)"
    return "lease lost"


class MetricsServer:
    """The HTTP endpoint: ``await start()``, ``await stop()``."""

    def __init__(self, bot: Watched, host: str, port: int) -> None:
        self.bot = bot
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/metrics", self._metrics)
        runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        server: Any = site._server
        self.port = int(server.sockets[0].getsockname()[1])
        log.info("metrics.listening", extra={"host": self.host, "port": self.port})

    async def stop(self) -> None:
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    async def _healthz(self, _request: web.Request) -> web.Response:
        healthy, checks = await health(self.bot)
        return web.Response(
            status=200 if healthy else 503,
            text=json.dumps({"healthy": healthy, **checks}),
            content_type="application/json",
        )

    async def _metrics(self, _request: web.Request) -> web.Response:
        body = self.bot.metrics.text()
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})
