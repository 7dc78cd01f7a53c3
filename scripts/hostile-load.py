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

`--scenario` runs one of the loads of issue 22 instead, each on a fresh
server, and reports /healthz latency (median, p99, max, failures) from
127.0.0.1 and the server's peak RSS (VmHWM):

  never-reading  a submission of 500 runs with 63 attributes of 200
                 characters each (a 28 MB page before it was paged); 50
                 clients from 127.0.0.3 ask for its page and never read,
                 asking again whenever the server closes them, for 30 s;
  never-reading-8x64  the same from 8 addresses, 64 clients each;
  silent-640     640 silent connections from 127.0.0.2-11, 64 each, each
                 opened again as soon as the server closes it, for 30 s;
  viewers        32 clients reading that submission's page in a loop while
                 /healthz and a kept /compare are timed.

The loads of issue 36 (set BENCHLOG_MAX_CONNECTIONS to try another cap):

  silent-crowd-520  520 addresses (127.10.0.1 on, 254 to a /24), each
                 holding one silent connection opened again when the server
                 closes it, for 30 s, while a browser-like client asks /
                 on 4 keep-alive connections, a newcomer asks / on a new
                 connection every 200 ms, and a client downloads a 4.6 MB
                 comparison again and again, reading 256 KB every 50 ms:
                 requests answered, and downloads whole or cut;
  never-reading-6x3  18 connections from 6 addresses asking that 4.6 MB
                 comparison (4 pipelined) and never reading, opened again
                 when closed, for 30 s, while another client asks it every
                 500 ms: its answers by status, and whether each was whole.
  slow-bodies    four uploads from 127.0.0.5 declaring
                 Content-Length 16777216 and sending 16 bytes every 5 s,
                 each opened again when the server closes it; meanwhile
                 127.0.0.1 pastes a small report three times, one after
                 the other: how long each paste waits for its answer (and,
                 over at least 15 s, what the slow bodies were answered).
