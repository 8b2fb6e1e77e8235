"""The egress proxy (standard library only; skill-be runs it as a file in a container of its own, or
in a thread in tests). It listens on unix sockets in one folder, which the agent containers mount;
those containers have no network, so these sockets are their only way out. One JSON argument:

`{"dir": folder, "tunnels": [[socket, host, port], ...], "allow": ["host:port", ...]}`

- each tunnel socket pipes bytes to one fixed upstream (a provider's `baseUrl` over http, such as a
  model server on this machine's loopback): nothing in the stream can choose another host;
- the socket `connect` is an HTTP CONNECT proxy (the CLIs' HTTPS_PROXY): `CONNECT host:port` is
  tunnelled only when `host:port` is in `allow` (the configured providers' hosts), else 403. TLS
  stays end to end between the CLI and the provider.
Every refused request is one line on stderr: `egress: refused host:port`.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import threading
from typing import Any

MAX_HEAD = 8192


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


def _join(a: socket.socket, b: socket.socket, first: bytes = b"") -> None:
    if first:
        b.sendall(first)
    threading.Thread(target=_pipe, args=(a, b), daemon=True).start()
    threading.Thread(target=_pipe, args=(b, a), daemon=True).start()


def _tunnel(conn: socket.socket, host: str, port: int) -> None:
    try:
        up = socket.create_connection((host, port), timeout=30)
        up.settimeout(None)
    except OSError as e:
        print(f"egress: cannot reach {host}:{port}: {e}", file=sys.stderr, flush=True)
        conn.close()
        return
    _join(conn, up)


def _connect(conn: socket.socket, allow: set[str]) -> None:
    head = b""
    while b"\r\n\r\n" not in head and len(head) < MAX_HEAD:
        data = conn.recv(4096)
        if not data:
            conn.close()
            return
        head += data
    line = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split()
    target = parts[1] if len(parts) == 3 and parts[0] == "CONNECT" else ""
    if target.lower() not in allow:
        print(f"egress: refused {target or line[:80]}", file=sys.stderr, flush=True)
        conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        conn.close()
        return
    host, _, port = target.rpartition(":")
    try:
        up = socket.create_connection((host, int(port)), timeout=30)
        up.settimeout(None)
    except (OSError, ValueError):
        conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        conn.close()
        return
    conn.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
    _join(conn, up, head.split(b"\r\n\r\n", 1)[1])


def _listen(path: str) -> socket.socket:
    if os.path.exists(path):
        os.remove(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o777)  # the agents run under another uid
    server.listen(128)
    return server


def _accept(server: socket.socket, handle: Any, *args: Any) -> None:
    while True:
        conn, _ = server.accept()
        threading.Thread(target=handle, args=(conn, *args), daemon=True).start()


def serve(spec: dict[str, Any]) -> list[threading.Thread]:
    """Start every listener; returns their threads (daemons)."""
    folder = spec["dir"]
    threads = []
    for name, host, port in spec.get("tunnels", []):
        server = _listen(os.path.join(folder, name))
        threads.append(threading.Thread(target=_accept, args=(server, _tunnel, host, int(port)), daemon=True))
    allow = {str(a).lower() for a in spec.get("allow", [])}
    server = _listen(os.path.join(folder, "connect"))
    threads.append(threading.Thread(target=_accept, args=(server, _connect, allow), daemon=True))
    for t in threads:
        t.start()
    with open(os.path.join(folder, "ready"), "w") as f:
        f.write("ok")
    return threads


if __name__ == "__main__":
    for t in serve(json.loads(sys.argv[1])):
        t.join()
