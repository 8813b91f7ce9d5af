"""The PostgreSQL schema: numbered migrations NNNN_name.sql, the same numbers and names as
``bot.storage.sqlite.migrations``, applied in order (a package, so they ship)."""
