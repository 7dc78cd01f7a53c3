#!/usr/bin/env python3
"""The messages of scripts/grep-archive-markers.py's list that gave
neither a run nor a near miss in DB (docs/archive-wild.md): the
candidates for silent misses, to read by hand.

    scripts/archive-silent-misses.py DB MARKERS.tsv [--all]

Prints a count per marker (messages with a hit; with a run or near miss;
with neither), then the rows with neither, skipping those whose only hits
are the prose and loose markers unless --all is given.
"""
import sqlite3
import sys
from collections import Counter

PROSE = {"sysbench-word"}
db, markers = sys.argv[1], sys.argv[2]
show_all = "--all" in sys.argv[3:]
con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
found = {mid for (mid,) in con.execute("""
    SELECT m.message_id FROM mails m
    WHERE EXISTS (SELECT 1 FROM runs r WHERE r.submission_id = m.submission_id)
       OR EXISTS (SELECT 1 FROM unparsed u WHERE u.submission_id = m.submission_id)""")}
rows = [line.rstrip("\n").split("\t") for line in open(markers)]
hit, with_finding = Counter(), Counter()
silent = []
for row in rows:
    names = row[4].split(",")
    has = row[3] in found
    for n in names:
        hit[n] += 1
        with_finding[n] += has
    if not has:
        silent.append(row)
print("marker\tmessages\twith run or near miss\tneither")
for n in sorted(hit):
    print(f"{n}\t{hit[n]}\t{with_finding[n]}\t{hit[n] - with_finding[n]}")
strong = [r for r in silent
          if show_all or any(n not in PROSE and not n.startswith("loose-")
                             for n in r[4].split(","))]
print(f"messages with a hit: {len(rows)}; with neither: {len(silent)}; "
      f"of those with an output marker: {len(strong)}")
for r in strong:
    print("\t".join(r[1:2] + r[3:]))
