"""``python -m bot migrate-db --to postgresql://...``: move a SQLite database into an empty PostgreSQL one.

Run it with the bot stopped (``python -m bot migrate-db [--from data/skybo.sqlite3] --to
postgresql://user:pass@host:5432/skybo``), then start the bot with ``DATABASE_URL`` set to that URL. The
SQLite file is opened read-only and all of it is read in one read transaction (one consistent state, and
the file is never changed), so a bot still running on it does not break the copy; but an action it
stores after that moment is not copied: stop the bot first.

What it does, in ONE PostgreSQL transaction (any failure or refusal rolls all of it back, the target is
left as it was):

1. migrate the target with the PostgreSQL migrations when needed (under the migrations' advisory lock,
   held to the end: a bot or a second ``migrate-db`` starting on the target meanwhile waits for us),
   lock every table against writers, and refuse a target that holds any row of any Skybo table;
2. copy every table of the schema with its ids (``COPY``, parents before children), then set each
   identity sequence past the copied ids so new games and lobbies get fresh ones;
3. verify before committing: per table, the same row count and the same content (an order-independent
   digest of the normalised rows on both sides), and every game that is not quarantined replays from
   its copied log to its copied snapshot (the replay ``load_active`` uses, on the PostgreSQL rows).

Derived tables and triggers. ``rating_boards`` (players per board) is maintained by triggers on
``ratings``; copying ``ratings`` fires them. Disabling them is not an option for the app's role:
``session_replication_role`` needs a superuser, and ``ALTER TABLE ... DISABLE TRIGGER`` needs to own the
table (not the case when a DBA created the schema). So the triggers fire as usual, and once ``ratings``
is copied the rows they built are deleted and the source's ``rating_boards`` copied verbatim: no
double count, no privilege needed, and the derived table equals the source's exactly (a board emptied
by deletions keeps its zero row). A trigger on any other table is one this tool does not know about
(a later migration): the copy is refused until ``DERIVED`` below says what it maintains.

The source must be at this code's schema version: an older file is refused (start the bot once on it,
which migrates it, stop it, and run ``migrate-db`` again; this tool never writes to the source), and a
newer one too (use the code that wrote it). Nothing printed holds the password: the target is named by
its host, port and database only.

The driver work lives in the backends, as the storage boundary asks (``tests/storage/test_boundary.py``):
``bot.storage.sqlite.source`` reads the file, ``bot.storage.postgres.bulk`` fills the target; this module
holds the logic, and its few statements are the shared dialect.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.engine.base import GameState
from bot.storage.backend import Connection
from bot.storage.errors import StorageError
from bot.storage.game_log import _fetch_rows
from bot.storage.game_types import GameHead
from bot.storage.games import canonical_json, snapshot_hash
from bot.storage.postgres.bulk import BulkTarget
from bot.storage.postgres.database import describe
from bot.storage.postgres.database import load_migrations as postgres_migrations
from bot.storage.sqlite.database import load_migrations as sqlite_migrations
from bot.storage.sqlite.source import SourceDatabase

PROG = "migrate-db"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
# Tables written by triggers: derived table -> the tables whose triggers write it. The derived table is
# copied after those, over what the triggers built (see the module doc).
DERIVED: dict[str, tuple[str, ...]] = {"rating_boards": ("ratings",)}
# How a game's log is replayed (the service's :func:`bot.service.ledger.replay_log`: storage runs no
# game's rules, so the command line hands it in): ``replay(head, [(seq, seat, action JSON)...])``.
Replay = Callable[[GameHead, Sequence[tuple[int, int, str]]], GameState]

VERIFY_BATCH = 200  # games replayed per read of the target
_DIGEST_MOD = 1 << 128
_INTEGER_TYPES = frozenset({"smallint", "integer", "bigint"})
_FLOAT_TYPES = frozenset({"double precision", "real"})


class Refused(Exception):
    """Why nothing was copied, in one line."""


class VerificationFailed(Exception):
    """The copy does not match the source; it was rolled back."""


@dataclass
class Report:
    source: str
    target: str
    schema_version: int
    rows: dict[str, int] = field(default_factory=dict)  # table -> rows copied, in copy order
    games_by_status: dict[str, int] = field(default_factory=dict)
    replayed: int = 0  # games replayed to their snapshot on the target
    sequences: dict[str, int] = field(default_factory=dict)  # table -> the next id it will give
    seconds: float = 0.0


# ---------------------------------------------------------------------------------------- the source


def open_source(path: Path, expected_version: int) -> SourceDatabase:
    """The SQLite file, read-only, in one read transaction; refused unless it is a Skybo database at
    ``expected_version``."""
    if not path.is_file():
        raise Refused(f"{path}: no such file (give the SQLite database with --from, or set DATABASE_PATH)")
    try:
        source = SourceDatabase.open(path)
    except StorageError as error:
        raise Refused(str(error)) from None
    version = source.schema_version
    if version == 0 or "games" not in source.columns:
        source.close()
        raise Refused(f"{path}: not a Skybo database (no Skybo schema in it)")
    if version != expected_version:
        source.close()
        if version < expected_version:
            raise Refused(
                f"{path}: its schema is version {version}, this code's is {expected_version}: start the bot"
                " once on it (it migrates the file at start), stop it, then run migrate-db again"
            )
        raise Refused(
            f"{path}: its schema is version {version}, newer than this code's ({expected_version}):"
            " run migrate-db from the bot version that wrote it"
        )
    return source


def copy_order(tables: Iterable[str], parents: dict[str, set[str]]) -> list[str]:
    """Parents before children (foreign keys), derived tables after the tables that feed them."""
    needs = {t: set(parents.get(t, set())) | set(DERIVED.get(t, ())) for t in tables}
    order: list[str] = []
    while needs:
        ready = sorted(t for t, deps in needs.items() if not deps - set(order))
        if not ready:
            raise StorageError(f"the tables' foreign keys form a cycle: {sorted(needs)}")
        order.append(ready[0])
        del needs[ready[0]]
    return order


# ---------------------------------------------------------------------------------------- rows


def normalise(row: Sequence[Any], types: Sequence[str]) -> tuple[Any, ...]:
    """A row as both sides must hold it: ints for integer columns, floats for floating ones, text."""
    out: list[Any] = []
    for value, data_type in zip(row, types, strict=True):
        if value is None:
            out.append(None)
        elif data_type in _INTEGER_TYPES:
            if isinstance(value, float) and not value.is_integer():
                raise StorageError(f"a non-integer value {value!r} in an integer column")
            out.append(int(value))
        elif data_type in _FLOAT_TYPES:
            out.append(float(value))
        else:
            out.append(value if isinstance(value, str) else str(value))
    return tuple(out)


class Digest:
    """An order-independent digest of rows (a sum of their hashes): the same rows in any order give
    the same value, so both sides are read in their natural order, without sorting by collation."""

    def __init__(self) -> None:
        self.rows = 0
        self.value = 0

    def add(self, row: tuple[Any, ...]) -> tuple[Any, ...]:
        hashed = hashlib.blake2b(repr(row).encode("utf-8"), digest_size=16).digest()
        self.value = (self.value + int.from_bytes(hashed, "big")) % _DIGEST_MOD
        self.rows += 1
        return row

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Digest) and (self.rows, self.value) == (other.rows, other.value)

    __hash__ = None  # type: ignore[assignment]


def replay_games(conn: Connection, replay: Replay) -> tuple[int, list[str]]:
    """Replay every game but the quarantined ones from its log, as ``load_active`` does with a full
    check, on the target's rows; ``(games replayed, problems)``."""
    ids = [
        int(r[0])
        for r in conn.execute("SELECT id FROM games WHERE status <> ? ORDER BY id", ("quarantined",))
    ]
    replayed = 0
    problems: list[str] = []
    for start in range(0, len(ids), VERIFY_BATCH):
        low, high = ids[start], ids[min(start + VERIFY_BATCH, len(ids)) - 1]
        rows = _fetch_rows(conn, "g.id >= ? AND g.id <= ? AND g.status <> ?", (low, high, "quarantined"))
        logs: dict[int, list[tuple[int, int, str]]] = {}
        for game_id, seq, seat, action in conn.execute(
            "SELECT game_id, seq, seat, action FROM game_actions WHERE game_id >= ? AND game_id <= ?"
            " ORDER BY game_id, seq",
            (low, high),
        ):
            logs.setdefault(int(game_id), []).append((seq, seat, action))
        for row in rows:
            actions = logs.get(row.id, [])
            try:
                if snapshot_hash(row.snapshot) != row.snapshot_hash:
                    raise StorageError("its snapshot does not match its snapshot_hash")
                if row.version != len(actions):
                    raise StorageError(
                        f"its version is {row.version} but its log holds {len(actions)} actions"
                    )
                replayed_game = replay(row.head(), actions)
                if canonical_json(replayed_game.to_dict()) != row.snapshot:
                    raise StorageError("its log replays to another state than its snapshot")
            except Exception as error:  # the engine's own errors too: any game that does not replay
                problems.append(f"game {row.id}: {type(error).__name__}: {error}")
            else:
                replayed += 1
    return replayed, problems


