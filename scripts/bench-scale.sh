#!/usr/bin/env bash
# One command for the scale benchmark (docs/performance.md): builds a
# database of >= 1,000,000 results, serves it from a release build on
# 127.0.0.1 and measures the heavy pages with wrk (32 connections, 10 s each),
# with /healthz as the base of the ratios, then the server's peak RSS.
#
#   scripts/bench-scale.sh            # database kept in target/bench-scale/
#   BENCH_SECONDS=5 BENCH_RUNS=60000 scripts/bench-scale.sh
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH=${BENCH_SECONDS:-10}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
RUNS=${BENCH_RUNS:-60000}
PORT=${BENCH_PORT:-18931}
DIR=target/bench-scale
DB=$DIR/scale-$RUNS.db
BASE=http://127.0.0.1:$PORT

if ! command -v wrk >/dev/null; then
    echo "installing wrk" >&2
    apt-get install -y wrk >/dev/null
fi
cargo build --release --quiet --bin benchlog --example gen_scale_db
mkdir -p "$DIR"
# Builds the database once; later runs reuse it and print its counts.
target/release/examples/gen_scale_db "$DB" "$RUNS"

target/release/benchlog serve --db "$DB" --listen "127.0.0.1:$PORT" --static-dir static 2>"$DIR/serve.log" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    curl -fs "$BASE/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done

# Median submission, and the comparison a reader of the lists would ask for.
SUBMISSION=$(( RUNS / 12 ))
COMPARE='tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&by=thread_lib'
PAGES=(
    "healthz /healthz"
    "compare /compare?$COMPARE"
    "compare.svg /compare.svg?$COMPARE"
    "compare.csv /compare.csv?$COMPARE"
    "runs /runs"
    "runs-filtered /runs?tool=sysbench&where=scheduler:ULE&page=3"
    "submission /submissions/$SUBMISSION"
    "home /"
)

echo "database: $DB ($(du -h "$DB" | cut -f1))"
echo "wrk: $CONNECTIONS connections, ${SECONDS_EACH}s per page, 2 threads, $(nproc) cores"
printf '%-14s %10s %10s %10s %8s %8s\n' page req/s median_ms p99_ms vs_hz bytes
healthz_rps=
for entry in "${PAGES[@]}"; do
    name=${entry%% *}
    path=${entry#* }
    bytes=$(curl -fs "$BASE$path" | wc -c)
    out=$(wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency "$BASE$path")
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    median=$(awk '$1 == "50%" {print $2}' <<<"$out")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
    non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
    [ -n "$healthz_rps" ] || healthz_rps=$rps
    ratio=$(awk -v a="$rps" -v b="$healthz_rps" 'BEGIN {printf "%.0f%%", 100 * a / b}')
    to_ms() { awk -v v="$1" 'BEGIN {
        if (v ~ /us$/) printf "%.2f", v / 1000; else if (v ~ /ms$/) printf "%.2f", v + 0;
        else if (v ~ /s$/) printf "%.2f", v * 1000; else print v }'; }
    printf '%-14s %10s %10s %10s %8s %8s%s\n' "$name" "$rps" "$(to_ms "$median")" "$(to_ms "$p99")" \
        "$ratio" "$bytes" "${non2xx:+  NON-2XX: $non2xx}"
done
echo "peak RSS of benchlog serve: $(awk '/VmHWM/ {printf "%.1f MB", $2 / 1024}' "/proc/$SERVER/status")"
