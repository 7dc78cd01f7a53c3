#!/usr/bin/env bash
# One command for the scale benchmark (docs/performance.md): builds a
# database of >= 1,000,000 results, serves it from a release build on
# 127.0.0.1 and measures the heavy pages with wrk (32 connections, 10 s each),
# with /healthz as the base of the ratios, then the server's peak RSS; then
# the in-process criterion benchmarks of chart rendering, parsing and ingest
# (a few minutes more; BENCH_CRITERION=0 leaves them out). Between the two:
# the 16 MB mbox upload, ingest against copying the same rows
# (scripts/bench-ingest.sh) and the first compare page against its bare SQL
# (scripts/bench-compare-sql.sh).
#
#   scripts/bench-scale.sh            # database kept in target/bench-scale/
#   BENCH_SECONDS=5 BENCH_RUNS=60000 BENCH_CRITERION=0 scripts/bench-scale.sh
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

# A fresh copy each time: the run below uploads into it.
SERVED=$DIR/serving.db
rm -f "$SERVED" "$SERVED-wal" "$SERVED-shm"
cp "$DB" "$SERVED"
target/release/benchlog serve --db "$SERVED" --listen "127.0.0.1:$PORT" --static-dir static \
    --uploads-per-minute 0 --submissions-per-minute 0 2>"$DIR/serve.log" &
SERVER=$!
WRITER=
trap 'kill $SERVER $WRITER 2>/dev/null || true' EXIT
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
    "compare.json /compare.json?$COMPARE"
    "runs /runs"
    "runs-filtered /runs?tool=sysbench&where=scheduler:ULE&page=3"
    "submission /submissions/$SUBMISSION"
    "home /"
)

echo "database: $DB ($(du -h "$DB" | cut -f1))"
echo "wrk: $CONNECTIONS connections, ${SECONDS_EACH}s per page, 2 threads, $(nproc) cores"
printf '%-14s %10s %10s %10s %8s %9s %8s %8s\n' page req/s median_ms p99_ms vs_hz made_ms bytes peak_mb
healthz_rps=
# change: one new small submission (scripts/bench-change.sh).
source scripts/bench-change.sh
# made_ms PATH: the median time of the page's first request after a change
# of the data (11 changes), i.e. the cost of making it.
made_ms() {
    local times=()
    for _ in $(seq 11); do
        change
        times+=("$(curl -fs -o /dev/null -w '%{time_total}' "$BASE$1")")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{t[NR] = $1} END {printf "%.1f", t[6] * 1000}'
}
to_ms() { awk -v v="$1" 'BEGIN {
    if (v ~ /us$/) printf "%.2f", v / 1000; else if (v ~ /ms$/) printf "%.2f", v + 0;
    else if (v ~ /s$/) printf "%.2f", v * 1000; else print v }'; }
# measure NAME PATH: one row of the table.
measure() {
    local name=$1 path=$2 made bytes out rps median p99 non2xx ratio peak
    made=$(made_ms "$path")
    # wrk then measures the page as readers of a shared link get it.
    bytes=$(curl -fs "$BASE$path" | wc -c)
    out=$(wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency "$BASE$path")
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    median=$(awk '$1 == "50%" {print $2}' <<<"$out")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
    non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
    [ -n "$healthz_rps" ] || healthz_rps=$rps
    ratio=$(awk -v a="$rps" -v b="$healthz_rps" 'BEGIN {printf "%.0f%%", 100 * a / b}')
    # Peak RSS so far (VmHWM): which page raised it.
    peak=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$SERVER/status")
    printf '%-14s %10s %10s %10s %8s %9s %8s %8s%s\n' "$name" "$rps" "$(to_ms "$median")" "$(to_ms "$p99")" \
        "$ratio" "$made" "$bytes" "$peak" "${non2xx:+  NON-2XX: $non2xx}"
}
for entry in "${PAGES[@]}"; do
    measure "${entry%% *}" "${entry#* }"
done

# The comparison again while the data changes: a new super-smack
# submission every CHANGE_MS ms, each making every kept page stale.
CHANGE_MS=${BENCH_CHANGE_MS:-250}
: >"$DIR/uploads"
(
    i=0
    while :; do
        i=$((i + 1))
        change && echo "$i" >>"$DIR/uploads"
        sleep "$(awk -v ms="$CHANGE_MS" 'BEGIN {print ms / 1000}')"
    done
) &
WRITER=$!
measure "compare+writes" "/compare?$COMPARE"
measure "csv+writes" "/compare.csv?$COMPARE"
kill $WRITER 2>/dev/null || true
WRITER=
echo "+writes: a new submission every ${CHANGE_MS} ms during those runs, $(wc -l <"$DIR/uploads") stored"

# The upload target (<= 3 s): a 16 MB mbox of result-heavy mail through
# the web form into this database, three times, each with other numbers
# (scripts/gen-seed-variants.py), so that each stores 535 new submissions.
upload_times=()
for seed in 1 2 3; do
    mbox=$DIR/upload-16mb-$seed.mbox
    [ -f "$mbox" ] || python3 scripts/gen-seed-variants.py mbox "$mbox" "$seed" >/dev/null
    upload_times+=("$(curl -fs -o /dev/null -w '%{time_total}' -F "file=@$mbox" "$BASE/upload")")
done
echo "upload of a 16 MB mbox (535 messages, 18,151 runs): ${upload_times[*]} s; median $(printf '%s\n' "${upload_times[@]}" | sort -g | sed -n 2p) s (target 3 s)"
echo "peak RSS of benchlog serve: $(awk '/VmHWM/ {printf "%.1f MB", $2 / 1024}' "/proc/$SERVER/status")"
kill $SERVER 2>/dev/null || true

# The ratios of issue 15, each measured in one run by its own script:
# ingest against copying the same rows, and the first compare page after
# a change against the bare SQL of its aggregation, parsing against grep.
scripts/bench-ingest.sh
scripts/bench-compare-sql.sh
# Parsing against grep over the same corpus.
scripts/bench-parse.sh

if [ "${BENCH_CRITERION:-1}" != 0 ]; then
    # criterion's medians (the middle figure of each interval).
    criterion() {
        cargo bench --quiet "$@" 2>/dev/null | awk '
            /^[a-z][^ ]*$/ {name = $1}
            /^[a-z].*time:/ {name = substr($0, 1, index($0, "time:") - 1); sub(/ +$/, "", name)}
            /time:/ {print "  " name ": time " $(NF - 3) " " $(NF - 2)}
            /thrpt:/ {print "  " name ": throughput " $(NF - 3) " " $(NF - 2)}'
    }
    echo "chart rendering, 10 series x 20 points (cargo bench --bench charts):"
    criterion --bench charts
    echo "parsing a 64 MB mail corpus (cargo bench -p parsers --bench parse):"
    criterion -p parsers --bench parse
    echo "ingest of a 56 MB mail archive into a fresh database (cargo bench --bench ingest):"
    criterion --bench ingest
fi
