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

`--recall` measures instead: it runs the parsers (the `parse_file`
example, built in release unless `--parser PATH` names one) on every real
fixture and prints, per tool folder, the fixtures read exactly as their
golden, the mean share of a post's values found, the values found pooled
(on tool, threads, label, item, metric and value; and on all but the
label), and the accuracy of the label set, fixtures/labels.tsv. The goldens
of fixtures/misses.tsv hold what the text says, so this is recall against
hand-reviewed values; the others' goldens are what tests/golden.rs holds
the parsers to.

`--new` counts the fixtures of the sections titled "(issue 25)": by form
(their `form` column), language other than English, negatives, whole
mails, and distinct sources (a GitHub repository, a web site, or a list).

    python3 scripts/fixture-kinds.py [--list | --sources | --new | --recall [--parser PATH]]
"""

import collections
import json
import os
import re
import subprocess
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


def parser_binary():
    """The parse_file example: --parser PATH, or built here in release."""
    if "--parser" in sys.argv:
        return sys.argv[sys.argv.index("--parser") + 1]
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "-p", "parsers", "--example", "parse_file"],
        cwd=ROOT,
        check=True,
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return str(target / "release" / "examples" / "parse_file")


def value_keys(runs, with_label):
    """The multiset of a document's values, keyed as the recall counts them."""
    keys = collections.Counter()
    for r in runs:
        for v in r["results"]:
            key = (r["tool"], r["threads"], v["item"], v["metric"], v["value"])
            keys[key + ((r["label"],) if with_label else ())] += 1
    return keys


def recall():
    binary = parser_binary()
    paths = sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("real-*.txt"))
    # per tool: posts, exact, sum of per-post shares, values, found, found loose
    per_tool = collections.defaultdict(lambda: [0, 0, 0.0, 0, 0, 0])
    parsed = {}
    for path in paths:
        golden_path = FIXTURES / path.replace(".txt", ".expected.json")
        if not golden_path.exists():
            continue
        want = json.loads(golden_path.read_text())
        out = subprocess.run([binary, "--json", FIXTURES / path], capture_output=True, check=True)
        got = json.loads(out.stdout)
        parsed[path[: -len(".txt")]] = got
        row = per_tool[path.split("/")[0]]
        row[0] += 1
        row[1] += int(got["runs"] == want["runs"])
        total = sum(value_keys(want["runs"], True).values())
        found = sum((value_keys(want["runs"], True) & value_keys(got["runs"], True)).values())
        loose = sum((value_keys(want["runs"], False) & value_keys(got["runs"], False)).values())
        if total:
            row[2] += found / total
        else:
            # A negative, or runs without values (diskinfo -v alone):
            # right when the same number of runs is found.
            row[2] += float(len(got["runs"]) == len(want["runs"]))
        row[3] += total
        row[4] += found
        row[5] += loose
    print("| tool | real fixtures | read exactly | mean per post | values (pooled) | on tool and threads only |")
    print("|---|---:|---:|---:|---:|---:|")
    sums = [0, 0, 0.0, 0, 0, 0]
    for tool, row in sorted(per_tool.items()):
        sums = [a + b for a, b in zip(sums, row)]
        print(recall_row(tool, row))
    print(recall_row("**all**", sums))
    right = rows_seen = 0
    for line in (FIXTURES / "labels.tsv").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        fixture, run, label = line.split("\t", 2)
        doc = parsed.get(fixture)
        if doc is None:
            out = subprocess.run([binary, "--json", FIXTURES / (fixture + ".txt")], capture_output=True, check=True)
            doc = parsed[fixture] = json.loads(out.stdout)
        runs = doc["runs"]
        got = runs[int(run)]["label"] if int(run) < len(runs) else "(no such run)"
        rows_seen += 1
        right += int(got == (None if label == "-" else label))
    posts = len({l.split("\t")[0] for l in (FIXTURES / "labels.tsv").read_text().splitlines() if l.strip() and not l.startswith("#")})
    print(f"\nlabel set: {right} of {rows_seen} runs labelled right ({100 * right / max(rows_seen, 1):.1f}%) in {posts} posts")
    return 0


def recall_row(tool, row):
    posts, exact, shares, values, found, loose = row
    pct = lambda a, b: f"{100 * a / b:.1f}%" if b else "-"
    return (
        f"| {tool} | {posts} | {exact} | {pct(shares, posts)} | "
        f"{pct(found, values)} ({found} of {values}) | {pct(loose, values)} |"
    )


def new_rows(marker="(issue 25)"):
    """{header: cell} for every fixture row of the sections whose title holds marker."""
    section = header = None
    for line in (FIXTURES / "SOURCES.md").read_text().splitlines():
        if line.startswith("## "):
            section, header = line, None
            continue
        if not line.startswith("|") or not section or marker not in section:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "fixture":
            header = [c.lower() for c in cells]
        elif header and cells[0].startswith("`"):
            yield dict(zip(header, cells))


def source_key(source):
    """What makes two sources one: a GitHub repository, a web site, a list."""
    m = re.search(r"github\.com/([\w.-]+/[\w.-]+)", source) or re.search(r"GitHub `([\w.-]+/[\w.-]+)`", source)
    if m:
        return "github:" + m.group(1).lower()
    m = re.search(r"https?://([^/\s`]+)", source)
    if m:
        return m.group(1).lower().removeprefix("www.")
    return source.split(",")[0].strip().lower()


def new_fixtures():
    rows = list(new_rows())
    forms = collections.Counter(r.get("form", "?") or "?" for r in rows)
    # "English", "en", "none (output only)": no other language around the output.
    english = ("english", "en", "none", "-", "")
    foreign = [r for r in rows if r.get("language", "english").lower().split(",")[0].split(" (")[0].strip() not in english]
    negatives = [r for r in rows if "neg" in r.get("kinds", "") or "negative/" in r["fixture"]]
    sources = {source_key(r.get("source", "")) for r in rows}
    markup_words = ("markdown", "html", "rst", "restructured", "wiki", "asciidoc", "adoc", "xml",
                    "roff", "latex", "bbcode", "crlf", "hugo", "jekyll", "mkdocs", "docbook", "mdoc")
    marked = [r for r in rows if not r.get("form", "").lower().startswith("mail")
              and any(w in (r.get("form", "") + " " + r.get("what it is", "") + " " + r["fixture"]).lower()
                      for w in markup_words)]
    mails = [r for r in rows if r.get("form", "").lower().startswith("mail")]
    print(f"fixtures in the (issue 25) sections: {len(rows)}")
    for form, n in forms.most_common():
        print(f"  form {form}: {n}")
    print(f"  web pages and repository files with markup: {len(marked)}")
    print(f"  whole mails: {len(mails)}")
    print(f"  not in English: {len(foreign)}")
    print(f"  negatives: {len(negatives)}")
    print(f"  distinct sources: {len(sources)}")
    return 0


def main():
    if "--recall" in sys.argv:
        return recall()
    if "--new" in sys.argv:
        return new_fixtures()
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
