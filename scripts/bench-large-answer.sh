#!/usr/bin/env bash
# A large answer served again (docs/performance.md, "Large answers"): the
# comparison's /compare.json on the scale database, whose size passes
# what the in-memory cache takes for one item at 600,000 runs (32.7 MB),
# measured with wrk as made (identity) and gzipped, by a release build of
# BENCH_BEFORE (default main), of this work tree, and by nginx sending
# the same bytes from a file (and the same gzip copy, gzip_static) as the
# ratio's base: all three serving at once, measured in turns for
# BENCH_ROUNDS rounds, each quoted as its median and range.
#
#   scripts/bench-large-answer.sh                       # 600,000 runs
#   BENCH_RUNS=60000 BENCH_ROUNDS=3 scripts/bench-large-answer.sh
#   BENCH_BEFORE_BIN=path/to/benchlog scripts/bench-large-answer.sh
#
# The database is made once in target/bench-scale/ (as
# scripts/bench-scale.sh makes it: a few minutes at 600,000 runs).
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${BENCH_RUNS:-600000}
SECONDS_EACH=${BENCH_SECONDS:-5}
ROUNDS=${BENCH_ROUNDS:-5}
CONNECTIONS=${BENCH_CONNECTIONS:-8}
BEFORE=${BENCH_BEFORE:-main}
PORT=${BENCH_PORT:-18941}
TARGET=${CARGO_TARGET_DIR:-target}
DIR=target/bench-scale
DB=$DIR/scale-$RUNS.db
WORK=$DIR/large-answer
COMPARE='tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&by=thread_lib'

for tool in wrk nginx; do
    command -v $tool >/dev/null || { echo "installing $tool" >&2; apt-get install -y "$([ $tool = nginx ] && echo nginx-light || echo wrk)" >/dev/null; }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
mkdir -p "$WORK"

# The binary of BEFORE, built from its tree (git archive) in a target dir
# of its own; and this tree's.
# BENCH_BEFORE_BIN names one built already.
BEFORE_BIN=${BENCH_BEFORE_BIN:-}
if [ -z "$BEFORE_BIN" ]; then
    rm -rf "$WORK/before-src"
    mkdir -p "$WORK/before-src"
    git archive "$BEFORE" | tar -x -C "$WORK/before-src"
    (cd "$WORK/before-src" && CARGO_TARGET_DIR="$TARGET/bench-before" cargo build --release --quiet --bin benchlog)
    BEFORE_BIN=$TARGET/bench-before/release/benchlog
fi
cargo build --release --quiet --bin benchlog --example gen_scale_db
AFTER_BIN=$TARGET/release/benchlog
"$TARGET/release/examples/gen_scale_db" "$DB" "$RUNS"

