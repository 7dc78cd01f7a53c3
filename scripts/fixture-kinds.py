#!/usr/bin/env python3
"""The real fixtures by kind: how many posts show each kind of real-world
variation, and how many runs and values their goldens hold.

Reads the tables of fixtures/SOURCES.md (a row names a `tool/real-*.txt`
fixture in its first cell; the `kinds` column lists kinds 1-8 or `neg`)
and each fixture's `.expected.json`. A fixture counts as a whole mail when
the parser read mail headers for its first message (an author and a date
or a subject). Prints a Markdown table; `--list` prints one line per
fixture too, `--sources` a Markdown table of every fixture with its
source as SOURCES.md gives it.

    python3 scripts/fixture-kinds.py [--list | --sources]
"""

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

KINDS = {
    "1": "quoting beyond `> `, quoted-printable",
    "2": "web-page remnants (markup, entities, fences)",
    "3": "stamps and prompts before lines",
    "4": "table variants",
    "5": "sentinels, overflowed counters",
    "6": "side-by-side columns",
    "7": "labels in prose",
    "8": "older sysbench",
    "neg": "negative (no result)",
    "-": "none of the eight (plain print format)",
}


def rows():
    """(fixture path, kinds, source) for every table row naming a real fixture."""
    kinds_at = None
    for line in (FIXTURES / "SOURCES.md").read_text().splitlines():
        if not line.startswith("|"):
            kinds_at = None if not line.strip() else kinds_at
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == "fixture":
            kinds_at = next((i for i, c in enumerate(cells) if c.lower() == "kinds"), None)
            continue
        m = re.match(r"`([\w.+-]+/real-[^`]+\.txt)`", cells[0]) if cells else None
        if not m:
            continue
        kinds = []
        if kinds_at is not None and kinds_at < len(cells):
            kinds = re.findall(r"\b(?:[1-8]|neg)\b", cells[kinds_at])
        yield m.group(1), kinds or ["-"], cells[1] if len(cells) > 1 else ""


def main():
    listing = "--list" in sys.argv
    with_sources = "--sources" in sys.argv
    seen = {}
    sources = {}
    for path, kinds, source in rows():
        seen.setdefault(path, set()).update(kinds)
        sources.setdefault(path, source)
    if with_sources:
        print("| fixture | kinds | whole mail | runs | values | source |")
        print("|---|---|---:|---:|---:|---|")
    on_disk = {str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("real-*.txt")}
    missing = sorted(on_disk - seen.keys())
    stale = sorted(set(seen) - on_disk)
    per_kind = {k: [0, 0, 0, 0] for k in KINDS}
    totals = [0, 0, 0, 0]
    for path in sorted(seen):
        golden = FIXTURES / path.replace(".txt", ".expected.json")
        if not golden.exists():
            continue
        doc = json.loads(golden.read_text())
        runs = len(doc["runs"])
        values = sum(len(r["results"]) for r in doc["runs"])
        first = next((m for m in doc["messages"] if m["quote_depth"] == 0), None)
        mail = int(bool(first and first["author"] and (first["date"] or first["subject"])))
        if listing:
            print(f"{path}\tkinds={','.join(sorted(seen[path]))}\tmail={mail}\truns={runs}\tvalues={values}")
        if with_sources:
            kinds = ", ".join(sorted(seen[path]))
            print(f"| `{path}` | {kinds} | {'yes' if mail else ''} | {runs} | {values} | {sources[path]} |")
        for k in seen[path]:
            for i, n in enumerate((1, mail, runs, values)):
                per_kind[k][i] += n
        for i, n in enumerate((1, mail, runs, values)):
            totals[i] += n
    if with_sources:
        print()
    print("| kind | fixtures | whole mails | runs | values |")
    print("|---|---:|---:|---:|---:|")
    for k, (n, mails, runs, values) in per_kind.items():
        if n:
            print(f"| {k}: {KINDS[k]} | {n} | {mails} | {runs} | {values} |")
    print(f"| **all real fixtures** (a post counts once) | {totals[0]} | {totals[1]} | {totals[2]} | {totals[3]} |")
    if missing:
        print("\nreal fixtures not listed in SOURCES.md:", *missing, sep="\n  ")
    if stale:
        print("\nlisted in SOURCES.md but not on disk:", *stale, sep="\n  ")
    return 1 if missing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
