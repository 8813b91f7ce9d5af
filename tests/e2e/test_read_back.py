"""A move whose commit landed but whose answer was lost, and the database away for a moment after it.

Seen once on a loaded machine (tests/e2e/test_db_faults.py, a PostgreSQL restart): the COMMIT reached
the server, the connection dropped before its answer came back, the one retry met the server still
restarting, and so did the single read-back (``GameLedger._settle``): the click was refused "the table is
reconnecting; try again" although the move was in the log. Now a human's click (it carries its key)
whose outcome is unknown reads the game back again with growing pauses while within
:data:`bot.storage.game_commit.SETTLE_WITHIN_S`, and is answered with its move when the log holds it.

The fault, made deterministic: the bot's database object runs the move's write for real (committed)
and then raises the transient error its backend raises when a connection drops (SQLite's I/O error,
PostgreSQL's lost connection); from then on every read and write of the bot's storage raises it too,
for ``away`` seconds, and the database answers again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from bot.i18n import translate as t
from bot.storage.errors import ConnectionLost, DiskIOError, StorageError
from bot.storage.game_commit import SETTLE_WITHIN_S

from .conftest import BOTH_BACKENDS, BotDatabase, button, open_panel, start_table, until_turn
from .test_db_blink import stored_actions


class LostAnswer:
    """``arm(away)``: the next write of the bot's storage is committed and then fails as a dropped
    connection would (the outcome unknown to the bot); every read and write then fails the same way
    until ``away`` seconds after that commit."""

    def __init__(self, db: Any, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
        self.db, self.kind = db, kind
        self.armed = False
        self.away_until = 0.0
        self.landed_at: float | None = None
        self.refused_reads = self.refused_writes = 0
        run, write = db.run, db.write

        async def guarded_run(fn: Callable[[Any], Any]) -> Any:
            if self._away():
                self.refused_reads += 1
                raise self._error()
            return await run(fn)

        async def guarded_write(fn: Callable[[Any], Any]) -> Any:
            if self._away():
                self.refused_writes += 1
                raise self._error()
            if not self.armed:
                return await write(fn)
            self.armed = False
            await write(fn)  # committed: only its answer is lost
            self.landed_at = time.monotonic()
            self.away_until = self.landed_at + self.away
            raise self._error()

        monkeypatch.setattr(db, "run", guarded_run)
        monkeypatch.setattr(db, "write", guarded_write)

    def arm(self, away: float) -> None:
        self.away, self.armed = away, True

    def _away(self) -> bool:
        return time.monotonic() < self.away_until

    def _error(self) -> StorageError:
        if self.kind == "sqlite":
            return DiskIOError(str(self.db.path), "disk I/O error (injected by the test)")
        return ConnectionLost("the test's server", "server closed the connection unexpectedly (injected)")


async def ready_to_draw(fake: Any, bot: Any) -> tuple[Any, Any, int, Any, Any]:
    """A Skyjo table where Alice is to draw, nothing else about to write: (table, her panel, the
    number of logged actions, Alice, the table message)."""
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message, game_id = await start_table(fake, bot, alice, [bob])
    table = await until_turn(fake, bot, game_id, table_message, alice)
    panel = await open_panel(fake, alice, table_message)
    await fake.wait_until(lambda: f"{alice.global_name} to play" in table_message.text, what="Alice's turn")
    await bot.presenter.flush()
    await fake.wait_until(lambda: not bot.service.locale_writes, what="the background writes")
    return table, panel, len(await stored_actions(bot, game_id)), alice, table_message


@BOTH_BACKENDS
async def test_a_move_that_landed_while_the_database_blinked_is_answered_as_a_move(
    fake_discord: Any, skybo: Any, database: BotDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit lands, its answer is lost, the retry and the first read-backs are refused for a
    second: the click is answered with the move (before: "the table is reconnecting; try again")."""
    fake = fake_discord
    bot = await skybo()
    lost = LostAnswer(bot.storage.db, database.kind, monkeypatch)
    table, panel, logged, alice, _ = await ready_to_draw(fake, bot)
    version = table.version

    lost.arm(away=1.0)
    move = await fake.click(alice, panel, button(panel, "dr"))
    shown = await move.answer(timeout=10)
    assert lost.landed_at is not None and lost.refused_writes >= 1  # the retry met the outage
    assert lost.refused_reads >= 1  # so did the first read-back
    assert shown.text != t("table.error.reconnecting", alice.locale), "told to try again, yet stored"
    assert shown.id == panel.id, shown.text  # her panel, in place, showing the drawn card
    assert any(c.endswith(":rp:0") for c in shown.custom_ids), shown.custom_ids
    assert table.version == version + 1 and table.state.drawn is not None and not table.needs_reload
    actions = await stored_actions(bot, table.id)
    assert len(actions) == logged + 1 and [a.key for a in actions].count(int(move.id)) == 1
    # The game goes on from there: her next click is committed as usual.
    move = await fake.click(alice, shown, button(shown, "rp"))
    await move.answer()
    assert table.version == version + 2 and (await stored_actions(bot, table.id))[-1].key == int(move.id)


async def test_a_move_that_landed_before_a_long_outage_is_refused_then_found_once(
    fake_discord: Any, skybo: Any, database: BotDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database stays away longer than the settle time: the click is refused "reconnecting" as
    before (after the read-backs tried for SETTLE_WITHIN_S), the table waits for its database, and once
    it is back the reload finds the move in the log, once; nothing is applied twice."""
    fake = fake_discord
    bot = await skybo()
    lost = LostAnswer(bot.storage.db, database.kind, monkeypatch)
    table, panel, logged, alice, table_message = await ready_to_draw(fake, bot)
    version = table.version

    lost.arm(away=SETTLE_WITHIN_S + 2.0)
    move = await fake.click(alice, panel, button(panel, "dr"))
    answer = await move.answer(timeout=10)
    assert answer.ephemeral and answer.visible_to == alice.id, "the refusal is for the clicker only"
    answered_at, reads = time.monotonic(), lost.refused_reads
    assert answer.text == t("table.error.reconnecting", alice.locale)
    assert lost.landed_at is not None and answered_at - lost.landed_at >= SETTLE_WITHIN_S - 0.5
    assert reads >= 4, reads  # read back again and again, not once
    assert table.needs_reload and table.version == version and table.state.drawn is None

    # The database is back: the table reloads itself and finds the move, logged once.
    await fake.wait_until(lambda: not table.needs_reload, timeout=15, what="the table reloaded")
    assert table.version == version + 1 and table.state.drawn is not None
    actions = await stored_actions(bot, table.id)
    assert len(actions) == logged + 1 and [a.key for a in actions].count(int(move.id)) == 1
    # Her next click, on a fresh panel, is the game's next move, applied once.
    panel = await open_panel(fake, alice, table_message)
    again = await fake.click(alice, panel, button(panel, "rp"))
    shown = await again.answer()
    assert shown.id == panel.id and table.version == version + 2, shown.text
    actions = await stored_actions(bot, table.id)
    assert len(actions) == logged + 2 and [a.key for a in actions].count(int(move.id)) == 1
