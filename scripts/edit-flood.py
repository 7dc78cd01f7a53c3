#!/usr/bin/env python3
"""A repeated-edit flood (issue 22, finding 4): one client uploads a
submission of RUNS runs, then edits ATTRS attributes of every one of its
runs with its own edit token, as fast as one connection allows, for
SECONDS seconds; prints the answers by status and how much the database
(file plus WAL) grew, as MB per minute, over the whole flood and from the
end of the first accepted edit (which adds the attributes) on, the
latency of /healthz asked every 50 ms meanwhile (median, p99, max) and
the server's peak RSS (VmHWM).

  scripts/edit-flood.py BINARY accepted   # 32 attributes, values flipped
                                          # (9,984 changes: the most one
                                          # edit may make)
  scripts/edit-flood.py BINARY refused    # 64 new attributes: over the
                                          # per-run limit, refused

Environment: FLOOD_SECONDS (60), FLOOD_RUNS (312), FLOOD_PORT (18961),
FLOOD_ARGS (more `benchlog serve` options, split on spaces).
"""

import collections
import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

SECONDS = float(os.environ.get("FLOOD_SECONDS", "60"))
RUNS = int(os.environ.get("FLOOD_RUNS", "312"))
PORT = int(os.environ.get("FLOOD_PORT", "18961"))


def smack_log(runs):
    """Like tests/support.rs smack_log: `runs` super-smack runs, no attributes."""
    text = "Results of the flood series.\n\n"
    for run in range(runs):
        clients = [1, 4, 10, 16, 30, 50, 100][run % 7]
        text += (
            f"super-smack -d mysql select-key.smack {clients} 10000\n"
            "Query Barrel Report for client smacker1\n"
            f"connect: max=4ms min=1ms avg= 2ms from {clients} clients\n"
            "Query_type num_queries max_time min_time q_per_s\n"
            f"select_index {clients * 20000} 0 0 {1000 + run * 11.5:.2f}\n\n"
        )
    return text


def db_bytes(db):
    return sum(
        os.path.getsize(db + suffix)
        for suffix in ("", "-wal")
        if os.path.exists(db + suffix)
    )


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def sample_health(stop, latencies, failures):
    """/healthz every 50 ms on a connection of its own."""
    while not stop.is_set():
        began = time.monotonic()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
            conn.request("GET", "/healthz")
            response = conn.getresponse()
            response.read()
            conn.close()
            if response.status == 200:
                latencies.append(time.monotonic() - began)
            else:
                failures.append(response.status)
        except OSError as error:
            failures.append(str(error))
        stop.wait(0.05)


def main():
    binary, variant = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="edit-flood-")
    db = os.path.join(work, "flood.db")
    extra = os.environ.get("FLOOD_ARGS", "").split()
    server = subprocess.Popen(
        [binary, "serve", "--db", db, "--listen", f"127.0.0.1:{PORT}", *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
                conn.request("GET", "/healthz")
                conn.getresponse().read()
                break
            except OSError:
                time.sleep(0.1)
        body = urllib.parse.urlencode({"text": smack_log(RUNS)})
        conn.request(
            "POST",
            "/upload",
            body,
            {"Content-Type": "application/x-www-form-urlencoded"},
        )
        response = conn.getresponse()
        response.read()
        cookie = response.getheader("Set-Cookie")
        token = cookie.split(";")[0].split("=", 1)[1]
        location = response.getheader("Location")
        submission = location.rsplit("/", 1)[1]
        keys = [f"k{n}" for n in range(32)] if variant == "accepted" else [
            f"r{n}" for n in range(64)
        ]
        statuses = collections.Counter()
        stop, latencies, failures = threading.Event(), [], []
        sampler = threading.Thread(target=sample_health, args=(stop, latencies, failures))
        sampler.start()
        start_bytes = db_bytes(db)
        start = time.monotonic()
        n = 0
        after_first = None
        while time.monotonic() - start < SECONDS:
            pairs = [("all", "1"), ("token", token)]
            pairs += [(f"attr.{key}", f"v{n % 2}") for key in keys]
            conn.request(
                "POST",
                f"/submissions/{submission}/edit",
                urllib.parse.urlencode(pairs),
                {"Content-Type": "application/x-www-form-urlencoded"},
            )
            response = conn.getresponse()
            response.read()
            statuses[response.status] += 1
            if response.status == 303 and after_first is None:
                after_first = (time.monotonic(), db_bytes(db))
            n += 1
        elapsed = time.monotonic() - start
        stop.set()
        sampler.join()
        grown = db_bytes(db) - start_bytes
        print(
            f"{variant}: {dict(sorted(statuses.items()))} in {elapsed:.1f} s; "
            f"database and WAL {start_bytes / 1e6:.1f} MB -> {db_bytes(db) / 1e6:.1f} MB: "
            f"{grown / 1e6 * 60 / elapsed:.1f} MB a minute"
        )
        if after_first is not None:
            at, size = after_first
            rate = (db_bytes(db) - size) / 1e6 * 60 / (time.monotonic() - at)
            print(f"  after the first accepted edit: {rate:.1f} MB a minute")
        wal = db_bytes(db) - os.path.getsize(db)
        print(f"  at the end: file {os.path.getsize(db) / 1e6:.1f} MB, WAL {wal / 1e6:.1f} MB")
        if latencies:
            latencies.sort()
            p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
            print(
                f"  /healthz: {len(latencies)} answered 200, {len(failures)} not; "
                f"median {statistics.median(latencies) * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms, "
                f"max {latencies[-1] * 1e3:.1f} ms"
            )
        print(f"  server peak RSS (VmHWM): {peak_rss_mb(server.pid):.0f} MB")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
