"""PostgreSQL-only helper of ``python -m bench backends``: the server settings that decide what a
durable commit costs, read from the live server (not from the configuration we asked for)."""

from __future__ import annotations

from bot.storage.backend import Connection, Database

# What a commit waits for (synchronous_commit, fsync, wal_sync_method, commit_delay), what it writes
# (full_page_writes, wal_compression) and how much is cached.
SETTINGS = (
    "server_version",
    "synchronous_commit",
    "fsync",
    "wal_sync_method",
    "full_page_writes",
    "wal_compression",
    "commit_delay",
    "shared_buffers",
)


async def server_settings(db: Database) -> dict[str, str]:
    """``SETTINGS`` as the server reports them, and ``connection``: the unix socket or TCP address the
    storage's connections use (``inet_server_addr()`` is NULL on a unix socket)."""

    def read(conn: Connection) -> dict[str, str]:
        values = {}
        for name in SETTINGS:
            values[name] = str(conn.execute("SELECT current_setting(?)", (name,)).fetchone()[0])
        addr, port = conn.execute("SELECT inet_server_addr(), inet_server_port()").fetchone()
        values["connection"] = "unix socket" if addr is None else f"TCP {addr}:{port}"
        return values

    return await db.run(read)
