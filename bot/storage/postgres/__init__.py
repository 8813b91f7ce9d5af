"""The PostgreSQL backend (issue 24), in progress: so far the driver benchmark that chose psycopg 3
(``driver_bench``, see docs/storage.md). The backend itself (a ``Database`` for the shared
repositories, migrations, ``DATABASE_URL``) comes next."""
