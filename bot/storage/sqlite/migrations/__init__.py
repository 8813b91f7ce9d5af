"""The SQLite schema: numbered migrations NNNN_name.sql, applied in order (a package, so they ship)."""
