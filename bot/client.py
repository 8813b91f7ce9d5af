"""The Bot subclass: opens storage, builds the table service, hands every component click to the one
router (bot.ui.router), loads the cogs, resumes every active game, and funnels every command error into
the one error funnel (bot.ui.errors) that clicks share.

Commands are synced only on request (``python -m bot sync``), never at start.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import discord_patches
from bot.activity.hub import Hub as ActivityHub
from bot.activity.server import ActivityServer
from bot.activity.sessions import ActivitySettings
from bot.clock import Clock
from bot.config import Limits, Shards
from bot.i18n import language_of
from bot.i18n import translate as t
from bot.lifecycle import STOP_GRACE, InFlight, stop_gracefully
from bot.metrics import Metrics, MetricsServer
from bot.render.pictures import DEFAULT_PROCESSES, Pictures
from bot.service import TableService
from bot.storage import ShardsLost, Storage, StorageError
from bot.ui import card_emojis, command_options, errors, installs, lean, on_time
from bot.ui.answers import Answers
from bot.ui.card_emojis import CardEmojis
from bot.ui.clicks import TableUI
from bot.ui.letters import Letters
from bot.ui.presenter import Presenter
from bot.ui.rest_budget import DEFAULT_REST_PER_SECOND, RestBudget, share
from bot.ui.router import Router
from bot.ui.token_tables import TokenTables
from bot.ui.tournaments import Hall as TournamentHall

log = logging.getLogger(__name__)
# The cyclic garbage collector's thresholds once the bot runs (CPython's default: 700, 10, 10). A busy
# bot allocates fast and keeps a large heap: with the defaults, collections took 31% of the CPU at
# 1,000 tables, 31 of them full (up to 471 ms). Measured (docs/performance.md, "Garbage collector"):
# 10,000 / 20 / 1000 cut that to 8% with no full collection and pauses of at most 35 ms at 200 tables;
# 50,000 / 50 / 1000 collected even less but paused up to 137 ms at 200 tables.
GC_THRESHOLDS = (10_000, 20, 1000)

discord_patches.quiet_voice_warnings()  # before the first Client is built (see there)

# cogs.games: every game's /<game> group, built from the registry (a new game adds no extension).
EXTENSIONS = (
    "cogs.games",
    "cogs.stats",
    "cogs.history",
    "cogs.replay",
    "cogs.settings",
    "cogs.tournaments",  # after cogs.settings: its group goes under /skybo
    "cogs.help",
    "cogs.challenges",  # every game's "Play <game> with …" user command, from the registry
)


@dataclass(frozen=True)
class BotTuning:
    """Timings of the table (seconds); tests make them tiny."""

    ai_delay: float = 1.2  # a computer player's "thinking" pause before each move
    round_delay: float = 30.0  # the pause between rounds when not every human clicked Next round
    edit_interval: float = 1.0  # at least this long between two edits of one public message
    images: bool = True  # attach the rendered table picture to table messages
    # Worker processes drawing the table pictures (bot.render.pictures; PICTURE_PROCESSES); 0: threads.
    picture_processes: int = DEFAULT_PROCESSES
    clock: Clock | None = field(default=None, compare=False)  # deadlines' clock (tests: a manual one)
    # Bot-token requests per second for the whole bot (bot.ui.rest_budget; this process takes its share
    # of the shards); None: no budget.
    rest_per_second: float | None = DEFAULT_REST_PER_SECOND


class CatalogueTranslator(app_commands.Translator):
    """Command names and descriptions from the catalogues (``cmd.*`` keys), for French clients."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        key = string.extras.get("key")
        if not key or language_of(locale) == "en":
            return None
        text = t(key, locale)
        return None if text == key else text


class SkyboTree(app_commands.CommandTree[Any]):
    """The slash commands' side of the one error funnel (:mod:`bot.ui.errors`, shared with every
    component click through :mod:`bot.ui.router`): a refusal becomes its localized reason, a transient
    storage fault a "try again", anything else an apology and an ERROR log line."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        # Before discord.py reads the options: it trusts them (see bot.ui.command_options).
        if not await command_options.check_interaction(self, interaction):
            return False
        if interaction.type is discord.InteractionType.application_command:
            # The place, against the command's own declaration (bot.ui.installs).
            installs.check_place(command_options.command_of(self, interaction.data or {}), interaction)
        return True

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        await errors.answer_error(interaction, error, "command")


def intents() -> discord.Intents:
    """Only the guilds intent: slash commands and buttons need no message content or members."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    return wanted


