#!/bin/sh
# The part of the official postgres image's entry point that compose.yaml relies on: the first start
# makes the cluster in $PGDATA with POSTGRES_USER (a superuser, password POSTGRES_PASSWORD; password
# authentication over TCP) and the database POSTGRES_DB, made by a server listening on its socket only,
# so that pg_isready over TCP (compose.yaml's healthcheck) fails until it is done. Then the server.
set -eu
if [ "$(id -u)" = 0 ]; then
    # a fresh volume may belong to root: the server runs as postgres, with its data readable by it only
    chown postgres:postgres "$PGDATA"
    chmod 700 "$PGDATA"
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
POSTGRES_USER="${POSTGRES_USER:-postgres}"
POSTGRES_DB="${POSTGRES_DB:-$POSTGRES_USER}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile="$(mktemp)"
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    initdb --pgdata="$PGDATA" --username="$POSTGRES_USER" --pwfile="$pwfile" --encoding=UTF8 \
        --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$pwfile"
    echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    pg_ctl --pgdata="$PGDATA" --options="-c listen_addresses=''" --wait --silent start
    if [ "$POSTGRES_DB" != postgres ]; then
        createdb --username="$POSTGRES_USER" "$POSTGRES_DB"
    fi
    pg_ctl --pgdata="$PGDATA" --mode=fast --wait --silent stop
    echo "skybo-postgres: cluster made in $PGDATA (user $POSTGRES_USER, database $POSTGRES_DB)"
fi
exec "$@"
