#!/usr/bin/env python3
"""Writes fixtures/mbox/seed-threads.mbox (and .mbox.gz) from the seed fixtures: two
threads and four single posts in the shapes list archives hold them.

  1 Steven Hartland   4 super-smack runs (seed 000's [log], unquoted)
  2 Michael Vince     reply to 1, pipermail-obfuscated From; quotes one run
                      of 1 with "> " and no attribution line; 1 run of his own
  3 Steven Hartland   reply to 2: "Michael Vince wrote:", quotes 2's run at
                      depth 1 and 1's run at depth 2; 1 new run
  4 Mike Tancsa       Latin-1, quoted-printable, encoded-word subject: seed 001
  5 Sergey Vojtovich  UTF-8, base64: seed 002
  6 Axel Schwenke     reply to 5 quoting a summary line 5 does not hold, with
                      no attribution line
  7 Rune Hansen       seed 004 as a base64 text attachment
  8 Sven Petai        HTML only, a super-smack report broken with <br>

Run it from the repository root: python3 scripts/make-seed-threads-mbox.py
"""
import base64
import gzip
import quopri

ROOT = "fixtures/"


def read(path):
    with open(ROOT + path, encoding="utf-8") as f:
        return f.read()


def lines(path, first, last, strip=""):
    out = read(path).split("\n")[first - 1 : last]
    return "\n".join(l[len(strip):] if l.startswith(strip) else l.lstrip(">").lstrip() for l in out) + "\n"


seed0 = "super-smack/seed-000-freebsd-mysql-smp.txt"
log = lines(seed0, 90, 115, ">> ")
m1_quoted_run = "\n".join("> " + l for l in lines(seed0, 90, 95, ">> ").rstrip("\n").split("\n")) + "\n"
vince_run = lines(seed0, 45, 50)
ule_run = lines(seed0, 129, 134, ">> ")

messages = []


def mbox_entry(envelope, headers, body: bytes):
    head = "".join(f"{k}: {v}\n" for k, v in headers)
    messages.append(f"From {envelope}\n{head}\n".encode("ascii") + body)


