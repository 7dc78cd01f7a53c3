#!/usr/bin/env python3
"""Result-heavy inputs for the ingest and upload benchmarks: seed 000's mail
(17 super-smack runs) with every decimal number varied by up to 5%, so that
no text and no run repeats another.

    # 2,000 files of one mail each (about 29.7 MB, 34,000 runs):
    python3 scripts/gen-seed-variants.py folder target/bench-ingest/mails 2000
    # a 16 MB mbox under the upload limit (seed 000 twice per message,
    # 535 messages, 18,151 runs); another SEED gives other numbers:
    python3 scripts/gen-seed-variants.py mbox target/upload-16mb.mbox [SEED]
    curl -s -o /dev/null -w '%{http_code} %{time_total}s\\n' \\
        -F 'file=@target/upload-16mb.mbox' http://127.0.0.1:8080/upload
"""

import random
import re
import sys
from pathlib import Path

SEED = Path(__file__).resolve().parent.parent / "fixtures/super-smack/seed-000-freebsd-mysql-smp.txt"
# The upload form takes 16 MiB; the mbox stays under it with its headers.
MBOX_LIMIT = 15_950_000


def varied(src: str) -> str:
    vary = lambda m: f"{float(m.group(0)) * (1 + random.uniform(-0.05, 0.05)):.2f}"
    return re.sub(r"\d+\.\d\d", vary, src)


def mbox(out: Path, seed: int) -> None:
    src = SEED.read_text()
    parts, size, n = [], 0, 0
    while size < MBOX_LIMIT:
        n += 1
        text = "\n\n".join(varied(src) for _ in range(2))
        message = (
            f"From bench{n}@example.org Mon Jan  1 00:00:00 2007\n"
            f"From: Bench {n} <bench{n}@example.org>\nSubject: run {n}\n"
            f"Date: Mon, 1 Jan 2007 00:00:00 +0000\nMessage-ID: <run{n}.{seed}@example.org>\n\n"
            + text.replace("\nFrom ", "\n>From ").rstrip("\n")
            + "\n\n"
        )
        parts.append(message)
        size += len(message.encode())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(parts))
    print(f"{out}: {n} messages, {size} bytes")


def folder(out: Path, count: int) -> None:
    src = SEED.read_text()
    out.mkdir(parents=True, exist_ok=True)
    size = 0
    for n in range(1, count + 1):
        text = varied(src)
        (out / f"mail-{n:05}.txt").write_text(text)
        size += len(text.encode())
    print(f"{out}: {count} files, {size} bytes")


if __name__ == "__main__":
    kind = sys.argv[1] if len(sys.argv) > 1 else ""
    seed = int(sys.argv[3]) if kind == "mbox" and len(sys.argv) > 3 else 7
    random.seed(seed)
    if kind == "mbox":
        # The seed is in each Message-ID too: mail already stored under
        # the same Message-ID would not be stored again.
        mbox(Path(sys.argv[2] if len(sys.argv) > 2 else "target/upload-16mb.mbox"), seed)
    elif kind == "folder":
        folder(Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 2000)
    else:
        sys.exit(__doc__)
