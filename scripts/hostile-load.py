#!/usr/bin/env python3
"""Peak server memory and /healthz latency under the hostile loads of the
hardening issue, against a release build of benchlog on 127.0.0.1:

  1. eight uploads at once of a 0.5 MB .gz mbox that unpacks to 60 MB;
  2. six readers at once of the page of a submission whose text is 64 MB
     (uploaded as a 0.4 MB .gz);
  3. (with --connections N) N silent connections held open from 127.0.0.2
     (run `ulimit -n 4096` first).

For each: the server's peak RSS (sampled every 20 ms from /proc), its RSS
10 s and 30 s after, and /healthz latency (median and max of one request every
50 ms) while the load runs. Usage:

  cargo build --release
  python3 scripts/hostile-load.py [--binary target/release/benchlog] [--connections 1100]
"""

import argparse
import gzip
import http.client
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

PORT = 18611


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Sampler:
    """Peak RSS of the server and /healthz latencies while a load runs."""

    def __init__(self, pid):
        self.pid, self.peak, self.latencies, self.failed = pid, 0, [], 0
        self.stop = threading.Event()

    def __enter__(self):
        self.threads = [threading.Thread(target=self.rss), threading.Thread(target=self.health)]
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for thread in self.threads:
            thread.join()

    def rss(self):
        while not self.stop.is_set():
            self.peak = max(self.peak, rss_kib(self.pid))
            time.sleep(0.02)

    def health(self):
        while not self.stop.is_set():
            start = time.monotonic()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
                conn.request("GET", "/healthz")
                ok = conn.getresponse().status == 200
                conn.close()
            except OSError:
                ok = False
            if ok:
                self.latencies.append(time.monotonic() - start)
            else:
                self.failed += 1
            time.sleep(0.05)

    def report(self, name):
        """Waits 30 s, then prints the figures."""
        time.sleep(10)
        after_10 = rss_kib(self.pid)
        time.sleep(20)
        after_30 = rss_kib(self.pid)
        lat = sorted(self.latencies) or [float("nan")]
        print(
            f"{name}: peak RSS {self.peak / 1024:.0f} MB, after 10 s {after_10 / 1024:.0f} MB, "
            f"after 30 s {after_30 / 1024:.0f} MB; "
            f"/healthz median {statistics.median(lat) * 1000:.1f} ms, max {lat[-1] * 1000:.1f} ms, "
            f"{len(self.latencies)} answered, {self.failed} failed"
        )


def upload(name, body_bytes):
    boundary = "hostile-load-boundary"
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode() + body_bytes + f"\r\n--{boundary}--\r\n".encode()
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=300)
    conn.request("POST", "/upload", body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response.status, response.getheader("Location")


def get(path):
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=300)
    conn.request("GET", path)
    response = conn.getresponse()
    size = len(response.read())
    conn.close()
    return response.status, size


def big_mbox(seed):
    """About 60 MB of mail: 320 messages of 190 KB of quoted prose."""
    para = ("> We see the same numbers on the second machine with the other scheduler; "
            "the difference is within the noise of the runs. " * 2 + "\n") * 800
    parts = []
    for i in range(320):
        parts.append(
            f"From user{i} at example.org  Mon Apr  3 10:{i % 60:02d}:00 2006\n"
            f"From: User {i} <user{i}@example.org>\nSubject: Re: scheduler numbers {seed}\n"
            f"Message-ID: <{seed}-{i}@example.org>\n\n{para}\n"
        )
    return gzip.compress("".join(parts).encode(), 9)


def big_text():
    line = "select_index 200000 0 0 22061.88 and some prose beside it, as mails have\n"
    return gzip.compress((line * (64 * 1024 * 1024 // len(line) - 1000)).encode(), 9)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default="target/release/benchlog")
    parser.add_argument("--connections", type=int, default=0)
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="benchlog-hostile-")
    server = subprocess.Popen(
        [args.binary, "serve", "--db", os.path.join(workdir, "h.db"), "--listen", f"127.0.0.1:{PORT}"],
        env={**os.environ, "BENCHLOG_UPLOADS_PER_MINUTE": "0", "BENCHLOG_SUBMISSIONS_PER_MINUTE": "0",
             "BENCHLOG_REQUEST_TIMEOUT": "300", "RUST_LOG": "warn"},
    )
    try:
        for _ in range(100):
            try:
                if get("/healthz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        print(f"idle: RSS {rss_kib(server.pid) / 1024:.0f} MB")

        mboxes = [big_mbox(i) for i in range(8)]
        print(f"mbox upload: {len(mboxes[0]) / 1024:.0f} KB gzip each")
        with Sampler(server.pid) as sampler:
            results = [None] * 8
            threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, upload(f"m{i}.txt.gz", mboxes[i])))
                       for i in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        print(f"  answers: {sorted(r[0] for r in results)}")
        sampler.report("8 mbox uploads at once")

        text = big_text()
        status, location = upload("big.txt.gz", text)
        print(f"64 MB text ({len(text) / 1024:.0f} KB gzip): {status} {location}")
        with Sampler(server.pid) as sampler:
            sizes = [None] * 6
            threads = [threading.Thread(target=lambda i=i: sizes.__setitem__(i, get(location))) for i in range(6)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        print(f"  pages: {sizes}")
        sampler.report("6 readers of its page at once")

        if args.connections:
            held = []
            with Sampler(server.pid) as sampler:
                for i in range(args.connections):
                    try:
                        held.append(socket.create_connection(
                            ("127.0.0.1", PORT), timeout=5, source_address=("127.0.0.2", 0)))
                    except OSError:
                        break
                time.sleep(5)
            print(f"  {len(held)} silent connections opened")
            for sock in held:
                sock.close()
            sampler.report(f"{args.connections} silent connections")
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            print("the server did not stop within 20 s of SIGTERM", file=sys.stderr)
            server.kill()


if __name__ == "__main__":
    main()
