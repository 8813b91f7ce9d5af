"""A PostgreSQL schema of its own for a Storage: the sandbox keeps its games apart from a bot's.

``in_schema(url, schema)`` gives a URL whose connections see only ``schema`` (first and only on their
``search_path``: tables, triggers, functions and ``schema_migrations`` are created and found there, so
``PostgresDatabase.open`` migrates it as it would a database of its own); ``recreate(url, schema)``
drops it with everything in it and creates it empty.
"""

from __future__ import annotations

import re

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from bot.storage.postgres.database import PostgresDatabase, describe, translate

_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def _checked(schema: str) -> str:
    if not _NAME.match(schema):
        raise ValueError(f"not a plain schema name: {schema!r}")
    return schema


def in_schema(url: str, schema: str) -> str:
    """``url`` (a URL or conninfo) as a libpq conninfo string with ``schema`` as its search path; the
    URL's own ``options`` are kept."""
    options = str(conninfo_to_dict(url).get("options") or "")
    return make_conninfo(url, options=f"{options} -c search_path={_checked(schema)}".strip())


def recreate(url: str, schema: str, *, keep: bool = False) -> None:
    """Drop ``schema`` (CASCADE) and create it empty; ``keep``: only create it if it is missing. Errors
    as storage errors naming the server."""
    name = _checked(schema)
    where, params = describe(url)
    conn = PostgresDatabase._connect(url, where, params)  # a refusal: one clear StorageUnusable
    try:
        if not keep:
            conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {name}")
    except psycopg.Error as error:
        raise translate(error, where) from error
    finally:
        conn.close()
