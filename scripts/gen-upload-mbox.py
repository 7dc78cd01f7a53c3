#!/usr/bin/env python3
"""A 16 MB mbox for the upload benchmark: seed 000's mail twice per message,
its numbers varied by up to 5% so that no run repeats an earlier one, 535
messages (18,151 runs) under the 16 MiB body limit.

    python3 scripts/gen-upload-mbox.py target/upload-16mb.mbox
    curl -s -o /dev/null -w '%{http_code} %{time_total}s\\n' \\
        -F 'file=@target/upload-16mb.mbox' http://127.0.0.1:8080/upload
"""

import random
import re
import sys
from pathlib import Path

SEED = Path(__file__).resolve().parent.parent / "fixtures/super-smack/seed-000-freebsd-mysql-smp.txt"
LIMIT = 15_950_000


def main(out: str) -> None:
    random.seed(7)
    src = SEED.read_text()
    vary = lambda m: f"{float(m.group(0)) * (1 + random.uniform(-0.05, 0.05)):.2f}"
    parts, size, n = [], 0, 0
    while size < LIMIT:
        n += 1
        text = "\n\n".join(re.sub(r"\d+\.\d\d", vary, src) for _ in range(2))
        message = (
            f"From bench{n}@example.org Mon Jan  1 00:00:00 2007\n"
            f"From: Bench {n} <bench{n}@example.org>\nSubject: run {n}\n"
            f"Date: Mon, 1 Jan 2007 00:00:00 +0000\nMessage-ID: <run{n}@example.org>\n\n"
            + text.replace("\nFrom ", "\n>From ").rstrip("\n")
            + "\n\n"
        )
        parts.append(message)
        size += len(message.encode())
    Path(out).write_text("".join(parts))
    print(f"{out}: {n} messages, {size} bytes")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "target/upload-16mb.mbox")
