#!/usr/bin/env bash
# Ingest against its limit, in one run (docs/performance.md): `benchlog
# ingest` of a folder into a fresh database, against copying the same rows
# into a fresh database of the same schema in one transaction (INSERT INTO
# ... SELECT, with its indexes, triggers and full-text index), for
#   - a result-heavy folder: 2,000 mails, each seed 000 with its numbers
#     varied (scripts/gen-seed-variants.py), and
#   - a prose-heavy list archive: the 56 MB mbox of benches/ingest.rs.
# Each case alternates ingest and copy BENCH_INGEST_RUNS times (default 5)
# and prints the medians and the ratio copy/ingest (1.0 = as fast as
# SQLite takes the rows; the target is >= 0.8).
#
#   scripts/bench-ingest.sh
#   BENCH_BIN=/tmp/benchlog-before scripts/bench-ingest.sh   # another build
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${BENCH_INGEST_RUNS:-5}
DIR=target/bench-ingest
mkdir -p "$DIR"
cargo build --release --quiet --bin benchlog --example gen_archive --example copy_rows
# BENCH_BIN: another build's binary, ingesting into its own schema.
BIN=${BENCH_BIN:-target/release/benchlog}

[ -d "$DIR/mails" ] || python3 scripts/gen-seed-variants.py folder "$DIR/mails" 2000 >/dev/null
[ -f "$DIR/archive.mbox" ] || target/release/examples/gen_archive "$DIR/archive.mbox" >/dev/null

fresh() { rm -f "$1" "$1-wal" "$1-shm"; }
now() { date +%s.%N; }

# copy SRC DEST: the rows of SRC into a fresh, migrated DEST in one
# transaction, then its full-text index (examples/copy_rows.rs).
copy() {
    fresh "$2"
    target/release/examples/copy_rows "$1" "$2" >/dev/null
}

# case NAME INPUT: RUNS alternations of ingest and copy.
bench_case() {
    local name=$1 input=$2 ingest_times=() copy_times=() start db=$DIR/ingested.db
    for _ in $(seq "$RUNS"); do
        fresh "$db"
        start=$(now)
        $BIN ingest --db "$db" "$input" >/dev/null
        ingest_times+=("$(awk -v a="$start" -v b="$(now)" 'BEGIN {print b - a}')")
        start=$(now)
        copy "$db" "$DIR/copied.db"
        copy_times+=("$(awk -v a="$start" -v b="$(now)" 'BEGIN {print b - a}')")
    done
    local results bytes
    results=$(sqlite3 "$db" "SELECT count(*) FROM results")
    bytes=$(du -sb "$input" | cut -f1)
    median() { printf '%s\n' "$@" | sort -g | awk '{t[NR] = $1} END {print t[int((NR + 1) / 2)]}'; }
    local ingest_median copy_median
    ingest_median=$(median "${ingest_times[@]}")
    copy_median=$(median "${copy_times[@]}")
    awk -v n="$name" -v i="$ingest_median" -v c="$copy_median" -v r="$results" -v b="$bytes" 'BEGIN {
        printf "%-14s %8.1f MB %9d results  ingest %6.2f s (%5.1f MB/s, %7.0f results/s)  copy %6.2f s  copy/ingest %.2f\n",
            n, b / 1e6, r, i, b / 1e6 / i, r / i, c, c / i }'
    echo "  ingest runs: ${ingest_times[*]}; copy runs: ${copy_times[*]}"
}

bench_case result-heavy "$DIR/mails"
bench_case prose-heavy "$DIR/archive.mbox"
