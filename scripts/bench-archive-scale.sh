#!/usr/bin/env bash
# A real list archive at scale (docs/archive-scale.md): import ARCHIVE (a
# public-inbox v2 folder holding git/0.git) into a fresh database with the
# release binary, print messages, seconds, msg/s, MB/s of the messages'
# bytes, peak RSS and the database size; then a second import (nothing
# new); then serve the database on a free 127.0.0.1 port and time the
# first /compare page of the most common tool and the same page again.
#
#   scripts/bench-archive-scale.sh ARCHIVE [DIR]
set -euo pipefail
ARCHIVE=$(realpath "$1")
DIR=${2:-$PWD/target/bench-archive-scale}
BIN=${CARGO_TARGET_DIR:-$PWD/target}/release/benchlog
mkdir -p "$DIR"
DB=$DIR/archive.db
rm -f "$DB" "$DB-wal" "$DB-shm"
GIT=$ARCHIVE/git/0.git
MSGS=$(git -C "$GIT" rev-list --count HEAD)
# The messages' bytes: every commit's blob `m`.
BYTES=$(git -C "$GIT" log --format='%H' | sed 's/$/:m/' |
    git -C "$GIT" cat-file --batch-check='%(objectsize)' | awk '{s+=$1} END {print s}')
start=$(date +%s.%N)
/usr/bin/time -v "$BIN" ingest --db "$DB" "$ARCHIVE" >"$DIR/ingest.out" 2>"$DIR/ingest.time" || echo "first import: some messages could not be read (see $DIR/ingest.out)"
end=$(date +%s.%N)
secs=$(echo "$end - $start" | bc -l)
rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$DIR/ingest.time")
printf 'messages %d, %.1f s, %.0f msg/s, %.2f MB/s, peak RSS %d MB\n' \
    "$MSGS" "$secs" "$(echo "$MSGS / $secs" | bc -l)" \
    "$(echo "$BYTES / $secs / 1000000" | bc -l)" $((rss / 1024))
ls -l "$DB"* | awk '{print $5, $9}'
start=$(date +%s.%N)
"$BIN" ingest --db "$DB" "$ARCHIVE" >"$DIR/again.out" 2>&1 || true
printf 'second import: %.2f s\n' "$(echo "$(date +%s.%N) - $start" | bc -l)"
TOOL=$(sqlite3 "$DB" 'SELECT tool FROM runs GROUP BY tool ORDER BY count(*) DESC LIMIT 1')
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN" serve --db "$DB" --listen "127.0.0.1:$PORT" >"$DIR/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER' EXIT
until curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null; do sleep 0.2; done
URL="http://127.0.0.1:$PORT/compare?tool=$TOOL"
curl -s -o /dev/null -w "first /compare?tool=$TOOL: %{time_total} s, HTTP %{http_code}\n" "$URL"
for _ in $(seq 21); do curl -s -o /dev/null -w '%{time_total}\n' "$URL"; done |
    sort -n | awk '{a[NR]=$1} END {printf "cached, median of %d: %.4f s\n", NR, a[int((NR+1)/2)]}'
