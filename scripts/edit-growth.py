#!/usr/bin/env python3
"""What edits cost the disk and the write lock (issue 36, items 1, 3, 8).

  scripts/edit-growth.py BINARY growth  # one all=1 edit of 60 attributes
                                        # of 200 characters on 300 runs:
                                        # its answer, how much the database
                                        # and its WAL grew, the configs
  scripts/edit-growth.py BINARY lock    # six clients each send one edit
                                        # of 312 runs x 63 attributes at
                                        # once, then a paste: how long each
                                        # waited and what it was answered
  scripts/edit-growth.py BINARY log     # four addresses alternate a paste
                                        # and an allowed edit for
                                        # EDIT_SECONDS (130): how fast the
                                        # database and the edit log grow

`growth` sets EDIT_ATTRS (60) attributes of EDIT_CHARS (200) characters;
`log` LOG_ATTRS (32) of LOG_CHARS (30); `lock` LOCK_ATTRS (63) of 2.
Each starts `BINARY serve` on a fresh database in a temporary folder
(EDIT_PORT, 18971) and stops it. Clients are told apart by their source
address (127.0.0.N), as the server tells them apart.
"""

import http.client
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import importlib.util

_spec = importlib.util.spec_from_file_location(
    "edit_flood", os.path.join(os.path.dirname(os.path.abspath(__file__)), "edit-flood.py")
)
FLOOD = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(FLOOD)

PORT = int(os.environ.get("EDIT_PORT", "18971"))
SECONDS = float(os.environ.get("EDIT_SECONDS", "130"))
# The edit `log` sends: 32 attributes of 30 characters on 312 runs (9,984
# changes, 1.0 MB as the edits limit counts them) is the largest allowed.
LOG_ATTRS = int(os.environ.get("LOG_ATTRS", "32"))
LOG_CHARS = int(os.environ.get("LOG_CHARS", "30"))


class SourceConnection(http.client.HTTPConnection):
    """An HTTP connection from a chosen loopback address."""

    def __init__(self, source, timeout=120):
        super().__init__("127.0.0.1", PORT, timeout=timeout, source_address=(source, 0))


def boxes(runs, salt=""):
    """`runs` sysbench one-line summaries, each under its `== boxN ==`."""
    text = f"Results of the box series {salt}.\n\n"
    for n in range(runs):
        threads = [1, 4, 8, 16, 32, 64][n % 6]
        text += (
            f"== box{n} ==\n"
            f"{threads} threads, time spent: 60s, queries executed: {100000 + n}, "
            f"qps: {1000 + n}.5, 1 thread qps: {(1000 + n) // threads}, tps: {50 + n}\n\n"
        )
    return text


def smack_log(runs, salt=""):
    """edit-flood.py's `runs` super-smack runs, told apart by `salt`."""
    return f"{salt}\n" + FLOOD.smack_log(runs)


def db_bytes(db):
    return sum(
        os.path.getsize(db + suffix) for suffix in ("", "-wal") if os.path.exists(db + suffix)
    )


