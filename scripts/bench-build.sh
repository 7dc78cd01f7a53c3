#!/usr/bin/env bash
# A newcomer's first build (README's set-up, docs/performance.md, issues 26
# and 40): a clean `cargo build --release --workspace` in an empty target
# directory (target/bench-build/target/), crates already downloaded (they
# are fetched first, untimed). Prints the crates compiled (cargo's
# "Compiling" lines), wall, user and sys seconds, user + sys, and the peak
# RSS of one process (the largest compiler), from GNU time; and the load
# average before and after, since wall time follows the machine's load.
# Compare CPU seconds (user + sys), not wall.
#
#   scripts/bench-build.sh                 # this tree
#   scripts/bench-build.sh --before main   # a git revision's tree, then this one
#
# CARGO_BUILD_JOBS is 2 unless set (the figures quoted are for 2). Needs
# GNU time (/usr/bin/time, Debian's `time`). `--before REV` extracts REV's
# tree into target/bench-build/before-REV/ and builds it the same way first.
set -euo pipefail
cd "$(dirname "$0")/.."

BEFORE=
if [[ ${1:-} == --before ]]; then
    BEFORE=${2:?--before needs a git revision}
fi
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-2}
DIR=$PWD/target/bench-build
mkdir -p "$DIR"

# measure NAME SOURCE_DIR: one clean release build of the workspace in
# SOURCE_DIR, its own empty target directory, one line of figures.
measure() {
    local name=$1 source=$2 target=$DIR/target log=$DIR/${1// /-}.log
    (cd "$source" && cargo fetch --quiet)
    rm -rf "$target"
    local load_before
    load_before=$(cut -d' ' -f1 /proc/loadavg)
    (cd "$source" && CARGO_TARGET_DIR=$target /usr/bin/time -v \
        cargo build --release --workspace) >"$log" 2>&1
    local load_after
    load_after=$(cut -d' ' -f1 /proc/loadavg)
    awk -v name="$name" -v jobs="$CARGO_BUILD_JOBS" -v lb="$load_before" -v la="$load_after" '
        /^ *Compiling / { crates++ }
        /User time \(seconds\)/ { user = $NF }
        /System time \(seconds\)/ { sys = $NF }
        /Maximum resident set size/ { rss = $NF }
        /Elapsed \(wall clock\) time/ {
            n = split($NF, t, ":"); wall = 0
            for (i = 1; i <= n; i++) wall = wall * 60 + t[i]
        }
        END {
            printf "%-16s %4d crates  wall %7.1f s  user %7.1f s  sys %5.1f s  CPU %7.1f s  peak RSS %5.0f MB  jobs %s  load %s -> %s\n",
                name, crates, wall, user, sys, user + sys, rss / 1024, jobs, lb, la
        }' "$log"
    # The binary a newcomer gets.
    ls -l "$target/release/benchlog" | awk '{ printf "%-16s binary %.1f MB\n", "", $5 / 1e6 }'
}

if [[ -n $BEFORE ]]; then
    tree=$DIR/before-$(git rev-parse --short "$BEFORE")
    rm -rf "$tree"
    mkdir -p "$tree"
    git archive "$BEFORE" | tar -x -C "$tree"
    measure "before $BEFORE" "$tree"
fi
measure "this tree" "$PWD"
rm -rf "$DIR/target"
