"""The supervisor inside an agent box's container (standard library only; skill-be runs its source with
`python3 -c`, never imports it). It runs as root with only the capabilities to switch to the agent's
uid and to kill (SETUID, SETGID, KILL), out of reach of everything it starts: the agent's processes
run under another uid and can neither signal, trace nor read it. One JSON argument says what to do;
the environment of the exec is the CLI's (the provider's key reaches it there, never on a command
line), and `env_keys` names which of its variables the CLI gets.

- `{"mode": "agent", "argv", "then", "cwd", "env_keys", "timeout", "uid", "relays": [[port, socket], ...]}`:
  start the relays (127.0.0.1:port -> the egress proxy's unix socket; the container has no network of
  its own), run the CLI under `uid`, read its stdout and stderr until it exits or the time limit
  (then every process of `uid` is killed), cut both streams at that moment, kill every process of
  `uid` that is left; then each argv of `then` (the follow-up turns) the same way while the one
  before exited 0, under what is left of the time limit; and print the record: `{"exit": code | "timeout" | "127", "stdout", "stderr"
  (base64), "left": processes killed after the exit, "clean": none of `uid` is left}`.
- `{"mode": "checks", "checks": [[name, command], ...], "cwd", "env_keys", "timeout", "uid", "cap"}`:
  each command with `sh -c` under `uid`, its output (stdout and stderr) cut at its exit, every process
  of `uid` killed after each, and print `[{"name", "exit", "output", "cut"}]` (the output's last `cap`
  bytes, and how many were cut before them).

Only tests switch protections off, to show the attacks they stop (the agent box contract suite):
`"kill": false` leaves the processes an exit leaves, `"files": folder` runs the old way (this
program under the agent's uid, writing its record into files the agent can write), and `"env"` puts
the CLI's environment on this program's command line.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any

POLL = 0.05


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


def _serve(server: socket.socket, path: str) -> None:
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


def relays(pairs: list[list[Any]]) -> None:
    """Each relay bound before this returns (the CLI's first request finds it listening)."""
    for port, path in pairs:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", int(port)))
        server.listen(64)
        threading.Thread(target=_serve, args=(server, str(path)), daemon=True).start()


def _of_uid(pid: str, uid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            lines = f.read().splitlines()
    except OSError:
        return False
    fields = dict(line.split(":", 1) for line in lines if ":" in line)
    if fields.get("State", "").split()[:1] == ["Z"]:
        return False  # dead already, waiting to be reaped
    return str(uid) in fields.get("Uid", "").split()


def kill_uid(uid: int) -> tuple[int, bool]:
    """SIGKILL every process of `uid` (real, effective or saved), until none is left: (how many were
    killed, whether none is left)."""
    me, killed = os.getpid(), set[str]()
    for _ in range(2000):
        found = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != me and _of_uid(p, uid)]
        if not found:
            return len(killed), True
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(int(pid), signal.SIGKILL)
                killed.add(pid)
        time.sleep(0.001)
    return len(killed), False


def _start(argv: list[str], spec: dict[str, Any], merged: bool) -> subprocess.Popen[bytes]:
    uid = spec.get("uid")
    drop = [] if uid is None else ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                                   "--inh-caps=-all", "--bounding-set=-all", "--"]  # fmt: skip
    env = spec.get("env") or {k: os.environ[k] for k in spec.get("env_keys", []) if k in os.environ}
    return subprocess.Popen([*drop, *argv], cwd=spec["cwd"], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merged else subprocess.PIPE,
                            start_new_session=True, close_fds=True)  # fmt: skip


class Streams:
    """A child's pipes, read until it exits; what the pipes hold at that moment is the end. Of each
    stream the last `keep` bytes are kept (`sizes` counts all of them)."""

    def __init__(self, child: subprocess.Popen[bytes], keep: int) -> None:
        self.child = child
        self.keep = keep
        self.bufs = {f.fileno(): bytearray() for f in (child.stdout, child.stderr) if f is not None}
        self.sizes = dict.fromkeys(self.bufs, 0)
        for fd in self.bufs:
            os.set_blocking(fd, False)
        try:
            self.exited: int | None = os.pidfd_open(child.pid)
        except (AttributeError, OSError):  # an old kernel: look every POLL seconds instead
            self.exited = None

    def _take(self, fd: int) -> int:
        """Read what the pipe holds now: how many bytes, 0 for none yet, -1 at its end (proc.py's
        `run_to_exit` reads its pipes the same way: this program runs with the standard library only)."""
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return 0
        except OSError:
            return -1
        buf = self.bufs[fd]
        buf += data
        self.sizes[fd] += len(data)
        if len(buf) > 2 * self.keep:
            del buf[: len(buf) - self.keep]
        return len(data) or -1

    def until_exit(self, timeout: float) -> bool:
        """Read until the child exits (True) or `timeout` passes (False); the child is not reaped, so
        nothing it left behind can see it gone."""
        deadline = time.monotonic() + timeout
        open_fds = set(self.bufs)
        while not exited(self.child.pid):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            watch = [*open_fds, *([self.exited] if self.exited is not None else [])]
            ready, _, _ = select.select(watch, [], [], min(left, POLL))
            for fd in ready:
                if fd in open_fds and self._take(fd) < 0:
                    open_fds.discard(fd)
        return True

    def cut(self) -> list[tuple[bytes, int]]:
        """Each stream as the pipes hold it now (kept bytes, bytes seen), then closed: a process left
        holding them writes into nothing."""
        out = []
        for fd, buf in self.bufs.items():
            while self._take(fd) > 0:
                pass
            os.close(fd)
            out.append((bytes(buf[-self.keep :]), self.sizes[fd]))
        if self.exited is not None:
            os.close(self.exited)
        return out