class SkyboBot(commands.AutoShardedBot):
    """Skybo. Pass ``storage`` (tests), or where to open it at start: a PostgreSQL ``database_url``, else
    the SQLite ``database_path`` (neither: the settings' ``DATABASE_URL`` / ``DATABASE_PATH``).

    Sharded as Discord recommends (discord.py's ``AutoShardedBot``: one gateway connection per shard in
    this process): ``shards`` (:class:`bot.config.Shards`, ``SHARD_COUNT`` / ``SHARD_IDS``) fixes the
    count and which of them this process runs; then it resumes, times and plays only the games of the
    guilds on its shards (``TableService.owns``), and holds them with ``shard_lease`` (bot.run).
    Without shard settings it runs every shard of the recommended count (one, for a small bot).
    """

    service: TableService
    presenter: Presenter
    tokens: TokenTables
    answers: Answers
    table_ui: TableUI

    def __init__(
        self,
        *,
        storage: Storage | None = None,
        database_path: str | os.PathLike[str] | None = None,
        database_url: str | None = None,
        synchronous: str = "FULL",
        tuning: BotTuning | None = None,
        commands_only: bool = False,
        limits: Limits | None = None,
        metrics_port: int | None = None,
        metrics_host: str = "127.0.0.1",
        shards: Shards | None = None,
        activity: ActivitySettings | None = None,
    ) -> None:
        self.shard_plan = shards or Shards()
        ids = self.shard_plan.shard_ids
        super().__init__(
            shard_count=self.shard_plan.count,
            shard_ids=list(ids) if ids is not None else None,  # type: ignore[arg-type]  # None: all
            command_prefix=commands.when_mentioned,
            intents=intents(),
            tree_cls=SkyboTree,
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),
            # No message cache: the bot edits its messages by id (partial messages) and reads none.
            max_messages=None,
        )
        self.storage: Storage | None = storage
        self._owns_storage = storage is None
        self.database_path = database_path
        self.database_url = database_url
        self.synchronous = synchronous
        self.tuning = tuning or BotTuning()
        self.limits = limits or Limits()  # fair use: tables per user and per server, cool-down
        self.commands_only = commands_only  # `python -m bot sync`: commands, no storage, no games
        self.metrics = Metrics()  # bot.metrics: served on metrics_port (off by default)
        self.metrics_address = (metrics_host, metrics_port)
        self.metrics_server: MetricsServer | None = None
        # The interactions being handled; a graceful stop waits for them (bot.lifecycle).
        self.in_flight = InFlight(self.metrics.interaction)
        # A fleet's shard leases (bot.storage.ShardLease), held while the bot runs; None: not a fleet.
        self.shard_lease: Any = None
        self.lease_lost = False  # lost for good: the bot stopped itself (python -m bot run exits 1)
        # The lease's taking (its epoch) whose games the service holds, and whether the service is
        # stopped meanwhile (the connection holding the shards dropped: no timer, no computer move).
        self._lease_epoch = 0
        self._suspended = False
        self.rest_budget: RestBudget | None = None  # bot.ui.rest_budget, from setup_hook
        # Every component's custom_id prefix to its handler (the tables' from setup_hook, the cogs'
        # when they load): bot.ui.router.
        self.router = Router()
        # The card faces' application emojis on the panels' buttons, listed at start (bot/ui/card_emojis.py).
        self.card_emojis = CardEmojis()
        self.sync_card_emojis = False  # the sandbox: upload them at start (its fake Discord has none)
        # The commands whose declarations were narrowed to the application at login (bot.ui.installs.fit).
        self.narrowed: list[str] = []
        # The Activity (bot.activity; ACTIVITY_PORT, None: off): its pages hear the service's events.
        self.activity_settings = activity
        self.activity_hub = ActivityHub(lambda: self.service, lambda: self.service.clock.now_ms())
        self.activity_server: ActivityServer | None = None
        self._lease_watch: asyncio.Task[None] | None = None
        self._stopping: asyncio.Task[None] | None = None

    def _fit_to_application(self) -> None:
        """The commands' installations narrowed to the application's (read at login): servers only where
        its User Install is off (bot.ui.installs.fit). Not logged in (the dry run): as declared."""
        application = self.application
        if application is not None:
            users = application.user_integration_config is not None
            self.narrowed = installs.fit(self.tree.get_commands(), users=users)
            if self.narrowed:
                log.info(
                    "User Install is off for this application: the commands are declared for servers only",
                    extra={"commands": self.narrowed},
                )

    async def setup_hook(self) -> None:
        # Interaction callbacks keep to Discord's 3 s (see bot.ui.on_time): setup_hook runs in the task that
        # then reads the gateway, so every event handler's task (clicks, slash commands) inherits it.
        discord_patches.answer_on_time(on_time.POLICY)
        if self.commands_only:
            await self.tree.set_translator(CatalogueTranslator())
            for extension in EXTENSIONS:
                await self.load_extension(extension)
            self._fit_to_application()
            return
        self.in_flight.install(self._connection.parsers)
        # A click's message trimmed before discord.py parses it.
        discord_patches.trim_clicks(self._connection.parsers, lean.slim_click)
        if self.tuning.rest_per_second is not None:
            ids = self.shard_plan.shard_ids
            rate = share(self.tuning.rest_per_second, len(ids) if ids else None, self.shard_plan.count)
            self.rest_budget = RestBudget(rate)
            self.rest_budget.install(self.http)
        if self.storage is None:
            self.storage = await Storage.open(
                self.database_path, synchronous=self.synchronous, url=self.database_url
            )
        self.presenter = Presenter(
            self,
            interval=self.tuning.edit_interval,
            images=self.tuning.images,
            pictures=Pictures(self.tuning.picture_processes),
        )
        # Tables where the bot is not a member: shown through interaction tokens (bot.ui.token_tables).
        self.tokens = TokenTables(
            self, self.presenter.messages.compose, self.presenter.followed, interval=self.tuning.edit_interval
        )
        self.service = self._new_service()
        self.metrics.watch(self)
        await self.start_metrics()
        if self.activity_settings is not None:
            self.activity_server = ActivityServer(self, self.activity_settings, self.activity_hub)
            await self.activity_server.start()
        self.in_flight.admit = self.may_serve
        self.answers = Answers(self, self.presenter.followed, self.tokens)
        self.table_ui = TableUI(self, self.presenter, self.answers, self.tokens)
        self.router.add(*self.table_ui.routes())
        await self.tree.set_translator(CatalogueTranslator())
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        self._fit_to_application()
        lease = self.shard_lease
        if lease is not None:
            # A new holder of the shards waits before it acts (bot.storage.postgres.leases): whoever held
            # them before may believe it still does for that long.
            if not await lease.wait_serving():
                self.lease_lost = True
                raise ShardsLost(f"lost the hold on shards {list(lease.shards)} while starting")
            self._lease_epoch = lease.epoch
        await self.service.load_settings()  # before the first command or public message
        if self.sync_card_emojis:
            log.info((await card_emojis.sync(self)).line())
        self.card_emojis = await card_emojis.load(self)  # one request; none: the panels as before
        # Each table loaded is published (TableResumed) to the presenter, which hears the new service's
        # bus from its construction (its listener): "live again" on every table message.
        await self.service.resume()
        if lease is not None:
            await self.advertise_activity()
            self._lease_watch = asyncio.create_task(self._watch_lease(), name="shard-lease-watch")
        # What exists now (modules, classes, functions, the resumed games) lives as long as the
        # process: keep it out of the cyclic garbage collector's full collections, which would rescan
        # it every time (tens of milliseconds with a large heap, a pause for every click in flight).
        gc.collect()
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)

    def _new_service(self) -> TableService:
        assert self.storage is not None
        service = TableService(
            self.storage,
            ai_delay=self.tuning.ai_delay,
            round_delay=self.tuning.round_delay,
            clock=self.tuning.clock,
            limits=self.limits,
            observer=self.metrics,
            owns=self.shard_plan.owns,
        )
        # The channel's surfaces hear this service's events (before its resume: every table loaded is
        # published as TableResumed, "live again" on its message); nothing else tells them anything.
        self.presenter.attach(service.bus, service.writer.table_of)
        self.tokens.attach(service.bus, service.writer.table_of)  # where the bot is not a member
        self.activity_hub.attach(service.bus)  # the Activity's pages, the same way
        service.outbox.postman = Letters(self)  # a long game's direct messages (before resume: owed ones)
        service.set_tournament_hall(TournamentHall(self))  # tournaments' rooms and messages
        return service

    def may_serve(self) -> bool:
        """May this process act for its shards at this instant (answer an interaction, change a game)?
        Always, unless it is a fleet's process: then only while its shard lease serves and the games
        it holds were loaded under that very taking of the shards."""
        lease = self.shard_lease
        return lease is None or (not self._suspended and lease.epoch == self._lease_epoch and lease.serving())

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """The one door for clicks: every component interaction and modal submit goes to the router
        (``bot.ui.router``: one table from custom_id prefix to handler, one forgery check, one error
        funnel). Every interaction, commands too, tells the user's language (for a long game's direct
        messages)."""
        self.service.note_locale(interaction.user.id, interaction.locale)
        if interaction.type in (discord.InteractionType.component, discord.InteractionType.modal_submit):
            await self.router.dispatch(interaction)

    # Vanished places: the tables of a deleted channel or of a server the bot was removed from end,
    # cancelled and unrated (TableService.cancel_gone); a 10003 / 10004 answer does the same (Presenter).

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        if getattr(self, "service", None) is not None and self.may_serve():
            await self.service.cancel_gone(lambda _guild, where: where == channel.id, "channel deleted")

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A game's thread was deleted (bot.ui.threads): its game ends as a deleted channel's does."""
        if getattr(self, "service", None) is not None and self.may_serve():
            thread_id = payload.thread_id
            await self.service.cancel_gone(lambda _guild, where: where == thread_id, "thread deleted")

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from the server (kicked, banned, or the server deleted). discord.py calls
        this only for a GUILD_DELETE without ``unavailable``: an outage is ``on_guild_unavailable``,
        which ends nothing (its games wait, as they do while the bot is stopped)."""
        if getattr(self, "service", None) is not None and self.may_serve():
            await self.service.cancel_gone(lambda where, _: where == guild.id, "removed from the server")

    async def on_ready(self) -> None:
        """The bot was removed from a server while it was stopped: READY lists every server it is in,
        those down for an outage included (as unavailable guilds, still known to ``get_guild``), so a
        table whose server is unknown now is one the bot is no longer in."""
        if getattr(self, "service", None) is not None and self.may_serve():

            def removed(guild_id: int | None, _channel: int) -> bool:
                return guild_id is not None and self.get_guild(guild_id) is None

            await self.service.cancel_gone(removed, "removed from the server while stopped")

    async def _watch_lease(self) -> None:
        """The shards must stay ours (bot.storage.postgres.leases). When the connection holding their
        locks drops, clicks are dropped at once (``may_serve``) and the service stops (no timer, no
        computer move) while the lease takes the shards back; once it serves again, the games are
        loaded anew from the database (another process may have run them meanwhile) and the bot goes
        on, gateway and all. If another process took them, or the lease's retake time passed, this
        process stops (gracefully; its supervisor starts it again)."""
        lease = self.shard_lease
        seen = 0
        try:
            while not self.is_closed() and not self.in_flight.stopping:
                state = lease.state
                if state == "lost":
                    log.error(
                        "shard lease lost: stopping",
                        extra={"shards": list(lease.shards), "reason": lease.lost_reason},
                    )
                    break
                if state == "released":
                    return
                if not self._suspended and (state != "held" or lease.epoch != self._lease_epoch):
                    await self._suspend()
                elif self._suspended and lease.serving():
                    try:
                        await self._reload(lease.epoch)
                    except StorageError:
                        log.warning("shards taken back, but their games could not be loaded: trying again")
                        await asyncio.sleep(1.0)
                    continue
                seen = await lease.wait_change(seen)
            else:
                return
        except Exception:
            log.exception("shard lease watch failed: stopping", extra={"shards": list(lease.shards)})
        self.lease_lost = True
        # A task of its own: close() cancels this watch, which must not cut the stop short.
        self._stopping = asyncio.create_task(stop_gracefully(self), name="stop-lease-lost")

    async def _suspend(self) -> None:
        self._suspended = True  # before anything else: no click from now on
        log.warning("shards not held: no click answered, no timer fired until they are taken back")
        await self.service.close()

    async def _reload(self, epoch: int) -> None:
        """The shards are ours again (lease ``epoch``): the games as the database has them now."""
        began = asyncio.get_running_loop().time()
        # Clicks taken before the drop may still be running: their commits land first.
        running = [task for task in self.in_flight.tasks if not task.done()]
        if running:
            await asyncio.wait(running, timeout=STOP_GRACE)
        before = {game_id: table.version for game_id, table in self.service.tables.items()}
        # The presenter hears the new service's bus from its construction (before its resume, which
        # publishes every table loaded), and draws through it: it is the bot's service from now on.
        old, service = self.service, self._new_service()
        self.service = service
        try:
            await service.load_settings()
            tables = await service.resume()
        except BaseException:
            self.service = old
            await service.close()  # its timers, if it got that far
            raise
        changed = sum(1 for table in tables if before.get(table.id) != table.version)
        changed += sum(1 for game_id in before if game_id not in service.tables)
        self._lease_epoch = epoch
        self._suspended = False
        await self.advertise_activity()
        log.warning(
            "shards taken back: serving again",
            extra={
                "shards": list(self.shard_lease.shards),
                "games": len(tables),
                "changed": changed,
                "seconds": round(asyncio.get_running_loop().time() - began, 2),
            },
        )

    async def advertise_activity(self) -> None:
        """A fleet's process serving its shards (again): its peers relay the pages of their tables here
        (bot.activity.relay). Nothing without the Activity."""
        if self.activity_server is not None:
            await self.activity_server.relay.advertise()

    async def start_metrics(self) -> None:
        """Serve /healthz and /metrics on ``metrics_port`` (once; nothing when it is None). Raises
        OSError when the port cannot be listened on (python -m bot run calls it before logging in)."""
        host, port = self.metrics_address
        if port is not None and self.metrics_server is None:
            server = MetricsServer(self, host, port)
            await server.start()
            self.metrics_server = server

    def shards_run(self) -> tuple[int, ...]:
        """The shards this process runs (their gateway connections; empty before the first connects)."""
        return tuple(sorted(self.shards))

    async def close(self) -> None:
        watch, self._lease_watch = self._lease_watch, None
        if watch is not None and watch is not asyncio.current_task():
            watch.cancel()
        self.card_emojis.close()  # a re-list waiting for its minute (bot/ui/card_emojis.py)
        if self.metrics_server is not None:
            await self.metrics_server.stop()
            self.metrics_server = None
        if self.activity_server is not None:  # the pages hear "restart" and come back by themselves
            await self.activity_server.stop()
            self.activity_server = None
        service = getattr(self, "service", None)
        if service is not None:
            await service.close()
        tokens = getattr(self, "tokens", None)
        if tokens is not None:
            await tokens.close()
        presenter = getattr(self, "presenter", None)
        if presenter is not None:
            await presenter.close()
            presenter.pictures.close()
        await super().close()
        if self._owns_storage and self.storage is not None:
            await self.storage.close()
            self.storage = None


def create_bot(
    *,
    storage: Storage | None = None,
    database_path: str | os.PathLike[str] | None = None,
    database_url: str | None = None,
    synchronous: str = "FULL",
    tuning: BotTuning | None = None,
    commands_only: bool = False,
    limits: Limits | None = None,
    metrics_port: int | None = None,
    metrics_host: str = "127.0.0.1",
    shards: Shards | None = None,
    activity: ActivitySettings | None = None,
) -> SkyboBot:
    """The bot, ready for ``start(token)``; storage opens in ``setup_hook`` unless given.

    ``commands_only`` builds a bot that only knows its commands (for syncing them). ``limits``: the
    fair-use caps and cool-down (default :class:`bot.config.Limits`). ``metrics_port``: serve
    /healthz and /metrics there (:mod:`bot.metrics`; None: off). ``activity``: serve the Activity
    (:mod:`bot.activity.server`; None: off).
    """
    return SkyboBot(
        storage=storage,
        database_path=database_path,
        database_url=database_url,
        synchronous=synchronous,
        tuning=tuning,
        commands_only=commands_only,
        limits=limits,
        metrics_port=metrics_port,
        metrics_host=metrics_host,
        shards=shards,
        activity=activity,
    )
