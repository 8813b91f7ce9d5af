"""The PostgreSQL backend (issue 24): :class:`~bot.storage.postgres.database.PostgresDatabase`, a
``Database`` for the shared repositories on psycopg 3 sync connections (threads, group commit, migrations
under an advisory lock). Why psycopg 3: docs/storage.md (the driver bench that measured it was removed in
issue 39; its figures stay there). ``DATABASE_URL`` (choosing it from the settings) comes next."""
