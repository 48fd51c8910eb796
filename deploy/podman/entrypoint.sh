#!/bin/sh
# The entry point of deploy/podman/services.Containerfile's postgres and redis stand-ins: the
# server runs as its own user (postgres, redis), as in the official images; postgres makes its
# database on first start from POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB.
set -eu
as() { user="$1" && shift && exec setpriv --reuid="$user" --regid="$user" --init-groups "$@"; }

case "${1:-}" in
postgres)
    if [ "$(id -u)" = 0 ]; then
        mkdir -p "$PGDATA" /var/run/postgresql
        chown postgres:postgres "$PGDATA" /var/run/postgresql
        chmod 700 "$PGDATA"
        as postgres "$0" "$@"
    fi
    if [ ! -s "$PGDATA/PG_VERSION" ]; then
        user="${POSTGRES_USER:-postgres}"
        pwfile="$(mktemp)"
        printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" >"$pwfile"
        initdb --username="$user" --pwfile="$pwfile" --auth-local=trust \
            --auth-host=scram-sha-256 >/dev/null
        rm -f "$pwfile"
        echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
        echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
        db="${POSTGRES_DB:-$user}"
        if [ "$db" != postgres ]; then
            pg_ctl -w -o "-c listen_addresses=''" start >/dev/null
            createdb --username="$user" "$db"
            pg_ctl -w -m fast stop >/dev/null
        fi
    fi
    exec "$@"
    ;;
redis-server)
    shift
    as redis redis-server "$@" --protected-mode no
    ;;
*)
    exec "$@"
    ;;
esac