# ---------------------------------------------------------------------------------------- the copy


def migrate(
    source_path: Path, url: str, say: Callable[[str], None] = lambda _line: None, *, replay: Replay
) -> Report:
    """Copy ``source_path`` into the empty PostgreSQL database at ``url``, verify it, commit; raises
    :class:`Refused` or :class:`VerificationFailed` (nothing changed) or a storage error. ``say`` gets
    a line per step once the copy has begun (a big database takes minutes: mostly the replays)."""
    started = time.perf_counter()
    if not url.startswith(POSTGRES_SCHEMES):
        raise Refused("--to must be a PostgreSQL URL: postgresql://user:pass@host:5432/db")
    latest = postgres_migrations()[-1].number
    if sqlite_migrations()[-1].number != latest:  # tests/storage/test_pg_schema.py keeps them equal
        raise StorageError("the SQLite and PostgreSQL migrations of this code differ")
    describe(url)  # a URL libpq cannot parse is refused before the source is opened
    source = open_source(source_path, latest)
    try:
        target = BulkTarget.connect(url)
    except BaseException:
        source.close()
        raise
    report = Report(str(source_path), target.where, source.schema_version)
    try:
        with target.transaction():  # everything below commits together, or not at all
            target.migrate()  # a savepoint: rolled back with the rest on any refusal
            wanted = target.columns()
            _same_schema(source, wanted)
            tables = copy_order(source.columns, source.parents)
            target.lock(tables)
            _refuse_if_not_empty(target, tables)
            _check_triggers(target)
            say(f"copying {source_path} (schema version {source.schema_version}) into {target.where}:")
            width = max(len(t) for t in tables)
            sent: dict[str, Digest] = {}
            for table in tables:
                columns = [c for c, _ in wanted[table]]
                types = [t for _, t in wanted[table]]
                if table in DERIVED:  # what the triggers built while their tables were copied
                    target.delete_all(table)
                digest = sent[table] = Digest()
                target.copy_rows(
                    table, columns, (digest.add(normalise(r, types)) for r in source.rows(table, columns))
                )
                report.rows[table] = digest.rows
                say(f"  {table:<{width}}  {digest.rows:>9} rows")
            report.sequences = target.reset_identities()
            say("verifying: the rows of every table on both sides, then every game's log by replay...")
            problems: list[str] = []
            for table in tables:
                columns = [c for c, _ in wanted[table]]
                types = [t for _, t in wanted[table]]
                got = Digest()
                for row in target.rows(table, columns):
                    got.add(normalise(row, types))
                if got.rows != sent[table].rows:
                    problems.append(f"{table}: {sent[table].rows} rows in SQLite, {got.rows} in PostgreSQL")
                elif got != sent[table]:
                    problems.append(f"{table}: the same row count but other contents")
            conn = target.connection
            report.games_by_status = {
                str(s): int(n) for s, n in conn.execute("SELECT status, count(*) FROM games GROUP BY status")
            }
            report.replayed, replay_problems = replay_games(conn, replay)
            problems += replay_problems
            if problems:
                more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
                raise VerificationFailed("; ".join(problems[:10]) + more)
    finally:
        target.close()
        source.close()
    report.seconds = time.perf_counter() - started
    return report


