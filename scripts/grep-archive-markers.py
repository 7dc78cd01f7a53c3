#!/usr/bin/env python3
"""Messages of a public-inbox archive whose raw text looks like a tool's
output (docs/archive-wild.md): for every commit of git/N.git, the blob `m`
is searched for the output lines below; prints one TSV row per message
with a hit: epoch, commit, blob, Message-ID, the markers hit (a marker's
name once), the first hit line.

    scripts/grep-archive-markers.py ARCHIVE > markers.tsv

The markers are lines each tool prints (not the tools' names in prose):
"sysbench" alone is counted separately (`sysbench-word`), as most
mentions of it are prose.
"""
import re
import subprocess
import sys
from pathlib import Path

MARKERS = [
    ("bonnie-version", re.compile(rb"^[ >|]*Version\s+[12]\.[0-9]+[a-z0-9]*\s+[-=]+\s*Sequential", re.M)),
    ("bonnie-header", re.compile(rb"^[ >|]*Version\s+[12]\.[0-9][0-9a-z.]*\s+.*Sequential Output", re.M)),
    ("sequential-output", re.compile(rb"Sequential Output", re.I)),
    ("bonnie-csv", re.compile(rb"^[ >|]*1\.9[0-9],(1\.9[0-9][a-z]?|2\.0[0-9]),", re.M)),
    ("sysbench-banner", re.compile(rb"^[ >|]*sysbench [0-9.]+[^\n]*(benchmark|LuaJIT|multi-threaded)", re.M | re.I)),
    ("sysbench-stats", re.compile(rb"^[ >|]*(OLTP test statistics:|SQL statistics:|General statistics:)", re.M)),
    ("sysbench-transactions", re.compile(rb"^[ >|]*\s*transactions:\s+[0-9]+\s+\(", re.M)),
    ("sysbench-events", re.compile(rb"^[ >|]*\s*(events per second:|total number of events:)", re.M)),
    ("sysbench-fileio", re.compile(rb"^[ >|]*\s*(Operations performed:|File operations:|Throughput:)\s", re.M)),
    ("sysbench-word", re.compile(rb"sysbench", re.I)),
    ("super-smack", re.compile(rb"Query Barrel Report")),
    ("sql-bench", re.compile(rb"(^[ >|]*(alter-table|ATIS|big-tables|connect|create|insert|select|wisconsin):\s+Total time|run-all-tests|sql-bench)", re.M)),
    ("diskinfo", re.compile(rb"(diskinfo -[a-z]*t|^[ >|]*Seek times:|^[ >|]*Transfer rates:)", re.M)),
    # Looser: the brief's strings, wherever they are on a line.
    ("loose-version", re.compile(rb"Version\s+[12]\.[0-9]")),
    ("loose-transactions", re.compile(rb"transactions:")),
    ("loose-events", re.compile(rb"total number of events|events per second", re.I)),
]


def main():
    archive = Path(sys.argv[1])
    for epoch_dir in sorted((archive / "git").glob("*.git"), key=lambda p: int(p.stem)):
        epoch = epoch_dir.stem
        commits = subprocess.run(
            ["git", "-C", str(epoch_dir), "log", "--first-parent", "--format=%H"],
            check=True, capture_output=True).stdout.split()
        batch = subprocess.Popen(
            ["git", "-C", str(epoch_dir), "cat-file", "--batch"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        for commit in commits:
            batch.stdin.write(commit + b":m\n")
            batch.stdin.flush()
            head = batch.stdout.readline().split()
            if len(head) < 3:  # "<name> missing": a `d` commit
                continue
            blob, size = head[0], int(head[2])
            data = batch.stdout.read(size)
            batch.stdout.read(1)
            hits = []
            first = None
            for name, rx in MARKERS:
                m = rx.search(data)
                if m:
                    hits.append(name)
                    if first is None and name != "sysbench-word" and not name.startswith("loose-"):
                        s = data.rfind(b"\n", 0, m.start()) + 1
                        e = data.find(b"\n", m.end())
                        first = data[s:e if e >= 0 else None]
            if not hits:
                continue
            mid = re.search(rb"^Message-ID:\s*<?([^>\s]+)>?", data, re.M | re.I)
            print("\t".join([
                epoch, commit.decode(), blob.decode(),
                mid.group(1).decode("utf-8", "replace") if mid else "",
                ",".join(hits),
                (first or b"").decode("utf-8", "replace").replace("\t", " ")[:120],
            ]))
        batch.stdin.close()
        batch.wait()


if __name__ == "__main__":
    main()
