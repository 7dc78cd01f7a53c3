#!/usr/bin/env python3
"""The bare SQL of the scale comparison's aggregation, timed in Python's
sqlite3, for scripts/bench-compare-sql.sh.

    scripts/bench-compare-sql.py DB

Keeps one connection open (as the server's pool keeps its connections)
and answers each line read from stdin with the time in ms of one run of
the statement, all its rows fetched. The script changes the data from
another connection between lines, so every run starts, like the page's
first request after a change, with a page cache SQLite has dropped.
`--print` prints the rows once instead.

The statement is the aggregation /compare shows for
tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&by=thread_lib
(no baseline): per series (scheduler, thread_lib) and x (threads), the
count, mean, min and max of the runs' values, written plainly against the
schema. The tool is the one results carry (0007): written as the run's
(`r.tool`), SQLite reads every result of each super-smack run and the
statement takes twice as long, which would flatter the page.
"""

import sqlite3
import sys
import time

BARE_SQL = """
SELECT s.value AS scheduler, l.value AS thread_lib, r.threads,
       count(*) AS n, avg(x.value) AS mean, min(x.value) AS min, max(x.value) AS max
FROM results x
JOIN runs r ON r.id = x.run_id
LEFT JOIN run_attrs s ON s.run_id = r.id AND s.key = 'scheduler'
LEFT JOIN run_attrs l ON l.run_id = r.id AND l.key = 'thread_lib'
WHERE x.tool = 'super-smack' AND x.metric = 'q_per_s' AND x.item = 'select_index'
  AND r.threads IS NOT NULL
GROUP BY s.value, l.value, r.threads
ORDER BY s.value, l.value, r.threads
"""


def main() -> None:
    conn = sqlite3.connect(sys.argv[1])
    if "--print" in sys.argv[2:]:
        for row in conn.execute(BARE_SQL):
            print(*row, sep="\t")
        return
    for _ in sys.stdin:
        start = time.perf_counter()
        rows = conn.execute(BARE_SQL).fetchall()
        elapsed = time.perf_counter() - start
        if not rows:
            sys.exit("the bare SQL found no rows")
        print(f"{elapsed * 1000:.2f}", flush=True)


if __name__ == "__main__":
    main()
