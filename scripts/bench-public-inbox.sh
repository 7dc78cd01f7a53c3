#!/usr/bin/env bash
# public-inbox import against the same mails as an mbox, in one hyperfine
# run (docs/performance.md, "public-inbox import"): the 56 MiB archive of
# benches/ingest.rs (4,200 messages) made into a v2 inbox by public-inbox's
# own importer, and the four mails of fixtures/public-inbox/v2 against
# the same four from the seed mbox; then each import again with nothing
# new. Needs Debian's public-inbox and hyperfine (apt-get install).
#
#   scripts/bench-public-inbox.sh     # BENCH_RUNS (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${BENCH_RUNS:-10}
DIR=$PWD/target/bench-public-inbox
mkdir -p "$DIR"
cargo build --release --quiet --bin benchlog --example gen_archive
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
BIN=$TARGET/release/benchlog GEN=$TARGET/release/examples/gen_archive

[ -f "$DIR/archive.mbox" ] || "$GEN" "$DIR/archive.mbox" >/dev/null
if [ ! -d "$DIR/inbox" ]; then
    export PI_CONFIG=$DIR/pi-config HOME=$DIR/pi-home
    rm -rf "$PI_CONFIG" "$HOME"; mkdir -p "$HOME"
    public-inbox-init -V2 -L basic bench "$DIR/inbox" http://example.com/bench bench@example.com
    # No email in the generated From lines (`user at host`): public-inbox
    # warns and imports them all the same.
    perl -MPublicInbox::Config -MPublicInbox::InboxWritable -e '
      my $ibx = PublicInbox::Config->new->lookup_name("bench") or die;
      $ibx = PublicInbox::InboxWritable->new($ibx);
      open(my $fh, "<", $ARGV[0]) or die;
      $ibx->import_mbox($fh, "mboxo");' "$DIR/archive.mbox" 2>/dev/null
    git -C "$DIR/inbox/git/0.git" gc -q
fi
# The fixture's four mails (seed mbox messages 1, 3, 5, 7) as an mbox.
python3 - "$DIR/fixture4.mbox" <<'PY'
import mailbox, sys
src = mailbox.mbox('fixtures/mbox/seed-threads.mbox')
out = mailbox.mbox(sys.argv[1], create=True)
out.clear()
keys = src.keys()
for i in (0, 2, 4, 6):
    out.add(src[keys[i]])
out.flush()
PY
rm -f "$DIR"/again-*.db*
"$BIN" ingest --db "$DIR/again-inbox.db" "$DIR/inbox" >/dev/null
"$BIN" ingest --db "$DIR/again-mbox.db" "$DIR/archive.mbox" >/dev/null
FRESH="rm -f $DIR/a.db $DIR/a.db-wal $DIR/a.db-shm"
hyperfine -N --runs "$RUNS" --export-json "$DIR/hyperfine.json" \
    --prepare "$FRESH" -n inbox-4200 "$BIN ingest --db $DIR/a.db $DIR/inbox" \
    --prepare "$FRESH" -n mbox-4200 "$BIN ingest --db $DIR/a.db $DIR/archive.mbox" \
    --prepare true -n inbox-4200-again "$BIN ingest --db $DIR/again-inbox.db $DIR/inbox" \
    --prepare true -n mbox-4200-again "$BIN ingest --db $DIR/again-mbox.db $DIR/archive.mbox" \
    --prepare "$FRESH" -n fixture-inbox "$BIN ingest --db $DIR/a.db $PWD/fixtures/public-inbox/v2" \
    --prepare "$FRESH" -n fixture-mbox "$BIN ingest --db $DIR/a.db $DIR/fixture4.mbox"
python3 - "$DIR" <<'PY'
import json, os, sys
d = sys.argv[1]
size = {'4200': os.path.getsize(f'{d}/archive.mbox'), 'fixture': os.path.getsize(f'{d}/fixture4.mbox')}
msgs = {'4200': 4200, 'fixture': 4}
for r in json.load(open(f'{d}/hyperfine.json'))['results']:
    name, med = r['command'], r['median']
    key = '4200' if '4200' in name else 'fixture'
    print(f"{name}: median {med*1000:.1f} ms, {msgs[key]/med:.0f} messages/s, "
          f"{size[key]/med/1e6:.2f} MB/s (of the mbox's bytes)")
PY