def start(binary, db, extra=()):
    server = subprocess.Popen(
        [binary, "serve", "--db", db, "--listen", f"127.0.0.1:{PORT}", *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(200):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=5)
            conn.request("GET", "/healthz")
            conn.getresponse().read()
            return server
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the server did not start")


def upload(source, text):
    """(submission, token, status, seconds) of one paste from `source`."""
    conn = SourceConnection(source)
    began = time.monotonic()
    conn.request(
        "POST",
        "/upload",
        urllib.parse.urlencode({"text": text}),
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    response = conn.getresponse()
    response.read()
    took = time.monotonic() - began
    if response.status != 303:
        return None, None, response.status, took
    cookie = response.getheader("Set-Cookie") or ""
    token = cookie.split(";")[0].split("=", 1)[1] if "=" in cookie else None
    submission = response.getheader("Location").rsplit("/", 1)[1]
    return submission, token, response.status, took


def edit(source, submission, token, pairs):
    """(status, seconds, first 300 characters of the body) of one edit."""
    conn = SourceConnection(source)
    began = time.monotonic()
    conn.request(
        "POST",
        f"/submissions/{submission}/edit",
        urllib.parse.urlencode([("all", "1"), ("token", token), *pairs]),
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    response = conn.getresponse()
    body = response.read().decode(errors="replace")
    return response.status, time.monotonic() - began, body[:300]


def table_rows(db, table):
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def growth(binary, work):
    db = os.path.join(work, "growth.db")
    server = start(binary, db)
    try:
        submission, token, status, _ = upload("127.0.0.2", boxes(300))
        assert status == 303, status
        before = db_bytes(db)
        configs = table_rows(db, "configs")
        attrs = int(os.environ.get("EDIT_ATTRS", "60"))
        chars = int(os.environ.get("EDIT_CHARS", "200"))
        pairs = [(f"attr.key{n}", chr(ord("a") + n % 26) * chars) for n in range(attrs)]
        status, took, body = edit("127.0.0.2", submission, token, pairs)
        time.sleep(1)
        after = db_bytes(db)
        print(
            f"growth: edit answered {status} in {took:.2f} s; database and WAL "
            f"{before / 1e6:.1f} MB -> {after / 1e6:.1f} MB (+{(after - before) / 1e6:.1f} MB); "
            f"configs {configs} -> {table_rows(db, 'configs')}"
        )
        if status != 303:
            print(f"  said: {body!r}")
    finally:
        server.terminate()
        server.wait()


def lock(binary, work):
    db = os.path.join(work, "lock.db")
    server = start(binary, db)
    try:
        clients = [f"127.0.0.{10 + n}" for n in range(6)]
        owned = [upload(c, smack_log(312, c))[:2] for c in clients]
        attrs = int(os.environ.get("LOCK_ATTRS", "63"))
        pairs = [(f"attr.k{n}", "v1") for n in range(attrs)]
        results = {}

        def one(n):
            submission, token = owned[n]
            results[n] = edit(clients[n], submission, token, pairs)

        threads = [threading.Thread(target=one, args=(n,)) for n in range(6)]
        began = time.monotonic()
        for thread in threads:
            thread.start()
        time.sleep(0.3)
        _, _, paste_status, paste_took = upload("127.0.0.99", smack_log(3, "paste"))
        for thread in threads:
            thread.join()
        total = time.monotonic() - began
        for n in range(6):
            status, took, body = results[n]
            extra = "" if status == 303 else f" {body[:120]!r}"
            print(f"lock: edit {n + 1} of {312 * attrs} changes: {status} after {took:.2f} s{extra}")
        print(f"lock: the six edits took {total:.2f} s; the paste: {paste_status} after {paste_took:.2f} s")
    finally:
        server.terminate()
        server.wait()


def log(binary, work):
    db = os.path.join(work, "log.db")
    server = start(binary, db)
    try:
        clients = [f"127.0.1.{n}" for n in range(1, 5)]
        owned = {}
        for c in clients:
            submission, token, status, _ = upload(c, smack_log(312, c))
            owned[c] = (submission, token)
        start_bytes = db_bytes(db)
        began = time.monotonic()
        statuses = {}
        stop = threading.Event()

        def flood(c):
            n = 0
            while not stop.is_set():
                upload(c, smack_log(1, f"{c} {n}"))
                submission, token = owned[c]
                pairs = [(f"attr.k{k}", f"{n % 2}" + "x" * (LOG_CHARS - 1)) for k in range(LOG_ATTRS)]
                status, _, _ = edit(c, submission, token, pairs)
                statuses[status] = statuses.get(status, 0) + 1
                n += 1

        threads = [threading.Thread(target=flood, args=(c,)) for c in clients]
        for thread in threads:
            thread.start()
        time.sleep(SECONDS)
        stop.set()
        for thread in threads:
            thread.join()
        took = time.monotonic() - began
        grown = db_bytes(db) - start_bytes
        print(
            f"log: edits answered {dict(sorted(statuses.items()))} in {took:.0f} s; "
            f"database and WAL grew {grown / 1e6:.1f} MB ({grown / 1e6 * 60 / took:.1f} MB a minute); "
            f"edit log {table_rows(db, 'run_edit_log')} entries"
        )
    finally:
        server.terminate()
        server.wait()


def main():
    binary, what = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="edit-growth-")
    {"growth": growth, "lock": lock, "log": log}[what](binary, work)


if __name__ == "__main__":
    main()