SERVERS=()
trap 'for pid in "${SERVERS[@]}"; do kill $pid 2>/dev/null || true; done' EXIT
# wait_for URL (scripts/bench-change.sh).
source scripts/bench-change.sh
# rate NAME URL [HEADER]: one wrk run; appends its req/s to $WORK/NAME.rates.
rate() {
    wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --timeout 60s ${3:+-H "$3"} "$2" |
        awk '/Non-2xx|Socket errors/ {print "wrk: " $0 > "/dev/stderr"} /Requests\/sec/ {print $2}' >>"$WORK/$1.rates"
}
# The median of NAME's runs.
median() {
    sort -g "$WORK/$1.rates" |
        awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
# summary NAME [BASE]: NAME's median req/s, its range, and the ratio of
# that median to BASE's.
summary() {
    local m range ratio=""
    m=$(median "$1")
    range=$(sort -g "$WORK/$1.rates" | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%s–%s", lo, hi}')
    [ -n "${2:-}" ] && ratio=$(awk -v a="$m" -v b="$(median "$2")" 'BEGIN {printf "%.2f×", a / b}')
    printf '%-24s %10s %22s %8s\n' "$1" "$m" "$range" "$ratio"
}

echo "database: $DB ($(du -h "$DB" | cut -f1)); wrk -t2 -c$CONNECTIONS, ${SECONDS_EACH}s each, $ROUNDS rounds in turns, $(nproc) cores"
port=$PORT
declare -A URLS PIDS
for which in before after; do
    bin=$BEFORE_BIN
    [ $which = after ] && bin=$AFTER_BIN
    SERVED=$WORK/serving-$which.db
    rm -f "$SERVED" "$SERVED-wal" "$SERVED-shm"
    cp "$DB" "$SERVED"
    # Older trees take the static files' folder; newer ones embed them.
    static=()
    "$bin" serve --help | grep -q -- --static-dir && static=(--static-dir static)
    "$bin" serve --db "$SERVED" --listen "127.0.0.1:$port" "${static[@]}" 2>"$WORK/serve-$which.log" &
    SERVERS+=($!)
    PIDS[$which]=$!
    base=http://127.0.0.1:$port
    wait_for "$base/healthz"
    # The start-up check reads the whole file once on a thread of its
    # own (a few seconds for a 3.6 GB database): what is measured starts
    # after it, or the check competes for the CPU. Older builds do not
    # say when it ends: they are given 30 s.
    for _ in $(seq 300); do
        grep -q "the database file is" "$WORK/serve-$which.log" && break
        sleep 0.1
    done
    URLS[$which]="$base/compare.json?$COMPARE"
    # The first request makes the answer; the body and its gzip as sent.
    made=$(curl -fs -o "$WORK/answer-$which.json" -w '%{time_total}' "${URLS[$which]}")
    curl -fs -H 'Accept-Encoding: gzip' -o "$WORK/answer-$which.json.gz" "${URLS[$which]}"
    label=$BEFORE
    [ $which = after ] && label="this tree"
    echo "$which ($label): first request $made s, $(wc -c <"$WORK/answer-$which.json") bytes, gzip $(wc -c <"$WORK/answer-$which.json.gz") bytes"
    port=$((port + 1))
done
cmp "$WORK/answer-before.json" "$WORK/answer-after.json" && echo "before and after: the same bytes"

# nginx sending the same bytes from a file, and the same gzip copy.
ROOT=$(realpath "$WORK")/nginx
mkdir -p "$ROOT/www" "$ROOT/tmp"
cp "$WORK/answer-after.json" "$ROOT/www/compare.json"
cp "$WORK/answer-after.json.gz" "$ROOT/www/compare.json.gz"
cat >"$ROOT/nginx.conf" <<EOF
worker_processes 2;
daemon off;
pid $ROOT/nginx.pid;
error_log $ROOT/error.log;
events { worker_connections 256; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    types { application/json json; }
    client_body_temp_path $ROOT/tmp;
    proxy_temp_path $ROOT/tmp;
    fastcgi_temp_path $ROOT/tmp;
    uwsgi_temp_path $ROOT/tmp;
    scgi_temp_path $ROOT/tmp;
    server {
        listen 127.0.0.1:$port;
        root $ROOT/www;
        gzip_static on;
        gzip_vary on;
    }
}
EOF
"$NGINX" -c "$ROOT/nginx.conf" -p "$ROOT" &
SERVERS+=($!)
URLS[nginx]=http://127.0.0.1:$port/compare.json
wait_for "${URLS[nginx]}"
cmp <(curl -fs "${URLS[nginx]}") "$WORK/answer-after.json" && echo "nginx: the same bytes"

# All three serve at once, measured in turns, so a busy minute on a
# shared machine falls on each of them alike.
rm -f "$WORK"/*.rates
for _ in $(seq "$ROUNDS"); do
    for which in before after nginx; do
        rate "$which identity" "${URLS[$which]}"
        rate "$which gzip" "${URLS[$which]}" "Accept-Encoding: gzip"
    done
done
for which in before after; do
    echo "$which peak RSS: $(awk '/VmHWM/ {printf "%.0f MB", $2 / 1024}' "/proc/${PIDS[$which]}/status")"
done
printf '%-24s %10s %22s %8s\n' what "req/s" "range" "/ nginx"
for coding in identity gzip; do
    summary "nginx $coding"
    summary "before $coding" "nginx $coding"
    summary "after $coding" "nginx $coding"
done