def _same_schema(source: SourceDatabase, target: dict[str, list[tuple[str, str]]]) -> None:
    if set(source.columns) != set(target):
        raise Refused(
            f"the two schemas hold different tables (SQLite: {sorted(source.columns)}, PostgreSQL:"
            f" {sorted(target)}): is the target another application's database?"
        )
    for table, columns in source.columns.items():
        if columns != [c for c, _ in target[table]]:
            raise Refused(f"the table {table} has other columns in SQLite and in PostgreSQL")


def _refuse_if_not_empty(target: BulkTarget, tables: list[str]) -> None:
    held = [f"{table}: {n}" for table in tables if (n := target.count(table))]
    if held:
        raise Refused(
            f"{target.where} already holds Skybo data ({', '.join(held)}); migrate-db copies into an empty"
            " database only (was it already migrated? otherwise drop and create it again)"
        )


def _check_triggers(target: BulkTarget) -> None:
    """Refuse a trigger this tool does not know about: it could count a copied row twice."""
    feeders = {t for sources in DERIVED.values() for t in sources}
    for table, trigger in target.user_triggers():
        if table not in feeders:
            raise Refused(
                f"the target's table {table} has a trigger ({trigger}) that migrate-db does not know:"
                " say in DERIVED (bot/storage/migrate.py) which table it maintains"
            )


