#!/usr/bin/env bash
# The hand-read sample of docs/archive-wild.md: from a database made by
# `benchlog ingest ARCHIVE`, N found runs and N near misses (all of them
# when fewer), drawn with Python's random.seed(SEED), so anyone can draw
# the same again from the same database.
#
#   scripts/sample-archive-runs.sh DB [N=50] [SEED=27]
#
# Runs: shuffled, then taken one tool at a time in turn (so that a common
# tool does not fill the sample), runs that repeat no earlier one
# (copy_key NULL) first and at most 2 per message, then the copies
# (quotes of an earlier run) and the rest. Near misses: shuffled, at most
# 2 per message first, then the rest.
#
# Prints two TSV blocks (RUNS, NEAR MISSES): ids, message-id, lines and
# what was read, for reading against the message text
# (`sqlite3 DB "select text from submissions where id = S"`).
set -euo pipefail
DB=$1
N=${2:-50}
SEED=${3:-27}
python3 - "$DB" "$N" "$SEED" <<'EOF'
import random
import sqlite3
import sys
from collections import defaultdict

db, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)

def draw(rows, key_tool, key_msg, is_first):
    rng = random.Random(seed)
    rows = sorted(rows)          # a fixed order before the shuffle
    rng.shuffle(rows)
    picked, per_msg, seen = [], defaultdict(int), set()
    for strict in (True, False):
        by_tool = defaultdict(list)
        for r in rows:
            if r[0] in seen:
                continue
            if strict and (not is_first(r) or per_msg[key_msg(r)] >= 2):
                continue
            by_tool[key_tool(r)].append(r)
        queues = [by_tool[t] for t in sorted(by_tool)]
        while len(picked) < n and any(queues):
            for q in queues:
                if q and len(picked) < n:
                    r = q.pop(0)
                    if strict and per_msg[key_msg(r)] >= 2:
                        continue
                    picked.append(r)
                    seen.add(r[0])
                    per_msg[key_msg(r)] += 1
    return picked

runs = con.execute("""
    SELECT r.id, r.tool, coalesce(r.test, ''), coalesce(r.threads, ''),
           coalesce(r.label, ''), r.submission_id, coalesce(m.message_id, ''),
           r.first_line, r.last_line, r.quote_depth, r.copy_key
    FROM runs r LEFT JOIN mails m ON m.submission_id = r.submission_id""").fetchall()
sample = draw(runs, lambda r: r[1], lambda r: r[5], lambda r: r[10] is None)
print(f"RUNS\t{len(sample)} of {len(runs)}")
print("run\ttool\ttest\tthreads\tlabel\tsubmission\tmessage_id\tlines\tdepth\tcopy_of\tresults")
for r in sample:
    res = con.execute(
        "SELECT item, metric, value, unit, line FROM results WHERE run_id = ? ORDER BY id",
        (r[0],)).fetchall()
    shown = "; ".join(f"{i}/{m}={v:g}{u}@{l}" for i, m, v, u, l in res)
    print("\t".join(str(x) for x in (
        r[0], r[1], r[2], r[3], r[4], r[5], r[6], f"{r[7]}-{r[8]}", r[9],
        r[10] if r[10] is not None else "", shown)))

misses = con.execute("""
    SELECT u.id, u.why, u.submission_id, coalesce(m.message_id, ''), u.line,
           replace(substr(u.text, 1, 80), char(10), ' / ')
    FROM unparsed u LEFT JOIN mails m ON m.submission_id = u.submission_id""").fetchall()
sample = draw(misses, lambda r: "", lambda r: r[2], lambda r: True)
print(f"NEAR MISSES\t{len(sample)} of {len(misses)}")
print("unparsed\twhy\tsubmission\tmessage_id\tline\ttext")
for r in sample:
    print("\t".join(str(x) for x in r))
EOF
