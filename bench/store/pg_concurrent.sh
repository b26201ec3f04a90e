#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster (unix socket in a temp dir; as `nobody` when root), runs
# `store_bench concurrent` against it, stops it. Usage: pg_concurrent.sh BENCH DIR PROCS TRACES
set -euo pipefail
bin=$1 dir=$2 procs=$3 traces=$4
pgbin=$(dirname "$(command -v initdb 2>/dev/null || ls /usr/lib/postgresql/*/bin/initdb | head -1)")
[ -x "$pgbin/pg_ctl" ] || { echo "SKIPPED: PostgreSQL server binaries not found"; exit 0; }
pg=$(mktemp -d /tmp/ktune_pgb_XXXXXX)
as=()
if [ "$(id -u)" = 0 ]; then chown nobody "$pg"; as=(setpriv --reuid=nobody --regid=nogroup --clear-groups); fi
"${as[@]}" "$pgbin/initdb" -D "$pg/data" -A trust -U ktune -E UTF8 --locale=C --no-sync >"$pg/initdb.log"
"${as[@]}" "$pgbin/pg_ctl" -D "$pg/data" -l "$pg/server.log" -w \
    -o "-k $pg -c listen_addresses= -c max_connections=64" start >/dev/null
trap '"${as[@]}" "$pgbin/pg_ctl" -D "$pg/data" -m fast -w stop >/dev/null; rm -rf "$pg"' EXIT
mkdir -p "$dir"
"$bin" concurrent "postgresql:///postgres?host=$pg&user=ktune" "$dir" "$procs" "$traces"
