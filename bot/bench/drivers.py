"""``python -m bot bench drivers``: psycopg 3 vs asyncpg vs SQLite for durable "apply an action" commits.

The measurement lives with the PostgreSQL backend it chose (``bot.storage.postgres.driver_bench``):
only ``bot/storage/`` imports database drivers.
"""

from __future__ import annotations

from bot.storage.postgres.driver_bench import run

__all__ = ["run"]
