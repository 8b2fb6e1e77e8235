"""Runs inside an agent or checks container (standard library only; copied in as a file, never
imported by skill-be). One JSON argument says what to do:

- `{"mode": "agent", "argv", "cwd", "env", "timeout", "relays": [[port, socket], ...], "out"}`: start
  the relays (127.0.0.1:port -> the egress proxy's unix socket; the container has no network of its
  own), run the CLI with its stdout and stderr in files under `out`, kill its process group at the
  time limit, write `out/exit` (the exit code, or "timeout").
- `{"mode": "checks", "checks": [[name, command], ...], "cwd", "env", "timeout", "out", "cap"}`: run
  each command with `sh -c` in `cwd`, each under the time limit, and write `out/checks.json`:
  `[{"name", "exit", "output"}]` with the output's last `cap` bytes.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any


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


def _serve(port: int, path: str) -> None:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(64)
    while True:
        conn, _ = server.accept()
        up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            up.connect(path)
        except OSError:
            conn.close()
            continue
        threading.Thread(target=_pipe, args=(conn, up), daemon=True).start()
        threading.Thread(target=_pipe, args=(up, conn), daemon=True).start()


def _run(argv: list[str], cwd: str, env: dict[str, str], timeout: float, stdout: Any, stderr: Any) -> str:
    try:
        child = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
                                 start_new_session=True)  # fmt: skip
    except OSError as e:
        stderr.write(f"cannot start {argv[0]}: {e}\n".encode())
        return "127"
    try:
        return str(child.wait(timeout=timeout))
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        return "timeout"


def agent(spec: dict[str, Any]) -> None:
    for port, path in spec.get("relays", []):
        threading.Thread(target=_serve, args=(int(port), str(path)), daemon=True).start()
    time.sleep(0.05)  # the listeners are bound before the CLI's first request
    out = spec["out"]
    with open(f"{out}/stdout", "wb") as so, open(f"{out}/stderr", "wb") as se:
        code = _run(spec["argv"], spec["cwd"], spec["env"], float(spec["timeout"]), so, se)
    with open(f"{out}/exit", "w") as f:
        f.write(code)


def checks(spec: dict[str, Any]) -> None:
    out, cap = spec["out"], int(spec.get("cap", 16384))
    results = []
    for name, command in spec["checks"]:
        path = f"{out}/check.log"
        with open(path, "wb") as log:
            code = _run(["sh", "-c", command], spec["cwd"], spec["env"], float(spec["timeout"]), log, log)
        size = os.path.getsize(path)
        with open(path, "rb") as log:
            log.seek(max(0, size - cap))
            tail = log.read().decode("utf-8", errors="replace")
        os.remove(path)
        results.append({"name": name, "exit": code, "output": tail, "cut": max(0, size - cap)})
    with open(f"{out}/checks.json", "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    given = json.loads(sys.argv[1])
    (agent if given["mode"] == "agent" else checks)(given)