def exited(pid: int) -> bool:
    """Whether the child has exited, without reaping it: its pid stays taken until it is waited for."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def supervise(argv: list[str], spec: dict[str, Any], merged: bool, keep: int) -> dict[str, Any]:
    """One child under `uid` to its exit or time limit. Its output ends there: the pipes are read for
    what they hold and closed before the child is reaped, then every process of `uid` is killed."""
    uid, kill = spec.get("uid"), spec.get("kill", True)
    try:
        child = _start(argv, spec, merged)
    except OSError as e:
        why = f"cannot start {argv[0]}: {e}\n".encode()
        return {"exit": "127", "streams": [(b"", 0), (why, len(why))], "left": 0, "clean": True}
    streams = Streams(child, keep)
    finished = streams.until_exit(float(spec["timeout"]))
    if not finished:  # the time limit: the whole uid, or (the old way) the child's process group
        if uid is not None:
            kill_uid(uid)
        else:
            with contextlib.suppress(OSError):
                os.killpg(child.pid, signal.SIGKILL)
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
    got = streams.cut()
    left, clean = kill_uid(uid) if uid is not None and kill else (0, True)
    child.wait()
    return {"exit": str(child.returncode) if finished else "timeout", "streams": got, "left": left, "clean": clean}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def agent(spec: dict[str, Any]) -> dict[str, Any]:
    """The CLI's run, then each follow-up turn (`then`) while the one before exited 0, all under one
    time limit; the outputs one after the other."""
    relays(spec.get("relays", []))
    keep = int(spec.get("cap", 32 << 20))
    deadline = time.monotonic() + float(spec["timeout"])
    outs, errs, n_out, left, clean = b"", b"", 0, 0, True
    done: dict[str, Any] = {"exit": ""}
    for argv in [spec["argv"], *spec.get("then", [])]:
        if done["exit"] not in ("", "0"):
            break
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            done = {**done, "exit": "timeout"}
            break
        done = supervise(list(argv), {**spec, "timeout": remaining}, merged=False, keep=keep)
        (out, size), (err, _) = (*done["streams"], (b"", 0))[:2]
        outs, errs, n_out = (outs + out)[-keep:], (errs + err)[-keep:], n_out + size
        left, clean = left + done["left"], clean and done["clean"]
    return {"exit": done["exit"], "stdout": _b64(outs), "stderr": _b64(errs), "over": n_out > keep,
            "left": left, "clean": clean}  # fmt: skip


def checks(spec: dict[str, Any]) -> list[dict[str, Any]]:
    keep, results = int(spec.get("cap", 16384)), []
    for name, command in spec["checks"]:
        done = supervise(["sh", "-c", command], spec, merged=True, keep=keep)
        output, size = done["streams"][0]
        results.append({"name": name, "exit": done["exit"], "output": output.decode("utf-8", errors="replace"),
                        "cut": size - len(output), "clean": done["clean"]})  # fmt: skip
    return results


def _to_files(folder: str, result: Any) -> None:
    """The old way (a test's control only): the record in files under the agent-writable work folder."""
    if isinstance(result, list):
        with open(f"{folder}/checks.json", "w") as f:
            json.dump(result, f)
        return
    for key in ("stdout", "stderr"):
        with open(f"{folder}/{key}", "wb") as f:
            f.write(base64.b64decode(result[key]))
    with open(f"{folder}/exit", "w") as f:
        f.write(result["exit"])


if __name__ == "__main__":
    given = json.loads(sys.argv[1])
    result: Any = agent(given) if given["mode"] == "agent" else checks(given)
    if given.get("files"):
        _to_files(given["files"], result)
    sys.stdout.write(json.dumps(result))
    sys.stdout.flush()
