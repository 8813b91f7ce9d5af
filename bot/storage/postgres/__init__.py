"""The PostgreSQL backend (issue 24): :class:`~bot.storage.postgres.database.PostgresDatabase`, a
``Database`` for the shared repositories on psycopg 3 sync connections (threads, group commit, migrations
under an advisory lock), and the driver benchmark that chose psycopg 3 (``driver_bench``, see
docs/storage.md). ``DATABASE_URL`` (choosing it from the settings) comes next."""
