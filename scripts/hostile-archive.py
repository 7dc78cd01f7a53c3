#!/usr/bin/env python3
"""`benchlog ingest URL` against a hostile archive server on 127.0.0.1:
what one import costs (peak RSS from /usr/bin/time -v, wall time, the
bytes the server got into its sockets) and how it ends.

Scenarios (each a fresh database, one import of one address):

  big-index      an "index page" of 200 MB with its Content-Length
                 (HTML, no month links)
  endless-index  the same without Content-Length, never ending
  endless-month  a month (an mbox's first lines) without Content-Length,
                 never ending
  drip           a month's first lines, then one byte every --drip-every
                 seconds (30: under the 60 s read timeout), for ever; the
                 import is killed after --cap seconds (700)
  redirect       a month whose address redirects (302) to another port,
                 where a real month is served: is the other server asked?

Usage:

  cargo build --release
  python3 scripts/hostile-archive.py [--binary target/release/benchlog]
      [--scenario NAME ...] [--drip-every 30] [--cap 700]
"""

import argparse
import http.server
import os
import re
import socketserver
import subprocess
import sys
import tempfile
import threading
import time

MB = 1000 * 1000
MONTH_START = (
    b"From perf at example.org  Mon Apr  3 10:00:00 2006\n"
    b"From: perf at example.org (Perf)\n"
    b"Date: Mon, 3 Apr 2006 10:00:00 +0000\n"
    b"Subject: [perf] results\n"
    b"Message-ID: <endless@example.org>\n\n"
)
PROSE = b"<p>no month links here, only words</p>\n"
FIXTURE = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "fixtures",
    "pipermail",
    "divunal-author",
    "2003-May.txt.gz",
)


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.sent = 0
        self.requests = []

    def add(self, n):
        with self.lock:
            self.sent += n


def handler(counter, args, other_base):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def send(self, data):
            self.wfile.write(data)
            counter.add(len(data))

        def head(self, status=200, fields=()):
            self.send_response(status)
            for name, value in fields:
                self.send_header(name, value)
            self.send_header("Connection", "close")
            self.end_headers()

        def endless(self, start, filler, length=None):
            fields = [("Content-Length", str(length))] if length else []
            self.head(200, fields)
            self.send(start)
            chunk = filler * (65536 // len(filler))
            left = (length - len(start)) if length else None
            while left is None or left > 0:
                piece = chunk if left is None else chunk[:left]
                self.send(piece)
                if left is not None:
                    left -= len(piece)

        def do_GET(self):
            counter.requests.append(self.path)
            try:
                if self.path == "/big/":
                    self.endless(b"<html><body>", PROSE, 200 * MB)
                elif self.path == "/endless/":
                    self.endless(b"<html><body>", PROSE)
                elif self.path == "/month/2006-April.txt":
                    self.endless(MONTH_START, b"more of the report\n")
                elif self.path == "/drip/2006-April.txt":
                    self.head(200)
                    self.send(MONTH_START)
                    while True:
                        self.wfile.flush()
                        time.sleep(args.drip_every)
                        self.send(b"x")
                elif self.path == "/moved/2003-May.txt.gz":
                    self.head(302, [("Location", other_base + "/list/2003-May.txt.gz"),
                                    ("Content-Length", "0")])
                elif self.path == "/list/2003-May.txt.gz":
                    body = open(FIXTURE, "rb").read()
                    self.head(200, [("Content-Length", str(len(body)))])
                    self.send(body)
                else:
                    self.head(404, [("Content-Length", "0")])
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def serve(counter, args, other_base=""):
    server = Server(("127.0.0.1", 0), handler(counter, args, other_base))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d" % server.server_address[1]


def run(binary, address, cap):
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "b.db")
        started = time.monotonic()
        process = subprocess.Popen(
            ["/usr/bin/time", "-v", binary, "ingest", "--db", db, address],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            out, err = process.communicate(timeout=cap)
            killed = False
        except subprocess.TimeoutExpired:
            # /usr/bin/time's child: kill it, then time reports.
            children = open("/proc/%d/task/%d/children" % (process.pid, process.pid)).read()
            for child in children.split():
                os.kill(int(child), 9)
            out, err = process.communicate()
            killed = True
        took = time.monotonic() - started
    err = err.decode(errors="replace")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    said = [line for line in err.splitlines() if line.startswith("error")]
    said += [line for line in out.decode(errors="replace").splitlines() if "error" in line]
    return {
        "rss_mb": int(rss.group(1)) / 1024 if rss else None,
        "seconds": took,
        "killed": killed,
        "said": said[-1] if said else out.decode(errors="replace").strip().splitlines()[-1:],
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default="target/release/benchlog")
    parser.add_argument("--scenario", action="append",
                        choices=["big-index", "endless-index", "endless-month", "drip", "redirect"])
    parser.add_argument("--drip-every", type=float, default=30.0)
    parser.add_argument("--cap", type=float, default=700.0)
    args = parser.parse_args()
    scenarios = args.scenario or ["big-index", "endless-index", "endless-month", "redirect"]
    paths = {
        "big-index": "/big/",
        "endless-index": "/endless/",
        "endless-month": "/month/2006-April.txt",
        "drip": "/drip/2006-April.txt",
        "redirect": "/moved/2003-May.txt.gz",
    }
    for name in scenarios:
        other_counter = Counter()
        other, other_base = serve(other_counter, args)
        counter = Counter()
        server, base = serve(counter, args, other_base)
        result = run(args.binary, base + paths[name], args.cap)
        time.sleep(0.5)
        print(
            "%-14s peak RSS %7.1f MB  %7.1f s%s  server sent %8.1f MB  other server asked %d  | %s"
            % (name, result["rss_mb"] or -1, result["seconds"],
               " (killed)" if result["killed"] else "",
               counter.sent / MB, len(other_counter.requests), result["said"]),
            flush=True,
        )
        server.shutdown()
        other.shutdown()


if __name__ == "__main__":
    sys.exit(main())