# ---------------------------------------------------------------------------------------- the command


def _lines(report: Report) -> Iterator[str]:
    """The summary, once committed (the per-table counts were said during the copy)."""
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(report.games_by_status.items()))
    yield f"games: {statuses or 'none'}"
    quarantined = report.games_by_status.get("quarantined", 0)
    yield (
        "verified: every table holds the same rows in PostgreSQL as in SQLite (counts and contents);"
        f" {report.replayed} games replay from their logs to their snapshots"
        + (f" ({quarantined} quarantined, copied as they are, not replayed)" if quarantined else "")
    )
    if report.sequences:
        nexts = ", ".join(f"{t} from {n}" for t, n in report.sequences.items())
        yield f"new ids: {nexts}"
    yield f"committed in {report.seconds:.2f} s; start the bot with DATABASE_URL set to the --to URL"


def _scrub(text: str, url: str, *, error: bool = False) -> str:
    """Never a password in what is printed. The progress lines hold only what this module writes (the
    target is named by host, port and database), so the URL is masked there; an error line may quote a
    driver's message, so the password itself is masked there too, wherever it appears."""
    from bot.config import shown_url

    text = text.replace(url, shown_url(url) or "")
    if error:
        try:
            password = describe(url)[1].get("password")
        except StorageError:
            password = None
        if password:
            text = text.replace(str(password), "***")
    return text


def main(args: list[str], replay: Replay) -> int:
    """``migrate-db``; ``replay``: how a game's log is replayed for the verification (see :data:`Replay`)."""
    parser = argparse.ArgumentParser(
        prog=f"python -m bot {PROG}",
        description="Copy a SQLite database into an empty PostgreSQL database, and verify the copy.",
    )
    parser.add_argument(
        "--from", dest="source", type=Path, default=None, help="the SQLite file (default: DATABASE_PATH)"
    )
    parser.add_argument("--to", dest="url", required=True, help="postgresql://user:pass@host:5432/db")
    options = parser.parse_args(args)
    url: str = options.url
    try:
        source: Path = options.source or _default_database()
        report = migrate(source, url, lambda line: print(_scrub(line, url), flush=True), replay=replay)
    except Refused as refusal:
        print(_scrub(f"{PROG}: refused: {refusal}", url, error=True), file=sys.stderr)
        return 1
    except VerificationFailed as failure:
        message = f"{PROG}: the copy did not verify, nothing was kept: {failure}"
        print(_scrub(message, url, error=True), file=sys.stderr)
        return 1
    except StorageError as error:
        print(_scrub(f"{PROG}: {error}", url, error=True), file=sys.stderr)
        return 1
    for line in _lines(report):
        print(_scrub(line, url))
    return 0


def _default_database() -> Path:
    from bot.config import ConfigError, load_settings

    try:
        return load_settings().database_path
    except ConfigError as error:
        raise Refused(f"the settings are invalid ({error}); give the SQLite file with --from") from None
