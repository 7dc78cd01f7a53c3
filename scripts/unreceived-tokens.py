#!/usr/bin/env python3
"""Uploads whose client leaves before reading the answer (issue 36): each
try posts a distinct mbox of 1,000 messages (7 MB) from 127.0.0.1, closes the
connection after a random wait (up to the time a whole upload takes),
waits for the server to finish, then sends the same upload again and
reads its answer. A try whose first upload was stored (the submissions
grew before the retry) left a token behind; the figure is how many of
those the retry was given (Set-Cookie benchlog_edit_...).

    python3 scripts/unreceived-tokens.py [--binary B] [--tries 40]
"""

import argparse
import http.client
import os
import random
import socket
import sqlite3
import subprocess
import tempfile
import time

PORT = 18621
BOUNDARY = "unreceived-boundary"


def mbox(seed):
    prose = " ".join(f"w{seed}x{w}" for w in range(800))
    out = []
    for i in range(1000):
        out.append(
            f"From a{i} at b.org  Mon Jan  1 10:00:00 2007\nFrom: A{i} <a{i}@b.org>\nSubject: run {seed}-{i}\n"
            f"Message-ID: <r{seed}-{i}@b.org>\n\nselect_index {seed * 1000 + i} 0 0 {1000 + i}.5\n{prose}\n\n")
    return "".join(out).encode()


def body_of(data):
    return (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"m.mbox\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{BOUNDARY}--\r\n".encode()


def post(body):
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=120)
    conn.request("POST", "/upload", body, {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
    response = conn.getresponse()
    response.read()
    cookies = response.getheader("Set-Cookie") or ""
    conn.close()
    return response.status, "benchlog_edit_" in cookies


def post_and_leave(body, after):
    sock = socket.create_connection(("127.0.0.1", PORT))
    head = (f"POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    sock.sendall(head + body)
    time.sleep(after)
    sock.close()


def submissions(db):
    conn = sqlite3.connect(db, timeout=30)
    n = conn.execute("SELECT count(*) FROM submissions").fetchone()[0]
    conn.close()
    return n


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release/benchlog"))
    parser.add_argument("--tries", type=int, default=40)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="unreceived-")
    db = os.path.join(work, "u.db")
    server = subprocess.Popen(
        [args.binary, "serve", "--db", db, "--listen", f"127.0.0.1:{PORT}"],
        env={**os.environ, "BENCHLOG_UPLOADS_PER_MINUTE": "0", "BENCHLOG_SUBMISSIONS_PER_MINUTE": "0", "RUST_LOG": "warn"})
    try:
        time.sleep(1.5)
        start = time.monotonic()
        status, _ = post(body_of(mbox(0)))
        whole = time.monotonic() - start
        print(f"one upload answered {status} in {whole:.2f} s")
        random.seed(36)
        left_stored = recovered = 0
        for seed in range(1, args.tries + 1):
            body = body_of(mbox(seed))
            before = submissions(db)
            post_and_leave(body, random.uniform(0, whole * 1.2))
            time.sleep(whole + 0.5)
            stored = submissions(db) > before
            status, token = post(body)
            if stored:
                left_stored += 1
                recovered += token
        print(f"{args.tries} tries: {left_stored} stored although their client left; "
              f"{recovered} of those were given the token on retry")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
