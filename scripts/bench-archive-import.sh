#!/usr/bin/env bash
# A whole public-inbox archive's import against the limit of reading its
# input (docs/performance.md, issue 40): in one run, alternated
# BENCH_RUNS times (default 3), reading every message's blob with
# `git cat-file --batch` (the bytes the import must read, and no more)
# and `benchlog ingest` of the archive into a fresh database; with
# BENCH_BEFORE_BIN, that binary's import too. Prints each median and
# range, the ratio cat-file / import, messages/s, MB/s of the messages'
# bytes, peak RSS (the largest of the runs) and database bytes a message.
#
#   scripts/bench-archive-import.sh ARCHIVE      # a v2 folder: git/0.git
#   BENCH_BEFORE_BIN=/tmp/benchlog-before scripts/bench-archive-import.sh ARCHIVE
#
# The archive of docs/archive-scale.md (linux-btrfs, 75,581 messages):
# `git clone --mirror
# https://github.com/linux-mailinglist-archives/linux-btrfs.vger.kernel.org.0
# btrfs/git/0.git`.
set -euo pipefail
ARCHIVE=$(realpath "${1:?usage: bench-archive-import.sh ARCHIVE}")
RUNS=${BENCH_RUNS:-3}
DIR=$PWD/target/bench-archive-import
mkdir -p "$DIR"
cargo build --release --quiet --bin benchlog
BIN=${CARGO_TARGET_DIR:-$PWD/target}/release/benchlog
GIT=$ARCHIVE/git/0.git
git -C "$GIT" log --format='%H' | sed 's/$/:m/' >"$DIR/blobs"
MSGS=$(wc -l <"$DIR/blobs")
BYTES=$(git -C "$GIT" cat-file --batch-check='%(objectsize)' <"$DIR/blobs" | awk '{s+=$1} END {print s}')

declare -A times rss
run() { # NAME COMMAND...: one timed run, its peak RSS kept
    local name=$1; shift
    /usr/bin/time -f '%e %M' -o "$DIR/time" "$@" >/dev/null 2>"$DIR/$name.err" || true
    read -r secs kb < <(tail -1 "$DIR/time")
    times[$name]+="$secs "
    [ "${rss[$name]:-0}" -ge "$kb" ] || rss[$name]=$kb
}
# The command importing the archive with BINARY into a fresh database.
import() { echo "rm -f '$DIR'/a.db*; '$1' ingest --db '$DIR/a.db' '$ARCHIVE'"; }
for _ in $(seq "$RUNS"); do
    run cat-file sh -c "git -C '$GIT' cat-file --batch <'$DIR/blobs'"
    run import sh -c "$(import "$BIN")"
    DB_BYTES=$(stat -c %s "$DIR/a.db")
    [ -z "${BENCH_BEFORE_BIN:-}" ] || run before sh -c "$(import "$BENCH_BEFORE_BIN")"
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)], a[1], a[NR]}'; }
read -r anchor _ _ <<<"$(echo "${times[cat-file]}" | median)"
echo "messages $MSGS, $((BYTES / 1000000)) MB of blobs"
for name in cat-file import before; do
    [ -n "${times[$name]:-}" ] || continue
    read -r med lo hi <<<"$(echo "${times[$name]}" | median)"
    printf '%-9s median %6.2f s (%.2f-%.2f), %6.0f msg/s, %5.1f MB/s, peak RSS %4d MB, cat-file/this %.2f\n' \
        "$name" "$med" "$lo" "$hi" "$(echo "$MSGS / $med" | bc -l)" \
        "$(echo "$BYTES / $med / 1000000" | bc -l)" $((rss[$name] / 1024)) \
        "$(echo "$anchor / $med" | bc -l)"
done
echo "database: $DB_BYTES bytes, $((DB_BYTES / MSGS)) bytes a message"
