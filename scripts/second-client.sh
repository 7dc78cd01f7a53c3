#!/usr/bin/env bash
# Issue 22's first finding, as an administrator meets it: a server takes
# uploads while the sqlite3 shell (a cron job, a dashboard) opens and
# closes the same database and /healthz is polled; then the server is
# killed (SIGKILL) and what it acknowledged is counted in the file, with
# SQLite's integrity check. A `benchlog ingest` of seed files runs beside
# it in the second variant.
#
#   cargo build --release
#   scripts/second-client.sh [BINARY] [ROUNDS]
#
# Prints, per round, the uploads acknowledged (303), the submissions the
# file holds after the kill, and the integrity check's verdict.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-target/release/benchlog}
rounds=${2:-4}
port=18633
work=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

for ingest in no yes; do
  for round in $(seq "$rounds"); do
    db="$work/r$round-$ingest.db"
    "$binary" serve --db "$db" --listen "127.0.0.1:$port" --uploads-per-minute 0 \
      >"$work/serve.log" 2>&1 &
    server=$!
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
    importer=
    if [ "$ingest" = yes ]; then
      "$binary" ingest --db "$db" fixtures/ >/dev/null 2>&1 &
      importer=$!
    fi
    acknowledged=0
    for n in 1 2 3 4; do
      text="second-client round $round upload $n
super-smack -d mysql select-key.smack $((n * 10)) 10000
Query Barrel Report for client smacker1
connect: max=4ms min=1ms avg= 2ms from $((n * 10)) clients
Query_type num_queries max_time min_time q_per_s
select_index $((n * 200000)) 0 0 $((1000 + round * 10 + n)).5"
      code=$(curl -s -o /dev/null -w '%{http_code}' --data-urlencode "text=$text" \
        "http://127.0.0.1:$port/upload")
      [ "$code" = 303 ] && acknowledged=$((acknowledged + 1))
      curl -s "http://127.0.0.1:$port/healthz" >/dev/null
      sqlite3 "$db" 'select count(*) from submissions' >/dev/null 2>&1 || true
    done
    [ -z "$importer" ] || wait "$importer" || true
    kill -9 "$server"; wait "$server" 2>/dev/null || true
    held=$(sqlite3 "$db" "select count(*) from submissions where text like 'second-client round%'" 2>&1 || true)
    check=$(sqlite3 "$db" 'pragma integrity_check' 2>&1 | head -1 || true)
    echo "ingest beside: $ingest  round $round: acknowledged $acknowledged, held after SIGKILL $held, integrity: $check"
  done
done
