#!/usr/bin/env python3
"""Issue 36, item 6: the answers kept on disk must leave uploads their
room. Needs root (it mounts a tmpfs).

A database of RUNS runs (examples/gen_scale_db, made once and kept in
/tmp) is copied to a tmpfs sized to hold it and FREE_MB more; `benchlog
serve` runs on it with the default --min-free-disk-mb (64). 25 GETs of
distinct comparisons (/compare.json, each ~10 MB, pinned at 25 different
submissions, from 25 loopback addresses), then one 3.5 MB paste, then
/healthz; prints the free space after the GETs and after the paste, and
the paste's and /healthz's answers.

    scripts/disk-floor.py /tmp/benchlog-a3e0433
    scripts/disk-floor.py target/release/benchlog
    GEN=target/release/examples/gen_scale_db RUNS=200000 scripts/disk-floor.py BIN

Measured (release builds, 2 runs each): before (a3e0433) 84 MB free after
the GETs, the paste 303 leaving 67-73 MB, /healthz 503 "the disk is
full"; after, 222 MB free after the GETs, the paste 303 leaving 208-211
MB, /healthz 200.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

RUNS = int(os.environ.get("RUNS", "200000"))
FREE_MB = int(os.environ.get("FREE_MB", "325"))
GEN = os.environ.get("GEN", "target/release/examples/gen_scale_db")
PORT = int(os.environ.get("PORT", "18962"))
QUERY = "tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&by=thread_lib"
SEED = "fixtures/super-smack/seed-000-freebsd-mysql-smp.txt"


def free_mb(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize / 1e6


def request(url, data=None, source="127.0.0.1"):
    # A client address of its own per request: curl binds it.
    args = ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--interface", source,
            "--max-time", "300"]
    if data is not None:
        args += ["--data-urlencode", f"text@{data}"]
    return subprocess.run(args + [url], capture_output=True, text=True).stdout


def main():
    binary = os.path.abspath(sys.argv[1])
    base_db = f"/tmp/disk-floor-base-{RUNS}.db"
    if not os.path.exists(base_db):
        subprocess.run([GEN, base_db, str(RUNS)], check=True)
    submissions = int(re.search(rb"(\d+) submissions",
                                subprocess.run(["sqlite3", base_db, "SELECT count(*) || ' submissions' FROM submissions"],
                                               capture_output=True).stdout).group(1))
    mnt = tempfile.mkdtemp(prefix="disk-floor.")
    size = (os.path.getsize(base_db) + FREE_MB * 1_000_000 + 4095) // 4096 * 4096
    size_mb = size / 1e6
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", mnt], check=True)
    server = None
    try:
        db = os.path.join(mnt, "b.db")
        shutil.copyfile(base_db, db)
        paste = os.path.join(tempfile.gettempdir(), "disk-floor-paste.txt")
        seed = open(SEED).read()
        prose = "".join(f"Line {i} of the notes that came with the runs: nothing measured here.\n"
                        for i in range(48_000))
        with open(paste, "w") as f:
            f.write(seed + "\n" + prose)
        log = open(os.path.join(tempfile.gettempdir(), "disk-floor-serve.log"), "w")
        server = subprocess.Popen([binary, "serve", "--db", db, "--listen", f"127.0.0.1:{PORT}"],
                                  stdout=log, stderr=log)
        base = f"http://127.0.0.1:{PORT}"
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2)
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        start = free_mb(mnt)
        codes = []
        for k in range(25):
            url = f"{base}/compare.json?{QUERY}&asof={submissions - k}"
            codes.append(request(url, source=f"127.0.1.{k + 1}"))
        after_gets = free_mb(mnt)
        pasted = request(base + "/upload", data=paste, source="127.0.2.1")
        after_paste = free_mb(mnt)
        health = request(base + "/healthz", source="127.0.2.2")
        print(f"{binary}: free {start:.0f} MB of {size_mb:.0f} before; 25 GETs {sorted(set(codes))}: "
              f"{after_gets:.0f} MB free; 3.5 MB paste: {pasted}, {after_paste:.0f} MB free; "
              f"/healthz: {health}")
    finally:
        if server:
            server.terminate()
            server.wait()
        subprocess.run(["umount", mnt])
        os.rmdir(mnt)


if __name__ == "__main__":
    main()
