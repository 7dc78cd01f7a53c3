#!/usr/bin/env bash
# The first compare page after a change against the bare SQL of its
# aggregation, as a ratio measured in one run (docs/performance.md,
# issue 15). Serves a copy of the scale database from a release build,
# then N times: a change (a small upload: a new data generation, so the
# kept page is stale and every connection's page cache is dropped), the
# first request of the page (curl's time_total), and the bare SQL of its
# aggregation in Python's sqlite3 on the same file, from one connection
# kept open throughout (scripts/bench-compare-sql.py). Prints both medians
# and page / bare.
#
#   scripts/bench-compare-sql.sh            # N=21
#   BENCH_N=41 scripts/bench-compare-sql.sh
#   BENCH_BIN=/tmp/benchlog-before scripts/bench-compare-sql.sh   # another build
#   BENCH_BIN=... BENCH_DB=old.db scripts/bench-compare-sql.sh     # and its database
set -euo pipefail
cd "$(dirname "$0")/.."

N=${BENCH_N:-21}
RUNS=${BENCH_RUNS:-60000}
PORT=${BENCH_PORT:-18932}
DIR=target/bench-scale
DB=${BENCH_DB:-$DIR/scale-$RUNS.db}
BASE=http://127.0.0.1:$PORT
COMPARE='tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&by=thread_lib'

BIN=${BENCH_BIN:-target/release/benchlog}
[ -n "${BENCH_BIN:-}" ] || cargo build --release --quiet --bin benchlog
[ -f "$DB" ] || cargo build --release --quiet --example gen_scale_db
mkdir -p "$DIR"
# Builds the database once; later runs reuse it.
[ -f "$DB" ] || target/release/examples/gen_scale_db "$DB" "$RUNS"

# A fresh copy each time: the run below uploads into it.
SERVED=$DIR/compare-sql.db
rm -f "$SERVED" "$SERVED-wal" "$SERVED-shm"
cp "$DB" "$SERVED"
"$BIN" serve --db "$SERVED" --listen "127.0.0.1:$PORT" --static-dir static \
    --uploads-per-minute 0 2>"$DIR/compare-sql-serve.log" &
SERVER=$!
coproc BARE { exec python3 scripts/bench-compare-sql.py "$SERVED"; }
trap 'kill $SERVER $BARE_PID 2>/dev/null || true' EXIT
# Opening migrates the copy when the build has newer migrations.
for _ in $(seq 600); do
    curl -fs "$BASE/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done

# change: one new small submission (scripts/bench-change.sh).
source scripts/bench-change.sh
bare_ms() {
    echo >&"${BARE[1]}"
    local ms
    read -r ms <&"${BARE[0]}"
    echo "$ms"
}
median() { sort -g | awk '{t[NR] = $1} END {m = (NR + 1) / 2; printf "%.1f", (t[int(m)] + t[int(m + 0.5)]) / 2}'; }

# Once each before measuring: the server's connections and statements, the
# helper's connection, and the file in the OS's cache.
curl -fs -o /dev/null "$BASE/compare?$COMPARE"
bare_ms >/dev/null

echo "$BIN; database: $DB ($(du -h "$DB" | cut -f1), served as a copy); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
page_times=() bare_times=()
for i in $(seq "$N"); do
    change
    page=$(curl -fs -o /dev/null -w '%{time_total}' "$BASE/compare?$COMPARE" | awk '{printf "%.2f", $1 * 1000}')
    bare=$(bare_ms)
    page_times+=("$page") bare_times+=("$bare")
    printf '%3d  page %7s ms  bare %7s ms\n' "$i" "$page" "$bare"
done
page_median=$(printf '%s\n' "${page_times[@]}" | median)
bare_median=$(printf '%s\n' "${bare_times[@]}" | median)
echo "first /compare?$COMPARE after a change, median of $N: $page_median ms"
echo "bare SQL of its aggregation (scripts/bench-compare-sql.py), median of $N: $bare_median ms"
awk -v p="$page_median" -v b="$bare_median" 'BEGIN {printf "page / bare: %.2fx\n", p / b}'
