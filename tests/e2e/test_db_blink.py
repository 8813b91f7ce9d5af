"""When the database blinks (issue 37, items 1-3): the real bot against the fake Discord, its database
away during a move and during the reload that follows, then back.

Before: the move in flight was refused ("could not be saved"), storage set the game to None when its
reload failed too, and from then on every click on that table, "Open my panel" included, answered
"Sorry, something went wrong" (``AttributeError: 'NoneType' object has no attribute 'view'``) and the
table could not be drawn, until a restart; ``/healthz`` said 200 all along.

Now: the table keeps its last committed state, serves the reads from it (the panels, the table message
and its picture), refuses moves privately in the clicker's language ("the table is reconnecting, try
again in a moment"), and reloads itself once the database answers (the reloader, with no click at all);
``/healthz`` is 503 while it waits, and the metrics count the failed retry and the reloads.

The database goes away for real on PostgreSQL: new connections refused (``ALLOW_CONNECTIONS false``)
and the bot's sessions terminated (``pg_terminate_backend``), so the commit, its one retry and the
reload all fail; on SQLite, which has no server to stop, the storage layer raises the I/O error
SQLite would (``DiskIOError``, transient) on every statement while it lasts.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import pytest

from bot.i18n import translate as t
from bot.metrics import health
from bot.service.events import TableChanged
from bot.service.snapshots import TableSnapshot
from bot.storage.errors import DiskIOError
from devtools.pgserver import PostgresServer
from tests.conftest import PgDatabase

from .conftest import BOTH_BACKENDS, BotDatabase, button, open_panel, private_answer, start_table, until_turn
from .test_metrics import sample


class Blackout:
    """The bot's database away (``begin``) and back (``end``), or a blink (``blink``): the connection
    the next write uses is gone, and the database answers again at once."""

    def begin(self) -> None:
        raise NotImplementedError

    def end(self) -> None:
        raise NotImplementedError

    def blink(self) -> None:
        raise NotImplementedError


class PostgresBlackout(Blackout):
    """The server refuses new connections to the bot's database and ends the sessions it had."""

    def __init__(self, server: PostgresServer, database: PgDatabase) -> None:
        self.server = server
        self.name = database.name
        self._refused = contextlib.ExitStack()  # begin enters connections_refused, end leaves it

    def begin(self) -> None:
        self._refused.enter_context(self.server.connections_refused(self.name))
        with self.server.admin() as admin:
            ended = admin.execute(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (self.name,),
            ).fetchone()
        assert ended is not None and ended[0] >= 2, "the bot's writer and readers were connected"

    def end(self) -> None:
        self._refused.close()

    def blink(self) -> None:
        """The operator's ``pg_terminate_backend`` of every session of the bot, new ones allowed."""
        with self.server.admin() as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (self.name,),
            )


