#!/usr/bin/env bash
# What fetching an archive by its address costs against reading the same
# months from disk (docs/archive-scale.md, "By its address"): the
# generated 56 MiB archive of benches/ingest.rs split into months of
# 700 messages, gzipped as a list's `YYYY-Month.txt.gz`, with an index
# page linking them; served on 127.0.0.1 by Python's http.server (it
# sends Last-Modified and answers If-Modified-Since). hyperfine times,
# each into a fresh database: the files from disk, the index by its
# address, and the index again with nothing changed (304s). Needs
# hyperfine and python3.
#
#   scripts/bench-url-ingest.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=$PWD/target/bench-url-ingest
mkdir -p "$DIR/list"
cargo build --release --quiet --bin benchlog --example gen_archive
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
BIN=$TARGET/release/benchlog GEN=$TARGET/release/examples/gen_archive
[ -f "$DIR/archive.mbox" ] || "$GEN" "$DIR/archive.mbox" >/dev/null
python3 - "$DIR" <<'PY'
import gzip, os, re, sys
d = sys.argv[1]
text = open(os.path.join(d, "archive.mbox"), "rb").read()
starts = [m.start() for m in re.finditer(rb"^From ", text, re.M)]
starts.append(len(text))
names, months = [], ["January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December"]
for i in range(0, len(starts) - 1, 700):
    n = len(names)
    name = "%d-%s.txt.gz" % (2000 + n // 12, months[n % 12])
    with gzip.open(os.path.join(d, "list", name), "wb") as out:
        out.write(text[starts[i]:starts[min(i + 700, len(starts) - 1)]])
    names.append(name)
links = "\n".join('<td><A href="%s">[ Gzip\'d Text ]</a></td>' % n for n in reversed(names))
open(os.path.join(d, "list", "index.html"), "w").write("<html><body><table>%s</table></body></html>" % links)
print(len(names), "months")
PY
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$DIR" "$port" >/dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
sleep 1
URL=http://127.0.0.1:$port/list/
FRESH="rm -f $DIR/b.db $DIR/b.db-wal $DIR/b.db-shm"
"$BIN" ingest --db "$DIR/again.db" "$URL" >/dev/null
hyperfine --runs "${RUNS:-5}" --export-json "$DIR/result.json" \
    --prepare "$FRESH" -n files "$BIN ingest --db $DIR/b.db $DIR/list/*.txt.gz" \
    --prepare "$FRESH" -n address "$BIN ingest --db $DIR/b.db $URL" \
    --prepare true -n 'address again' "$BIN ingest --db $DIR/again.db $URL"
python3 - "$DIR/result.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
files = results[0]["median"]
for r in results:
    print("%-14s median %8.3f s  %.2fx files" % (r["command"], r["median"], r["median"] / files))
PY
