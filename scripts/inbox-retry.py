#!/usr/bin/env python3
"""Issue 36, item 7: a public-inbox message whose object is missing (a
mirror caught mid-fetch) must be stored once the object is back.

Builds a v2 inbox of MESSAGES mails with `git` (one commit per message,
its blob `m`, loose objects), deletes the loose object of the middle
message, runs `benchlog ingest`, puts the object back, runs it again and
prints how many messages the second run stored (0 when the first run's
mark moved past the missing one, 1 when it stayed before it).

    scripts/inbox-retry.py /tmp/benchlog-a3e0433
    scripts/inbox-retry.py target/release/benchlog

Measured (release builds): before (a3e0433) 0 stored after the restore
(the re-run read 0 new commits, 5 skipped); after, 1 (3 read, 2 skipped).
"""
import os
import sqlite3
import subprocess
import sys
import tempfile

MESSAGES = 5


def git(repo, *args, stdin=None, env=None):
    return subprocess.run(["git", "--git-dir", repo, *args], input=stdin,
                          capture_output=True, check=True, env=env).stdout.decode().strip()


def build_inbox(root):
    repo = os.path.join(root, "list", "git", "0.git")
    subprocess.run(["git", "init", "-q", "--bare", repo], check=True)
    env = dict(os.environ, GIT_AUTHOR_NAME="Poster", GIT_AUTHOR_EMAIL="p@example.org",
               GIT_COMMITTER_NAME="Poster", GIT_COMMITTER_EMAIL="p@example.org",
               GIT_AUTHOR_DATE="1167645600 +0000", GIT_COMMITTER_DATE="1167645600 +0000")
    parent, blobs = None, []
    for i in range(MESSAGES):
        mail = (f"From: Poster {i} <p{i}@example.org>\nDate: Mon, 1 Jan 2007 10:0{i}:00 +0000\n"
                f"Subject: run {i}\nMessage-ID: <run{i}@example.org>\n\n"
                f"sysbench run {i}\n    transactions:                        {1000 + i} ({100 + i}.5 per sec.)\n")
        blob = git(repo, "hash-object", "-w", "--stdin", stdin=mail.encode())
        tree = git(repo, "mktree", stdin=f"100644 blob {blob}\tm\n".encode())
        args = ["commit-tree", tree, "-m", f"mail {i}"] + (["-p", parent] if parent else [])
        parent = git(repo, *args, env=env)
        blobs.append(blob)
    git(repo, "update-ref", "refs/heads/master", parent)
    git(repo, "symbolic-ref", "HEAD", "refs/heads/master")
    return os.path.join(root, "list"), repo, blobs


def stored(db):
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM mails").fetchone()[0]


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as root:
        inbox, repo, blobs = build_inbox(root)
        db = os.path.join(root, "b.db")
        middle = blobs[MESSAGES // 2]
        path = os.path.join(repo, "objects", middle[:2], middle[2:])
        with open(path, "rb") as f:
            saved = f.read()
        os.remove(path)
        ingest = [binary, "ingest", "--db", db, inbox]
        subprocess.run(ingest, capture_output=True)
        first = stored(db)
        with open(path, "wb") as f:
            f.write(saved)
        again = subprocess.run(ingest, capture_output=True, text=True)
        second = stored(db)
        print(f"{binary}: first run stored {first} of {MESSAGES}; "
              f"after restore and re-run: {second - first} stored ({second} of {MESSAGES})")
        for line in again.stdout.splitlines():
            if "new commits read" in line:
                print("  re-run:", line.split(": ", 1)[1])


if __name__ == "__main__":
    main()