"""

import argparse
import gzip
import sqlite3
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


def rss_kib(pid, field="VmRSS:"):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field):
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

    def health(self, path="/healthz"):
        while not self.stop.is_set():
            start = time.monotonic()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
                ok = response.status == 200
                conn.close()
            except OSError:
                ok = False
            if ok:
                self.latencies.append(time.monotonic() - start)
            else:
                self.failed += 1
            time.sleep(0.05)

    def summary(self, name):
        """Prints latency (median, p99, max) and the peak RSS since start."""
        lat = sorted(self.latencies) or [float("nan")]
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        print(
            f"{name}: /healthz median {statistics.median(lat) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
            f"max {lat[-1] * 1000:.1f} ms, {len(self.latencies)} answered 200, {self.failed} not; "
            f"peak RSS (VmHWM) {rss_kib(self.pid, 'VmHWM:') / 1024:.0f} MB"
        )

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


def start_server(binary, workdir, name, **env):
    """A release server on a fresh database, once /healthz answers."""
    server = subprocess.Popen(
        [binary, "serve", "--db", os.path.join(workdir, name), "--listen", f"127.0.0.1:{PORT}"],
        env={**os.environ, "BENCHLOG_UPLOADS_PER_MINUTE": "0", "BENCHLOG_SUBMISSIONS_PER_MINUTE": "0",
             "RUST_LOG": "warn", **env},
    )
    for _ in range(100):
        try:
            if get("/healthz")[0] == 200:
                break
        except OSError:
            time.sleep(0.1)
    return server


def stop_server(server):
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        print("the server did not stop within 20 s of SIGTERM", file=sys.stderr)
        server.kill()


def heavy_submission(db):
    """Uploads 500 super-smack runs and gives each 63 attributes of 200
    characters (written into the database, as 500 edits would): within the
    limits, and a 28 MB page before runs were paged. Its path."""
    runs = []
    for run in range(500):
        clients = [1, 4, 10, 16, 30, 50, 100][run % 7]
        runs.append(
            f"super-smack -d mysql select-key.smack {clients} 10000\nQuery Barrel Report for client smacker1\n"
            f"connect: max=4ms min=1ms avg= 2ms from {clients} clients\n"
            f"Query_type num_queries max_time min_time q_per_s\nselect_index {clients * 20000} 0 0 {1000 + run}.5\n\n"
        )
    status, location = upload("heavy.txt", "".join(runs).encode())
    conn = sqlite3.connect(db, timeout=30)
    conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 63) "
        "INSERT OR REPLACE INTO run_attrs (run_id, key, value) "
        "SELECT r.id, 'attribute_' || n.i, printf('%0200d', n.i) FROM runs r, n"
    )
    conn.commit()
    conn.close()
    return location


class Attack:
    """Connections from `addresses` (count each) that send their bytes and
    never read, each opened again as soon as the server closes it (seen in
    the socket's TCP state, since the unread answer hides the close), until
    stopped."""

    def __init__(self, addresses, count, send=b""):
        self.addresses, self.count, self.send = addresses, count, send
        self.stop, self.opened, self.thread = threading.Event(), 0, None

    def open(self, address):
        try:
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.bind((address, 0))
            sock.settimeout(5)
            sock.connect(("127.0.0.1", PORT))
            if self.send:
                sock.sendall(self.send)
            self.opened += 1
            return sock
        except OSError:
            return None

    def run(self):
        socks = [(address, self.open(address)) for address in self.addresses for _ in range(self.count)]
        while not self.stop.is_set():
            for i, (address, sock) in enumerate(socks):
                # tcpi_state: 1 ESTABLISHED; 7 CLOSE, 8 CLOSE_WAIT (the
                # server closed it).
                state = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] if sock else 7
                if state != 1:
                    if sock:
                        sock.close()
                    socks[i] = (address, self.open(address))
            time.sleep(0.05)
        for _, sock in socks:
            if sock:
                sock.close()

    def __enter__(self):
        self.thread = threading.Thread(target=self.run)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


class SlowBodies:
    """`count` uploads from `address`, each declaring `declared` bytes and
    sending 16 of them every `gap` s, opened again when the server
    answers or closes them, until stopped."""

    def __init__(self, address, count, declared=16 * 1024 * 1024, gap=5.0):
        self.address, self.count, self.declared, self.gap = address, count, declared, gap
        self.stop, self.opened, self.answers, self.thread = threading.Event(), 0, [], None

    def open(self):
        try:
            sock = socket.socket()
            sock.bind((self.address, 0))
            sock.settimeout(5)
            sock.connect(("127.0.0.1", PORT))
            sock.sendall(
                (f"POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                 f"Content-Length: {self.declared}\r\n\r\ntext=").encode())
            sock.setblocking(False)
            self.opened += 1
            return sock
        except OSError:
            return None

    def run(self):
        socks = [self.open() for _ in range(self.count)]
        next_send = time.monotonic() + self.gap
        while not self.stop.is_set():
            for i, sock in enumerate(socks):
                closed = sock is None
                if sock is not None:
                    try:
                        said = sock.recv(4096)
                        if said:
                            self.answers.append(said.split(b" ")[1].decode(errors="replace"))
                        closed = True
                    except BlockingIOError:
                        pass
                    except OSError:
                        closed = True
                if closed:
                    if sock is not None:
                        sock.close()
                    socks[i] = self.open()
            if time.monotonic() >= next_send:
                next_send += self.gap
                for sock in socks:
                    if sock is not None:
                        try:
                            sock.send(b"0123456789abcdef")
                        except OSError:
                            pass
            time.sleep(0.05)
        for sock in socks:
            if sock is not None:
                sock.close()

    def __enter__(self):
        self.thread = threading.Thread(target=self.run)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


def paste(text):
    """Pastes `text` from 127.0.0.1: the status and the seconds it took."""
    body = "text=" + "".join(c if c.isalnum() else f"%{ord(c):02X}" for c in text)
    start = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=300)
    conn.request("POST", "/upload", body, {"Content-Type": "application/x-www-form-urlencoded"})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response.status, time.monotonic() - start


def slow_bodies():
    started = time.monotonic()
    with SlowBodies("127.0.0.5", 4) as attack:
        time.sleep(2)
        waits = []
        for i in range(3):
            report = (f"super-smack -d mysql select-key.smack {i + 1} 10000\nQuery Barrel Report for client smacker1\n"
                      f"connect: max=4ms min=1ms avg= 2ms from {i + 1} clients\n"
                      f"Query_type num_queries max_time min_time q_per_s\nselect_index {i + 1}0000 0 0 {1000 + i}.5\n")
            status, took = paste(report)
            waits.append(took)
            print(f"  paste {i + 1}: {status} after {took:.2f} s")
        # Long enough for a slow body to be dropped under the least rate.
        time.sleep(max(0.0, 15 - (time.monotonic() - started)))
    print(f"slow-bodies: the good client's paste waited median {statistics.median(waits):.2f} s, "
          f"max {max(waits):.2f} s; {attack.opened} slow bodies opened, answered {sorted(set(attack.answers))}")


# Requests a never-reading client sends at once: the socket buffers take
# the first answers, and the server holds the next one.
PIPELINED = 4


# A comparison of this many super-smack runs is a 4.6 MB JSON answer.
LARGE_RUNS = 5_400
LARGE = "/compare.json?tool=super-smack&item=select_index&metric=q_per_s&x=threads"


def large_comparison():
    """Uploads LARGE_RUNS runs in a few texts; the comparison's size."""
    per_text = 1_800
    for first in range(0, LARGE_RUNS, per_text):
        runs = []
        for run in range(first, min(first + per_text, LARGE_RUNS)):
            clients = [1, 4, 10, 16, 30, 50, 100][run % 7]
            runs.append(
                f"== box{run} ==\nsuper-smack -d mysql select-key.smack {clients} 10000\n"
                f"Query Barrel Report for client smacker1\n"
                f"connect: max=4ms min=1ms avg= 2ms from {clients} clients\n"
                f"Query_type num_queries max_time min_time q_per_s\n"
                f"select_index {clients * 20000} 0 0 {1000 + run}.5\n\n"
            )
        status, _ = upload(f"large{first}.txt", "".join(runs).encode())
        if status != 303:
            print(f"uploading runs {first}..: {status}", file=sys.stderr)
    status, size = get(LARGE)
    print(f"{LARGE}: {status}, {size / 1e6:.1f} MB")
    return size


class Tally:
    """Requests asked and answered by status, thread-safe."""

    def __init__(self):
        self.lock, self.counts = threading.Lock(), {}

    def add(self, what):
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + 1

    def __str__(self):
        return ", ".join(f"{k}: {v}" for k, v in sorted(self.counts.items(), key=str))


def keep_alive_client(stop, tally):
    """Asks / on one keep-alive connection, a new one when it is closed."""
    conn = None
    while not stop.is_set():
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
            conn.request("GET", "/")
            response = conn.getresponse()
            response.read()
            tally.add(response.status)
            if response.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
        except (OSError, http.client.HTTPException):
            tally.add("no answer")
            if conn:
                conn.close()
            conn = None
        time.sleep(0.05)


def newcomer(stop, tally):
    while not stop.is_set():
        try:
            tally.add(get("/")[0])
        except (OSError, http.client.HTTPException):
            tally.add("no answer")
        time.sleep(0.2)


def slow_download(stop, tally, whole):
    """Downloads LARGE, 256 KB every 50 ms: whole, cut (and at what
    fraction), or refused."""
    while not stop.is_set():
        got = 0
        try:
            conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
            conn.request("GET", LARGE)
            response = conn.getresponse()
            if response.status != 200:
                tally.add(f"download {response.status}")
                response.read()
                conn.close()
                time.sleep(0.2)
                continue
            while True:
                piece = response.read(256 * 1024)
                if not piece:
                    break
                got += len(piece)
                time.sleep(0.05)
            conn.close()
        except (OSError, http.client.HTTPException):
            pass
        tally.add("download whole" if got == whole else f"download cut ({100 * got // whole}%)")


def crowd_scenario(server, workdir):
    whole = large_comparison()
    addresses = [f"127.10.{n // 254}.{n % 254 + 1}" for n in range(520)]
    stop, browser, fresh, downloads = threading.Event(), Tally(), Tally(), Tally()
    threads = [threading.Thread(target=keep_alive_client, args=(stop, browser)) for _ in range(4)]
    threads.append(threading.Thread(target=newcomer, args=(stop, fresh)))
    threads.append(threading.Thread(target=slow_download, args=(stop, downloads, whole)))
    with Sampler(server.pid) as sampler:
        with Attack(addresses, 1, b"") as attack:
            time.sleep(2)
            for thread in threads:
                thread.start()
            time.sleep(30)
            stop.set()
            for thread in threads:
                thread.join()
    sampler.summary(f"silent-crowd-520: 520 x 1 for 32 s ({attack.opened} connections opened)")
    print(f"  browser on 4 keep-alive connections: {browser}")
    print(f"  newcomer, a connection a request: {fresh}")
    print(f"  {whole / 1e6:.1f} MB downloads: {downloads}")


def never_reading_scenario(server, workdir):
    whole = large_comparison()
    addresses = [f"127.0.0.{i}" for i in range(3, 9)]
    send = f"GET {LARGE} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode() * PIPELINED
    tally = Tally()
    with Sampler(server.pid) as sampler:
        with Attack(addresses, 3, send) as attack:
            time.sleep(3)
            until = time.monotonic() + 30
            while time.monotonic() < until:
                try:
                    status, size = get(LARGE)
                    tally.add(status if status != 200 or size == whole else "200 cut")
                except (OSError, http.client.HTTPException):
                    tally.add("no answer")
                time.sleep(0.5)
    sampler.summary(f"never-reading-6x3: 6 x 3 for 33 s ({attack.opened} connections opened)")
    print(f"  another client asking the {whole / 1e6:.1f} MB comparison: {tally}")


def scenario(args, workdir):
    server = start_server(args.binary, workdir, f"{args.scenario}.db")
    try:
        if args.scenario == "silent-crowd-520":
            crowd_scenario(server, workdir)
            return
        if args.scenario == "never-reading-6x3":
            never_reading_scenario(server, workdir)
            return
        db = os.path.join(workdir, f"{args.scenario}.db")
        if args.scenario == "slow-bodies":
            slow_bodies()
            return
        if args.scenario in ("never-reading", "never-reading-8x64", "viewers"):
            location = heavy_submission(db)
            status, size = get(location)
            print(f"heavy submission {location}: {status}, first page {size / 1e6:.1f} MB")
        if args.scenario == "viewers":
            kept = "/compare?tool=super-smack&item=select_index&metric=q_per_s&x=threads"
            get(kept)
            stop = threading.Event()

            def view(n):
                parts = [location, location + "?runs=200", location + "?runs=400"]
                while not stop.is_set():
                    get(parts[n % 3])
                    n += 1
            viewers = [threading.Thread(target=view, args=(i,)) for i in range(32)]
            with Sampler(server.pid) as sampler:
                kept_sampler = Sampler(server.pid)
                kept_thread = threading.Thread(target=kept_sampler.health, args=(kept,))
                for thread in viewers:
                    thread.start()
                kept_thread.start()
                time.sleep(30)
                stop.set()
                kept_sampler.stop.set()
                for thread in viewers + [kept_thread]:
                    thread.join()
            sampler.summary("32 viewers of its pages for 30 s")
            kept_sampler.summary("  the same, a kept /compare instead of /healthz")
            return
        if args.scenario == "silent-640":
            addresses, count, send = [f"127.0.0.{i}" for i in range(2, 12)], 64, b""
        elif args.scenario == "never-reading":
            addresses, count = ["127.0.0.3"], 50
            send = f"GET {location} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode() * PIPELINED
        else:
            addresses, count = [f"127.0.0.{i}" for i in range(3, 11)], 64
            send = f"GET {location} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode() * PIPELINED
        with Sampler(server.pid) as sampler:
            with Attack(addresses, count, send) as attack:
                time.sleep(30)
        sampler.summary(f"{args.scenario}: {len(addresses)} x {count} for 30 s ({attack.opened} connections opened)")
    finally:
        stop_server(server)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default="target/release/benchlog")
    parser.add_argument("--connections", type=int, default=0)
    parser.add_argument("--scenario", choices=["never-reading", "never-reading-8x64", "silent-640", "viewers",
                                                 "silent-crowd-520", "never-reading-6x3", "slow-bodies"])
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="benchlog-hostile-")
    if args.scenario:
        scenario(args, workdir)
        return
    server = start_server(args.binary, workdir, "h.db", BENCHLOG_REQUEST_TIMEOUT="300")
    try:
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
        stop_server(server)


if __name__ == "__main__":
    main()
