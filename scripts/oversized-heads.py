#!/usr/bin/env python3
"""What the server answers to request heads too large for hyper to parse
(issue 36): a 70,000-byte address, 250 headers, 190 KiB of headers. For
each: the status line and the body's length and start (a3e0433 sent
hyper's own answers, with empty bodies).

    python3 scripts/oversized-heads.py BINARY [PORT]
"""
import socket, subprocess, sys, time, os, tempfile
binary, port = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 18711
d = tempfile.mkdtemp()
srv = subprocess.Popen([binary, "serve", "--db", os.path.join(d, "h.db"), "--listen", f"127.0.0.1:{port}"], env={**os.environ, "RUST_LOG": "warn"})
time.sleep(1.5)
def ask(head):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(head)
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b: break
            out += b
    except OSError as e:
        out += f"<{e}>".encode()
    s.close()
    return out.decode(errors="replace")
base = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
cases = {
  "uri 70000 bytes": f"GET /runs?tool={'a'*70000} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
  "250 headers": base + "".join(f"X-F-{n}: b\r\n" for n in range(250)) + "\r\n",
  "190 KiB of headers": base + "".join(f"X-F-{n}: {'b'*1020}\r\n" for n in range(190)) + "\r\n",
}
for name, head in cases.items():
    a = ask(head.encode())
    h, _, body = a.partition("\r\n\r\n")
    print(f"{name}: {h.splitlines()[0] if h else '(nothing)'}; body {len(body)} bytes: {body.strip()[:160]!r}")
srv.terminate(); srv.wait()