mbox_entry(
    "killing at multiplay.co.uk  Wed Apr  5 12:41:02 2006",
    [
        ("From", '"Steven Hartland" <killing@multiplay.co.uk>'),
        ("Date", "Wed, 5 Apr 2006 13:41:02 +0100"),
        ("Subject", "mysql performance on 4 * dualcore opteron"),
        ("Message-ID", "<00c701c658a6$2b6f3b10@multiplay.co.uk>"),
    ],
    ("Looking at this on a dual box here, the tweaks help a lot.\n\n[log]\n" + log).encode(),
)
mbox_entry(
    "mv at thebeastie.org  Thu Apr 20 09:46:56 2006",
    [
        ("From", "mv at thebeastie.org (Michael Vince)"),
        ("Date", "Thu, 20 Apr 2006 09:46:56 +0000"),
        ("Subject", "Re: mysql performance on 4 * dualcore opteron"),
        ("In-Reply-To", "<00c701c658a6$2b6f3b10@multiplay.co.uk>"),
        ("References", "<00c701c658a6$2b6f3b10@multiplay.co.uk>"),
        ("Message-ID", "<444757F0.5000406@thebeastie.org>"),
    ],
    (
        m1_quoted_run
        + "\nThat baseline matches what I see. On i386 with a PAE kernel it is slower:\n"
        + vince_run
        + "\nMike\n"
    ).encode(),
)
mbox_entry(
    "killing at multiplay.co.uk  Thu Apr 20 11:02:13 2006",
    [
        ("From", '"Steven Hartland" <killing@multiplay.co.uk>'),
        ("Date", "Thu, 20 Apr 2006 12:02:13 +0100"),
        ("Subject", "Re: mysql performance on 4 * dualcore opteron"),
        ("In-Reply-To", "<444757F0.5000406@thebeastie.org>"),
        (
            "References",
            "<00c701c658a6$2b6f3b10@multiplay.co.uk>\n\t<444757F0.5000406@thebeastie.org>",
        ),
        ("Message-ID", "<01a201c66464$0badf00d@multiplay.co.uk>"),
    ],
    (
        "Michael Vince wrote:\n"
        + "".join("> > " + l + "\n" for l in lines(seed0, 90, 95, ">> ").rstrip("\n").split("\n"))
        + ">\n> That baseline matches what I see. On i386 with a PAE kernel it is slower:\n"
        + "".join("> " + l + "\n" for l in vince_run.rstrip("\n").split("\n"))
        + "\nULE makes the difference here:\n\n== ULE + libthr + TSC ==\n"
        + ule_run.split("\n", 1)[1]
    ).encode(),
)
seed1 = read("bonnie/seed-001-freebsd-vs-linux-rt-database.txt").split("\n", 4)[4]
latin1 = ("Résumé des mesures (très parlant) :\n\n" + seed1).encode("latin-1", errors="replace")
mbox_entry(
    "mike at sentex.net  Fri Oct 20 18:59:54 2006",
    [
        ("From", "mike at sentex.net (Mike Tancsa)"),
        ("Date", "Fri, 20 Oct 2006 14:59:54 -0400"),
        ("Subject", "=?iso-8859-1?q?LINUX_vs_FreeBSD_mysql_performance_=E0_la_RT?="),
        ("Message-ID", "<6.2.3.4.0.20061020145402.0817d7e0@sentex.net>"),
        ("MIME-Version", "1.0"),
        ("Content-Type", "text/plain; charset=iso-8859-1"),
        ("Content-Transfer-Encoding", "quoted-printable"),
    ],
    quopri.encodestring(latin1),
)
seed2 = read("sysbench/seed-002-mariadb-mutexes-lost-line-breaks.txt").split("\n", 1)[1]
mbox_entry(
    "svoj at mariadb.org  Mon Feb 10 12:00:00 2014",
    [
        ("From", "Sergey Vojtovich <svoj@mariadb.org>"),
        ("Date", "Mon, 10 Feb 2014 16:00:00 +0400"),
        ("Subject", "[Maria-developers] MariaDB scalability: mutexes"),
        ("Message-ID", "<20140210120000.GA1@mariadb.org>"),
        ("MIME-Version", "1.0"),
        ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Transfer-Encoding", "base64"),
    ],
    base64.encodebytes(seed2.encode("utf-8")),
)
mbox_entry(
    "axel at mariadb.com  Tue Feb 11 09:00:00 2014",
    [
        ("From", "Axel Schwenke <axel@mariadb.com>"),
        ("Date", "Tue, 11 Feb 2014 10:00:00 +0100"),
        ("Subject", "Re: [Maria-developers] MariaDB scalability: mutexes"),
        ("In-Reply-To", "<20140210120000.GA1@mariadb.org>"),
        ("References", "<20140210120000.GA1@mariadb.org>"),
        ("Message-ID", "<52F9E5A0.1@mariadb.com>"),
    ],
    b"> and with 32 threads:\n"
    b"> 32 threads, time spent: 60s, queries executed: 5750361, qps: 95839, 1 thread qps: 2994, tps: 6845\n"
    b"\nI will run the official benchmarks this week.\n\nAxel\n",
)
seed4 = read("sql-bench/seed-004-linux-2.4-vs-2.2-smp.txt")
boundary = "=_seed004_"
body7 = (
    f"--{boundary}\nContent-Type: text/plain; charset=us-ascii\n\n"
    "Results of this morning's sql-bench runs are attached.\n\nRune\n"
    f"--{boundary}\nContent-Type: text/plain; charset=utf-8; name=\"sql-bench-2.4-vs-2.2.txt\"\n"
    "Content-Disposition: attachment; filename=\"sql-bench-2.4-vs-2.2.txt\"\n"
    "Content-Transfer-Encoding: base64\n\n"
    + base64.encodebytes(seed4.encode("utf-8")).decode("ascii")
    + f"--{boundary}--\n"
)
mbox_entry(
    "rune at example.no  Wed Jan 24 10:00:00 2001",
    [
        ("From", '"Rune Hansen" <rune@example.no>'),
        ("Date", "Wed, 24 Jan 2001 10:00:00 +0100"),
        ("Subject", "SMP problems: sql-bench 2.4 vs 2.2 kernels"),
        ("Message-ID", "<3A6E9A10.1@example.no>"),
        ("MIME-Version", "1.0"),
        ("Content-Type", f'multipart/mixed; boundary="{boundary}"'),
    ],
    body7.encode(),
)
html = (
    "<html><head><style>p { margin: 0 }</style></head><body>"
    "<p>Same box, 8 cores:</p><p>super-smack -d mysql select-key.smack 20 10000<br>"
    "Query Barrel Report for client smacker1<br>"
    "connect: max=12ms min=1ms avg= 4ms from 20 clients<br>"
    "Query_type num_queries max_time min_time q_per_s<br>"
    "select_index 400000 1 0 21412.77<br></p><p>Sven &amp; co.</p></body></html>\n"
)
mbox_entry(
    "hadara at bsd.ee  Tue Apr  4 14:42:05 2006",
    [
        ("From", "Sven Petai <hadara@bsd.ee>"),
        ("Date", "Tue, 4 Apr 2006 17:42:05 +0300"),
        ("Subject", "super-smack on 8 cores"),
        ("Message-ID", "<200604041742.05391.hadara@bsd.ee>"),
        ("MIME-Version", "1.0"),
        ("Content-Type", "text/html; charset=utf-8"),
    ],
    html.encode(),
)

data = b"\n".join(m if m.endswith(b"\n") else m + b"\n" for m in messages)
with open(ROOT + "mbox/seed-threads.mbox", "wb") as f:
    f.write(data)
with gzip.GzipFile(ROOT + "mbox/seed-threads.mbox.gz", "wb", mtime=0) as f:
    f.write(data)
