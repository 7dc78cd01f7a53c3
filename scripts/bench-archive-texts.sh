#!/usr/bin/env bash
# What keeping only the headers of prose saves (docs/performance.md,
# "An archive's prose"): a public-inbox archive imported with every text
# (--keep-all-text) and with the default, in one run: time, messages/s,
# database size (after a checkpoint) and bytes per message; then a
# re-import of the same mbox by the binary before the change (BEFORE) and
# after. Needs hyperfine, sqlite3 and an archive (a folder holding
# git/0.git, e.g. a lore mirror fetched with `git clone --mirror`).
#
#   scripts/bench-archive-texts.sh ARCHIVE [BEFORE_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
ARCHIVE=$1
BEFORE=${2:-}
DIR=$PWD/target/bench-archive-texts
mkdir -p "$DIR"
cargo build --release --quiet --bin benchlog --example gen_archive
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
BIN=$TARGET/release/benchlog GEN=$TARGET/release/examples/gen_archive

size() { # the database's bytes once its log is copied in
    sqlite3 "$1" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
    stat -c %s "$1"
}
for mode in all default; do
    rm -f "$DIR/$mode.db" "$DIR/$mode.db-wal" "$DIR/$mode.db-shm"
    flag=""; [ "$mode" = all ] && flag="--keep-all-text"
    start=$(date +%s.%N)
    /usr/bin/time -f "%M" -o "$DIR/$mode.rss" \
        "$BIN" ingest --db "$DIR/$mode.db" $flag "$ARCHIVE" >"$DIR/$mode.out" ||
        echo "$mode: some messages could not be read (exit $?): $DIR/$mode.out"
    end=$(date +%s.%N)
    msgs=$(sqlite3 "$DIR/$mode.db" 'SELECT count(*) FROM mails')
    headers=$(sqlite3 "$DIR/$mode.db" 'SELECT count(*) FROM archived_texts')
    bytes=$(size "$DIR/$mode.db")
    python3 - "$mode" "$start" "$end" "$msgs" "$headers" "$bytes" "$(tail -1 "$DIR/$mode.rss")" <<'PY'
import sys
mode, start, end, msgs, headers, size, rss = sys.argv[1:]
secs = float(end) - float(start); msgs = int(msgs); size = int(size)
print(f"{mode}: {msgs} messages ({headers} headers only) in {secs:.1f} s, "
      f"{msgs/secs:.0f} messages/s, peak RSS {int(rss)/1024:.0f} MB, "
      f"database {size/1e6:.1f} MB, {size/msgs:.0f} bytes a message, "
      f"{size/msgs:.0f} MB per million messages" if msgs else f"{mode}: nothing")
PY
done

# Re-importing the same mbox, with nothing new.
[ -f "$DIR/archive.mbox" ] || "$GEN" "$DIR/archive.mbox" >/dev/null
rm -f "$DIR"/again*.db*
"$BIN" ingest --db "$DIR/again.db" "$DIR/archive.mbox" >/dev/null
FRESH="rm -f $DIR/first.db $DIR/first.db-wal $DIR/first.db-shm"
args=(--prepare "$FRESH" -n first "$BIN ingest --db $DIR/first.db $DIR/archive.mbox"
      --prepare true -n again "$BIN ingest --db $DIR/again.db $DIR/archive.mbox")
if [ -n "$BEFORE" ]; then
    "$BEFORE" ingest --db "$DIR/again-before.db" "$DIR/archive.mbox" >/dev/null
    args+=(--prepare "$FRESH" -n first-before "$BEFORE ingest --db $DIR/first.db $DIR/archive.mbox"
           --prepare true -n again-before "$BEFORE ingest --db $DIR/again-before.db $DIR/archive.mbox")
fi
hyperfine -N --runs "${BENCH_RUNS:-5}" --export-json "$DIR/hyperfine.json" "${args[@]}"
python3 - "$DIR/hyperfine.json" <<'PY'
import json, sys
r = {x['command']: x['median'] for x in json.load(open(sys.argv[1]))['results']}
for suffix in ('', '-before'):
    if 'again' + suffix in r:
        print(f"re-import{suffix or ' (now)'}: {r['again'+suffix]*1000:.0f} ms, "
              f"{r['again'+suffix]/r['first'+suffix]:.2f}x the first import "
              f"({r['first'+suffix]*1000:.0f} ms)")
PY