class SqliteBlackout(Blackout):
    """Every statement of the bot's storage meets the I/O error SQLite raises when its disk fails."""

    def __init__(self, db: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.db = db
        self.away = False
        self.failing_writes = 0
        self.refused = 0
        run, write = db.run, db.write

        async def guarded_run(fn: Callable[[Any], Any]) -> Any:
            self._check()
            return await run(fn)

        async def guarded_write(fn: Callable[[Any], Any]) -> Any:
            if self.failing_writes:
                self.failing_writes -= 1
                self.away, away = True, self.away
                try:
                    self._check()
                finally:
                    self.away = away
            self._check()
            return await write(fn)

        monkeypatch.setattr(db, "run", guarded_run)
        monkeypatch.setattr(db, "write", guarded_write)

    def _check(self) -> None:
        if self.away:
            self.refused += 1
            raise DiskIOError(str(self.db.path), "disk I/O error (injected by the test)")

    def begin(self) -> None:
        self.away = True

    def end(self) -> None:
        self.away = False

    def blink(self) -> None:
        self.failing_writes = 1


@pytest.fixture
def blackout_for(
    request: pytest.FixtureRequest, database: BotDatabase, monkeypatch: pytest.MonkeyPatch
) -> Callable[[Any], Blackout]:
    def make(bot: Any) -> Blackout:
        if database.kind == "postgres":
            return PostgresBlackout(
                request.getfixturevalue("pg_server"), request.getfixturevalue("pg_database")
            )
        return SqliteBlackout(bot.storage.db, monkeypatch)

    return make


async def stored_actions(bot: Any, game_id: int) -> list[Any]:
    actions: list[Any] = await bot.service.storage.games.actions(game_id)
    return actions


@BOTH_BACKENDS
async def test_a_table_whose_database_blinked_serves_its_last_state_and_reloads_itself(
    fake_discord: Any, skybo: Any, blackout_for: Callable[[Any], Blackout], database: BotDatabase
) -> None:
    fake = fake_discord
    bot = await skybo()
    blackout = blackout_for(bot)
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = await until_turn(fake, bot, game_id, table_message, alice)
    await fake.wait_until(lambda: f"{alice.global_name} to play" in table_message.text, what="Alice's turn")
    version, logged = table.version, len(await stored_actions(bot, game_id))
    state = table.state.to_dict()
    assert (await health(bot))[0]
    panel = await open_panel(fake, alice, table_message)

    # The database goes away; Alice draws a card: the commit fails, so do its one retry and the reload.
    blackout.begin()
    answer = await private_answer(await fake.click(alice, panel, button(panel, "dr")))
    # Reads are served from the last committed state (before: "Sorry, something went wrong").
    again = await open_panel(fake, alice, table_message)
    assert t("table.error.internal", alice.locale) not in again.text, again.text
    assert any(c.endswith(":dr:0") for c in again.custom_ids), again.text  # her panel, drawable still
    bobs = await open_panel(fake, bob, table_message)
    assert bobs.custom_ids and t("table.error.internal", bob.locale) not in bobs.text
    # That state is the last committed one, never None; the move is not in it.
    assert table.state is not None and table.needs_reload
    assert table.version == version and table.state.to_dict() == state and table.state.drawn is None
    revision = table_message.revision
    # A redraw asked on the bus (test code may publish): the table message and its picture are drawn
    # from that last committed state too.
    bot.service.bus.publish(TableChanged(snapshot=TableSnapshot.of(table), cause="resumed"))
    await bot.presenter.flush()
    assert table_message.revision > revision and table_message.attachments
    assert f"{alice.global_name} to play" in table_message.text
    # The move was refused privately, in her language: the table is reconnecting.
    assert answer.text == t("table.error.reconnecting", "en-US")
    alice.locale = "fr"
    answer = await private_answer(await fake.click(alice, again, button(again, "dr")))
    assert answer.text == t("table.error.reconnecting", "fr") != t("table.error.reconnecting", "en-US")
    alice.locale = "en-US"
    # Health says it, and how many; the metrics count the failed retry and the waiting table.
    healthy, checks = await health(bot)
    assert not healthy and checks["tables"] == "1 waiting for the database", checks
    text = bot.metrics.text().decode()
    assert sample(text, "skybo_tables_waiting_for_database") == 1
    assert sample(text, "skybo_commit_retries_total", kind="skyjo", outcome="failed") >= 1
    assert sample(text, "skybo_table_reloads_total", outcome="failed") >= 1

    # The database is back: the table reloads itself, no click needed, and health is 200 again.
    blackout.end()
    await fake.wait_until(lambda: not table.needs_reload, timeout=15, what="the table reloaded")
    assert bot.service.tables[game_id] is table
    assert await health(bot) == (
        True,
        {"gateway": "ok", "database": "ok", "shards": "ok (not a fleet)", "tables": "ok"},
    )
    text = bot.metrics.text().decode()
    assert sample(text, "skybo_tables_waiting_for_database") == 0
    assert sample(text, "skybo_table_reloads_total", outcome="ok") == 1
    # Nothing was stored while it was away; the move applies now, once, with its click's key.
    assert table.version == version and len(await stored_actions(bot, game_id)) == logged
    panel = await open_panel(fake, alice, table_message)
    move = await fake.click(alice, panel, button(panel, "dr"))
    shown = await move.answer()
    assert shown.id == panel.id and "reconnecting" not in shown.text
    assert table.version == version + 1 and table.state.drawn is not None
    actions = await stored_actions(bot, game_id)
    assert len(actions) == logged + 1 and actions[-1].key == int(move.id)
    assert all(a.key is None or a.key != int(move.id) for a in actions[:-1])
    if isinstance(blackout, SqliteBlackout):
        assert blackout.refused >= 3  # the commit, its retry, the reload (and the reloader's tries)


@BOTH_BACKENDS
async def test_a_move_whose_connection_dropped_is_applied_by_its_one_retry(
    fake_discord: Any, skybo: Any, blackout_for: Callable[[Any], Blackout]
) -> None:
    """The operator ends the bot's sessions (PostgreSQL) or the disk hiccups once (SQLite) just
    before a move: its commit fails on the dropped connection, is made once more after reconnecting,
    and the player sees the move (before: "The game could not be saved just now; nothing changed")."""
    fake = fake_discord
    bot = await skybo()
    blackout = blackout_for(bot)
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = await until_turn(fake, bot, game_id, table_message, alice)
    version, logged = table.version, len(await stored_actions(bot, game_id))
    panel = await open_panel(fake, alice, table_message)
    # Nothing else about to write (the turn's mention kept in meta, a language noted): the move's
    # commit is the one that meets the dropped connection.
    await fake.wait_until(lambda: f"{alice.global_name} to play" in table_message.text, what="Alice's turn")
    await bot.presenter.flush()
    await fake.wait_until(lambda: not bot.service.locale_writes, what="the background writes")

    blackout.blink()
    move = await fake.click(alice, panel, button(panel, "dr"))
    shown = await move.answer()
    assert shown.id == panel.id, shown.text  # the panel, in place: no refusal
    assert table.version == version + 1 and table.state.drawn is not None and not table.needs_reload
    actions = await stored_actions(bot, game_id)
    assert len(actions) == logged + 1 and actions[-1].key == int(move.id)
    text = bot.metrics.text().decode()
    assert sample(text, "skybo_commit_retries_total", kind="skyjo", outcome="applied") == 1
    assert sample(text, "skybo_commit_failures_total", kind="skyjo") == 0
    assert (await health(bot))[0]
    # The game goes on: her next click (a replace) is committed as usual.
    move = await fake.click(alice, shown, button(shown, "rp"))
    await move.answer()
    assert table.version == version + 2
    assert (await stored_actions(bot, game_id))[-1].key == int(move.id)
