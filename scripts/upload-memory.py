#!/usr/bin/env python3
"""The server's memory under three 16 MB mbox uploads at once (issue 26).

Each round starts a release `benchlog serve` on a fresh database on
127.0.0.1, waits for it to settle, then posts three result-heavy mboxes
(scripts/gen-seed-variants.py, seeds 1-3: 535 messages and 18,151 runs
each, no two alike) at the same moment through the upload form, and
samples /proc/PID/status (VmRSS, VmHWM) every 50 ms until SETTLE seconds
after the last answer. It prints each round and the medians:

  idle     RSS before the uploads
  peak     VmHWM at the end (the most RSS the process ever had)
  answers  RSS when each upload was answered, and when
  +10 s    RSS 10 s after the last answer
  +30 s    RSS SETTLE (30) s after the last answer

With `--text`, each round posts one text instead: 63 MiB of benchmark
lines with prose (as scripts/hostile-load.py's), gzipped to well under
the body limit (issue 36: it peaked at 339 MB).

Run it from the repository root after `cargo build --release`:

    python3 scripts/upload-memory.py [--rounds 3] [--settle 30]
        [--binary $CARGO_TARGET_DIR/release/benchlog]
"""

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_S = 0.05


def status_kib(pid: int) -> dict:
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0])
    return fields


def mb(kib: float) -> str:
    return f"{kib / 1024:.1f}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mboxes(cache: Path) -> list:
    cache.mkdir(parents=True, exist_ok=True)
    paths = []
    for seed in (1, 2, 3):
        path = cache / f"upload-16mb-{seed}.mbox"
        if not path.exists():
            subprocess.run(
                [sys.executable, str(ROOT / "scripts/gen-seed-variants.py"), "mbox", str(path), str(seed)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
        paths.append(path)
    return paths


def big_text(cache: Path) -> Path:
    """One gzipped text of 63 MiB: the same line of results and prose."""
    import gzip
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / "upload-63mb-text.txt.gz"
    if not path.exists():
        line = "select_index 200000 0 0 22061.88 and some prose beside it, as mails have\n"
        text = (line * (64 * 1024 * 1024 // len(line) - 1000)).encode()
        path.write_bytes(gzip.compress(text, 9))
    return path


def wait_ready(base: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"benchlog serve exited with {server.returncode}")
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=1) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    sys.exit("benchlog serve did not answer /healthz within 30 s")


def one_round(binary: Path, files: list, settle: float) -> dict:
    work = Path(tempfile.mkdtemp(prefix="upload-memory-"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = dict(os.environ, RUST_LOG="warn")
    server = subprocess.Popen(
        [str(binary), "serve", "--db", str(work / "bench.db"), "--listen", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(work / "serve.log", "w"),
    )
    try:
        wait_ready(base, server)
        time.sleep(2)
        idle = status_kib(server.pid)["VmRSS"]

        samples = []  # (seconds since the posts, VmRSS KiB)
        stop = threading.Event()
        start = time.monotonic()

        def sample() -> None:
            while not stop.is_set():
                samples.append((time.monotonic() - start, status_kib(server.pid)["VmRSS"]))
                time.sleep(SAMPLE_S)

        sampler = threading.Thread(target=sample)
        sampler.start()
        answers = []  # (seconds, HTTP status, VmRSS KiB)
        lock = threading.Lock()

        def post(path: Path) -> None:
            done = subprocess.run(
                ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-F", f"file=@{path}", base + "/upload"],
                capture_output=True,
                text=True,
            )
            at = time.monotonic() - start
            rss = status_kib(server.pid)["VmRSS"]
            with lock:
                answers.append((at, done.stdout.strip(), rss))

        posts = [threading.Thread(target=post, args=(path,)) for path in files]
        for thread in posts:
            thread.start()
        for thread in posts:
            thread.join()
        last = max(at for at, _, _ in answers)
        time.sleep(10)
        after_10 = status_kib(server.pid)["VmRSS"]
        time.sleep(max(0.0, settle - 10))
        after_settle = status_kib(server.pid)["VmRSS"]
        stop.set()
        sampler.join()
        peak = status_kib(server.pid)["VmHWM"]
        answers.sort()
        bad = [status for _, status, _ in answers if status not in ("200", "303")]
        if bad:
            sys.exit(f"an upload was answered {bad}; see {work / 'serve.log'}")
        return {
            "idle": idle,
            "peak": peak,
            "sampled_peak": max(rss for _, rss in samples),
            "answers": answers,
            "at_last": answers[-1][2],
            "last_s": last,
            "after_10": after_10,
            "after_settle": after_settle,
        }
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--settle", type=float, default=30.0)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    parser.add_argument("--binary", type=Path, default=target / "release/benchlog")
    parser.add_argument("--mbox-dir", type=Path, default=target / "upload-memory")
    parser.add_argument("--text", action="store_true", help="one 63 MiB text (gzipped) instead")
    args = parser.parse_args()
    files = [big_text(args.mbox_dir)] if args.text else mboxes(args.mbox_dir)
    rounds = []
    for n in range(1, args.rounds + 1):
        r = one_round(args.binary, files, args.settle)
        rounds.append(r)
        answers = ", ".join(f"{at:.1f} s {mb(rss)} MB" for at, _, rss in r["answers"])
        print(
            f"round {n}: idle {mb(r['idle'])} MB, peak {mb(r['peak'])} MB, "
            f"answers [{answers}], +10 s {mb(r['after_10'])} MB, "
            f"+{args.settle:.0f} s {mb(r['after_settle'])} MB",
            flush=True,
        )
    med = lambda key: statistics.median(r[key] for r in rounds)
    print(
        f"median of {len(rounds)}: idle {mb(med('idle'))} MB, peak {mb(med('peak'))} MB, "
        f"at last answer {mb(med('at_last'))} MB (at {med('last_s'):.1f} s), "
        f"+10 s {mb(med('after_10'))} MB, +{args.settle:.0f} s {mb(med('after_settle'))} MB"
    )


if __name__ == "__main__":
    main()
