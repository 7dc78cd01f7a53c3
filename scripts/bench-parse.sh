#!/usr/bin/env bash
# Parse speed against grep (docs/performance.md, issue 15): writes the parse
# benchmark's ~64 MB mail-like corpus (testkit/src/corpus.rs) to
# target/bench-parse/, then times in one hyperfine run `grep -cE` for the
# start markers of the five tools' reports and `parsers::parse` on the same
# file (parsers/examples/parse_file.rs). Prints each median, its MB/s and the
# ratio grep time / parse time; one run, so that the ratio holds on a
# machine whose load changes between runs.
#
#   scripts/bench-parse.sh                 # grep against this tree's parser
#   scripts/bench-parse.sh --before main   # and the parser of a git revision
#
# `--before REV` extracts REV's tree into target/bench-parse/before-REV/ and
# builds parse_file there (its own target directory), so the old parser is
# a third command of the same run.
set -euo pipefail
cd "$(dirname "$0")/.."

BEFORE=
if [[ ${1:-} == --before ]]; then
    BEFORE=${2:?--before needs a git revision}
fi
RUNS=${BENCH_RUNS:-10}
DIR=target/bench-parse
CORPUS=$DIR/corpus.txt
JSON=$DIR/hyperfine.json
# Where a report of each tool can start: super-smack's report and header,
# sysbench's section headings, histogram and one-line summary, sql-bench's
# summary and test-log heads, bonnie's table columns and phase decoration,
# diskinfo's section titles and its -t header.
PATTERN='Query Barrel Report|Query_type|statistics:|Test execution summary:|CPU speed:|File operations:|Total operations:|Operations performed:|Throughput:|Latency histogram|threads, time spent:|Benchmark DBD suit|Date of test:|Running tests on:|Totals per operation:|Testing server|Time for|%CP|-Per Chr-|# sectorsize|Seek times:|Transfer rates:|I/O command overhead:|random reads:|random writes:'

mkdir -p "$DIR"
cargo build --release --quiet -p parsers --example write_corpus --example parse_file
# Cargo puts the binaries under CARGO_TARGET_DIR when it is set.
BIN=${CARGO_TARGET_DIR:-target}/release/examples
"$BIN/write_corpus" "$CORPUS" >/dev/null
PARSE=$BIN/parse_file

commands=("grep -cE '$PATTERN' $CORPUS" "$PARSE $CORPUS")
names=(grep parse)
if [[ -n $BEFORE ]]; then
    rev=$(git rev-parse --short "$BEFORE")
    src=$DIR/before-$rev
    if [[ ! -x $src/target/release/examples/parse_file ]]; then
        rm -rf "$src"
        mkdir -p "$src"
        git archive "$rev" | tar -x -C "$src"
        # The revision may predate the example; the parser's API is the same.
        mkdir -p "$src/parsers/examples"
        cp parsers/examples/parse_file.rs "$src/parsers/examples/"
        # Its own target directory even with CARGO_TARGET_DIR set: the old
        # parser must not replace this tree's.
        (cd "$src" && CARGO_TARGET_DIR=target cargo build --release --quiet -p parsers --example parse_file)
    fi
    commands+=("$src/target/release/examples/parse_file $CORPUS")
    names+=("parse@$rev")
fi

bytes=$(stat -c %s "$CORPUS")
echo "corpus: $CORPUS, $bytes bytes, $($PARSE "$CORPUS") runs found, grep matches $(grep -cE "$PATTERN" "$CORPUS") lines"
args=()
for i in "${!commands[@]}"; do
    args+=(--command-name "${names[$i]}" "${commands[$i]}")
done
# grep stops at its first match when its output is /dev/null (hyperfine's
# default): a pipe makes it read the whole corpus.
hyperfine --warmup 2 --runs "$RUNS" --output=pipe --export-json "$JSON" "${args[@]}"

# The CPU each took (user + system, means) beside the wall time: on a
# shared machine the host's load moves the wall time of one command's
# block of runs and not the other's, and moves the CPU time less.
jq -r --argjson bytes "$bytes" '
    (.results[0].median) as $grep
    | (.results[0].user + .results[0].system) as $grep_cpu
    | .results[]
    | (.user + .system) as $cpu
    | "\(.command): median \(.median * 1000 | floor) ms, \($bytes / .median / 1e6 | floor) MB/s, grep/this \($grep / .median * 1000 | round / 1000); CPU \($cpu * 1000 | floor) ms, grep/this \($grep_cpu / $cpu * 1000 | round / 1000)"
' "$JSON"
