#!/usr/bin/env python3
"""Draw the messages to read in full from those that look like tool
output and gave no run or near miss (docs/archive-wild.md), across
several archives, with a fixed seed, and print each with the lines
around its first match.

    scripts/sample-silent-misses.py [-n 20] [--seed 27] NAME=DB,ARCHIVE,MARKERS ...

NAME labels the archive; DB is its database, ARCHIVE the public-inbox
folder (holding git/0.git), MARKERS the output of
scripts/grep-archive-markers.py for it. Candidates are sorted by NAME
and the TSV row, then shuffled with random.Random(seed).
"""
import argparse
import random
import re
import sqlite3
import subprocess

MATCH = re.compile(r"sysbench|Version\s+[12]\.[0-9]|transactions:|total number of events|"
                   r"events per second|Throughput:|Sequential Output|Query Barrel|diskinfo|"
                   r"Seek times", re.I)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("archives", nargs="+")
    args = ap.parse_args()
    cands, where = [], {}
    for spec in args.archives:
        name, rest = spec.split("=", 1)
        db, archive, markers = rest.split(",")
        where[name] = archive
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        found = {m for (m,) in con.execute("""
            SELECT message_id FROM mails m
            WHERE EXISTS (SELECT 1 FROM runs r WHERE r.submission_id = m.submission_id)
               OR EXISTS (SELECT 1 FROM unparsed u WHERE u.submission_id = m.submission_id)""")}
        for line in open(markers):
            row = line.rstrip("\n").split("\t")
            if row[3] not in found:
                cands.append((name,) + tuple(row))
    cands.sort()
    random.Random(args.seed).shuffle(cands)
    print("candidates", len(cands))
    for name, epoch, commit, blob, mid, hits, _first in cands[:args.n]:
        text = subprocess.run(
            ["git", "-C", f"{where[name]}/git/{epoch}.git", "cat-file", "blob", blob],
            capture_output=True, check=True).stdout.decode("utf-8", "replace").split("\n")
        i = next((k for k, l in enumerate(text) if MATCH.search(l)), 0)
        print(f"######## {name} {mid} [{hits}] line {i + 1}")
        for l in text[max(0, i - 4):i + 8]:
            print("   |" + l[:110])


if __name__ == "__main__":
    main()
